"""Step-by-step play (RULES.md §1.3): the steps a board lights up during a turn.

A single step is legal *as a next step* only if it is the first step of some sequence the
maximum-dice rule (§1.4) keeps, given the steps already made this turn.
"""

from __future__ import annotations

from typing import Iterable

import numpy as np

from . import native
from .core.dice import DiceLike, check_dice
from .core.steps import Step, combined_step, point_name
from .errors import IllegalMove, InvalidPosition, quote
from .position import Position

__all__ = ["legal_steps", "played_hops"]


def legal_steps(position: Position, dice: DiceLike,
                played_steps: Iterable[Step | tuple[int, int, int]] = ()) -> list[Step]:
    """The steps a player may make next so that a maximal legal move stays reachable.

    RULES.md §1.3 "step-by-step play": what a board lights up. Besides single steps, a
    checker's one-checker combined moves are listed as one :class:`Step` whose ``die`` is
    the tuple of dice in the order used (``hit`` True if it hits or pins on the way); of
    the orders of the dice that take a checker to the same point with the same hits, only
    the first (high die first where it plays) is listed.
    Computed by :func:`tawla.native.turn_steps` (the compiled engine where it is built).

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
    tawla.errors.InvalidPosition
        ``position`` is not a :class:`tawla.Position`.
    """
    if not isinstance(position, Position):
        raise InvalidPosition(f"expected a tawla.Position, not {type(position).__name__}")
    dice = check_dice(dice)
    try:
        played_steps = list(played_steps)
    except TypeError:
        raise IllegalMove(f"played_steps must be a sequence of steps, not {quote(played_steps)}") from None
    hops = played_hops(played_steps)
    row, r = position.row, position.ruleset
    try:
        singles, combined, _ended = native.turn_steps(row, dice, hops, r)
    except IllegalMove:
        raise _explain(row, dice, hops, r) from None
    return [Step(*x) for x in singles] + _with_hit_points(combined, row, hops, r)


def _with_hit_points(combined, row: bytes, hops: tuple, r) -> list:
    """Combined steps that know where on their route they hit, so that ``str()`` writes
    each hit (``24/21*/20``)."""
    board = native.play_hops(row, hops, r)[0] if hops and any(x[3] for x in combined) else row
    out = []
    for a, b, dice, hit in combined:
        points = ()
        if hit:
            route = _expand_played((a, b, dice))
            points = tuple(s.to_point for s in native.play_hops(board, route, r)[1] if s.hit)
        out.append(combined_step(a, b, dice, points))
    return out


def played_hops(played_steps) -> tuple:
    """Played steps (Steps or tuples, single or combined) as single hops ``(from, to, die)``.

    Raises
    ------
    tawla.errors.IllegalMove
        A step that is not ``(from_point, to_point, die[, hit])`` with dice that lead from
        ``from_point`` to ``to_point``.
    """
    if not isinstance(played_steps, (list, tuple)):
        raise IllegalMove(f"played steps must be a list or tuple, not {type(played_steps).__name__}")
    hops = []
    for raw in played_steps:
        hops += _expand_played(raw)
    return tuple(hops)


def _explain(row, dice, hops, r) -> IllegalMove:
    """The error for the first played hop that is not a legal next step, naming the legal ones."""
    for i, (a, b, d) in enumerate(hops):
        singles, _combined, ended = native.turn_steps(row, dice, hops[:i], r)
        if ended:
            return IllegalMove("the game is already over this turn", text=f"{a}/{b}")
        if not any(x[:3] == (a, b, d) for x in singles):
            if i == 0 and not singles:
                why = "the game is over" if native.is_over(row, r) else "the turn passes"
                return IllegalMove(f"no step is legal: {why}", text=f"{a}/{b}")
            return IllegalMove(f"step {point_name(a)}/{point_name(b)} with a {d} is not legal now",
                               text=f"{a}/{b}", legal=[Step(*x) for x in singles])
    return IllegalMove(f"the played steps {list(hops)} are not legal")


def _is_int(x) -> bool:
    return isinstance(x, (int, np.integer)) and not isinstance(x, bool)


def _expand_played(raw):
    """A played step (Step or tuple) as a list of single (from, to, die) hops."""
    bad = IllegalMove(f"a played step is (from_point, to_point, die[, hit]), not {quote(raw)}", text=quote(raw))
    if not isinstance(raw, (tuple, list)) or len(raw) not in (3, 4):
        raise bad
    a, b, d = raw[0], raw[1], raw[2]
    if len(raw) == 4 and not isinstance(raw[3], (bool, np.bool_)):
        raise bad
    dice = tuple(d) if isinstance(d, (tuple, list)) else (d,)
    if not (_is_int(a) and _is_int(b) and dice and all(_is_int(x) and 1 <= x <= 6 for x in dice)):
        raise bad
    hops, p = [], int(a)
    for i, die in enumerate(dice):
        die = int(die)
        q = max(p - die, 0) if i == len(dice) - 1 and b == 0 else p - die
        hops.append((p, q, die))
        p = q
    if p != b:
        raise IllegalMove(f"step {a}/{b} does not match its dice {dice}", text=str(raw))
    if not all(1 <= x <= 25 and 0 <= y <= 24 for x, y, _d in hops):
        raise IllegalMove(f"step {a}/{b} is not on the board (points 25..0)", text=str(raw))
    return hops
