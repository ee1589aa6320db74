"""Rollouts at a match score: cube decisions at the score inside the trials (the compiled match
model against tawla.met.MatchCube, the trial loop against its twin, exact values where the cube
is dead), or cubeless trials with the score applied to what they measured."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest

from tawla import Position, native, rollout
from tawla.bots.cube import GNUBG_EFFICIENCY, cube_decision
from tawla.bots.score import play_values_at_score, play_values_by_mars
from tawla.cli import main
from tawla.errors import InvalidArgument
from tawla.formats.gnubg import MatchState
from tawla.met import MatchCube, ScoreState, default_met, variant_met
from tawla.met.cube import mwc_to_emg
from tawla.rollout.at_score import columns_of
from tawla.rollout.evaluator import trial_evaluator
from tawla.rollout.twin import trials_py
from tawla.rollout.text import format_text
from tawla.rules import get_ruleset

BG = get_ruleset("backgammon")
OPENING = Position.from_gnubg_id("4HPwATDgc/ABMA")
STATE = MatchState(match_length=7, score=(2, 4))


def _cols(res):
    return columns_of(res.probabilities, res.equity)


def test_a_position_gets_its_cube_decision_at_the_score_from_cubeless_trials():
    ro = rollout(OPENING, trials=324, seed=5, match_state=STATE, cubeful=False)
    assert not ro.settings.cubeful and isinstance(ro.cube, MatchCube)
    want = cube_decision(_cols(ro.result), OPENING.row, BG, STATE)
    assert ro.cube == want and ro.mwc == pytest.approx(want.optimal_mwc)
    data = ro.to_json()
    assert data["match"] == {"length": 7, "score": [2, 4], "cube": 1, "owner": "centre", "crawford": False}
    assert data["cube_decision"]["proper"] == want.proper and data["mwc"] == pytest.approx(want.optimal_mwc)
    text = format_text(ro)
    assert "At the score (7-point match, 5-away 3-away, cube 1" in text and "Proper cube action" in text


def test_plays_ranked_at_the_score_from_cubeless_trials():
    ro = rollout(OPENING, (6, 2), top=3, trials=72, seed=5, match_state=STATE, cubeful=False)
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


def test_adi_at_the_score():
    adi = get_ruleset("adi").initial_position()
    state = MatchState(match_length=5, score=(3, 1))
    ro = rollout(adi, (3, 1), top=2, trials=324, seed=2, match_state=state)
    opp = np.array([[-c[0], 1 - c[1], c[4], c[5], c[2], c[3]] for c in (_cols(p.result) for p in ro.plays)])
    assert [p.score_value for p in ro.plays] == pytest.approx(list(play_values_by_mars(opp, "adi", 2, 4)))
    whole = rollout(adi, trials=324, seed=2, match_state=state)
    other = play_values_by_mars(_cols(whole.result)[None], "adi", 4, 2)[0]
    assert whole.cube is None and whole.mwc == pytest.approx(1 - (other + 1) / 2)  # linear: the same mean
    assert whole.mwc_se > 0 and all(p.score_se > 0 for p in ro.plays)  # each trial valued at the score
    assert 0 < whole.mwc < 1 and variant_met("adi").mwc(2, 4) > 0.5


T31 = get_ruleset("tawla31")


def test_tawla31_trials_are_worth_the_table_after_their_points():
    """Every trial plays to its game's end: at double match point the chance is the wins'
    share exactly; a position whose every roll bears off the last checker wins the opponent's
    15 checkers' points; truncation is refused, the luck adjustment and the database stop off."""
    start = T31.initial_position()
    dmp = rollout(start, trials=324, seed=4, match_state=MatchState(match_length=11, score=(10, 10)))
    s = dmp.settings
    assert not (s.variance_reduction or s.bearoff or s.cubeful) and dmp.cube is None
    assert dmp.mwc == pytest.approx(dmp.result.probabilities[0], abs=1e-12)
    assert dmp.mwc_se == pytest.approx(dmp.result.probabilities_se[0], rel=1e-9)
    assert dmp.result.cubeful_equity is None and dmp.to_json()["mwc_se"] > 0
    last = Position.from_points(T31, {1: 1}, {12: 15}, off=(14, 0))
    won = rollout(last, trials=36, match_state=MatchState(match_length=31, score=(0, 0)))
    assert won.mwc == pytest.approx(variant_met("tawla31").after(31, 31, 15, 0, False), abs=1e-12)
    assert won.result.equity == 15
    with pytest.raises(InvalidArgument, match="truncation"):
        rollout(start, trials=36, truncate=5, match_state=MatchState(match_length=11))


def test_tawla31_plays_ranked_by_their_trials_at_the_score():
    state = MatchState(match_length=11, score=(9, 10))
    pos = Position.from_id("AAAQAAAAEAAAAAAADdAAAAAAAAAAAAAAIAAAAAAA", T31)  # 9 moves into a game
    ro = rollout(pos, (5, 2), top=3, trials=324, seed=3, match_state=state)
    values = [p.score_value for p in ro.plays]
    assert len(values) == 3 and values == sorted(values, reverse=True)
    assert all(p.score_se is not None and 0 < p.score_se < 0.2 for p in ro.plays)
    assert all(p.score_mwc == pytest.approx((p.score_value + 1) / 2) for p in ro.plays)
    assert "worth the table's chance after its points" in format_text(ro)
    ends = Position.from_points(T31, {2: 1}, {20: 15}, off=(14, 0))  # 2/off ends the game, 15 points
    done = rollout(ends, (2, 1), trials=36, match_state=state)
    assert done.plays[0].exact and done.plays[0].score_mwc == 1.0


def test_rollout_command_at_a_score(capsys):
    assert main(["rollout", "4HPwATDgc/ABMA", "--length", "7", "--score", "2-4", "--trials", "72", "--json",
                 "--no-progress"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["match"]["length"] == 7 and data["cube_decision"]["proper"]
    assert main(["moves", "4HPwATDgc/ABMA", "62", "--rollout", "--top", "2", "--trials", "72",
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


compiled = pytest.mark.skipif(not native.available("rollout"), reason="the compiled engine is not built")


@compiled
def test_the_compiled_match_model_is_match_cube():
    """At 126 (score, cube) states: the three chances, the right one and the decision."""
    rng = np.random.default_rng(3)
    n = 60
    win = rng.uniform(0.02, 0.98, n)
    wg, lg = win * rng.uniform(0, 0.5, n), (1 - win) * rng.uniform(0, 0.5, n)
    probs = np.stack([np.zeros(n), win, wg, wg * rng.uniform(0, 0.2, n), lg, lg * rng.uniform(0, 0.2, n)], 1)
    t, states = default_met(), 0
    for away in range(1, 8):
        for opp_away in range(1, 8):
            for cube, owner, crawford in ((1, 0, False), (2, 1, False), (2, -1, False), (1, 0, True)):
                try:
                    sc = ScoreState(7, away, opp_away, cube, owner, crawford)
                except InvalidArgument:
                    continue
                states += 1
                out, dec = native.cube_match(probs, t, away, opp_away, cube, owner, crawford)
                for i in range(0, n, 7):
                    m = MatchCube.from_probabilities(probs[i], sc)
                    want = [m.no_double_mwc, m.double_take_mwc, m.double_pass_mwc, m.optimal_mwc]
                    assert list(out[i]) == pytest.approx(want, abs=1e-12)
                    assert (dec[i] != 0) == m.double and (dec[i] == 3) == (m.double and not m.take)
    assert states >= 126


@compiled
@pytest.mark.parametrize("score", [(3, 5, 1, 0, False), (4, 2, 2, -1, False), (1, 4, 1, 0, True), (2, 2, 1, 0, False)])
def test_trials_at_the_score_are_the_python_twins(score):
    """The same moves and numbers, the opponent doubling at once or not, with luck adjustment."""
    r = BG
    rows = np.stack([np.frombuffer(OPENING.play(m).row, np.uint8) for m in OPENING.legal_moves((6, 2))[:2]])
    ev = trial_evaluator(r, "net0")
    away, opp_away, cube, owner, crawford = score
    match = (default_met().pre, default_met().post, away, opp_away, cube, crawford)
    for kw in (dict(first=7, trials=4, truncate=8, vr=False, seed=9, rot=(3, 7)),
               dict(first=40, trials=2, truncate=4, vr=True, seed=2, decide_first=True)):
        kw.update(cubeful=True, match=match, owner=owner)
        a, araw, ap = native.rollout_trials(rows, r, ev.contact, raw=True, **ev.compiled_args(), **kw)
        b, braw, bp = trials_py(rows, r, ev, **kw)
        np.testing.assert_array_equal(ap, bp)
        np.testing.assert_allclose(a, b, atol=1e-9)
        np.testing.assert_allclose(araw, braw, atol=1e-9)
        assert (np.abs(a[..., 6]) <= 1.5).all()


@compiled
@pytest.mark.parametrize("name", ["adi", "tawla31"])
def test_trials_of_a_match_without_a_cube_are_the_python_twins(name):
    """No decisions; each trial worth the table's chance after its points, a truncated one
    (Adi) the table's on its outputs, with luck adjustment."""
    r = get_ruleset(name)
    pos = r.initial_position()
    rows = np.stack([np.frombuffer(pos.play(m).row, np.uint8) for m in pos.legal_moves((6, 2))[:2]])
    ev, t = trial_evaluator(r, "net0"), variant_met(name)
    kw = dict(first=7, trials=3, truncate=8, vr=True, seed=9) if name == "adi" else \
        dict(first=3, trials=3, vr=False, stop_bearoff=False, seed=4)
    kw.update(match=(t.pre, t.post, 3, 5, 0, False))
    a, araw, ap = native.rollout_trials(rows, r, ev.contact, raw=True, **ev.compiled_args(), **kw)
    b, braw, bp = trials_py(rows, r, ev, **kw)
    np.testing.assert_array_equal(ap, bp)
    np.testing.assert_allclose(a, b, atol=1e-9)
    np.testing.assert_allclose(araw, braw, atol=1e-9)
    if name == "tawla31":  # whole games: the table after each trial's points
        for pts, v in zip(a[..., 5].ravel(), a[..., 6].ravel()):
            k = int(abs(pts))
            assert v == pytest.approx(2 * (t.after(3, 5, k, 0, False) if pts > 0 else t.after(3, 5, 0, k, False)) - 1)
    with pytest.raises(InvalidArgument, match="without a cube"):
        native.rollout_trials(rows, r, ev.contact, **ev.compiled_args(), owner=1,
                              match=(t.pre, t.post, 3, 5, 0, False))


def test_a_dead_cube_gives_the_match_chance_of_the_trials_results():
    """In the Crawford game nobody doubles: each trial's value is its result's chance at the
    score, so the rolled-out chance is the table applied to the rolled-out probabilities."""
    state = MatchState(match_length=7, score=(6, 3), crawford=True)
    ro = rollout(OPENING, trials=648, truncate=10, seed=3, match_state=state, variance_reduction=False)
    sc, t = ScoreState(7, 1, 4, crawford=True), default_met()
    w, wg, wb, lg, lb = ro.result.probabilities
    want = ((w - wg) * sc.me(1, 0, t) + (wg - wb) * sc.me(2, 0, t) + wb * sc.me(3, 0, t)
            + (1 - w - lg) * sc.me(0, 1, t) + (lg - lb) * sc.me(0, 2, t) + lb * sc.me(0, 3, t))
    assert ro.settings.cubeful and not ro.cube.may_double
    assert ro.mwc == pytest.approx(want, abs=1e-5)
    assert ro.result.cubeful_equity == pytest.approx(float(mwc_to_emg(ro.mwc, sc, t)), abs=1e-12)  # EMG
    dmp = rollout(OPENING, trials=324, truncate=10, seed=3, match_state=MatchState(match_length=7, score=(6, 6)))
    assert dmp.mwc == pytest.approx(dmp.result.probabilities[0], abs=1e-5)  # gammons do not count


def test_a_position_rolled_out_not_doubled_and_doubled():
    """The two rollouts on the same dice; a pass is the table's; a race far ahead at 0-0 in
    7 is a double and a pass."""
    ro = rollout(OPENING, trials=324, seed=5, match_state=STATE)
    d, t = ro.cube, default_met()
    sc = ScoreState(7, 5, 3)
    assert ro.settings.cubeful and d.may_double and d.double_pass_mwc == sc.me(1, 0, t)
    assert ro.mwc == pytest.approx(d.optimal_mwc) and d.proper == "no double, take"
    assert ro.result.cubeful_equity == pytest.approx(d.no_double, abs=1e-12)
    data = ro.to_json()
    assert data["cube_decision"]["proper"] == "no double, take" and data["cubeful"]
    race = Position.from_points(BG, {1: 3, 2: 3, 3: 3, 4: 3, 5: 3}, {19: 5, 20: 5, 21: 5})
    far = rollout(race, trials=324, seed=1, match_state=MatchState(match_length=7))
    assert far.cube.proper == "double, pass" and far.mwc == pytest.approx(ScoreState(7, 7, 7).me(1, 0, t))
    text = format_text(far)
    assert "cube decisions at the score in every trial" in text and "Proper cube action: Double, pass" in text


def test_plays_ranked_by_their_cubeful_chances():
    ro = rollout(OPENING, (6, 2), top=3, trials=72, truncate=16, seed=5, match_state=STATE)
    values = [p.score_value for p in ro.plays]
    assert values == sorted(values, reverse=True) and len(values) == 3
    sc, t = ScoreState(7, 5, 3), default_met()
    for p in ro.plays:
        assert p.result.cubeful_equity == p.score_value
        assert p.score_value == pytest.approx(float(mwc_to_emg(p.score_mwc, sc, t)), abs=1e-12)
        assert 0 < p.score_mwc < 1


@compiled
@pytest.mark.parametrize("match", [False, True])
def test_the_trials_cube_efficiency_by_position_class_is_the_twins(match):
    """A race (its efficiency by the pips), a bear-off and contact: the same decisions and
    numbers as the twin, money and at a score; not the numbers of one efficiency everywhere."""
    race = Position.from_points(BG, {1: 3, 2: 3, 3: 3, 4: 2, 9: 2, 10: 2}, {19: 3, 20: 3, 21: 3, 22: 3, 23: 3})
    home = Position.from_points(BG, {1: 3, 2: 3, 3: 3, 4: 3, 5: 2}, {20: 3, 21: 3, 22: 3, 23: 3, 24: 2})
    rows = np.stack([np.frombuffer(p.row, np.uint8) for p in (race, home, OPENING)])
    ev = trial_evaluator(BG, "net0")
    kw = dict(first=5, trials=3, truncate=6, vr=True, seed=3, cubeful=True, stop_bearoff=False,
              efficiency_by_class=dataclasses.astuple(GNUBG_EFFICIENCY))
    if match:
        kw["match"] = (default_met().pre, default_met().post, 4, 3, 1, False)
    a, araw, ap = native.rollout_trials(rows, BG, ev.contact, raw=True, **ev.compiled_args(), **kw)
    b, braw, bp = trials_py(rows, BG, ev, **kw)
    np.testing.assert_array_equal(ap, bp)
    np.testing.assert_allclose(a, b, atol=1e-6)  # the race model's own rounding: ~1e-7 between the two
    np.testing.assert_allclose(araw, braw, atol=1e-6)
    flat = native.rollout_trials(rows, BG, ev.contact, **ev.compiled_args(), **{**kw, "efficiency_by_class": None})[0]
    assert not np.allclose(flat[:2, :, 6], a[:2, :, 6])  # the races decide with their own efficiency


@compiled
def test_a_game_that_ends_with_the_cube_turned_is_the_twins():
    """Bear-offs played out at a score, the cube on 2: each trial worth the table after its
    game at that cube (the twin once refused a centred-looking cube above 1 here)."""
    late = Position.from_points(BG, {1: 2, 2: 2, 3: 1}, {24: 2, 23: 2, 22: 1})
    rows = np.frombuffer(late.row, np.uint8)[None].copy()
    ev, t = trial_evaluator(BG, "net0"), default_met()
    kw = dict(first=0, trials=12, vr=False, seed=2, cubeful=True, stop_bearoff=False, owner=-1,
              match=(t.pre, t.post, 4, 3, 2, False), efficiency_by_class=dataclasses.astuple(GNUBG_EFFICIENCY))
    a, araw, ap = native.rollout_trials(rows, BG, ev.contact, raw=True, **ev.compiled_args(), **kw)
    b, braw, bp = trials_py(rows, BG, ev, **kw)
    np.testing.assert_array_equal(ap, bp)
    np.testing.assert_allclose(a, b, atol=1e-6)
    sc = ScoreState(5, 4, 3, cube=2, owner=-1)
    ends = {round(2 * sc.me(2, 0, t) - 1, 9), round(2 * sc.me(0, 2, t) - 1, 9)}
    assert set(np.round(a[0, :, 6], 9)) == ends  # the mover wins some, loses some, at 2 points each
