"""The server engine: Match (RULES.md §1.3, §1.6-§1.9, §2.3-§2.4, §5.6-§5.7, §7).

Rule corners (cube, Crawford, Jacoby, Holland, scoring per ruleset, draws), the phase and
turn checks, JSON and replay, the .mat export, and a self-play demo (``python
tests/test_match.py`` prints its figures). House profiles are in test_match_house.py,
timers, timeouts, coin tables and forfeits in test_match_timers.py, the all-or-nothing
actions in test_match_transactions.py.
"""

import json
import time

import numpy as np
import pytest

import tawla
from tawla import errors
from tawla.formats.matfile import parse_match
from tawla.match import Match
from match_helpers import (Clock, craft, end_game_by_resignation, pos, random_move_action, snapshot_unchanged,
                           to_roll_phase)


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

    def test_a_combined_step_is_listed_once_and_either_order_plays_it(self):
        m = Match("bg", "international", 7, rng=3)
        m = craft(m, board=tawla.get_ruleset("bg").initial_position(), turn=0, phase="move", dice=(6, 4))
        lit = m.legal_steps()
        assert [s.dice for s in lit if (s.from_point, s.to_point) == (24, 14)] == [(6, 4)]
        keys = [(s.from_point, s.to_point, s.hit, tuple(sorted(s.dice))) for s in lit]
        assert len(keys) == len(set(keys))
        listed = m.legal_steps()[-2]
        assert (listed.from_point, listed.to_point, listed.dice) == (24, 14, (6, 4))
        other = craft(m, board=tawla.get_ruleset("bg").initial_position(), turn=0, phase="move", dice=(6, 4))
        m.step(0, 24, 14, dice=listed.dice)
        other.step(0, 24, 14, dice=(4, 6))  # the order not listed plays the same step, as asked
        assert other.position == m.position and other.played_steps == (tawla.Step(24, 14, (4, 6), False),)
        assert other.events[-1]["dice"] == [4, 6] and other.dice_left == m.dice_left == ()
        # 24/18*/14 and 24/20/14 hit differently: both orders are listed
        board = pos("bg", {24: 2, 6: 13}, {18: 1, 1: 14})
        m = craft(m, board=board, turn=0, phase="move", dice=(6, 4))
        both = [s for s in m.legal_steps() if (s.from_point, s.to_point) == (24, 14)]
        assert sorted((s.dice, s.hit) for s in both) == [((4, 6), False), ((6, 4), True)]

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
            random_move_action(m, p, rng, by_steps=x < 0.5, undo_below=0.1, x=x)
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
