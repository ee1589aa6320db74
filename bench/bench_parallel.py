"""Benchmark of the analysis on several processes: wall time on 1 worker against N workers.

Run::

    python -m pytest -p no:xdist bench/bench_parallel.py --benchmark-only -s

``test_workers_speedup``: the shared archive (../shared/data/matches, every file) repeated
:data:`REPEAT` times (at least 1,000 games), analysed with the default evaluator by
:func:`tawla.analysis.parallel.analyze_parallel` on one worker (in this process, streamed
from disk) and then on every core (a process pool, the chunks of
:func:`tawla.analysis.chunks.plan_chunks`), back to back, :data:`ROUNDS` times: on a shared
machine the other processes weigh on every run, so each pair is printed, with the wall time
and the CPU time (of this process for one worker; of the busiest worker for N, as each worker
writes it after each chunk): the CPU time of the busiest worker is the wall time the run
takes where the cores are its own. The goal: N workers in at most :data:`GOAL` of one
worker's time (asserted on the CPU ratio of the best pair, as a machine whose scheduler
shares the cores between sessions, not processes, gives one session's processes together
the share of one). Then one run on every core for each chunk size of :data:`CHUNK_SIZES`,
to show what the chunk size costs.
"""

from __future__ import annotations

import functools
import os
import resource
import time
from pathlib import Path

import pytest

from tawla.analysis import collect_files
from tawla.analysis.chunks import analyze_chunk, plan_chunks
from tawla.analysis.parallel import analyze_parallel

ARCHIVE = Path(__file__).resolve().parents[2] / "shared" / "data" / "matches"
REPEAT = 3  # the archive's 490 games three times: 1,470 games
ROUNDS = 2
GOAL = 0.6
CHUNK_SIZES = (8 * 2**10, 32 * 2**10, None, 2**20)  # None: plan_chunks' default


def timed_chunk(sources, job, *, log: str):
    """:func:`analyze_chunk`, and a line ``pid cpu_seconds`` (the worker's CPU time so far) in ``log``."""
    reports = analyze_chunk(sources, job)
    usage = resource.getrusage(resource.RUSAGE_SELF)
    with open(log, "a") as f:
        f.write(f"{os.getpid()} {usage.ru_utime + usage.ru_stime}\n")
    return reports


def _timed(paths, workers, log: Path, chunk_bytes=None):
    """(wall s, CPU s, games): CPU of this process for 1 worker, else of the busiest worker."""
    log.write_text("")
    t0, c0 = time.perf_counter(), time.process_time()
    reports = analyze_parallel(paths, evaluator_name="engine", workers=workers, chunk_bytes=chunk_bytes,
                               task=functools.partial(timed_chunk, log=str(log)))
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    if workers > 1:
        per_worker: dict[str, float] = {}
        for line in log.read_text().split("\n"):
            if line:
                pid, seconds = line.split()
                per_worker[pid] = max(per_worker.get(pid, 0.0), float(seconds))
        cpu = max(per_worker.values())
    return wall, cpu, sum(len(r.games) for r in reports)


def test_workers_speedup(benchmark, tmp_path):
    if not ARCHIVE.exists():
        pytest.skip(f"{ARCHIVE} is missing")
    paths = collect_files([ARCHIVE]) * REPEAT
    cores = os.cpu_count() or 1
    if cores < 2:
        pytest.skip("one core: nothing to share")
    chunks = plan_chunks(paths, cores)
    print(f"\n{len(paths)} files, {sum(p.stat().st_size for p in paths):,} bytes, {cores} cores, "
          f"{len(chunks)} chunks (default chunk size)")
    pairs = []
    log = tmp_path / "chunks.log"

    def rounds():
        for r in range(ROUNDS):
            one, one_cpu, games = _timed(paths, 1, log)
            many, many_cpu, games_many = _timed(paths, cores, log)
            assert games_many == games >= 1000
            pairs.append((one, many, one_cpu, many_cpu))
            print(f"round {r + 1}: 1 worker {one:.1f} s wall, {one_cpu:.1f} s CPU ({games / one:.1f} games/s); "
                  f"{cores} workers {many:.1f} s wall ({games / many:.1f} games/s, "
                  f"{games / many / cores:.1f} games/s per core), busiest worker {many_cpu:.1f} s CPU; "
                  f"wall ratio {many / one:.2f}, CPU ratio {many_cpu / one_cpu:.2f}; "
                  f"load average {os.getloadavg()[0]:.1f}", flush=True)

    benchmark.pedantic(rounds, rounds=1, iterations=1)
    for size in CHUNK_SIZES:
        n = len(plan_chunks(paths, cores, chunk_bytes=size))
        wall, cpu, games = _timed(paths, cores, log, size)
        print(f"chunk bytes {size or 'default'}: {n} chunks, {cores} workers {wall:.1f} s wall "
              f"({games / wall:.1f} games/s), busiest worker {cpu:.1f} s CPU; "
              f"load average {os.getloadavg()[0]:.1f}", flush=True)
    assert min(p[3] / p[2] for p in pairs) <= GOAL
