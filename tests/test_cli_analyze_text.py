"""``tawla analyze`` as a new user sees it: run as a subprocess, output not a terminal."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"
SAMPLE = SRC / "tawla" / "data" / "sample_backgammon.mat"


def analyze(*args, cwd=None):
    env = dict(os.environ, PYTHONPATH=str(SRC))
    env.pop("COLUMNS", None)
    return subprocess.run([sys.executable, "-m", "tawla.cli", "analyze", *map(str, args)],
                          capture_output=True, text=True, env=env, cwd=cwd, timeout=120)


def unreadable(tmp_path) -> Path:
    bad = tmp_path / "garbage.mat"
    bad.write_text("this is not a match record\n")
    return bad


def test_progress_off_a_terminal_prints_lines(tmp_path):
    r = analyze("--progress", "--no-eval", SAMPLE)
    assert r.returncode == 0, r.stderr
    assert "analysed 1/1 files, 2 games" in r.stderr


def test_no_progress_off_a_terminal_by_default():
    r = analyze("--no-eval", SAMPLE)
    assert r.returncode == 0, r.stderr
    assert "analysed" not in r.stderr


def test_unknown_ruleset_is_a_usage_error():
    r = analyze("--ruleset", "nosuch", SAMPLE)
    assert r.returncode == 2
    assert "unreadable" not in r.stdout + r.stderr
    assert "nosuch" in r.stderr


def test_no_eval_prints_no_evaluation():
    r = analyze("--no-eval", SAMPLE)
    assert r.returncode == 0, r.stderr
    for text in ("best", "mean loss", "equity loss", "worst", "Evaluator"):
        assert text not in r.stdout, text
    assert "forced" in r.stdout


def test_evaluated_report_keeps_its_columns():
    r = analyze("--heuristic", "--worst", "1", SAMPLE)
    assert r.returncode == 0, r.stderr
    assert "mean loss" in r.stdout and "mean equity loss" in r.stdout


def test_notes_name_players_by_record_names(tmp_path):
    text = SAMPLE.read_text().replace("                                  Wins 2 points", "      Wins 2 points")
    rec = tmp_path / "left_wins.mat"
    rec.write_text(text)
    r = analyze("--no-eval", rec)
    assert "recorded winner is tawla A, the board says tawla B" in r.stdout
    assert "player 1" not in r.stdout and "player 2" not in r.stdout


def test_long_path_is_not_wrapped(tmp_path):
    deep = tmp_path / ("a_long_folder_name_" * 4) / ("another_long_folder_" * 4)
    deep.mkdir(parents=True)
    rec = deep / "left_wins_with_a_long_name.mat"
    rec.write_text(SAMPLE.read_text().replace("                                  Wins 2 points", "      Wins 2 points"))
    bad = deep / "garbage_with_a_long_name.mat"
    bad.write_text("not a record\n")
    r = analyze("--no-eval", deep)
    assert len(str(bad)) > 120
    lines = r.stdout.splitlines()
    assert any(str(rec) in line for line in lines)
    assert any(str(bad) in line and "unreadable" in line for line in lines)


def test_summary_counts_unreadable_files_and_plurals(tmp_path):
    bad = unreadable(tmp_path)
    r = analyze("--no-eval", SAMPLE, bad)
    assert r.returncode == 1
    last = r.stdout.strip().splitlines()[-1]
    assert last.startswith("2 files (1 unreadable), 2 games (")
    j = json.loads(analyze("--no-eval", "--json", SAMPLE, bad).stdout)
    assert j["summary"]["files"] == 2 and j["summary"]["unreadable_files"] == 1
    single = tmp_path / "first_game.mat"  # the sample's first game alone
    single.write_text(SAMPLE.read_text().split("\n Game 2\n")[0] + "\n")
    one = analyze("--no-eval", single).stdout.strip().splitlines()[-1]
    assert one.startswith("1 file, 1 game (")
    assert "(backgammon, 3-point match, 1 game)" in analyze("--no-eval", single).stdout


def test_unreadable_heading_says_why(tmp_path):
    bad = unreadable(tmp_path)
    r = analyze("--no-eval", bad)
    assert r.returncode == 1
    assert "money session, 0 games" not in r.stdout
    assert "(?," not in r.stdout
    line = next(line for line in r.stdout.splitlines() if str(bad) in line)
    assert "unreadable" in line and "not a match record" in line
