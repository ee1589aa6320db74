"""Hostile input raises a tawla.errors class with a short message, and changes nothing."""

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import tawla
from tawla import bearoff
from tawla.analysis import collect_files
from tawla.cli.arguments import parse_dice
from tawla.errors import (ConfigError, FormatError, IllegalMove, InvalidArgument, InvalidDice, InvalidId,
                          InvalidPosition, TawlaError, UnsupportedRuleset)
from tawla.formats.matfile import parse_match

SRC = Path(tawla.__file__).resolve().parent.parent
SAMPLE = (SRC / "tawla" / "data" / "sample_backgammon.mat").read_text()
BIG = "9" * 5000
XGID = "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10"
PID = "4HPwATDgc/ABMA"
MAX_MESSAGE = 300  # ~100 characters of quoted input plus the sentence around them


def _short(excinfo):
    assert len(str(excinfo.value)) < MAX_MESSAGE, str(excinfo.value)[:MAX_MESSAGE]


# 1. numbers past Python's int-string limit ---------------------------------------------------
@pytest.mark.parametrize("old, new", [
    (" 3 point match", f" {BIG} point match"),
    (" tawla A : 0 ", f" tawla A : {BIG} "),
    (" Game 1", f" Game {BIG}"),
    ("  1)  ", f"  {BIG})  "),
])
def test_mat_huge_numbers_are_format_errors(old, new):
    with pytest.raises(FormatError) as e:
        parse_match(SAMPLE.replace(old, new, 1))
    _short(e)


@pytest.mark.parametrize("field", [1, 8])
def test_xgid_huge_numbers_are_invalid_id(field):
    parts = XGID.split(":")
    parts[field] = BIG
    with pytest.raises(InvalidId) as e:
        tawla.Position.from_xgid(":".join(parts))
    _short(e)


def test_cli_dice_text_is_invalid_dice():
    for text in ("²³", BIG):
        with pytest.raises(InvalidDice) as e:
            parse_dice(text)
        _short(e)


# 2. ID decoders quote at most ~100 characters -------------------------------------------------
@pytest.mark.parametrize("decode", [
    lambda t: tawla.Position.from_gnubg_id(t),
    lambda t: tawla.MatchState.from_match_id(t),
    lambda t: tawla.Position.from_xgid("XGID=" + t),
    lambda t: tawla.Position.from_id(t, "backgammon"),
], ids=["position-id", "match-id", "xgid", "tawla-id"])
def test_id_decoders_cap_the_quoted_input(decode):
    with pytest.raises(InvalidId) as e:
        decode("A" * 1_000_000)
    _short(e)


# 3. playout arguments ------------------------------------------------------------------------
@pytest.mark.parametrize("play", [tawla.playout, tawla.batch.playout])
@pytest.mark.parametrize("kwargs", [dict(n_games=1, max_turns=2**70), dict(n_games=-1)])
def test_playout_out_of_range_is_invalid_argument(play, kwargs):
    with pytest.raises(InvalidArgument):
        play("backgammon", **kwargs)


# 4. bear-off lookups ----------------------------------------------------------------------------
@pytest.mark.parametrize("points", [[2**63 - 1] * 6, [-1, 0, 0, 0, 0, 0], [1e300, 0, 0, 0, 0, 0]])
@pytest.mark.parametrize("lookup", [bearoff.one_sided, bearoff.mean_rolls, bearoff.index,
                                    lambda p: bearoff.two_sided(p, [1, 0, 0, 0, 0, 0])],
                         ids=["one_sided", "mean_rolls", "index", "two_sided"])
def test_bearoff_bad_counts_are_invalid_position(points, lookup):
    with pytest.raises(InvalidPosition):
        lookup(points)


# 5. bot and match configuration --------------------------------------------------------------
def test_adi_cube_action_is_unsupported():
    with pytest.raises(UnsupportedRuleset):
        tawla.Bot("adi").cube_action(tawla.get_ruleset("adi").initial_position())


@pytest.mark.parametrize("kwargs", [dict(rng=-1), dict(rng=1, players="ab"), dict(rng=1, players=(1, 2))])
def test_match_bad_config_is_config_error(kwargs):
    with pytest.raises(ConfigError):
        tawla.Match("bg", **kwargs)


# 6. wrong types -------------------------------------------------------------------------------
def _started_match():
    m = tawla.Match("bg", "international", 5, rng=1)
    return m, m.legal_steps()[0]


def test_wrong_types_raise_tawla_errors():
    pos = tawla.get_ruleset("backgammon").initial_position()
    with pytest.raises(InvalidPosition):
        tawla.Bot("backgammon").choose("text", (3, 1))
    with pytest.raises(InvalidPosition):
        tawla.parse_move("13/10 24/23", None, (3, 1))
    rows = tawla.positions_to_array([pos])
    for dice in (np.array([["a", "b"]]), np.array([[3, 1]], dtype=object)):
        with pytest.raises(InvalidDice):
            tawla.expand(rows, dice, ruleset="backgammon")
    m, step = _started_match()
    before = m.to_json()
    with pytest.raises(IllegalMove):
        m.step(m.turn, step[0], step[1], dice=5.0)
    assert m.to_json() == before
    doc = json.loads(before)
    for bad in ({k: v for k, v in doc.items() if k != "events"}, {**doc, "events": None},
                {**doc, "events": [5]}, {**doc, "events": [{"type": "step"}]}):
        with pytest.raises(FormatError):
            tawla.Match.replay(bad)


# 7. accepted silently before ------------------------------------------------------------------
def test_negative_mat_score_is_format_error():
    with pytest.raises(FormatError):
        parse_match(SAMPLE.replace(" tawla A : 0      ", " tawla A : -5     ", 1))


@pytest.mark.parametrize("flag", ["crawford", "jacoby", "double_offered"])
def test_match_state_flags_must_be_bools(flag):
    with pytest.raises(InvalidId):
        tawla.MatchState(match_length=5, **{flag: "no"})
    assert getattr(tawla.MatchState(match_length=5, **{flag: np.bool_(True)}), flag) is True


# 8. the CLI: one line, the class, the exit status, no traceback ----------------------------------
@pytest.mark.parametrize("args, status, cls", [
    (["moves", PID, "²³"], 2, "InvalidDice"),
    (["moves", PID, BIG], 2, "InvalidDice"),
    (["moves", XGID, "31", "--ruleset", "tawla31"], 2, "UnsupportedRuleset"),
    (["moves", XGID.replace(":0:10", f":{BIG}:10"), "31"], 1, "InvalidId"),
    (["moves", "A" * 100_000, "31"], 1, "InvalidId"),
])
def test_cli_hostile_input(args, status, cls):
    env = dict(os.environ, PYTHONPATH=str(SRC))
    p = subprocess.run([sys.executable, "-m", "tawla.cli", *args], capture_output=True, text=True,
                       env=env, timeout=60)
    assert p.returncode == status, p.stderr[-2000:]
    lines = p.stderr.splitlines()
    assert len(lines) == 1 and "Traceback" not in p.stderr, p.stderr[-2000:]
    assert f": {cls}: " in lines[0] and len(lines[0]) < MAX_MESSAGE
    assert issubclass(getattr(tawla.errors, cls), TawlaError)


# 9. files and records that analysis walks into -----------------------------------------------
def _cli(*args):
    env = dict(os.environ, PYTHONPATH=str(SRC))
    return subprocess.run([sys.executable, "-m", "tawla.cli", *args], capture_output=True, text=True, env=env,
                          timeout=120)


def test_analyze_lists_a_symlink_loop_as_an_unreadable_file(tmp_path):
    (tmp_path / "a").symlink_to(tmp_path / "b")
    (tmp_path / "b").symlink_to(tmp_path / "a")
    (tmp_path / "x.mat").write_text(SAMPLE)
    assert sorted(p.name for p in collect_files([str(tmp_path / "*")])) == ["a", "b", "x.mat"]
    p = _cli("analyze", str(tmp_path / "a"), "--no-eval")
    assert p.returncode == 1 and "Traceback" not in p.stderr, p.stderr[-2000:]
    assert "FormatError" in p.stderr and "1 unreadable" in p.stdout


def _redoubles(n):
    lines = ['; [Variation "backgammon"]', "", " 0 point match", "", " Game 1",
             " A : 0                    B : 0"]
    for i in range(1, 2 * n + 1, 2):
        lines += [f"{i:3d}) Doubles => {2 ** min(i, 20)}       Takes", f"{i + 1:3d})  Doubles => 2                   Takes"]
    return "\n".join(lines + [f"{2 * n + 1:3d}) 31: 8/5 6/5", ""])


def test_a_cube_past_32768_is_a_game_error_and_the_json_report_is_written(tmp_path):
    rep = tawla.analysis.analyze_record(parse_match(_redoubles(7)), evaluator=None)  # cube 2**14
    assert rep.games[0].error is None
    rep = tawla.analysis.analyze_record(parse_match(_redoubles(8000)), evaluator=None)
    assert "a take past a cube of 32768" in rep.games[0].error
    path = tmp_path / "cube.mat"
    path.write_text(_redoubles(8000))
    p = _cli("analyze", str(path), "--no-eval", "--json")
    assert p.returncode == 1 and "Traceback" not in p.stderr, p.stderr[-2000:]
    doc = json.loads(p.stdout)
    assert "32768" in doc["matches"][0]["games"][0]["error"]


# 10. bots: arrays of another dtype, positions of another ruleset --------------------------------
def test_bot_values_and_evaluate_refuse_int64_rows_without_casting():
    rows = tawla.positions_to_array([tawla.get_ruleset("backgammon").initial_position()]).astype(np.int64)
    with pytest.raises(InvalidPosition):
        tawla.Bot("backgammon", "ply0").values(rows)
    with pytest.raises(InvalidId):
        tawla.evaluate(rows, "backgammon")


def test_a_bot_evaluates_the_cube_only_for_a_position_of_its_ruleset():
    bot = tawla.Bot("backgammon", "ply0")
    other = tawla.get_ruleset("adi").initial_position()
    for call in (lambda: bot.preroll(other), lambda: bot.cube_action(other)):
        with pytest.raises(UnsupportedRuleset):
            call()
    pos = tawla.get_ruleset("backgammon").initial_position()
    for bad in (dict(cube_owner=7), dict(cube_owner="x"), dict(cube_value=0), dict(cube_value=2.5)):
        with pytest.raises(InvalidArgument):
            bot.cube_action(pos, **bad)
    with pytest.raises(InvalidPosition):
        bot.cube_action("text")
