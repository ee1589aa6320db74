"""Distributions of the number of rolls a side needs, and the race result two of them give.

A distribution is ``float64[N, L]``: entry ``k`` is the probability of needing exactly
``k`` rolls. The race model shifts the bear-off database's distributions by the rolls
spent coming home; the no-hit contact model builds them from effective pip counts. Both
turn them into probabilities with :func:`combine` (the side to move rolls first).
"""

from __future__ import annotations

import math

import numpy as np

from ..rules import Scoring
from .protocol import equity_from_probs

__all__ = ["MU", "VAR_PER_PIP", "L", "normal_rolls", "shift", "combine", "t31_equity", "t31_points", "t31_margins", "race_columns"]

MU = 49.0 / 6.0
"""Mean pips of one roll."""
VAR_PER_PIP = 18.472222 / MU ** 3
"""Variance of the number of rolls, per pip to travel: the variance of the pips rolled per
turn (18.47) over the cube of the mean (8.17)."""
L = 64
"""Length of a roll distribution (0..63 rolls; the last entry takes the rest)."""


def _erf(x):
    # Abramowitz-Stegun 7.1.26, |error| < 1.5e-7
    s = np.sign(x)
    x = np.abs(x)
    t = 1.0 / (1.0 + 0.3275911 * x)
    y = 1.0 - (((((1.061405429 * t - 1.453152027) * t) + 1.421413741) * t - 0.284496736) * t
               + 0.254829592) * t * np.exp(-x * x)
    return s * y


def _phi(x):
    return 0.5 * (1.0 + _erf(x / math.sqrt(2.0)))


def normal_rolls(mean, var, lo=1) -> np.ndarray:
    """Discretised normal distributions over 0..L-1 rolls.

    Parameters
    ----------
    mean, var : float[N]
        Mean and variance of each distribution, in rolls and rolls squared.
    lo : int or int[N]
        The mass below ``lo`` rolls is moved to ``lo``.

    Returns
    -------
    float64[N, L]
    """
    k = np.arange(L, dtype=np.float64)
    sd = np.sqrt(np.maximum(var, 1e-6))[:, None]
    m = np.asarray(mean, dtype=np.float64)[:, None]
    cdf = _phi((k + 0.5 - m) / sd)
    d = np.diff(np.concatenate([np.zeros((len(cdf), 1)), cdf], axis=1), axis=1)
    d[:, L - 1] += 1 - cdf[:, L - 1]
    lo = np.broadcast_to(np.asarray(lo), (len(d),))
    for v in np.unique(lo):
        sel = lo == v
        if v > 0:
            d[sel, v] += d[sel, :v].sum(1)
            d[sel, :v] = 0
    return d


def shift(dist, shift_rolls) -> np.ndarray:
    """Each distribution convolved with a normal kernel of mean ``shift_rolls`` and variance
    ``VAR_PER_PIP * MU * shift_rolls`` (the rolls spent bringing checkers home).

    Parameters
    ----------
    dist : float64[N, L]
    shift_rolls : float64[N]
        Rolls; rows with 0 are returned unchanged.

    Returns
    -------
    float64[N, L]
    """
    out = dist.copy()
    sel = shift_rolls > 0
    if not sel.any():
        return out
    s = shift_rolls[sel]
    ker = normal_rolls(s, VAR_PER_PIP * MU * s + 0.05, lo=0)  # [n, L]
    d = dist[sel]
    res = np.zeros_like(d)
    for t in range(L):
        w = ker[:, t:t + 1]
        if not w.any():
            continue
        res[:, t:] += w * d[:, :L - t]
    res[:, L - 1] += 1 - res.sum(1)
    out[sel] = res
    return out


def combine(pm_all, pm_first, po_all, po_first, me_off0, opp_off0):
    """Race probabilities from roll distributions, the side to move rolling first.

    Parameters
    ----------
    pm_all, pm_first, po_all, po_first : float64[N, L]
        Rolls for the side to move (``pm``) and the opponent (``po``) to bear off all its
        checkers and its first checker.
    me_off0, opp_off0 : bool[N]
        The side has borne off none yet (only then can it lose a gammon).

    Returns
    -------
    win, win_gammon, lose_gammon : float64[N]
    parts : tuple
        The distributions and their tail sums, for :func:`t31_equity`.
    """
    so_all = np.cumsum(po_all[:, ::-1], axis=1)[:, ::-1]  # P(N_o >= n)
    so_first = np.cumsum(po_first[:, ::-1], axis=1)[:, ::-1]
    sm_all = np.cumsum(pm_all[:, ::-1], axis=1)[:, ::-1]
    sm_first = np.cumsum(pm_first[:, ::-1], axis=1)[:, ::-1]
    win = (pm_all * so_all).sum(1)
    wg = np.where(opp_off0, (pm_all * so_first).sum(1), 0.0)
    # I lose a gammon if the opponent finishes on its m-th roll and I need > m rolls to get one off
    sm_first_next = np.concatenate([sm_first[:, 1:], np.zeros((len(sm_first), 1))], axis=1)
    lg = np.where(me_off0, (po_all * sm_first_next).sum(1), 0.0)
    return win, np.minimum(wg, win), np.minimum(lg, 1 - win), (pm_all, so_all, so_first,
                                                                po_all, sm_all, sm_first_next)


def race_columns(win, wg, lg, parts, me, opp, r) -> np.ndarray:
    """``float64[N, 6]``: the columns of :data:`~tawla.evaluation.COLUMNS` of a race's results
    (:func:`combine`'s, the win chance perhaps replaced by an exact one): no backgammons, the
    equity in ``r``'s scoring (tawla31's by :func:`t31_equity`)."""
    out = np.zeros((len(win), 6))
    out[:, 1], out[:, 2], out[:, 4] = win, wg, lg
    out[:, 0] = t31_equity(parts, me, opp) if r.scoring == Scoring.CHECKERS_LEFT else equity_from_probs(out[:, 1:], r)
    return out


def t31_equity(parts, me, opp) -> np.ndarray:
    """tawla31's expected points (15 minus the loser's checkers off, RULES.md §5.7): the
    points won less the points lost of :func:`t31_points`.

    Returns
    -------
    float64[N]
    """
    won, lost = t31_points(parts, me, opp)
    return won - lost


def t31_points(parts, me, opp) -> tuple[np.ndarray, np.ndarray]:
    """tawla31's expected points won and points lost by the side to move (RULES.md §5.7).

    From the race distributions (``parts`` of :func:`combine`) and a linear model of the
    loser's checkers left: 15 when it has none off; else its checkers on the board,
    falling linearly to 1 over its expected rolls.

    Parameters
    ----------
    parts : tuple
        From :func:`combine`.
    me, opp : int32[N, 26]
        Both sides in their own numbering (:func:`tawla.evaluation.board_views.sides`).

    Returns
    -------
    won, lost : float64[N]
        The expectation of the points of a win (0 for a loss), and of a loss.
    """
    pm_all, so_all, so_first, po_all, sm_all, sm_first_next, sm_all_next, rem_o, rem_m = _t31_terms(parts, me, opp)
    ew = (pm_all * (so_first * 15 + (so_all - so_first) * rem_o)).sum(1)
    el = (po_all * (sm_first_next * 15 + (sm_all_next - sm_first_next) * rem_m)).sum(1)
    return ew, el


def t31_margins(parts, me, opp) -> np.ndarray:
    """tawla31's distribution of the result for the side to move, by the model of
    :func:`t31_points`: for each roll on which the winner finishes, 15 points where the loser
    has none off, else the loser's checkers left then (a fraction split between the two
    whole numbers around it, which keeps the mean).

    Returns
    -------
    float64[N, 31]
        The chance of each result -15..15 (points lost negative, won positive; column
        ``15 + m`` for ``m``); its mean is ``won - lost`` of :func:`t31_points`.
    """
    pm_all, so_all, so_first, po_all, sm_all, sm_first_next, sm_all_next, rem_o, rem_m = _t31_terms(parts, me, opp)
    out = np.zeros((len(pm_all), 31))
    out[:, 30] = (pm_all * so_first).sum(1)
    out[:, 0] = (po_all * sm_first_next).sum(1)
    _spread_points(out, pm_all * (so_all - so_first), rem_o, +1)
    _spread_points(out, po_all * (sm_all_next - sm_first_next), rem_m, -1)
    return out


def _spread_points(out: np.ndarray, mass: np.ndarray, points: np.ndarray, sign: int) -> None:
    """Add ``mass[N, L]`` at ``points[N, L]`` (1..15, fractional: split between the whole
    numbers around it) to the results ``sign * points`` of ``out[N, 31]``."""
    lo = np.floor(points).astype(np.int64)
    frac = points - lo
    hi = np.minimum(lo + 1, 15)
    rows = np.broadcast_to(np.arange(len(out))[:, None], lo.shape)
    np.add.at(out, (rows, 15 + sign * lo), mass * (1 - frac))
    np.add.at(out, (rows, 15 + sign * hi), mass * frac)


def _t31_terms(parts, me, opp):
    """The race distributions of :func:`combine` with the 15-point results kept to a loser with
    none off, the tail of the side to move one roll on, and the loser's checkers left on each
    roll (a linear model: all its checkers on the board, falling to 1 over its expected rolls)."""
    pm_all, so_all, so_first, po_all, sm_all, sm_first_next = parts
    # the 15-point result needs the loser to have none off
    so_first = np.where((opp[:, 0] == 0)[:, None], so_first, 0.0)
    sm_first_next = np.where((me[:, 0] == 0)[:, None], sm_first_next, 0.0)
    sm_all_next = np.concatenate([sm_all[:, 1:], np.zeros((len(sm_all), 1))], axis=1)
    k = np.arange(L, dtype=np.float64)
    cm = 15 - me[:, 0]
    co = 15 - opp[:, 0]
    rm = np.maximum((pm_all * k).sum(1), 1e-9)
    ro = np.maximum((po_all * k).sum(1), 1e-9)
    rem_o = np.clip(co[:, None] * (1 - (k[None] - 1) / ro[:, None]), 1, 15)  # after n-1 rolls
    rem_m = np.clip(cm[:, None] * (1 - k[None] / rm[:, None]), 1, 15)  # after m rolls
    return pm_all, so_all, so_first, po_all, sm_all, sm_first_next, sm_all_next, rem_o, rem_m
