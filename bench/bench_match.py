"""pytest-benchmark suite of the match engine: actions per CPU second through the public API.

Run: ``python -m pytest bench/bench_match.py --benchmark-only -s -p no:xdist``
(``python bench/speed_table.py`` prints the same measures in its "match actions" section.)

* single steps: random legal single steps (roll, a random lit step of ``legal_steps`` with
  its dice, confirm once nothing is lit) for tawla31 (federation, 31 points) and backgammon
  (international money session): :func:`speed_table.match_step_actions`;
* whole moves: a roll, then ``play`` of a random move of ``legal_moves``:
  :func:`speed_table.match_move_actions`;
* the JSON record: ``to_json`` of a freshly loaded match, the next ``to_json`` after one
  more action, and ``from_json``, in µs per logged event.

Each figure is the calling thread's CPU time. The last test prints every figure as a ratio
to the target of TARGET_MATCH_ACTIONS actions per CPU second, and which
engine ran the turn search (:func:`tawla.native.turn_engine`).
"""

from __future__ import annotations

import time

import pytest

from tawla import Match
import speed_table as tb
from tawla.native import turn_engine

N_ACTIONS = 20_000
TARGET_MATCH_ACTIONS = 50_000  # actions per CPU second
RESULTS: dict = {}


@pytest.mark.parametrize("ruleset", list(tb.MATCH_TABLES))
def test_single_steps(benchmark, ruleset):
    out = {}

    def run():
        out["cpu"], out["match"] = tb.match_step_actions(ruleset, N_ACTIONS, seed=1)

    benchmark.pedantic(run, rounds=3, iterations=1, warmup_rounds=1)
    RESULTS[f"steps_{ruleset}"] = rate = N_ACTIONS / out["cpu"]
    RESULTS[f"match_{ruleset}"] = out["match"]
    benchmark.extra_info["actions_per_cpu_s"] = round(rate)


@pytest.mark.parametrize("ruleset", list(tb.MATCH_TABLES))
def test_whole_moves(benchmark, ruleset):
    out = {}

    def run():
        out["cpu"], _ = tb.match_move_actions(ruleset, N_ACTIONS, seed=1)

    benchmark.pedantic(run, rounds=3, iterations=1, warmup_rounds=1)
    RESULTS[f"moves_{ruleset}"] = rate = N_ACTIONS / out["cpu"]
    benchmark.extra_info["actions_per_cpu_s"] = round(rate)


@pytest.mark.parametrize("ruleset", list(tb.MATCH_TABLES))
def test_json_per_event(benchmark, ruleset):
    m = RESULTS.get(f"match_{ruleset}")
    if m is None:
        _cpu, m = tb.match_step_actions(ruleset, N_ACTIONS, seed=1)
    js = m.to_json()
    n = len(m.events)
    cpu = []

    def load():
        c = time.thread_time()
        loaded = Match.from_json(js)
        cpu.append(time.thread_time() - c)
        return loaded

    loaded = benchmark.pedantic(load, rounds=5, iterations=1)
    RESULTS[f"from_json_{ruleset}"] = min(cpu) / n * 1e6
    c = time.thread_time()
    text = loaded.to_json()
    RESULTS[f"to_json_{ruleset}"] = (time.thread_time() - c) / n * 1e6
    assert text == js
    benchmark.extra_info["events"] = n


def test_zz_ratios(benchmark):
    """Print this run's figures against the target (a benchmark itself so that
    ``--benchmark-only`` runs it)."""
    benchmark.pedantic(lambda: None, rounds=1, iterations=1)
    if not any(k.startswith("steps_") for k in RESULTS):
        pytest.skip("run with --benchmark-only (or without --benchmark-disable)")
    target = TARGET_MATCH_ACTIONS
    lines = [f"match actions per CPU second (turn search: {turn_engine()} engine; target >= {target:,})"]
    for ruleset in tb.MATCH_TABLES:
        for kind, label in (("steps", "single steps (roll, step, confirm)"), ("moves", "whole moves (roll, play)")):
            x = RESULTS.get(f"{kind}_{ruleset}")
            if x:
                lines.append(f"  {ruleset:10s} {label:36s} {x:10,.0f}  = {x / target:.2f} x target")
        if f"from_json_{ruleset}" in RESULTS:
            lines.append(f"  {ruleset:10s} JSON per logged event: to_json {RESULTS[f'to_json_{ruleset}']:.2f} us, "
                         f"from_json {RESULTS[f'from_json_{ruleset}']:.2f} us")
    print("\n" + "\n".join(lines))
