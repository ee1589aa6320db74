"""Hand-checked cases for the three no-hit games (mahbusa, tawla31, tawla31-saharat), the opening
roll, game results of every kind, frozen positions and invalid boards.

Each expectation is derived by hand from RULES.md (the section is named in the docstring), never
computed with the engine. Positions are in the mover's numbering (RULES.md §1.1), the opponent's
checkers too (``Position.from_points``); a final position is the mover's ``{point: count}``.
"""

from __future__ import annotations

import base64

import numpy as np
import pytest

import tawla
from tawla import GameResult, Position, get_ruleset, legal_steps, opening_roll
from tawla.errors import InvalidPosition
from tawla.core.layout import PACKED_WIDTH

MAH, T31E, T31S = "mahbusa", "tawla31", "tawla31-saharat"
ALL_ROLLS = [(a, b) for a in range(1, 7) for b in range(a, 7)]


# Every test runs on the reference engine, and on the compiled one where it is built.
pytestmark = pytest.mark.usefixtures("each_engine")


def pos(ruleset, me, opp, **kw) -> Position:
    return Position.from_points(ruleset, me, opp, **kw)


def key(d: dict) -> tuple:
    return tuple(sorted(d.items()))


def finals(position, dice) -> list[dict]:
    return [m.result_position().to_points()["on_roll"] for m in position.legal_moves(dice)]


def assert_finals(position, dice, expected: list[dict]):
    got = finals(position, dice)
    assert len(got) == len({key(g) for g in got}), "a final position is listed twice"
    assert sorted(map(key, got)) == sorted(map(key, expected))


def singles(position, dice, played=()) -> list[tuple]:
    return [(s.from_point, s.to_point, s.die) for s in legal_steps(position, dice, played)
            if isinstance(s.die, int)]


# =================================================================================================
# Mahbusa (RULES.md §4)
# =================================================================================================
class TestMahbusa:
    def test_pin_on_the_start_point(self):
        """§4.2: Black (on roll) 7/1* pins White's last checker on White's 24 (= Black's 1)."""
        black = pos(MAH, {7: 1, 24: 14}, {1: 1, 12: 14})
        moves = black.legal_moves((6, 1))
        got = sorted((key(m.result_position().to_points()["on_roll"]),
                      m.result_position().to_points()["pinned_opponent"]) for m in moves)
        assert got == sorted([
            (key({24: 13, 23: 1, 1: 1}), (1,)),  # 7/1* 24/23
            (key({24: 13, 18: 1, 6: 1}), ()),  # 24/18 7/6
            (key({24: 12, 23: 1, 18: 1, 7: 1}), ()),  # 24/18 24/23
            (key({24: 13, 17: 1, 7: 1}), ()),  # 24/17
        ])
        pinned = [m for m in moves if m.result_position().to_points()["pinned_opponent"]][0]
        assert any(s.hit for s in pinned.steps)
        white = black.play(pinned)  # White's mother is pinned: default rule, the game goes on
        assert white.to_points()["pinned_on_roll"] == (24,) and white.result() is None

    def test_two_checkers_cannot_be_pinned(self):
        """§4.2: a point with two opponent checkers is closed (7/1 with the 6 is illegal)."""
        black = pos(MAH, {7: 1, 24: 14}, {1: 2, 12: 13})
        assert_finals(black, (6, 1), [
            {24: 13, 18: 1, 6: 1},  # 24/18 7/6
            {24: 12, 23: 1, 18: 1, 7: 1},  # 24/18 24/23
            {24: 13, 17: 1, 7: 1},  # 24/17
        ])

    def test_partial_double_that_pins(self):
        """§1.4 + §4.2: 4-4, 13/9* pins a blot, 9/5 is closed by two checkers: the rest is forfeited."""
        white = pos(MAH, {13: 1, 1: 14}, {9: 1, 5: 2, 20: 12})
        (move,) = white.legal_moves((4, 4))
        after = move.result_position().to_points()
        assert after["on_roll"] == {13 - 4: 1, 1: 14} and after["pinned_opponent"] == (9,)
        assert [(s.from_point, s.to_point, s.die, s.hit) for s in move.steps] == [(13, 9, 4, True)]

    def test_pinned_checker_in_the_movers_home(self):
        """§4.2/§4.3: White's checker on its 4 is pinned: no bear-off, 6/4 and 5/4 are closed."""
        white = pos(MAH, {6: 5, 5: 5, 4: 1, 1: 4}, {4: 1, 19: 14}, pinned_on_roll=[4])
        # 2-1: the 2 can only play 5/3 (6/4 closed, 1/off forbidden), the 1 only 6/5 or 3/2
        assert_finals(white, (2, 1), [
            {6: 4, 5: 5, 4: 1, 3: 1, 1: 4},  # 6/5 5/3
            {6: 5, 5: 4, 4: 1, 2: 1, 1: 4},  # 5/3/2
        ])
        for a, b in ALL_ROLLS:
            for m in white.legal_moves((a, b)):
                assert all(s.to_point not in (0, 4) and s.from_point != 4 for s in m.steps)

    def test_opponent_pinned_in_my_home_does_not_stop_bearoff(self):
        """§4.3: White pins a Black checker on its own 2; White may bear off, and bearing the
        pinner off frees the Black checker, which the 1 may pin again (3/2*)."""
        white = pos(MAH, {6: 3, 5: 3, 4: 3, 3: 5, 2: 1}, {2: 1, 19: 14}, pinned_opponent=[2])
        moves = white.legal_moves((2, 1))
        outs = [m.result_position().to_points() for m in moves]
        # 2/off (the pinner leaves: the Black checker is free) then 3/2* pins it again
        assert any(o["on_roll"] == {6: 3, 5: 3, 4: 3, 3: 4, 2: 1} and o["off"] == (1, 0)
                   and o["pinned_opponent"] == (2,) for o in outs)
        # 2/off 6/5: the Black checker stays free on White's 2
        assert any(o["on_roll"] == {6: 2, 5: 4, 4: 3, 3: 5} and o["pinned_opponent"] == ()
                   and o["opponent"][2] == 1 for o in outs)
        assert (2, 0, 2) in singles(white, (2, 1))

    def test_bearoff_with_the_larger_die(self):
        """§1.5: 5 and 2, roll 6-3: 5/off (6) then 2/off (3, now highest) ends the game; or 5/2 (3)
        then 2/off (6); 2/off with the 3 first is illegal (5 is higher)."""
        white = pos(MAH, {5: 1, 2: 1}, {20: 15})
        assert_finals(white, (6, 3), [{}, {2: 1}])
        assert sorted(singles(white, (6, 3))) == [(5, 0, 6), (5, 2, 3)]
        ended = [m for m in white.legal_moves((6, 3)) if m.ended]
        assert len(ended) == 1 and white.play(ended[0]).result() == GameResult(1, "gammon", 2)

    def test_release_needs_the_last_pinner_to_leave(self):
        """§4.2: two Black checkers pin White on Black's 15: one leaving keeps the pin."""
        black = pos(MAH, {24: 13, 15: 2}, {15: 1, 1: 14}, pinned_opponent=[15])
        for m in black.legal_moves((2, 1)):
            o = m.result_position().to_points()
            if o["on_roll"].get(15, 0) >= 1:
                assert o["pinned_opponent"] == (15,)
            else:  # 15/13 15/14: both pinners left, the White checker is a free blot
                assert o["on_roll"] == {24: 13, 14: 1, 13: 1} and o["pinned_opponent"] == ()
        assert any(m.result_position().to_points()["on_roll"] == {24: 13, 14: 1, 13: 1}
                   for m in black.legal_moves((2, 1)))

    def test_passing_over_a_closed_point_is_allowed(self):
        """§4.2: only landing points matter: 13/7 passes Black's two checkers on 10."""
        white = pos(MAH, {13: 1, 1: 14}, {10: 2, 20: 13})
        assert_finals(white, (6, 3), [{4: 1, 1: 14}])  # 13/7/4; 13/10 is closed
        assert singles(white, (6, 3)) == [(13, 7, 6)]

    def test_plakoto_mother_rule_ends_the_game_mid_turn(self):
        """§4.4 plakoto: White's mother is pinned on Black's 1; the game goes on while Black has a
        checker on its own 24; Black moving it ends the game at once (2 points, other die void)."""
        r = get_ruleset(MAH, mother_rule="plakoto")
        me, opp = {24: 1, 1: 1, 13: 13}, {1: 1, 15: 14}
        black = pos(r, me, opp, pinned_opponent=[1])
        assert black.result() is None and pos(MAH, me, opp, pinned_opponent=[1]).result() is None
        moves = black.legal_moves((6, 5))
        ended = [m for m in moves if m.ended]
        assert sorted(key(m.result_position().to_points()["on_roll"]) for m in ended) == sorted(map(key, [
            {18: 1, 1: 1, 13: 13},  # 24/18, the 5 is void
            {19: 1, 1: 1, 13: 13},  # 24/19, the 6 is void
            {18: 1, 1: 1, 13: 12, 8: 1},  # 13/8 24/18
            {19: 1, 1: 1, 13: 12, 7: 1},  # 13/7 24/19
        ]))
        for m in ended:
            assert black.play(m).result() == GameResult(1, "mother", 2)
        for m in moves:
            if not m.ended:
                assert len(m.steps) == 2 and m.result_position().to_points()["on_roll"][24] == 1
        # default rule: nothing ends, every move plays both dice
        plain = pos(MAH, me, opp, pinned_opponent=[1])
        assert not any(m.ended for m in plain.legal_moves((6, 5)))

    def test_frozen_when_both_sides_are_stuck(self):
        """§1.7: White's 14 on its 1 cannot bear off (its 24 is pinned); Black likewise."""
        white = pos(MAH, {24: 1, 1: 14}, {24: 14, 1: 1}, pinned_on_roll=[24], pinned_opponent=[1])
        assert white.is_frozen() and white.result() == GameResult(None, "draw", 0)
        # a stuck side alone is a pass, not a draw: Black's blot on White's 20 can still move
        white2 = pos(MAH, {24: 1, 1: 14}, {24: 13, 20: 1, 1: 1}, pinned_on_roll=[24],
                     pinned_opponent=[1])
        assert all(white2.legal_moves(d) == [] for d in ALL_ROLLS)
        assert not white2.is_frozen() and white2.result() is None


# =================================================================================================
# Tawla 31, federation (RULES.md §5)
# =================================================================================================
class TestTawla31:
    def test_lock_released_mid_turn_by_a_double(self):
        """§5.3 (D18): runner on 9, 5-5: 9/4 reaches home first, then three 5s from the stack."""
        white = pos(T31E, {24: 14, 9: 1}, {1: 15})
        assert_finals(white, (5, 5), [
            {24: 13, 9: 1, 4: 1},  # 9/4 24/9
            {24: 12, 19: 1, 14: 1, 4: 1},  # 9/4 24/19 24/14
            {24: 11, 19: 3, 4: 1},  # 9/4 24/19(3)
        ])
        assert singles(white, (5, 5)) == [(9, 4, 5)]

    def test_lock_needs_home_not_just_progress(self):
        """§5.3: runner on 8, 1-1: 8/7 does not release, 8/6 does; then two more 1s."""
        white = pos(T31E, {24: 14, 8: 1}, {1: 15})
        assert_finals(white, (1, 1), [
            {24: 14, 4: 1},  # 8/4
            {24: 13, 23: 1, 5: 1},  # 8/5 24/23
            {24: 13, 22: 1, 6: 1},  # 8/6 24/22
            {24: 12, 23: 2, 6: 1},  # 8/6 24/23(2)
        ])

    def test_partial_double(self):
        """§1.4: 4-4 from the start with Black's runner on White's 16: only 24/20 (locked stack)."""
        white = pos(T31E, {24: 15}, {1: 14, 16: 1})
        assert_finals(white, (4, 4), [{24: 14, 20: 1}])

    def test_blocked_runner_passes(self):
        """§5.3: the runner on 13 cannot land on 7 or 8 (one Black checker each) and the stack is
        locked: the turn passes; Black can move, so it is not frozen."""
        white = pos(T31E, {24: 14, 13: 1}, {8: 1, 7: 1, 1: 13})
        assert white.legal_moves((6, 5)) == [] and legal_steps(white, (6, 5)) == []
        assert white.result() is None and not white.is_frozen()
        assert white.play("", (6, 5)) == white.flip()

    def test_single_checker_closes_a_point_but_can_be_passed(self):
        """§5.2: 13/8 is closed by one Black checker; 13/7 passes over it."""
        white = pos(T31E, {13: 1, 3: 14}, {8: 1, 1: 14})
        assert singles(white, (6, 5)) == [(13, 7, 6)]
        assert_finals(white, (6, 5), [{2: 1, 3: 14}])  # 13/7/2

    def test_bearoff_with_the_larger_die_scores_checkers_left(self):
        """§1.5, §5.7: 4 and 3 left, 6-5: both off; Black has 5 off, so White scores 10."""
        white = pos(T31E, {4: 1, 3: 1}, {19: 10}, off=(13, 5))
        (move,) = white.legal_moves((6, 5))
        assert move.ended and move.result_position().to_points()["on_roll"] == {}
        assert white.play(move).result() == GameResult(1, "single", 10)

    def test_bearoff_option_off(self):
        """§5.5 OPTION off: E4's position bears off 5/off and 4/off."""
        r = get_ruleset(T31E, no_bearoff_with_opponent_in_home=False)
        white = pos(r, {2: 5, 3: 5, 4: 4, 5: 1}, {1: 1, 24: 14})
        assert_finals(white, (6, 5), [{2: 5, 3: 5, 4: 3}])

    def test_opponent_leaving_home_allows_bearoff(self):
        """§5.5 is re-checked per position: once Black's last checker left White's 1..6, White bears off."""
        white = pos(T31E, {2: 5, 3: 5, 4: 5}, {7: 1, 24: 14})
        assert_finals(white, (6, 5), [{2: 5, 3: 5, 4: 3}])

    def test_quadrant_lock_mid_double(self):
        """§5.6 (D17/D18): 24/23 completes 19..24 with the first 1: the game ends, the other
        three 1s are void. Other lock-completing plays must keep 19..22 covered until 24/23:
        3/2 first, or 22/21 24/23 23/22 (the hole moves down and back)."""
        white = pos(T31E, {24: 10, 22: 1, 21: 1, 20: 1, 19: 1, 3: 1}, {1: 15})
        ended = [m for m in white.legal_moves((1, 1)) if m.ended]
        assert sorted(key(m.result_position().to_points()["on_roll"]) for m in ended) == sorted(map(key, [
            {24: 9, 23: 1, 22: 1, 21: 1, 20: 1, 19: 1, 3: 1},  # 24/23
            {24: 9, 23: 1, 22: 1, 21: 1, 20: 1, 19: 1, 2: 1},  # 3/2 24/23
            {24: 8, 23: 1, 22: 1, 21: 2, 20: 1, 19: 1, 3: 1},  # 22/21 24/23 23/22 24/23
        ]))
        assert sorted(len(m.steps) for m in ended) == [1, 2, 4]
        for m in ended:
            assert white.play(m).result() == GameResult(1, "quadrant_lock", 15)
        for m in white.legal_moves((1, 1)):
            assert m.ended or len(m.steps) == 4

    def test_second_player_six_six_after_e1(self):
        """§5.3: after White's E1 (24/18 24/6), Black's 6-6 is E1 again: 24/6 then 24/18."""
        start = get_ruleset(T31E).initial_position()
        black = start.play(start.legal_moves((6, 6))[0])
        # White's stack on Black's 1 (A24), White on Black's 7 (A18) and Black's 19 (A6)
        assert black.to_points()["opponent"] == {1: 13, 7: 1, 19: 1}
        assert_finals(black, (6, 6), [{24: 13, 18: 1, 6: 1}])


# =================================================================================================
# Tawla 31, Saharat (RULES.md §6)
# =================================================================================================
class TestTawla31Saharat:
    def test_lock_released_mid_turn_on_reaching_own_12_or_lower(self):
        """§6.3: runner on 13, 2-1: 13/12 is Black's stack; 13/11 releases the lock for 24/23."""
        white = pos(T31S, {24: 14, 13: 1}, {12: 14, 8: 1})
        assert_finals(white, (2, 1), [{24: 14, 10: 1}, {24: 13, 23: 1, 11: 1}])
        assert singles(white, (2, 1)) == [(13, 11, 2)]

    @pytest.mark.parametrize("dice,final", [((4, 4), {24: 14, 16: 1}), ((3, 3), {24: 14, 15: 1}),
                                            ((6, 6), {24: 14, 18: 1})])
    def test_second_player_partial_doubles(self, dice, final):
        """§6.3 (D7): after White's 24/13, Black's runner stops before its 12 (White's stack):
        4-4 plays two 4s, 3-3 three 3s, 6-6 one 6; the rest is forfeited."""
        start = get_ruleset(T31S).initial_position()
        black = start.play(start.legal_moves((6, 5))[0])
        assert_finals(black, dice, [final])

    def test_blocked_runner_passes(self):
        """§6.2/§6.3: runner on 16, 6-5: 16/10 and 16/11 closed by single Black checkers, the stack
        is locked: a pass, not a frozen position (Black can move)."""
        white = pos(T31S, {24: 14, 16: 1}, {12: 13, 11: 1, 10: 1})
        assert white.legal_moves((6, 5)) == [] and legal_steps(white, (6, 5)) == []
        assert not white.is_frozen() and white.result() is None

    def test_bearoff_with_the_larger_die_past_an_opponent_checker(self):
        """§6.4: a Black checker passing White's home does not stop White bearing off; 6-4 from 5
        and 3: 5/off 3/off (game over, mars) or 5/1 3/off."""
        white = pos(T31S, {5: 1, 3: 1}, {2: 1, 12: 14})
        assert_finals(white, (6, 4), [{}, {1: 1}])
        assert sorted(singles(white, (6, 4))) == [(5, 0, 6), (5, 1, 4)]
        (end,) = [m for m in white.legal_moves((6, 4)) if m.ended]
        assert white.play(end).result() == GameResult(1, "gammon", 2)

    def test_whole_start_quadrant_is_a_wall(self):
        """§6.5: 24/19 would hold all of White's 19..24 (= Black's 7..12): illegal while Black has
        no checker on its 1..6 and none off; legal once Black's runner is on its 6 (White's 18)."""
        me = {24: 10, 23: 1, 22: 1, 21: 1, 20: 1, 10: 1}
        white = pos(T31S, me, {12: 14, 8: 1})
        assert (24, 19, 5) not in singles(white, (5, 4))
        home = pos(T31S, me, {12: 14, 18: 1})
        assert (24, 19, 5) in singles(home, (5, 4))

    def test_seam_wall_legal_after_black_bears_off(self):
        """§6.5 rule 3: F5's seam wall is legal once Black has borne off a checker."""
        me = {24: 8, 23: 1, 22: 1, 2: 1, 1: 1, 5: 3}
        white = pos(T31S, me, {12: 14}, off=(0, 1))
        assert (5, 3, 2) in singles(white, (2, 1))

    def test_long_run_across_the_opponents_seam(self):
        """§6.5 / D8: 9/8 makes White's 8..14 (= Black's 20..24, 1, 2), seven points in a row in
        White's numbering, but two runs (5 + 2) on Black's path: no wall, although Black has
        none off (the over-strict reading would refuse it)."""
        white = pos(T31S, {14: 2, 13: 2, 12: 2, 11: 2, 10: 2, 9: 2, 20: 3}, {6: 15})
        assert (9, 8, 1) in singles(white, (1, 2))
        assert any(all(f.get(p) for p in range(8, 15)) for f in finals(white, (1, 2)))

    def test_flip_rotates_half_a_board(self):
        """§1.1 SAME geometry: White's 7 is Black's 19; White's 24 is Black's 12."""
        white = pos(T31S, {7: 1, 24: 14}, {12: 15})
        black = white.flip()
        assert black.to_points()["on_roll"] == {24: 15}
        assert black.to_points()["opponent"] == {19: 1, 12: 14}
        assert black.flip() == white
        start = get_ruleset(T31S).initial_position()
        assert start.flip() == start

    def test_frozen_behind_an_illegal_wall(self):
        """§1.7 with §6.5: White's 15 on its 24 face Black's six points 18..23, two or more on each;
        no White checker ahead and none off, so every Black step would leave an illegal wall.
        (Not reachable in play: the wall itself could never have been built.)"""
        prime = {23: 3, 22: 3, 21: 3, 20: 2, 19: 2, 18: 2}
        white = pos(T31S, {24: 15}, prime)
        assert white.is_frozen() and white.flip().is_frozen()
        assert white.result() == GameResult(None, "draw", 0)
        assert all(white.legal_moves(d) == [] and white.flip().legal_moves(d) == [] for d in ALL_ROLLS)
        # with one White checker off, the wall is legal: Black can move, nothing is frozen
        loose = pos(T31S, {24: 14}, prime, off=(1, 0))
        assert not loose.is_frozen() and loose.result() is None
        assert loose.flip().legal_moves((1, 1))

    def test_single_checker_closes_a_point(self):
        """§6.2: 13/8 is closed by one Black checker, 13/7 passes it."""
        white = pos(T31S, {13: 1, 3: 14}, {8: 1, 12: 14})
        assert singles(white, (6, 5)) == [(13, 7, 6)]
        assert_finals(white, (6, 5), [{2: 1, 3: 14}])


# =================================================================================================
# Opening roll (RULES.md §1.6, D9)
# =================================================================================================
class TestOpeningRoll:
    @pytest.mark.parametrize("ruleset", tawla.RULESET_IDS)
    def test_default_procedure(self, ruleset):
        reroll = ruleset == T31E  # only the federation's 31: the winner rolls both dice again
        for a in range(1, 7):
            for b in range(1, 7):
                o = opening_roll(ruleset, a, b)
                if a == b:
                    assert (o.starter, o.dice, o.reroll) == (None, None, False)  # tie: throw again
                elif reroll:
                    assert (o.starter, o.dice, o.reroll) == (0 if a > b else 1, None, True)
                else:
                    assert (o.starter, o.dice, o.reroll) == (0 if a > b else 1, (max(a, b), min(a, b)), False)

    def test_literal_examples(self):
        assert opening_roll("backgammon", 3, 5) == tawla.OpeningRoll(1, (5, 3), False)
        assert opening_roll("mahbusa", 6, 1) == tawla.OpeningRoll(0, (6, 1), False)
        assert opening_roll("tawla31-saharat", 2, 4) == tawla.OpeningRoll(1, (4, 2), False)
        assert opening_roll("31", 6, 1) == tawla.OpeningRoll(0, None, True)
        assert opening_roll("adi", 4, 4) == tawla.OpeningRoll(None, None, False)

    def test_opening_reroll_option(self):
        for name in ("backgammon", "adi", MAH, T31S):
            assert opening_roll(get_ruleset(name, opening_reroll=True), 5, 2) == tawla.OpeningRoll(0, None, True)
        assert opening_roll(get_ruleset(T31E, opening_reroll=False), 2, 5) == tawla.OpeningRoll(1, (5, 2), False)

    @pytest.mark.parametrize("dice", [(0, 3), (3, 7), (True, 2), ("6", 1)])
    def test_bad_dice(self, dice):
        with pytest.raises(tawla.errors.InvalidDice):
            opening_roll("adi", *dice)

    def test_first_move_of_a_003_game_is_never_a_double(self):
        """D9: the starter plays the two different opening dice."""
        assert all(o.dice[0] != o.dice[1] for o in (opening_roll(MAH, a, b) for a in range(1, 7)
                                                    for b in range(1, 7) if a != b))


# =================================================================================================
# Game results of every kind (RULES.md §1.7, §1.8, §2.2, §3, §4.4-4.5, §5.6-5.7, §6.6)
# =================================================================================================
def over(ruleset, loser: dict, loser_off: int, *, bar=0) -> Position:
    """The loser on roll; the winner (the opponent) has borne off all 15."""
    return Position.from_points(ruleset, loser, {}, bar=(bar, 0), off=(loser_off, 15))


class TestResults:
    @pytest.mark.parametrize("cube", [1, 2, 4, 16])
    def test_backgammon_kinds(self, cube):
        assert over("backgammon", {6: 12}, 3).result(cube) == GameResult(1, "single", cube)
        assert over("backgammon", {18: 1, 6: 14}, 0).result(cube) == GameResult(1, "gammon", 2 * cube)
        # a checker in the winner's home (the loser's own 19..24) or on the bar: backgammon
        assert over("backgammon", {19: 1, 6: 14}, 0).result(cube) == GameResult(1, "backgammon", 3 * cube)
        assert over("backgammon", {6: 14}, 0, bar=1).result(cube) == GameResult(1, "backgammon", 3 * cube)
        # with a checker off, a checker in the winner's home is only a single game
        assert over("backgammon", {24: 1, 6: 13}, 1).result(cube) == GameResult(1, "single", cube)

    def test_backgammon_bar_option(self):
        r = get_ruleset("backgammon", bar_backgammon_counts_double=True)  # D14
        assert over(r, {6: 14}, 0, bar=1).result(2) == GameResult(1, "gammon", 4)
        assert over(r, {20: 1, 6: 14}, 0).result(2) == GameResult(1, "backgammon", 6)

    def test_adi_kinds(self):
        assert over("adi", {6: 12}, 3).result() == GameResult(1, "single", 1)
        assert over("adi", {18: 1, 6: 14}, 0).result() == GameResult(1, "gammon", 2)
        assert over("adi", {19: 1, 6: 14}, 0).result() == GameResult(1, "gammon", 2)  # no triple
        assert over("adi", {6: 14}, 0, bar=1).result(cube=8) == GameResult(1, "gammon", 2)

    @pytest.mark.parametrize("ruleset", [MAH, T31S])
    def test_mars_games(self, ruleset):
        assert over(ruleset, {6: 14}, 1).result() == GameResult(1, "single", 1)
        assert over(ruleset, {24: 15}, 0).result() == GameResult(1, "gammon", 2)
        assert over(ruleset, {24: 15}, 0).result(cube=4) == GameResult(1, "gammon", 2)

    def test_tawla31_checkers_left(self):
        for off, points in [(0, 15), (1, 14), (7, 8), (14, 1)]:
            loser = {24: 15 - off}
            kind = "gammon" if off == 0 else "single"
            assert over(T31E, loser, off).result() == GameResult(1, kind, points)

    def test_quadrant_lock(self):
        white = pos(T31E, {24: 5, 23: 2, 22: 2, 21: 2, 20: 2, 19: 2}, {1: 15})
        assert white.result() == GameResult(0, "quadrant_lock", 15)
        assert white.flip().result() == GameResult(1, "quadrant_lock", 15)
        off = pos(get_ruleset(T31E, quadrant_lock_win=False), {24: 5, 23: 2, 22: 2, 21: 2, 20: 2, 19: 2},
                  {1: 15})
        assert off.result() is None

    def test_mother(self):
        r = get_ruleset(MAH, mother_rule="plakoto")
        white = pos(r, {24: 1, 10: 14}, {24: 1, 19: 14}, pinned_on_roll=[24])
        assert white.result() == GameResult(1, "mother", 2)
        assert white.flip().result() == GameResult(0, "mother", 2)
        both = pos(r, {24: 1, 1: 1, 10: 13}, {24: 1, 1: 1, 19: 13}, pinned_on_roll=[24],
                   pinned_opponent=[1])
        assert both.result() == GameResult(None, "draw", 0)

    def test_winner_relative_to_the_seat(self):
        won = Position.from_points("adi", {}, {6: 15}, off=(15, 0))
        assert won.result() == GameResult(0, "gammon", 2)
        assert won.flip().result() == GameResult(1, "gammon", 2)

    @pytest.mark.parametrize("ruleset", tawla.RULESET_IDS)
    def test_start_is_not_over(self, ruleset):
        start = get_ruleset(ruleset).initial_position()
        assert start.result() is None and not start.is_frozen()


# =================================================================================================
# Frozen positions (RULES.md §1.7)
# =================================================================================================
class TestFrozen:
    def test_mahbusa_mutual_mother_pin(self):
        frozen = pos(MAH, {24: 1, 1: 14}, {24: 14, 1: 1}, pinned_on_roll=[24], pinned_opponent=[1])
        assert frozen.is_frozen() and frozen.result() == GameResult(None, "draw", 0)
        # one White checker on its 6 instead of its 1 can still move inside (6/5 ...): no draw
        loose = pos(MAH, {24: 1, 6: 1, 1: 13}, {24: 14, 1: 1}, pinned_on_roll=[24], pinned_opponent=[1])
        assert not loose.is_frozen() and loose.result() is None
        assert not loose.flip().is_frozen() and loose.flip().legal_moves((6, 5)) == []

    def test_tawla31_stuck_side_is_a_pass(self):
        """A side with nothing movable while the other can move passes (E4, a blocked runner)."""
        e4 = pos(T31E, {2: 5, 3: 5, 4: 4, 5: 1}, {1: 1, 24: 14})
        assert all(e4.legal_moves(d) == [] for d in [(6, 5), (6, 6), (5, 5)])
        assert not e4.is_frozen() and e4.result() is None
        runner = pos(T31E, {24: 14, 13: 1}, {12: 1, 11: 1, 10: 1, 9: 1, 8: 1, 7: 1, 1: 9})
        assert all(runner.legal_moves(d) == [] for d in ALL_ROLLS)
        assert not runner.is_frozen() and runner.result() is None

    def test_tawla31_saharat_illegal_wall_freezes(self):
        white = pos(T31S, {24: 15}, {23: 3, 22: 3, 21: 3, 20: 2, 19: 2, 18: 2})
        assert white.is_frozen() and white.result() == GameResult(None, "draw", 0)

    @pytest.mark.parametrize("ruleset", ["backgammon", "adi"])
    def test_hitting_games_never_freeze(self, ruleset):
        """§1.7: a mutual closeout with both sides on the bar (unreachable in play) is not a draw."""
        white = Position.from_points(ruleset, {1: 3, 2: 3, 3: 2, 4: 2, 5: 2, 6: 2},
                                     {19: 3, 20: 3, 21: 2, 22: 2, 23: 2, 24: 2}, bar=(1, 1))
        assert all(white.legal_moves(d) == [] for d in ALL_ROLLS)
        assert not white.is_frozen() and white.result() is None


# =================================================================================================
# Bad input: every constructor raises InvalidPosition
# =================================================================================================
def _row(me: dict, opp: dict, pinned_me=()) -> bytes:
    """A packed row by hand (tawla.core.layout): counts, off = 15 - on board, pin bits."""
    a, b = [0] * 26, [0] * 26
    for p, n in me.items():
        a[p] = n
    for p, n in opp.items():
        b[p] = n
    a[0], b[0] = 15 - sum(a), 15 - sum(b)
    bits = sum(1 << (p - 1) for p in pinned_me)
    return bytes(a) + bytes(b) + bytes((bits & 255, bits >> 8 & 255, bits >> 16 & 255)) + b"\0"


def _id(row: bytes, ruleset_byte: int = 0) -> str:
    """Position.id() by hand: the 52 counts as nibbles, the 3 pin bytes, the byte that names the
    ruleset (0: an ID written before IDs named theirs), base64."""
    nib = bytes(row[i] | row[i + 1] << 4 for i in range(0, 52, 2))
    return base64.urlsafe_b64encode(nib + row[52:55] + bytes((ruleset_byte,))).decode()


BAD = [
    # mahbusa: two pinned checkers on one point (on-roll side pinned, then the opponent)
    (MAH, {10: 2, 24: 13}, {10: 1, 1: 14}, (10,), {"pinned_on_roll": [10]}),
    (MAH, {10: 1, 24: 14}, {10: 2, 1: 13}, (), {"pinned_opponent": [10]}),
    # tawla31 / tawla31-saharat: both colours on a point
    (T31E, {5: 1, 24: 14}, {5: 1, 1: 14}, (), {}),
    (T31S, {20: 2, 24: 13}, {20: 1, 12: 14}, (), {}),
]


@pytest.mark.parametrize("ruleset,me,opp,pins,kw", BAD)
def test_bad_boards_raise_from_every_constructor(ruleset, me, opp, pins, kw):
    with pytest.raises(InvalidPosition):
        Position.from_points(ruleset, me, opp, **kw)
    row = _row(me, opp, pins)
    assert len(row) == PACKED_WIDTH
    with pytest.raises(InvalidPosition):
        Position.from_array(np.frombuffer(row, dtype=np.uint8), ruleset)
    with pytest.raises(InvalidPosition):
        Position.from_id(_id(row), ruleset)


def test_good_pin_stack_accepted_by_every_constructor():
    me, opp = {10: 1, 24: 14}, {10: 3, 1: 12}
    p = Position.from_points(MAH, me, opp, pinned_on_roll=[10])
    row = _row(me, opp, (10,))
    assert p.row == row
    assert Position.from_array(np.frombuffer(row, dtype=np.uint8), MAH) == p
    assert Position.from_id(_id(row), MAH) == p and p.id() == _id(row, 3)  # mahbusa: code 2, + 1
    assert Position.from_id(p.id()) == p
    # the same board is invalid in the blocking games
    for r in (T31E, T31S):
        with pytest.raises(InvalidPosition):
            Position.from_array(np.frombuffer(_row(me, opp), dtype=np.uint8), r)
