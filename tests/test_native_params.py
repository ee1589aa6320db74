"""The fast engine's ruleset struct is filled from one declaration (RULES.md §7, the flag table).

``tawla.rules.params.native_params`` names the fields of the C struct ``tw_params``; the
compiled ``Params`` takes that dict by Cython's struct coercion. These tests check that the
two sides name the same fields, that every value arrives, and that the codes the C engine
defines agree with the Python ones.
"""

import pickle

import pytest

from tawla import errors, native
from tawla.core.results import ResultKind
from tawla.rules import RULESET_IDS, get_ruleset
from tawla.rules.params import CONTACT_CODES, SCORING_CODES, native_params

fast = pytest.importorskip("tawla.native._params", reason="the compiled engine is not built")


@pytest.mark.parametrize("name", RULESET_IDS)
def test_keys_are_the_struct_fields_and_values_arrive(name):
    r = get_ruleset(name)
    want = native_params(r)
    got = native.backend.params(r).fields
    assert set(got) == set(want)
    assert got == want


def test_options_change_the_struct():
    plain = native.backend.params(get_ruleset("backgammon")).fields
    d14 = native.backend.params(get_ruleset("backgammon", bar_backgammon_counts_double=True)).fields
    assert (plain["bar_backgammon_counts_double"], d14["bar_backgammon_counts_double"]) == (0, 1)
    t31 = native.backend.params(get_ruleset("tawla31", bearoff_no_opponent_in_home=False)).fields
    assert t31["bearoff_no_opponent_in_home"] == 0


def test_pickle_round_trip():
    p = native.backend.params(get_ruleset("mahbusa"))
    assert pickle.loads(pickle.dumps(p)).fields == p.fields


def test_missing_unknown_and_out_of_range_fields_are_refused():
    good = native_params(get_ruleset("backgammon"))
    missing = dict(good)
    del missing["wall_rule"]
    with pytest.raises(errors.UnsupportedRuleset, match="wall_rule"):
        fast.Params(missing)
    with pytest.raises(errors.UnsupportedRuleset, match="unknown"):
        fast.Params(dict(good, no_such_flag=1))
    with pytest.raises(errors.UnsupportedRuleset):
        fast.Params(dict(good, contact=7))
    with pytest.raises(errors.UnsupportedRuleset):
        fast.Params(dict(good, start=[0] * 25))
    with pytest.raises(errors.UnsupportedRuleset):
        fast.Params(dict(good, start=[0] * 25 + [3]))
    with pytest.raises(errors.UnsupportedRuleset):
        fast.Params(dict(good, start=[0, 16] + [0] * 24))


def test_codes_agree_with_the_c_engine():
    assert fast.C_CODES["contact"] == CONTACT_CODES
    assert fast.C_CODES["scoring"] == SCORING_CODES
    assert fast.C_CODES["kind"] == {k.label: int(k) for k in ResultKind}
    assert tuple(fast.KIND_NAMES) == tuple(k.label for k in ResultKind)
    assert fast.C_CODES["end"] == native.EVAL_ENDS
