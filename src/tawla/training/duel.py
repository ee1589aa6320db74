"""Strength between two 0-ply players: many games at once, duplicate dice, a 95% interval.

A *player* here is a function ``value(rows uint8[N, 56]) -> float64[N]``: the equity of each
row for its side to move (the first column of an evaluator). Each move is the child the mover
values best (the child is valued from the other seat, so the mover takes the one whose value
for the opponent is lowest). All games advance together, one :func:`tawla.expand` and at most
two evaluator calls a ply.

Duplicate dice: games come in pairs that use one dice sequence, player A starting the first
and player B the second, so that the luck of the dice mostly cancels in the pair's total.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from .. import native
from ..batch import expand
from ..errors import InvalidArgument
from ..evaluation import evaluate_rows
from ..rules import RulesetLike, get_ruleset

__all__ = ["duel", "DuelResult", "Player", "evaluator_player"]

Player = Callable[[np.ndarray], np.ndarray]


@dataclass(frozen=True)
class DuelResult:
    """The games of :func:`duel` for player A.

    Attributes
    ----------
    points : float64[2 * pairs]
        Points A won (negative: lost) in each game, cube 1; pair k is games 2k (A started) and 2k+1.
    unfinished : int
        Games cut at the ply limit (scored 0).
    """

    points: np.ndarray
    unfinished: int

    @property
    def mean(self) -> float:
        """Points a game for A."""
        return float(self.points.mean())

    @property
    def ci95(self) -> float:
        """Half-width of the 95% interval of :attr:`mean`, from the spread of the pairs' totals."""
        pair = self.points.reshape(-1, 2).mean(1)
        return float(1.96 * pair.std(ddof=1) / np.sqrt(len(pair))) if len(pair) > 1 else float("inf")

    @property
    def win_rate(self) -> float:
        """Share of the games A won (a draw counts a half)."""
        return float(((self.points > 0) + 0.5 * (self.points == 0)).mean())

    def __str__(self) -> str:
        return (f"{self.mean:+.3f} ± {self.ci95:.3f} points a game over {len(self.points)} games "
                f"({100 * self.win_rate:.1f}% won)")


def evaluator_player(ruleset: RulesetLike, contact=None) -> Player:
    """The 0-ply player of :func:`tawla.evaluation.evaluate_rows` with a contact model
    (default: the ruleset's own, :data:`tawla.evaluation.CONTACT_MODELS`)."""
    r = get_ruleset(ruleset)

    def value(rows: np.ndarray) -> np.ndarray:
        return evaluate_rows(rows, r, checked=False, contact=contact)[:, 0]
    return value


def duel(ruleset: RulesetLike, a: Player, b: Player, pairs: int, seed: int = 0,
         max_plies: int = 3000) -> DuelResult:
    """Play ``2 * pairs`` games of A against B with duplicate dice.

    Parameters
    ----------
    ruleset : Ruleset or str
    a, b : Player
        ``value(rows) -> float64[N]``: equity for each row's side to move.
    pairs : int
        Game pairs (>= 1).
    seed : int
        Seed of the dice; equal seeds give equal dice.
    max_plies : int
        Games still going after this many turns are scored 0.

    Returns
    -------
    DuelResult

    Raises
    ------
    tawla.errors.InvalidArgument
        ``pairs`` < 1 or ``max_plies`` < 1.
    """
    r = get_ruleset(ruleset)
    if pairs < 1 or max_plies < 1:
        raise InvalidArgument(f"pairs and max_plies must be >= 1, not {pairs}, {max_plies}")
    rng = np.random.default_rng(seed)
    dice = rng.integers(1, 7, size=(pairs, max_plies, 2), dtype=np.uint8)
    first = dice[:, 0]
    while (same := first[:, 0] == first[:, 1]).any():  # RULES.md §1.6: the opening roll is no double
        first[same] = rng.integers(1, 7, size=(int(same.sum()), 2), dtype=np.uint8)
    n = 2 * pairs
    start = np.frombuffer(r.initial_position().row, dtype=np.uint8)
    rows = np.tile(start, (n, 1))
    mover_is_a = np.arange(n) % 2 == 0
    points = np.zeros(n)
    live = np.ones(n, dtype=bool)
    for ply in range(max_plies):
        idx = np.flatnonzero(live)
        if len(idx) == 0:
            break
        children, parent = expand(rows[idx], dice[idx // 2, ply], ruleset=r)
        value = np.empty(len(children))
        by_a = mover_is_a[idx][parent]
        for mask, player in ((by_a, a), (~by_a, b)):
            if mask.any():
                value[mask] = -player(children[mask])
        starts = np.flatnonzero(np.r_[True, parent[1:] != parent[:-1]])
        best = np.maximum.reduceat(value, starts)
        hit = value >= np.repeat(best, np.diff(np.r_[starts, len(value)]))
        chosen = _first_per_group(hit, parent)
        rows[idx] = children[chosen]
        over, winner, pts, _kind = native.game_results(rows[idx], r)
        if over.any():
            g = idx[over]
            # winner relative to the new row: 1 = the side that just moved
            mover_won = winner[over] == 1
            a_moved = mover_is_a[g]
            sign = np.where(winner[over] < 0, 0.0, np.where(mover_won == a_moved, 1.0, -1.0))
            points[g] = sign * pts[over]
            live[g] = False
        mover_is_a[idx] = ~mover_is_a[idx]
    return DuelResult(points, int(live.sum()))


def _first_per_group(hit: np.ndarray, parent: np.ndarray) -> np.ndarray:
    """Index of the first True of ``hit`` within each run of equal ``parent`` (every run has one)."""
    cand = np.flatnonzero(hit)
    keep = np.r_[True, parent[cand[1:]] != parent[cand[:-1]]]
    return cand[keep]
