"""The reference engine: the rules of RULES.md written for clarity.

This module is the oracle that the fast (Cython) engine is diffed against. It searches
whole turns (§1.4, the maximum-dice rule) with the single-step rules of
:mod:`tawla.rules.steps`, on their mutable :class:`~tawla.rules.steps.State` in the mover's
numbering; those rules are re-exported here for the rest of the reference engine.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..core.dice import expand_dice
from ..core.layout import ME_OFF
from ..core.steps import Step
from ..rules import Ruleset
from ..rules.steps import (State, apply_step, game_ended, mother_pinned, movable_points, single_steps,
                           walls_ok)

__all__ = ["State", "Sequence", "legal_turns", "single_steps", "apply_step", "next_steps",
           "best_length", "dice_counted", "game_ended", "walls_ok", "movable_points", "mother_pinned",
           "expand_dice"]


@dataclass(frozen=True)
class Sequence:
    """A complete step sequence of §1.4: its steps, final state row, and whether it ended the game."""

    steps: tuple
    row: bytes
    ended: bool


# --- §1.4: the maximum-dice rule -----------------------------------------------------------
def next_steps(r: Ruleset, s: State, remaining: tuple):
    """Every legal single step from s with one of the remaining dice, with the state after it.

    Yields (Step, new_state, remaining_after), dice tried from high to low and
    from-points from high to low (this order defines the canonical step path of a move).
    """
    sources = movable_points(r, s)
    for d in sorted(set(remaining), reverse=True):
        left = list(remaining)
        left.remove(d)
        rest = tuple(left)
        for p, t, hit in single_steps(r, s, d, sources):
            n = apply_step(r, s, p, t)
            if r.wall_rule and not walls_ok(r, n):  # post_step_ok, §6.5 (D18)
                continue
            yield Step(p, t, d, hit), n, rest


def legal_turns(r: Ruleset, s: State, dice) -> list:
    """§1.4 ``legal_turns``: the complete step sequences the maximum-dice rule keeps.

    Parameters
    ----------
    r : Ruleset
    s : State
        The position, seen from the mover.
    dice : (int, int)
        The roll, each 1..6.

    Returns
    -------
    list[Sequence]
        The kept sequences (several may reach one final position). Empty when the turn
        passes. A sequence that ends the game with checkers of the mover still on the board
        (quadrant lock, plakoto mother rule) counts as using every die; one that bears off the
        last checker counts the dice it used (D17, vector G5).
    """
    dice4 = expand_dice(dice)
    found: list[Sequence] = []
    seen = set()

    def rec(state: State, remaining: tuple, steps: tuple):
        extended = False
        for step, n, rest in next_steps(r, state, remaining):
            extended = True
            key = (n.key(), rest)
            if key in seen:  # same state, same dice left: same continuations as before
                continue
            seen.add(key)
            if game_ended(r, n):
                found.append(Sequence(steps + (step,), n.to_row(), True))
            else:
                rec(n, rest, steps + (step,))
        if not extended:
            found.append(Sequence(steps, state.to_row(), False))

    rec(s, dice4, ())
    length = {id(x): dice_counted(x.ended, x.row[ME_OFF], len(x.steps), len(dice4)) for x in found}
    best = max(length.values())
    if best == 0:
        return []
    kept = [x for x in found if length[id(x)] == best]
    if best == 1 and dice[0] != dice[1]:  # §1.4: with one die only, the larger one if possible
        high = max(dice)
        if any(x.steps[0].die == high for x in kept):
            kept = [x for x in kept if x.steps[0].die == high]
    return kept


def dice_counted(ended: bool, off: int, steps: int, n_dice: int) -> int:
    """§1.4 ``len'``: the dice a sequence of ``steps`` steps counts for the maximum-dice rule.

    A sequence that ends the game with mover checkers still on the board (``off`` < 15:
    quadrant lock, plakoto mother rule) counts all ``n_dice``; any other sequence, the last
    checker borne off included, counts its steps (D17, vector G5)."""
    return n_dice if ended and off < 15 else steps


def best_length(r: Ruleset, s: State, remaining: tuple) -> int:
    """How many more dice can be used from s (§1.4 ``len'``, :func:`dice_counted`)."""
    best = 0
    for step, n, rest in next_steps(r, s, remaining):
        if game_ended(r, n):
            got = dice_counted(True, n.me[0], 1, len(remaining))
            if got == len(remaining):
                return got
            best = max(best, got)
            continue
        best = max(best, 1 + best_length(r, n, rest))
        if best == len(remaining):
            break
    return best
