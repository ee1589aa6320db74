"""Every public batch function reads arrays it does not own without writing them: a read-only
array (``setflags(write=False)``) and a memory-mapped file opened ``mode="r"`` give the same
result as a writable copy, on both engines."""

import numpy as np
import pytest

import tawla
from tawla import bearoff, native
from tawla.bots import Bot, CubeAction
from tawla.evaluation import LinearContact, is_race, is_terminal, pip_counts
from tawla.evaluation.nohit import nohit_contact

N = 24


def _rows(name):
    return tawla.batch.random_positions(name, N, seed=7, include_over=True)


def _dice():
    return np.random.default_rng(3).integers(1, 7, size=(N, 2)).astype(np.uint8)


def _bearoff_points(k):
    rng = np.random.default_rng(5)
    pts = np.zeros((N, 6), np.int64)
    for i in range(N):
        for _ in range(int(rng.integers(0, k + 1))):
            pts[i, rng.integers(0, 6)] += 1
    return pts


def _read_only(a):
    a = np.array(a)
    a.setflags(write=False)
    return a


def _memmap(a, tmp_path, name):
    path = tmp_path / f"{name}.bin"
    w = np.memmap(path, dtype=a.dtype, mode="w+", shape=a.shape)
    w[...] = a
    w.flush()
    del w
    return np.memmap(path, dtype=a.dtype, mode="r", shape=a.shape)


BG = tawla.get_ruleset("backgammon")
CALLS = {
    # name: (function of the arrays, the arrays)
    "expand": (lambda R, D: tawla.expand(R, D, ruleset="backgammon"), lambda: (_rows("backgammon"), _dice())),
    "expand_all_rolls": (lambda R: tawla.expand_all_rolls(R, ruleset="backgammon"), lambda: (_rows("backgammon"),)),
    "expand_mahbusa": (lambda R, D: tawla.expand(R, D, ruleset="mahbusa"), lambda: (_rows("mahbusa"), _dice())),
    "evaluate": (lambda R: tawla.evaluate(R, "backgammon"), lambda: (_rows("backgammon"),)),
    "evaluate_tawla31": (lambda R: tawla.evaluate(R, "tawla31"), lambda: (_rows("tawla31"),)),
    "bot_values": (lambda R: Bot("backgammon", "ply1").values(R), lambda: (_rows("backgammon"),)),
    "bot_choose_rows": (lambda R, D: Bot("backgammon", "ply0").choose_rows(R, D),
                        lambda: (_rows("backgammon"), _dice())),
    "array_to_positions": (lambda R: [p.id() for p in tawla.array_to_positions(R, "backgammon")],
                           lambda: (_rows("backgammon"),)),
    "array_to_ids": (lambda R: tawla.array_to_ids(R, "backgammon"), lambda: (_rows("backgammon"),)),
    "flip_rows": (lambda R: native.flip_rows(R, BG), lambda: (_rows("backgammon"),)),
    "is_race": (lambda R: is_race(R, "backgammon"), lambda: (_rows("backgammon"),)),
    "is_terminal": (lambda R: is_terminal(R, "backgammon"), lambda: (_rows("backgammon"),)),
    "pip_counts": (lambda R: pip_counts(R, "backgammon"), lambda: (_rows("backgammon"),)),
    "linear_contact": (lambda R: LinearContact()(R, BG), lambda: (_rows("backgammon"),)),
    "nohit_contact": (lambda R: nohit_contact(R, "mahbusa"), lambda: (_rows("mahbusa"),)),
    "linear_contact_weights": (lambda R, W: LinearContact(W)(R, BG),
                               lambda: (_rows("backgammon"), np.array(LinearContact().weights))),
    "bearoff_one_sided": (lambda P: bearoff.one_sided(P), lambda: (_bearoff_points(15),)),
    "bearoff_one_sided_many": (lambda P: bearoff.one_sided_many(P, True), lambda: (_bearoff_points(15),)),
    "bearoff_mean_rolls": (lambda P: bearoff.mean_rolls(P), lambda: (_bearoff_points(15),)),
    "bearoff_index": (lambda P: bearoff.index(P), lambda: (_bearoff_points(15),)),
    "bearoff_two_sided": (lambda P, Q: bearoff.two_sided(P, Q), lambda: (_bearoff_points(6), _bearoff_points(6)[::-1])),
    "bearoff_two_sided_many": (lambda P, Q: bearoff.two_sided_many(P, Q),
                               lambda: (_bearoff_points(6), _bearoff_points(6)[::-1])),
    "cube_from_probabilities": (lambda E: CubeAction.from_probabilities(E),
                                lambda: (np.array([0.3, 0.6, 0.2, 0.01, 0.1, 0.005]),)),
}
if native.available():
    CALLS["game_results"] = (lambda R: native.backend.compiled("_movegen").game_results(R, native.backend.params(BG)), lambda: (_rows("backgammon"),))
    CALLS["validate_rows"] = (lambda R: native.validate_rows(R, BG), lambda: (_rows("backgammon"),))


def _same(a, b):
    if isinstance(a, tuple):
        assert isinstance(b, tuple) and len(a) == len(b)
        for x, y in zip(a, b):
            _same(x, y)
    elif isinstance(a, np.ndarray):
        np.testing.assert_array_equal(a, b)
    else:
        assert a == b


@pytest.mark.parametrize("name", sorted(CALLS))
def test_read_only_and_memory_mapped_arrays_give_the_writable_result(name, each_engine, tmp_path):
    fn, make = CALLS[name]
    arrays = [np.ascontiguousarray(a) for a in make()]
    want = fn(*[a.copy() for a in arrays])
    _same(want, fn(*[_read_only(a) for a in arrays]))
    _same(want, fn(*[_memmap(a, tmp_path, f"a{i}") for i, a in enumerate(arrays)]))
    for a, b in zip(arrays, make()):  # nothing written into the inputs
        np.testing.assert_array_equal(a, b)
