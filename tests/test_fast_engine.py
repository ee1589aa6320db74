"""The fast (Cython) engine against the reference engine.

Differential tests, every ruleset and option set: for each (position, roll) pair the set of
children of ``tawla.expand_all_rolls`` (fast) must equal what the reference engine gives
(``legal_moves(engine="reference")``, each result flipped; a pass gives the position flipped;
a finished game gives nothing), and ``legal_moves`` through the fast engine must return the
reference's moves exactly: same order, same canonical steps, same ``ended`` flags.
tests/test_properties.py's random games, played on the reference engine, diff the fast
engine's moves on every turn as well (>= 28,000 pairs a ruleset).

Positions come from seeded random games played by the fast engine (``random_positions``),
plus the 2000 W1 positions of ``tawla/data/w1`` for backgammon and adi. CI sizes: >= 12,000
pairs per ruleset and option set here (with the property games, >= 40,000 for each ruleset
    without options);
``-m slow``: >= 200,000. Nothing here skips: the fast engine must be built.
On a disagreement the test prints the position id, the roll and both sets.
"""

from __future__ import annotations

import math
import os
import subprocess
import sys
import threading

import numpy as np
import pytest

import tawla
from tawla import batch as eng
import workloads
from tawla import native
from tawla.reference import batch as ref_batch
from tawla.reference.scoring import game_result as ref_game_result, is_frozen as ref_is_frozen
from tawla.batch import legal_moves
from tawla.errors import InvalidDice, InvalidId, InvalidPosition
from tawla.batch import KINDS, playout, random_positions
from tawla.position import Position

ROLLS = [(int(a), int(b)) for a, b in tawla.ROLLS]

CONFIGS = [(name, {}) for name in tawla.RULESET_IDS] + [
    ("mahbusa", {"mother_rule": "plakoto"}),
    ("tawla31", {"quadrant_lock_win": False}),
    ("tawla31", {"no_bearoff_with_opponent_in_home": False}),
]
CONFIG_IDS = [name + "".join(f"[{k}={v}]" for k, v in opts.items()) for name, opts in CONFIGS]

PAIRS_CI = 12_000
PAIRS_SLOW = 200_000


def ruleset_of(name, opts):
    return tawla.get_ruleset(name, **opts)


def test_fast_engine_is_built():
    """The differential tests below mean nothing without the compiled engine: never skip."""
    assert eng.fast_available(), "tawla.native's compiled modules are not built (pip install . with a C compiler)"
    assert eng.default_engine() in ("fast", "reference")


# --- the differential comparison ------------------------------------------------------------------
def _fmt(rows, r) -> str:
    return "{" + ", ".join(sorted(Position(x, r).id() for x in rows)) + "}"


def compare(r, arr: np.ndarray, label: str, *, steps_every: int = 1, max_report: int = 5) -> int:
    """Compare fast and reference on every row of ``arr`` x 21 rolls; returns the pairs compared.

    The canonical steps of ``legal_moves`` are compared on every ``steps_every``-th row (0: none).
    """
    children, parent, roll = tawla.expand_all_rolls(arr, ruleset=r)
    assert children.dtype == np.uint8 and children.shape[1] == tawla.PACKED_WIDTH
    assert parent.dtype == np.int64 and roll.dtype == np.int64
    assert np.all(np.diff(parent * 21 + roll) >= 0), "children must be ordered by row, then roll"
    key = parent * 21 + roll
    bounds = np.searchsorted(key, np.arange(len(arr) * 21 + 1))
    rows = [bytes(x) for x in children]
    pairs = disagreements = step_mismatches = steps_pairs = 0
    report = []
    for i in range(len(arr)):
        pos = Position(arr[i].tobytes(), r)
        over = pos.result() is not None
        steps = steps_every and i % steps_every == 0
        for k, dice in enumerate(ROLLS):
            fast = rows[bounds[i * 21 + k]:bounds[i * 21 + k + 1]]
            if over:
                ref_set = set()
            else:
                ref_moves = legal_moves(pos, dice, engine="reference")
                ref_set = {native.flip_row(m.after, r) for m in ref_moves} or {native.flip_row(pos.row, r)}
                if steps:
                    steps_pairs += 1
                    fast_moves = legal_moves(pos, dice, engine="fast")
                    a = [(m.steps, m.after, m.ended) for m in fast_moves]
                    b = [(m.steps, m.after, m.ended) for m in ref_moves]
                    if a != b:
                        step_mismatches += 1
                        if len(report) < max_report:
                            report.append(f"legal_moves {pos.id()} {dice}:\n  fast {a}\n  ref  {b}")
            pairs += 1
            if len(fast) != len(set(fast)) or set(fast) != ref_set:
                disagreements += 1
                if len(report) < max_report:
                    report.append(
                        f"position {pos.id()} ({r!r}) roll {dice}: fast {len(fast)} children "
                        f"({len(set(fast))} distinct), reference {len(ref_set)}\n"
                        f"  fast only: {_fmt(set(fast) - ref_set, r)}\n"
                        f"  reference only: {_fmt(ref_set - set(fast), r)}\n{pos}")
    print(f"\n[{label}] {r!r}: {pairs} (position, roll) pairs, {len(children)} children, "
          f"{disagreements} disagreements; canonical steps compared on {steps_pairs} pairs, "
          f"{step_mismatches} mismatches")
    assert disagreements == 0 and step_mismatches == 0, "\n".join(report)
    return pairs


@pytest.mark.parametrize("name,opts", CONFIGS, ids=CONFIG_IDS)
def test_fast_matches_reference_on_playouts(name, opts):
    r = ruleset_of(name, opts)
    pairs = PAIRS_CI
    n_pos = math.ceil(pairs / 21)
    arr = random_positions(r, n_pos, seed=4000 + CONFIGS.index((name, opts)), parallel_games=32)
    assert compare(r, arr, "playouts", steps_every=4) >= pairs


@pytest.mark.slow
@pytest.mark.parametrize("name,opts", CONFIGS, ids=CONFIG_IDS)
def test_fast_matches_reference_on_playouts_slow(name, opts):
    r = ruleset_of(name, opts)
    n_pos = math.ceil(PAIRS_SLOW / 21)
    arr = random_positions(r, n_pos, seed=9000 + CONFIGS.index((name, opts)), parallel_games=128)
    assert compare(r, arr, "playouts, slow", steps_every=10) >= PAIRS_SLOW


def w1_ids(kind: str) -> list:
    ids = workloads.w1_ids(kind)
    assert len(ids) == 1000
    return ids


@pytest.mark.parametrize("kind", ["contact", "race"])
def test_fast_engine_on_w1(kind):
    """The 2000 W1 positions (1000 contact + 1000 race) x 21 rolls.

    Backgammon: fast, reference and GNU Backgammon are compared on every pair in
    test_oracles.py (one pass of the reference engine for both). Adi moves as backgammon
    does (RULES.md §3): its fast children and legal moves equal backgammon's on every pair,
    and the reference engine's on every 8th position.
    """
    bg, adi = tawla.get_ruleset("backgammon"), tawla.get_ruleset("adi")
    ids = w1_ids(kind)
    arr = tawla.positions_to_array(Position.from_gnubg_id(pid, adi) for pid in ids)
    got = tawla.expand_all_rolls(arr, ruleset=adi)
    want = tawla.expand_all_rolls(arr, ruleset=bg)
    for a, b in zip(got, want):
        assert np.array_equal(a, b)
    for pid in ids[::50]:
        p_adi, p_bg = Position.from_gnubg_id(pid, adi), Position.from_gnubg_id(pid, bg)
        for dice in ROLLS:
            assert ([(m.steps, m.after, m.ended) for m in p_adi.legal_moves(dice)]
                    == [(m.steps, m.after, m.ended) for m in p_bg.legal_moves(dice)])
    assert compare(adi, arr[::8], f"W1 {kind}, adi", steps_every=1) == 125 * 21


# --- results, game over, frozen positions -------------------------------------------------------
@pytest.mark.parametrize("name,opts", CONFIGS, ids=CONFIG_IDS)
def test_game_results_match_reference(name, opts):
    """The C game_result (15 off, quadrant lock, mother rule, frozen) and is_frozen (§1.7) on
    positions that include the last position of every game, against the reference engine's
    game_result and is_frozen."""
    r = ruleset_of(name, opts)
    arr = random_positions(r, 3000, seed=77, parallel_games=4, include_over=True)
    movegen, params = native.backend.compiled("_movegen"), native.backend.params(r)
    over, winner, kind, points = movegen.game_results(arr, params)
    n_over = 0
    for i in range(len(arr)):
        row = arr[i].tobytes()
        frozen = ref_is_frozen(r, row)
        assert movegen.is_frozen_row(row, params) == native.is_frozen(row, r) == frozen, \
            f"{Position(row, r).id()}: reference is_frozen {frozen}"
        res = ref_game_result(r, arr[i].tobytes())
        if res is None:
            assert not over[i], Position(arr[i].tobytes(), r).id()
            continue
        n_over += 1
        got = (int(winner[i]), KINDS[kind[i]], int(points[i]))
        assert got == (-1 if res.winner is None else res.winner, res.kind, res.points), \
            f"{Position(arr[i].tobytes(), r).id()}: fast {got}, reference {res}"
    assert n_over > 0
    # a finished game yields no children, whatever the roll (expand and expand_all_rolls)
    done = arr[over]
    ch, par = tawla.expand(done, np.tile([[3, 1]], (len(done), 1)).astype(np.uint8), ruleset=r)
    assert len(ch) == 0 and len(par) == 0
    ch, par, rl = tawla.expand_all_rolls(done, ruleset=r)
    assert len(ch) == 0


def test_passing_row_yields_itself_flipped():
    r = tawla.get_ruleset("backgammon")
    # on roll: 2 on the bar; the opponent holds all six points of the mover's entry zone
    pos = Position.from_points(r, {6: 13}, {19: 2, 20: 2, 21: 2, 22: 2, 23: 2, 24: 2, 1: 3}, bar=(2, 0))
    ch, par = tawla.expand(pos.to_array()[None, :], np.array([[6, 5]], np.uint8), ruleset=r)
    assert len(ch) == 1 and bytes(ch[0]) == pos.flip().row and list(par) == [0]
    assert legal_moves(pos, (6, 5)) == []


def test_expand_matches_expand_all_rolls_and_reference_engine_path():
    r = tawla.get_ruleset("mahbusa")
    arr = random_positions(r, 60, seed=5)
    rep = np.repeat(arr, 21, axis=0)
    dice = np.tile(tawla.ROLLS, (len(arr), 1))
    c1, p1 = tawla.expand(rep, dice, ruleset=r)
    c2, p2, r2 = tawla.expand_all_rolls(arr, ruleset=r)
    assert np.array_equal(c1, c2) and np.array_equal(p1, p2 * 21 + r2)
    c3, p3 = tawla.expand(rep, dice, ruleset=r, engine="reference")
    assert np.array_equal(p1, p3)
    for i in range(len(rep)):
        assert set(map(bytes, c1[p1 == i])) == set(map(bytes, c3[p3 == i]))


# --- input validation ----------------------------------------------------------------------------
def test_invalid_rows_name_the_row():
    r = tawla.get_ruleset("backgammon")
    arr = np.repeat(r.initial_position().to_array()[None, :], 4, axis=0)
    bad = arr.copy()
    bad[2, 6] += 1  # 16 checkers
    with pytest.raises(InvalidPosition, match="row 2"):
        tawla.expand(bad, np.ones((4, 2), np.uint8), ruleset=r)
    with pytest.raises(InvalidPosition, match="row 2"):
        tawla.expand_all_rolls(bad, ruleset=r)
    shared = arr.copy()
    shared[1, 6] -= 1
    shared[1, 1] += 1  # the mover on his point 1, where the opponent has 2 checkers
    with pytest.raises(InvalidPosition, match="row 1"):
        tawla.expand(shared, np.ones((4, 2), np.uint8), ruleset=r)
    with pytest.raises(InvalidDice):
        tawla.expand(arr, np.full((4, 2), 7, np.uint8), ruleset=r)
    with pytest.raises(InvalidDice):
        tawla.expand(arr, np.ones((3, 2), np.uint8), ruleset=r)
    with pytest.raises(InvalidId):
        tawla.expand(arr[:, :50], np.ones((4, 2), np.uint8), ruleset=r)
    with pytest.raises(InvalidId):
        tawla.expand(arr.astype(np.int64), np.ones((4, 2), np.uint8), ruleset=r)
    with pytest.raises(InvalidPosition, match="row 0"):  # a bar in a game without one
        m = tawla.get_ruleset("mahbusa")
        row = m.initial_position().to_array()
        row[24] -= 1
        row[25] += 1
        tawla.expand(row[None, :], np.ones((1, 2), np.uint8), ruleset=m)


def test_empty_batch():
    for name in tawla.RULESET_IDS:
        ch, par = tawla.expand(np.zeros((0, 56), np.uint8), np.zeros((0, 2), np.uint8), ruleset=name)
        assert ch.shape == (0, 56) and par.shape == (0,)
        ch, par, rl = tawla.expand_all_rolls(np.zeros((0, 56), np.uint8), ruleset=name)
        assert ch.shape == (0, 56) and rl.shape == (0,)


def test_engine_selection():
    pos = tawla.get_ruleset("adi").initial_position()
    old = native.backend.set_default_engine("reference")
    try:
        assert eng.default_engine() == "reference"
        ref = [(m.steps, m.after) for m in pos.legal_moves((6, 4))]
    finally:
        native.backend.set_default_engine(old)
    assert eng.default_engine() == "fast"
    assert [(m.steps, m.after) for m in pos.legal_moves((6, 4))] == ref


def test_engine_variable_is_read_at_import():
    """TAWLA_ENGINE=reference, read once when tawla.native is imported, makes the reference engine
    the default of that process; a call's own engine= still chooses."""
    code = ("import tawla, tawla.native as n; r = tawla.get_ruleset('adi'); "
            "print(n.default_engine(), tawla.playout(r, 2, seed=1).engine, "
            "tawla.playout(r, 2, seed=1, engine='fast').engine)")
    env = {**os.environ, "TAWLA_ENGINE": "reference"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["reference", "reference", "fast"]


def test_engine_variable_reaches_batches_and_playouts(monkeypatch):
    """The reference default reaches expand, expand_all_rolls and playout too."""
    calls = []
    real = ref_batch.legal_sequences

    def spy(r, row, dice):
        calls.append(dice)
        return real(r, row, dice)

    monkeypatch.setattr(ref_batch, "legal_sequences", spy)
    r = tawla.get_ruleset("adi")
    row = r.initial_position().to_array()[None, :]
    fast_children = tawla.expand_all_rolls(row, ruleset=r)[0]
    assert calls == []
    old = native.backend.set_default_engine("reference")
    try:
        ref_children = tawla.expand_all_rolls(row, ruleset=r)[0]
        assert len(calls) == 21
        assert sorted(map(bytes, fast_children)) == sorted(map(bytes, ref_children))
        assert playout(r, 2, seed=1).engine == "reference"
    finally:
        native.backend.set_default_engine(old)
    assert playout(r, 2, seed=1).engine == "fast"


def test_threads_give_the_same_children():
    """Two threads expanding halves of a batch (the GIL is released) agree with one call."""
    r = tawla.get_ruleset("backgammon")
    arr = tawla.positions_to_array(Position.from_gnubg_id(pid, r) for pid in w1_ids("contact")[:200])
    c, p, rl = tawla.expand_all_rolls(arr, ruleset=r)
    out = [None, None]

    def work(k):
        out[k] = tawla.expand_all_rolls(arr[k * 100:(k + 1) * 100], ruleset=r)

    threads = [threading.Thread(target=work, args=(k,)) for k in (0, 1)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert np.array_equal(c, np.concatenate([out[0][0], out[1][0]]))
    assert np.array_equal(p, np.concatenate([out[0][1], out[1][1] + 100]))


# --- playouts --------------------------------------------------------------------------------------
def test_playout_shapes_and_determinism():
    a = playout("backgammon", 500, seed=3)
    b = playout("backgammon", 500, seed=3)
    c = playout("backgammon", 500, seed=4)
    assert a.length.dtype == np.int32 and a.winner.dtype == np.int8 and a.kind.dtype == np.int8
    assert a.points.dtype == np.int16 and a.length.shape == (500,)
    assert np.array_equal(a.length, b.length) and np.array_equal(a.winner, b.winner)
    assert not np.array_equal(a.length, c.length)
    assert set(np.unique(a.winner)) <= {0, 1}
    assert np.all(a.points == np.array([1, 2, 3])[a.kind])  # cube 1: single 1, gammon 2, backgammon 3
    assert np.all(a.length >= 7)  # 15 checkers need at least 7 turns of the winner
    assert tawla.playout is playout


# reference games are slow (~20-40 games/s here): a few rulesets in CI, all under -m slow
STAT_CI = [("backgammon", {}, 150), ("mahbusa", {}, 120), ("tawla31", {}, 120), ("tawla31-saharat", {}, 120)]
STAT_SLOW = [(name, opts, 1000) for name, opts in CONFIGS]


def _z(m1, v1, n1, m2, v2, n2) -> float:
    se = math.sqrt(v1 / n1 + v2 / n2)
    return 0.0 if se == 0 else (m1 - m2) / se


def compare_playouts(name, opts, n_ref):
    """Fast playout statistics against the reference engine's, within sampling error: mean
    length, first-player score, and the frequency of every result kind (|z| < 4.5)."""
    r = ruleset_of(name, opts)
    fast = playout(r, 20_000, seed=11)
    ref = playout(r, n_ref, seed=11, engine="reference")
    zs = {}
    zs["length"] = _z(fast.length.mean(), fast.length.var(), fast.n_games,
                      ref.length.mean(), ref.length.var(ddof=1), ref.n_games)
    for label, f, g in [("first player wins", fast.winner == 0, ref.winner == 0)] + [
            (f"kind {k}", fast.kind == i, ref.kind == i) for i, k in enumerate(KINDS)]:
        p = (f.sum() + g.sum()) / (len(f) + len(g))
        if 0 < p < 1:
            zs[label] = _z(f.mean(), p * (1 - p), len(f), g.mean(), p * (1 - p), len(g))
    print(f"\n[playouts] {r!r}: fast {fast.summary()}\n  reference {ref.summary()}\n  z {zs}")
    assert not np.any(fast.kind == KINDS.index("unfinished"))
    bad = {k: z for k, z in zs.items() if abs(z) >= 4.5}
    assert not bad, f"fast and reference playouts differ beyond sampling error: {bad}"


@pytest.mark.parametrize("name,opts,n_ref", STAT_CI, ids=[s[0] for s in STAT_CI])
def test_playout_statistics_match_reference(name, opts, n_ref):
    compare_playouts(name, opts, n_ref)


@pytest.mark.slow
@pytest.mark.parametrize("name,opts,n_ref", STAT_SLOW, ids=CONFIG_IDS)
def test_playout_statistics_match_reference_slow(name, opts, n_ref):
    compare_playouts(name, opts, n_ref)
