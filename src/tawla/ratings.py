"""Player ratings by Glicko-2 (Mark Glickman, "Example of the Glicko-2 system", 2013): the
published algorithm, step by step, on the Glicko scale (rating 1500, deviation 350,
volatility 0.06 for a new player; the system constant tau 0.5).

Each match result is one rating period (:func:`rate_match`); :func:`rate` takes a period of
several results, as the paper's worked example does.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

from .errors import InvalidArgument, quote

__all__ = ["Rating", "rate", "rate_match", "idle", "SCALE", "TAU", "NEW"]

SCALE = 173.7178
"""Glicko-2's factor between the Glicko scale (ratings near 1500) and its own (mu, phi)."""
TAU = 0.5
"""The system constant tau: how much the volatility may change in a period."""
_EPSILON = 0.000001
"""The convergence tolerance of the volatility's iteration (step 5 of the paper)."""


@dataclass(frozen=True)
class Rating:
    """A player's rating on the Glicko scale: ``rating`` (points), ``deviation`` (points, the
    rating's uncertainty: a 95% interval is about rating ± 2 deviations) and ``volatility``."""

    rating: float = 1500.0
    deviation: float = 350.0
    volatility: float = 0.06

    def __post_init__(self) -> None:
        for name in ("rating", "deviation", "volatility"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
                raise InvalidArgument(f"a rating's {name} is a finite number, not {quote(v)}")
        if self.deviation <= 0 or self.volatility <= 0:
            raise InvalidArgument(f"a rating's deviation and volatility are > 0, not "
                                  f"{self.deviation!r} and {self.volatility!r}")


NEW = Rating()
"""A new player's rating: 1500, deviation 350, volatility 0.06."""


def _g(phi: float) -> float:
    return 1.0 / math.sqrt(1.0 + 3.0 * phi * phi / (math.pi * math.pi))


def _new_volatility(sigma: float, phi: float, v: float, delta: float, tau: float) -> float:
    """Step 5 of the paper: the Illinois iteration on f(x) = 0."""
    a = math.log(sigma * sigma)

    def f(x: float) -> float:
        ex = math.exp(x)
        return (ex * (delta * delta - phi * phi - v - ex) / (2.0 * (phi * phi + v + ex) ** 2)
                - (x - a) / (tau * tau))

    big_a = a
    if delta * delta > phi * phi + v:
        big_b = math.log(delta * delta - phi * phi - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        big_b = a - k * tau
    f_a, f_b = f(big_a), f(big_b)
    while abs(big_b - big_a) > _EPSILON:
        c = big_a + (big_a - big_b) * f_a / (f_b - f_a)
        f_c = f(c)
        if f_c * f_b <= 0:
            big_a, f_a = big_b, f_b
        else:
            f_a /= 2.0
        big_b, f_b = c, f_c
    return math.exp(big_a / 2.0)


def idle(player: Rating) -> Rating:
    """The rating after a period without results: the deviation grows (step 6 alone)."""
    phi = player.deviation / SCALE
    return Rating(player.rating, math.sqrt(phi * phi + player.volatility ** 2) * SCALE,
                  player.volatility)


def rate(player: Rating, results: Sequence[tuple[Rating, float]], tau: float = TAU) -> Rating:
    """``player``'s rating after one rating period with ``results``: (the opponent's rating at
    the start of the period, the score: 1 a win, 0 a loss, 0.5 a draw) pairs.

    Raises
    ------
    tawla.errors.InvalidArgument
        A score outside 0..1, an opponent that is not a :class:`Rating`, or ``tau`` not > 0.
    """
    if isinstance(tau, bool) or not isinstance(tau, (int, float)) or not tau > 0 or not math.isfinite(tau):
        raise InvalidArgument(f"tau is a number > 0, not {quote(tau)}")
    checked = []
    for pair in results:
        if not isinstance(pair, tuple) or len(pair) != 2 or not isinstance(pair[0], Rating):
            raise InvalidArgument(f"a result is (Rating, score), not {quote(pair)}")
        s = pair[1]
        if isinstance(s, bool) or not isinstance(s, (int, float)) or not 0 <= s <= 1:
            raise InvalidArgument(f"a score is a number in 0..1, not {quote(s)}")
        checked.append((pair[0], float(s)))
    if not checked:
        return idle(player)
    mu, phi = (player.rating - 1500.0) / SCALE, player.deviation / SCALE
    inv_v, sum_gs = 0.0, 0.0
    for opp, s in checked:
        mu_j, phi_j = (opp.rating - 1500.0) / SCALE, opp.deviation / SCALE
        g = _g(phi_j)
        e = 1.0 / (1.0 + math.exp(-g * (mu - mu_j)))
        inv_v += g * g * e * (1.0 - e)
        sum_gs += g * (s - e)
    v = 1.0 / inv_v
    delta = v * sum_gs
    sigma = _new_volatility(player.volatility, phi, v, delta, tau)
    phi_star = math.sqrt(phi * phi + sigma * sigma)
    phi_new = 1.0 / math.sqrt(1.0 / (phi_star * phi_star) + 1.0 / v)
    mu_new = mu + phi_new * phi_new * sum_gs
    return Rating(SCALE * mu_new + 1500.0, SCALE * phi_new, sigma)


def rate_match(a: Rating, b: Rating, score_a: float, tau: float = TAU) -> tuple[Rating, Rating]:
    """Both players' ratings after one match between them (its own rating period):
    ``score_a`` is 1 if ``a`` won, 0 if ``b`` did (a forfeit or a resignation is a loss).

    Raises
    ------
    tawla.errors.InvalidArgument
        As :func:`rate`.
    """
    if isinstance(score_a, bool) or not isinstance(score_a, (int, float)) or not 0 <= score_a <= 1:
        raise InvalidArgument(f"a score is a number in 0..1, not {quote(score_a)}")
    return rate(a, [(b, score_a)], tau), rate(b, [(a, 1.0 - score_a)], tau)
