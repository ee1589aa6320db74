"""The race model: positions with no contact, from the bear-off databases.

Each side's distribution of rolls to finish (and to bear off its first checker, for
gammons) comes from the one-sided database (:mod:`tawla.evaluation.bearoff`); checkers
still outside home are moved onto the 6 point and their remaining pips are added as a
shift of ``pips / (49/6)`` rolls, spread by a normal kernel of variance ``0.0339 * pips``
(:func:`tawla.evaluation.rolls.shift`). This is the effective-pip-count idea: the
database's expected rolls times 8.17 is each side's effective pip count. The side to move
wins when it needs no more rolls than the other side. Where both sides are home with at
most 6 checkers each, the winning chance is the exact one of the two-sided database.

The databases apply to every ruleset once there is no contact (see the module docstring
of :mod:`tawla.evaluation.bearoff`). :func:`race_eval` runs the compiled twin
(:func:`tawla.native.race_sides`, every geometry) when it is built, else
:func:`race_eval_np`; :func:`tawla.native.race_rows` reads rows
directly.
"""

from __future__ import annotations

import numpy as np

from .. import native
from ..rules import Scoring
from .bearoff import eval_tables, rank_unchecked
from .protocol import equity_from_probs
from .rolls import MU, L, combine, race_columns, shift, t31_margins

__all__ = ["race_eval", "race_eval_np", "race_margins_np", "side_dists"]


def side_dists(side, one):
    """All-off and first-off roll distributions for sides with no contact.

    Parameters
    ----------
    side : int32[N, 26]
        One side in its own numbering (:func:`tawla.evaluation.board_views.sides`).
    one : float64[54264, 2, 33]
        The one-sided database.

    Returns
    -------
    d_all, d_first : float64[N, L]
    """
    home = side[:, 1:7].copy()
    outside = side[:, 7:26]
    pts = np.arange(7, 26)
    home[:, 5] += outside.sum(1)
    rolls = (outside * (pts - 6)).sum(1) / MU
    idx = rank_unchecked(home)
    d_all = np.zeros((len(side), L))
    d_first = np.zeros((len(side), L))
    d_all[:, :one.shape[2]] = one[idx, 0, :]
    d_first[:, :one.shape[2]] = one[idx, 1, :]
    return shift(d_all, rolls), shift(d_first, rolls)


def race_eval(me, opp, r) -> np.ndarray:
    """The race model's evaluation (the columns of :data:`~tawla.evaluation.COLUMNS`).

    Parameters
    ----------
    me, opp : int32[N, 26]
        Both sides in their own numbering, with no contact between them.
    r : Ruleset

    Returns
    -------
    float64[N, 6]
        No backgammons are predicted (both backgammon columns are 0). Column 0 is the
        equity in ``r``'s scoring; tawla31's checkers-left scoring (RULES.md §5.7) by
        :func:`tawla.evaluation.rolls.t31_equity`.
    """
    if not native.available("eval") or len(me) == 0:
        return race_eval_np(me, opp, r)
    one, _, _, two = eval_tables()
    out = native.race_sides(np.ascontiguousarray(me, dtype=np.int32), np.ascontiguousarray(opp, dtype=np.int32),
                            r, one, two)
    if r.scoring != Scoring.CHECKERS_LEFT:
        out[:, 0] = equity_from_probs(out[:, 1:], r)
    return out


def race_eval_np(me, opp, r) -> np.ndarray:
    """:func:`race_eval` in numpy (the reference the compiled twin is diffed against)."""
    two = eval_tables()[3]
    win, wg, lg, parts = _race(me, opp)
    # the exact two-sided database where both sides are home with at most 6 checkers
    small = ((me[:, 7:26].sum(1) == 0) & (opp[:, 7:26].sum(1) == 0)
             & (me[:, 1:7].sum(1) <= 6) & (opp[:, 1:7].sum(1) <= 6))
    if small.any():
        win = win.copy()
        win[small] = two[rank_unchecked(me[small, 1:7]) * 924 + rank_unchecked(opp[small, 1:7])]
    return race_columns(win, wg, lg, parts, me, opp, r)


def race_margins_np(me, opp) -> np.ndarray:
    """tawla31's distribution of the result for the side to move in races (RULES.md §5.7), by
    the race model (:func:`tawla.evaluation.rolls.t31_margins`, float64[N, 31]); ``me``, ``opp``
    as for :func:`race_eval`."""
    return t31_margins(_race(me, opp)[3], me, opp)


def _race(me, opp):
    """:func:`tawla.evaluation.rolls.combine` of both sides' roll distributions from the
    one-sided database."""
    one = eval_tables()[0]
    pm_all, pm_first = side_dists(me, one)
    po_all, po_first = side_dists(opp, one)
    return combine(pm_all, pm_first, po_all, po_first, me[:, 0] == 0, opp[:, 0] == 0)
