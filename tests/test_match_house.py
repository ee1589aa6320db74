"""House profiles (RULES.md §1.9): the built-in profiles, overrides, and the ConfigError of a
value a profile does not allow; the match lengths and rulesets a house offers."""

import json

import numpy as np
import pytest

import tawla
from tawla import errors
from tawla.match import Match


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
