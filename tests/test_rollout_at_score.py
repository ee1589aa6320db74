"""Rollouts at a match score: cubeless trials, the score applied to what they measured."""

from __future__ import annotations

import json

import numpy as np
import pytest

from tawla import Position, rollout
from tawla.bots.cube import cube_decision
from tawla.bots.score import play_values_at_score, play_values_by_mars
from tawla.cli import main
from tawla.errors import InvalidArgument
from tawla.formats.gnubg import MatchState
from tawla.met import MatchCube, ScoreState, default_met, variant_met
from tawla.rollout.at_score import columns_of
from tawla.rollout.text import format_text
from tawla.rules import get_ruleset

BG = get_ruleset("backgammon")
OPENING = Position.from_gnubg_id("4HPwATDgc/ABMA")
STATE = MatchState(match_length=7, score=(2, 4))


def _cols(res):
    return np.array([res.equity, *res.probabilities])


def test_a_position_gets_its_cube_decision_at_the_score():
    ro = rollout(OPENING, trials=324, seed=5, match_state=STATE)
    assert not ro.settings.cubeful and isinstance(ro.cube, MatchCube)
    want = cube_decision(_cols(ro.result), OPENING.row, BG, STATE)
    assert ro.cube == want and ro.mwc == pytest.approx(want.optimal_mwc)
    data = ro.to_json()
    assert data["match"] == {"length": 7, "score": [2, 4], "cube": 1, "owner": "centre", "crawford": False}
    assert data["cube_decision"]["proper"] == want.proper and data["mwc"] == pytest.approx(want.optimal_mwc)
    text = format_text(ro)
    assert "At the score (7-point match, 5-away 3-away, cube 1" in text and "Proper cube action" in text


def test_plays_ranked_at_the_score():
    ro = rollout(OPENING, (6, 2), top=3, trials=324, seed=5, match_state=STATE)
    values = [p.score_value for p in ro.plays]
    assert values == sorted(values, reverse=True) and len(values) == 3
    children = np.stack([np.frombuffer(OPENING.play(p.move).row, np.uint8) for p in ro.plays])
    opp = np.array([[-c[0], 1 - c[1], c[4], c[5], c[2], c[3]] for c in (_cols(p.result) for p in ro.plays)])
    emg, mwc = play_values_at_score(children, opp, BG, ScoreState(7, 5, 3))
    assert values == pytest.approx(list(emg)) and [p.score_mwc for p in ro.plays] == pytest.approx(list(mwc))
    assert all("mwc" in p for p in ro.to_json()["plays"])


def test_a_play_that_ends_the_game_is_worth_its_result_at_the_score():
    """The last checker off: a single game at 5-away 3-away with the cube on 2."""
    pos = Position.from_points(BG, {1: 1}, {19: 2, 20: 2})
    state = MatchState(match_length=7, score=(2, 4), cube_value=2, cube_owner=1, player_on_roll=0)
    ro = rollout(pos, (3, 1), trials=324, seed=1, match_state=state)
    first = ro.plays[0]
    assert first.exact and first.score_mwc == pytest.approx(ScoreState(7, 5, 3, cube=2, owner=-1).me(2, 0, default_met()))


def test_adi_at_the_score_and_tawla31_refused():
    adi = get_ruleset("adi").initial_position()
    state = MatchState(match_length=5, score=(3, 1))
    ro = rollout(adi, (3, 1), top=2, trials=324, seed=2, match_state=state)
    opp = np.array([[-c[0], 1 - c[1], c[4], c[5], c[2], c[3]] for c in (_cols(p.result) for p in ro.plays)])
    assert [p.score_value for p in ro.plays] == pytest.approx(list(play_values_by_mars(opp, "adi", 2, 4)))
    whole = rollout(adi, trials=324, seed=2, match_state=state)
    other = play_values_by_mars(_cols(whole.result)[None], "adi", 4, 2)[0]
    assert whole.cube is None and whole.mwc == pytest.approx(1 - (other + 1) / 2)
    assert 0 < whole.mwc < 1 and variant_met("adi").mwc(2, 4) > 0.5
    with pytest.raises(InvalidArgument, match="Tawla 31"):
        rollout(get_ruleset("tawla31").initial_position(), trials=324, match_state=MatchState(match_length=11))


def test_rollout_command_at_a_score(capsys):
    assert main(["rollout", "4HPwATDgc/ABMA", "--length", "7", "--score", "2-4", "--trials", "324", "--json",
                 "--no-progress"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["match"]["length"] == 7 and data["cube_decision"]["proper"]
    assert main(["moves", "4HPwATDgc/ABMA", "62", "--rollout", "--top", "2", "--trials", "324",
                 "--length", "7", "--score", "2-4"]) == 0
    assert "At the score (7-point match" in capsys.readouterr().out


def test_few_trials_are_valued_at_the_score():
    """With few trials the luck adjustment can leave a mean a little below 0: held at 0, not
    refused (the model takes probabilities in [0, 1])."""
    assert list(columns_of([0.52, 0.13, 0.05, 0.11, -0.0005], 0.1)) == pytest.approx([0.1, 0.52, 0.13, 0.05, 0.11, 0.0])
    assert list(columns_of([1.01, 0.2, 0.3, 0.0, 0.0], 1.0))[1:4] == pytest.approx([1.0, 0.2, 0.2])
    for seed in (2, 3):
        ro = rollout(OPENING, trials=36, seed=seed, match_state=STATE)
        assert 0 <= ro.mwc <= 1
    ro = rollout(OPENING, (3, 1), top=3, trials=36, match_state=STATE)
    assert all(p.score_value is not None for p in ro.plays)
