"""Board views of packed rows for the evaluators: each side in its own numbering, pip
counts, contact, game over, and the odds of a direct shot."""

from __future__ import annotations

import numpy as np

from .. import native
from ..core.geometry import GEOMETRIES, OPPONENT_POINT, OPPOSITE
from ..core.layout import PACKED_WIDTH
from ..errors import InvalidId
from ..rules import get_ruleset

__all__ = ["check_rows", "sides", "pip_counts", "is_race", "race_mask", "is_terminal",
           "SHOTS", "LOGMISS", "POINT_MAP"]

POINT_MAP = {g: np.array(OPPONENT_POINT[g]) for g in GEOMETRIES}
"""Per geometry, :data:`tawla.core.geometry.OPPONENT_POINT` as an index array: point ``p`` of
one side is point ``POINT_MAP[geometry][p]`` of the other."""

SHOTS = np.zeros(26)
"""``SHOTS[d]``: the share of the 36 rolls that move one checker exactly ``d`` pips
(blocking ignored), ``d = 0..25``."""
for _d, _n in {1: 11, 2: 12, 3: 14, 4: 15, 5: 15, 6: 17, 7: 6, 8: 6, 9: 5, 10: 3, 11: 2, 12: 3,
               15: 1, 16: 1, 18: 1, 20: 1, 24: 1}.items():
    SHOTS[_d] = _n / 36.0
LOGMISS = np.log(1 - np.minimum(SHOTS, 0.999))
"""``log(1 - SHOTS[d])``: the log-probability that a shooter ``d`` pips away misses."""


def check_rows(positions) -> np.ndarray:
    """``positions`` as ``uint8[N, PACKED_WIDTH]`` (one row is made a batch of one).

    Raises
    ------
    tawla.errors.InvalidId
        Another shape or dtype.
    """
    try:
        a = np.asarray(positions)
    except (TypeError, ValueError):  # ragged nested lists
        raise InvalidId(f"positions must be uint8[N, {PACKED_WIDTH}]") from None
    if a.ndim == 1:
        a = a[None]
    if a.ndim != 2 or a.shape[1] != PACKED_WIDTH or a.dtype != np.uint8:
        raise InvalidId(f"positions must be uint8[N, {PACKED_WIDTH}], got {a.dtype}{list(a.shape)}")
    return a


def sides(rows: np.ndarray, r):
    """Own-coordinate views of both sides.

    Parameters
    ----------
    rows : uint8[N, 56]
    r : Ruleset

    Returns
    -------
    me, opp, om : int32[N, 26]
        ``me``: the side to move's checkers (0 off, 1..24 its points, 25 bar); ``opp`` the
        same for the opponent in its own numbering; ``om`` the opponent on the mover's
        points (``om[:, p]``, p = 1..24; ``om[:, 0]`` off, ``om[:, 25]`` bar).
    """
    a = rows.astype(np.int32)
    me = a[:, 0:26]
    om = a[:, 26:52]
    if r.geometry == OPPOSITE:
        opp = np.concatenate([om[:, :1], om[:, 24:0:-1], om[:, 25:26]], axis=1)
    else:
        opp = om[:, POINT_MAP[r.geometry]]
    return me, opp, om


def pip_counts(positions, ruleset) -> np.ndarray:
    """Pip counts of both sides.

    Parameters
    ----------
    positions : uint8[N, 56]
    ruleset : Ruleset or str

    Returns
    -------
    int32[N, 2]
        Pips of (side to move, opponent), each in its own numbering (bar = 25).

    Raises
    ------
    tawla.errors.InvalidId, tawla.errors.UnsupportedRuleset
    """
    r = get_ruleset(ruleset)
    me, opp, _ = sides(check_rows(positions), r)
    w = np.arange(26, dtype=np.int32)
    return np.stack([me @ w, opp @ w], axis=1)


def is_race(positions, ruleset) -> np.ndarray:
    """``bool[N]``: no contact — the two sides can never meet again.

    Opposite-direction games: every checker of the side to move (bar included) is below
    every opponent checker, in the mover's numbering. tawla31-saharat (same direction):
    both sides have all their checkers on their own points 1..12 (past each other).

    Raises
    ------
    tawla.errors.InvalidId, tawla.errors.UnsupportedRuleset
    """
    r = get_ruleset(ruleset)
    me, opp, om = sides(check_rows(positions), r)
    return race_mask(me, opp, om, r)


def race_mask(me, opp, om, r) -> np.ndarray:
    """:func:`is_race` on the views of :func:`sides`."""
    if r.geometry == OPPOSITE:
        occ_me = me[:, 1:26] > 0  # p = 1..25
        my_max = np.where(occ_me.any(1), 25 - np.argmax(occ_me[:, ::-1], axis=1), 0)
        occ_op = np.concatenate([om[:, 25:26] > 0, om[:, 1:25] > 0], axis=1)  # x = 0..24
        op_min = np.where(occ_op.any(1), np.argmax(occ_op, axis=1), 99)
        return my_max < op_min
    return (me[:, 13:26].sum(1) == 0) & (opp[:, 13:26].sum(1) == 0)


def is_terminal(positions, ruleset) -> np.ndarray:
    """``bool[N]``: the game is over and the side to move has lost (the opponent just won), by
    the engine's one game-end function (:func:`tawla.native.game_results`, RULES.md §1.8, §4.4,
    §5.6; frozen positions are not looked for).

    Raises
    ------
    tawla.errors.InvalidId, tawla.errors.InvalidPosition, tawla.errors.UnsupportedRuleset
    """
    r = get_ruleset(ruleset)
    over, winner, _points, _kind = native.game_results(check_rows(positions), r, frozen_test=False)
    return over & (winner == 1)
