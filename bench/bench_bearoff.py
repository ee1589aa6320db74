"""pytest-benchmark suite of the bear-off databases: build times of the compiled builder and of
its numpy twin (the one used without the compiled modules).

Run: ``python -m pytest bench/bench_bearoff.py --benchmark-only -s -p no:xdist``

Targets: the compiled one-sided 6 points x 15 checkers (54,264 positions) in < 1 s (gnubg's
makebearoff: 1.96 s) and two-sided 6 x 6 (853,776 positions) in < 5 s (gnubg: 19 s); the
numpy builders, both tables together, in < 60 s on the 2-core development machine. The unit
tests check the tables' values; their speed is measured here, not asserted there.
"""

from __future__ import annotations

import time

import pytest

from tawla import native
from tawla.evaluation import bearoff_build

BUILDERS = {"compiled": native if native.available("bearoff") else None, "numpy": bearoff_build}
TARGET_S = {("compiled", "one"): 1.0, ("compiled", "two"): 5.0, ("numpy", "one"): 60.0, ("numpy", "two"): 60.0}


def _builder(name):
    b = BUILDERS[name]
    if b is None:
        pytest.skip("the compiled builder is not built (or hidden)")
    return b


def _run(cpu: list, f, *args):
    """``f(*args)``, appending to ``cpu`` the CPU seconds it took (the machine's other load
    does not count)."""
    t = time.process_time()
    out = f(*args)
    cpu.append(time.process_time() - t)
    return out


@pytest.mark.benchmark(group="bearoff build")
@pytest.mark.parametrize("name", list(BUILDERS))
def test_build_one_sided(benchmark, name):
    b = _builder(name)
    cpu = []
    a, f = benchmark.pedantic(_run, args=(cpu, b.build_one_sided, 15), rounds=3 if name == "compiled" else 1,
                              iterations=1)
    assert a.shape == (54264, 33)
    print(f"\n{name} one-sided 6x15 build: best {benchmark.stats.stats.min:.3f} s wall, "
          f"{min(cpu):.3f} s CPU (target < {TARGET_S[name, 'one']:g} s; gnubg 1.96 s)")


@pytest.mark.benchmark(group="bearoff build")
@pytest.mark.parametrize("name", list(BUILDERS))
def test_build_two_sided(benchmark, name):
    b = _builder(name)
    cpu = []
    p = benchmark.pedantic(_run, args=(cpu, b.build_two_sided, 6), rounds=3 if name == "compiled" else 1,
                           iterations=1)
    assert p.shape == (853776,)
    print(f"\n{name} two-sided 6x6 build: best {benchmark.stats.stats.min:.3f} s wall, "
          f"{min(cpu):.3f} s CPU (target < {TARGET_S[name, 'two']:g} s; gnubg 19 s)")
