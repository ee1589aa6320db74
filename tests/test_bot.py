"""Evaluator and bots: shapes, ranges and invariants for every ruleset; legal moves; cube."""

import numpy as np
import pytest

import tawla
from tawla.batch import pass_move
from tawla.evaluate import COLUMNS, evaluate, is_race, is_terminal, set_contact_model, CONTACT_MODELS

RULESETS = tawla.RULESET_IDS


@pytest.fixture(scope="module", autouse=True)
def _cache(tmp_path_factory):
    mp = pytest.MonkeyPatch()
    mp.setenv("TAWLA_CACHE", str(tmp_path_factory.mktemp("cache")))
    tawla.bearoff._tables.clear()
    yield
    tawla.bearoff._tables.clear()
    mp.undo()


def _playout(rs, n_moves=60, seed=0):
    """Positions from a short ply0-vs-random game (varied, legal)."""
    rng = np.random.default_rng(seed)
    bots = [tawla.Bot(rs, "ply0"), tawla.Bot(rs, "random", seed=seed)]
    pos = tawla.get_ruleset(rs).initial_position()
    out = [pos]
    for k in range(n_moves):
        dice = tuple(int(x) for x in rng.integers(1, 7, 2))
        m = bots[k % 2].choose(pos, dice)
        pos = pos.play(m if m is not None else pass_move(pos, dice))
        out.append(pos)
        if pos.result() is not None:
            break
    return out


@pytest.fixture(scope="module")
def samples():
    return {rs: _playout(rs, seed=i) for i, rs in enumerate(RULESETS)}


@pytest.mark.parametrize("rs", RULESETS)
def test_evaluate_shapes_ranges(rs, samples):
    rows = tawla.positions_to_array(samples[rs])
    e = evaluate(rows, rs)
    assert e.dtype == np.float32 and e.shape == (len(rows), len(COLUMNS))
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
    assert evaluate(np.zeros((0, 56), np.uint8), rs).shape == (0, 6)


@pytest.mark.parametrize("rs", RULESETS)
def test_start_position_is_roughly_even(rs):
    e = evaluate(tawla.get_ruleset(rs).initial_position().to_array(), rs)[0]
    assert 0.3 < e[1] < 0.75


@pytest.mark.parametrize("rs", RULESETS)
def test_terminal_rows(rs, samples):
    """The position after the winning move scores the exact result for the loser."""
    rng = np.random.default_rng(3)
    r = tawla.get_ruleset(rs)
    # a finished game between random bots
    bots = [tawla.Bot(rs, "random", seed=1), tawla.Bot(rs, "random", seed=2)]
    pos = r.initial_position()
    for k in range(3000):
        dice = tuple(int(x) for x in rng.integers(1, 7, 2))
        m = bots[k % 2].choose(pos, dice)
        pos = pos.play(m if m is not None else pass_move(pos, dice))
        res = pos.result()
        if res is not None:
            break
    assert res is not None
    if res.winner is None:
        pytest.skip("draw")
    row = pos.to_array()[None]
    assert is_terminal(row, rs)[0]
    e = evaluate(row, rs)[0]
    assert e[0] == pytest.approx(-res.points)
    assert e[1] == 0


def test_race_uses_bearoff_db():
    bo = tawla.bearoff
    r = tawla.get_ruleset("backgammon")
    pos = tawla.Position.from_points(r, {1: 2, 3: 1}, {24: 1, 20: 2})  # opp: its 1 and 5
    row = pos.to_array()[None]
    assert is_race(row, r)[0]
    e = evaluate(row, r)[0]
    assert e[1] == pytest.approx(bo.two_sided((2, 0, 1, 0, 0, 0), (1, 0, 0, 0, 2, 0)), abs=1e-6)
    # larger race: the side on roll, well ahead, is a favourite; equal races favour the roller
    ahead = tawla.Position.from_points(r, {6: 5, 5: 5, 4: 5}, {19: 5, 20: 5, 21: 5, 12: 0})
    e2 = evaluate(ahead.to_array(), r)[0]
    assert 0.5 < e2[1] < 0.8
    far = tawla.Position.from_points(r, {6: 5, 5: 5, 4: 5}, {24: 15})
    assert is_race(far.to_array(), r)[0]
    assert evaluate(far.to_array(), r)[0, 1] < 0.3
    # all 15 still outside home, the opponent needs one roll: gammoned
    gam = tawla.Position.from_points(r, {9: 5, 8: 5, 7: 5}, {24: 2})
    e3 = evaluate(gam.to_array(), r)[0]
    assert e3[1] < 0.01 and e3[4] > 0.95 and e3[0] < -1.9


def test_tawla31_race_needs_free_home():
    r = tawla.get_ruleset("tawla31")
    # mover: home; opponent still has a checker on mover's 2 (its own 23): no bear-off (§5.5)
    pos = tawla.Position.from_points(r, {1: 14}, {2: 1}, off=(1, 14))
    row = pos.to_array()
    assert is_race(row, r)[0]
    e = evaluate(row, r)[0]
    assert np.isfinite(e).all()


@pytest.mark.parametrize("rs", RULESETS)
@pytest.mark.parametrize("level", ["random", "ply0", "ply1"])
def test_bot_returns_legal_moves(rs, level, samples):
    bot = tawla.Bot(rs, level, seed=5)
    rng = np.random.default_rng(11)
    for pos in samples[rs][:: max(1, len(samples[rs]) // 6)]:
        if pos.result() is not None:
            assert bot.choose(pos, (3, 1)) is None
            continue
        dice = tuple(int(x) for x in rng.integers(1, 7, 2))
        m = bot.choose(pos, dice)
        legal = pos.legal_moves(dice)
        if not legal:
            assert m is None
        else:
            assert m in legal
            pos.play(m)


@pytest.mark.parametrize("rs", RULESETS)
def test_ply2_legal(rs):
    pos = tawla.get_ruleset(rs).initial_position()
    m = tawla.Bot(rs, "ply2").choose(pos, (6, 4))
    assert m in pos.legal_moves((6, 4))


def test_levels_and_errors():
    assert tawla.Bot.LEVELS[0] == "random" and tawla.Bot.LEVELS[-1] == "ply2"
    assert tawla.Bot("bg", 2).level == "ply1"
    for bad in ("grandmaster", 4, -1, None):  # -1 is not a silent "ply2"
        with pytest.raises(tawla.errors.TawlaError):
            tawla.Bot("bg", bad)
    with pytest.raises(tawla.errors.InvalidPosition):
        tawla.Bot("bg", "ply1").values(tawla.get_ruleset("bg").initial_position().to_array())


def test_ply0_takes_the_obvious_win():
    r = tawla.get_ruleset("backgammon")
    pos = tawla.Position.from_points(r, {1: 1, 2: 1}, {24: 1, 23: 1})
    m = tawla.Bot(r, "ply0").choose(pos, (2, 1))
    assert m.ended


def test_contact_model_hook():
    saved = CONTACT_MODELS["mahbusa"]
    try:
        set_contact_model("mahbusa", lambda rows, ruleset: np.tile([0.5, 0.75, 0, 0, 0, 0], (len(rows), 1)))
        e = evaluate(tawla.get_ruleset("mahbusa").initial_position().to_array(), "mahbusa")
        assert e[0, 1] == pytest.approx(0.75)
    finally:
        set_contact_model("mahbusa", saved)


def test_cube_action_sanity():
    bot = tawla.Bot("backgammon", "ply2")
    r = tawla.get_ruleset("backgammon")
    start = bot.cube_action(r.initial_position())
    assert not start.double and start.take
    # a huge race lead, no gammon chances: double, pass
    race = tawla.Position.from_points(r, {1: 2, 2: 2}, {24: 3, 23: 3, 22: 3}, off=(11, 6))
    c = bot.cube_action(race)
    assert c.win > 0.8 and c.double and not c.take
    # far behind: no double; may not double when the opponent owns the cube
    behind = tawla.Position.from_points(r, {24: 3, 23: 3, 22: 3}, {1: 2, 2: 2}, off=(6, 11))
    assert not bot.cube_action(behind).double
    assert not bot.cube_action(race, cube_owner=-1).double
    with pytest.raises(ValueError):
        tawla.Bot("adi", "ply1").cube_action(tawla.get_ruleset("adi").initial_position())


def test_cube_decisions_against_gnubg_probabilities():
    """Cube decisions on the 2000 W1 positions (cube centred) against the same money model
    fed with GNU Backgammon's 1-ply cubeless probabilities (gnubg_nn has no money cube
    decision of its own). Races come from the bear-off databases and the race model:
    measured 99.0 % same (double, take) and mean |win| difference 0.001; contact from the
    linear model: 82.2 % and 0.085."""
    from conftest import require_module
    from tawla.bench import w1_ids
    from tawla.bots import CubeAction

    g = require_module("gnubg_nn")
    bot = tawla.Bot("backgammon", "ply1")
    for kind, min_both, max_dwin in (("race", 0.97, 0.005), ("contact", 0.78, 0.11)):
        ids = w1_ids(kind)
        both, dwin = [], []
        for pid in ids:
            pos = tawla.Position.from_gnubg_id(pid)
            if pos.result() is not None:
                continue
            ours = bot.cube_action(pos)
            board = g.board_from_position_id(pos.gnubg_id())
            theirs = CubeAction.from_probabilities(g.probabilities(board, 1))
            both.append((ours.double, ours.take) == (theirs.double, theirs.take))
            dwin.append(abs(ours.win - theirs.win))
        assert len(both) >= 990
        assert np.mean(both) >= min_both, (kind, np.mean(both))
        assert np.mean(dwin) <= max_dwin, (kind, np.mean(dwin))


def test_cube_from_probabilities():
    from tawla.bots import CubeAction

    # no gammons: the take point is 0.5 / (2 + 0.34) = 0.214 (Janowski, x = 0.68)
    c = CubeAction.from_probabilities([0.9, 0.0, 0.0, 0.0, 0.0])
    assert c.double and not c.take and not c.too_good and c.equity == pytest.approx(0.8)
    c = CubeAction.from_probabilities([0.76, 0.0, 0.0, 0.0, 0.0])
    assert c.double and c.take
    c = CubeAction.from_probabilities([0.6, 0.0, 0.0, 0.0, 0.0])
    assert not c.double and c.take
    # many gammons and a pass: too good to double, play on
    c = CubeAction.from_probabilities([0.9, 0.6, 0.0, 0.0, 0.0])
    assert c.too_good and not c.double and not c.take
    assert not CubeAction.from_probabilities([0.9, 0, 0, 0, 0], may_double=False).double
    for bad in ([0.5, 0.1, 0.0, 0.0], [float("nan"), 0, 0, 0, 0], [1.5, 0, 0, 0, 0], [0.5, -0.2, 0, 0, 0]):
        with pytest.raises(ValueError):
            CubeAction.from_probabilities(bad)


def test_values_of_no_children():
    bot = tawla.Bot("backgammon", "ply2")
    assert bot.values(np.zeros((0, tawla.PACKED_WIDTH), np.uint8)).shape == (0,)


@pytest.mark.parametrize("rs", RULESETS)
def test_compiled_evaluator_matches_numpy(rs, samples, monkeypatch):
    """The C fast paths (linear model, race model, no-hit model) equal the numpy reference."""
    import sys

    ev = sys.modules["tawla.evaluate"]
    if ev._ceval is None:
        pytest.skip("compiled evaluator not built")
    rows = [p.to_array() for p in samples[rs]]
    # add every child of every sampled position: races, bear-offs and finished games included
    ch, _, _ = tawla.expand_all_rolls(np.array(rows), ruleset=rs)
    rows = np.concatenate([np.array(rows), ch[::7]])
    fast = evaluate(rows, rs)
    monkeypatch.setattr(ev, "_ceval", None)
    ref = evaluate(rows, rs)
    assert np.abs(fast - ref).max() < 1e-5


def test_bg_features_c_equal_numpy(samples):
    import sys

    ev = sys.modules["tawla.evaluate"]
    if ev._ceval is None:
        pytest.skip("compiled evaluator not built")
    r = tawla.get_ruleset("backgammon")
    rows = tawla.positions_to_array(samples["backgammon"])
    me, opp, _ = ev._sides(rows, r)
    assert np.allclose(ev.bg_features(me, opp), ev._ceval.features_bg(rows), atol=1e-12)


def test_timeout_policy():
    r = tawla.get_ruleset("backgammon")
    pos = r.initial_position()
    cands = pos.legal_moves((6, 5))
    pol = tawla.Bot(r, "ply0").timeout_policy()
    m = pol(pos, (6, 5), (), cands)
    assert m in cands
    assert tawla.Bot(r, "ply0").choose(pos, (6, 5)) == m
    # with steps already made, the policy picks among the remaining candidates only
    sub = [c for c in cands if str(c).startswith("24/18")]
    assert pol(pos, (6, 5), (), sub) in sub


def test_choose_rows_matches_choose():
    for rs in RULESETS:
        r = tawla.get_ruleset(rs)
        b = tawla.Bot(r, "ply0")
        pos = r.initial_position()
        rows = np.repeat(pos.to_array()[None], 3, 0)
        dice = np.array([[6, 5], [3, 1], [4, 4]], np.uint8)
        nxt, played = b.choose_rows(rows, dice)
        assert played.all()
        for k in range(3):
            m = b.choose(pos, tuple(int(x) for x in dice[k]))
            assert pos.play(m).row == nxt[k].tobytes()


# --- the search against a plain expectimax --------------------------------------------------
def _ev0(positions, r):
    """0-ply equity of each position for its side to move (one batch)."""
    if not positions:
        return np.zeros(0)
    return evaluate(np.array([p.to_array() for p in positions]), r)[:, 0].astype(np.float64)


def _replies(pos, dice):
    """Every position after the side on roll plays ``dice`` (a pass included)."""
    moves = pos.legal_moves(dice)
    if not moves:
        return [pos.play(pass_move(pos, dice))]
    return [pos.play(m) for m in moves]


def _naive_1ply(child, r):
    """Value for the player who made ``child`` (opponent on roll): over the opponent's 21
    rolls, its reply minimising our 0-ply equity. Returns (value, chosen reply per roll)."""
    if child.result() is not None:
        return -_ev0([child], r)[0], None
    total, chosen = 0.0, []
    for (a, b), w in zip(tawla.ROLLS, tawla.ROLL_WEIGHTS):
        reps = _replies(child, (int(a), int(b)))
        e = _ev0(reps, r)
        k = int(np.argmin(e))
        total += w * e[k]
        chosen.append((w, reps[k]))
    return total, chosen


def _naive_2ply(child, r):
    v1, chosen = _naive_1ply(child, r)
    if chosen is None:
        return v1
    total = 0.0
    for w, rep in chosen:  # we are on roll in rep
        if rep.result() is not None:
            total += w * _ev0([rep], r)[0]
            continue
        inner = 0.0
        for (a, b), w2 in zip(tawla.ROLLS, tawla.ROLL_WEIGHTS):
            inner += w2 * np.max(-_ev0(_replies(rep, (int(a), int(b))), r))
        total += w * inner
    return total


@pytest.mark.parametrize("rs", ["backgammon", "tawla31", "mahbusa"])
def test_search_values_equal_plain_expectimax(rs, samples):
    """Bot.values at depth 1 and 2 equals a plain expectimax over Position.legal_moves
    for the children its filters keep; the dropped ones rank below all kept ones."""
    r = tawla.get_ruleset(rs)
    bot = tawla.Bot(r, "ply2")
    scale = bot._scale()
    checked = 0
    for pos in samples[rs][8::9]:
        if pos.result() is not None:
            continue
        moves = pos.legal_moves((5, 2))
        if len(moves) < 3:
            continue
        kids = [pos.play(m) for m in moves]
        rows = np.array([k.to_array() for k in kids])
        v0 = -_ev0(kids, r)
        keep = bot._top(v0, bot.PRUNE[0][0], bot.PRUNE[0][1] * scale)
        naive1 = np.array([_naive_1ply(kids[i], r)[0] for i in keep])
        out1 = bot.values(rows, depth=1)
        assert np.allclose(out1[keep], naive1, atol=1e-9)
        dropped = np.setdiff1d(np.arange(len(kids)), keep)
        if len(dropped):
            assert out1[dropped].max() < out1[keep].min()
        sel = keep[bot._top(naive1, bot.PRUNE[1][0], bot.PRUNE[1][1] * scale)]
        out2 = bot.values(rows, depth=2)
        naive2 = np.array([_naive_2ply(kids[i], r) for i in sel])
        assert np.allclose(out2[sel], naive2, atol=1e-9)
        rest = np.setdiff1d(np.arange(len(kids)), sel)
        if len(rest):
            assert out2[rest].max() < out2[sel].min()
        checked += 1
        if checked == 2:
            break
    assert checked == 2
