"""Positions: packed rows, gnubg IDs and tawla IDs, pips, results (RULES.md §1.1-§1.2, §2.1)."""

import numpy as np
import pytest

import tawla
from tawla import errors
from tawla.position import Position

BG = tawla.get_ruleset("backgammon")


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
