"""Tawla 31's points a game for match play: the distribution of a game's result (RULES.md
§5.7: the winner scores 15 less the loser's checkers off, 1..15).

The columns of :data:`~tawla.evaluation.COLUMNS` give tawla31's equity and the chances of a
win, of a 15-point win and of a 15-point loss; playing a match for its winning chance needs
how the other results spread over 1..14 points. :func:`t31_distribution` gives each row's
chance of every result -15..15, routed as :func:`tawla.evaluation.evaluate_rows` routes:

* a game over: its result;
* a race, and contact under the no-hit model: half the model's own distribution
  (:func:`tawla.evaluation.rolls.t31_margins`: for each roll the winner may finish on, the
  loser's checkers left then by a linear model), half the spread below of its expected points
  won and lost; the win chance the evaluation's (the two-sided database's where it is
  exact). On the race positions of 300 games of the network against itself (4,100; another
  300 games as a check) the mean log-likelihood of the points the games were won by is
  -1.87 (check -1.86) for the half and half, -3.63 (-3.24) for the model's own (too sure of
  its linear checkers left) and -2.09 (-2.06) for the spread alone;
* contact under a network: its outputs (win, 15-point win, expected points won / 15, 15-point
  loss, expected points lost / 15; :mod:`tawla.evaluation.net`) with the results other than
  15 spread over 1..14 as the games the shipped network played against itself were spread
  (:func:`tawla.met.variants.variant_distribution`), tilted to their mean: ``p(k) ~
  prior(k) exp(theta k)``, the distribution of that mean closest to the measured one (least
  relative entropy). On 27,420 positions of 300 such games the tilted spread predicts the
  points a game was won by better than the flat spread of greatest entropy (mean
  log-likelihood -2.701 against -2.750) and as well as the measured shape untilted (-2.700).
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from .. import native
from ..errors import ConfigError
from ..met.variants import variant_distribution
from ..rules import Scoring
from .board_views import sides
from .net import NetEvaluator
from .nohit import nohit_contact, nohit_margins_np
from .race import race_margins_np
from .routing import CONTACT_MODELS, evaluate_rows, race_rows

__all__ = ["MARGINS", "t31_distribution", "spread_outcomes", "flip_distribution"]

MARGINS = np.arange(-15, 16)
"""The results of a tawla31 game for the side to move, the columns of a distribution: points
lost (negative) or won; 0 a drawn game (a frozen position's, RULES.md §1.7: no model predicts
one)."""

_K = np.arange(1, 15, dtype=np.float64)  # the points of a result other than 15


def t31_distribution(rows: np.ndarray, r, contact=None) -> np.ndarray:
    """The chance of each result of :data:`MARGINS` for the side to move of valid tawla31 rows.

    Parameters
    ----------
    rows : uint8[N, 56]
        Valid positions of ``r`` (not validated here), each seen from its side to move.
    r : Ruleset
        A ruleset scored by the loser's checkers left (``scoring == Scoring.CHECKERS_LEFT``).
    contact : Evaluator, optional
        The contact model (default the ruleset's, :data:`tawla.evaluation.CONTACT_MODELS`),
        as for :func:`tawla.evaluation.evaluate_rows`.

    Returns
    -------
    float64[N, 31]
        Rows summing to 1; the wins' total is the evaluation's win chance (column 1), the
        results of 15 its columns 2 and 4; the mean is its equity except where the race
        model's win chance was replaced by the database's.

    Raises
    ------
    tawla.errors.ConfigError
        A contact model that gives no distribution (neither a
        :class:`~tawla.evaluation.net.NetEvaluator` nor the no-hit model).
    """
    rows = np.ascontiguousarray(rows, dtype=np.uint8)
    model = CONTACT_MODELS[r.name] if contact is None else contact
    cols = evaluate_rows(rows, r, checked=False, contact=model)
    out = np.zeros((len(rows), 31))
    if len(rows) == 0:
        return out
    me, opp, om = sides(rows, r)
    done = native.game_results(rows, r, frozen_test=False, checked=False)[0]
    race = race_rows(me, opp, om, r, done)
    rest = ~(done | race)
    points = np.clip(np.rint(cols[done, 0]).astype(np.int64), -15, 15)
    out[np.flatnonzero(done), 15 + points] = 1.0
    caps = np.minimum(14, 15 - opp[:, 0]), np.minimum(14, 15 - me[:, 0])  # the loser's checkers on the board
    if race.any():
        out[race] = _half_and_half(race_margins_np(me[race], opp[race]), cols[race], caps[0][race], caps[1][race])
    if rest.any():
        if isinstance(model, NetEvaluator):
            o = model.outputs(rows[rest]).astype(np.float64)
            out[rest] = spread_outcomes(o[:, 0], o[:, 1], 15 * o[:, 2], o[:, 3], 15 * o[:, 4],
                                        caps[0][rest], caps[1][rest])
        elif model is nohit_contact:
            out[rest] = _half_and_half(nohit_margins_np(rows[rest], r), cols[rest], caps[0][rest], caps[1][rest])
        else:
            raise ConfigError(f"the contact model {type(model).__name__} gives tawla31's equity but not the "
                              "spread of the points: a match is played with a NetEvaluator or the built-in "
                              "no-hit model")
    return out


def flip_distribution(d: np.ndarray) -> np.ndarray:
    """A distribution of :data:`MARGINS` seen from the other side (the columns reversed)."""
    return np.asarray(d)[:, ::-1]


def _half_and_half(d: np.ndarray, cols: np.ndarray, win_cap, lose_cap) -> np.ndarray:
    """A model's distribution ``d`` (its wins scaled to the evaluation's win chance, its losses
    to the rest) averaged with the spread of its expected points won and lost, the chances of
    the 15-point results those of the evaluation ``cols`` (:data:`~tawla.evaluation.COLUMNS`)."""
    win = cols[:, 1]
    w = d[:, 16:].sum(1)
    own = d.copy()
    own[:, 16:] *= np.where(w > 0, win / np.maximum(w, 1e-300), 0.0)[:, None]
    own[:, :15] *= np.where(w < 1, (1 - win) / np.maximum(1 - w, 1e-300), 0.0)[:, None]
    won, lost = own[:, 16:] @ MARGINS[16:], -(own[:, :15] @ MARGINS[:15])
    return 0.5 * own + 0.5 * spread_outcomes(win, cols[:, 2], won, cols[:, 4], lost, win_cap, lose_cap)


def spread_outcomes(win, win15, won, lose15, lost, win_cap=None, lose_cap=None) -> np.ndarray:
    """``float64[N, 31]``: the distribution of :data:`MARGINS` with these chances of a win, a
    15-point win and a 15-point loss and these expected points won and lost (each
    ``float[N]``): each side's results other than 15 spread over 1..``cap`` by ``prior(k)
    exp(theta k)`` (the module docstring), ``theta`` chosen so their mean is the one the
    expected points imply (held within 1..cap). ``win_cap``, ``lose_cap`` (``int[N]``, 1..14,
    default 14): the most a win or a loss other than 15 can score, the loser's checkers still
    on the board."""
    win = np.clip(np.asarray(win, dtype=np.float64), 0.0, 1.0)
    w15 = np.clip(np.asarray(win15, dtype=np.float64), 0.0, win)
    l15 = np.clip(np.asarray(lose15, dtype=np.float64), 0.0, 1.0 - win)
    n = len(win)
    out = np.zeros((n, 31))
    out[:, 30], out[:, 0] = w15, l15
    out[:, 16:30] = _spread(win - w15, np.asarray(won, dtype=np.float64) - 15.0 * w15,
                            np.full(n, 14) if win_cap is None else win_cap)
    out[:, 14:0:-1] = _spread(1.0 - win - l15, np.asarray(lost, dtype=np.float64) - 15.0 * l15,
                              np.full(n, 14) if lose_cap is None else lose_cap)
    return out


@lru_cache(maxsize=1)
def _prior() -> np.ndarray:
    """``float64[14]``: how often a tawla31 game won by 1..14 points was won by each
    (:func:`tawla.met.variants.variant_distribution`: the shipped network against itself)."""
    counts = variant_distribution("tawla31")
    p = np.array([counts.get(k, 0) for k in range(1, 15)], dtype=np.float64) + 1.0
    return p / p.sum()


def _spread(mass: np.ndarray, points: np.ndarray, cap: np.ndarray, prior=None) -> np.ndarray:
    """``float64[N, 14]``: ``mass`` over 1..``cap`` points with expected points ``points``
    (the mass times the mean): ``prior(k) exp(theta k)`` (default the measured prior of
    :func:`_prior`) up to ``cap``, the distribution closest to the prior with that mean;
    ``theta`` by Newton's method kept inside a bracket (the mean grows with ``theta``, its
    slope the variance)."""
    cap = np.clip(np.asarray(cap, dtype=np.int64), 1, 14)
    base = np.where(_K[None] <= cap[:, None], np.log(_prior() if prior is None else prior)[None], -np.inf)
    mean = np.clip(points / np.maximum(mass, 1e-12), 1.0 + 1e-9, np.maximum(cap - 1e-9, 1.0 + 1e-9))
    lo, hi = np.full(len(mass), -40.0), np.full(len(mass), 40.0)
    theta = np.zeros(len(mass))
    todo = np.arange(len(mass))
    for _ in range(60):  # on the rows not yet met
        w = _weights(theta[todo], base[todo])
        m = w @ _K
        var = w @ (_K * _K) - m * m
        below = m < mean[todo]
        lo[todo] = np.where(below, theta[todo], lo[todo])
        hi[todo] = np.where(below, hi[todo], theta[todo])
        left = (np.abs(m - mean[todo]) >= 1e-10) & (var >= 1e-14)  # a cap of 1 leaves one result
        step = theta[todo] + (mean[todo] - m) / np.maximum(var, 1e-12)
        inside = (step > lo[todo]) & (step < hi[todo])
        theta[todo] = np.where(left, np.where(inside, step, 0.5 * (lo[todo] + hi[todo])), theta[todo])
        todo = todo[left]
        if len(todo) == 0:
            break
    return mass[:, None] * _weights(theta, base)


def _weights(theta: np.ndarray, base: np.ndarray) -> np.ndarray:
    z = theta[:, None] * _K[None] + base
    z -= z.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)
