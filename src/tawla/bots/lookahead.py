"""Cubeless probabilities a roll or two ahead, for many positions at once: what the cube
model at the score reads at the searching levels.

A position's pre-roll columns (:data:`tawla.evaluation.COLUMNS`, for its side on roll) at
one ply are the average over that side's 21 rolls of the columns after its best move at
0 ply (by equity); at two plies, the average over its rolls of the columns of the position
after its best move at 0 ply, each valued one ply ahead from the other side and turned
round — GNU Backgammon's n-ply evaluation, whose probabilities its cube decisions use.
A position with no move for a roll (a finished game has none) keeps its own columns.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from ..core.dice import ROLL_WEIGHTS
from ..native import expand_all_rolls

__all__ = ["flip_columns", "preroll_columns"]

Columns = Callable[[np.ndarray], np.ndarray]


def flip_columns(ev: np.ndarray) -> np.ndarray:
    """``float64[N, 6]``: columns of :data:`tawla.evaluation.COLUMNS` seen from the other side
    (equity negated, win turned round, the gammon and backgammon columns swapped)."""
    out = np.empty_like(ev, dtype=np.float64)
    out[:, 0] = -ev[:, 0]
    out[:, 1] = 1 - ev[:, 1]
    out[:, 2], out[:, 3] = ev[:, 4], ev[:, 5]
    out[:, 4], out[:, 5] = ev[:, 2], ev[:, 3]
    return out


def preroll_columns(rows: np.ndarray, r, evaluate: Columns, plies: int = 1, flip: Columns = flip_columns,
                    equity: Columns = lambda m: m[:, 0]) -> np.ndarray:
    """The pre-roll columns of each row ``plies`` (1 or 2) rolls ahead (the module docstring).

    Parameters
    ----------
    rows : uint8[N, 56]
        Valid positions of ``r`` (not validated here), each seen from its side on roll.
    r : Ruleset
    evaluate : callable
        ``evaluate(rows) -> float64[M, K]``, the 0-ply columns of rows of ``r``.
    plies : int
    flip, equity : callable
        The columns seen from the other side, and the equity a move is chosen by (default
        those of :data:`tawla.evaluation.COLUMNS`; :func:`tawla.bots.score.preroll_distribution`
        passes Tawla 31's points won and lost).

    Returns
    -------
    float64[N, K]
    """
    rows = np.ascontiguousarray(rows, dtype=np.uint8)
    out = np.asarray(evaluate(rows), dtype=np.float64).copy()
    if len(rows) == 0:
        return out
    c, par, roll = expand_all_rolls(rows, r)
    if len(c) == 0:
        return out
    mine = flip(np.asarray(evaluate(c), dtype=np.float64))
    key = np.asarray(par, np.int64) * 21 + roll
    order = np.lexsort((-equity(mine), key))  # each (row, roll) its best move first, ties in move order
    best = order[np.r_[True, key[order][1:] != key[order][:-1]]]
    if plies >= 2:
        mine[best] = flip(preroll_columns(c[best], r, evaluate, plies - 1, flip, equity))
    acc = np.zeros_like(out)
    np.add.at(acc, par[best], ROLL_WEIGHTS[roll[best]][:, None] * mine[best])
    moved = np.unique(par)
    out[moved] = acc[moved]
    return out
