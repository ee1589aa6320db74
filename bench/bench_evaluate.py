"""Benchmark of ``tawla evaluate``: peak memory for 10^4 and 10^6 positions, and throughput.

Run::

    PYTHONPATH=src python -m pytest -p no:xdist bench/bench_evaluate.py --benchmark-only -s

The inputs are positions met in random games (:func:`tawla.batch.random_positions`, the
fast engine's playouts): :data:`DISTINCT` of them, written as gnubg Position IDs one a line
and as a ``.npy`` of packed rows, the 10^6 files being the same positions repeated (the
memory of the run does not depend on which positions they are). Each file is evaluated to
CSV by the command in a fresh interpreter (``python -m tawla evaluate FILE -o OUT.csv
--workers 1``), started by a small wrapper process that prints the peak resident set of its
children (``getrusage(RUSAGE_CHILDREN).ru_maxrss``) and their CPU time. The goal: the peak
RSS for 10^6 positions within :data:`GOAL` times that for 10^4.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

import tawla
from tawla.batch import random_positions

DISTINCT = 10_000
SIZES = (10_000, 1_000_000)
GOAL = 1.5
SRC = Path(__file__).resolve().parents[1] / "src"

WRAPPER = """
import json, resource, subprocess, sys, time
t = time.perf_counter()
code = subprocess.run(sys.argv[1:]).returncode
u = resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps({"code": code, "wall": time.perf_counter() - t, "cpu": u.ru_utime + u.ru_stime,
                  "peak_kib": u.ru_maxrss}))
"""


def _inputs(folder: Path) -> dict:
    rows = random_positions("backgammon", DISTINCT, seed=16)
    r = tawla.get_ruleset("backgammon")
    ids = "\n".join(tawla.Position(bytes(row), r).gnubg_id() for row in rows) + "\n"
    files = {}
    for n in SIZES:
        text = folder / f"ids_{n}.txt"
        with open(text, "w") as f:
            for _ in range(n // DISTINCT):
                f.write(ids)
        npy = folder / f"rows_{n}.npy"
        np.save(npy, np.tile(rows, (n // DISTINCT, 1)))
        files[n] = (text, npy)
    return files


def _measure(path: Path, out: Path, *extra: str) -> dict:
    cmd = [sys.executable, "-c", WRAPPER, sys.executable, "-m", "tawla", "evaluate", str(path), "-o", str(out),
           "--workers", "1", *extra]
    env = dict(os.environ, PYTHONPATH=str(SRC))
    r = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=3600)
    return json.loads(r.stdout.strip().splitlines()[-1])


def test_memory_stays_flat(benchmark, tmp_path):
    files = _inputs(tmp_path)
    peaks: dict = {}

    def runs():
        for kind, index in (("gnubg IDs", 0), (".npy rows", 1)):
            for n in SIZES:
                t0 = time.perf_counter()
                m = _measure(files[n][index], tmp_path / "out.csv")
                assert m["code"] == 0
                lines = sum(1 for _ in open(tmp_path / "out.csv")) - 1
                assert lines == n
                peaks[kind, n] = m["peak_kib"]
                print(f"{kind:10s} {n:>9,} positions: peak RSS {m['peak_kib'] / 1024:.1f} MiB, "
                      f"{m['wall']:.1f} s wall, {m['cpu']:.1f} s CPU, {n / m['cpu']:,.0f} positions/s of CPU "
                      f"({n / (time.perf_counter() - t0):,.0f}/s wall); load average {os.getloadavg()[0]:.1f}",
                      flush=True)

    benchmark.pedantic(runs, rounds=1, iterations=1)
    for kind in ("gnubg IDs", ".npy rows"):
        ratio = peaks[kind, SIZES[1]] / peaks[kind, SIZES[0]]
        print(f"{kind}: peak RSS ratio 10^6 / 10^4 = {ratio:.2f}")
        assert ratio <= GOAL
