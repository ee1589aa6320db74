"""The evaluator contract: what every evaluator takes and returns, and the equity of its columns."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import numpy as np

from ..errors import InvalidArgument, quote
from ..rules import get_ruleset, Ruleset, Scoring

__all__ = ["COLUMNS", "Evaluator", "equity_from_probs"]

COLUMNS = ("equity", "win", "win_gammon", "win_backgammon", "lose_gammon", "lose_backgammon")
"""The columns of an evaluation (cubeless, for the side to move):

====  ===================  ==========================================================
col   name                 meaning
====  ===================  ==========================================================
0     ``equity``           expected points in the ruleset's own scoring: 1/2/3 for
                           backgammon (money, cube 1, no Jacoby), 1/2 (mars) for adi,
                           mahbusa and tawla31-saharat, 15 minus the loser's checkers
                           off for tawla31 (RULES.md §1.8)
1     ``win``              probability of winning
2     ``win_gammon``       probability of winning a gammon / mars (the loser bore off
                           none; in tawla31 that is the 15-point win)
3     ``win_backgammon``   probability of a backgammon win (backgammon only, else 0)
4     ``lose_gammon``      probability of losing a gammon / mars
5     ``lose_backgammon``  probability of losing a backgammon (backgammon only)
====  ===================  ==========================================================

The gammon and backgammon columns include the better results (``win_gammon`` >=
``win_backgammon``)."""


@runtime_checkable
class Evaluator(Protocol):
    """Anything that evaluates packed rows: a function or an object with ``__call__``.

    ``evaluator(rows, ruleset) -> float[N, 6]``: ``rows`` is ``uint8[N, 56]`` (packed
    positions, :mod:`tawla.core.layout`, each seen from its side to move, shape and dtype
    already checked), ``ruleset`` a :class:`~tawla.rules.Ruleset`; the result has the
    columns of :data:`COLUMNS` (float32 or float64), one row per input row. The contact
    models of :data:`tawla.evaluation.CONTACT_MODELS` and :func:`tawla.evaluate` itself
    are evaluators.
    """

    def __call__(self, rows: np.ndarray, ruleset: Ruleset) -> np.ndarray:
        ...


def equity_from_probs(p: np.ndarray, ruleset) -> np.ndarray:
    """Cubeless equity of probabilities, for rulesets scored 1/2(/3).

    Parameters
    ----------
    p : float[N, 5]
        win, win_gammon, win_backgammon, lose_gammon, lose_backgammon (columns 1..5 of
        :data:`COLUMNS`).
    ruleset : Ruleset or str
        The backgammon columns count only where it scores them (``scoring="cube"``).
        tawla31's equity needs the checkers left and comes from its model instead.

    Returns
    -------
    float64[N]
        Points per game (cube 1) for the side to move.

    Raises
    ------
    tawla.errors.UnsupportedRuleset
        Unknown ruleset.
    tawla.errors.InvalidArgument
        ``p`` not a float array of shape (N, 5 or 6).
    """
    r = get_ruleset(ruleset)
    try:
        raw = np.asarray(p)
        if raw.dtype.kind == "O":  # objects: numpy converts what it can
            raw = np.asarray(p, dtype=np.float64)
        real = raw.dtype.kind in "biuf"  # complex, text: not probabilities
        arr = raw.astype(np.float64, copy=False) if real else None
    except (TypeError, ValueError, OverflowError):
        arr = None
    if arr is None or arr.ndim != 2 or arr.shape[1] < 5:
        raise InvalidArgument(f"probabilities must be float[N, 5 or 6], not {quote(p)}")
    p = arr
    e = 2 * p[:, 0] - 1 + p[:, 1] - p[:, 3]
    if r.scoring == Scoring.CUBE:
        e = e + p[:, 2] - p[:, 4]
    return e


def real_weights(value, dtype, error: type[Exception], what: str) -> np.ndarray:
    """An evaluator's weights ``value`` as a C-contiguous array of ``dtype`` (float32 or
    float64), its shape unchecked.

    Raises
    ------
    error
        (the caller's class, a :mod:`tawla.errors` one) if numpy cannot convert ``value`` to
        numbers, or the numbers are complex; ``what`` names the weights in the message.
    """
    try:
        a = np.asarray(value)
        real = not np.iscomplexobj(a)
        w = np.ascontiguousarray(a if real else a.real, dtype=dtype)
    except (TypeError, ValueError, OverflowError):
        raise error(f"{what} must be real numbers, not {type(value).__name__}") from None
    if not real:
        raise error(f"{what} must be real numbers, not complex")
    return w
