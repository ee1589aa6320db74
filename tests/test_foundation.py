"""Foundation: rulesets, positions and their packed rows / IDs, notation, parsing, steps, CLI.

RULES.md §1.1-§1.5 and §2.1 (backgammon); identifiers at the top of RULES.md.
"""

import numpy as np
import pytest

import tawla
from tawla import errors
from tawla.position import Position

BG = tawla.get_ruleset("backgammon")


def moves_text(pos, dice):
    return sorted(str(m) for m in pos.legal_moves(dice))


# --- rulesets ---------------------------------------------------------------------------------
class TestRulesets:
    @pytest.mark.parametrize("alias,name", [
        ("backgammon", "backgammon"), ("bg", "backgammon"), ("adi", "adi"), ("sheshbesh", "adi"),
        ("mahbusa", "mahbusa"), ("tawla31", "tawla31"), ("31", "tawla31"),
        ("tawla31-saharat", "tawla31-saharat"), ("BG", "backgammon")])
    def test_every_id_and_alias(self, alias, name):
        r = tawla.get_ruleset(alias)
        assert r.name == name
        assert hash(r) == hash(tawla.get_ruleset(name))
        with pytest.raises(Exception):
            r.name = "x"  # frozen

    def test_options_change_equality(self):
        m = tawla.get_ruleset("mahbusa", mother_rule="plakoto")
        assert m != tawla.get_ruleset("mahbusa") and m.mother_rule == "plakoto"
        assert dict(m.options) == {"mother_rule": "plakoto"}
        assert tawla.get_ruleset("adi", opening_reroll=True).opening_reroll
        assert not tawla.get_ruleset("31", no_bearoff_with_opponent_in_home=False).bearoff_no_opponent_in_home
        assert tawla.get_ruleset(m) is m

    @pytest.mark.parametrize("bad", [dict(name="chess"), dict(name="mahbusa", mother_rule="greek"),
                                     dict(name="adi", mother_rule="plakoto"), dict(name="bg", colour=1),
                                     dict(name="bg", opening_reroll="yes"), dict(name=3)])
    def test_bad_rulesets(self, bad):
        with pytest.raises(errors.UnsupportedRuleset):
            tawla.get_ruleset(**bad)

    def test_start_positions_are_the_tables_of_1_2(self):
        p = tawla.get_ruleset("bg").initial_position()
        assert p.to_points()["on_roll"] == {24: 2, 13: 5, 8: 3, 6: 5}
        assert p.to_points()["opponent"] == {1: 2, 12: 5, 17: 3, 19: 5}
        assert p.pip_count() == (167, 167)
        assert tawla.get_ruleset("mahbusa").initial_position().to_points()["opponent"] == {1: 15}
        assert tawla.get_ruleset("tawla31").initial_position().to_points()["opponent"] == {1: 15}
        # SAME geometry: the opponent's 24 is the mover's 12 (§1.1)
        assert tawla.get_ruleset("tawla31-saharat").initial_position().to_points()["opponent"] == {12: 15}


# --- positions, rows, IDs -------------------------------------------------------------------
class TestPosition:
    def test_from_points_round_trip_and_flip(self):
        p = Position.from_points(BG, {24: 1, 13: 4, 6: 5, 5: 2}, {3: 2, 12: 5, 17: 3, 19: 4},
                                 bar=(1, 1), off=(2, 0))
        assert Position.from_points(BG, **p.to_points()) == p
        f = p.flip()
        assert f.to_points()["on_roll"] == {22: 2, 13: 5, 8: 3, 6: 4}
        assert f.to_points()["bar"] == (1, 1) and f.to_points()["off"] == (0, 2)
        assert f.flip() == p
        assert p.pip_count() == (25 + 24 + 52 + 30 + 10, 25 + 2 * 22 + 5 * 13 + 3 * 8 + 4 * 6) == f.pip_count()[::-1]

    def test_row_and_ids(self):
        p = tawla.get_ruleset("bg").initial_position()
        row = p.to_array()
        assert row.dtype == np.uint8 and row.shape == (tawla.PACKED_WIDTH,) and tawla.PACKED_WIDTH <= 64
        assert list(row[[24, 13, 8, 6]]) == [2, 5, 3, 5]
        assert list(row[[26 + 1, 26 + 12, 26 + 17, 26 + 19]]) == [2, 5, 3, 5]
        assert Position.from_array(row, "bg") == p
        assert Position.from_id(p.id(), "bg") == p
        assert p.gnubg_id() == "4HPwATDgc/ABMA"
        # equality includes the ruleset
        assert Position.from_array(row, "adi") != p

    def test_batch_helpers(self):
        ps = [tawla.get_ruleset("bg").initial_position(), Position.from_gnubg_id("jGfkASjg8wcBMA")]
        arr = tawla.positions_to_array(ps)
        assert arr.shape == (2, tawla.PACKED_WIDTH) and arr.dtype == np.uint8
        assert tawla.array_to_positions(arr, "bg") == ps
        ids = tawla.array_to_ids(arr, "bg")
        assert (tawla.ids_to_array(ids, "bg") == arr).all()

    def test_gnubg_ids(self):
        p = Position.from_gnubg_id("jGfkASjg8wcBMA")
        assert p.gnubg_id() == "jGfkASjg8wcBMA"
        assert Position.from_gnubg_id("4HPwATDgc/ABMA") == BG.initial_position()
        closed = Position.from_gnubg_id("27YBAAAAACAAAA")
        assert closed.legal_moves((5, 4)) == []  # one on the bar against a closed board

    def test_diagram(self):
        text = str(BG.initial_position())
        assert "pips X 167 O 167" in text and "2X" in text and "5O" in text


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


# --- bad input raises tawla.errors and changes nothing ------------------------------------------
class TestBadInput:
    @pytest.mark.parametrize("text", ["", "4HPwATDgc/ABM", "4HPwATDgc/ABMA=", "!!!!!!!!!!!!!!", "////////////////",
                                      "4HPwATDgc/ABMB", 42])
    def test_bad_gnubg_ids(self, text):
        with pytest.raises(errors.TawlaError):
            Position.from_gnubg_id(text)

    @pytest.mark.parametrize("text", ["", "x" * 40, "A" * 40, "A" * 39, 3.0])
    def test_bad_tawla_ids(self, text):
        with pytest.raises(errors.TawlaError):
            Position.from_id(text, "bg")

    @pytest.mark.parametrize("kwargs", [
        dict(on_roll={24: 16}, opponent={1: 15}),
        dict(on_roll={24: 15}, opponent={24: 15}),
        dict(on_roll={25: 15}, opponent={1: 15}),
        dict(on_roll={24: 15}, opponent={1: 14}, off=(0, 0)),
        dict(on_roll={24: 15}, opponent={1: 15}, bar=(1, 0)),
        dict(on_roll={24: 15}, opponent={1: 15}, off=(0, 1)),
        dict(on_roll={24: -1, 23: 16}, opponent={1: 15}),
        dict(on_roll=[1], opponent={1: 15}),
        dict(on_roll={24: 15}, opponent={1: 15}, pinned_on_roll=(24,)),
    ])
    def test_bad_points(self, kwargs):
        with pytest.raises(errors.InvalidPosition):
            Position.from_points(BG, **kwargs)

    def test_bad_rows(self):
        row = BG.initial_position().to_array()
        for i, v in [(24, 3), (55, 1), (52, 1), (26 + 24, 1)]:
            bad = row.copy()
            bad[i] = v
            with pytest.raises(errors.TawlaError):
                Position.from_array(bad, "bg")
        with pytest.raises(errors.InvalidId):
            Position.from_array(row[:10], "bg")

    @pytest.mark.parametrize("dice", [(0, 1), (7, 1), (1,), (1, 2, 3), "ab", None, (1.5, 2), (True, 2)])
    def test_bad_dice(self, dice):
        with pytest.raises(errors.InvalidDice):
            BG.initial_position().legal_moves(dice)

    def test_foreign_move_is_refused(self):
        start = BG.initial_position()
        other = Position.from_gnubg_id("jGfkASjg8wcBMA")
        m = other.legal_moves((6, 5))[0]
        with pytest.raises(errors.IllegalMove):
            start.play(m)
        assert start == BG.initial_position()

    def test_unsupported_id_for_variant(self):
        with pytest.raises(errors.UnsupportedRuleset):
            tawla.get_ruleset("tawla31").initial_position().gnubg_id()

    def test_batch_errors(self):
        with pytest.raises(errors.InvalidId):
            tawla.expand(np.zeros((2, 10), np.uint8), np.ones((2, 2), np.uint8), ruleset="bg")
        with pytest.raises(errors.InvalidDice):
            tawla.expand(tawla.positions_to_array([BG.initial_position()]), np.array([[0, 7]], np.uint8),
                         ruleset="bg")
        with pytest.raises(errors.InvalidPosition):
            tawla.expand(np.zeros((1, tawla.PACKED_WIDTH), np.uint8), np.ones((1, 2), np.uint8), ruleset="bg")


# --- the command ------------------------------------------------------------------------------
def test_cli_moves(capsys):
    from tawla.cli import main

    assert main(["moves", "4HPwATDgc/ABMA", "31"]) == 0
    out = capsys.readouterr().out
    assert "16 legal plays" in out and "8/5 6/5" in out
    assert main(["moves", "27YBAAAAACAAAA", "54"]) == 0
    assert "turn passes" in capsys.readouterr().out
    assert main(["moves", "4HPwATDgc/ABMA", "71"]) == 2  # bad dice text is a usage error
    assert main(["moves", "garbage", "31"]) == 1
    assert main(["frobnicate"]) == 2


# --- XGID and Match ID through the public API -------------------------------------------------
def test_xgid_and_match_id():
    text = "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10"
    start, state = Position.from_xgid(text), tawla.MatchState.from_xgid(text)
    assert start == BG.initial_position()
    assert (state.cube_value, state.cube_owner, state.player_on_roll, state.match_length) == (1, None, 0, 0)
    assert start.xgid(state) == "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10"
    text = "XGID=-b----E-C---eE---c-e----B-:1:-1:-1:52:2:4:0:9:10"
    pos, st = Position.from_xgid(text), tawla.MatchState.from_xgid(text)
    assert (st.cube_value, st.cube_owner, st.player_on_roll, st.dice, st.score, st.match_length) == \
        (2, 1, 1, (5, 2), (2, 4), 9)
    assert pos.xgid(st) == "XGID=-b----E-C---eE---c-e----B-:1:-1:-1:52:2:4:0:9:10"
    m = tawla.MatchState.from_match_id("QYkqASAAIAAA")  # the gnubg manual's example
    assert (m.cube_value, m.cube_owner, m.player_on_roll, m.dice, m.match_length, m.score) == \
        (2, 0, 1, (5, 2), 9, (2, 4))
    assert m.match_id() == "QYkqASAAIAAA"
    with pytest.raises(errors.InvalidId):
        Position.from_xgid("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0")
    with pytest.raises(errors.InvalidId):
        tawla.MatchState.from_match_id("QYkqASAAIAA")


# --- regressions from the adversarial review ---------------------------------------------------
class TestAdversarial:
    start = BG.initial_position()

    def test_long_move_text_is_refused_quickly(self):
        import time

        t = time.perf_counter()
        for text in ("24/16 13/5 8/0 6/0 " * 10, "8/5 6/5 " * 300):
            with pytest.raises(errors.IllegalMove):
                self.start.play(text, (2, 2))
        assert time.perf_counter() - t < 5  # generous: it is a few milliseconds

    def test_forged_moves_are_refused(self):
        m = self.start.legal_moves((3, 1))[0]
        with pytest.raises(AttributeError):
            m.after = bytes(56)
        forged = tawla.Move((), (3, 1), False, self.start.row, Position.from_gnubg_id("jGfkASjg8wcBMA").row, BG)
        with pytest.raises(errors.IllegalMove):
            self.start.play(forged)
        with pytest.raises(AttributeError):
            self.start._row = b"x"
        assert len({self.start: 1, BG.initial_position(): 2}) == 1  # hashable, hash cached

    def test_finished_game_offers_nothing(self):
        over = Position.from_points(BG, {6: 15}, {})  # the opponent has borne off all 15
        assert over.result() == tawla.GameResult(1, "gammon", 2)
        assert over.legal_moves((6, 5)) == [] and tawla.legal_steps(over, (6, 5)) == []
        with pytest.raises(errors.IllegalMove):
            tawla.legal_steps(over, (6, 5), [(6, 0, 6)])
        with pytest.raises(errors.InvalidAction):
            over.play("", (6, 5))

    @pytest.mark.parametrize("cube", ["x", 0, -2, 3, 2.5, [1], None, True])
    def test_bad_cube(self, cube):
        over = Position.from_points(BG, {6: 15}, {})
        with pytest.raises(errors.InvalidAction):
            over.result(cube)

    @pytest.mark.parametrize("step", [None, 5, (8, 5, "3"), (8, 5, 3.0), (8.0, 5.0, 3), {"a": 1}, (13, 13, ()),
                                      (8, 5, 3, 99)])
    def test_bad_played_steps(self, step):
        with pytest.raises(errors.IllegalMove):
            tawla.legal_steps(self.start, (3, 1), [step])

    def test_backgammon_formats_refuse_other_boards(self):
        with pytest.raises(errors.UnsupportedRuleset):
            Position.from_gnubg_id("4HPwATDgc/ABMA", "tawla31-saharat")
        with pytest.raises(errors.UnsupportedRuleset):
            Position.from_xgid("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10", "mahbusa")
        assert Position.from_gnubg_id("4HPwATDgc/ABMA", "adi") == tawla.get_ruleset("adi").initial_position()

    @pytest.mark.parametrize("kwargs", [dict(pinned_on_roll=None), dict(pinned_on_roll=5), dict(bar=(1.9, 0)),
                                        dict(off=(float("inf"), 0))])
    def test_bad_from_points_arguments(self, kwargs):
        with pytest.raises(errors.InvalidPosition):
            Position.from_points(BG, {24: 15}, {1: 15}, **kwargs)

    def test_bad_batches(self):
        with pytest.raises(errors.InvalidPosition):
            tawla.positions_to_array([1, 2])
        with pytest.raises(errors.InvalidId):
            tawla.array_to_positions([[1, 2], [3]], "bg")
        with pytest.raises(errors.InvalidDice):
            self.start.legal_moves((np.array([3]), 1))
