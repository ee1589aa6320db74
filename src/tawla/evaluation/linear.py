"""The linear contact model of backgammon and adi, and its weights file.

:class:`LinearContact` has one logistic output each for win, gammon | win,
backgammon | gammon win, gammon | loss and backgammon | gammon loss, each a linear
function of :func:`~tawla.evaluation.features.bg_features`. The shipped weights are data:
``linear_bg.npz`` beside this module, read once (:func:`shipped_weights`) and written by
``bench/bench_strength.py fit`` and ``distill`` through :func:`save_weights`. They were
fitted by logistic regression to the outcomes of 20,000 pubeval-vs-pubeval games (the
test oracle ``gnubg_nn`` only played the games; nothing of it is stored or imported), then
refitted once to a 0.7/0.3 mix of their own 1-ply values and those outcomes.

The model runs in C (:func:`tawla.native.linear_bg`) for opposite-geometry rows
when the compiled evaluators are built; :func:`linear_probs` is its numpy twin.
"""

from __future__ import annotations

import functools
from importlib import resources

import numpy as np

from .. import native
from ..core.geometry import OPPOSITE
from ..errors import ConfigError
from ..rules import get_ruleset, Scoring
from .board_views import check_rows, sides
from .features import N_BG_FEATURES, bg_features
from .protocol import equity_from_probs, real_weights

__all__ = ["LinearContact", "linear_probs", "shipped_weights", "load_weights", "save_weights",
           "WEIGHTS_FILE"]

WEIGHTS_FILE = "linear_bg.npz"
"""The shipped weights, a file of this package (``weights``: float64[5, N_BG_FEATURES])."""


def _as_weights(weights) -> np.ndarray:
    w = real_weights(weights, np.float64, ConfigError, "linear model weights (float[5, n_features])")
    if w.ndim != 2 or w.shape[0] != 5:
        raise ConfigError(f"linear model weights must be float[5, n_features], not shape {w.shape}")
    if not np.isfinite(w).all():
        raise ConfigError("linear model weights must be finite")
    return w


def load_weights(path) -> np.ndarray:
    """The weights stored in an ``.npz`` file written by :func:`save_weights`.

    Parameters
    ----------
    path : str, Path or file object

    Returns
    -------
    float64[5, n_features]

    Raises
    ------
    tawla.errors.ConfigError
        No ``weights`` array in the file, or one of another shape.
    """
    with np.load(path, allow_pickle=False) as f:
        if "weights" not in f.files:
            raise ConfigError(f"{path}: no 'weights' array (found {f.files})")
        return _as_weights(f["weights"])


def save_weights(path, weights, provenance: str = "") -> None:
    """Write ``weights`` (float[5, n_features]) to an ``.npz`` file, with a line saying
    where they come from.

    Raises
    ------
    tawla.errors.ConfigError
        Weights of another shape, or not finite.
    """
    np.savez(path, weights=_as_weights(weights), provenance=np.array(provenance))


@functools.cache
def shipped_weights() -> np.ndarray:
    """The weights installed with the package (read once; a read-only float64[5, N_BG_FEATURES])."""
    with resources.files(__package__).joinpath(WEIGHTS_FILE).open("rb") as f:
        w = load_weights(f)
    if w.shape[1] != N_BG_FEATURES:
        raise ConfigError(f"{WEIGHTS_FILE} has {w.shape[1]} features, the model {N_BG_FEATURES}")
    w.setflags(write=False)
    return w


def linear_probs(rows, weights, r) -> np.ndarray:
    """The linear model in numpy (the reference of the compiled ``linear_bg``).

    Parameters
    ----------
    rows : uint8[N, 56]
    weights : float64[5, N_BG_FEATURES]
    r : Ruleset

    Returns
    -------
    float64[N, 6]
        The columns of :data:`~tawla.evaluation.COLUMNS`; the backgammon columns are 0
        unless ``r`` scores backgammons.
    """
    me, opp, _ = sides(rows, r)
    z = bg_features(me, opp) @ weights.T
    s = 1 / (1 + np.exp(-np.clip(z, -30, 30)))
    win = s[:, 0]
    wg = win * s[:, 1]
    wbg = wg * s[:, 2]
    lg = (1 - win) * s[:, 3]
    lbg = lg * s[:, 4]
    out = np.zeros((len(rows), 6))
    out[:, 1], out[:, 2], out[:, 4] = win, wg, lg
    if r.scoring == Scoring.CUBE:
        out[:, 3], out[:, 5] = wbg, lbg
    out[:, 0] = equity_from_probs(out[:, 1:], r)
    return out


class LinearContact:
    """Logistic outputs (win, wg, wbg, lg, lbg) of a linear function of :func:`bg_features`;
    an :class:`~tawla.evaluation.Evaluator`.

    The conditional form is used: gammon outputs are P(gammon | win) etc., so the
    probabilities are consistent by construction.

    Parameters
    ----------
    weights : float[5, N_BG_FEATURES], optional
        Default :func:`shipped_weights` (read on first use).

    Raises
    ------
    tawla.errors.ConfigError
        Weights of another shape, or not finite.
    """

    def __init__(self, weights=None):
        self._weights = None if weights is None else _as_weights(weights)

    @property
    def weights(self) -> np.ndarray:
        """float64[5, n_features]: the model's weights."""
        if self._weights is None:
            self._weights = shipped_weights().copy()  # the caller may change its own
        return self._weights

    @property
    def compiled(self) -> bool:
        """Whether the compiled evaluator can run this model (its feature layout, built modules)."""
        return native.available("eval") and self.weights.shape[1] == N_BG_FEATURES

    def __call__(self, rows, ruleset) -> np.ndarray:
        """float64[N, 6]: the evaluation of ``rows`` (uint8[N, 56]), columns of :data:`COLUMNS`.

        Raises
        ------
        tawla.errors.InvalidId
            Rows of another shape or dtype (nothing is cast).
        """
        r = get_ruleset(ruleset)
        rows = np.ascontiguousarray(check_rows(rows))
        if self.compiled and r.geometry == OPPOSITE:
            return native.linear_bg(rows, self.weights, r)
        return linear_probs(rows, self.weights, r)

    def __repr__(self) -> str:
        return f"LinearContact(weights float64{list(self.weights.shape)})"
