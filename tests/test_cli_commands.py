"""The ``tawla`` commands run as a user runs them (a subprocess): ``bench`` says what it
measures; ``board`` and ``moves`` print the gnubg IDs and the XGID (the tawla ID on other
boards), and ``moves`` ranks every play with the bot's evaluation."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tawla.batch import fast_available

ROOT = Path(__file__).resolve().parents[1]
START = "4HPwATDgc/ABMA"  # gnubg Position ID of the backgammon opening position
START_XGID = "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10"
START_T31 = "AAAAAAAAAAAAAAAAD_AAAAAAAAAAAAAAAAAAAAAA"  # tawla ID of the tawla31 start


def tawla(*args, status=0):
    """Run ``python -m tawla.cli args``; check the exit status; the (stdout, stderr)."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT / "src"), os.environ.get("PYTHONPATH", "")]))
    r = subprocess.run([sys.executable, "-m", "tawla.cli", *args], capture_output=True, text=True,
                       timeout=300, env=env)
    assert r.returncode == status, r.stdout[-2000:] + r.stderr[-2000:]
    assert "Traceback" not in r.stdout + r.stderr
    return r.stdout, r.stderr


# --- tawla bench -----------------------------------------------------------------------------
def test_bench_help_describes_the_measures():
    out, _ = tawla("bench", "-h")
    for words in ("W1", "W2", "ns per distinct child", "games per second", "actions per CPU second",
                  "x fast", "microseconds per logged event"):
        assert words in out, words
    assert not re.search(r"target|issue", out, re.I)


@pytest.mark.skipif(not fast_available(), reason="tawla bench measures nothing without the fast engine")
def test_bench_small_run_says_what_each_figure_is():
    out, _ = tawla("bench", "--workload", "W2", "--ruleset", "tawla31", "--repeat", "1", "--ref-sample", "5",
                   "--games", "200", "--ref-games", "2", "--no-external", "--no-variants", "--match-actions", "300")
    assert not re.search(r"target|issue|NOT met", out, re.I)
    assert "workload W2: 2000 positions x 21 rolls, ruleset tawla31" in out
    assert "x fast: this row's time per child / tawla.expand's" in out
    assert "tawla.expand (fast, incl. call)" in out and "tawla reference (sample)" in out
    assert "tawla.playout (fast, C loop)" in out
    assert re.search(r"slowest match workload: [\d,]+ actions per CPU second", out)
