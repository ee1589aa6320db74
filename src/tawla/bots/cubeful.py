"""Cube decisions inside the search at a backgammon match score: GNU Backgammon's cubeful
n-ply evaluation.

The cubeful match-winning chance of a pre-roll position for its side on roll, the cube as a
:class:`tawla.met.ScoreState` from that side's seat says:

* at 0 ply, the match cube model (:class:`tawla.met.MatchCube`; compiled ``tw_cube_match``)
  on the position's cubeless columns, with the efficiency of its class
  (:func:`tawla.bots.cube.cube_efficiency`): no double, double/take, double/pass and the
  proper action's chance (no double where the side may not double);
* at n ply, its chance not doubling is the average over its 21 rolls of the best move's value
  with the cube as it is (1 less the opponent's cubeful chance at n - 1 ply on the position
  after it, the cube seen from the opponent), and doubling with the opponent taking the same
  with the cube doubled and the opponent's; a pass is the table's chance of cashing the cube;
  the proper action among the three. The best move of a roll is the one of greatest value for
  that cube; from 2 ply on it is chosen at 0 ply and only it is searched deeper, as the
  probabilities of :mod:`tawla.bots.lookahead` are.

So the opponent's cube decision after each roll, not one decision on averaged probabilities,
is what the searching levels see: a roll that lets the opponent cash counts as the cash.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from .. import native
from ..core.dice import ROLL_WEIGHTS
from ..met import MatchCube, MatchEquityTable, ScoreState, default_met
from ..met.cube import mwc_to_emg
from ..native import expand_all_rolls
from .cube import GNUBG_EFFICIENCY, CubeEfficiency, cube_efficiency

__all__ = ["model_mwc", "cubeful_mwc", "cubeful_decision", "cubeful_play_values"]

Columns = Callable[[np.ndarray], np.ndarray]

ND, DT, DP, OPTIMAL = range(4)
"""The columns of :func:`model_mwc` and :func:`cubeful_mwc`: the chances of winning the match
not doubling, doubling and the opponent taking, doubling and it passing, and of the proper
action."""


def model_mwc(cols: np.ndarray, rows: np.ndarray, ruleset, state: ScoreState, met: MatchEquityTable,
              efficiency: CubeEfficiency = GNUBG_EFFICIENCY) -> np.ndarray:
    """``float64[N, 4]`` (:data:`ND` ..): the match model at 0 ply on cubeless pre-roll columns
    ``cols`` (float64[N, 6], :data:`tawla.evaluation.COLUMNS`) of ``rows`` (uint8[N, 56], for
    the efficiency of their class), every row at ``state``."""
    cols = np.ascontiguousarray(cols, dtype=np.float64)
    x = cube_efficiency(rows, ruleset, efficiency)
    if native.available("rollout"):
        return native.cube_match(cols, met, state.away, state.opp_away, state.cube, state.owner, state.crawford, x)[0]
    out = np.empty((len(cols), 4))
    for i, (p, xi) in enumerate(zip(cols, x)):
        m = MatchCube.from_probabilities(np.clip(p[1:6], 0.0, 1.0), state, float(xi), met)
        out[i] = m.no_double_mwc, m.double_take_mwc, m.double_pass_mwc, m.optimal_mwc
    return out


def _best(value: np.ndarray, key: np.ndarray) -> np.ndarray:
    """Indices of the greatest ``value`` of each ``key`` (ties: the first in order)."""
    order = np.lexsort((-value, key))
    return order[np.r_[True, key[order][1:] != key[order][:-1]]]


def cubeful_mwc(rows: np.ndarray, ruleset, states: list[ScoreState], evaluate: Columns, plies: int,
                met: MatchEquityTable | None = None, efficiency: CubeEfficiency = GNUBG_EFFICIENCY) -> np.ndarray:
    """The cubeful chances of winning the match of pre-roll rows at ``plies`` (the module
    docstring).

    Parameters
    ----------
    rows : uint8[N, 56]
        Valid backgammon positions (not validated here), each seen from its side on roll.
    ruleset : Ruleset
    states : list of ScoreState
        The cubes to value every row at, from the rows' side on roll, all at one score.
    evaluate : callable
        ``evaluate(rows) -> float64[M, 6]``: the cubeless pre-roll columns at 0 ply.
    plies : int
        0, 1 or 2.

    Returns
    -------
    float64[N, len(states), 4]
        Per row and state: :data:`ND`, :data:`DT`, :data:`DP` and :data:`OPTIMAL`.
    """
    t = met if met is not None else default_met()
    rows = np.ascontiguousarray(rows, dtype=np.uint8)
    cols = np.asarray(evaluate(rows), dtype=np.float64) if len(rows) else np.zeros((0, 6))
    out = np.stack([model_mwc(cols, rows, ruleset, s, t, efficiency) for s in states], axis=1) \
        if len(rows) else np.zeros((0, len(states), 4))
    if plies <= 0 or len(rows) == 0:
        return out
    c, par, roll = expand_all_rolls(rows, ruleset)
    if len(c) == 0:
        return out
    branches = sorted({b for s in states for b in ((s, s.doubled()) if s.may_double else (s,))},
                      key=lambda b: (b.cube, b.owner))
    opp = cubeful_mwc(c, ruleset, [b.flipped() for b in branches], evaluate, 0, t, efficiency)
    value = 1.0 - opp[:, :, OPTIMAL]  # float64[M, B]: the mover's chance after each move, per branch
    key = np.asarray(par, np.int64) * 21 + roll
    best = [_best(value[:, k], key) for k in range(len(branches))]
    if plies >= 2:  # the best move of each roll, chosen at 0 ply, searched deeper
        deep = np.unique(np.concatenate(best))
        value[deep] = 1.0 - cubeful_mwc(c[deep], ruleset, [b.flipped() for b in branches], evaluate, plies - 1, t,
                                        efficiency)[:, :, OPTIMAL]
    at = {}
    moved = np.unique(par)
    for k, b in enumerate(branches):
        acc = np.zeros(len(rows))
        np.add.at(acc, par[best[k]], ROLL_WEIGHTS[roll[best[k]]] * value[best[k], k])
        at[(b.cube, b.owner)] = acc
    for j, s in enumerate(states):
        nd = at[(s.cube, s.owner)]
        out[moved, j, ND] = nd[moved]
        if s.may_double:
            d = s.doubled()
            dt, dp = at[(d.cube, d.owner)], s.me(s.cube, 0, t)
            out[moved, j, DT], out[moved, j, DP] = dt[moved], dp
            out[moved, j, OPTIMAL] = np.maximum(nd[moved], np.minimum(dt[moved], dp))
        else:
            out[moved, j, DT] = out[moved, j, DP] = out[moved, j, OPTIMAL] = nd[moved]
    return out


def cubeful_decision(row: np.ndarray, ruleset, state: ScoreState, evaluate: Columns, plies: int,
                     met: MatchEquityTable | None = None) -> MatchCube:
    """The cube decision of the side on roll of ``row`` (uint8[56], pre-roll) at ``plies``: its
    three chances from :func:`cubeful_mwc`, as :class:`tawla.met.MatchCube` (EMG too)."""
    t = met if met is not None else default_met()
    nd, dt, dp, _ = cubeful_mwc(np.asarray(row, dtype=np.uint8)[None], ruleset, [state], evaluate, plies, t)[0, 0]
    emg = mwc_to_emg(np.array([nd, dt, dp]), state, t)
    return MatchCube(float(emg[0]), float(emg[1]), float(emg[2]), state.may_double, float(nd), float(dt), float(dp),
                     state)


def cubeful_play_values(children: np.ndarray, ruleset, state: ScoreState, evaluate: Columns, plies: int,
                        met: MatchEquityTable | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The mover's value of each play at the score with the opponent's cubeful evaluation at
    ``plies`` on the position after it (``children``: uint8[N, 56], the opponent on roll):
    EMG (float64[N], at the mover's ``state``) and match-winning chance (float64[N])."""
    t = met if met is not None else default_met()
    mwc = 1.0 - cubeful_mwc(children, ruleset, [state.flipped()], evaluate, plies, t)[:, 0, OPTIMAL]
    return mwc_to_emg(mwc, state, t), mwc
