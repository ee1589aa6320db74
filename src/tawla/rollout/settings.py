"""What a rollout is asked to do: :class:`RolloutSettings`, checked once, before any trial runs."""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

from ..errors import InvalidArgument, quote
from ..rules import Ruleset, Scoring

__all__ = ["RolloutSettings", "LEVELS", "MAX_TRIALS", "MAX_TRUNCATE", "BLOCK", "rotations"]

LEVELS = ("net0", "net1", "ply0")
"""The checker play of a rollout's trials: ``net0``, the 0-ply choice of the ruleset's shipped
network (the ``net0`` level of :class:`tawla.Bot`: exact game ends, the race model, the network in
contact); ``net1``, the 1-ply choice on it (the 8 best plays at 0 ply within 0.25 points, x5 for
tawla31's 15-point games, each valued by the opponent's best 0-ply reply to each of the 21
rolls, as :class:`tawla.Bot`'s ``net1`` prunes); ``ply0``, the 0-ply choice of the ruleset's
heuristic contact model."""

MAX_TRIALS = 10_000_000
"""The most trials a rollout takes (per play of a decision); more is refused."""

MAX_TRUNCATE = 10_000
"""The most plies a truncated trial plays (the trial loop's own limit)."""

BLOCK = 324
"""Trials per block: the unit of work of the workers, of ``--save`` and of the ``--se`` test.
A multiple of 36, so that each block meets every first roll equally often."""

_GOLDEN = 0x9E3779B97F4A7C15
_MASK = (1 << 64) - 1


def rotations(seed: int) -> tuple[int, int]:
    """The rotations (0..35 each) of the stratified first and second rolls of a rollout with
    ``seed``: a function of the seed alone."""
    x = (seed * _GOLDEN + 1) & _MASK
    x ^= x >> 29
    return int(x % 36), int((x >> 16) % 36)


@dataclass(frozen=True)
class RolloutSettings:
    """The settings of a rollout.

    Attributes
    ----------
    trials : int
        Trials per position (per play of a decision), 1 .. :data:`MAX_TRIALS`; with ``se``
        the most it may take.
    se : float or None
        Stop once the standard error of the cubeless equity (of every play, for a decision)
        is at most this (points), checked after each block of :data:`BLOCK` trials.
    min_trials : int
        With ``se``: at least this many trials.
    level : str
        One of :data:`LEVELS`.
    truncate : int
        Plies per trial, then the evaluator's value; 0: play to the end of the game.
    variance_reduction : bool
        Luck adjustment (each roll's luck at 0 ply subtracted along the trial).
    bearoff : bool
        End a trial once it is a race with every checker home, valued by the bear-off
        databases (exact in the two-sided one's range); False plays those out too.
    cubeful : bool
        Cube decisions inside every trial (backgammon only; money play, or at a match score),
        the cube efficiency by each position's class as at 0 ply
        (:func:`tawla.bots.cube.cube_efficiency`): the cubeful equity.
    seed : int
        The dice: the same seed, the same result, however the trials are split.
    stratify : int
        Rolls stratified over the 36 (0, 1 the first, 2 the first two).

    Raises
    ------
    tawla.errors.InvalidArgument
        A value out of its range, of the wrong type, NaN.
    """

    trials: int = 1296
    se: float | None = None
    min_trials: int = 324
    level: str = "net0"
    truncate: int = 0
    variance_reduction: bool = True
    bearoff: bool = True
    cubeful: bool = True
    seed: int = 0
    stratify: int = 2

    def __post_init__(self) -> None:
        def whole(name: str, least: int, most: int) -> None:
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or not least <= v <= most:
                raise InvalidArgument(f"{name} must be a whole number in {least}..{most}, not {quote(v)}")

        whole("trials", 1, MAX_TRIALS)
        whole("min_trials", 1, MAX_TRIALS)
        whole("truncate", 0, MAX_TRUNCATE)
        whole("seed", 0, 2**64 - 1)
        whole("stratify", 0, 2)
        if self.se is not None:
            if isinstance(self.se, bool) or not isinstance(self.se, (int, float)) or not math.isfinite(self.se) \
                    or self.se <= 0:
                raise InvalidArgument(f"se must be a positive number of points, not {quote(self.se)}")
        if self.level not in LEVELS:
            raise InvalidArgument(f"level must be one of {', '.join(LEVELS)}, not {quote(self.level)}")
        for name in ("variance_reduction", "bearoff", "cubeful"):
            if not isinstance(getattr(self, name), bool):
                raise InvalidArgument(f"{name} must be True or False, not {quote(getattr(self, name))}")

    def for_ruleset(self, r: Ruleset) -> "RolloutSettings":
        """These settings where the ruleset has a say: no cube outside backgammon's scoring."""
        return dataclasses.replace(self, cubeful=self.cubeful and r.scoring == Scoring.CUBE)

    def as_dict(self) -> dict:
        """The settings as JSON-ready values (what ``--save`` records and ``--resume`` checks)."""
        return dataclasses.asdict(self)
