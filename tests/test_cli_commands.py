"""The ``tawla`` commands run as a user runs them (a subprocess; the error cases in-process):
``bench`` says what it measures; ``board`` and ``moves`` print the gnubg IDs and the XGID (the
tawla ID on other boards), and ``moves`` ranks every play with the bot's evaluation."""

import re
import subprocess
from pathlib import Path
import sys

import pytest

from tawla import Bot, MatchState, get_ruleset
from tawla.batch import fast_available
from tawla.cli import main

START = "4HPwATDgc/ABMA"  # gnubg Position ID of the backgammon opening position
START_XGID = "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10"
START_T31 = "AAAAAAAAAAAAAAAAD_AAAAAAAAAAAAAAAAAAAAAE"  # tawla ID of the tawla31 start


def tawla(*args, status=0):
    """Run ``python -m tawla.cli args`` with the tawla this interpreter imports (the installed
    one, compiled modules included); check the exit status; the (stdout, stderr)."""
    r = subprocess.run([sys.executable, "-m", "tawla.cli", *args], capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == status, r.stdout[-2000:] + r.stderr[-2000:]
    assert "Traceback" not in r.stdout + r.stderr
    return r.stdout, r.stderr


# --- the speed table (bench/speed_table.py) and tawla bench ----------------------------------
SPEED_TABLE = Path(__file__).resolve().parents[1] / "bench" / "speed_table.py"


def speed_table(*args, status=0):
    """Run ``python bench/speed_table.py args`` as a user of a clone does."""
    r = subprocess.run([sys.executable, str(SPEED_TABLE), *args], capture_output=True, text=True, timeout=300)
    assert r.returncode == status, r.stdout[-2000:] + r.stderr[-2000:]
    assert "Traceback" not in r.stdout + r.stderr
    return r.stdout, r.stderr


def test_tawla_bench_says_where_the_speed_table_is():
    out, _ = tawla("bench")
    assert "python bench/speed_table.py" in out and SPEED_TABLE.exists()


def test_bench_help_describes_the_measures():
    out, _ = speed_table("-h")
    for words in ("W1", "W2", "ns per distinct child", "games per second", "actions per CPU second",
                  "x fast", "microseconds per logged event"):
        assert words in out, words
    assert not re.search(r"target|issue", out, re.I)


@pytest.mark.skipif(not fast_available(), reason="the speed table measures nothing without the fast engine")
def test_bench_small_run_says_what_each_figure_is():
    out, _ = speed_table("--workload", "W2", "--ruleset", "tawla31", "--repeat", "1", "--ref-sample", "5",
                         "--games", "200", "--ref-games", "2", "--no-external", "--no-variants", "--match-actions", "300")
    assert not re.search(r"target|issue|NOT met", out, re.I)
    assert "workload W2: 2000 positions x 21 rolls, ruleset tawla31" in out
    assert "x fast: this row's time per child / tawla.expand's" in out
    assert "tawla.expand (fast, incl. call)" in out and "tawla reference (sample)" in out
    assert "tawla.playout (fast, C loop)" in out
    assert re.search(r"slowest match workload: [\d,]+ actions per CPU second", out)


# --- tawla board -----------------------------------------------------------------------------
def test_board_prints_the_gnubg_ids_and_the_xgid():
    out, _ = tawla("board", START)
    assert f"\nPosition ID: 4HPwATDgc/ABMA\nMatch ID   : {MatchState(jacoby=False).match_id()}\n" in out
    assert f"\n{START_XGID}\n" in out
    assert out.endswith("\ntawla ID   : AAAABQMAUAAAAAAAAiAAAAAAAAUAMFAAAAAAAAAB\n")


def test_board_xgid_carries_the_cube_and_the_score():
    out, _ = tawla("board", START, "--cube", "2", "--owner", "opponent", "--score", "2-4", "--length", "7")
    assert "\nXGID=-b----E-C---eE---c-e----B-:1:-1:1:00:2:4:0:7:10\n" in out
    out, _ = tawla("board", START, "--score", "6-3", "--length", "7", "--crawford")
    assert "\nXGID=-b----E-C---eE---c-e----B-:0:0:1:00:6:3:1:7:10\n" in out


@pytest.mark.parametrize("xgid", ["XGID=-b----E-C---eE---c-e----B-:1:-1:-1:00:4:2:0:7:10",
                                  "XGID=-b----E-C---eE---c-e----B-:2:1:1:00:0:0:1:0:10"])
def test_board_keeps_the_context_of_an_xgid(xgid, capsys):
    assert main(["board", xgid]) == 0
    assert f"\n{xgid}\n" in capsys.readouterr().out


def test_board_of_another_ruleset_prints_its_tawla_id_only():
    out, _ = tawla("board", START_T31, "--ruleset", "tawla31")
    assert out.endswith(f"\n\ntawla ID   : {START_T31}\n")
    assert "Position ID" not in out and "XGID" not in out


@pytest.mark.parametrize("args", [("--cube", "3"), ("--score", "2"), ("--crawford",), ("--score", "7-1", "--length", "7"),
                                  ("--owner", "me")])
def test_board_match_options_that_make_no_match_are_usage_errors(args, capsys):
    assert main(["board", START, *args]) == 2
    out, err = capsys.readouterr()
    assert out == "" and "Traceback" not in err
    assert err.startswith("tawla board: ConfigError: --") or err.startswith("usage:")


def test_board_match_options_on_a_board_without_an_xgid_are_usage_errors(capsys):
    assert main(["board", START_T31, "--ruleset", "tawla31", "--cube", "2"]) == 2
    assert capsys.readouterr().err.startswith("tawla board: ConfigError: --cube")


# --- tawla moves -----------------------------------------------------------------------------
PLAY = re.compile(r"^ +(\d+)\. ply(\d)  (.{28}) Eq\.: +([+-]\d+\.\d{3}) +(?:\( *([+-]\d+\.\d{3})\))? +pips +\d+")


def ranked(out):
    """(rank, ply, play, equity, diff) of every ranked play printed."""
    rows = []
    for line in out.splitlines():
        m = PLAY.match(line)
        if m:
            diff = float(m[5]) if m[5] else 0.0
            rows.append((int(m[1]), int(m[2]), m[3].strip(), float(m[4]), diff))
    return rows


def test_moves_ranks_every_play_like_gnubg_hint():
    out, _ = tawla("moves", START, "31", "--level", "ply1")
    assert "\nXGID=-b----E-C---eE---c-e----B-:0:0:1:31:0:0:0:0:10\n" in out  # the roll in the XGID
    assert "31: 16 legal plays, ranked by the ply1 bot" in out
    rows = ranked(out)
    assert [r[0] for r in rows] == list(range(1, 17))
    assert rows[0][2] == "8/5 6/5" and rows[0][4] == 0.0
    best = rows[0][3]
    for _rank, _ply, _play, eq, diff in rows[1:]:
        assert abs(diff - (eq - best)) <= 0.0015 and diff <= 0
    plies = [r[1] for r in rows]
    assert plies == sorted(plies, reverse=True) and plies[0] == 1 and plies[-1] == 0
    for ply in set(plies):
        eqs = [r[3] for r in rows if r[1] == ply]
        assert eqs == sorted(eqs, reverse=True)


def test_moves_of_another_ruleset_and_at_another_level():
    out, _ = tawla("moves", START_T31, "65", "--ruleset", "31", "--level", "ply0")
    assert f"\ntawla ID   : {START_T31}\n" in out and "XGID" not in out
    assert "65: 1 legal play, ranked by the ply0 bot" in out
    assert [r[2] for r in ranked(out)] == ["24/13"]


@pytest.mark.parametrize("ruleset, level", [("backgammon", "ply2"), ("adi", "ply1"), ("tawla31", "ply1"),
                                            ("mahbusa", "ply0")])
def test_hint_ranks_first_the_play_the_bot_chooses(ruleset, level):
    bot = Bot(ruleset, level)
    pos = get_ruleset(ruleset).initial_position()
    for dice in ((3, 1), (6, 5), (4, 4)):
        hint = bot.hint(pos, dice)
        assert len(hint) == len(pos.legal_moves(dice))
        assert hint[0].move == bot.choose(pos, dice)
        assert {h.move for h in hint} == set(pos.legal_moves(dice))
        pos = pos.play(hint[0].move)


# --- tawla moves: exit statuses ---------------------------------------------------------------
def test_cli_moves(capsys):
    assert main(["moves", "4HPwATDgc/ABMA", "31"]) == 0
    out = capsys.readouterr().out
    assert "16 legal plays" in out and "8/5 6/5" in out
    assert main(["moves", "27YBAAAAACAAAA", "54"]) == 0
    assert "turn passes" in capsys.readouterr().out
    assert main(["moves", "4HPwATDgc/ABMA", "71"]) == 2  # bad dice text is a usage error
    assert main(["moves", "garbage", "31"]) == 1
    assert main(["frobnicate"]) == 2


