"""Property tests: seeded random playouts of every ruleset through the public API
(``Position.legal_moves``, ``play``, ``result``), checked against an independent oracle.

The oracle (tests/helpers/property_oracle.py) is a second, deliberately plain reading of RULES.md
§§1.3-1.5, 2.1, 4.2-4.4, 5.2-5.6, 6.2-6.5 and the §1.4 algorithm; it shares no code with the
engine. Every turn of every game is checked:

* the engine's set of legal final positions equals the oracle's (§1.4 max-dice rule, D16, D17);
* every step of every legal move is a legal single step on the intermediate board (D18), and
  replaying the steps reaches the move's final position;
* after every step: 15 checkers per side, no point holds both colours except a Mahbusa pin
  stack of exactly one pinned checker, no illegal wall (T31S, §6.5);
* every legal move counts the same number of dice, §1.4's len' (D17: a game end with mover
  checkers still on the board counts every die, the last checker borne off the dice it used),
  and a move that uses one die of a non-double uses the larger one when any move does;
* each game ends with a win or a frozen draw, scored as §1.8 (the score recomputed here);
* backgammon and adi never reach a position where neither side can step (§1.7).

CI size: ``GAMES`` games per ruleset (>= 300); ``-m slow``: ``SLOW_GAMES`` (>= 2000). Run with
``-s`` (and ``-p no:xdist`` or ``-n 0``) to see the per-ruleset summary.
"""

from __future__ import annotations

import contextlib
import os
import random
import time
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tawla
from tawla import GameResult, get_ruleset, opening_roll

from property_oracle import (Board, _their_point, board_ok, oracle_apply, oracle_can_step, oracle_ended,
                             oracle_finals, oracle_next, oracle_result, oracle_step_ok, oracle_wall_ok,
                             rules_of)

GAMES = 300
SLOW_GAMES = 2000
MAX_TURNS = 5000

RULESETS = {
    "backgammon": get_ruleset("backgammon"),
    "adi": get_ruleset("adi"),
    "mahbusa": get_ruleset("mahbusa"),
    "tawla31": get_ruleset("tawla31"),
    "tawla31-saharat": get_ruleset("tawla31-saharat"),
    # the options, smaller runs
    "mahbusa/plakoto": get_ruleset("mahbusa", mother_rule="plakoto"),
    "tawla31/no-seed-rules": get_ruleset("tawla31", quadrant_lock_win=False,
                                         no_bearoff_with_opponent_in_home=False),
}
OPTION_GAMES = 100


# =================================================================================================
# Playouts
# =================================================================================================
def check_turn(r, position, dice, moves, stats):
    """All the per-turn properties for one roll; returns nothing, asserts."""
    before = Board.of(position)
    n_dice = 4 if dice[0] == dice[1] else 2
    # 1. the engine's final positions == the oracle's
    got = {m.after: m.ended for m in moves}
    assert len(got) == len(moves), "two legal moves reach one position"
    assert got == oracle_finals(r, before, dice), (position.id(), dice)
    # 2. each move's steps are legal single steps, replayed on the intermediate boards
    for m in moves:
        b = before
        remaining = list((dice[0],) * 4 if dice[0] == dice[1] else dice)
        for i, s in enumerate(m.steps):
            assert s.die in remaining, (str(m), s)
            remaining.remove(s.die)
            assert oracle_step_ok(r, b, s.from_point, s.to_point, s.die), (position.id(), dice, str(m), i)
            b = oracle_apply(r, b, s.from_point, s.to_point)
            assert board_ok(r, b), (position.id(), dice, str(m), i)
            assert oracle_wall_ok(r, b), (position.id(), dice, str(m), i)
            assert oracle_ended(r, b) == (m.ended and i == len(m.steps) - 1), (position.id(), dice, str(m))
        assert b.key() == m.after
        # a move that stops early could not have gone on (nothing playable with the dice left)
        if not m.ended and len(m.steps) < n_dice:
            assert not any(True for d in set(remaining) for _ in oracle_next(r, b, d)), (position.id(), dice)
    # 3. the max-dice rule: every move counts the same number of dice, len' (D17: a game end with
    #    mover checkers on the board counts all of them, the last checker borne off the dice it
    #    used); one die of a non-double: the larger
    counted = {n_dice if m.ended and m.after[0] < 15 else len(m.steps) for m in moves}
    assert len(counted) <= 1, (position.id(), dice, counted)
    assert all(len(m.steps) <= n_dice for m in moves)
    if counted == {1} and dice[0] != dice[1]:
        dies = {m.steps[0].die for m in moves}
        if max(dice) in dies:
            assert dies == {max(dice)}, (position.id(), dice)
    stats["rolls"] += 1
    stats["moves"] += len(moves)


def play_game(ruleset, rng: random.Random, stats: Counter, diff_fast: bool = False) -> GameResult:
    """One random game through the public API, every turn checked; returns its result.

    With ``diff_fast`` (the game played on the reference engine), every turn's moves are also
    asked of the fast engine and must be the same list: order, canonical steps, ``ended``."""
    r = rules_of(ruleset)
    # the opening roll (§1.6): ties throw again; the starter plays the two dice or rolls again
    while True:
        o = opening_roll(ruleset, rng.randint(1, 6), rng.randint(1, 6))
        if o.starter is not None:
            break
    dice = o.dice or (rng.randint(1, 6), rng.randint(1, 6))
    position = ruleset.initial_position()  # both seats see the same start
    turns = 0
    while True:
        result = position.result()
        want = oracle_result(r, position)
        if result is not None:
            assert (result.winner, result.kind, result.points) == want, position.id()
            if r.cube:
                for cube in (2, 4):
                    got = position.result(cube)
                    assert (got.winner, got.kind, got.points) == oracle_result(r, position, cube)
            break
        assert want is None, position.id()
        if not r.can_freeze:  # §1.7: the hitting games never freeze
            assert oracle_can_step(r, Board.of(position)) or oracle_can_step(r, Board.of(position.flip()))
        moves = position.legal_moves(dice)
        check_turn(r, position, dice, moves, stats)
        if diff_fast:
            fast = tawla.batch.legal_moves(position, dice, engine="fast")
            assert [(m.steps, m.after, m.ended) for m in fast] == \
                [(m.steps, m.after, m.ended) for m in moves], ("fast", position.id(), dice)
            stats["fast_pairs"] += 1
        if moves:
            move = rng.choice(moves)
            position = position.play(move)
            # a move ends the game exactly when it says so (a frozen draw can follow any move)
            res = position.result()
            if move.ended:  # a win for the mover, or the plakoto mutual mother pin (a draw)
                assert res is not None and (res.winner == 1 or r.plakoto and res.kind == "draw")
            else:
                assert res is None or res.kind == "draw"
        else:
            position = position.flip()  # pass
        turns += 1
        assert turns < MAX_TURNS, "a game that does not end"
        dice = (rng.randint(1, 6), rng.randint(1, 6))
    assert result.kind in ALLOWED_KINDS[r.name]
    if result.kind == "draw":
        assert r.can_freeze and result.points == 0 and result.winner is None
        if not r.plakoto:
            assert position.is_frozen()
    else:
        assert result.points >= 1
    stats["games"] += 1
    stats["turns"] += turns
    stats["end:" + result.kind] += 1
    return result


ALLOWED_KINDS = {
    "backgammon": {"single", "gammon", "backgammon"},
    "adi": {"single", "gammon"},
    "mahbusa": {"single", "gammon", "draw", "mother"},
    "tawla31": {"single", "gammon", "quadrant_lock", "draw"},
    "tawla31-saharat": {"single", "gammon", "draw"},
}


def run_playouts(label: str, games: int, seed: int, tag: str = "", diff_fast: bool = False) -> Counter:
    r = RULESETS[label]
    rng = random.Random(f"{label}:{seed}")
    stats: Counter = Counter()
    t0, c0 = time.perf_counter(), time.process_time()
    for _ in range(games):
        play_game(r, rng, stats, diff_fast)
    dt, cpu = time.perf_counter() - t0, time.process_time() - c0
    ends = ", ".join(f"{k[4:]} {v}" for k, v in sorted(stats.items()) if k.startswith("end:"))
    print(f"\n[{label}, {tag} engine] games {stats['games']}, mean length {stats['turns'] / games:.1f} turns, "
          f"endings: {ends}, mean legal moves per roll {stats['moves'] / stats['rolls']:.2f} "
          f"({stats['rolls']} rolls); {dt:.1f} s ({cpu:.1f} s CPU)")
    assert stats["games"] == games
    return stats


MAIN = ["backgammon", "adi", "mahbusa", "tawla31", "tawla31-saharat"]
# The reference engine always; the compiled engine too where it is built (fewer games: the
# per-turn checks, not the engine, are most of the time).
ENGINES = ["reference"] + (["fast"] if tawla.batch.fast_available() else [])
FAST_GAMES = 100


@contextlib.contextmanager
def engine(name: str):
    """Run Position.legal_moves on one engine (the default of tawla.native, set for the block)."""
    old = tawla.native.backend.set_default_engine(name)
    try:
        assert tawla.batch.default_engine() == name
        yield
    finally:
        tawla.native.backend.set_default_engine(old)


@pytest.mark.parametrize("label", MAIN)
@pytest.mark.parametrize("engine_name", ["reference"])  # the fast engine: under -m slow, and
def test_random_playouts(label, engine_name):           # diffed pair by pair below and in test_fast_engine
    """The games on the reference engine, each turn also diffed against the fast engine: these
    >= 28,000 (position, roll) pairs a ruleset and test_fast_engine's 12,000 are the >= 40,000
    fast-against-reference pairs of every ruleset in CI (backgammon: also the 42,000 W1 pairs of
    test_oracles)."""
    diff = engine_name == "reference" and tawla.batch.fast_available()
    with engine(engine_name):
        stats = run_playouts(label, GAMES if engine_name == "reference" else FAST_GAMES, seed=1,
                             tag=engine_name, diff_fast=diff)
    if diff:
        assert stats["fast_pairs"] == stats["rolls"] >= 28_000
    if label != "mahbusa":
        # backgammon/adi: §1.7. The Tawla 31 games cannot freeze in play either: a side with
        # all its checkers home may bear off its highest one with a 6 (T31E: unless an opponent
        # checker is in its home, and that checker can then always move or is the opponent's
        # locked start checker whose other checkers can move); a side with a checker outside
        # home needs six opponent points in a row in front of it, and the opponent can always
        # step 1 pip inside such a block (it is never an illegal wall in play, §6.5).
        assert stats["end:draw"] == 0


@pytest.mark.parametrize("label", ["mahbusa/plakoto", "tawla31/no-seed-rules"])
def test_random_playouts_with_options(label):
    with engine("reference"):
        stats = run_playouts(label, OPTION_GAMES, seed=1, tag="reference",
                             diff_fast=tawla.batch.fast_available())
    if label == "tawla31/no-seed-rules":
        assert stats["end:quadrant_lock"] == 0


@pytest.mark.slow
@pytest.mark.parametrize("label", list(RULESETS))
@pytest.mark.parametrize("engine_name", ENGINES)
def test_random_playouts_full_size(label, engine_name):
    with engine(engine_name):
        stats = run_playouts(label, SLOW_GAMES, seed=2, tag=engine_name)
    if not label.startswith("mahbusa"):
        assert stats["end:draw"] == 0  # see test_random_playouts


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(label=st.sampled_from(list(RULESETS)), seed=st.integers(0, 2**32 - 1),
       engine_name=st.sampled_from(ENGINES))
def test_hypothesis_playout(label, seed, engine_name):
    """One game per example, the seed chosen (and shrunk on failure) by Hypothesis."""
    with engine(engine_name):
        play_game(RULESETS[label], random.Random(seed), Counter())


# =================================================================================================
# Random boards (not only reachable ones): the engine against the oracle, position by position
# =================================================================================================
def random_position(ruleset, rng: random.Random):
    """A random valid board of the ruleset: few points, biased to homes and start quadrants,
    some checkers off, bar checkers (hitting games), pin stacks (mahbusa)."""
    r = rules_of(ruleset)
    while True:
        sides = []
        for _ in range(2):
            side = [0] * 26
            side[0] = rng.choice([0, 0, 0, rng.randint(1, 14)])
            n = 15 - side[0]
            pool = rng.choice([list(range(1, 25)), list(range(1, 7)) + list(range(19, 25)),
                               list(range(1, 13)), list(range(13, 25))])
            pts = rng.sample(pool, rng.randint(1, min(len(pool), 7)))
            for i in range(n):
                side[rng.choice(pts)] += 1
            if r.kind == "hit" and rng.random() < 0.2:
                k = rng.randint(1, 2)
                for _ in range(k):
                    p = rng.choice([q for q in range(1, 25) if side[q]] or [0])
                    if p:
                        side[p] -= 1
                        side[25] += 1
            sides.append(side)
        me, opp_own = sides
        opp = [0] * 26  # the opponent's checkers in the mover's numbering
        opp[0], opp[25] = opp_own[0], opp_own[25]
        for q in range(1, 25):
            opp[_their_point(r, q)] += opp_own[q]
        pinned_me, pinned_opp = [], []
        ok = True
        for p in range(1, 25):
            if me[p] and opp[p]:
                if r.kind != "pin" or (me[p] != 1 and opp[p] != 1):
                    ok = False
                    break
                if me[p] == 1 and (opp[p] != 1 or rng.random() < 0.5):
                    pinned_me.append(p)
                else:
                    pinned_opp.append(p)
        if not ok:
            continue
        try:
            return tawla.Position.from_points(
                ruleset, {p: me[p] for p in range(1, 25) if me[p]}, {p: opp[p] for p in range(1, 25) if opp[p]},
                bar=(me[25], opp[25]), off=(me[0], opp[0]), pinned_on_roll=pinned_me, pinned_opponent=pinned_opp)
        except tawla.errors.InvalidPosition:
            continue


def check_position(ruleset, position, dice):
    r = rules_of(ruleset)
    result = position.result()
    want = oracle_result(r, position)
    assert (None if result is None else (result.winner, result.kind, result.points)) == want, position.id()
    frozen = r.can_freeze and not oracle_can_step(r, Board.of(position)) \
        and not oracle_can_step(r, Board.of(position.flip()))
    if result is None or result.kind == "draw":
        assert position.is_frozen() == frozen, position.id()
    if result is None:
        moves = position.legal_moves(dice)
        check_turn(r, position, dice, moves, Counter())


def test_random_boards_match_the_oracle():
    rng = random.Random(11)
    for label, ruleset in RULESETS.items():
        for eng in ENGINES:
            with engine(eng):
                for _ in range(300):
                    p = random_position(ruleset, rng)
                    check_position(ruleset, p, (rng.randint(1, 6), rng.randint(1, 6)))


@settings(max_examples=200, deadline=None)
@given(label=st.sampled_from(list(RULESETS)), seed=st.integers(0, 2**32 - 1),
       a=st.integers(1, 6), b=st.integers(1, 6), engine_name=st.sampled_from(ENGINES))
def test_hypothesis_boards_match_the_oracle(label, seed, a, b, engine_name):
    ruleset = RULESETS[label]
    with engine(engine_name):
        check_position(ruleset, random_position(ruleset, random.Random(seed)), (a, b))


# =================================================================================================
# Step-by-step play (§1.3): legal_steps along a random legal move
# =================================================================================================
def _oracle_best(r, b: Board, remaining) -> int:
    """How many more dice can be used from b (D17: a game-ending step counts them all, unless it
    bore off the last checker: then it counts one)."""
    best = 0
    for d in set(remaining):
        rest = list(remaining)
        rest.remove(d)
        for _, n in oracle_next(r, b, d):
            if oracle_ended(r, n):
                best = max(best, len(remaining) if n.me[0] < 15 else 1)
            else:
                best = max(best, 1 + _oracle_best(r, n, rest))
            if best == len(remaining):
                return best
    return best


def _oracle_next_singles(r, b, dice, remaining, used, target) -> list:
    n_dice = 4 if dice[0] == dice[1] else 2
    out = []
    for d in set(remaining):
        rest = list(remaining)
        rest.remove(d)
        for (p, t), n in oracle_next(r, b, d):
            if oracle_ended(r, n):  # D17
                total = n_dice if n.me[0] < 15 else used + 1
            else:
                total = used + 1 + _oracle_best(r, n, rest)
            if total >= target:
                out.append((p, t, d))
    if target == 1 and dice[0] != dice[1] and used == 0 and any(x[2] == max(dice) for x in out):
        out = [x for x in out if x[2] == max(dice)]
    return sorted(out)


@pytest.mark.parametrize("label", list(RULESETS))
def test_legal_steps_along_random_moves(label):
    ruleset = RULESETS[label]
    r = rules_of(ruleset)
    rng = random.Random(f"steps:{label}")
    with engine("reference"):
        for _ in range(15):
            position = ruleset.initial_position()
            while position.result() is None:
                dice = (rng.randint(1, 6), rng.randint(1, 6))
                moves = position.legal_moves(dice)
                if not moves:
                    assert tawla.legal_steps(position, dice) == []
                    position = position.flip()
                    continue
                move = rng.choice(moves)
                remaining = list((dice[0],) * 4 if dice[0] == dice[1] else dice)
                b = Board.of(position)
                target = _oracle_best(r, b, remaining)
                played = []
                for i in range(len(move.steps) + 1):
                    got = sorted((s.from_point, s.to_point, s.die)
                                 for s in tawla.legal_steps(position, dice, played) if isinstance(s.die, int))
                    if i == len(move.steps):
                        want = [] if move.ended else _oracle_next_singles(r, b, dice, remaining, i, target)
                        assert got == want == [], (position.id(), dice, str(move))
                        break
                    assert got == _oracle_next_singles(r, b, dice, remaining, i, target), (position.id(), dice)
                    s = move.steps[i]
                    assert (s.from_point, s.to_point, s.die) in got
                    played.append(s)
                    b = oracle_apply(r, b, s.from_point, s.to_point)
                    remaining.remove(s.die)
                position = position.play(move)
