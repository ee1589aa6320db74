"""Move text: reading the GNU Backgammon notation of real match files into legal moves.

Writing is :func:`tawla.core.steps.format_steps` (``str(move)``). Points are in the mover's
numbering: 1..24, 25 = bar, 0 = off (RULES.md §1.1). :func:`parse_move` takes any board
with ``row`` and ``ruleset`` attributes (a :class:`tawla.Position`).
"""

from __future__ import annotations

import re

from . import native
from .core.dice import DiceLike, check_dice, expand_dice
from .core.layout import OPP, pinned_points
from .core.moves import Move
from .core.steps import format_steps, shown_routes
from .errors import AmbiguousMove, IllegalMove, InvalidAction, InvalidPosition, quote
from .rules import Ruleset
from .rules.steps import State, apply_step, game_ended, movable_points, single_steps, walls_ok

__all__ = ["parse_move", "format_steps", "fitting_moves", "written_hits", "hit_points", "by_written_hits"]


#: One checker's route: ``13/7``, ``21/17*/16*``, ``bar/22*``, ``6/off``, ``13/5*(2)`` (a star may
#: also follow the count: ``13/5(2)*``).
_TOKEN = re.compile(r"^((?:bar|\d{1,2})(?:\*?/(?:off|bar|\d{1,2}))+)(\*?)(?:\((\d)\))?(\*?)$", re.I)
_PASS_TEXTS = ("", "cannot move", "can't move", "no move", "pass", "-")


def _point(text: str) -> int:
    t = text.lower()
    if t == "bar":
        return 25
    if t == "off":
        return 0
    n = int(t)
    if not 0 <= n <= 25:
        raise IllegalMove(f"no point {n}", text=text)
    return n


def _read(text: str) -> tuple[list[tuple[int, int]], frozenset[int]]:
    """Parse move text into its single-checker segments and its written hits.

    Returns
    -------
    (list of (int, int), frozenset of int)
        The ``(from, to)`` segments, one per ``/`` (``(n)`` repeats expanded), and the points
        marked with ``*``.

    Raises
    ------
    tawla.errors.IllegalMove
        The text is not move notation (the caller words the message).
    """
    if not isinstance(text, str):
        raise IllegalMove(f"move text must be a str, not {type(text).__name__}")
    segs: list[tuple[int, int]] = []
    hits: set[int] = set()
    t = text.strip()
    if t.lower() in _PASS_TEXTS:
        return segs, frozenset()
    for tok in t.replace(",", " ").split():
        if "/" not in tok:  # dash notation: 13-7 is 13/7
            tok = tok.replace("-", "/")
        m = _TOKEN.match(tok)
        if not m:
            raise IllegalMove(f"not move notation: {quote(tok)}", text=tok)
        parts = m.group(1).split("/")
        pts = [_point(x.rstrip("*")) for x in parts]
        hits.update(p for p, x in zip(pts[1:], parts[1:]) if x.endswith("*"))
        if m.group(2) or m.group(4):
            hits.add(pts[-1])
        if parts[0].endswith("*"):
            raise IllegalMove(f"a checker cannot hit where it starts: {quote(tok)}", text=tok)
        n = int(m.group(3) or 1)
        if n < 1 or n > 4:
            raise IllegalMove(f"not move notation: {quote(tok)}", text=tok)
        for _ in range(n):
            for a, b in zip(pts, pts[1:]):
                if b >= a or a == 0 or b == 25:
                    raise IllegalMove(f"not move notation: {quote(tok)}", text=tok)
                segs.append((a, b))
    return segs, frozenset(hits)


def written_hits(text: str) -> frozenset:
    """The points a move text marks as hit (``*``), in the mover's numbering.

    ``"21/17*/16*"`` gives ``{17, 16}``; ``"13/5*(2)"`` gives ``{5}`` (one hit: a point holds
    one blot). A pass or unreadable text gives the empty set.

    Parameters
    ----------
    text : str

    Returns
    -------
    frozenset of int
    """
    try:
        return _read(text)[1]
    except (ValueError, IndexError):
        return frozenset()


def hit_points(move: Move) -> frozenset:
    """The points where a move hits (or pins, in Mahbusa), in the mover's numbering.

    Read from the positions before and after the move, so it is the same for every route
    that leads there: a point where an opponent blot was sent to the bar (RULES.md §2.1),
    or where an opponent checker that was free is pinned at the end of the move (§4.2).

    Parameters
    ----------
    move : Move

    Returns
    -------
    frozenset of int
    """
    if not isinstance(move, Move):
        raise IllegalMove(f"expected a Move, not {type(move).__name__}")
    before, after = move.source, move.after
    hits = {p for p in range(1, 25) if after[OPP + p] < before[OPP + p]}
    if move.ruleset.contact == "pin":
        mine_before, mine_after = pinned_points(before), pinned_points(after)
        hits.update(p for p in range(1, 25)
                    if after[p] and after[OPP + p] and p not in mine_after
                    and not (before[p] and before[OPP + p] and p not in mine_before))
    return frozenset(hits)


def fitting_moves(text: str, position, dice, legal=None, sequences=None) -> list:
    """Every legal move a text describes, its hit marks set aside.

    The text's segments are played with single legal steps (a segment ``13/4`` may take any
    route of the dice); each distinct resulting position is one fitting move. Hit marks are
    not used here: they choose among the fitting moves (:func:`parse_move`, and the record
    replay of :mod:`tawla.analysis`).

    Parameters
    ----------
    text : str
        Move text in the mover's numbering (see :func:`parse_move` for the dialects).
    position : tawla.Position
        The position, seen from the mover.
    dice : (int, int)
    legal : list of Move, optional
        ``position.legal_moves(dice)`` when the caller has it already.
    sequences : list of (steps, after, ended), optional
        Or the engine's :func:`tawla.native.legal_sequences` for the position and the dice:
        only the fitting moves are then made into :class:`Move` values.

    Returns
    -------
    list of Move
        In the order of :meth:`tawla.Position.legal_moves`; one passing move for a pass text
        when no move is legal.

    Raises
    ------
    tawla.errors.IllegalMove
        The text is malformed or fits no legal move; ``.legal`` lists the legal moves.
    tawla.errors.InvalidAction
        The game is over.
    tawla.errors.InvalidDice
    tawla.errors.InvalidPosition
        ``position`` is not a :class:`tawla.Position`.
    """
    dice = check_dice(dice)
    r, row = getattr(position, "ruleset", None), getattr(position, "row", None)
    if not isinstance(r, Ruleset) or not isinstance(row, bytes):
        raise InvalidPosition(f"move text is read against a tawla.Position, not {type(position).__name__}")
    if legal is not None:
        sequences = [(m.steps, m.after, m.ended) for m in legal]
    elif sequences is None:
        sequences = native.legal_sequences(row, dice, r)

    def moves(seqs):
        return legal if legal is not None and seqs is sequences else [
            Move(steps, dice, ended, row, after, r) for steps, after, ended in seqs]

    def illegal(message):
        return IllegalMove(message, text=text if isinstance(text, str) else quote(text), legal=moves(sequences))

    if not isinstance(text, str):
        raise illegal(f"move text must be a string, not {type(text).__name__}")
    try:
        segs, _hits = _read(text)
    except (ValueError, IndexError):
        raise illegal(f"cannot read move text {text[:80]!r}") from None
    if len(segs) > len(expand_dice(dice)):  # each segment needs at least one die
        raise illegal(f"{text[:80]!r} moves more checkers than {dice[0]}-{dice[1]} allows")
    if not segs:
        if native.is_over(row, r):
            raise InvalidAction("the game is over: no move can be played")
        if not sequences:
            return [Move.passing(row, dice, r)]
        raise illegal(f"{quote(text)} passes, but a legal move exists: {', '.join(map(str, moves(sequences)))}")
    mine = list(row[:26])  # the mover's checkers after the text: off, points, bar
    for a, b in segs:
        mine[a] -= 1
        mine[b] += 1
    target = bytes(mine) if min(mine) >= 0 else None
    found = [x for x in sequences if x[1][:26] == target]
    if len(found) == 1 and sorted(segs) == _route_segments(found[0][0]):
        pass  # the text is the move's own route (hit marks aside): it reaches that move
    elif found:  # the text's own route, step by step, decides which of them it reaches
        finals: set = set()
        _realise(r, State.from_row(row), expand_dice(dice), tuple(segs), finals, set())
        found = [x for x in found if x[1] in finals]
    if not found:
        alts = ", ".join(map(str, moves(sequences))) or "(none: the turn passes)"
        raise illegal(f"{quote(text)} is not a legal move with {dice[0]}-{dice[1]}; legal: {alts}")
    if legal is not None:
        return [m for m in legal if any(m.after == x[1] for x in found)]
    return moves(found)


def _route_segments(steps) -> list:
    """The sorted ``(from, to)`` segments of the text :func:`format_steps` writes for steps."""
    return sorted((a, b) for route in shown_routes(steps) for a, b in zip(route, route[1:]))


def by_written_hits(moves, hits: frozenset):
    """The one move among ``moves`` whose hits are exactly the written ones, or None.

    The hit rule of GNU Backgammon notation: every hit is written, intermediate ones
    included (``21/17*/16*``), so a point whose hit is not written was not hit.

    Parameters
    ----------
    moves : sequence of Move
        Moves that one text fits (:func:`fitting_moves`).
    hits : frozenset of int
        The written hits (:func:`written_hits`).

    Returns
    -------
    Move or None
    """
    exact = [m for m in moves if hit_points(m) == hits]
    return exact[0] if len(exact) == 1 else None


def parse_move(text: str, position: object, dice: DiceLike) -> Move:
    """Parse move text into the one legal :class:`Move` it describes.

    Accepts the dialects of real match files: ``bar/22`` or ``25/22`` for the bar,
    ``6/off``, ``6/0`` (and a lone ``0``-target) for off, hits with or without ``*``,
    compound single-checker moves (``24/13``), ``(n)`` repeats, and ``""`` /
    ``Cannot Move`` for a pass. Points are in the mover's numbering.

    The text is matched by the positions it can lead to (:func:`fitting_moves`). A hit
    that is the only way to play the text is read without its ``*`` (files that never
    mark hits). When the text fits several legal moves, the hit rule of GNU Backgammon
    notation chooses: every hit is written, intermediate ones included, so the move whose
    hits are exactly the written ones is meant. ``24/20`` is the route that hits nothing,
    ``24/21*/20`` the one hitting on 21, ``21/16*`` the one hitting on 16 only and
    ``21/17*/16*`` the one hitting on both.

    Parameters
    ----------
    text : str
    position : tawla.Position
        The position, seen from the mover.
    dice : (int, int)

    Returns
    -------
    Move

    Raises
    ------
    tawla.errors.IllegalMove
        The text is malformed or describes no legal move; ``.legal`` lists the legal moves.
    tawla.errors.AmbiguousMove
        The text fits more than one legal move and its hit marks do not name one of them;
        ``.legal`` lists them.
    tawla.errors.InvalidAction
        The game is over.
    tawla.errors.InvalidDice
    tawla.errors.InvalidPosition
        ``position`` is not a :class:`tawla.Position`.
    """
    matches = fitting_moves(text, position, dice)
    if len(matches) == 1:
        return matches[0]
    chosen = by_written_hits(matches, written_hits(text))
    if chosen is not None:
        return chosen
    raise AmbiguousMove(f"{quote(text)} fits {len(matches)} legal moves: {', '.join(map(str, matches))}",
                        text=text, legal=matches)


def _steps_from(r: Ruleset, s, remaining: tuple, a: int):
    """The legal single steps (RULES.md §8 ``legal_steps``, then the §6.5 wall rule) of the
    checkers on point ``a`` only, with each of the remaining dice, high to low.

    Yields
    ------
    (to_point, state_after, remaining_after)
    """
    if a not in movable_points(r, s):
        return
    for d in sorted(set(remaining), reverse=True):
        left = list(remaining)
        left.remove(d)
        rest = tuple(left)
        for p, t, _hit in single_steps(r, s, d, [a]):
            n = apply_step(r, s, p, t)
            if r.wall_rule and not walls_ok(r, n):  # post_step_ok, §6.5
                continue
            yield t, n, rest


def _realise(r: Ruleset, s, remaining: tuple, segs: tuple, finals: set, seen: set) -> None:
    """Collect the final rows reachable by playing every segment with single legal steps."""
    key = (s.key(), remaining, segs)
    if key in seen:
        return
    seen.add(key)
    if not segs:
        finals.add(s.to_row())
        return
    for i, (a, b) in enumerate(segs):
        if (a, b) in segs[:i]:
            continue  # the same segment again: the same continuations
        rest_segs = segs[:i] + segs[i + 1:]
        for t, n, rest in _steps_from(r, s, remaining, a):
            if t == b:
                finals_add = rest_segs
            elif t > b and t != 0:
                finals_add = ((t, b),) + rest_segs  # the same checker goes on
            else:
                continue
            if game_ended(r, n) and finals_add:
                continue
            _realise(r, n, rest, finals_add, finals, seen)
