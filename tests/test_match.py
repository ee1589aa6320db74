"""The server engine: Match and HouseRules (issue 7; RULES.md §1.3, §1.6-§1.9, §2.3-§2.4, §5.6-§5.7, §7).

Rule corners (cube, Crawford, Jacoby, Holland, scoring per ruleset, draws), the phase and
turn checks, timers and timeouts, coin tables and forfeits, JSON and replay, the .mat
export, and a self-play demo (``python tests/test_match.py`` prints its figures).
"""

import json
import time

import numpy as np
import pytest

import tawla
from tawla import errors
from tawla.formats.matfile import parse_match
from tawla.match import Match, _rng_state_to_json
from tawla.position import Position


# --- helpers ----------------------------------------------------------------------------------
class Clock:
    """A fake clock the tests move by hand."""

    def __init__(self, t=1000.0):
        self.t = t

    def __call__(self):
        return self.t


def rng_state_for(values):
    """The state of a Generator whose next dice (integers(1, 7)) are ``values``."""
    for seed in range(200000):
        g = np.random.default_rng(seed)
        if all(int(g.integers(1, 7)) == v for v in values):
            return _rng_state_to_json(np.random.default_rng(seed).bit_generator.state)
    raise AssertionError("no seed found")


def craft(m, *, board=None, turn=None, phase=None, dice=None, next_dice=None, **state):
    """A copy of ``m`` with parts of its state replaced (through to_dict / from_json)."""
    d = m.to_dict()
    st = d["state"]
    if board is not None:
        st["board"] = board.id()
    if turn is not None:
        st["turn"] = turn
    if phase is not None:
        st["phase"] = phase
        st["played"] = []
        st["timers"] = {}
    if dice is not None:
        st["dice"] = list(dice)
    if next_dice is not None:
        st["rng"] = rng_state_for(next_dice)
    st.update(state)
    return Match.from_json(d, clock=m._clock)


def pos(ruleset, me, opp, **kw):
    return Position.from_points(tawla.get_ruleset(ruleset), me, opp, **kw)


def snapshot_unchanged(m, fn, exc=errors.TawlaError):
    """Run fn, which must raise ``exc``, and check the JSON did not change."""
    before = m.to_json()
    with pytest.raises(exc) as info:
        fn()
    assert m.to_json() == before
    return info.value


def to_roll_phase(m):
    """Play first legal moves until someone must roll (or the game changes)."""
    while m.phase == "move":
        m.play(m.turn, m.legal_moves()[0])


def end_game_by_resignation(m, loser, kind="single"):
    if m.phase not in ("roll", "move"):
        raise AssertionError(m.phase)
    m.resign(loser, kind)
    m.accept_resignation(1 - loser)


# --- house profiles ---------------------------------------------------------------------------
class TestHouse:
    def test_profiles(self):
        f = tawla.get_house("federation")
        assert f.lengths["tawla31"] == (1, 11, 21, 31) and f.default_length["tawla31"] == 11
        assert f.lengths["adi"] == (1, 3, 5, 7, 9, 11, 15, 17) and f.default_length["adi"] == 3
        assert f.turn_time == 45 and f.step_time is None and not f.cube and not f.coin_table
        s = tawla.get_house("saharat")
        assert s.rulesets == ("adi", "mahbusa", "tawla31-saharat")
        assert all(s.lengths[r] == (1, 5) and s.default_length[r] == 5 for r in s.rulesets)
        assert (s.step_time, s.turn_time, s.fee_percent) == (15, 30, 10)
        i = tawla.get_house("international")
        assert i.money and i.cube and i.crawford and i.jacoby and not i.holland
        assert i.lengths["backgammon"] is None and i.rulesets == tawla.RULESET_IDS

    def test_overrides_and_validation(self):
        assert tawla.get_house("federation", turn_time=90).turn_time == 90
        assert tawla.get_house("federation", turn_time=None).turn_time is None
        with pytest.raises(errors.ConfigError):
            tawla.get_house("federation", turn_time=50)
        with pytest.raises(errors.ConfigError) as e:
            tawla.get_house("casino")
        assert type(e.value) is errors.ConfigError  # an unknown house is not an unknown ruleset
        with pytest.raises(errors.ConfigError) as e:
            tawla.get_house("saharat", colour="red")
        assert type(e.value) is errors.ConfigError
        with pytest.raises(errors.ConfigError):
            tawla.get_house("saharat", stake=-1)
        with pytest.raises(errors.ConfigError):
            tawla.get_house("saharat", fee_percent=101)
        with pytest.raises(errors.ConfigError):
            tawla.get_house("saharat", step_time=0)
        with pytest.raises(errors.ConfigError):
            tawla.get_house("federation", lengths={"tawla31": (0, 11)})
        with pytest.raises(errors.ConfigError):
            tawla.get_house("federation", default_length={"adi": 3, "tawla31": 7})
        with pytest.raises(errors.ConfigError):
            tawla.HouseRules.from_dict({**tawla.get_house("federation").to_dict(), "turn_time": 50})
        with pytest.raises(errors.UnsupportedRuleset):
            tawla.get_house("saharat", ruleset_options={"mother_rule": "greek"})
        h = tawla.get_house("saharat", ruleset_options={"mother_rule": "plakoto", "opening_reroll": True})
        assert h.ruleset("mahbusa").mother_rule == "plakoto"
        assert h.ruleset("adi").opening_reroll and h.ruleset("mahbusa").opening_reroll
        assert tawla.HouseRules.from_dict(json.loads(json.dumps(h.to_dict()))) == h
        assert hash(h) == hash(tawla.get_house(h))

    def test_lengths_and_rulesets(self):
        with pytest.raises(errors.ConfigError):
            Match("tawla31", "federation", 7, rng=1)
        with pytest.raises(errors.ConfigError):
            Match("adi", "saharat", 3, rng=1)
        with pytest.raises(errors.ConfigError):
            Match("adi", "federation", 0, rng=1)  # no money sessions
        with pytest.raises(errors.ConfigError):
            Match("adi", "federation", -3, rng=1)
        with pytest.raises(errors.UnsupportedRuleset):
            Match("backgammon", "saharat", 5, rng=1)
        with pytest.raises(errors.UnsupportedRuleset):
            Match("mahbusa", "federation", rng=1)
        with pytest.raises(errors.ConfigError):
            Match("adi", tawla.get_house("international", stake=10), 0, rng=1)  # coin money session
        with pytest.raises(errors.InvalidAction):
            Match("adi", "federation", 3, players=("a", "b", "c"), rng=1)
        assert Match("31", "federation", rng=1).length == 11
        assert Match("adi", "federation", rng=1).length == 3
        assert Match("mahbusa", "saharat", rng=1).length == 5
        assert Match("bg", "international", 13, rng=1).length == 13
        assert Match("bg", "international", 0, rng=1).length == 0

    def test_rng_is_required_and_dice_are_reproducible(self):
        with pytest.raises(errors.TawlaError):
            Match("bg", "international", 7)
        a = Match("bg", "international", 7, rng=42).to_json()
        b = Match("bg", "international", 7, rng=np.random.default_rng(42)).to_json()
        assert a == b
        g = np.random.Generator(np.random.MT19937(5))  # any bit generator, state saved in the JSON
        m = Match("adi", "federation", 3, rng=g)
        assert Match.from_json(m.to_json()).to_json() == m.to_json()
        assert Match.replay(m.to_json()).to_json() == m.to_json()


# --- flow ---------------------------------------------------------------------------------------
class TestFlow:
    def test_opening_roll_plays_the_opening_dice(self):
        for seed in range(20):
            m = Match("bg", "international", 7, rng=seed)
            ev = m.events
            opening = [e for e in ev if e["type"] == "opening"]
            last = opening[-1]["dice"]
            assert last[0] != last[1] and all(o["dice"][0] == o["dice"][1] for o in opening[:-1])
            assert m.turn in (0, 1) or m.phase == "roll"
            starter = opening[-1]["starter"]
            assert starter == (0 if last[0] > last[1] else 1)
            if m.phase == "move":  # the starter plays the two dice shown
                assert m.turn == starter and sorted(m.dice) == sorted(last)

    def test_tawla31_winner_rolls_again(self):
        for seed in range(10):
            m = Match("tawla31", "federation", 11, rng=seed)
            opening = [e for e in m.events if e["type"] == "opening"]
            assert m.phase == "roll" and m.turn == opening[-1]["starter"] and m.dice is None

    def test_previous_winner_starts_and_opening_reroll_options(self):
        h = tawla.get_house("international", ruleset_options={"previous_winner_starts": True})
        m = Match("adi", h, 5, rng=3)
        end_game_by_resignation(m, 0)  # player 1 wins game 1
        assert m.game_number == 2 and m.phase == "roll" and m.turn == 1
        assert m.events[-1]["type"] == "game_start"  # no opening roll
        h = tawla.get_house("international", ruleset_options={"opening_reroll": True})
        m = Match("bg", h, 5, rng=3)
        assert m.phase == "roll" and m.ruleset.opening_reroll
        h = tawla.get_house("international", ruleset_options={"opening_reroll": False})
        m = Match("tawla31", h, 11, rng=3)
        assert m.phase in ("move", "roll") and m.events[-1]["type"] in ("opening", "turn")
        if m.phase == "move":
            assert m.dice[0] != m.dice[1]

    def test_forced_move_is_played_and_no_move_passes(self):
        m = Match("tawla31", "federation", 11, rng=1, clock=Clock())
        start = m.turn
        m = craft(m, next_dice=(6, 6))  # E1: 6-6 from the start has one legal result
        m.roll(start)
        turn = [e for e in m.events if e["type"] == "turn"][-1]
        assert turn["how"] == "forced" and turn["dice"] == [6, 6]
        assert m.phase == "roll" and m.turn == 1 - start
        # E4: all home, a Black checker on White's 1 -> 6-5 has no legal step -> pass
        board = pos("tawla31", {2: 5, 3: 5, 4: 4, 5: 1}, {1: 1, 20: 14})
        m = craft(m, board=board, turn=0, phase="roll", next_dice=(6, 5))
        m.roll(0)
        turn = m.events[-1]
        assert turn["type"] == "turn" and turn["how"] == "pass" and turn["move"] == ""
        assert m.phase == "roll" and m.turn == 1 and m.turns_played[0] >= 1

    def test_step_undo_confirm(self):
        m = Match("bg", "international", 7, rng=3)
        to_roll_phase(m)
        p = m.turn
        while m.phase == "roll":
            m.roll(p)
            if m.phase == "roll":
                p = m.turn
        p = m.turn
        first = m.legal_steps()[0]
        before_left = m.dice_left
        m.step(p, first.from_point, first.to_point, dice=first.dice)
        assert len(m.dice_left) == len(before_left) - len(first.dice)
        snapshot_unchanged(m, lambda: m.play(p, "8/5 6/5"), errors.InvalidAction)
        m.undo(p)
        assert m.dice_left == before_left and m.played_steps == ()
        snapshot_unchanged(m, lambda: m.undo(p), errors.InvalidAction)
        snapshot_unchanged(m, lambda: m.confirm(p), errors.InvalidAction)
        while m.legal_steps():
            s = m.legal_steps()[0]
            m.step(p, s.from_point, s.to_point, dice=s.dice)
        m.confirm(p)
        assert m.turn == 1 - p and m.phase in ("roll", "move")

    def test_illegal_and_ambiguous_steps(self):
        m = Match("bg", "international", 7, rng=3)
        # mover on 13 with 4-2, opponent blot on 11: 13/7 via 11 hits, via 9 does not
        board = pos("bg", {13: 2, 6: 13}, {11: 1, 24: 14})
        m = craft(m, board=board, turn=0, phase="move", dice=(4, 2))
        e = snapshot_unchanged(m, lambda: m.step(0, 13, 7), errors.AmbiguousMove)
        assert len(e.legal) == 2
        snapshot_unchanged(m, lambda: m.step(0, 13, 12), errors.IllegalMove)
        snapshot_unchanged(m, lambda: m.step(0, 13, 7, dice=(3, 3)), errors.IllegalMove)
        snapshot_unchanged(m, lambda: m.step(1, 13, 7, dice=(2, 4)), errors.NotYourTurn)
        m.step(0, 13, 7, dice=(2, 4))
        assert m.played_steps[-1].hit and m.position.to_points()["bar"] == (0, 1)
        # 6-1 with one checker left on 3 (the highest): 3/off with the 6, or 3/2/off
        board = pos("bg", {3: 1, 1: 1}, {24: 15}, off=(13, 0))
        m = craft(m, board=board, turn=0, phase="move", dice=(6, 1))
        snapshot_unchanged(m, lambda: m.step(0, 3, 0), errors.AmbiguousMove)
        m.step(0, 3, 0, dice=6)
        assert m.dice_left == (1,)

    def test_play_text_and_move(self):
        m = Match("bg", "international", 7, rng=3)
        board = tawla.get_ruleset("bg").initial_position()
        m = craft(m, board=board, turn=1, phase="move", dice=(3, 1))
        snapshot_unchanged(m, lambda: m.play(1, "24/18"), errors.IllegalMove)
        snapshot_unchanged(m, lambda: m.play(0, "8/5 6/5"), errors.NotYourTurn)
        snapshot_unchanged(m, lambda: m.play(1, 17), errors.IllegalMove)
        other = board.legal_moves((4, 2))[0]
        snapshot_unchanged(m, lambda: m.play(1, other), errors.IllegalMove)
        m.play(1, "8/5 6/5")
        assert m.events[-1]["type"] == "turn" and m.events[-1]["move"] == "8/5 6/5"
        assert m.turn == 0 and m.phase == "roll"


# --- turn checks --------------------------------------------------------------------------------
class TestNotYourTurn:
    def test_out_of_turn_actions(self):
        m = Match("bg", "international", 7, rng=11)
        to_roll_phase(m)
        p, o = m.turn, 1 - m.turn
        snapshot_unchanged(m, lambda: m.roll(o), errors.NotYourTurn)
        snapshot_unchanged(m, lambda: m.double(o), errors.NotYourTurn)
        snapshot_unchanged(m, lambda: m.step(o, 24, 20), errors.NotYourTurn)
        snapshot_unchanged(m, lambda: m.take(o), errors.InvalidAction)
        m.double(p)
        assert m.phase == "double" and m.to_act == o
        snapshot_unchanged(m, lambda: m.take(p), errors.NotYourTurn)  # one's own double
        snapshot_unchanged(m, lambda: m.drop(p), errors.NotYourTurn)
        snapshot_unchanged(m, lambda: m.roll(p), errors.InvalidAction)
        snapshot_unchanged(m, lambda: m.roll(o), errors.NotYourTurn)
        m.take(o)
        assert m.cube_value == 2 and m.cube_owner == o and m.phase == "roll" and m.turn == p
        snapshot_unchanged(m, lambda: m.double(p), errors.InvalidAction)  # o owns the cube
        m.resign(p, "gammon")
        snapshot_unchanged(m, lambda: m.accept_resignation(p), errors.NotYourTurn)
        snapshot_unchanged(m, lambda: m.reject_resignation(p), errors.NotYourTurn)
        snapshot_unchanged(m, lambda: m.resign(o), errors.InvalidAction)
        m.reject_resignation(o)
        assert m.phase == "roll" and m.offer is None
        for bad in (2, -1, True, "0", None):
            snapshot_unchanged(m, lambda: m.roll(bad), errors.InvalidAction)

    def test_over(self):
        m = Match("adi", "federation", 1, rng=2)
        end_game_by_resignation(m, 1)
        assert m.phase == "over" and m.winner == 0 and m.score == (1, 0) and m.end_reason == "score"
        for fn in (lambda: m.roll(0), lambda: m.leave(1), lambda: m.resign(0), lambda: m.double(0),
                   lambda: m.on_timeout(10 ** 9), lambda: m.disconnect(0)):
            snapshot_unchanged(m, fn, errors.InvalidAction)


# --- the cube -----------------------------------------------------------------------------------
class TestCube:
    def test_no_cube_outside_backgammon(self):
        for rs, house in (("adi", "federation"), ("tawla31", "federation"), ("mahbusa", "saharat"),
                          ("adi", "international")):
            m = Match(rs, house, rng=4)
            to_roll_phase(m)
            snapshot_unchanged(m, lambda: m.double(m.turn), errors.InvalidAction)
            assert not m.can_double(m.turn)

    def test_drop_scores_the_cube_before_the_double(self):
        m = Match("bg", "international", 7, rng=5)
        to_roll_phase(m)
        p = m.turn
        m.double(p)
        m.take(1 - p)
        to_roll_phase(m)
        while m.turn != 1 - p or m.phase != "roll":
            if m.phase == "roll":
                m.roll(m.turn)
            to_roll_phase(m)
        m.double(1 - p)
        assert m.events[-1]["value"] == 4
        m.drop(p)
        assert m.score[1 - p] == 2 and m.game_number == 2 and m.cube_value == 1
        assert m.games[-1]["reason"] == "drop"

    def test_crawford_is_derived_and_refuses_the_cube(self):
        m = Match("bg", "international", 5, rng=6)
        end_game_by_resignation(m, 1, "backgammon")  # 3-0
        assert not m.is_crawford
        end_game_by_resignation(m, 1)  # 4-0: the next game is the Crawford game
        assert m.score == (4, 0) and m.is_crawford
        to_roll_phase(m)
        e = snapshot_unchanged(m, lambda: m.double(m.turn), errors.InvalidAction)
        assert "Crawford" in str(e)
        end_game_by_resignation(m, 0)  # 4-1: post-Crawford
        assert not m.is_crawford and m.is_post_crawford
        to_roll_phase(m)
        m.double(m.turn)
        assert m.phase == "double"

    def test_no_crawford_when_off_or_in_money(self):
        m = Match("bg", tawla.get_house("international", crawford=False), 3, rng=6)
        end_game_by_resignation(m, 1, "gammon")
        assert m.score == (2, 0) and not m.is_crawford
        m = Match("bg", "international", 0, rng=6)
        end_game_by_resignation(m, 1, "gammon")
        assert not m.is_crawford

    def test_holland_counting(self):
        h = tawla.get_house("international", holland=True)
        m = Match("bg", h, 3, rng=8)
        end_game_by_resignation(m, 1, "gammon")  # 2-0, Crawford next
        assert m.is_crawford
        end_game_by_resignation(m, 0)  # 2-1, post-Crawford
        assert m.is_post_crawford
        trailer = 1
        refused = accepted = 0
        for _ in range(400):
            if m.phase == "move":
                m.play(m.turn, m.legal_moves()[0])
                continue
            if m.phase != "roll":
                break
            if m.turn == trailer:
                if min(m.turns_played) < 2:
                    snapshot_unchanged(m, lambda: m.double(trailer), errors.InvalidAction)
                    refused += 1
                else:
                    m.double(trailer)
                    accepted += 1
                    break
            else:
                assert m.can_double(m.turn)  # the leader is not restricted
            m.roll(m.turn)
        assert refused >= 1 and accepted == 1 and min(m.turns_played) >= 2

    def test_holland_off_lets_the_trailer_double_at_once(self):
        m = Match("bg", "international", 3, rng=8)
        end_game_by_resignation(m, 1, "gammon")
        end_game_by_resignation(m, 0)
        assert m.is_post_crawford
        while not (m.phase == "roll" and m.turn == 1):
            if m.phase == "roll":
                m.roll(m.turn)
            to_roll_phase(m)
        assert min(m.turns_played) < 2 and m.can_double(1)
        m.double(1)
        assert m.phase == "double"


# --- scoring (A2 and friends) -------------------------------------------------------------------
def finish_with_bear_off(m, board, dice=(3, 1), **state):
    """Player 0 bears off his last checker from point 1; returns the points scored."""
    before = m.score[0]
    m = craft(m, board=board, turn=0, phase="move", dice=dice, **state)
    m.step(0, 1, 0)
    return m, m.score[0] - before


A2 = ({1: 1}, {24: 14})  # winner's last checker on 1; loser 14 in his home + 1 on the bar


class TestScoring:
    def test_a2_backgammon_times_cube_in_match_play(self):
        board = pos("bg", *A2, bar=(0, 1))
        m = Match("bg", "international", 7, rng=1)
        assert finish_with_bear_off(m, board)[1] == 3
        assert finish_with_bear_off(m, board, cube=2, owner=1)[1] == 6
        m = Match("bg", tawla.get_house("international", jacoby=True), 7, rng=1)
        assert finish_with_bear_off(m, board)[1] == 3  # Jacoby never applies in matches

    def test_a2_jacoby_only_in_money_sessions(self):
        board = pos("bg", *A2, bar=(0, 1))
        m = Match("bg", "international", 0, rng=1)
        m2, pts = finish_with_bear_off(m, board)
        assert pts == 1 and m2.phase != "over"  # a money session goes on
        assert finish_with_bear_off(m, board, cube=2, owner=1)[1] == 6
        m = Match("bg", tawla.get_house("international", jacoby=False), 0, rng=1)
        assert finish_with_bear_off(m, board)[1] == 3

    def test_a2_adi_is_two(self):
        board = pos("adi", *A2, bar=(0, 1))
        m = Match("adi", "federation", 3, rng=1)
        assert finish_with_bear_off(m, board)[1] == 2

    @pytest.mark.parametrize("cube", [1, 2, 4])
    def test_gammon_and_backgammon_times_cube(self, cube):
        m = Match("bg", "international", 25, rng=1)
        gammon = pos("bg", {1: 1}, {13: 15})
        single = pos("bg", {1: 1}, {13: 14}, off=(14, 1))
        backgammon = pos("bg", {1: 1}, {3: 1, 13: 14})  # a loser checker in the winner's home
        owner = None if cube == 1 else 1
        assert finish_with_bear_off(m, single, cube=cube, owner=owner)[1] == cube
        assert finish_with_bear_off(m, gammon, cube=cube, owner=owner)[1] == 2 * cube
        assert finish_with_bear_off(m, backgammon, cube=cube, owner=owner)[1] == 3 * cube

    @pytest.mark.parametrize("rs,house", [("adi", "federation"), ("adi", "saharat"),
                                          ("mahbusa", "saharat"), ("tawla31-saharat", "saharat")])
    def test_mars_is_two(self, rs, house):
        m = Match(rs, house, 5, rng=1)
        mars = pos(rs, {1: 1}, {24: 15})
        single = pos(rs, {1: 1}, {24: 14}, off=(14, 1))
        m2, pts = finish_with_bear_off(m, mars)
        assert pts == 2 and m2.games[-1]["kind"] == "gammon"
        assert finish_with_bear_off(m, single)[1] == 1
        # resignations: single 1, mars 2, no backgammon
        m = Match(rs, house, 5, rng=1)
        end_game_by_resignation(m, 1, "gammon")
        assert m.score == (2, 0)
        snapshot_unchanged(m, lambda: m.resign(0, "backgammon"), errors.InvalidAction)

    def test_tawla31_fifteen_minus_checkers_off(self):
        m = Match("tawla31", "federation", 21, rng=1)
        board = pos("tawla31", {1: 1}, {20: 10}, off=(14, 5))
        assert finish_with_bear_off(m, board, dice=(2, 1))[1] == 10
        board = pos("tawla31", {1: 1}, {20: 15})
        assert finish_with_bear_off(m, board, dice=(2, 1))[1] == 15
        # resigning concedes 15 minus the resigner's checkers off, whatever the kind
        m = craft(m, board=pos("tawla31", {1: 3}, {20: 8}, off=(12, 7)), turn=0, phase="roll")
        m.resign(1, "single")
        assert m.offer["points"] == 8
        m.accept_resignation(0)
        assert m.score == (8, 0)

    def test_tawla31_quadrant_lock_ends_the_game_at_once(self):
        m = Match("tawla31", "federation", 11, rng=1)
        board = pos("tawla31", {24: 10, 23: 1, 22: 1, 21: 1, 20: 1, 3: 1}, {1: 15})  # E5
        m = craft(m, board=board, turn=0, phase="move", dice=(5, 2))
        assert any((s.from_point, s.to_point) == (24, 19) for s in m.legal_steps())
        m.step(0, 24, 19, dice=5)
        ends = [e for e in m.events if e["type"] == "game_end"]
        assert ends[-1]["reason"] == "quadrant_lock" and ends[-1]["points"] == 15
        assert m.score == (15, 0) and m.phase == "over" and m.winner == 0
        # the 2 was void: the turn has one step
        turn = [e for e in m.events if e["type"] == "turn"][-1]
        assert turn["move"] == "24/19"

    def test_draw_adds_nothing_and_is_replayed(self):
        m = Match("mahbusa", "saharat", 5, rng=1)
        frozen = pos("mahbusa", {24: 1, 1: 14}, {24: 14, 1: 1}, pinned_on_roll=(24,), pinned_opponent=(1,))
        m = craft(m, board=frozen, turn=0, phase="roll", score=[2, 3])
        g = m.game_number
        m.roll(0)
        ends = [e for e in m.events if e["type"] == "game_end"]
        assert ends[-1]["winner"] is None and ends[-1]["points"] == 0 and ends[-1]["reason"] == "frozen"
        assert m.score == (2, 3) and m.game_number == g + 1
        assert m.events[-1]["type"] in ("opening", "turn") or m.phase in ("move", "roll")
        starts = [e for e in m.events if e["type"] == "game_start"]
        assert starts[-1]["game"] == g + 1 and starts[-1]["score"] == [2, 3]

    def test_match_ends_when_score_reaches_or_passes(self):
        m = Match("tawla31", "federation", 11, rng=1)
        m = craft(m, score=[9, 0])
        board = pos("tawla31", {1: 1}, {20: 15})
        m, pts = finish_with_bear_off(m, board, dice=(2, 1))
        assert m.score == (24, 0) and m.phase == "over" and m.winner == 0


# --- timers and timeouts ------------------------------------------------------------------------
class TestTimeouts:
    def test_federation_turn_timer(self):
        c = Clock(100)
        m = Match("tawla31", "federation", 11, rng=2, clock=c)
        assert m.phase == "roll" and m.deadline == 145
        snapshot_unchanged(m, lambda: m.on_timeout(144.9), errors.InvalidAction)
        p = m.turn
        m.on_timeout(145)
        ev = [e for e in m.events if e["type"] == "timeout"][-1]
        assert ev["action"] == "roll" and len(ev["dice"]) == 2
        if m.phase == "move":
            assert m.deadline == 145 + 45 and m.turn == p
        m2 = Match("tawla31", tawla.get_house("federation", turn_time=None), 11, rng=2, clock=c)
        assert m2.deadline is None
        snapshot_unchanged(m2, lambda: m2.on_timeout(10 ** 6), errors.InvalidAction)
        m3 = Match("tawla31", "federation", 11, rng=2)  # no clock: no timers
        assert m3.deadline is None and m3.events[0]["t"] is None

    def test_move_timeout_keeps_the_steps_made(self):
        c = Clock(0)
        for seed in range(30):
            m = Match("bg", tawla.get_house("international", turn_time=60), 7, rng=seed, clock=c)
            if m.phase != "move" or len(m.legal_moves()) < 2:
                continue
            s = m.legal_steps()[-1]
            p = m.turn
            c.t = 10
            m.step(p, s.from_point, s.to_point, dice=s.dice)
            extending = {x.after for x in m.legal_moves()}
            m_before = Match.from_json(m.to_json(), clock=c)
            assert m.deadline == 60
            c.t = 60
            m.on_timeout(60)
            ev = [e for e in m.events if e["type"] == "timeout"][-1]
            assert ev["action"] == "complete"
            after = Position.from_id(ev["after"], m.ruleset).row
            assert after in extending
            turn = [e for e in m.events if e["type"] == "turn"][-1]
            assert turn["how"] == "timeout" and turn["player"] == p
            # the default policy is the ply0 bot: the completion it values most
            cands = m_before.legal_moves()
            want = tawla.Bot(m.ruleset, "ply0").timeout_policy()(
                m_before.turn_start_position, m_before.dice, m_before.played_steps, cands)
            assert after == want.after
            return
        raise AssertionError("no seed with a choice")

    def test_default_policy_is_the_ply0_bot_not_the_first_move(self):
        """On timeout at the start of a move the default plays the ply0 bot's move, here
        one that is not the first legal move; first_legal_policy plays the first."""
        c = Clock(0)
        for seed in range(60):
            m = Match("bg", tawla.get_house("international", turn_time=60), 7, rng=seed, clock=c)
            if m.phase != "move" or len(m.legal_moves()) < 2:
                continue
            pos, dice = m.turn_start_position, m.dice
            cands = m.legal_moves()
            bot_move = tawla.Bot(m.ruleset, "ply0").choose(pos, dice)
            if bot_move.after == cands[0].after:
                continue
            m2 = Match("bg", tawla.get_house("international", turn_time=60), 7, rng=seed, clock=c,
                       timeout_policy=tawla.match.first_legal_policy)
            m.on_timeout(60)
            m2.on_timeout(60)
            after = [e for e in m.events if e["type"] == "timeout"][-1]["after"]
            after2 = [e for e in m2.events if e["type"] == "timeout"][-1]["after"]
            assert Position.from_id(after, m.ruleset).row == bot_move.after
            assert Position.from_id(after2, m.ruleset).row == cands[0].after
            return
        raise AssertionError("no seed where the bot's move is not the first")

    def test_pluggable_policy(self):
        chosen = []

        def last(position, dice, played, candidates):
            chosen.append(candidates[-1])
            return candidates[-1]

        c = Clock(0)
        for seed in range(30):
            m = Match("bg", tawla.get_house("international", turn_time=60), 7, rng=seed, clock=c,
                      timeout_policy=last)
            if m.phase == "move" and len(m.legal_moves()) > 1:
                m.on_timeout(60)
                ev = [e for e in m.events if e["type"] == "timeout"][-1]
                assert Position.from_id(ev["after"], m.ruleset).row == chosen[-1].after
                # replay reproduces the recorded completion whatever the policy
                assert Match.replay(m.to_json()).to_json() == m.to_json()
                return
        raise AssertionError("no seed with a choice")

    def test_pending_double_is_dropped_and_resignation_rejected(self):
        c = Clock(0)
        m = Match("bg", tawla.get_house("international", turn_time=30), 7, rng=9, clock=c)
        to_roll_phase(m)
        p = m.turn
        c.t = 5
        m.double(p)
        assert m.deadline == 35
        m.on_timeout(35)
        assert m.score[p] == 1 and m.game_number == 2
        to_roll_phase(m)
        c.t = 40
        m.resign(m.turn, "single")
        m.on_timeout(70)
        assert m.phase == "roll" and m.offer is None
        assert [e for e in m.events if e["type"] == "timeout"][-1]["action"] == "reject"

    def test_saharat_step_and_turn_clocks_and_pause(self):
        c = Clock(0)
        m = Match("adi", "saharat", 5, rng=3, clock=c)
        c.t = 100
        board = tawla.get_ruleset("adi").initial_position()
        m = craft(m, board=board, turn=0, phase="roll", next_dice=(2, 1), timers={"roll": 115})
        assert m.deadline == 115  # 15 s to roll
        c.t = 110
        m.roll(0)
        assert m.phase == "move" and m.deadline == 125  # step clock 15 s, turn clock 30 s
        c.t = 120
        s = m.legal_steps()[0]
        m.step(0, s.from_point, s.to_point, dice=s.dice)
        assert m.deadline == 135
        c.t = 130
        c.t = 132
        m.resign(1)  # the mover's clocks pause: 8 s of turn, 3 s of step left
        assert m.deadline == 147 and m.to_act == 0
        c.t = 140
        m.reject_resignation(0)
        assert m.deadline == 143 and m.phase == "move" and len(m.played_steps) == 1
        m.on_timeout(143)
        assert m.turn == 1 and [e for e in m.events if e["type"] == "turn"][-1]["how"] == "timeout"


# --- coin tables and forfeits -------------------------------------------------------------------
class TestCoins:
    def test_payout(self):
        m = Match("adi", tawla.get_house("saharat", stake=100), 1, rng=1)
        assert m.payout is None
        end_game_by_resignation(m, 0)
        assert m.payout == {"winner": 1, "pot": 200, "fee": 20, "prize": 180}
        m = Match("adi", tawla.get_house("saharat", stake=7), 1, rng=1)
        end_game_by_resignation(m, 1)
        assert m.payout == {"winner": 0, "pot": 14, "fee": 1, "prize": 13}  # fee rounded down
        m = Match("adi", "saharat", 1, rng=1)
        end_game_by_resignation(m, 1)
        assert m.payout is None  # not a coin table

    def test_leave_forfeits_the_match(self):
        m = Match("mahbusa", tawla.get_house("saharat", stake=50), 5, rng=1)
        end_game_by_resignation(m, 0)
        m.leave(1)
        assert m.phase == "over" and m.winner == 0 and m.end_reason == "forfeit"
        assert m.score == (0, 1) and m.payout == {"winner": 0, "pot": 100, "fee": 10, "prize": 90}
        m = Match("adi", "federation", 3, rng=1)
        m.leave(0)
        assert m.winner == 1 and m.end_reason == "forfeit" and m.payout is None

    def test_grace_period(self):
        c = Clock(0)
        h = tawla.get_house("saharat", stake=10, grace_period=60, turn_time=None, step_time=None)
        m = Match("adi", h, 5, rng=1, clock=c)
        assert m.deadline is None
        c.t = 10
        m.disconnect(1)
        snapshot_unchanged(m, lambda: m.disconnect(1), errors.InvalidAction)
        assert m.deadline == 70
        c.t = 50
        m.reconnect(1)
        assert m.deadline is None
        snapshot_unchanged(m, lambda: m.reconnect(1), errors.InvalidAction)
        c.t = 60
        m.disconnect(0)
        snapshot_unchanged(m, lambda: m.on_timeout(119), errors.InvalidAction)
        m.on_timeout(120)
        assert m.phase == "over" and m.winner == 1 and m.end_reason == "forfeit"
        assert m.payout["prize"] == 18
        # not a coin table: no forfeit for absence
        m = Match("adi", tawla.get_house("saharat", turn_time=None, step_time=None), 5, rng=1, clock=c)
        m.disconnect(0)
        assert m.deadline is None and m.away[0] == c.t

    def test_money_session_leave(self):
        m = Match("bg", "international", 0, rng=1)
        end_game_by_resignation(m, 1, "gammon")
        assert m.score == (1, 0)  # Jacoby: cube at 1
        m.leave(1)  # a game in progress is lost by the leaver first (here at most 1 more point)
        assert m.phase == "over" and m.end_reason == "session_end"
        assert m.winner == 0


# --- JSON, events, replay -----------------------------------------------------------------------
def random_play(m, rng, steps=4000, cube=True, clock=None, check=None):
    """Drive a match with a random legal player; ``check(m)`` after every action."""
    for _ in range(steps):
        if m.phase == "over":
            break
        if clock is not None:
            clock.t += 1
        p = m.to_act
        x = rng.random()
        if m.phase == "roll":
            if cube and m.can_double(p) and x < 0.08:
                m.double(p)
            elif x < 0.01:
                m.resign(1 - p, "single")
            else:
                m.roll(p)
        elif m.phase == "double":
            (m.take if x < 0.7 else m.drop)(p)
        elif m.phase == "resign":
            (m.accept_resignation if x < 0.5 else m.reject_resignation)(p)
        elif m.phase == "move":
            if m.played_steps and x < 0.1:
                m.undo(p)
            elif m.played_steps or x < 0.5:
                ls = m.legal_steps()
                if ls:
                    s = ls[int(rng.integers(len(ls)))]
                    m.step(p, s.from_point, s.to_point, dice=s.dice)
                else:
                    m.confirm(p)
            else:
                ms = m.legal_moves()
                m.play(p, ms[int(rng.integers(len(ms)))])
        if check is not None:
            check(m)
    return m


class TestJson:
    def test_events_are_append_only_and_json_roundtrips(self):
        m = Match("bg", "international", 3, rng=12, clock=Clock())
        seen = []

        def check(m):
            ev = m.events
            assert ev[:len(seen)] == seen
            seen[:] = ev

        random_play(m, np.random.default_rng(0), clock=m._clock, check=check)
        assert m.phase == "over"
        js = m.to_json()
        assert json.loads(js)["format"] == "tawla-match"
        assert Match.from_json(js).to_json() == js
        assert Match.from_json(m.to_dict()).to_json() == js
        assert Match.replay(js).to_json() == js

    def test_replay_detects_tampering(self):
        m = Match("adi", "federation", 3, rng=12)
        random_play(m, np.random.default_rng(1), steps=60)
        d = m.to_dict()
        rolls = [e for e in d["events"] if e["type"] == "roll"]
        rolls[0]["dice"] = [7, 7]
        with pytest.raises(errors.FormatError):
            Match.replay(d)
        with pytest.raises(errors.FormatError):
            Match.from_json("{not json")
        with pytest.raises(errors.FormatError):
            Match.from_json({"format": "other"})

    def test_score_is_the_sum_of_the_games(self):
        for rs, house, L in (("bg", "international", 5), ("tawla31", "federation", 11),
                             ("mahbusa", "saharat", 5)):
            m = random_play(Match(rs, house, L, rng=5), np.random.default_rng(2))
            assert m.phase == "over"
            tot = [0, 0]
            for g in m.games:
                if g["winner"] is not None:
                    tot[g["winner"]] += g["points"]
            assert tuple(tot) == m.score and max(m.score) >= L and m.score[m.winner] >= L


# --- actions are all-or-nothing; what a turn keeps between actions --------------------------------
class TestTransactions:
    def test_a_failing_timeout_policy_changes_nothing(self):
        def boom(position, dice, played, candidates):
            raise ValueError("policy failed")

        def stranger(position, dice, played, candidates):
            return tawla.get_ruleset("bg").initial_position().legal_moves((3, 1))[0]

        c = Clock(0)
        for seed in range(40):
            m = Match("bg", tawla.get_house("international", turn_time=60), 7, rng=seed, clock=c)
            if m.phase == "move" and len(m.legal_moves()) > 1:
                break
        s = m.legal_steps()[0]
        m.step(m.turn, s.from_point, s.to_point, dice=s.dice)
        for policy, exc in ((boom, ValueError), (stranger, errors.InvalidAction)):
            m2 = Match.from_json(m.to_json(), clock=c, timeout_policy=policy)
            snapshot_unchanged(m2, lambda: m2.on_timeout(60), exc)
            assert m2.legal_steps() == m.legal_steps() and m2.played_steps == m.played_steps

    def test_a_roll_that_fails_after_the_throw_puts_the_dice_back(self):
        # one checker left on point 1: every roll bears it off (a forced move, the turn ends at
        # once), and a cube that is not a power of two makes the end of the turn fail
        m = Match("bg", "international", 7, rng=3)
        board = pos("bg", {1: 1}, {19: 15})
        bad = craft(m, board=board, turn=0, phase="roll", cube=3, owner=1)
        rng_before = json.loads(bad.to_json())["state"]["rng"]
        snapshot_unchanged(bad, lambda: bad.roll(0), errors.InvalidAction)  # the rng state included
        good = craft(m, board=board, turn=0, phase="roll", cube=2, owner=1)
        assert json.loads(good.to_json())["state"]["rng"] == rng_before
        good.roll(0)  # the same roll with a good cube: dice thrown, the game won
        assert json.loads(good.to_json())["state"]["rng"] != rng_before
        assert good.games[-1]["winner"] == 0 and good.games[-1]["points"] == 2 * 2

    @pytest.mark.parametrize("rs, house", [("bg", "international"), ("tawla31", "federation"),
                                           ("mahbusa", "saharat"), ("adi", "saharat")])
    def test_kept_lit_steps_equal_a_fresh_load_at_every_step_and_undo(self, rs, house):
        rng = np.random.default_rng(4)
        m = Match(rs, house, rng=21)
        checked = 0
        for _ in range(400):
            if m.phase == "over":
                break
            if m.phase != "move":
                m.roll(m.turn)
                continue
            js = m.to_json()
            fresh = Match.from_json(js)
            assert m.legal_steps() == fresh.legal_steps()
            assert m.legal_moves() == fresh.legal_moves()
            assert m.position == fresh.position and m.dice_left == fresh.dice_left
            assert m.to_json() == js  # queries leave the state as it is
            checked += 1
            lit = m.legal_steps()
            x = rng.random()
            if m.played_steps and x < 0.3:
                m.undo(m.turn)
            elif lit:
                s = lit[int(rng.integers(len(lit)))]
                m.step(m.turn, s.from_point, s.to_point, dice=s.dice)
            else:
                m.confirm(m.turn)
        assert checked > 50


# --- .mat export --------------------------------------------------------------------------------
class TestMatExport:
    def test_backgammon_match_exports_and_replays(self):
        m = random_play(Match("bg", "international", 5, players=("Ann", "Bob"), rng=21),
                        np.random.default_rng(3))
        assert m.phase == "over"
        text = m.to_mat()
        rec = parse_match(text)
        assert rec.match_length == 5 and rec.players == ("Ann", "Bob")
        assert len(rec.games) == m.game_number
        for g, summary in zip(rec.games, m.games):
            assert g.winner == summary["winner"] and g.points == summary["points"]
            assert list(g.score) == summary["score"]
            assert not g.defects
            p = tawla.get_ruleset("bg").initial_position()
            cube = 1
            for a in g.actions:
                if a.kind == "roll":
                    mv = tawla.parse_move(a.play, p, a.dice)
                    p = p.play(mv)
                elif a.kind == "double":
                    assert a.value == 2 * cube
                    cube = a.value
        assert "and the match" in text

    def test_tawla31_export(self):
        m = random_play(Match("tawla31", "federation", 1, rng=4), np.random.default_rng(4))
        rec = parse_match(m.to_mat())
        assert rec.variation == "tawla31" and rec.games[-1].points == m.score[m.winner]


# --- the self-play demo (figures for the closing note) ------------------------------------------
def simple_policy_play(m, rng, max_actions=100000):
    """Engine vs itself through the public API: random legal moves; the cube by pip counts
    (double when 8 % ahead in the race, take unless 20 % behind)."""
    actions = 0
    while m.phase != "over" and actions < max_actions:
        actions += 1
        p = m.to_act
        if m.phase == "roll":
            pips = m.position.pip_count()  # seen from the mover
            if m.can_double(p) and pips[0] < 0.92 * pips[1]:
                m.double(p)
            else:
                m.roll(p)
        elif m.phase == "double":
            pips = m.position.pip_count()  # seen from the doubler
            (m.take if pips[1] < 1.2 * pips[0] else m.drop)(p)
        elif m.phase == "move":
            ms = m.legal_moves()
            m.play(p, ms[int(rng.integers(len(ms)))])
    return m


def demo(seed=2026):
    out = []
    for rs, house, length in (("tawla31", "federation", 11), ("backgammon", "international", 7)):
        t = time.perf_counter()
        m = Match(rs, house, length, players=("Engine A", "Engine B"), rng=seed, clock=Clock(0))
        simple_policy_play(m, np.random.default_rng(seed + 1))
        js = m.to_json()
        kinds = {}
        for e in m.events:
            kinds[e["type"]] = kinds.get(e["type"], 0) + 1
        out.append({"ruleset": rs, "house": house, "length": length, "score": m.score,
                    "winner": m.winner, "games": m.game_number, "events": len(m.events),
                    "event_types": kinds, "json_bytes": len(js.encode()),
                    "mat_bytes": len(m.to_mat().encode()), "seconds": round(time.perf_counter() - t, 2),
                    "replay_identical": Match.replay(js).to_json() == js})
    return out


def test_demo_matches():
    rows = demo()
    for row in rows:
        assert row["winner"] is not None and row["replay_identical"]
        assert max(row["score"]) >= row["length"]
    assert rows[1]["event_types"].get("double", 0) >= 1


if __name__ == "__main__":
    for row in demo():
        print(json.dumps(row))
