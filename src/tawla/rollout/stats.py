"""The running sums of a rollout's trials and what they give: means, standard errors, results.

Trials come in blocks (:data:`tawla.rollout.settings.BLOCK`); each block's sums are added in
the order of the blocks, so that the result is the same number however the blocks were
spread over workers, and a block's sums are plain floats (``--save`` writes them as JSON).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ..errors import FormatError

__all__ = ["BlockSums", "Tally", "RolloutResult", "swap_sides"]

NV = 7  # five outputs, cubeless equity, cubeful equity


def swap_sides(values: np.ndarray) -> np.ndarray:
    """Trial values (float64[..., NV]) for one side as those of the other: win and loss
    swapped with the gammons and backgammons, both equities negated."""
    v = np.asarray(values, dtype=np.float64)
    out = np.empty_like(v)
    out[..., 0] = 1.0 - v[..., 0]
    out[..., 1], out[..., 2], out[..., 3], out[..., 4] = v[..., 3], v[..., 4], v[..., 1], v[..., 2]
    out[..., 5], out[..., 6] = -v[..., 5], -v[..., 6]
    return out


@dataclass
class BlockSums:
    """The sums of one block of trials of one candidate: trial count, sums of the values
    (luck-adjusted where asked) and their squared deviations from the block's mean, the same of
    the unadjusted ones, and the plies played."""

    n: int
    s: list[float]
    ss: list[float]
    raw_s: list[float]
    raw_ss: list[float]
    plies: int

    @classmethod
    def of(cls, values: np.ndarray, raw: np.ndarray, plies: np.ndarray) -> "BlockSums":
        """The sums of float64[n, NV] values, their raw twins and int[n] plies."""
        n = max(len(values), 1)
        dv, dr = values - values.sum(0) / n, raw - raw.sum(0) / n
        return cls(len(values), values.sum(0).tolist(), (dv * dv).sum(0).tolist(), raw.sum(0).tolist(),
                   (dr * dr).sum(0).tolist(), int(plies.sum()))

    def to_json(self) -> dict:
        return {"n": self.n, "s": self.s, "ss": self.ss, "raw_s": self.raw_s, "raw_ss": self.raw_ss,
                "plies": self.plies}

    @classmethod
    def from_json(cls, d) -> "BlockSums":
        """Raises :class:`tawla.errors.FormatError` for anything but what :meth:`to_json` wrote."""
        try:
            b = cls(int(d["n"]), [float(x) for x in d["s"]], [float(x) for x in d["ss"]],
                    [float(x) for x in d["raw_s"]], [float(x) for x in d["raw_ss"]], int(d["plies"]))
        except (KeyError, TypeError, ValueError) as e:
            raise FormatError(f"not a block of rollout sums: {e}") from None
        if b.n < 0 or not all(len(x) == NV for x in (b.s, b.ss, b.raw_s, b.raw_ss)):
            raise FormatError("not a block of rollout sums: wrong lengths")
        return b


@dataclass
class Tally:
    """The sums of all the blocks of one candidate so far: ``s`` the values' sums, ``ss`` their
    squared deviations from the mean (``raw_``: the unadjusted values')."""

    n: int = 0
    s: np.ndarray = field(default_factory=lambda: np.zeros(NV))
    ss: np.ndarray = field(default_factory=lambda: np.zeros(NV))
    raw_s: np.ndarray = field(default_factory=lambda: np.zeros(NV))
    raw_ss: np.ndarray = field(default_factory=lambda: np.zeros(NV))
    plies: int = 0

    def add(self, b: BlockSums) -> None:
        """Merge a block (the squared deviations by Chan et al.'s pairwise update)."""
        if b.n == 0:
            return
        n = self.n + b.n
        for sums, devs, bs, bd in (("s", "ss", b.s, b.ss), ("raw_s", "raw_ss", b.raw_s, b.raw_ss)):
            s_old, bs_a = getattr(self, sums), np.array(bs)
            delta = bs_a / b.n - (s_old / self.n if self.n else 0.0)
            setattr(self, devs, getattr(self, devs) + np.array(bd) + delta * delta * (self.n * b.n / n))
            setattr(self, sums, s_old + bs_a)
        self.n = n
        self.plies += b.plies

    def mean(self) -> np.ndarray:
        return self.s / max(self.n, 1)

    @staticmethod
    def _se(m2: np.ndarray, n: int) -> np.ndarray:
        if n < 2:
            return np.full(NV, math.inf)
        return np.sqrt(np.maximum(m2, 0.0) / (n - 1) / n)

    def se(self) -> np.ndarray:
        """Standard errors of the means (the trials' sample deviation over the root of their count)."""
        return self._se(self.ss, self.n)

    def raw_se(self) -> np.ndarray:
        """The same for the unadjusted values."""
        return self._se(self.raw_ss, self.n)


@dataclass
class RolloutResult:
    """A rollout's result for the side it is valued for.

    Attributes
    ----------
    probabilities, probabilities_se : list[float]
        Win, win gammon, win backgammon, lose gammon, lose backgammon (cubeless; the gammon
        columns include backgammons; tawla31: a 15-point win or loss in the gammon columns and
        0 in the backgammon ones) and their standard errors.
    equity, equity_se : float
        Cubeless equity in the ruleset's points.
    cubeful_equity, cubeful_equity_se : float or None
        Money play's cubeful equity (backgammon), in units of the cube as given; a match's
        trials' ``2 MWC - 1`` (:mod:`tawla.rollout.at_score` turns it into EMG, or into the
        value at the score of a Tawla 31 rollout).
    trials : int
    plies : float
        Moves a trial played, on average.
    raw_equity_se : float
        The cubeless equity's standard error without the luck adjustment (the same trials):
        with it on, ``raw_equity_se / equity_se`` is the reduction it bought.
    """

    probabilities: list
    probabilities_se: list
    equity: float
    equity_se: float
    cubeful_equity: float | None
    cubeful_equity_se: float | None
    trials: int
    plies: float
    raw_equity_se: float

    @classmethod
    def of(cls, t: Tally, *, checkers_left: bool, cubeful: bool) -> "RolloutResult":
        m, se = t.mean(), t.se()
        p, pse = m[:5].tolist(), se[:5].tolist()
        if checkers_left:  # outputs 2 and 4 are the points won and lost / 15
            p[2] = p[4] = pse[2] = pse[4] = 0.0
        return cls(p, pse, float(m[5]), float(se[5]), float(m[6]) if cubeful else None,
                   float(se[6]) if cubeful else None, t.n, t.plies / max(t.n, 1), float(t.raw_se()[5]))

    def to_json(self) -> dict:
        return {"probabilities": self.probabilities, "probabilities_se": self.probabilities_se,
                "equity": self.equity, "equity_se": self.equity_se, "cubeful_equity": self.cubeful_equity,
                "cubeful_equity_se": self.cubeful_equity_se, "trials": self.trials, "plies": round(self.plies, 3),
                "equity_se_without_variance_reduction": self.raw_equity_se}
