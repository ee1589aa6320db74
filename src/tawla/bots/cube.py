"""Money-game cube decisions from cubeless probabilities (the Janowski model)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import InvalidArgument, quote

__all__ = ["CubeAction"]


@dataclass(frozen=True)
class CubeAction:
    """A money-game cube decision for the side on roll (before it rolls).

    Attributes
    ----------
    double : bool
        Whether the side on roll should double now (False when it may not).
    take : bool
        Whether the opponent should take a double now.
    too_good : bool
        The position is good enough to play on for a gammon rather than cash.
    win, win_gammon, lose_gammon : float
        Cubeless probabilities (pre-roll, one roll of lookahead) for the side on roll.
    equity : float
        Cubeless equity per unit of cube for the side on roll.
    """

    double: bool
    take: bool
    too_good: bool
    win: float
    win_gammon: float
    lose_gammon: float
    equity: float

    @classmethod
    def from_probabilities(cls, probs, may_double: bool = True, efficiency: float = 0.68) -> "CubeAction":
        """The money-game decision of :meth:`Bot.cube_action` for given cubeless pre-roll
        probabilities (so that another evaluator's, GNU Backgammon's for instance, can be
        put through the same model).

        Parameters
        ----------
        probs : float[6] or float[5]
            The columns of :data:`tawla.evaluation.COLUMNS` (equity, win, win_gammon,
            win_backgammon, lose_gammon, lose_backgammon) for the side on roll; five values
            are gnubg's order (win, win_gammon, win_backgammon, lose_gammon,
            lose_backgammon) and the equity is computed from them.
        may_double : bool
            False when the side on roll may not double (the opponent owns the cube).
        efficiency : float
            Cube efficiency ``x`` of the Janowski model.

        Raises
        ------
        tawla.errors.InvalidArgument
            Not 5 or 6 numbers, probabilities that are not finite or not within [0, 1], or
            an efficiency outside [0, 1].
        """
        try:
            p = np.asarray(probs, dtype=np.float64)
        except (TypeError, ValueError, OverflowError) as e:
            raise InvalidArgument(f"probs must be 5 or 6 numbers: {e}") from None
        if not isinstance(efficiency, (int, float, np.integer, np.floating)) or not 0.0 <= efficiency <= 1.0:
            raise InvalidArgument(f"efficiency must be within [0, 1], not {quote(efficiency)}")
        if p.shape == (5,):
            w, wg, wbg, lg, lbg = p
            p = np.array([2 * w - 1 + wg + wbg - lg - lbg, w, wg, wbg, lg, lbg])
        if p.shape != (6,):
            raise InvalidArgument(f"probs must have 5 or 6 values, not shape {p.shape}")
        if not np.isfinite(p).all() or (p[1:] < -1e-6).any() or (p[1:] > 1 + 1e-6).any():
            raise InvalidArgument(f"probabilities must be finite and within [0, 1], not {p[1:].tolist()}")
        win = float(np.clip(p[1], 1e-6, 1 - 1e-6))
        W = (p[1] + p[2] + p[3]) / win
        Lv = ((1 - win) + p[4] + p[5]) / (1 - win)
        tp = (W - 0.5) / (Lv + W + 0.5 * efficiency)  # taker: its wins are our losses
        take = (1 - win) >= tp
        in_window = win >= 1 - tp - 0.1
        too_good = (not take) and p[0] > 1.0 + 1e-6  # playing on beats cashing: gammons
        double = bool(may_double and in_window and not too_good)
        return cls(double, bool(take), bool(too_good), win, float(p[2]), float(p[4]), float(p[0]))
