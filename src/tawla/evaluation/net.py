"""Neural evaluators: a one-hidden-layer network trained by self-play, as a contact model.

A :class:`NetEvaluator` holds float32 weights ``w1[NET_INPUTS, H]``, ``b1[H]``,
``w2[5, H]``, ``b2[5]`` and evaluates packed rows through :data:`NET_INPUTS` inputs
(:func:`net_inputs`), ``H`` sigmoid hidden units and five sigmoid outputs. The compiled twin
(``csrc/net``, :func:`tawla.native.net_outputs`) computes the same; the numpy code here is its
reference and the fallback without the compiled modules.

Inputs (per side in its own numbering, the mover's 137 first, then the opponent's; most are 0):

=============  ==========================================================  ==========
index          input                                                       range
=============  ==========================================================  ==========
0 .. 95        point p = 1..24 holds exactly 1, 2, 3 checkers (one-hot     0/1, 0..6
               blocks of 24), then (n - 3) / 2 beyond 3
96             checkers on the bar / 2 (the hitting games, RULES.md §2.1)  0 .. 7.5
97             checkers off / 15                                           0 .. 1
98 .. 111      the hand features of :mod:`tawla.evaluation.features`       pips/100 ..
               (pips, bar, home points, primes, anchors, shots, stacking);
               the two shot features are 0 in the blocking games (§5.2)
112 .. 135     the side's checker on point p is pinned (Mahbusa, §4.2)     0/1
136            the side's start lock holds (§5.3, §6.3)                    0/1
=============  ==========================================================  ==========

Outputs, for the side to move: win, win gammon (mars), win backgammon, lose gammon, lose
backgammon (unconditional probabilities; backgammons only where the ruleset scores them). For
tawla31 (RULES.md §1.8: the winner scores 15 less the loser's checkers off) the five outputs
are win, win 15, expected points won / 15, lose 15, expected points lost / 15, and the equity
is 15 x (the third less the fifth). :meth:`NetEvaluator.__call__` gives the six columns of
:data:`~tawla.evaluation.COLUMNS`.

Weights files are ``.npz`` archives (``w1``, ``b1``, ``w2``, ``b2`` and a JSON ``meta``: the
ruleset, the format version (:data:`WEIGHTS_FORMAT`; a file without one is of version 1), the
kind (``contact``, or ``race``: a network for the races beyond the bear-off databases), the
command and seed that made them, games trained); the shipped ones are listed with their
SHA-256 and measured strength in ``tawla/data/nets/manifest.json`` (:func:`shipped_net`; a
ruleset's race network under its entry's ``race``, :func:`shipped_race_net`).
"""

from __future__ import annotations

import hashlib
import io
import json
import zipfile
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from .. import native
from ..core.geometry import OPPONENT_POINT
from ..errors import ConfigError, InvalidArgument
from ..rules import get_ruleset, Ruleset, Scoring
from .board_views import sides
from .features import _hand_features, _raw_features
from .protocol import real_weights

__all__ = ["NetEvaluator", "net_inputs", "NET_INPUTS", "NET_OUTPUTS", "shipped_net", "shipped_race_net", "SIDE_INPUTS",
           "WEIGHTS_FORMAT"]

SIDE_INPUTS = 137
"""Inputs per side."""
NET_INPUTS = 2 * SIDE_INPUTS
"""Inputs of a network (both sides)."""
NET_OUTPUTS = 5
"""Outputs of a network."""
MAX_HIDDEN = 512
"""The most hidden units the compiled evaluator takes."""
WEIGHTS_FORMAT = 1
"""The version of the weights files this module reads and writes: the input layout above."""


def _side_inputs(S, O, pinned, r: Ruleset) -> np.ndarray:
    """One side's inputs (float64[N, SIDE_INPUTS]) from both sides in own numbering."""
    n = len(S)
    hand = _hand_features(S, O)
    if r.contact == "block":
        hand[:, 9:11] = 0.0
    lock = np.zeros((n, 1))
    if r.start_lock:
        lock[:, 0] = (S[:, 0] == 0) & ~(S[:, 1:r.start_lock + 1] > 0).any(1)
    return np.concatenate([_raw_features(S), hand, pinned.astype(np.float64), lock], axis=1)


def net_inputs(rows: np.ndarray, ruleset) -> np.ndarray:
    """The network inputs of packed rows, in numpy (the compiled twin: :func:`tawla.native.net_inputs`).

    Parameters
    ----------
    rows : uint8[N, 56]
        Packed positions (mover's seat), already validated.
    ruleset : Ruleset or str

    Returns
    -------
    float32[N, NET_INPUTS]
        The layout of the module's table.
    """
    r = get_ruleset(ruleset)
    rows = np.asarray(rows, dtype=np.uint8)
    me, opp, om = sides(rows, r)
    bits = rows[:, 52].astype(np.int64) | rows[:, 53].astype(np.int64) << 8 | rows[:, 54].astype(np.int64) << 16
    pinned_me = (bits[:, None] >> np.arange(24)) & 1 == 1  # [N, 24], the mover's point p at p - 1
    both = (me[:, 1:25] > 0) & (om[:, 1:25] > 0)
    pinned_opp_mover = both & ~pinned_me  # on the mover's points
    to_opp = np.array(OPPONENT_POINT[r.geometry][1:25])  # mover's point p -> the opponent's q
    pinned_opp = np.zeros_like(pinned_me)
    pinned_opp[:, to_opp - 1] = pinned_opp_mover
    x = np.concatenate([_side_inputs(me, opp, pinned_me, r), _side_inputs(opp, me, pinned_opp, r)], axis=1)
    return x.astype(np.float32)


_SIG_RANGE, _SIG_STEPS = 16, 128
_SIG_X = -_SIG_RANGE + np.arange(2 * _SIG_RANGE * _SIG_STEPS + 2) / _SIG_STEPS
_SIG_Y = (1.0 / (1.0 + np.exp(-_SIG_X))).astype(np.float32).astype(np.float64)


def _sigmoid(z: np.ndarray) -> np.ndarray:
    """The logistic function as the compiled evaluator computes it: linear interpolation in a
    table on [-16, 16], 128 entries a unit (within 1e-6 of the exact function)."""
    return np.interp(z, _SIG_X[:-1], _SIG_Y[:-1])


def net_columns(o: np.ndarray, r: Ruleset) -> np.ndarray:
    """The six evaluation columns (float64[N, 6]) of network outputs ``o`` (float[N, 5]),
    clipped to be consistent (gammons within wins, backgammons within gammons)."""
    o = np.asarray(o, dtype=np.float64)
    win = o[:, 0]
    wg = np.minimum(o[:, 1], win)
    lg = np.minimum(o[:, 3], 1.0 - win)
    out = np.zeros((len(o), 6))
    if r.scoring == Scoring.CHECKERS_LEFT:
        out[:, 0] = 15.0 * (o[:, 2] - o[:, 4])
        wbg = lbg = np.zeros(len(o))
    else:
        if r.scoring == Scoring.CUBE:
            wbg, lbg = np.minimum(o[:, 2], wg), np.minimum(o[:, 4], lg)
        else:
            wbg = lbg = np.zeros(len(o))
        out[:, 0] = 2.0 * win - 1.0 + wg - lg + wbg - lbg
    out[:, 1], out[:, 2], out[:, 3], out[:, 4], out[:, 5] = win, wg, wbg, lg, lbg
    return out


class NetEvaluator:
    """A trained network as an :class:`~tawla.evaluation.Evaluator` for the contact rows of one
    ruleset (its name; the options do not change the inputs' layout).

    Parameters
    ----------
    w1, b1, w2, b2 : array_like
        float32 ``[NET_INPUTS, H]``, ``[H]``, ``[NET_OUTPUTS, H]``, ``[NET_OUTPUTS]``; 1 <= H <= 512.
    ruleset : Ruleset or str
        The ruleset it was trained for.
    meta : dict, optional
        What made it (JSON-serialisable): command, seed, games, strength.

    Raises
    ------
    tawla.errors.InvalidArgument
        Weights of other shapes, or not finite.
    tawla.errors.UnsupportedRuleset
        Unknown ruleset.
    """

    def __init__(self, w1, b1, w2, b2, ruleset, meta: dict | None = None) -> None:
        self.ruleset = get_ruleset(ruleset)
        arrs = [real_weights(a, np.float32, InvalidArgument, "network weights") for a in (w1, b1, w2, b2)]
        w1, b1, w2, b2 = arrs
        h = w1.shape[1] if w1.ndim == 2 else -1
        if (w1.shape != (NET_INPUTS, h) or not 1 <= h <= MAX_HIDDEN or b1.shape != (h,)
                or w2.shape != (NET_OUTPUTS, h) or b2.shape != (NET_OUTPUTS,)):
            raise InvalidArgument(f"network weights must be w1[{NET_INPUTS}, H], b1[H], w2[{NET_OUTPUTS}, H], "
                                  f"b2[{NET_OUTPUTS}] (1 <= H <= {MAX_HIDDEN}), not {[a.shape for a in arrs]}")
        if not all(np.isfinite(a).all() for a in arrs):
            raise InvalidArgument("network weights must be finite")
        self.w1, self.b1, self.w2, self.b2 = w1, b1, w2, b2
        self.meta: dict[str, Any] = dict(meta or {})

    @property
    def hidden(self) -> int:
        """Hidden units."""
        return int(self.w1.shape[1])

    @property
    def weights(self) -> tuple:
        """``(w1, b1, w2, b2)``, as the compiled evaluators take a network."""
        return self.w1, self.b1, self.w2, self.b2

    @classmethod
    def initial(cls, ruleset, hidden: int = 80, seed: int = 0) -> "NetEvaluator":
        """An untrained network: weights uniform in +-0.1 (seeded), biases 0."""
        rng = np.random.default_rng(seed)
        return cls(rng.uniform(-0.1, 0.1, (NET_INPUTS, hidden)), np.zeros(hidden),
                   rng.uniform(-0.1, 0.1, (NET_OUTPUTS, hidden)), np.zeros(NET_OUTPUTS), ruleset,
                   {"hidden": hidden, "init_seed": seed, "games": 0})

    def outputs(self, rows: np.ndarray, compiled: bool = True) -> np.ndarray:
        """The five outputs (float32[N, 5]) of rows already validated (uint8[N, 56])."""
        rows = np.ascontiguousarray(rows, dtype=np.uint8)
        if compiled and native.available("net"):
            return native.net_outputs(rows, self.ruleset, self.w1, self.b1, self.w2, self.b2)
        x = net_inputs(rows, self.ruleset)
        h = _sigmoid(x @ self.w1 + self.b1)
        return _sigmoid(h @ self.w2.T + self.b2).astype(np.float32)

    def __call__(self, rows: np.ndarray, ruleset=None) -> np.ndarray:
        """The six columns of :data:`~tawla.evaluation.COLUMNS` (float64[N, 6]) for validated rows;
        ``ruleset`` (the caller's, for the scoring) defaults to the network's."""
        r = self.ruleset if ruleset is None else get_ruleset(ruleset)
        rows = np.ascontiguousarray(rows, dtype=np.uint8)
        if native.available("net") and r.name == self.ruleset.name:
            return native.net_columns(rows, r, self.w1, self.b1, self.w2, self.b2)
        return net_columns(self.outputs(rows, compiled=False), r)

    def __repr__(self) -> str:
        return f"NetEvaluator({self.ruleset.name!r}, hidden={self.hidden}, games={self.meta.get('games')})"

    # --- files ---------------------------------------------------------------------------------
    def to_bytes(self) -> bytes:
        """The ``.npz`` archive of the weights and ``meta``."""
        buf = io.BytesIO()
        np.savez(buf, w1=self.w1, b1=self.b1, w2=self.w2, b2=self.b2,
                 meta=np.frombuffer(json.dumps({"ruleset": self.ruleset.name, **self.meta,
                                                "format": WEIGHTS_FORMAT}).encode(), np.uint8))
        return buf.getvalue()

    def save(self, path) -> str:
        """Write the ``.npz`` archive; returns its SHA-256 (hex)."""
        data = self.to_bytes()
        Path(path).write_bytes(data)
        return hashlib.sha256(data).hexdigest()

    @classmethod
    def from_bytes(cls, data: bytes, sha256: str | None = None) -> "NetEvaluator":
        """Read an archive of :meth:`to_bytes`.

        Raises
        ------
        tawla.errors.ConfigError
            A checksum that does not match (a truncated or altered file), not such an archive,
            or an archive of another format version than :data:`WEIGHTS_FORMAT`.
        """
        if sha256 is not None and hashlib.sha256(data).hexdigest() != sha256:
            raise ConfigError("network weights file: checksum mismatch (truncated or altered)")
        try:
            with np.load(io.BytesIO(data), allow_pickle=False) as z:
                meta = json.loads(bytes(z["meta"]).decode())
                version = meta.pop("format", 1)
                if version != WEIGHTS_FORMAT:
                    raise ConfigError(f"network weights of format version {version!r}: this tawla reads version "
                                      f"{WEIGHTS_FORMAT} (another input layout); retrain or use the tawla that made it")
                return cls(z["w1"], z["b1"], z["w2"], z["b2"], meta.pop("ruleset"), meta)
        except (OSError, ValueError, KeyError, EOFError, UnicodeDecodeError, zipfile.BadZipFile) as e:
            raise ConfigError(f"not a network weights file: {e}") from None

    @classmethod
    def load(cls, path, sha256: str | None = None) -> "NetEvaluator":
        """Read a weights file (:meth:`save`), checked against ``sha256`` when given.

        Raises
        ------
        tawla.errors.ConfigError
            Unreadable, not a weights file, or a checksum mismatch.
        """
        try:
            data = Path(path).read_bytes()
        except OSError as e:
            raise ConfigError(f"cannot read network weights {path}: {e.strerror}") from None
        return cls.from_bytes(data, sha256)


_SHIPPED: dict[str, NetEvaluator | None] = {}


def manifest() -> dict:
    """The shipped networks: ``{ruleset name: {file, sha256, hidden, games, command, seed, strength}}``."""
    f = resources.files("tawla") / "data" / "nets" / "manifest.json"
    try:
        return dict(json.loads(f.read_text()))
    except (OSError, ValueError):
        return {}


def shipped_net(ruleset) -> NetEvaluator | None:
    """The network shipped for a ruleset's name (loaded once, checksum checked), or None.

    Raises
    ------
    tawla.errors.ConfigError
        A shipped file that fails its checksum.
    """
    r = get_ruleset(ruleset)
    if r.name not in _SHIPPED:
        _SHIPPED[r.name] = _load_entry(manifest().get(r.name))
    return _SHIPPED[r.name]


def _load_entry(entry: dict | None) -> NetEvaluator | None:
    """The network of a manifest entry (its file read from the package, its checksum checked)."""
    if not entry:
        return None
    data = (resources.files("tawla") / "data" / "nets" / entry["file"]).read_bytes()
    return NetEvaluator.from_bytes(data, entry["sha256"])


_SHIPPED_RACE: dict[str, NetEvaluator | None] = {}


def shipped_race_net(ruleset) -> NetEvaluator | None:
    """The race network shipped for a ruleset's name (the ``race`` part of its manifest entry;
    loaded once, checksum checked), or None: the network of the races beyond the bear-off
    databases that the ``net`` levels use (:mod:`tawla.evaluation.routing`).

    Raises
    ------
    tawla.errors.ConfigError
        A shipped file that fails its checksum.
    """
    r = get_ruleset(ruleset)
    if r.name not in _SHIPPED_RACE:
        _SHIPPED_RACE[r.name] = _load_entry((manifest().get(r.name) or {}).get("race"))
    return _SHIPPED_RACE[r.name]
