"""The ``tawla`` command: what each command prints, and its edge, where every error becomes one
line on stderr (``tawla <command>: <ClassName>: <message>``) and an exit status: 1 bad data,
2 usage."""

import os
import re
import subprocess
import sys
import tomllib
from importlib import import_module
from pathlib import Path

import pytest
import speed_table  # bench/, on the path by conftest

import tawla
from tawla import errors
from tawla.batch import fast_available
from tawla.cli import EXIT_BAD_DATA, EXIT_USAGE, board, exit_status, main
from tawla.cli.arguments import parse_dice

ROOT = Path(__file__).resolve().parents[1]
START = "4HPwATDgc/ABMA"  # gnubg Position ID of the backgammon opening position
START_XGID = "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10"
START_T31 = "AAAAAAAAAAAAAAAAD_AAAAAAAAAAAAAAAAAAAAAE"  # tawla ID of the tawla31 start: 15 on point 24
GOOD_RECORD = " 1 point match\n\n Game 1\n A : 0      B : 0\n  1) 31: 8/5 6/5     42: 8/4 6/4\n"
ILLEGAL_RECORD = " 1 point match\n\n Game 1\n A : 0      B : 0\n  1) 31: 8/5 6/5     42: 8/4 6/1\n"


def fails(capsys, argv, status, error):
    """Run ``tawla argv`` in-process; check the status and the one stderr line naming ``error``."""
    rc = main(argv)
    out, err = capsys.readouterr()
    assert rc == status, err
    assert "Traceback" not in out + err
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith(f"tawla {argv[0]}: {error}: "), lines[0]
    return out, lines[0]


def usage_error(capsys, argv):
    """An error of argparse itself: status 2, its usage and one ``error:`` line, no traceback."""
    rc = main(argv)
    out, err = capsys.readouterr()
    assert rc == EXIT_USAGE
    assert "Traceback" not in out + err
    assert err.splitlines()[0].startswith("usage: tawla")
    assert err.splitlines()[-1].startswith("tawla") and ": error: " in err.splitlines()[-1]
    return err


# --- the exit status of each error class -----------------------------------------------------
@pytest.mark.parametrize("cls, status", [
    (errors.ConfigError, 2), (errors.UnsupportedRuleset, 2), (errors.InvalidDice, 2),
    (errors.InvalidId, 1), (errors.InvalidPosition, 1), (errors.IllegalMove, 1), (errors.AmbiguousMove, 1),
    (errors.FormatError, 1), (errors.NotYourTurn, 1), (errors.InvalidAction, 1), (errors.TawlaError, 1),
    (FileNotFoundError, 1), (PermissionError, 1),
])
def test_exit_status_of_each_error_class(cls, status):
    assert exit_status(cls("x")) == status


def test_a_message_over_several_lines_is_printed_on_one(capsys, monkeypatch):
    def broken(args):
        raise errors.InvalidPosition("the side on roll has 16 checkers\n  on point 6\n")

    monkeypatch.setattr(board, "run", broken)
    _, line = fails(capsys, ["board", START], 1, "InvalidPosition")
    assert line == "tawla board: InvalidPosition: the side on roll has 16 checkers on point 6"


# --- tawla moves -----------------------------------------------------------------------------
def test_moves_lists_the_legal_plays(capsys):
    assert main(["moves", START, "31", "--no-eval"]) == 0
    out = capsys.readouterr().out
    assert "31: 16 legal plays\n" in out
    assert "  11. 8/5 6/5                      pips 163  sGfwATDgc/ABMA" in out
    assert main(["moves", START, "31", "--level", "ply1"]) == 0
    out = capsys.readouterr().out
    assert "31: 16 legal plays, ranked by the ply1 bot" in out
    assert re.search(r"\n   1\. ply1  8/5 6/5 +Eq\.: +\+0\.\d{3} +pips 163  sGfwATDgc/ABMA\n", out)
    assert main(["moves", START, "31"]) == 0  # the network by default, and named
    out = capsys.readouterr().out
    assert "31: 16 legal plays, ranked by the net0 bot" in out
    assert "\nevaluator net0: the backgammon network (backgammon.npz, sha256 " in out
    assert re.search(r"\n   1\. ply0  8/5 6/5 +Eq\.: +\+0\.\d{3} +pips 163  sGfwATDgc/ABMA\n", out)


@pytest.mark.parametrize("text", ["3-1", "3,1", "3/1", "3 1", " 31 "])
def test_moves_reads_the_dice_written_several_ways(capsys, text):
    assert main(["moves", START, "31"]) == 0
    plain = capsys.readouterr().out
    assert main(["moves", START, text]) == 0
    assert capsys.readouterr().out == plain


def test_moves_by_xgid_and_tawla_id(capsys):
    assert main(["moves", START]) == EXIT_USAGE  # argparse: DICE missing
    capsys.readouterr()
    assert main(["moves", START, "31"]) == 0
    by_gnubg = capsys.readouterr().out
    assert main(["moves", START_XGID, "31"]) == 0
    assert capsys.readouterr().out == by_gnubg
    assert main(["moves", START_T31, "65", "--ruleset", "31"]) == 0
    assert "65: 1 legal play, ranked" in capsys.readouterr().out


@pytest.mark.parametrize("dice", ["79", "71", "00", "²³", "", "3", "313", "3x1", "three one"])
def test_moves_bad_dice_text_is_a_usage_error(capsys, dice):
    _, line = fails(capsys, ["moves", START, dice], 2, "InvalidDice")
    assert repr(dice) in line


@pytest.mark.parametrize("position, error", [
    ("4HPwATDgc/ABM!", "InvalidId"),                      # gnubg ID, bad character
    ("XGID=garbage", "InvalidId"),                        # XGID, too few fields
    ("XGID=-a-B--E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10", "InvalidId"),  # XGID, 17 checkers
    ("XGID=-b----E-C---eE---c-e----B-:0:0:1:77:0:0:0:0:10", "InvalidId"),  # XGID, dice 77
    ("A" * 39 + "!", "InvalidId"),                        # tawla ID, bad character
    ("A" * 39 + "B", "InvalidPosition"),                  # tawla ID of an empty backgammon board
    ("A" * 40, "InvalidArgument"),                        # an ID that names no ruleset, none given
    ("A" * 39 + "H", "InvalidId"),                        # a ruleset byte no ruleset writes
    ("garbage", "InvalidId"),                             # none of the three
])
def test_moves_bad_position_is_bad_data(capsys, position, error):
    fails(capsys, ["moves", position, "31"], 1, error)


def test_moves_unknown_ruleset_is_a_usage_error(capsys):
    _, line = fails(capsys, ["moves", START, "31", "--ruleset", "chess"], 2, "UnsupportedRuleset")
    assert "'chess'" in line


def test_moves_gnubg_id_for_a_ruleset_without_hitting_is_a_usage_error(capsys):
    fails(capsys, ["moves", START, "31", "--ruleset", "mahbusa"], 2, "UnsupportedRuleset")
    fails(capsys, ["moves", START_XGID, "31", "--ruleset", "tawla31"], 2, "UnsupportedRuleset")


# --- tawla board -----------------------------------------------------------------------------
def test_board_prints_the_diagram_and_the_id(capsys):
    assert main(["board", START_T31, "--ruleset", "tawla31"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("tawla31: X on roll, O opponent")
    assert "15X" in out and "pips X 360 O 360" in out
    assert out.endswith(f"\ntawla ID   : {START_T31}\n")


@pytest.mark.parametrize("position, error", [
    ("4HPwATDgc/ABM!", "InvalidId"), ("XGID=garbage", "InvalidId"), ("A" * 39 + "!", "InvalidId"),
    ("A" * 39 + "B", "InvalidPosition"), ("", "InvalidId"),
])
def test_board_bad_position_is_bad_data(capsys, position, error):
    fails(capsys, ["board", position], 1, error)


def test_a_tawla_id_names_its_ruleset(capsys):
    """Given to any command without --ruleset, an ID lands on its own ruleset; another ruleset
    is refused; an ID written before IDs named theirs still loads with --ruleset."""
    assert main(["board", START_T31]) == 0
    assert capsys.readouterr().out.startswith("tawla31: X on roll")
    fails(capsys, ["board", START_T31, "--ruleset", "backgammon"], 1, "InvalidArgument")
    old = START_T31[:-1] + "A"
    assert main(["board", old, "--ruleset", "tawla31"]) == 0
    assert capsys.readouterr().out.endswith(f"\ntawla ID   : {START_T31}\n")
    fails(capsys, ["board", old], 1, "InvalidArgument")


def test_board_unknown_ruleset_is_a_usage_error(capsys):
    fails(capsys, ["board", START, "--ruleset", "chess"], 2, "UnsupportedRuleset")
    fails(capsys, ["board", START, "--ruleset", "mahbusa"], 2, "UnsupportedRuleset")


# --- tawla analyze ---------------------------------------------------------------------------
def test_analyze_a_clean_record(capsys, tmp_path):
    good = tmp_path / "good.mat"
    good.write_text(GOOD_RECORD)
    assert main(["analyze", "--no-progress", "--no-eval", str(good)]) == 0
    out, err = capsys.readouterr()
    assert "1 file, 1 game (1 replayed clean, 0 with illegal plays)" in out
    assert err == ""


def test_analyze_an_illegal_record_is_bad_data(capsys, tmp_path):
    bad = tmp_path / "bad.mat"
    bad.write_text(ILLEGAL_RECORD)
    out, line = fails(capsys, ["analyze", "--no-progress", "--no-eval", str(bad)], 1, "FormatError")
    assert "1 of 1 files did not replay clean" in line and str(bad) in line
    report = " ".join(out.split())  # rich wraps long lines
    assert "illegal: file" in report and "game 1, move 1: '8/4 6/1' is not a legal move" in report


def test_analyze_unreadable_and_corrupt_files_are_bad_data(capsys, tmp_path):
    (tmp_path / "good.mat").write_text(GOOD_RECORD)
    os.mkfifo(tmp_path / "pipe.mat")  # not a regular file: never read
    (tmp_path / "binary.sgf").write_bytes(b"\x00\xff\xfe(;\x01")
    out, line = fails(capsys, ["analyze", "--no-progress", "--no-eval", str(tmp_path / "*.*")], 1, "FormatError")
    assert "2 of 3 files did not replay clean" in line
    assert "pipe.mat" in line and "binary.sgf" in line and "good.mat" not in line
    assert "unreadable" in out


def test_analyze_a_path_that_names_nothing_is_a_usage_error(capsys, tmp_path):
    fails(capsys, ["analyze", str(tmp_path / "nope.mat")], 2, "ConfigError")
    fails(capsys, ["analyze", str(tmp_path / "*.sgf")], 2, "ConfigError")
    fails(capsys, ["analyze", ""], 2, "ConfigError")
    (tmp_path / "empty").mkdir()
    _, line = fails(capsys, ["analyze", str(tmp_path / "empty")], 2, "ConfigError")
    assert "no match records" in line


def test_analyze_unknown_ruleset_is_a_usage_error(capsys, tmp_path):
    good = tmp_path / "good.mat"
    good.write_text(GOOD_RECORD)
    out, _ = fails(capsys, ["analyze", "--ruleset", "chess", str(good)], 2, "UnsupportedRuleset")
    assert out == ""  # refused before any file is read


def test_analyze_bad_option_is_argparse_usage_error(capsys):
    assert "--worst" in usage_error(capsys, ["analyze", "--worst", "-5"])
    assert "--worst" in usage_error(capsys, ["analyze", "--worst", "many"])


# --- tawla selfplay --------------------------------------------------------------------------
def test_selfplay_writes_the_record(capsys, tmp_path):
    out_file = tmp_path / "games.mat"
    assert main(["selfplay", "--ruleset", "adi", "--games", "2", "--seed", "3", "-o", str(out_file)]) == 0
    out, err = capsys.readouterr()
    assert out == "" and err == f"wrote 2 games to {out_file}\n"
    assert main(["selfplay", "--ruleset", "adi", "--games", "2", "--seed", "3"]) == 0
    assert capsys.readouterr().out == out_file.read_text(encoding="utf-8")
    assert "Variation" in out_file.read_text(encoding="utf-8")


@pytest.mark.parametrize("argv", [["--games", "0"], ["--length", "-1"], ["--games", "x"],
                                  ["--games", "1", "--length", "3"], ["--seed", "one"]])
def test_selfplay_bad_options_are_argparse_usage_errors(capsys, argv):
    usage_error(capsys, ["selfplay", *argv])


def test_selfplay_unknown_ruleset_or_policy_is_a_usage_error(capsys):
    fails(capsys, ["selfplay", "--ruleset", "chess", "--games", "1"], 2, "UnsupportedRuleset")
    _, line = fails(capsys, ["selfplay", "--games", "1", "--policy", "nonsense"], 2, "ConfigError")
    assert "'nonsense'" in line


def test_selfplay_output_that_cannot_be_written_is_bad_data(capsys, tmp_path):
    fails(capsys, ["selfplay", "--games", "1", "-o", str(tmp_path / "no" / "such" / "dir.mat")], 1,
          "FileNotFoundError")
    fails(capsys, ["selfplay", "--games", "1", "-o", str(tmp_path)], 1, "IsADirectoryError")


# --- the speed table (bench/speed_table.py) ---------------------------------------------------
def test_speed_table_help_and_bad_options(capsys):
    with pytest.raises(SystemExit) as e:
        speed_table.main(["-h"])
    assert e.value.code == 0 and capsys.readouterr().out.startswith("usage: python bench/speed_table.py")
    for bad in (["--bogus"], ["--workload", "W3"]):
        with pytest.raises(SystemExit) as e:
            speed_table.main(bad)
        assert e.value.code == 2 and bad[0] in capsys.readouterr().err


def test_speed_table_unknown_ruleset():
    with pytest.raises(tawla.errors.UnsupportedRuleset):
        speed_table.main(["--ruleset", "chess"])


@pytest.mark.skipif(not fast_available(), reason="the speed table measures nothing without the fast engine")
def test_speed_table_w1_on_a_board_without_hitting():
    with pytest.raises(tawla.errors.ConfigError, match="W1 is a backgammon workload"):
        speed_table.main(["--ruleset", "mahbusa", "--no-external"])


# --- the parser and the entry point ----------------------------------------------------------
def test_unknown_or_missing_command_is_argparse_usage_error(capsys):
    usage_error(capsys, ["frobnicate"])
    usage_error(capsys, [])


def test_help_says_what_each_command_does(capsys):
    assert main(["--help"]) == 0
    top = capsys.readouterr().out
    for command, words in [("moves", "legal plays"), ("board", "board of a position"),
                           ("analyze", "analyse match records"), ("selfplay", "plays itself"),
                           ("bench", "speed table is")]:
        assert any(line.split()[:1] == [command] and words in line for line in top.splitlines()), command
    assert "Exit status" in top
    for command, words in [("moves", "every legal play"), ("board", "diagram"), ("analyze", "Replay every game"),
                           ("selfplay", "Jellyfish .mat")]:
        assert main([command, "--help"]) == 0
        assert words in " ".join(capsys.readouterr().out.split()), command


def test_console_script_names_main():
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["scripts"]
    module, _, name = scripts["tawla"].partition(":")
    assert getattr(import_module(module), name) is main


def test_python_m_tawla_cli_runs_the_command():
    # the subprocess imports the same tawla as this process (installed, or src/ on PYTHONPATH)
    here = str(Path(tawla.__file__).resolve().parents[1])
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [here, os.environ.get("PYTHONPATH")])))
    ok = subprocess.run([sys.executable, "-m", "tawla.cli", "moves", START, "3-1"], capture_output=True,
                        text=True, timeout=120, env=env)
    assert ok.returncode == 0, ok.stderr
    assert "31: 16 legal plays" in ok.stdout and ok.stderr == ""
    bad = subprocess.run([sys.executable, "-m", "tawla.cli", "moves", START, "79"], capture_output=True,
                         text=True, timeout=120, env=env)
    assert bad.returncode == 2 and bad.stdout == ""
    assert bad.stderr == "tawla moves: InvalidDice: dice must be two digits 1..6 such as 31 or 3-1, not '79'\n"


def test_parse_dice_keeps_the_order_written():
    assert parse_dice("3-1") == (3, 1) and parse_dice("13") == (1, 3) and parse_dice("66") == (6, 6)
