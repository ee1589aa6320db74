"""The inputs of the linear contact model: point encodings and hand-chosen features of both sides.

For each side (its own numbering), 98 *raw* inputs in the manner of pubeval — for each
point 1..24 whether it holds exactly 1, 2 or 3 checkers and half the checkers beyond 3,
then half the checkers on the bar and the share borne off — and 14 *hand* features:
pips / 100, men on the bar, bar x (opponent's closed home points / 6)^2, home-board
points made, the 7 point made, the longest prime on 1..12 and its square / 6, anchors on
19..24, back checkers / 5, the chance that some blot is hit next roll, the pips that costs
/ 25, stacking (checkers beyond 3 on a point) / 5, the share borne off, and men on the bar
against a closed board. The compiled twin is :func:`tawla.native.features_bg`
(opposite-geometry rows only).
"""

from __future__ import annotations

import numpy as np

from ..errors import InvalidArgument
from .board_views import LOGMISS, SHOTS

__all__ = ["bg_features", "N_BG_FEATURES", "N_RAW", "N_HAND"]

N_RAW = 98
"""Raw inputs per side."""
N_HAND = 14
"""Hand-chosen features per side."""
N_BG_FEATURES = 2 * (N_RAW + N_HAND) + 1
"""Inputs of the linear model: raw and hand features of both sides and a constant 1."""


def _hand_features(S, O):
    """Hand-chosen features of side S (own coords) against O (own coords): float64[n, 14]."""
    n = len(S)
    Sf = S.astype(np.float64)
    made = S[:, 1:25] >= 2  # p = 1..24
    # O in S's coordinates: x = 25 - q for q in 1..24, bar -> x = 0
    Ox = np.concatenate([O[:, 25:26], O[:, 24:0:-1]], axis=1)  # x = 0..24
    shooters = Ox > 0
    blots = S[:, 1:25] == 1  # p = 1..24
    # log P(blot at p not hit) = sum_d shooters[p - d] * log(1 - shots(d))
    lm = np.zeros((n, 24))
    for d in range(1, 25):
        if SHOTS[d] == 0:
            continue
        # blot at p (index p-1) needs a shooter at x = p - d >= 0
        lm[:, d - 1:] += shooters[:, :25 - d] * LOGMISS[d]
    phit = np.where(blots, 1 - np.exp(lm), 0.0)
    p_any = 1 - np.exp((np.log(np.maximum(1 - phit, 1e-9))).sum(1))
    lost_pips = (phit * (25 - np.arange(1, 25))).sum(1) / 25.0
    pips = (Sf * np.arange(26)).sum(1)
    o_home = (O[:, 1:7] >= 2).sum(1)
    bar = Sf[:, 25]
    # longest run of made points on 1..12
    run = np.zeros(n)
    best = np.zeros(n)
    for p in range(12):
        run = np.where(made[:, p], run + 1, 0)
        best = np.maximum(best, run)
    anchors = made[:, 18:24].sum(1)
    back = Sf[:, 19:26].sum(1)
    stack = np.maximum(Sf[:, 1:25] - 3, 0).sum(1)
    home_made = made[:, 0:6].sum(1)
    return np.stack([
        pips / 100.0, bar, bar * (o_home / 6.0) ** 2, home_made, made[:, 6].astype(float),
        best, best ** 2 / 6.0, anchors, back / 5.0, p_any, lost_pips, stack / 5.0,
        Sf[:, 0] / 15.0, (o_home == 6) * bar,
    ], axis=1)


def _raw_features(S):
    """Point encodings of side S (own coords): float64[n, 98]."""
    Sf = S[:, 1:25].astype(np.float64)
    return np.concatenate([
        (Sf == 1), (Sf == 2), (Sf == 3), np.maximum(Sf - 3, 0) / 2.0,
        S[:, 25:26] / 2.0, S[:, 0:1] / 15.0,
    ], axis=1)


def bg_features(me, opp) -> np.ndarray:
    """The linear model's inputs.

    Parameters
    ----------
    me, opp : int32[N, 26]
        Both sides in their own numbering (:func:`tawla.evaluation.board_views.sides`).

    Returns
    -------
    float64[N, N_BG_FEATURES]
        ``[raw(me), hand(me), raw(opp), hand(opp), 1]``.

    Raises
    ------
    tawla.errors.InvalidArgument
        Sides that are not integer arrays of one shape ``(N, 26)``.
    """
    try:
        me, opp = np.asarray(me), np.asarray(opp)
    except (TypeError, ValueError):  # ragged nested lists
        raise InvalidArgument("sides must be int[N, 26] arrays") from None
    for side in (me, opp):
        if side.ndim != 2 or side.shape[1] != 26 or side.dtype.kind not in "iu" or side.shape != me.shape:
            raise InvalidArgument(f"sides must be int[N, 26] of one shape, not {side.dtype}{list(side.shape)}")
    return np.concatenate([_raw_features(me), _hand_features(me, opp), _raw_features(opp),
                           _hand_features(opp, me), np.ones((len(me), 1))], axis=1)
