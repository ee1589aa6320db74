"""The cube analysis of money sessions: Janowski's equities by hand, missed doubles, wrong
doubles, takes and drops on constructed positions and records, and the one money session of
the shared archive (counts, sizes, the same serially and on two workers)."""

import json
import math
from types import SimpleNamespace

import numpy as np
import pytest

from conftest import shared_path
from tawla import Position
from tawla.analysis import GameReport, HeuristicEvaluator, analyze_contents, analyze_parallel, default_evaluator
from tawla.analysis.cube import KINDS, MIN_ERROR, CubeTracker, player_totals
from tawla.bots import MoneyCube
from tawla.bots.cube import cube_efficiency
from tawla.cli.__main__ import main
from tawla.errors import InvalidArgument
from tawla.rules import get_ruleset

BG = get_ruleset("backgammon")
X = 0.68  # MoneyCube's default cube efficiency
XB = 0.6  # the tracker's efficiency where both sides are home (every position of TestTracker)
EVAL = default_evaluator()
# no contact, no gammons: the side on roll 21 pips (8 checkers), the opponent 33 (7 checkers)
CASH = Position.from_points(BG, {1: 2, 2: 2, 3: 2, 4: 1, 5: 1}, {19: 2, 20: 2, 21: 2, 22: 1})
# the same with one more checker on the 4 point (25 pips): a double and a take
TAKE = Position.from_points(BG, {1: 2, 2: 2, 3: 2, 4: 2, 5: 1}, {19: 2, 20: 2, 21: 2, 22: 1})
# two checkers left against 15 far from home: a sure gammon
GAMMON = Position.from_points(BG, {1: 1, 2: 1}, {7: 5, 8: 5, 9: 5})


def win(pos) -> float:
    return float(EVAL.probabilities(np.frombuffer(pos.row, dtype=np.uint8).reshape(1, -1).copy(), BG)[0, 1])


class TestMoneyCube:
    def test_gammonless_equities_by_hand(self):
        """W = L = 1: take point 0.2 and cash point 0.8 of the live cube, 2p - 1 dead."""
        p = 0.75
        m = MoneyCube.from_probabilities([0, p, 0, 0, 0, 0], 0)
        live_centred, live_opp = -1 + 2 * (p - 0.2) / 0.6, -1 + 2 * (p - 0.2) / 0.8
        assert m.no_double == pytest.approx((1 - X) * (2 * p - 1) + X * live_centred)
        assert m.double_take == pytest.approx(2 * ((1 - X) * (2 * p - 1) + X * live_opp))
        assert (m.double_pass, m.proper, m.take, m.double) == (1.0, "double, take", True, True)
        owned = MoneyCube.from_probabilities([0, p, 0, 0, 0, 0], 1)  # -L + (1 + L) p / CP below CP
        assert owned.no_double == pytest.approx((1 - X) * (2 * p - 1) + X * (-1 + 2 * p / 0.8))

    def test_too_good_and_jacoby(self):
        sure_gammon = [2, 1, 1, 0, 0, 0]
        assert MoneyCube.from_probabilities(sure_gammon, 0).proper == "too good, pass"
        assert MoneyCube.from_probabilities(sure_gammon, 0, jacoby=True).proper == "double, pass"  # gammons count 1
        opp = MoneyCube.from_probabilities(sure_gammon, -1)
        assert not opp.may_double and opp.optimal == opp.no_double and opp.proper == "no double"

    def test_beaver_doubles_a_losing_take(self):
        p = [0, 0.4, 0, 0, 0, 0]
        assert MoneyCube.from_probabilities(p, beaver=True).double_take == pytest.approx(
            2 * MoneyCube.from_probabilities(p).double_take)

    def test_bad_input(self):
        with pytest.raises(InvalidArgument):
            MoneyCube.from_probabilities([0, 0.5, 0, 0, 0, 0], 2)
        with pytest.raises(InvalidArgument):
            MoneyCube.from_probabilities([0, 1.5, 0, 0, 0, 0])


def judge(pos, *, double=None, jacoby=True, owner=None, cube=1):
    """One turn of player 0 through the tracker: no double, or a double answered ``double``."""
    rep = GameReport(number=1)
    t = CubeTracker(BG, 0, EVAL, jacoby=jacoby)
    act = SimpleNamespace(move_number=7, line=None)
    t.roll(1, act, pos.flip().row, cube, owner, first=True)  # the opening roll: no decision
    if double is None:
        t.roll(0, act, pos.row, cube, owner, first=False)
    else:
        rep.cube_decisions += [{"kind": "double", "player": 0}, {"kind": double, "player": 1}]
        t.double(0, act, pos.row, cube, owner, 0)
        t.answer(1)
    t.finish(rep)
    return rep


class TestTracker:
    def test_missed_cash(self):
        p = win(CASH)
        assert 0.8 < p < 0.99
        rep = judge(CASH)
        (e,) = rep.cube_errors
        # Jacoby, centred cube, no gammons: 2p - 1 dead, +1 live above the cash point 0.8
        assert (e["kind"], e["player"], e["proper"]) == ("missed_double", 0, "double, pass")
        assert float(cube_efficiency(CASH.row, BG)[0]) == XB
        assert e["error"] == pytest.approx(1 - ((1 - XB) * (2 * p - 1) + XB)) and e["error_memg"] == 1000 * e["error"]
        assert e["board"] == CASH.id() and e["position_id"] == CASH.gnubg_id() and e["xgid"].startswith("XGID=")
        assert rep.cube_counts == {"decisions": [1, 0], "close": [1, 0]}

    def test_take_of_a_pass_and_drop_of_a_take(self):
        p = win(CASH)
        rep = judge(CASH, double="take")
        (e,) = rep.cube_errors
        dt = 2 * ((1 - XB) * (2 * p - 1) + XB * (-1 + 2 * (p - 0.2) / 0.8))
        assert (e["kind"], e["player"]) == ("wrong_take", 1) and e["error"] == pytest.approx(dt - 1)
        assert rep.cube_decisions[0]["error"] == 0 and rep.cube_decisions[1]["error"] == pytest.approx(dt - 1)
        assert judge(CASH, double="drop").cube_errors == []
        (e,) = judge(TAKE, double="drop").cube_errors
        assert e["kind"] == "wrong_drop" and e["proper"] == "double, take" and 0 < e["error"] == pytest.approx(
            1 - e["double_take"])
        assert judge(TAKE, double="take").cube_errors == [] and judge(TAKE).cube_errors[0]["proper"] == "double, take"

    def test_too_good_to_double(self):
        """A sure gammon: without Jacoby playing on is right and a double (a cash) loses about a
        point; under Jacoby a cash is right, and missing it costs nothing (below MIN_ERROR)."""
        assert judge(GAMMON, jacoby=False).cube_errors == []
        (e,) = judge(GAMMON, jacoby=False, double="drop").cube_errors
        assert (e["kind"], e["proper"]) == ("wrong_double", "too good, pass")
        assert e["error"] == pytest.approx(e["no_double"] - 1) and 0.9 < e["error"] < 1.0 + 1e-9
        assert judge(GAMMON).cube_errors == [] and judge(GAMMON).cube_counts["close"] == [1, 0]

    def test_no_decision_without_the_cube(self):
        rep = judge(CASH, owner=1, cube=2)
        assert rep.cube_errors == [] and rep.cube_counts == {"decisions": [0, 0], "close": [0, 0]}
        owned = judge(CASH, owner=0, cube=2)
        assert owned.cube_errors[0]["owner"] == 0 and owned.cube_errors[0]["points"] == 2 * owned.cube_errors[0]["error"]


RECORD = """; [Jacoby "On"]

 0 point match

 Game 1
 Player A : 0                         Player B : 0
  1) 31: 8/5 6/5                      42: 8/4 6/4
  2)  Doubles => 2                     Drops
  3)  Wins 1 point
"""


def test_record_with_a_dropped_early_double(tmp_path, capsys):
    """An early double (no double, take) dropped: a wrong double and a wrong drop of more than
    a point (the taker gives up 1 for a take worth about +0.3 to him); in the JSON and the text."""
    (rep,) = analyze_contents([("early.mat", RECORD.encode())], evaluator=EVAL)
    (g,) = rep.games
    kinds = {e["kind"]: e for e in g.cube_errors}
    assert sorted(kinds) == ["wrong_double", "wrong_drop"]
    drop, dbl = kinds["wrong_drop"], kinds["wrong_double"]
    assert drop["player"] == 1 and dbl["player"] == 0 and drop["proper"] == "no double, take"
    assert drop["error"] == pytest.approx(1 - drop["double_take"]) and drop["error"] > 1
    assert dbl["error"] == pytest.approx(dbl["no_double"] - dbl["double_take"]) and dbl["error"] > 0
    assert drop["match_id"] and ":D:" in drop["xgid"]            # the taker's decision, the double offered
    assert g.cube_counts["decisions"] == [1, 2] and g.cube_counts["close"][1] >= 1
    assert len(g.cube_judged) == 3 and {j["kind"] for j in g.cube_judged} >= {"double", "drop"}
    a, b = player_totals(rep)
    assert (a["doubles"], a["wrong_doubles"], b["drops"], b["wrong_drops"]) == (1, 1, 1, 1)
    assert b["cube_error"] == pytest.approx(drop["error"]) and b["overall_error"] == pytest.approx(
        b["checker_error"] + b["cube_error"])
    assert b["overall_rate"] == pytest.approx(b["overall_error"] / (b["unforced"] + b["close_cube"]))
    path = tmp_path / "early.mat"
    path.write_text(RECORD)
    assert main(["analyze", "--json", "--workers", "1", "--no-progress", str(path)]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["summary"]["cube_errors"] == {"missed_double": 0, "wrong_double": 1, "wrong_take": 0, "wrong_drop": 1}
    (m,) = data["matches"]
    assert [s["wrong_drops"] for s in m["player_stats"]] == [0, 1]
    assert m["games"][0]["cube_errors"][1]["kind"] == "wrong_drop"
    html = tmp_path / "early.html"
    assert main(["analyze", "--workers", "1", "--no-progress", "--html", str(html), str(path)]) == 0
    out = capsys.readouterr().out
    assert "cube decisions (Janowski's model" in out and "wrong drop (no double, take)" in out
    page = html.read_text(encoding="utf-8")
    assert '<table class="cube-errors">' in page and "overall rate (mEMG per decision)" in page
    assert page.count("<td>wrong drop</td>") == 1 and drop["position_id"] in page
    # the analysed double: the money equities' decision alone, not the quick model beside it
    assert "Right: no double, take" in page and "<th>agrees</th>" not in page and "Model:" not in page


def test_match_play_is_judged_at_the_score_and_no_evaluator_is_left_out():
    text = RECORD.replace(" 0 point match", " 3 point match")
    (rep,) = analyze_contents([("m.mat", text.encode())], evaluator=EVAL)
    g = rep.games[0]
    assert g.cube_counts["decisions"] == [1, 2] and player_totals(rep)[0]["cube_analysed"]
    dbl = g.cube_decisions[0]  # at 0-0 of 3 points: the equities as chances of winning the match too
    assert dbl["double_pass"] == pytest.approx(1.0) and 0.5 < dbl["double_pass_mwc"] < 1
    assert 0 < dbl["no_double_mwc"] < 1 and 0 < dbl["double_take_mwc"] < 1
    for e in g.cube_errors:
        assert e["error_mwc"] > 0 and "3:10" in e["xgid"]  # the match's length in the IDs
    # every judged decision listed, right ones too, each with its IDs and equities
    assert len(g.cube_judged) == sum(g.cube_counts["decisions"])
    assert [j["kind"] for j in g.cube_judged] == ["double", "drop", "no_double"] or \
        {j["kind"] for j in g.cube_judged} <= {"no_double", "double", "take", "drop"}
    assert all(j["match_id"] and "no_double_mwc" in j and j["error_mwc"] >= 0 for j in g.cube_judged)
    (rep,) = analyze_contents([("e.mat", RECORD.encode())], evaluator=None)
    assert rep.games[0].cube_counts is None and "proper" not in rep.games[0].cube_decisions[0]
    # an evaluator of equities only (the heuristic): a win chance of (1 + e) / 2, no gammons
    (rep,) = analyze_contents([("h.mat", RECORD.encode())], evaluator=HeuristicEvaluator())
    assert rep.games[0].cube_counts["decisions"] == [1, 2] and "proper" in rep.games[0].cube_decisions[1]


def test_archive_money_session(tmp_path):
    """The archive's money session: counts add up, every error finite and at least MIN_ERROR,
    the model's numbers on every recorded double, the same on two worker processes."""
    path = shared_path("data", "matches", "nodots-xgmobile", "xgmobile_money_vs_XG-Intermediate_2022-12-24.txt")
    (rep,) = analyze_parallel([path], workers=1)
    assert rep.ok and rep.match_length == 0
    stats = player_totals(rep)
    errors = [e for g in rep.games for e in g.cube_errors]
    assert errors and all(math.isfinite(e["error"]) and e["error"] >= MIN_ERROR for e in errors)
    assert {e["kind"] for e in errors} <= set(KINDS)
    for s in stats:
        assert s["close_cube"] <= s["cube_decisions"] and s["cube_rate"] is not None
        assert s["cube_error"] == pytest.approx(sum(s[k + "_error"] for k in KINDS))
        assert sum(s[k + "s"] for k in KINDS) <= s["close_cube"]
    assert sum(s["doubles"] + s["takes"] + s["drops"] for s in stats) == sum(len(g.cube_decisions) for g in rep.games)
    assert all("proper" in c for g in rep.games for c in g.cube_decisions)
    text = path.read_bytes()
    head = text[:text.index(b" Game 6")]  # five games, a chunk for each of two workers
    copies = [tmp_path / "a.txt", tmp_path / "b.txt"]
    for c in copies:
        c.write_bytes(head)
    (serial,) = analyze_contents([(str(copies[0]), head)], evaluator=EVAL)
    assert [g.cube_errors for g in serial.games] == [g.cube_errors for g in rep.games[:5]]
    for r in analyze_parallel(copies, workers=2, chunk_bytes=1):
        assert [g.cube_errors for g in r.games] == [g.cube_errors for g in serial.games]
        assert [g.cube_counts for g in r.games] == [g.cube_counts for g in serial.games]


def test_players_across_the_files_of_a_run(tmp_path, capsys):
    """The JSON's players: each name's sums over the files, the rates worked out from them."""
    for name in ("a.mat", "b.mat"):
        (tmp_path / name).write_text(RECORD)
    assert main(["analyze", "--json", "--workers", "1", "--no-progress", str(tmp_path)]) == 0
    data = json.loads(capsys.readouterr().out)
    per_file = [s for m in data["matches"] for s in m["player_stats"]]
    for p in data["players"]:
        mine = [s for s in per_file if s["name"] == p["name"]]
        assert p["files"] == 2 == len(mine) and p["ruleset"] == "backgammon"
        assert p["unforced"] == sum(s["unforced"] for s in mine)
        assert p["cube_error"] == pytest.approx(sum(s["cube_error"] for s in mine))
        if p["unforced"]:
            assert p["checker_rate"] == pytest.approx(p["checker_error"] / p["unforced"])
