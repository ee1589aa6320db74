"""Moves and steps: the objects, GNU Backgammon notation, parsing, and step-by-step play.

Points are in the mover's numbering: 1..24, 25 = bar, 0 = off (RULES.md §1.1).
"""

from __future__ import annotations

import re

import numpy as np

from .errors import AmbiguousMove, IllegalMove, InvalidDice
from .reference import engine as ref
from .rules import Ruleset
from .steps import Step

__all__ = ["Step", "Move", "format_steps", "parse_move", "legal_steps", "check_dice"]


def _fmt_point(p: int) -> str:
    return "bar" if p == 25 else "off" if p == 0 else str(p)


class Move:
    """A legal move: the single steps of one canonical path and the board they lead to.

    Moves are made by :meth:`tawla.Position.legal_moves` and :func:`parse_move`; two
    moves are equal when they start from the same position and lead to the same one.

    Attributes
    ----------
    steps : tuple[Step, ...]
        Single-die steps in play order. The canonical path: of all the orders that reach
        the resulting position, the first found when trying dice from high to low and,
        for each die, checkers from the highest point down.
    dice : (int, int)
        The roll.
    ended : bool
        Whether the move ends the game (last checker off, quadrant lock, mother rule).
    source, after : bytes
        Packed rows (mover's seat) before and after the move.
    ruleset : Ruleset
    """

    __slots__ = ("steps", "dice", "ended", "source", "after", "ruleset")

    def __init__(self, steps, dice, ended, source, after, ruleset):
        set_ = object.__setattr__
        set_(self, "steps", tuple(steps))
        set_(self, "dice", tuple(dice))
        set_(self, "ended", ended)
        set_(self, "source", source)
        set_(self, "after", after)
        set_(self, "ruleset", ruleset)

    def __setattr__(self, name, value):
        raise AttributeError("Move is immutable")

    def __delattr__(self, name):
        raise AttributeError("Move is immutable")

    def __eq__(self, other):
        return (isinstance(other, Move) and self.after == other.after and self.source == other.source
                and self.ruleset == other.ruleset)

    def __hash__(self):
        return hash((self.source, self.after))

    def __str__(self):
        return format_steps(self.steps)

    def __repr__(self):
        return f"<Move {self} ({self.dice[0]}-{self.dice[1]})>"

    def result_position(self):
        """The board after the move, still seen from the mover's seat (not flipped)."""
        from .position import Position

        return Position(self.after, self.ruleset)


# --- notation ---------------------------------------------------------------------------------
def format_steps(steps) -> str:
    """GNU Backgammon notation for a list of single steps.

    One checker's consecutive steps are joined (``24/13``), an intermediate point is shown
    only where the checker hit there (``13/7*/4``), identical moves are counted
    (``8/5(2)``), highest points first; ``bar`` and ``off`` name the bar and the tray.
    A pass is the empty string.
    """
    paths: list[list] = []  # each: [points..., hits set]
    for s in steps:
        for path in paths:
            if path[0][-1] == s.from_point and s.from_point != 0 and not path[2]:
                path[0].append(s.to_point)
                if s.hit:
                    path[1].add(s.to_point)
                break
        else:
            paths.append([[s.from_point, s.to_point], {s.to_point} if s.hit else set(), False])
    # A path keeps only its endpoints and its hit points.
    shown = []
    for pts, hits, _ in paths:
        keep = [pts[0]] + [p for p in pts[1:-1] if p in hits] + [pts[-1]]
        text = "/".join(_fmt_point(p) + ("*" if i and p in hits else "") for i, p in enumerate(keep))
        shown.append((pts[0], pts[-1], text))
    shown.sort(key=lambda x: (-x[0], -x[1]))
    out: list[str] = []
    counts: list[int] = []
    for _, _, text in shown:
        base = text.replace("*", "")
        if out and out[-1].replace("*", "") == base:
            counts[-1] += 1
            if "*" in text and "*" not in out[-1]:
                out[-1] = text
        else:
            out.append(text)
            counts.append(1)
    return " ".join(t if n == 1 else f"{t}({n})" for t, n in zip(out, counts))


def check_dice(dice) -> tuple:
    """Validate a roll: two integers in 1..6.

    Raises
    ------
    tawla.errors.InvalidDice
    """
    try:
        a, b = dice
    except (TypeError, ValueError):
        raise InvalidDice(f"dice must be a pair of integers in 1..6, not {dice!r}") from None
    for d in (a, b):
        if isinstance(d, bool) or not isinstance(d, (int, np.integer)):
            raise InvalidDice(f"dice must be integers in 1..6, not {dice!r}")
        if not 1 <= int(d) <= 6:
            raise InvalidDice(f"dice must be in 1..6, not {dice!r}")
    return int(a), int(b)


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
    legal = position.legal_moves(dice)
    try:
        segs = _segments(text)
    except (ValueError, IndexError):
        raise IllegalMove(f"cannot read move text {text[:80]!r}", text=text, legal=legal) from None
    if len(segs) > len(ref.expand_dice(dice)):  # each segment needs at least one die
        raise IllegalMove(f"{text[:80]!r} moves more checkers than {dice[0]}-{dice[1]} allows",
                          text=text, legal=legal)
    by_after = {m.after: m for m in legal}
    if not segs:
        if position.result() is not None:
            from .errors import InvalidAction

            raise InvalidAction("the game is over: no move can be played")
        if not legal:
            from .engine import pass_move

            return pass_move(position, dice)
        raise IllegalMove(f"{text!r} passes, but a legal move exists: {', '.join(map(str, legal))}",
                          text=text, legal=legal)
    r = position.ruleset
    finals = set()
    _realise(r, ref.State.from_row(position.row), ref.expand_dice(dice), tuple(segs), finals, set())
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


# --- step-by-step play (§1.3) -----------------------------------------------------------------
def legal_steps(position, dice, played_steps=()) -> list:
    """The steps a player may make next so that a maximal legal move stays reachable.

    RULES.md §1.3 "step-by-step play": what a board lights up. Besides single steps, a
    checker's one-checker combined moves are listed as one :class:`Step` whose ``die`` is
    the tuple of dice in the order used (``hit`` True if it hits or pins on the way).

    Parameters
    ----------
    position : tawla.Position
        The position at the start of the turn, seen from the mover.
    dice : (int, int)
    played_steps : sequence of Step or (from_point, to_point, die)
        Steps already made this turn (single or combined), in order.

    Returns
    -------
    list[Step]
        Single steps first (dice high to low, points high to low), then combined steps.
        Empty when the turn is complete (or passes).

    Raises
    ------
    tawla.errors.IllegalMove
        A played step that was not a legal next step.
    tawla.errors.InvalidDice
    """
    dice = check_dice(dice)
    try:
        played_steps = list(played_steps)
    except TypeError:
        raise IllegalMove(f"played_steps must be a sequence of steps, not {played_steps!r}") from None
    r = position.ruleset
    s = ref.State.from_row(position.row)
    dice4 = ref.expand_dice(dice)
    over = position.result() is not None
    target = 0 if over else ref.best_length(r, s, dice4)  # M of §1.4
    if target == 0:
        if played_steps:
            why = "the game is over" if over else "the turn passes"
            raise IllegalMove(f"no step is legal: {why}", text=str(played_steps[0]))
        return []
    ctx = _StepContext(r, dice, dice4, target)
    remaining, used, ended = dice4, 0, False
    for raw in played_steps:
        if ended:
            raise IllegalMove("the game is already over this turn", text=str(raw))
        for a, b, d in _expand_played(raw):
            options = [st for st, n, rest in ctx.next_single(s, remaining, used)
                       if (st.from_point, st.to_point, st.die) == (a, b, d)]
            if not options:
                raise IllegalMove(f"step {_fmt_point(a)}/{_fmt_point(b)} with a {d} is not legal now",
                                  text=f"{a}/{b}", legal=[x[0] for x in ctx.next_single(s, remaining, used)])
            s = ref.apply_step(r, s, a, b)
            remaining = _minus(remaining, d)
            used += 1
            ended = ref.game_ended(r, s)
    if ended:
        return []
    singles = [st for st, n, rest in ctx.next_single(s, remaining, used)]
    combined = []
    for st, n, rest in ctx.next_single(s, remaining, used):
        _extend(ctx, n, rest, used + 1, st.from_point, st.to_point, (st.die,), st.hit, combined)
    return singles + combined


class _StepContext:
    def __init__(self, r, dice, dice4, target):
        self.r, self.dice, self.dice4, self.target = r, dice, dice4, target
        self.high_only = target == 1 and dice[0] != dice[1]

    def next_single(self, s, remaining, used):
        """Legal next single steps: those after which the turn can still reach M dice."""
        out = []
        for st, n, rest in ref.next_steps(self.r, s, remaining):
            if ref.game_ended(self.r, n):
                total = ref.dice_counted(True, n.me[0], used + 1, len(self.dice4))
            else:
                total = used + 1 + ref.best_length(self.r, n, rest)
            if total >= self.target:
                out.append((st, n, rest))
        if self.high_only and used == 0:
            high = max(self.dice)
            if any(st.die == high for st, _, _ in out):
                out = [x for x in out if x[0].die == high]
        return out


def _extend(ctx, s, remaining, used, origin, at, dice_used, hit, out):
    """Append combined steps of the checker now on ``at`` (started on ``origin``)."""
    if at == 0 or ref.game_ended(ctx.r, s):
        return
    for st, n, rest in ctx.next_single(s, remaining, used):
        if st.from_point != at:
            continue
        path_dice = dice_used + (st.die,)
        step = Step(origin, st.to_point, path_dice, hit or st.hit)
        out.append(step)
        _extend(ctx, n, rest, used + 1, origin, st.to_point, path_dice, hit or st.hit, out)


def _minus(remaining: tuple, d: int) -> tuple:
    rest = list(remaining)
    rest.remove(d)
    return tuple(rest)


def _is_int(x) -> bool:
    return isinstance(x, (int, np.integer)) and not isinstance(x, bool)


def _expand_played(raw):
    """A played step (Step or tuple) as a list of single (from, to, die) hops."""
    bad = IllegalMove(f"a played step is (from_point, to_point, die[, hit]), not {raw!r}", text=str(raw))
    if not isinstance(raw, (tuple, list)) or len(raw) not in (3, 4):
        raise bad
    a, b, d = raw[0], raw[1], raw[2]
    if len(raw) == 4 and not isinstance(raw[3], (bool, np.bool_)):
        raise bad
    dice = tuple(d) if isinstance(d, (tuple, list)) else (d,)
    if not (_is_int(a) and _is_int(b) and dice and all(_is_int(x) and 1 <= x <= 6 for x in dice)):
        raise bad
    hops, p = [], a
    for i, die in enumerate(dice):
        q = max(p - die, 0) if i == len(dice) - 1 and b == 0 else p - die
        hops.append((p, q, die))
        p = q
    if p != b:
        raise IllegalMove(f"step {a}/{b} does not match its dice {dice}", text=str(raw))
    return hops
