"""Benchmark of the main job: replay (and rank) the whole shared match archive.

Run: ``python -m pytest bench/bench_analysis.py --benchmark-only -s`` (needs ../shared).
Prints games and plays per second for a replay-only pass and a pass with the default
evaluator, measured in the same run.
"""

import time
from pathlib import Path

import pytest

from tawla.analysis import analyze_paths, collect_files, default_evaluator

ARCHIVE = Path(__file__).resolve().parents[2] / "shared" / "data" / "matches"


def _files():
    if not ARCHIVE.exists():
        pytest.skip(f"{ARCHIVE} is missing")
    return [p for p in collect_files([ARCHIVE]) if p.parent.name not in {"gammonx-variants", "bgammon-replay"}]


@pytest.mark.parametrize("ranked", [False, True], ids=["replay", "replay+rank"])
def test_analyze_archive(benchmark, ranked):
    files = _files()
    evaluator = default_evaluator() if ranked else None
    t0 = time.perf_counter()
    reports = benchmark.pedantic(analyze_paths, args=(files,), kwargs={"evaluator": evaluator},
                                 rounds=1, iterations=1)
    dt = time.perf_counter() - t0
    games = sum(len(r.games) for r in reports)
    plays = sum(len(g.decisions) for r in reports for g in r.games)
    name = evaluator.name if evaluator else "no evaluator"
    print(f"\n[analyze {name}] {len(files)} files, {games} games, {plays} plays in {dt:.2f} s: "
          f"{games / dt:.1f} games/s, {plays / dt:.0f} plays/s")
