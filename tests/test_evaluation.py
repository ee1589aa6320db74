"""Evaluation: the columns and their invariants for every ruleset, the routing (game over, race,
contact), the Evaluator contract and the contact-model hook, the weights file, and each
compiled evaluator against its numpy twin."""

import numpy as np
import pytest

import tawla
from tawla import native
from tawla.batch import pass_move, random_positions
from tawla.core.geometry import OPPOSITE
from tawla.errors import ConfigError, InvalidId, InvalidPosition, UnsupportedRuleset
from tawla.evaluation import (COLUMNS, CONTACT_MODELS, N_BG_FEATURES, Evaluator, LinearContact, bg_features,
                              equity_from_probs, evaluate, evaluate_rows, is_race, is_terminal, pip_counts,
                              set_contact_model)
from tawla.evaluation import bearoff as bo
from tawla.evaluation.board_views import race_mask, sides
from tawla.evaluation.linear import linear_probs, load_weights, save_weights, shipped_weights
from tawla.evaluation.nohit import nohit_contact, nohit_contact_np
from tawla.evaluation.race import race_eval, race_eval_np
from tawla.evaluation.routing import evaluate_np
from tawla.evaluation.net import shipped_net
from tawla.bots import levels
from tawla.bots.lookahead import preroll_columns

RULESETS = tawla.RULESET_IDS
HIT_GAMES = ("backgammon", "adi")
NO_HIT_GAMES = ("mahbusa", "tawla31", "tawla31-saharat")
compiled = pytest.mark.skipif(not native.available("eval"), reason="the compiled evaluators are not built (or hidden)")


@pytest.fixture(scope="module", autouse=True)
def _cache(tmp_path_factory):
    """The bear-off tables of this module are built into its own cache directory."""
    mp = pytest.MonkeyPatch()
    mp.setenv("TAWLA_CACHE", str(tmp_path_factory.mktemp("cache")))
    bo._tables.clear()
    yield
    bo._tables.clear()
    mp.undo()


@pytest.fixture(scope="module")
def rows():
    """Per ruleset: positions of random games (finished ones included) and a sample of
    their children for every roll, so that contact, races, bear-offs and game-over rows
    all occur."""
    out = {}
    for i, rs in enumerate(RULESETS):
        a = random_positions(rs, 600, seed=20 + i, include_over=True, parallel_games=3)
        ch, _, _ = tawla.expand_all_rolls(a[::4], ruleset=rs)
        out[rs] = np.concatenate([a, ch[::5]])
    return out


@pytest.fixture
def numpy_only(monkeypatch):
    """The compiled evaluators hidden, as with TAWLA_NO_NATIVE=1."""
    monkeypatch.setattr(native, "available", lambda part="engine": part != "eval")


# --- columns and invariants --------------------------------------------------------------------
@pytest.mark.parametrize("rs", RULESETS)
def test_shapes_and_ranges(rs, rows):
    a = rows[rs]
    e = evaluate(a, rs)
    assert e.dtype == np.float32 and e.shape == (len(a), len(COLUMNS))
    assert np.isfinite(e).all()
    p = e[:, 1:]
    assert (p >= -1e-6).all() and (p <= 1 + 1e-6).all()
    assert (e[:, 2] <= e[:, 1] + 1e-5).all()  # gammon wins are wins
    assert (e[:, 3] <= e[:, 2] + 1e-5).all()
    assert (e[:, 4] <= 1 - e[:, 1] + 1e-5).all()
    assert (e[:, 5] <= e[:, 4] + 1e-5).all()
    top = {"backgammon": 3, "adi": 2, "mahbusa": 2, "tawla31": 15, "tawla31-saharat": 2}[rs]
    assert (np.abs(e[:, 0]) <= top + 1e-4).all()
    if rs != "backgammon":
        assert (e[:, 3] == 0).all() and (e[:, 5] == 0).all()
    else:  # the equity is the one of the probabilities
        assert np.allclose(e[:, 0], equity_from_probs(e[:, 1:], rs), atol=1e-5)
    assert evaluate(np.zeros((0, 56), np.uint8), rs).shape == (0, 6)
    assert is_race(a, rs).any() and (~is_race(a, rs)).any()


@pytest.mark.parametrize("rs", RULESETS)
def test_start_position_is_roughly_even(rs):
    e = evaluate(tawla.get_ruleset(rs).initial_position().to_array(), rs)[0]
    assert 0.3 < e[1] < 0.75


@pytest.mark.parametrize("rs", RULESETS)
def test_terminal_rows(rs):
    """The position after the winning move scores the exact result for the loser."""
    rng = np.random.default_rng(3)
    r = tawla.get_ruleset(rs)
    bots = [tawla.Bot(rs, "random", seed=1), tawla.Bot(rs, "random", seed=2)]
    pos = r.initial_position()
    for k in range(3000):
        dice = tuple(int(x) for x in rng.integers(1, 7, 2))
        m = bots[k % 2].choose(pos, dice)
        pos = pos.play(m if m is not None else pass_move(pos, dice))
        res = pos.result()
        if res is not None:
            break
    assert res is not None and res.winner is not None  # these seeds end in a win, not a draw
    row = pos.to_array()[None]
    assert is_terminal(row, rs)[0]
    e = evaluate(row, rs)[0]
    assert e[0] == pytest.approx(-res.points)
    assert e[1] == 0


def test_race_uses_the_bearoff_databases():
    r = tawla.get_ruleset("backgammon")
    pos = tawla.Position.from_points(r, {1: 2, 3: 1}, {24: 1, 20: 2})  # opp: its 1 and 5
    row = pos.to_array()[None]
    assert is_race(row, r)[0]
    e = evaluate(row, r)[0]
    assert e[1] == pytest.approx(bo.two_sided((2, 0, 1, 0, 0, 0), (1, 0, 0, 0, 2, 0)), abs=1e-6)
    # larger race: the side on roll, well ahead, is a favourite
    ahead = tawla.Position.from_points(r, {6: 5, 5: 5, 4: 5}, {19: 5, 20: 5, 21: 5, 12: 0})
    assert 0.5 < evaluate(ahead.to_array(), r)[0, 1] < 0.8
    far = tawla.Position.from_points(r, {6: 5, 5: 5, 4: 5}, {24: 15})
    assert is_race(far.to_array(), r)[0]
    assert evaluate(far.to_array(), r)[0, 1] < 0.3
    # all 15 still outside home, the opponent needs one roll: gammoned
    gam = tawla.Position.from_points(r, {9: 5, 8: 5, 7: 5}, {24: 2})
    e3 = evaluate(gam.to_array(), r)[0]
    assert e3[1] < 0.01 and e3[4] > 0.95 and e3[0] < -1.9


def test_tawla31_race_needs_a_free_home():
    """An opponent checker in the mover's home stops its bear-off (RULES.md §5.5): the row is
    not given to the race model but to the contact model."""
    r = tawla.get_ruleset("tawla31")
    pos = tawla.Position.from_points(r, {1: 14}, {2: 1}, off=(1, 14))
    row = pos.to_array()[None]
    assert is_race(row, r)[0]
    e = evaluate(row, r)[0]
    assert np.isfinite(e).all()
    assert np.allclose(e, nohit_contact_np(row, r)[0], atol=1e-6)


def test_pip_counts_and_rows_checked():
    r = tawla.get_ruleset("backgammon")
    assert pip_counts(r.initial_position().to_array(), r).tolist() == [[167, 167]]
    for bad in (np.zeros((2, 55), np.uint8), np.zeros((2, 56), np.int64), np.zeros((2, 2, 56), np.uint8)):
        for f in (evaluate, is_race, is_terminal, pip_counts):
            with pytest.raises(InvalidId):
                f(bad, r)
    with pytest.raises(UnsupportedRuleset):
        evaluate(r.initial_position().to_array(), "chess")


# --- the shipped weights ---------------------------------------------------------------------
# evaluate() of W1 positions, generated with the code before the evaluator became a package
# with its weights in a data file (commit 916fea2): (gnubg Position ID, backgammon, adi).
W1_EXPECTED = [
    ("v3sAAAhmdzMAAQ", [0.2505328, 0.6357465, 0.0246280, 0.0008501, 0.0456699, 0.0007685], 0.2504512),
    ("tm0jCAH/vgAAIA", [-0.6676065, 0.1943299, 0.0130832, 0.0001003, 0.0676472, 0.0018026], -0.6659042),
    ("c9sGCALsnIMDQA", [-0.6633368, 0.2836983, 0.0213398, 0.0009382, 0.2437724, 0.0092389], -0.6550360),
    ("W3OgARjh7k4BAA", [0.6313208, 0.7305723, 0.1939622, 0.0093147, 0.0317726, 0.0013280], 0.6233342),
    ("z48DADBu20AEGA", [0.2559406, 0.6150675, 0.0856330, 0.0034701, 0.0604563, 0.0028411], 0.2553117),
    ("XTWRATBsewMHAA", [1.0002339, 0.8503838, 0.2775298, 0.0338449, 0.0115294, 0.0003789], 0.9667680),
    ("380AADjcNgAAAA", [1.6735116, 0.9641269, 0.5906359, 0.1546389, 0.0000168, 0.0000002], 1.5188730),
    ("e7YXAADstgEMDA", [-0.2089395, 0.4492917, 0.0300398, 0.0008115, 0.1351727, 0.0032014], -0.2065496),
    ("Yb8dAIBtuwUQAA", [0.7367203, 0.8683602, 0.0000000, 0.0000000, 0.0000000, 0.0000000], 0.7367203),
    ("e2sCARhs254AAA", [0.8003130, 0.8361257, 0.1322431, 0.0064808, 0.0104005, 0.0002617], 0.7940939),
    ("v90EAIC3BgAAAA", [0.9962773, 0.9981387, 0.0000000, 0.0000000, 0.0000000, 0.0000000], 0.9962773),
    ("CwAAgPlbCQQAAA", [-1.9518315, 0.0000000, 0.0000000, 0.0000000, 0.9518315, 0.0000000], -1.9518315),
    ("O7cTAgC7CgAAAA", [1.0485210, 0.9999985, 0.0485240, 0.0000000, 0.0000000, 0.0000000], 1.0485210),
    ("dwEAAPedCQgAAA", [-1.0134956, 0.0000156, 0.0000000, 0.0000000, 0.0135269, 0.0000000], -1.0134956),
    ("1z0gyAAaAAAAAA", [1.9998125, 1.0000000, 0.9998125, 0.0000000, 0.0000000, 0.0000000], 1.9998125),
    ("vwMAANzGPYAAAA", [-1.0279832, 0.0000299, 0.0000000, 0.0000000, 0.0280430, 0.0000000], -1.0279832),
    ("VR4AAFYMAAAAAA", [0.9358396, 0.9679198, 0.0000000, 0.0000000, 0.0000000, 0.0000000], 0.9358396),
    ("920DAID3AQAAAA", [0.9954959, 0.9977480, 0.0000000, 0.0000000, 0.0000000, 0.0000000], 0.9954959),
    ("NwEAAGOvMSgAAA", [-1.9549439, 0.0000000, 0.0000000, 0.0000000, 0.9549440, 0.0000000], -1.9549439),
    ("+zQAAPB7A0gCAA", [-1.1527951, 0.0001754, 0.0000000, 0.0000000, 0.1531459, 0.0000000], -1.1527951),
]


@pytest.mark.parametrize("path", ["compiled", "numpy"])
def test_w1_values_unchanged(path, monkeypatch):
    """Of the first 10 rows (W1 contact) 9 are contact for tawla (the linear model and its
    weights), one a race; the last 10 are races (the race model and the databases)."""
    if path == "compiled" and not native.available("eval"):
        pytest.skip("the compiled evaluators are not built (or hidden)")
    if path == "numpy":
        monkeypatch.setattr(native, "available", lambda part="engine": part != "eval")
    a = np.array([tawla.Position.from_gnubg_id(pid).to_array() for pid, _, _ in W1_EXPECTED])
    bg = np.array([v for _, v, _ in W1_EXPECTED])
    adi = bg.copy()
    adi[:, 0] = [e for _, _, e in W1_EXPECTED]
    adi[:, [3, 5]] = 0  # adi scores no backgammons
    assert np.abs(evaluate(a, "backgammon") - bg).max() < 1e-6
    assert np.abs(evaluate(a, "adi") - adi).max() < 1e-6
    assert is_race(a[:10], "backgammon").sum() == 1 and is_race(a[10:], "backgammon").all()


def test_weights_file(tmp_path):
    w = shipped_weights()
    assert w.shape == (5, N_BG_FEATURES) and w.dtype == np.float64 and not w.flags.writeable
    assert shipped_weights() is w  # read once
    model = CONTACT_MODELS["backgammon"]
    assert isinstance(model, LinearContact) and np.array_equal(model.weights, w)
    assert CONTACT_MODELS["adi"] is model
    save_weights(tmp_path / "w.npz", w * 2, provenance="a test")
    assert np.array_equal(load_weights(tmp_path / "w.npz"), w * 2)
    assert str(np.load(tmp_path / "w.npz")["provenance"]) == "a test"
    np.savez(tmp_path / "other.npz", other=w)
    with pytest.raises(ConfigError):
        load_weights(tmp_path / "other.npz")
    for bad in (w[:4], w.ravel(), np.full_like(w, np.nan), w + 1j):
        with pytest.raises(ConfigError):
            LinearContact(bad)
        with pytest.raises(ConfigError):
            save_weights(tmp_path / "bad.npz", bad)
    assert not (tmp_path / "bad.npz").exists()


# --- the contract and the routing --------------------------------------------------------------
def test_evaluator_contract():
    assert isinstance(evaluate, Evaluator) and isinstance(LinearContact(), Evaluator)
    assert isinstance(nohit_contact, Evaluator)
    assert all(isinstance(m, Evaluator) for m in CONTACT_MODELS.values())
    assert tawla.evaluate is levels.evaluate and tawla.bearoff is bo


@pytest.mark.parametrize("rs", ["backgammon", "tawla31"])
def test_tawla_evaluate_takes_every_level_and_defaults_to_the_network(rs):
    r = tawla.get_ruleset(rs)
    rows = tawla.batch.random_positions(r, 60, seed=11)
    net = shipped_net(r)
    assert np.array_equal(tawla.evaluate(rows, rs), evaluate_rows(rows, r, contact=net).astype(np.float32))
    assert np.array_equal(tawla.evaluate(rows, rs, "ply0"), evaluate(rows, rs))
    ahead = preroll_columns(rows, r, lambda x: evaluate_rows(x, r, checked=False, contact=net), 2)
    assert np.abs(tawla.evaluate(rows, rs, level="net2") - ahead).max() < 1e-6
    assert not np.array_equal(tawla.evaluate(rows, rs, "net1"), tawla.evaluate(rows, rs))
    for bad in ("random", "net3", "NET0", None, 0):
        with pytest.raises(tawla.errors.ConfigError):
            tawla.evaluate(rows, rs, bad)
    assert levels.describe("net1", rs).startswith(f"net1: the {rs} network ({rs}.npz, sha256 ")
    assert levels.describe("ply2", rs).startswith(f"ply2: the hand-made {rs} contact model")
    races = "the race network (backgammon-race.npz, sha256 " if rs == "backgammon" else "the race model in races"
    assert races in levels.describe("net0", rs) and "the race model in races" in levels.describe("ply0", rs)


def test_contact_model_hook():
    r = tawla.get_ruleset("mahbusa")
    saved = CONTACT_MODELS["mahbusa"]
    try:
        set_contact_model("mahbusa", lambda rows, ruleset: np.tile([0.5, 0.75, 0, 0, 0, 0], (len(rows), 1)))
        assert evaluate(r.initial_position().to_array(), r)[0, 1] == pytest.approx(0.75)
        set_contact_model("mah", lambda rows, ruleset: np.zeros((len(rows), 5)))
        with pytest.raises(ConfigError):
            evaluate(r.initial_position().to_array(), r)
        with pytest.raises(ConfigError):
            set_contact_model("mahbusa", "not a model")
        with pytest.raises(UnsupportedRuleset):
            set_contact_model("chess", saved)
    finally:
        set_contact_model("mahbusa", saved)
    assert CONTACT_MODELS["mahbusa"] is saved


@compiled
@pytest.mark.parametrize("rs", RULESETS)
def test_the_compiled_game_ends_and_races_equal_the_numpy_steps(rs, rows, monkeypatch):
    """Where no one-pass evaluation applies, game-over rows and races are found and valued in
    one compiled pass (eval_ends), every contact row and only those go to the model, and the
    values are those of evaluate_np bit for bit (game over, races, contact)."""
    r = tawla.get_ruleset(rs)
    seen = []

    def model(a, ruleset):
        seen.append(a.copy())
        return nohit_contact_np(a, ruleset) if ruleset.contact != "hit" else linear_probs(a, shipped_weights(), ruleset)

    got = evaluate_rows(rows[rs], r, checked=False, contact=model)
    contact_rows = seen.pop()
    ref = evaluate_np(rows[rs], r, model)
    np.testing.assert_array_equal(got, ref)
    np.testing.assert_array_equal(contact_rows, seen.pop())
    me, opp, om = sides(rows[rs], r)
    lost = is_terminal(rows[rs], r)
    race = race_mask(me, opp, om, r) & ~lost
    assert lost.sum() > 5 and 0 < len(contact_rows) < len(rows[rs])
    out, kind = native.eval_ends(rows[rs], r, *bo.eval_tables()[::3])
    np.testing.assert_array_equal(kind == 1, lost)
    assert ((kind == 3) <= race).all() and (kind == 3).sum() > 50 and not (kind == 2).any()


@pytest.mark.parametrize("rs", ["backgammon", "mahbusa", "tawla31"])
def test_any_linear_model_takes_the_compiled_pass_where_it_applies(rs, rows, monkeypatch):
    """Routing asks what the model is, not which object it is: a LinearContact with other
    weights gets the one-pass compiled evaluation in the rulesets whose game-over and race
    rules it implements (not tawla31: §5.5, §5.6), and equals the numpy routing everywhere."""
    r = tawla.get_ruleset(rs)
    model = LinearContact(shipped_weights() * 0.8)
    calls = []
    if native.available("eval"):
        real = native.eval_bg
        monkeypatch.setattr(native, "eval_bg", lambda *a: calls.append(1) or real(*a))
    monkeypatch.setitem(CONTACT_MODELS, r.name, model)
    got = evaluate_rows(rows[rs], r)
    assert len(calls) == (int(rs != "tawla31") if native.available("eval") else 0)
    assert np.abs(got - evaluate_np(rows[rs], r, model)).max() < 1e-5
    monkeypatch.setattr(native, "available", lambda part="engine": part != "eval")
    assert np.abs(got - evaluate_rows(rows[rs], r)).max() < 1e-5


# --- each compiled evaluator against its numpy twin -------------------------------------------
def _contact(a, r):
    return a[~(is_race(a, r) | is_terminal(a, r))]


@compiled
def test_twin_features_bg(rows):
    r = tawla.get_ruleset("backgammon")
    a = rows["backgammon"]
    me, opp, _ = sides(a, r)
    assert native.n_features() == N_BG_FEATURES
    assert np.allclose(bg_features(me, opp), native.features_bg(np.ascontiguousarray(a)), atol=1e-12)


@compiled
@pytest.mark.parametrize("rs", HIT_GAMES)
def test_twin_linear_bg(rs, rows):
    r = tawla.get_ruleset(rs)
    a = _contact(rows[rs], r)
    w = shipped_weights().copy()
    c = native.linear_bg(np.ascontiguousarray(a), w, r)
    assert len(a) > 100 and np.abs(c - linear_probs(a, w, r)).max() < 1e-5


@compiled
@pytest.mark.parametrize("rs", RULESETS)
def test_twin_race_sides(rs, rows):
    """The compiled race model of both sides (every geometry, tawla31's expected points
    included) equals the numpy one on the rows the routing sends it."""
    r = tawla.get_ruleset(rs)
    me, opp, om = sides(rows[rs], r)
    race = race_mask(me, opp, om, r) & ~is_terminal(rows[rs], r)
    c = race_eval(me[race], opp[race], r)
    ref = race_eval_np(me[race], opp[race], r)
    assert race.sum() > 50 and c.shape == ref.shape == (race.sum(), 6)
    assert np.abs(c[:, 1:] - ref[:, 1:]).max() < 1e-5
    assert np.abs(c[:, 0] - ref[:, 0]).max() < 1e-5 * (15 if r.scoring == "checkers_left" else 1)
    assert race_eval(me[:0], opp[:0], r).shape == (0, 6)
    one, _, _, two = bo.eval_tables()
    bad = np.ascontiguousarray(me[race][:1])
    bad[0, 6] += 1  # 16 checkers: read before the tables are
    with pytest.raises(InvalidPosition, match="15 checkers"):
        native.race_sides(bad, np.ascontiguousarray(opp[race][:1]), r, one, two)


@compiled
@pytest.mark.parametrize("rs", RULESETS)
def test_twin_race_rows(rs, rows):
    r = tawla.get_ruleset(rs)
    a = rows[rs]
    me, opp, _ = sides(a, r)
    race = is_race(a, r) & ~is_terminal(rows[rs], r)
    one, _, _, two = bo.eval_tables()
    c = native.race_rows(np.ascontiguousarray(a[race]), r, one, two)
    assert race.sum() > 20 and np.abs(c - race_eval_np(me[race], opp[race], r)).max() < 1e-5


@compiled
@pytest.mark.parametrize("rs", HIT_GAMES)
def test_twin_eval_bg(rs, rows):
    """The one-pass evaluation (game over, race, linear contact) against the numpy routing."""
    r = tawla.get_ruleset(rs)
    a = rows[rs]
    one, _, _, two = bo.eval_tables()
    c, kind = native.eval_bg(np.ascontiguousarray(a), shipped_weights().copy(), r, one, two)
    assert np.abs(c - evaluate_np(a, r)).max() < 1e-5
    assert np.array_equal(kind == 3, is_race(a, r) & ~is_terminal(a, r))


@compiled
@pytest.mark.parametrize("rs", NO_HIT_GAMES)
def test_twin_nohit_contact(rs, rows):
    r = tawla.get_ruleset(rs)
    a = _contact(rows[rs], r)
    assert len(a) > 100 and np.abs(nohit_contact(a, r) - nohit_contact_np(a, r)).max() < 1e-5


@compiled
@pytest.mark.parametrize("rs", RULESETS)
def test_compiled_evaluate_equals_numpy(rs, rows, monkeypatch):
    fast = evaluate(rows[rs], rs)
    monkeypatch.setattr(native, "available", lambda part="engine": part != "eval")
    assert np.abs(fast - evaluate(rows[rs], rs)).max() < 1e-5


@pytest.mark.parametrize("rs", RULESETS)
def test_numpy_evaluation_alone(rs, rows, numpy_only):
    """Without the compiled evaluators every ruleset evaluates, with the same invariants."""
    e = evaluate(rows[rs], rs)
    assert e.shape == (len(rows[rs]), 6) and np.isfinite(e).all()
    assert (e[:, 1:] >= -1e-6).all() and (e[:, 1:] <= 1 + 1e-6).all()
