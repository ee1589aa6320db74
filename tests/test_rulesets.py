"""Rulesets as data: every variant of RULES.md §7, its options and their checks."""

import numpy as np
import pytest

import tawla
from tawla import errors
from tawla.position import Position

BG = tawla.get_ruleset("backgammon")


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
