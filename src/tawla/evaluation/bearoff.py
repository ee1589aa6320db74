"""Bear-off databases: one-sided (6 points x 15 checkers) and two-sided (6 points x 6 checkers).

A *bear-off position* of one side is a 6-tuple: that side's checkers on its own points
1..6 (checkers already off are simply absent).

* **One-sided** (54,264 positions = C(21, 6)): for each position, the distribution of
  the number of rolls needed to bear off *all* its checkers, and of the number needed to
  bear off the *first* one (for gammons / mars), each with the moves that minimise the
  expected number of rolls of that distribution.
* **Two-sided** (924 x 924 = 853,776 positions, up to 6 checkers a side): the exact
  cubeless probability that the side on roll wins, both sides playing to maximise their
  own winning chances.

Both are stored as ``.npy`` files in a cache directory and memory-mapped: ``$TAWLA_CACHE``
if set, else ``$XDG_CACHE_HOME/tawla``, else ``~/.cache/tawla``. They are built on first
use (or ahead of time with :func:`build`); where the directory cannot be written the
tables are kept in memory. The builder is the compiled one (:func:`tawla.native.build_one_sided`) when
it is built and not hidden, else its numpy twin (:mod:`tawla.evaluation.bearoff_build`,
a few seconds; both give the same tables, so a cache written by one serves the other;
build times are measured in ``bench/bench_bearoff.py``).

Why one database serves every ruleset
-------------------------------------
Once the two sides can no longer meet (no *contact*: every checker of each side has passed
every checker of the other, see :func:`tawla.evaluation.is_race`), what remains of each game
is the same: each side moves only its own checkers, only forward, into and off its own home
with the bear-off rule of RULES.md §1.5. Hitting (backgammon, adi), pinning (mahbusa) and
blocking (the tawla31 games) need an opponent checker on a landing point, which no
longer exists; the start locks (§5.3, §6.3) are released once a checker is home; the
T31S wall rule (§6.5) only restricts walls with opponent checkers behind them, and there
are none. So the one-sided tables (rolls to finish, rolls to the first checker off) and
the two-sided table apply unchanged to all five rulesets. The one exception is tawla31
§5.5: while an opponent checker still stands in the mover's home, the mover may not bear
off at all, so the tables are used there only once the mover's home is free of opponent
checkers (:mod:`tawla.evaluation.routing` checks it). Scoring differs between rulesets, but the
tables give probabilities and roll distributions, from which each ruleset's own equity
is computed.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

import numpy as np

from .. import native
from ..errors import InvalidArgument, InvalidPosition, quote
from . import bearoff_build

__all__ = ["one_sided", "two_sided", "one_sided_many", "two_sided_many", "mean_rolls",
           "index", "build", "cache_dir", "K", "ONE_SIDED_POSITIONS", "TWO_SIDED_POSITIONS"]

K = 32
"""Length of a one-sided distribution: probabilities of needing 1..32 rolls."""
ONE_SIDED_CHECKERS = 15
TWO_SIDED_CHECKERS = 6
ONE_SIDED_POSITIONS = 54264
TWO_SIDED_POSITIONS = 924 * 924

_VERSION = 1
_lock = threading.Lock()
_tables: dict = {}


def cache_dir() -> Path:
    """Where the database files live: ``$TAWLA_CACHE``, ``$XDG_CACHE_HOME/tawla`` or ``~/.cache/tawla``."""
    env = os.environ.get("TAWLA_CACHE")
    if env:
        return Path(env)
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg) if xdg else Path.home() / ".cache"
    return base / "tawla"


def _builder():
    """The compiled builder when it is available, else the numpy one (same functions, same tables)."""
    return native if native.available("bearoff") else bearoff_build


def _save_or_keep(name: str, make):
    """Memory-map ``name`` from the cache dir, building it (atomically) when missing."""
    d = cache_dir()
    path = d / name
    if path.exists():
        try:
            return np.load(path, mmap_mode="r")
        except (ValueError, OSError):  # truncated or foreign file: rebuild
            pass
    arr = make()
    try:
        d.mkdir(parents=True, exist_ok=True)
        tmp = d / f".{name}.{os.getpid()}.tmp"
        with open(tmp, "wb") as f:
            np.save(f, arr)
        os.replace(tmp, path)
        return np.load(path, mmap_mode="r")
    except OSError:
        return arr


def _cached(name: str, filename: str, make, derive=None):
    """The table ``name``: loaded (or built and saved) once per process, under the lock."""
    t = _tables.get(name)
    if t is None:
        with _lock:
            t = _tables.get(name)
            if t is None:
                t = _save_or_keep(filename, make)
                if derive is not None:
                    derive(t)
                _tables[name] = t
    return t


def _one():
    def make():
        a, f = _builder().build_one_sided(ONE_SIDED_CHECKERS)
        return np.stack([a, f], axis=1)  # [N, 2, 33]

    def derive(t):  # expected rolls, for the race model
        ks = np.arange(t.shape[2], dtype=np.float64)
        _tables["mean"] = np.asarray(t[:, 0, :] @ ks)
        _tables["mean_first"] = np.asarray(t[:, 1, :] @ ks)

    return _cached("one", f"bearoff1_6x15_v{_VERSION}.npy", make, derive)


def _two():
    return _cached("two", f"bearoff2_6x6_v{_VERSION}.npy", lambda: _builder().build_two_sided(TWO_SIDED_CHECKERS))


def build(force: bool = False) -> Path:
    """Build both databases now (for example at install time); returns the cache directory.

    Parameters
    ----------
    force : bool
        Rebuild even when the files exist.
    """
    if force:
        for name in (f"bearoff1_6x15_v{_VERSION}.npy", f"bearoff2_6x6_v{_VERSION}.npy"):
            try:
                (cache_dir() / name).unlink()
            except FileNotFoundError:
                pass
        _tables.clear()
    _one()
    _two()
    return cache_dir()


# --- indexing ------------------------------------------------------------------------------
def _as_points(points, max_checkers: int) -> np.ndarray:
    try:
        a = np.asarray(points)
    except (TypeError, ValueError):  # ragged nested lists
        raise InvalidPosition("bear-off positions are 6-tuples (checkers on points 1..6)") from None
    if a.shape[-1:] != (6,):
        raise InvalidPosition(f"bear-off positions are 6-tuples (checkers on points 1..6), got shape {a.shape}")
    if a.dtype.kind not in "iuf" or (a.dtype.kind == "f" and not np.all(a == np.round(a))):
        raise InvalidPosition(f"checker counts must be integers, not {a.dtype} values")
    # each count is bounded before the sum, which could otherwise wrap around in int64
    if a.size and (a.min() < 0 or a.max() > max_checkers):
        raise InvalidPosition(f"checker counts must be >= 0 with at most {max_checkers} in all")
    a = a.astype(np.int64)
    if a.size and a.sum(axis=-1).max() > max_checkers:
        raise InvalidPosition(f"checker counts must be >= 0 with at most {max_checkers} in all")
    return a


def _first_off(first_off) -> int:
    """``first_off`` as the table's column, 0 or 1 (given as a bool, or the int 0 or 1)."""
    if isinstance(first_off, (bool, np.bool_)) or (isinstance(first_off, int) and first_off in (0, 1)):
        return int(first_off)
    raise InvalidArgument(f"first_off must be a bool, not {quote(first_off)}")


def index(points) -> np.ndarray | int:
    """Database index of a 6-tuple, or of each row of an ``(N, 6)`` array.

    ``index = sum_k C(c_k + k - 1, k)`` with ``c_k`` the checkers on points 1..k; positions
    with at most 6 checkers have indices 0..923 (the two-sided database's index).

    Raises
    ------
    tawla.errors.InvalidPosition
        Not 6 integer counts each, a negative count, or more than 15 checkers.
    """
    return rank_unchecked(_as_points(points, ONE_SIDED_CHECKERS))


def rank_unchecked(a: np.ndarray):
    """:func:`index` of checked integer counts (an int for one position, else int64[...])."""
    r = bearoff_build.rank(a)
    return int(r) if np.ndim(r) == 0 else r


# --- API -----------------------------------------------------------------------------------
def one_sided(points, first_off: bool = False) -> np.ndarray:
    """Distribution of the number of rolls to bear off.

    Parameters
    ----------
    points : 6 ints, or int array (N, 6)
        Checkers on points 1..6 (at most 15 in all).
    first_off : bool
        False: rolls to bear off all the checkers; True: rolls until the first one is off.

    Returns
    -------
    float64[32] (or float64[N, 32])
        Entry ``i`` is the probability of needing exactly ``i + 1`` rolls. All zeros for a
        position with no checkers (nothing left to bear off).
    Raises
    ------
    tawla.errors.InvalidPosition
        Not 6 integer counts each, a negative count, or more than 15 checkers.
    """
    a = _as_points(points, ONE_SIDED_CHECKERS)
    t = _one()
    r = rank_unchecked(a)
    return np.array(t[r, _first_off(first_off), 1:K + 1], dtype=np.float64)


def one_sided_many(points, first_off: bool = False) -> np.ndarray:
    """:func:`one_sided` for an ``(N, 6)`` array; returns ``float64[N, 32]``.
    Raises
    ------
    tawla.errors.InvalidPosition
        Not 6 integer counts each, a negative count, or more than 15 checkers.
    """
    a = _as_points(points, ONE_SIDED_CHECKERS).reshape(-1, 6)
    return one_sided(a, bool(_first_off(first_off)))


def mean_rolls(points, first_off: bool = False):
    """Expected number of rolls to bear off all (or the first) checker(s); 0 for an empty side.

    Returns
    -------
    float (or float64[N] for an ``(N, 6)`` array)
    Raises
    ------
    tawla.errors.InvalidPosition
        Not 6 integer counts each, a negative count, or more than 15 checkers.
    """
    a = _as_points(points, ONE_SIDED_CHECKERS)
    _one()
    m = _tables["mean_first" if _first_off(first_off) else "mean"][rank_unchecked(a)]
    return float(m) if np.ndim(m) == 0 else m


def two_sided(points_on_roll, points_opponent):
    """Exact cubeless probability that the side on roll wins the bear-off race.

    Parameters
    ----------
    points_on_roll, points_opponent : 6 ints each (or int arrays (N, 6))
        Checkers on points 1..6 of each side, in its own numbering, at most 6 each.

    Returns
    -------
    float (or float64[N])
        1.0 when the side on roll has no checker left.
    Raises
    ------
    tawla.errors.InvalidPosition
        Not 6 integer counts each, a negative count, more than 6 checkers a side, or the
        sides of different shapes.
    """
    a = _as_points(points_on_roll, TWO_SIDED_CHECKERS)
    b = _as_points(points_opponent, TWO_SIDED_CHECKERS)
    if a.shape != b.shape:
        raise InvalidPosition(f"the two sides have different shapes, {a.shape} and {b.shape}")
    t = _two()
    p = t[np.asarray(rank_unchecked(a)) * 924 + np.asarray(rank_unchecked(b))]
    return float(p) if np.ndim(p) == 0 else np.array(p, dtype=np.float64)


def two_sided_many(points_on_roll, points_opponent) -> np.ndarray:
    """:func:`two_sided` for ``(N, 6)`` arrays; returns ``float64[N]``.
    Raises
    ------
    tawla.errors.InvalidPosition
        Not 6 integer counts each, a negative count, or more than 6 checkers a side.
    """
    a = _as_points(points_on_roll, TWO_SIDED_CHECKERS).reshape(-1, 6)
    b = _as_points(points_opponent, TWO_SIDED_CHECKERS).reshape(-1, 6)
    return np.atleast_1d(two_sided(a, b))


# --- the evaluator's access ------------------------------------------------------------------
def eval_tables():
    """The tables as the race model reads them: (one-sided float64[54264, 2, 33], mean rolls
    to bear off all float64[54264], mean rolls to the first off float64[54264], two-sided
    float64[924 * 924])."""
    t = _one()
    return t, _tables["mean"], _tables["mean_first"], _two()
