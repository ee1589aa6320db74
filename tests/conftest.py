"""Shared fixtures: the data in ../shared (skipped with a reason outside CI, a failure under CI)."""

import os
import sys
from pathlib import Path

import pytest

# The benchmark helpers (workloads, the oracles' adapters, the speed table) live in bench/, out of
# the package; the tests use them from there.
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
# The tests' own helpers (a match clock, a served process, a browser, the property oracle).
sys.path.insert(0, str(Path(__file__).resolve().parent / "helpers"))

import tawla.batch

SHARED = Path(__file__).resolve().parents[2] / "shared"
IN_CI = os.environ.get("CI", "").lower() == "true"


def shared_path(*parts) -> Path:
    """A path under ../shared; skips the test (or fails it under CI=true) when absent."""
    p = SHARED.joinpath(*parts)
    if not p.exists():
        msg = f"{p} is missing (the shared data folder beside the repository)"
        if IN_CI:
            pytest.fail(msg + "; under CI a missing file is a failure")
        pytest.skip(msg)
    return p


def require_module(name: str):
    """Import an oracle module; skip without it locally, fail under CI."""
    try:
        return __import__(name)
    except ImportError as e:
        if IN_CI:
            pytest.fail(f"{name} is required under CI: {e}")
        pytest.skip(f"{name} is not installed: {e}")


def position_ids():
    """The 2000 gnubg Position IDs of ../shared/data/positions (contact then race)."""
    folder = shared_path("data", "positions")
    ids = []
    for f in sorted(folder.glob("*.pid")):
        ids += [line.strip() for line in f.read_text().splitlines() if line.strip()]
    return ids


@pytest.fixture(params=["reference"] + (["fast"] if tawla.batch.fast_available() else []))
def each_engine(request):
    """Run a test on the reference engine, and again on the compiled one where it is built."""
    old = tawla.native.backend.set_default_engine(request.param)
    assert tawla.batch.default_engine() == request.param
    yield request.param
    tawla.native.backend.set_default_engine(old)


# The longest tests (tens of seconds to two minutes each on one core), run first: with two
# workers, a long test that starts last leaves the other worker idle until it ends.
LONGEST_FIRST = (
    "test_properties.py::test_random_playouts[",
    "test_fast_engine.py::test_fast_matches_reference_on_playouts[",
    "test_oracles.py::",
    "test_typing.py::",
    "test_match_stateful.py::",
    "test_service_restart.py::",
    "test_service_browser.py::",
)


def pytest_collection_modifyitems(config, items):
    """Order the collected tests longest first (stable otherwise): see :data:`LONGEST_FIRST`."""
    def rank(item) -> int:
        nodeid = item.nodeid.split("tests/", 1)[-1]
        return next((i for i, prefix in enumerate(LONGEST_FIRST) if nodeid.startswith(prefix)),
                    len(LONGEST_FIRST))
    items.sort(key=rank)
