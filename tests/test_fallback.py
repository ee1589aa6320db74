"""The package without its compiled modules: bots, bear-off databases, evaluation and a match
with timeouts for every ruleset, on the reference engine and the numpy evaluators.

The checks run in this process, in whatever environment it has, and the two launcher tests
run them again in subprocesses: with ``TAWLA_NO_NATIVE=1`` (``tawla.native`` leaves the
compiled modules unimported, as on a machine without a compiler) and with
``TAWLA_ENGINE=reference``. ``.ci/run`` also runs this file under ``TAWLA_NO_NATIVE=1``
after the main test run. The bear-off tables are built into a fresh cache directory, so
without the compiled builder the numpy one builds them.
"""

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import tawla
from tawla import native
from tawla.batch import random_positions
from tawla.evaluation import bearoff as bo
from tawla.match import Match

from test_evaluation import W1_EXPECTED

ROOT = Path(__file__).resolve().parents[1]
RULESETS = tawla.RULESET_IDS
NO_NATIVE = os.environ.get("TAWLA_NO_NATIVE", "") not in ("", "0")


@pytest.fixture(scope="module", autouse=True)
def _cache(tmp_path_factory):
    mp = pytest.MonkeyPatch()
    mp.setenv("TAWLA_CACHE", str(tmp_path_factory.mktemp("cache")))
    bo._tables.clear()
    yield
    bo._tables.clear()
    mp.undo()


class Clock:
    """A clock the test moves by hand."""

    def __init__(self, t=0.0):
        self.t = t

    def __call__(self):
        return self.t


def test_environment():
    """Under TAWLA_NO_NATIVE=1 the compiled modules are hidden for real: none is imported."""
    if NO_NATIVE:
        assert not native.available()
        assert not native.available("eval") and not native.available("bearoff")
        assert not [m for m in sys.modules if m.startswith("tawla.native._")]
    if os.environ.get("TAWLA_ENGINE", "").lower() == "reference" or NO_NATIVE:
        assert native.default_engine() == "reference"


def test_bearoff():
    d = tawla.bearoff.one_sided((0, 0, 0, 0, 0, 1))
    assert d.shape == (32,) and d[0] == pytest.approx(27 / 36) and d[1] == pytest.approx(9 / 36)
    f = tawla.bearoff.one_sided((0, 0, 0, 0, 0, 15), first_off=True)
    assert f[0] == pytest.approx(17 / 36) and f.sum() == pytest.approx(1)
    many = tawla.bearoff.one_sided_many(np.array([[0, 0, 0, 0, 0, 1], [3, 3, 3, 2, 2, 2]]))
    assert many.shape == (2, 32) and np.allclose(many.sum(1), 1)
    assert tawla.bearoff.mean_rolls((0, 0, 0, 0, 0, 1)) == pytest.approx(1.25)
    assert tawla.bearoff.two_sided((0, 0, 0, 0, 0, 1), (1, 0, 0, 0, 0, 0)) == pytest.approx(0.75)
    # one checker each on the 1 point: the side on roll is off first
    assert tawla.bearoff.two_sided((1, 0, 0, 0, 0, 0), (1, 0, 0, 0, 0, 0)) == 1.0
    v = tawla.bearoff.two_sided_many(np.array([[0, 0, 0, 0, 0, 2]] * 2), np.array([[0, 0, 0, 0, 0, 1]] * 2))
    assert v.shape == (2,) and 0 < v[0] < 1
    assert tawla.bearoff.index((6, 0, 0, 0, 0, 0)) == 923  # the last of 6 checkers
    d = tawla.bearoff.build()
    assert sorted(x.name for x in d.iterdir()) == ["bearoff1_6x15_v1.npy", "bearoff2_6x6_v1.npy"]


@pytest.mark.parametrize("rs", RULESETS)
def test_evaluate(rs):
    a = random_positions(rs, 200, seed=5, include_over=True, parallel_games=2)
    e = tawla.evaluate(a, rs)
    assert e.shape == (len(a), 6) and np.isfinite(e).all()
    assert (e[:, 1:] >= -1e-6).all() and (e[:, 1:] <= 1 + 1e-6).all()
    assert tawla.evaluation.is_race(a, rs).any()
    if rs in ("backgammon", "adi"):  # the values of the compiled evaluator, within 1e-6
        w1 = np.array([tawla.Position.from_gnubg_id(pid).to_array() for pid, _, _ in W1_EXPECTED])
        want = np.array([v for _, v, _ in W1_EXPECTED])
        if rs == "adi":
            want[:, 0] = [x for _, _, x in W1_EXPECTED]
            want[:, [3, 5]] = 0
        assert np.abs(tawla.evaluate(w1, rs, "ply0") - want).max() < 1e-6


def _race_position(r):
    """A race of this ruleset: both sides home (or past each other), a few checkers off; the
    opponent's points are given in the mover's numbering (its 1, 3, 5)."""
    if r.geometry == "same":
        return tawla.Position.from_points(r, {2: 4, 4: 5, 6: 3}, {13: 5, 15: 5, 17: 2}, off=(3, 3))
    return tawla.Position.from_points(r, {2: 4, 4: 5, 6: 3}, {24: 5, 22: 5, 20: 2}, off=(3, 3))


@pytest.mark.parametrize("rs", RULESETS)
def test_bots(rs):
    r = tawla.get_ruleset(rs)
    start = r.initial_position()
    race = _race_position(r)
    assert tawla.evaluation.is_race(race.to_array(), r)[0]
    for level in ("random", "ply0", "ply1"):
        bot = tawla.Bot(r, level, seed=3)
        for pos, dice in ((start, (6, 5)), (start, (2, 2)), (race, (4, 1))):
            m = bot.choose(pos, dice)
            assert m in pos.legal_moves(dice)
    assert tawla.Bot(r, "ply2").choose(race, (6, 2)) in race.legal_moves((6, 2))
    kids = np.array([start.play(m).to_array() for m in start.legal_moves((5, 3))])
    v = tawla.Bot(r, "ply1").values(kids)
    assert v.shape == (len(kids),) and np.isfinite(v).all()
    rows = np.repeat(start.to_array()[None], 3, 0)
    nxt, played = tawla.Bot(r, "ply0").choose_rows(rows, np.array([[6, 5], [3, 1], [4, 4]], np.uint8))
    assert played.all() and nxt.shape == rows.shape
    pre = tawla.Bot(r, "ply0").preroll(race)
    assert pre.shape == (6,) and 0 <= pre[1] <= 1
    if r.cube:
        c = tawla.Bot(r, "ply1").cube_action(race)
        assert isinstance(c, tawla.CubeAction) and 0 <= c.win <= 1


@pytest.mark.parametrize("rs", RULESETS)
def test_match_played_by_timeouts(rs):
    """A one-game match in which every roll and move is made by the timers: the moves by the
    default timeout policy, the ply0 bot."""
    c = Clock()
    m = Match(rs, tawla.get_house("international", turn_time=60), 1, rng=7, clock=c)
    for _ in range(3000):
        if m.phase == "over":
            break
        c.t = m.deadline
        m.on_timeout(m.deadline)
    assert m.phase == "over" and m.winner in (0, 1)
    timeouts = [e for e in m.events if e["type"] == "timeout"]
    assert any(e["action"] == "complete" for e in timeouts) and any(e["action"] == "roll" for e in timeouts)
    assert Match.from_json(m.to_json(), clock=c).to_json() == m.to_json()


def _run_subset(**env):
    """This file's checks (not the launchers) in a fresh interpreter with ``env`` set."""
    full = dict(os.environ, **env)
    out = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:xdist", "-p", "no:cacheprovider",
                          str(Path(__file__).resolve()), "-k", "not launch"],
                         cwd=ROOT, env=full, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stdout[-4000:] + out.stderr[-2000:]
    assert " passed" in out.stdout and "skipped" not in out.stdout and "deselected" in out.stdout


def test_launch_without_native():
    _run_subset(TAWLA_NO_NATIVE="1")


def test_launch_with_the_reference_engine():
    _run_subset(TAWLA_ENGINE="reference")
