"""Tawla 31's points a game for match play: the expected points won and lost, and from them
a distribution of the points (RULES.md §5.7: the winner scores 15 less the loser's checkers
off, 1..15).

The columns of :data:`~tawla.evaluation.COLUMNS` give tawla31's equity (points won less points
lost) and the chances of a win, of a 15-point win and of a 15-point loss; playing a match for
its winning chance needs how the other results spread over 1..14 points. Every evaluator
routed by :func:`tawla.evaluation.evaluate_rows` knows the two expectations apart: the game's
end exactly, the race model and the no-hit contact model by
:func:`tawla.evaluation.rolls.t31_points`, a network by its outputs 3 and 5 (expected points
won / 15, lost / 15; :mod:`tawla.evaluation.net`). :func:`t31_outcomes` gathers them;
:func:`points_distribution` spreads each side's results other than 15 over 1..14 points as
the games the shipped network played against itself were spread
(:func:`tawla.met.variants.variant_distribution`), tilted to their mean: ``p(k) ~ prior(k)
exp(theta k)``, the distribution of that mean closest to the measured one (least relative
entropy). On 27,420 positions of 300 such games the tilted spread predicts the points a
game was won by better than the flat spread of greatest entropy (mean log-likelihood
-2.701 against -2.750) and as well as the measured shape untilted (-2.700).
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from .. import native
from ..errors import ConfigError
from ..met.variants import variant_distribution
from .board import sides
from .net import NetEvaluator
from .nohit import nohit_contact, nohit_points_np
from .race import race_points_np
from .routing import CONTACT_MODELS, evaluate_rows, race_rows

__all__ = ["OUTCOME_COLUMNS", "MARGINS", "t31_outcomes", "points_distribution"]

OUTCOME_COLUMNS = ("win", "win_15", "won", "lose_15", "lost")
"""The columns of :func:`t31_outcomes`, for the side to move: the chance of winning, of
winning 15 points, the expected points won (a loss counting 0), the chance of losing 15
points and the expected points lost."""

MARGINS = np.arange(-15, 16)
"""The results of a tawla31 game for the side to move, the columns of
:func:`points_distribution`: points lost (negative) or won; 0, a drawn game, never occurs
in the distribution."""

_K = np.arange(1, 15, dtype=np.float64)  # the points of a result other than 15


def t31_outcomes(rows: np.ndarray, r, contact=None) -> np.ndarray:
    """The columns of :data:`OUTCOME_COLUMNS` of valid tawla31 rows.

    Parameters
    ----------
    rows : uint8[N, 56]
        Valid positions of ``r`` (not validated here), each seen from its side to move.
    r : Ruleset
        A ruleset scored by the loser's checkers left (``scoring == "checkers_left"``).
    contact : Evaluator, optional
        The contact model (default the ruleset's, :data:`tawla.evaluation.CONTACT_MODELS`),
        as for :func:`tawla.evaluation.evaluate_rows`.

    Returns
    -------
    float64[N, 5]
        Its ``won - lost`` is :func:`tawla.evaluation.evaluate_rows`' equity (column 0).

    Raises
    ------
    tawla.errors.ConfigError
        A contact model that gives no split of the points won and lost (neither a
        :class:`~tawla.evaluation.NetEvaluator` nor the no-hit model).
    """
    rows = np.ascontiguousarray(rows, dtype=np.uint8)
    model = CONTACT_MODELS[r.name] if contact is None else contact
    cols = evaluate_rows(rows, r, checked=False, contact=model)
    equity = cols[:, 0]
    won = np.maximum(equity, 0.0)  # a game over: its exact points
    if len(rows):
        me, opp, om = sides(rows, r)
        done = native.game_results(rows, r, frozen_test=False, checked=False)[0]
        race = race_rows(me, opp, om, r, done)
        rest = ~(done | race)
        if race.any():
            won[race] = race_points_np(me[race], opp[race])[0]
        if rest.any():
            if isinstance(model, NetEvaluator):
                won[rest] = 15.0 * model.outputs(rows[rest])[:, 2].astype(np.float64)
            elif model is nohit_contact:
                won[rest] = nohit_points_np(rows[rest], r)[0]
            else:
                raise ConfigError(f"the contact model {type(model).__name__} gives tawla31's equity but not "
                                  "the points won and lost apart: a match is played with a NetEvaluator "
                                  "or the built-in no-hit model")
    out = np.empty((len(rows), 5))
    out[:, 0], out[:, 1], out[:, 3] = cols[:, 1], cols[:, 2], cols[:, 4]
    out[:, 2] = won
    out[:, 4] = won - equity
    return out


def points_distribution(outcomes: np.ndarray) -> np.ndarray:
    """The chance of each result of :data:`MARGINS` from :func:`t31_outcomes`' columns.

    A side's results other than 15 points (its win chance less its 15-point wins) are spread
    over 1..14 by ``p(k) ~ prior(k) exp(theta k)`` (the module docstring), ``theta`` chosen
    so their mean is the one the expected points imply (held within 1..14).

    Parameters
    ----------
    outcomes : float[N, 5]

    Returns
    -------
    float64[N, 31]
        Rows summing to 1, the columns :data:`MARGINS` (column 15, a draw, is 0).
    """
    o = np.asarray(outcomes, dtype=np.float64)
    win = np.clip(o[:, 0], 0.0, 1.0)
    w15 = np.clip(o[:, 1], 0.0, win)
    l15 = np.clip(o[:, 3], 0.0, 1.0 - win)
    out = np.zeros((len(o), 31))
    out[:, 30], out[:, 0] = w15, l15
    out[:, 16:30] = _spread(win - w15, o[:, 2] - 15.0 * w15)
    out[:, 14:0:-1] = _spread(1.0 - win - l15, o[:, 4] - 15.0 * l15)
    return out


@lru_cache(maxsize=1)
def _prior() -> np.ndarray:
    """``float64[14]``: how often a tawla31 game won by 1..14 points was won by each
    (:func:`tawla.met.variants.variant_distribution`: the shipped network against itself)."""
    counts = variant_distribution("tawla31")
    p = np.array([counts.get(k, 0) for k in range(1, 15)], dtype=np.float64) + 1.0
    return p / p.sum()


def _spread(mass: np.ndarray, points: np.ndarray, prior=None) -> np.ndarray:
    """``float64[N, 14]``: ``mass`` over 1..14 points with expected points ``points`` (the
    mass times the mean): ``prior(k) exp(theta k)`` (default the measured prior of
    :func:`_prior`), the distribution closest to the prior with that mean."""
    base = np.log(_prior() if prior is None else prior)
    mean = np.clip(points / np.maximum(mass, 1e-12), 1.0 + 1e-9, 14.0 - 1e-9)
    lo, hi = np.full(len(mass), -30.0), np.full(len(mass), 30.0)
    for _ in range(60):  # the mean grows with theta: bisection
        theta = 0.5 * (lo + hi)
        below = _weights(theta, base) @ _K < mean
        lo = np.where(below, theta, lo)
        hi = np.where(below, hi, theta)
    return mass[:, None] * _weights(0.5 * (lo + hi), base)


def _weights(theta: np.ndarray, base: np.ndarray) -> np.ndarray:
    z = theta[:, None] * _K[None] + base[None]
    z -= z.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)
