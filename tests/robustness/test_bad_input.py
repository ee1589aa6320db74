"""Bad input to the public API raises one of tawla.errors and changes nothing: moves, dice,
cubes, steps, boards, batches, forged moves and overlong move text."""

import numpy as np
import pytest

import tawla
from tawla import errors
from tawla.position import Position

BG = tawla.get_ruleset("backgammon")


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




# --- hostile moves, boards and batches ----------------------------------------------------------
class TestHostile:
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


def test_a_ragged_row_and_a_missing_position_are_refused_by_name():
    with pytest.raises(errors.InvalidId):
        Position.from_array([None, []], BG)
    with pytest.raises(errors.InvalidPosition):
        tawla.legal_steps(None, (1, 1))


def test_complex_probabilities_are_refused():
    from tawla.evaluation.protocol import equity_from_probs

    with pytest.raises(errors.InvalidArgument):
        equity_from_probs(np.zeros((2, 6), dtype=complex), BG)
    assert equity_from_probs([[0.5, 0, 0, 0, 0, 0]], BG).tolist() == [0.0]
