"""The position IDs of the analysis: gnubg Position and Match IDs and XGIDs for backgammon and
Adi plays, the tawla ID for the other rulesets, in the JSON output and beside the worst plays of
the text report.

Real input: a 7-point match of ../shared/data/matches (bglab-galaxy) with cube actions and
non-zero scores; the Tawla 31 record is the bundled sample.
"""

import io
import json
from pathlib import Path

from rich.console import Console

from conftest import require_module, shared_path
from tawla import Position
from tawla.analysis import HeuristicEvaluator, analyze_file, read_record
from tawla.analysis.report import ids_text, render_text
from tawla.cli import main
from tawla.formats.gnubg import MatchState
from tawla.formats.record import ROLL, TAKE
from oracles import gnubg_board
from tawla.rules import get_ruleset

BG = get_ruleset("backgammon")
SAMPLE_31 = Path(__file__).resolve().parents[1] / "src" / "tawla" / "data" / "sample_tawla31.mat"


def _record():
    return shared_path("data", "matches", "bglab-galaxy", "galaxy_7pt_match1209980.txt")


def _cubes(path) -> dict:
    """(game, line, player) of every play -> (cube value, owner) from the record's own cube actions."""
    cubes = {}
    for game in read_record(path).games:
        cube, owner = 1, None
        for act in game.actions:
            if act.kind == TAKE:
                cube, owner = cube * 2, act.player
            elif act.kind == ROLL:
                cubes[game.number, act.line, act.player] = (cube, owner)
    return cubes


def _json(path, capsys, *extra) -> dict:
    assert main(["analyze", "--json", "--no-eval", *extra, str(path)]) == 0
    return json.loads(capsys.readouterr().out)


def test_json_ids_of_a_backgammon_record(capsys):
    path = _record()
    gnubg_nn = require_module("gnubg_nn")
    (match,) = _json(path, capsys)["matches"]
    assert match["ruleset"] == "backgammon" and match["match_length"] == 7
    cubes = _cubes(path)
    seen = set()
    for game in match["games"]:
        assert game["error"] is None
        pos = BG.initial_position()
        for d in game["decisions"]:
            pid, mid, xgid = d["position_id"], d["match_id"], d["xgid"]
            assert len(pid) == 14
            assert Position.from_gnubg_id(pid) == pos, (game["number"], d["move_number"])
            assert [list(x) for x in gnubg_nn.board_from_position_id(pid)] == gnubg_board(pos.row, BG.geometry)
            cube, owner = cubes[game["number"], d["line"], d["player"]]
            state = MatchState.from_match_id(mid)
            assert state.match_length == 7 and state.score == tuple(game["score"])
            assert (state.cube_value, state.cube_owner) == (cube, owner)
            assert state.crawford == game["crawford"]
            assert state.player_on_roll == state.turn == d["player"] and state.dice == tuple(d["dice"])
            xpos, xstate = Position.from_xgid(xgid), MatchState.from_xgid(xgid)
            assert xgid.startswith("XGID=") and xpos == pos
            assert xstate.score == tuple(game["score"]) and xstate.match_length == 7
            assert (xstate.cube_value, xstate.cube_owner, xstate.player_on_roll) == (cube, owner, d["player"])
            seen.add((cube, tuple(game["score"]) != (0, 0)))
            pos = pos.play(d["move"], tuple(d["dice"]))
    assert (2, True) in seen  # a taken cube in a game after the first one is among the checks


def test_json_ids_of_adi_plays(capsys):
    (match,) = _json(_record(), capsys, "--ruleset", "adi")["matches"]
    assert match["ruleset"] == "adi"
    r = get_ruleset("adi")
    for game in match["games"]:
        pos = r.initial_position()
        for d in game["decisions"]:
            assert Position.from_gnubg_id(d["position_id"], r) == pos
            assert MatchState.from_match_id(d["match_id"]).score == tuple(game["score"])
            assert Position.from_xgid(d["xgid"], r) == pos
            assert "tawla_id" not in d
            pos = pos.play(d["move"], tuple(d["dice"]))


def test_json_tawla_id_of_a_tawla31_record():
    rep = analyze_file(SAMPLE_31)
    assert rep.ok and rep.ruleset == "tawla31"
    r = get_ruleset("tawla31")
    data = json.loads(json.dumps(rep.to_dict()))
    plays = 0
    for game in data["games"]:
        pos = r.initial_position()
        for d in game["decisions"]:
            assert "position_id" not in d and "xgid" not in d
            assert Position.from_id(d["tawla_id"], r) == pos and d["tawla_id"] == pos.id()
            pos = pos.play(d["move"], tuple(d["dice"]))
            plays += 1
    assert plays > 100


def _worst_lines(path, evaluator=None):
    rep = analyze_file(path, evaluator=evaluator or HeuristicEvaluator())
    out = io.StringIO()
    render_text([rep], evaluator, console=Console(file=out, width=110))
    lines = out.getvalue().splitlines()
    return rep, [(line, lines[k + 1]) for k, line in enumerate(lines) if line.startswith("  worst: ")]


def _play(rep, line):
    """The game report and index of the play a ``worst:`` line names."""
    words = line.split()
    number, move = int(words[2]), int(words[4])
    g = rep.games[[x.number for x in rep.games].index(number)]
    (i,) = [i for i, d in enumerate(g.decisions) if d.move_number == move and f": {d.move}  best" in line
            and rep.player_name(d.player) in line and f"{d.dice[0]}{d.dice[1]}:" in line]
    return g, i


def test_text_report_shows_the_ids_by_the_worst_plays():
    rep, worst = _worst_lines(_record())
    assert worst
    for line, below in worst:
        g, i = _play(rep, line)
        ids = rep.ids(g, i)
        assert below == "    " + ids_text(ids)
        assert f"Position ID {ids['position_id']}" in below and f"Match ID {ids['match_id']}" in below
        assert below.endswith(ids["xgid"]) and Position.from_xgid(ids["xgid"]) == \
            Position.from_gnubg_id(ids["position_id"])


def test_text_report_shows_the_tawla_id_by_the_worst_plays():
    rep, worst = _worst_lines(SAMPLE_31)
    assert worst
    for line, below in worst:
        g, i = _play(rep, line)
        assert below == f"    tawla ID {g.decisions.tawla_id(i, rep.ruleset)}"
        Position.from_id(g.decisions.tawla_id(i, rep.ruleset), "tawla31")
