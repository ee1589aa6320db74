"""Bear-off databases: GNU Backgammon's tables, exact recursion, the numpy builder against the
compiled one, API and cache (build times: bench/bench_bearoff.py).

The tables checked against gnubg and the exact recursion are the numpy builder's; the
compiled builder is checked to give the same tables."""

import numpy as np
import pytest

import tawla
from tawla import native
from tawla.errors import InvalidPosition
from tawla.evaluation import bearoff as bo
from tawla.evaluation import bearoff_build as nb

from conftest import require_module

compiled = pytest.mark.skipif(not native.available("bearoff"), reason="the compiled builder is not built (or hidden)")

Q = 1 / 65535  # gnubg stores 16-bit probabilities


@pytest.fixture(scope="module", autouse=True)
def _cache(tmp_path_factory):
    """Every test of this module builds into its own cache directory."""
    mp = pytest.MonkeyPatch()
    mp.setenv("TAWLA_CACHE", str(tmp_path_factory.mktemp("cache")))
    bo._tables.clear()
    yield
    bo._tables.clear()
    mp.undo()


@pytest.fixture(scope="module")
def one():
    return nb.build_one_sided(15)


@pytest.fixture(scope="module")
def two():
    return nb.build_two_sided(6)


def test_sizes_and_index():
    assert nb.n_positions(15) == bo.ONE_SIDED_POSITIONS == 54264
    assert nb.n_positions(6) ** 2 == bo.TWO_SIDED_POSITIONS == 853776
    t = nb.unrank(15)
    assert np.array_equal(bo.index(t), np.arange(len(t)))
    assert t[:924].sum(axis=1).max() == 6 and t[924:].sum(axis=1).min() == 7
    assert len(np.unique(t, axis=0)) == len(t) and t.min() == 0 and t.sum(axis=1).max() == 15


@compiled
def test_compiled_index_and_children_equal_numpy():
    c = native.backend.compiled("_bearoff")
    t = nb.unrank(15)
    assert c.n_positions(15) == nb.n_positions(15) and c.n_positions(6) == nb.n_positions(6)
    assert np.array_equal(c.unrank(15), t) and np.array_equal(c.rank_array(t), np.arange(len(t)))
    rng = np.random.default_rng(4)
    for r in rng.integers(1, len(t), 40):
        for d1, d2 in nb.ROLL_DICE:
            assert nb.children(t[r], d1, d2) == c.children(t[r], d1, d2), (t[r], d1, d2)


@compiled
def test_compiled_tables_equal_numpy(one, two):
    """The numpy builder keeps the compiled builder's play among equal ones: same tables."""
    a, f = native.build_one_sided(15)
    assert np.abs(a - one[0]).max() < 1e-12 and np.abs(f - one[1]).max() < 1e-12
    assert np.abs(native.build_two_sided(6) - two).max() < 1e-12


def test_one_sided_normalised(one):
    """(Build times are measured in bench/bench_bearoff.py, not asserted here.)"""
    a, f = one
    assert np.allclose(a.sum(axis=1), 1) and np.allclose(f.sum(axis=1), 1)
    assert a[:, -1].max() == 0  # 32 rolls always suffice


def test_two_sided_shape_and_range(two):
    assert two.shape == (853776,) and two.min() >= 0 and two.max() <= 1


def test_one_sided_vs_gnubg_every_position(one):
    """All 54,264 positions against gnubg's one-sided database.

    gnubg stores 16-bit probabilities and builds each position from its *stored* children,
    so its error grows along the recursion and its choice between two plays whose expected
    rolls differ by less than its rounding can differ from ours (ours is exact in float64).
    Measured: every position with at most 8 checkers within 2.5 quanta; 98.7 % of all
    positions within 3 quanta; the rest are such near-ties (expected rolls within 2e-4).
    """
    g = require_module("gnubg_nn")
    a, _ = one
    t = nb.unrank(15)
    G = np.zeros_like(a)
    G[0, 0] = 1
    for r in range(1, len(t)):
        x = g.bearoff_probabilities(tuple(int(v) for v in t[r]))
        G[r, 1:1 + len(x)] = x
    d = np.abs(a - G).max(axis=1)
    small = t.sum(axis=1) <= 8
    assert d[small].max() <= 3 * Q
    assert (d <= 3 * Q).mean() >= 0.985
    ks = np.arange(a.shape[1])
    assert np.abs(a @ ks - G @ ks).max() < 2.5e-4
    assert np.abs(np.cumsum(a, 1) - np.cumsum(G, 1)).max() < 3e-3


# --- exact recursion with the rules engine's own move generator ------------------------------
def _rows(points):
    """Backgammon rows: the mover's bear-off position, the opponent far away (no contact)."""
    rows = np.zeros((len(points), tawla.PACKED_WIDTH), np.uint8)
    for i, p in enumerate(points):
        rows[i, 1:7] = p
        rows[i, 0] = 15 - sum(p)
        rows[i, 26 + 24] = 15  # opponent's 15 on its own 1 point = the mover's 24
    return rows


@pytest.fixture(scope="module")
def small_moves():
    """For every position of up to 3 checkers: {roll index: set of child positions}."""
    t = nb.unrank(3)
    pts = [tuple(int(v) for v in x) for x in t if sum(x)]
    ch, par, roll = tawla.expand_all_rolls(_rows(pts), ruleset="backgammon")
    kids = {p: {k: set() for k in range(21)} for p in pts}
    for c, i, k in zip(ch, par, roll):
        # children are flipped: the mover's p sits at byte 26 + (25 - p)
        kids[pts[i]][int(k)].add(tuple(int(c[26 + 25 - p]) for p in range(1, 7)))
    return kids


def test_one_sided_exact_recursion(one, small_moves):
    a, f = one
    w = tawla.ROLL_WEIGHTS
    mean, dist, fmean, fdist = {(0,) * 6: 0.0}, {(0,) * 6: np.eye(33)[0]}, {}, {}
    for p in sorted(small_moves, key=lambda p: sum((i + 1) * n for i, n in enumerate(p))):
        d, e, fd, fe = np.zeros(33), 1.0, np.zeros(33), 1.0
        for k in range(21):
            best = min(small_moves[p][k], key=lambda c: mean[c])
            e += w[k] * mean[best]
            d[1:] += w[k] * dist[best][:-1]
            done = [c for c in small_moves[p][k] if sum(c) < sum(p)]
            if done:
                fd[1] += w[k]
            else:
                best = min(small_moves[p][k], key=lambda c: fmean[c])
                fe += w[k] * fmean[best]
                fd[1:] += w[k] * fdist[best][:-1]
        mean[p], dist[p], fdist[p] = e, d, fd
        fmean[p] = fd @ np.arange(33)
        r = bo.index(p)
        assert np.allclose(a[r], d, atol=1e-12), p
        assert np.allclose(f[r], fd, atol=1e-12), p


def test_two_sided_exact_recursion(small_moves, two):
    w = tawla.ROLL_WEIGHTS
    pts = sorted(small_moves, key=lambda p: sum((i + 1) * n for i, n in enumerate(p)))
    empty = (0,) * 6
    P = {}

    def pw(x, y):  # x on roll
        if x == empty:
            return 1.0
        if y == empty:
            return 0.0
        return P[x, y]

    pip = {p: sum((i + 1) * n for i, n in enumerate(p)) for p in pts}
    for s in range(0, 37):
        for x in pts:
            for y in pts:
                if pip[x] + pip[y] != s:
                    continue
                P[x, y] = sum(w[k] * max(1 - pw(y, c) for c in small_moves[x][k]) for k in range(21))
    xs = np.array([k[0] for k in P])
    ys = np.array([k[1] for k in P])
    want = np.array(list(P.values()))
    assert np.abs(bo.two_sided_many(xs, ys) - want).max() < 1e-12
    assert np.abs(two[bo.index(xs) * 924 + bo.index(ys)] - want).max() < 1e-12


def test_two_sided_vs_gnubg_sample(two):
    g = require_module("gnubg_nn")
    t = nb.unrank(6)
    rng = np.random.default_rng(6)
    ia, ib = rng.integers(1, 924, (2, 500))
    mine = two[ia * 924 + ib]
    for k in range(500):
        board = [[0] * 25, [0] * 25]  # gnubg: [opponent, on roll]
        board[1][:6] = [int(v) for v in t[ia[k]]]
        board[0][:6] = [int(v) for v in t[ib[k]]]
        assert abs(g.probabilities(board, 0)[0] - mine[k]) < 1e-4


# --- API and cache ----------------------------------------------------------------------------
def test_api_shapes_and_values():
    d = bo.one_sided((0, 0, 0, 0, 0, 1))
    assert d.dtype == np.float64 and d.shape == (bo.K,)
    assert d[0] == pytest.approx(27 / 36) and d[1] == pytest.approx(9 / 36)
    assert bo.one_sided((1, 0, 0, 0, 0, 0), first_off=True)[0] == pytest.approx(1.0)
    assert bo.one_sided((0,) * 6).sum() == 0
    f = bo.one_sided((0, 0, 0, 0, 0, 15), first_off=True)
    # any 6, 5-1, 4-2 (6/1/off, 6/2/off), 3-3 and 2-2 bear a checker off at once: 17/36
    assert f[0] == pytest.approx(17 / 36) and f.sum() == pytest.approx(1)
    many = bo.one_sided_many(np.array([[0, 0, 0, 0, 0, 1], [3, 3, 3, 2, 2, 2]]))
    assert many.shape == (2, bo.K) and np.array_equal(many[0], d)
    assert bo.two_sided((0, 0, 0, 0, 0, 1), (1, 0, 0, 0, 0, 0)) == pytest.approx(0.75)
    assert bo.two_sided((0,) * 6, (1, 0, 0, 0, 0, 0)) == 1.0
    assert isinstance(bo.two_sided((1, 0, 0, 0, 0, 0), (1, 0, 0, 0, 0, 0)), float)
    v = bo.two_sided_many(np.array([[1, 0, 0, 0, 0, 0]] * 3), np.array([[0, 0, 0, 0, 0, 1]] * 3))
    assert v.shape == (3,) and np.all(v == 1.0)
    assert bo.mean_rolls((0, 0, 0, 0, 0, 1)) == pytest.approx(1.25)
    assert tawla.bearoff is bo
    for bad in [(1, 2, 3), (-1, 0, 0, 0, 0, 0), (16, 0, 0, 0, 0, 0), (0.5, 0, 0, 0, 0, 0), ("a",) * 6]:
        for f in (bo.one_sided, bo.one_sided_many, bo.mean_rolls, bo.index):
            with pytest.raises(InvalidPosition):
                f(bad)
    with pytest.raises(InvalidPosition):
        bo.two_sided((7, 0, 0, 0, 0, 0), (1, 0, 0, 0, 0, 0))
    with pytest.raises(InvalidPosition):
        bo.two_sided_many((1, 0, 0, 0, 0, 0), (0, 0, 0, 0, 0, 0, 1))


def test_cache_dir_env(tmp_path, monkeypatch):
    monkeypatch.delenv("TAWLA_CACHE")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert bo.cache_dir() == tmp_path / "xdg" / "tawla"
    monkeypatch.setenv("TAWLA_CACHE", str(tmp_path / "own"))
    assert bo.cache_dir() == tmp_path / "own"
    saved = dict(bo._tables)
    try:
        bo._tables.clear()
        d = bo.build()
        files = sorted(x.name for x in d.iterdir())
        assert files == ["bearoff1_6x15_v1.npy", "bearoff2_6x6_v1.npy"]
        assert isinstance(bo._tables["one"], np.memmap)
        bo._tables.clear()  # second use maps the files, no rebuild
        mtime = (d / files[0]).stat().st_mtime_ns
        assert bo.one_sided((0, 0, 0, 0, 0, 1))[0] == pytest.approx(0.75)
        assert (d / files[0]).stat().st_mtime_ns == mtime
    finally:
        bo._tables.clear()
        bo._tables.update(saved)


def test_build_without_the_compiled_builder(tmp_path, monkeypatch, one, two):
    """With the compiled builder hidden the API asks the numpy builder (here for the tables
    the fixtures built with it) and caches its tables. (tests/test_fallback.py builds them
    for real without the compiled modules.)"""
    calls = []
    monkeypatch.setattr(native, "available", lambda part="engine": part != "bearoff")
    monkeypatch.setattr(nb, "build_one_sided", lambda checkers: calls.append(("one", checkers)) or one)
    monkeypatch.setattr(nb, "build_two_sided", lambda checkers: calls.append(("two", checkers)) or two)
    monkeypatch.setenv("TAWLA_CACHE", str(tmp_path))
    saved = dict(bo._tables)
    try:
        bo._tables.clear()
        bo.build()
        assert calls == [("one", 15), ("two", 6)]
        assert np.array_equal(bo._tables["one"], np.stack(one, axis=1))
        assert np.array_equal(bo._tables["two"], two)
        assert bo.mean_rolls((0, 0, 0, 0, 0, 1)) == pytest.approx(1.25)
        assert sorted(x.name for x in tmp_path.iterdir()) == ["bearoff1_6x15_v1.npy", "bearoff2_6x6_v1.npy"]
    finally:
        bo._tables.clear()
        bo._tables.update(saved)
