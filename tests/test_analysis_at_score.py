"""tawla analyze at a match's score: the plays of backgammon and Tawla matches ranked by
their value at the score, each with the normalised equity (EMG) and the match-winning chance
it lost, per player and across files; money plays keep their points."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

import numpy as np
import pytest

from tawla import Bot, Position
from tawla.analysis.evaluators import EngineEvaluator, SearchEvaluator
from tawla.analysis.files import analyze_file
from tawla.analysis.html_report import write_html
from tawla.analysis.cube import player_totals
from tawla.analysis.report import players_across, to_json
from tawla.errors import InvalidArgument
from tawla.formats.gnubg import MatchState
from tawla.met import ScoreState, default_met, variant_met

DATA = resources.files("tawla") / "data"


def _analysed(name: str):
    return analyze_file(Path(str(DATA / name)), evaluator=EngineEvaluator())


def test_tawla31_match_plays_are_ranked_by_match_winning_chance():
    """Each unforced play against net0's ranking at the score (Bot.hint with the match state):
    the same best play, the value lost twice the chance lost, that chance as EMG of a single
    game at the score."""
    rep = _analysed("sample_tawla31.mat")
    bot, t, checked = Bot("tawla31", "net0"), variant_met("tawla31"), 0
    for g in rep.games:
        for i, d in enumerate(g.decisions):
            if d.forced:
                assert d.mwc_loss is None or d.mwc_loss == 0.0
                continue
            assert d.mwc_loss is not None and d.mwc_loss >= 0
            away, opp_away = 11 - g.score[d.player], 11 - g.score[1 - d.player]
            win, lose = t.after(away, opp_away, 1, 0, False), t.after(away, opp_away, 0, 1, False)
            assert d.equity_loss == pytest.approx(2 * d.mwc_loss / (win - lose), rel=1e-9)
            if checked < 25:
                pos = Position.from_id(g.decisions.tawla_id(i, "tawla31"), "tawla31")
                state = MatchState(match_length=11, score=tuple(g.score), player_on_roll=d.player)
                ranked = {str(r.move): r.value for r in bot.hint(pos, d.dice, match_state=state)}
                best = max(ranked.values())
                assert ranked[d.best] == pytest.approx(best, abs=1e-9)
                assert best - ranked[d.move] == pytest.approx(2 * d.mwc_loss, abs=1e-9)
                checked += 1
    assert checked == 25


def test_the_loss_in_both_units_reaches_the_reports(tmp_path):
    bg, t31 = _analysed("sample_backgammon.mat"), _analysed("sample_tawla31.mat")
    t, seen = default_met(), 0
    for g in bg.games:
        for i, d in enumerate(g.decisions):
            if d.equity_loss > 0:
                state = ScoreState.of_seat(3, g.score, d.player, *g.decisions.cube(i), g.crawford)
                spread = state.me(state.cube, 0, t) - state.me(0, state.cube, t)
                assert d.mwc_loss == pytest.approx(d.equity_loss * spread / 2, rel=1e-9)
                seen += 1
    assert seen > 10
    data = json.loads(to_json([bg, t31], EngineEvaluator()))
    for m in data["matches"]:
        for s in m["player_stats"]:
            assert s["checker_error_mwc"] > 0 and s["unforced_mwc"] == s["unforced"]
            assert s["checker_rate_mwc"] == pytest.approx(s["checker_error_mwc"] / s["unforced"])
        assert all("mwc_loss" in x for g in m["games"] for x in g["decisions"])
    page = tmp_path / "r.html"
    write_html(page, [bg, t31], EngineEvaluator())
    assert "match-winning chance lost (per move)" in page.read_text()
    across = {(p["name"], p["ruleset"]): p for p in players_across([bg, t31, t31])}
    a = across[("tawla A", "tawla31")]
    assert a["files"] == 2 and a["checker_rate_mwc"] == pytest.approx(a["checker_error_mwc"] / a["unforced"])
    money = analyze_file(_money_copy(tmp_path), evaluator=EngineEvaluator())  # a money session beside the match
    b = {p["name"]: p for p in players_across([bg, money]) if p["ruleset"] == "backgammon"}["tawla A"]
    alone = next(s for s in player_totals(bg) if s["name"] == "tawla A")
    assert b["unforced"] > b["unforced_mwc"] == alone["unforced_mwc"]
    assert b["checker_rate_mwc"] == pytest.approx(alone["checker_rate_mwc"])  # the money plays do not count


def _money_copy(folder: Path) -> Path:
    """The backgammon sample as a money session (the same games without a match length)."""
    path = folder / "money.mat"
    path.write_text((DATA / "sample_backgammon.mat").read_text().replace(" 3 point match", " 0 point match"))
    return path


def test_money_plays_keep_their_points(tmp_path):
    """The same games without a match length: points lost, no chance of a match."""
    rep = analyze_file(_money_copy(tmp_path), evaluator=EngineEvaluator())
    assert rep.match_length == 0
    plays = [d for g in rep.games for d in g.decisions]
    assert any(d.equity_loss > 0 for d in plays) and all(d.mwc_loss is None for d in plays)
    stats = json.loads(to_json([rep], EngineEvaluator()))["matches"][0]["player_stats"]
    assert all(s["checker_error_mwc"] is None and s["checker_rate_mwc"] is None for s in stats)


def test_the_search_at_the_score_takes_a_tawla_score():
    """tawla analyze --level net1 in a Tawla match: the bot's search on the away counts, as on
    the match state they come from; away counts refused where they mean nothing."""
    pos = Position.from_id("AAAQAAAAEAAAAAAADdAAAAAAAAAAAAAAIAAAAAAA", "tawla31")
    children = np.stack([np.frombuffer(pos.play(m).row, np.uint8) for m in pos.legal_moves((5, 2))]).copy()
    want = Bot("tawla31", "net1").values_at_score(children, MatchState(match_length=11, score=(8, 6)))[0]
    assert np.array_equal(SearchEvaluator("net1").values_at_score(children, "tawla31", (3, 5)), want)
    assert np.array_equal(SearchEvaluator("net1").values_at_score(children, "tawla31", (np.int64(3), 5)), want)
    for bad in ((0, 5), (3, 99), (3,)):
        with pytest.raises(InvalidArgument):
            Bot("tawla31", "net1").values_at_score(children, bad)
    with pytest.raises(InvalidArgument):
        Bot("backgammon", "net1").values_at_score(children[:0], (3, 5))
