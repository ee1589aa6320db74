"""pytest-benchmark suite of the fast engine (issue 4): W1/W2 move generation, threads, playouts.

Run: ``python -m pytest bench/bench_engine.py --benchmark-only -s -p no:xdist``
(``python bench/speed_table.py`` prints the same measures as one table.)

* W1: the 2000 positions of ``tawla/data/w1`` x 21 rolls, backgammon: ``tawla.expand`` (fast,
  the call included), ``tawla.expand_all_rolls``, the reference engine (a sample), and
  ``gnubg_nn.moves`` when installed. ``extra_info["ns_per_child"]`` divides by tawla's
  number of distinct children, so every ratio is a time ratio.
* W1 validation cost: the public ``tawla.expand`` beside ``tawla.native.expand`` (the same
  expansion without the input checks), alternated in one run (target: checks <= 5%).
* W2: 2000 positions of each ruleset's own random games x 21 rolls.
* 2 threads each calling ``expand`` on half of W1 (the GIL is released).
* random games per second: fast playout (C loop), reference, gnubg_nn, OpenSpiel.

The last test prints the ratios between the engines measured in this run.
"""

from __future__ import annotations

import threading

import numpy as np
import pytest

import tawla
import speed_table as tb
import oracles
import workloads

TARGET_NS_W1 = 15.0  # ns per child through tawla.expand, W1
TARGET_NS_W2 = 30.0  # ns per child through tawla.expand, W2
TARGET_THREADS = 1.7  # two threads' speed-up over one
TARGET_GAMES = 20_000  # random games per second, tawla.playout

RESULTS: dict = {}


@pytest.fixture(scope="module")
def w1():
    arr = workloads.load_w1("backgammon")
    rep = np.repeat(arr, 21, axis=0)
    dice = np.tile(tawla.ROLLS, (len(arr), 1))
    children, _ = tawla.expand(rep, dice, ruleset="backgammon")
    return arr, rep, dice, len(children)


def _record(benchmark, key, children):
    ns = benchmark.stats.stats.min / children * 1e9
    benchmark.extra_info["children"] = children
    benchmark.extra_info["ns_per_child"] = round(ns, 2)
    RESULTS[key] = ns


def test_w1_expand_fast(benchmark, w1):
    arr, rep, dice, n = w1
    benchmark.pedantic(tawla.expand, args=(rep, dice), kwargs={"ruleset": "backgammon"},
                       rounds=20, iterations=1, warmup_rounds=2)
    _record(benchmark, "fast", n)


def test_w1_expand_all_rolls_fast(benchmark, w1):
    arr, rep, dice, n = w1
    benchmark.pedantic(tawla.expand_all_rolls, args=(arr,), kwargs={"ruleset": "backgammon"},
                       rounds=20, iterations=1, warmup_rounds=2)
    _record(benchmark, "fast_all_rolls", n)


def test_w1_validation_cost(benchmark, w1):
    """The public ``expand`` (its input checks included) beside the same expansion without
    them (``tawla.native.expand``), in alternation in one run; target: checks <= 5%."""
    arr = w1[0]
    res = benchmark.pedantic(tb.measure_validation, args=(arr, tawla.get_ruleset("backgammon"), 15),
                             rounds=1, iterations=1)
    for k in ("checked", "unchecked", "validate"):
        benchmark.extra_info[f"{k}_ms"] = round(res[k] * 1e3, 3)
    benchmark.extra_info["validation_share"] = round(res["ratio"], 4)
    RESULTS["validation"] = res
    print(f"\nW1 expand: checked {res['checked'] * 1e3:.2f} ms, unchecked {res['unchecked'] * 1e3:.2f} ms: "
          f"checks +{res['ratio'] * 100:.2f}% (C row validator alone {res['validate'] * 1e3:.3f} ms)")


def test_w1_expand_two_threads(benchmark, w1):
    arr, rep, dice, n = w1
    # every other row: both halves hold the same mix (contiguous halves are contact vs race)
    parts = [(np.ascontiguousarray(rep[k::2]), np.ascontiguousarray(dice[k::2])) for k in (0, 1)]

    def two():
        ts = [threading.Thread(target=tawla.expand, args=p, kwargs={"ruleset": "backgammon"}) for p in parts]
        for t in ts:
            t.start()
        for t in ts:
            t.join()

    benchmark.pedantic(two, rounds=30, iterations=1, warmup_rounds=3)
    _record(benchmark, "fast_two_threads", n)


def test_w1_expand_reference_sample(benchmark, w1):
    arr = w1[0][::20]  # 100 positions x 21 rolls
    rep = np.repeat(arr, 21, axis=0)
    dice = np.tile(tawla.ROLLS, (len(arr), 1))
    n = len(tawla.expand(rep, dice, ruleset="backgammon")[0])
    benchmark.pedantic(tawla.expand, args=(rep, dice), kwargs={"ruleset": "backgammon", "engine": "reference"},
                       rounds=1, iterations=1)
    _record(benchmark, "reference", n)


def test_w1_gnubg_moves(benchmark, w1):
    g = pytest.importorskip("gnubg_nn")
    arr = w1[0]
    geometry = tawla.get_ruleset("backgammon").geometry
    boards = [oracles.gnubg_board(row.tobytes(), geometry) for row in arr]
    rolls = [(int(a), int(b)) for a, b in tawla.ROLLS]

    def run():
        for b in boards:
            for d1, d2 in rolls:
                g.moves(b, d1, d2)

    benchmark.pedantic(run, rounds=3, iterations=1)
    _record(benchmark, "gnubg", w1[3])


@pytest.mark.parametrize("name", tawla.RULESET_IDS)
def test_w2_expand_fast(benchmark, name):
    arr = workloads.workload("W2", tawla.get_ruleset(name))
    rep = np.repeat(arr, 21, axis=0)
    dice = np.tile(tawla.ROLLS, (len(arr), 1))
    n = len(tawla.expand(rep, dice, ruleset=name)[0])
    benchmark.pedantic(tawla.expand, args=(rep, dice), kwargs={"ruleset": name}, rounds=10, iterations=1,
                       warmup_rounds=1)
    _record(benchmark, f"w2_{name}", n)


@pytest.mark.parametrize("name", tawla.RULESET_IDS)
def test_playout_fast(benchmark, name):
    games = 5000
    benchmark.pedantic(tawla.playout, args=(name, games), kwargs={"seed": 1}, rounds=3, iterations=1)
    RESULTS[f"games_fast_{name}"] = games / benchmark.stats.stats.min
    benchmark.extra_info["games_per_s"] = round(RESULTS[f"games_fast_{name}"])


def test_playout_reference(benchmark):
    games = 10
    benchmark.pedantic(tawla.playout, args=("backgammon", games), kwargs={"seed": 1, "engine": "reference"},
                       rounds=1, iterations=1)
    RESULTS["games_reference"] = games / benchmark.stats.stats.min


def test_playout_gnubg(benchmark):
    pytest.importorskip("gnubg_nn")
    res = benchmark.pedantic(tb.gnubg_random_games, args=(200,), rounds=1, iterations=1)
    RESULTS["games_gnubg"] = res["games"] / res["time"]


def test_playout_openspiel(benchmark):
    pytest.importorskip("pyspiel")
    res = benchmark.pedantic(tb.measure_openspiel, args=(50, 20), rounds=1, iterations=1)
    RESULTS["games_openspiel"] = res["games"] / res["time_games"]
    RESULTS["openspiel"] = res["time_children"] / res["children"] * 1e9


def test_zz_ratios(benchmark):
    """Print the ratios of this run (after the benchmarks above; a benchmark itself so that
    ``--benchmark-only`` runs it)."""
    benchmark.pedantic(lambda: None, rounds=1, iterations=1)
    f = RESULTS.get("fast")
    if not f:
        pytest.skip("run with --benchmark-only (or without --benchmark-disable)")
    lines = [f"W1 ns/child: fast {f:.1f} (target <= {TARGET_NS_W1:.0f})"]
    for k, label in [("fast_all_rolls", "expand_all_rolls"), ("reference", "reference"), ("gnubg", "gnubg_nn.moves"),
                     ("openspiel", "OpenSpiel (random-game states)")]:
        if k in RESULTS:
            lines.append(f"  {label}: {RESULTS[k]:,.1f} ns/child = {RESULTS[k] / f:,.1f} x fast")
    if "fast_two_threads" in RESULTS:
        lines.append(f"  2 threads: {f / RESULTS['fast_two_threads']:.2f}x one thread (target >= {TARGET_THREADS})")
    for name in tawla.RULESET_IDS:
        if f"w2_{name}" in RESULTS:
            lines.append(f"W2 {name}: {RESULTS[f'w2_{name}']:.1f} ns/child (target <= {TARGET_NS_W2:.0f})")
    v = RESULTS.get("validation")
    if v:
        lines.append(f"  checks of the public expand: {v['checked'] * 1e3:.2f} ms vs {v['unchecked'] * 1e3:.2f} ms "
                     f"unchecked = +{v['ratio'] * 100:.1f}% (validator alone {v['validate'] * 1e3:.3f} ms; "
                     f"target <= 5%)")
    g = RESULTS.get("games_fast_backgammon")
    if g:
        lines.append(f"random games/s, backgammon: fast {g:,.0f} (target >= {TARGET_GAMES:,})")
        for k in ("games_reference", "games_gnubg", "games_openspiel"):
            if k in RESULTS:
                lines.append(f"  {k[6:]}: {RESULTS[k]:,.1f} games/s = fast / {g / RESULTS[k]:,.1f}")
    print("\n" + "\n".join(lines))
