"""Legal moves (RULES.md §1.4), move notation and its parsing, and play step by step."""

import numpy as np
import pytest

import tawla
from tawla import errors
from tawla.position import Position

BG = tawla.get_ruleset("backgammon")


def moves_text(pos, dice):
    return sorted(str(m) for m in pos.legal_moves(dice))


# --- §1.4 and notation ------------------------------------------------------------------------
class TestMoves:
    def test_opening_31(self):
        assert moves_text(BG.initial_position(), (3, 1)) == sorted([
            "24/23 24/21", "24/20", "24/21 8/7", "24/21 6/5", "24/23 13/10", "13/9", "13/10 8/7",
            "13/10 6/5", "24/23 8/5", "8/7 8/5", "8/5 6/5", "8/4", "24/23 6/3", "8/7 6/3",
            "6/5 6/3", "6/2"])

    def test_doubles_notation(self):
        texts = moves_text(BG.initial_position(), (3, 3))
        assert "8/5(2) 6/3(2)" in texts and "24/21(2) 13/10(2)" in texts and "13/7(2)" in texts

    def test_hit_on_the_way(self):
        # One checker on 13, fourteen on 1 (cannot move); a blot on 7, 10 blocked.
        p = Position.from_points(BG, {13: 1, 1: 14}, {7: 1, 10: 2, 20: 12})
        assert moves_text(p, (6, 3)) == ["13/7*/4"]
        m = p.legal_moves((6, 3))[0]
        assert [tuple(s) for s in m.steps] == [(13, 7, 6, True), (7, 4, 3, False)]

    def test_bar_and_off(self):
        p = Position.from_points(BG, {6: 2, 5: 2}, {20: 2, 1: 3}, bar=(1, 0))
        assert "bar/22 6/4" in moves_text(p, (3, 2)) or "bar/22 5/3" in moves_text(p, (3, 2))
        home = Position.from_points(BG, {6: 1, 2: 1}, {20: 2})
        # 6/off then 2/off ends the game; 6/4 then 4/off (the 2 first) is the other maximal play
        assert moves_text(home, (6, 2)) == ["6/off", "6/off 2/off"]

    def test_ended_flag_and_pass(self):
        home = Position.from_points(BG, {6: 1, 2: 1}, {20: 2})
        (m,) = [m for m in home.legal_moves((6, 2)) if m.ended]
        assert str(m) == "6/off 2/off" and home.play(m).result() == tawla.GameResult(1, "single", 1)


class TestParse:
    start = BG.initial_position()

    @pytest.mark.parametrize("text,expected", [
        ("24/18 13/8", "24/18 13/8"), ("13/8 24/18", "24/18 13/8"), ("24/13", "24/13"),
        ("24/18/13", "24/13"), ("13/2", "13/2"), ("13/1", None), ("24/18", None)])
    def test_dialects(self, text, expected):
        if expected is None:
            with pytest.raises(errors.IllegalMove) as e:
                tawla.parse_move(text, self.start, (6, 5))
            assert e.value.legal  # names the alternatives
        else:
            assert str(tawla.parse_move(text, self.start, (6, 5))) == expected

    def test_bar_and_off_dialects(self):
        p = Position.from_points(BG, {6: 2, 5: 2, 4: 1}, {20: 2, 2: 1}, bar=(1, 0))
        a = tawla.parse_move("bar/22 6/2*", p, (4, 3))
        b = tawla.parse_move("25/22 6/2", p, (3, 4))  # no star, dice reversed
        assert a == b and str(a) == "bar/22 6/2*"
        home = Position.from_points(BG, {6: 2, 2: 1}, {20: 2})
        assert tawla.parse_move("6/off(2) 2/off", home, (6, 6)) == tawla.parse_move("6/0 6/0 2/0", home, (6, 6))
        with pytest.raises(errors.IllegalMove):  # a third die can bear off the 2: not maximal
            tawla.parse_move("6/off(2)", home, (6, 6))

    def test_multiplier_with_one_hit(self):
        p = Position.from_points(BG, {13: 2, 6: 5, 1: 8}, {5: 1, 24: 14})
        m = tawla.parse_move("13/5*(2)", p, (4, 4))
        assert str(m) == "13/5*(2)"
        assert m.result_position().to_points()["bar"] == (0, 1)

    def test_ambiguous(self):
        # 13/4 with 6-3 via 7 or via 10, hitting a blot on each: two positions, and the text
        # (hits unmarked, as Galaxy writes) names neither exactly.
        p = Position.from_points(BG, {13: 1, 1: 14}, {7: 1, 10: 1, 20: 13})
        with pytest.raises(errors.AmbiguousMove) as e:
            tawla.parse_move("13/4", p, (6, 3))
        assert sorted(map(str, e.value.legal)) == ["13/10*/4", "13/7*/4"]
        assert str(tawla.parse_move("13/7*/4", p, (6, 3))) == "13/7*/4"

    def test_exact_notation_wins(self):
        # GNU Backgammon notation shows an intermediate point only where a hit happened, so
        # "13/4" is the route via 10 (no hit) and "13/7*/4" the route via 7.
        p = Position.from_points(BG, {13: 1, 1: 14}, {7: 1, 20: 14})
        assert sorted(moves_text(p, (6, 3))) == ["13/4", "13/7*/4"]
        assert tawla.parse_move("13/4", p, (6, 3)).result_position().to_points()["bar"] == (0, 0)
        assert tawla.parse_move("13/7*/4", p, (6, 3)).result_position().to_points()["bar"] == (0, 1)

    def test_pass(self):
        closed = Position.from_gnubg_id("27YBAAAAACAAAA")
        assert tawla.parse_move("", closed, (5, 4)).steps == ()
        assert closed.play("Cannot Move", (5, 4)) == closed.flip()
        with pytest.raises(errors.IllegalMove):
            tawla.parse_move("", self.start, (5, 4))

    @pytest.mark.parametrize("text", ["13/8 13/8 13/8", "13/8x", "hello", "26/20", "8/9", "13-8", "0/5"])
    def test_garbage(self, text):
        with pytest.raises(errors.IllegalMove):
            tawla.parse_move(text, self.start, (6, 5))


class TestSteps:
    def test_g1_larger_die_first_step(self):
        # RULES.md §1.3 / G1: 13/8 is refused as a first step although it is a legal single move.
        p = Position.from_points(BG, {13: 1, 1: 14}, {2: 2, 20: 13})
        assert tawla.legal_steps(p, (6, 5)) == [tawla.Step(13, 7, 6, False)]
        assert moves_text(p, (6, 5)) == ["13/7"]

    def test_combined_steps_and_continuation(self):
        start = BG.initial_position()
        steps = tawla.legal_steps(start, (6, 5))
        singles = {(s.from_point, s.to_point, s.die) for s in steps if isinstance(s.die, int)}
        # 24/19 and 6/1 land on the opponent's 6- and 24-points (blocked)
        assert singles == {(24, 18, 6), (13, 7, 6), (8, 2, 6), (13, 8, 5), (8, 3, 5)}
        combined = {(s.from_point, s.to_point, s.die) for s in steps if isinstance(s.die, tuple)}
        # 13/7/2 and 13/8/2: the same step in either order of the dice, listed once (6 first)
        assert combined == {(24, 13, (6, 5)), (13, 2, (6, 5))}
        after = tawla.legal_steps(start, (6, 5), [(24, 18, 6)])
        assert {(s.from_point, s.to_point) for s in after} == {(18, 13), (13, 8), (8, 3)}
        assert tawla.legal_steps(start, (6, 5), [(24, 18, 6), (18, 13, 5)]) == []
        assert tawla.legal_steps(start, (6, 5), [tawla.Step(24, 13, (6, 5), False)]) == []

    def test_illegal_played_step(self):
        with pytest.raises(errors.IllegalMove):
            tawla.legal_steps(BG.initial_position(), (6, 5), [(24, 20, 4)])
