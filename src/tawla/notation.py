"""Move text: reading the GNU Backgammon notation of real match files into legal moves.

Writing is :func:`tawla.core.steps.format_steps` (``str(move)``). Points are in the mover's
numbering: 1..24, 25 = bar, 0 = off (RULES.md §1.1). :func:`parse_move` takes any board
with ``row`` and ``ruleset`` attributes (a :class:`tawla.Position`).
"""

from __future__ import annotations

import re

from . import native
from .core.dice import check_dice, expand_dice
from .core.moves import Move
from .core.steps import format_steps
from .errors import AmbiguousMove, IllegalMove, InvalidAction
from .reference import engine as ref
from .rules import Ruleset

__all__ = ["parse_move", "format_steps"]


_TOKEN = re.compile(r"^((?:bar|\d{1,2})(?:\*?/(?:off|bar|\d{1,2}))+)\*?(?:\((\d)\))?$", re.I)


def _point(text: str, is_source: bool) -> int:
    t = text.lower()
    if t == "bar":
        return 25
    if t == "off":
        return 0
    n = int(t)
    if not 0 <= n <= 25:
        raise ValueError(n)
    return n


def _segments(text: str) -> list:
    """Parse move text into (from, to) segments of single checkers (compound kept whole)."""
    segs = []
    t = text.strip()
    if t.lower() in ("", "cannot move", "can't move", "no move", "pass", "-"):
        return segs
    for tok in t.replace(",", " ").split():
        m = _TOKEN.match(tok)
        if not m:
            raise ValueError(tok)
        pts = [_point(x, i == 0) for i, x in enumerate(m.group(1).replace("*", "").split("/"))]
        n = int(m.group(2) or 1)
        if n < 1 or n > 4:
            raise ValueError(tok)
        for _ in range(n):
            for a, b in zip(pts, pts[1:]):
                if b >= a or a == 0 or b == 25:
                    raise ValueError(tok)
                segs.append((a, b))
    return segs


def parse_move(text: str, position, dice) -> Move:
    """Parse move text into the one legal :class:`Move` it describes.

    Accepts the dialects of real match files: ``bar/22`` or ``25/22`` for the bar,
    ``6/off``, ``6/0`` (and a lone ``0``-target) for off, hits with or without ``*``,
    compound single-checker moves (``24/13``), ``(n)`` repeats, and ``""`` /
    ``Cannot Move`` for a pass. Points are in the mover's numbering.

    The text is matched by the positions it can lead to. When it fits several legal
    moves and exactly one of them is written that way in GNU Backgammon notation (which
    shows an intermediate point only where a hit happened), that one is meant:
    ``13/4`` is the route that hits nothing, ``13/7*/4`` the one hitting on 7.

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
        The text fits more than one legal move; ``.legal`` lists them.
    tawla.errors.InvalidDice
    """
    dice = check_dice(dice)
    if not isinstance(text, str):
        raise IllegalMove(f"move text must be a string, not {type(text).__name__}", text=repr(text))
    r = position.ruleset
    legal = native.legal_moves(position.row, dice, r)
    try:
        segs = _segments(text)
    except (ValueError, IndexError):
        raise IllegalMove(f"cannot read move text {text[:80]!r}", text=text, legal=legal) from None
    if len(segs) > len(expand_dice(dice)):  # each segment needs at least one die
        raise IllegalMove(f"{text[:80]!r} moves more checkers than {dice[0]}-{dice[1]} allows",
                          text=text, legal=legal)
    by_after = {m.after: m for m in legal}
    if not segs:
        if native.is_over(position.row, r):
            raise InvalidAction("the game is over: no move can be played")
        if not legal:
            return Move.passing(position.row, dice, r)
        raise IllegalMove(f"{text!r} passes, but a legal move exists: {', '.join(map(str, legal))}",
                          text=text, legal=legal)
    finals = set()
    _realise(r, ref.State.from_row(position.row), expand_dice(dice), tuple(segs), finals, set())
    matches = [by_after[f] for f in finals if f in by_after]
    if len(matches) > 1:  # our own notation names one of them exactly (13/3 is not 13/9*/3)
        exact = [m for m in matches if sorted(str(m).split()) == sorted(text.split())]
        if len(exact) == 1:
            matches = exact
    if len(matches) == 1:
        return matches[0]
    alts = ", ".join(map(str, legal)) or "(none: the turn passes)"
    if not matches:
        raise IllegalMove(f"{text!r} is not a legal move with {dice[0]}-{dice[1]}; legal: {alts}",
                          text=text, legal=legal)
    raise AmbiguousMove(f"{text!r} fits {len(matches)} legal moves: {', '.join(map(str, matches))}",
                        text=text, legal=matches)


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
        rest_segs = segs[:i] + segs[i + 1:]
        for step, n, rest in ref.next_steps(r, s, remaining):
            if step.from_point != a:
                continue
            t = step.to_point
            if t == b:
                finals_add = rest_segs
            elif t > b and t != 0:
                finals_add = ((t, b),) + rest_segs  # the same checker goes on
            else:
                continue
            if ref.game_ended(r, n) and finals_add:
                continue
            _realise(r, n, rest, finals_add, finals, seen)
