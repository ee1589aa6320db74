"""Bots: legal moves at every level for every ruleset, the search against a plain expectimax,
batch play, timeout policies, and money-game cube decisions."""

import numpy as np
import pytest

import tawla
from tawla.batch import pass_move
from workloads import w1_ids
from tawla.bots import CubeAction
from tawla.evaluation import evaluate

from conftest import require_module

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
@pytest.mark.parametrize("level", ["random", "ply0", "ply1"])
def test_bot_returns_legal_moves(rs, level, samples):
    bot = tawla.Bot(rs, level, seed=5)
    rng = np.random.default_rng(11)
    for pos in samples[rs][:: max(1, len(samples[rs]) // 6)]:
        if pos.result() is not None:
            with pytest.raises(tawla.errors.InvalidAction):
                bot.choose(pos, (3, 1))
            continue
        dice = tuple(int(x) for x in rng.integers(1, 7, 2))
        m = bot.choose(pos, dice)
        legal = pos.legal_moves(dice)
        if not legal:
            assert m.is_pass and m.dice == dice and m.after == pos.row
            assert pos.play(m) == pos.play(None, dice) == pos.flip()
        else:
            assert m in legal
            pos.play(m)


@pytest.mark.parametrize("rs", RULESETS)
def test_ply2_legal(rs):
    pos = tawla.get_ruleset(rs).initial_position()
    m = tawla.Bot(rs, "ply2").choose(pos, (6, 4))
    assert m in pos.legal_moves((6, 4))


def test_levels_and_errors():
    assert tawla.Bot.LEVELS[0] == "random" and tawla.Bot.LEVELS[-1] == "net2"
    assert tawla.Bot("bg", 2).level == "ply1"
    for bad in ("grandmaster", 7, -1, None):  # -1 is not a silent "net2"
        with pytest.raises(tawla.errors.TawlaError):
            tawla.Bot("bg", bad)
    with pytest.raises(tawla.errors.InvalidPosition):
        tawla.Bot("bg", "ply1").values(tawla.get_ruleset("bg").initial_position().to_array())


def test_ply0_takes_the_obvious_win():
    r = tawla.get_ruleset("backgammon")
    pos = tawla.Position.from_points(r, {1: 1, 2: 1}, {24: 1, 23: 1})
    m = tawla.Bot(r, "ply0").choose(pos, (2, 1))
    assert m.ended


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
    with pytest.raises(tawla.errors.UnsupportedRuleset):
        tawla.Bot("adi", "ply1").cube_action(tawla.get_ruleset("adi").initial_position())


def test_cube_decisions_against_gnubg_probabilities():
    """Cube decisions on the 2000 W1 positions (cube centred) against the same money model
    fed with GNU Backgammon's 1-ply cubeless probabilities (gnubg_nn has no money cube
    decision of its own). Races come from the bear-off databases and the race model:
    measured 99.0 % same (double, take) and mean |win| difference 0.001; contact from the
    linear model: 82.2 % and 0.085."""
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
    for bad in ([0.5, 0.1, 0.0, 0.0], [float("nan"), 0, 0, 0, 0], [1.5, 0, 0, 0, 0], [0.5, -0.2, 0, 0, 0],
                ["a"] * 5, None):
        with pytest.raises(tawla.errors.TawlaError):
            CubeAction.from_probabilities(bad)
    for eff in (-0.1, 1.5, float("nan"), "0.68"):
        with pytest.raises(tawla.errors.TawlaError):
            CubeAction.from_probabilities([0.9, 0, 0, 0, 0], efficiency=eff)


def test_values_of_no_children():
    bot = tawla.Bot("backgammon", "ply2")
    assert bot.values(np.zeros((0, tawla.PACKED_WIDTH), np.uint8)).shape == (0,)


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


def test_a_pass_is_a_move_the_position_plays():
    r = tawla.get_ruleset("backgammon")
    start = r.initial_position()
    with pytest.raises(tawla.errors.IllegalMove):
        start.play(None, (6, 5))  # a pass is legal only when no move is
    with pytest.raises(tawla.errors.InvalidDice):
        start.play(None)
    closed = tawla.Position.from_points(r, {6: 13}, {19: 2, 20: 2, 21: 2, 22: 2, 23: 2, 24: 2, 1: 3}, bar=(2, 0))
    m = tawla.Bot(r, "ply0").choose(closed, (6, 6))
    assert m.is_pass and closed.play(m) == closed.play(None, (6, 6)) == closed.flip()


def test_a_bot_refuses_a_position_of_another_ruleset():
    pos = tawla.get_ruleset("tawla31").initial_position()
    with pytest.raises(tawla.errors.UnsupportedRuleset):
        tawla.Bot("backgammon", "ply0").choose(pos, (3, 1))
    with pytest.raises(tawla.errors.InvalidPosition):
        tawla.Bot("backgammon", "ply0").choose("text", (3, 1))

