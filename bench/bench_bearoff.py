"""pytest-benchmark suite of the bear-off databases (issue 6): build times.

Run: ``python -m pytest bench/bench_bearoff.py --benchmark-only -s -p no:xdist``

Targets of issue 6: one-sided 6 points x 15 checkers (54,264 positions) in < 1 s (gnubg's
makebearoff: 1.96 s); two-sided 6 x 6 (853,776 positions) in < 5 s (gnubg: 19 s). The unit
tests check the tables' values; their speed is measured here, not asserted there.
"""

from __future__ import annotations

import pytest

from tawla.native import _bearoff


@pytest.mark.benchmark(group="bearoff build")
def test_build_one_sided(benchmark):
    a, f = benchmark.pedantic(_bearoff.build_one_sided, args=(15,), rounds=3, iterations=1)
    assert a.shape[0] == 54264
    print(f"\none-sided 6x15 build: best {benchmark.stats.stats.min:.3f} s (target < 1 s; gnubg 1.96 s)")


@pytest.mark.benchmark(group="bearoff build")
def test_build_two_sided(benchmark):
    p = benchmark.pedantic(_bearoff.build_two_sided, args=(6,), rounds=3, iterations=1)
    assert p.shape == (853776,)
    print(f"\ntwo-sided 6x6 build: best {benchmark.stats.stats.min:.3f} s (target < 5 s; gnubg 19 s)")
