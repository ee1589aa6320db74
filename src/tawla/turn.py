"""Step-by-step play (RULES.md §1.3): the steps a board lights up during a turn.

A single step is legal *as a next step* only if it is the first step of some sequence the
maximum-dice rule (§1.4) keeps, given the steps already made this turn.
"""

from __future__ import annotations

import numpy as np

from .core.dice import check_dice, expand_dice
from .core.steps import combined_step, point_name
from .errors import IllegalMove
from .native import is_over
from .reference import engine as ref

__all__ = ["legal_steps"]


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
    dice4 = expand_dice(dice)
    over = is_over(position.row, r)
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
                raise IllegalMove(f"step {point_name(a)}/{point_name(b)} with a {d} is not legal now",
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
        _extend(ctx, n, rest, used + 1, st.from_point, st.to_point, (st.die,), _hit_at(st), combined)
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


def _hit_at(step) -> tuple:
    """The target of a single step as a one-point tuple when it hits, else ()."""
    return (step.to_point,) if step.hit else ()


def _extend(ctx, s, remaining, used, origin, at, dice_used, hits, out):
    """Append combined steps of the checker now on ``at`` (started on ``origin``; ``hits``:
    the points where it hit so far)."""
    if at == 0 or ref.game_ended(ctx.r, s):
        return
    for st, n, rest in ctx.next_single(s, remaining, used):
        if st.from_point != at:
            continue
        path_dice = dice_used + (st.die,)
        route_hits = hits + _hit_at(st)
        out.append(combined_step(origin, st.to_point, path_dice, route_hits))
        _extend(ctx, n, rest, used + 1, origin, st.to_point, path_dice, route_hits, out)


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
