"""Step-by-step play in C (``tawla._fast.turn_steps`` / ``turn_finals``) against Python.

RULES.md §1.3 step-by-step play, §1.4 with D17 and the high-die rule. For random positions of
every ruleset (``tawla.playout.random_positions``, finished games included) and a random roll,
a random partial turn is walked hop by hop; at every prefix

* ``turn_steps`` must give exactly ``tawla.moves.legal_steps`` (single steps, then combined
  ones, in the same order) and whether the game ended during the hops;
* ``turn_finals`` must give exactly ``Match._completions`` restricted to the legal moves (what
  ``Match.legal_moves`` and the timeout completion use), in the same order with the same
  continuation;
* a hop that is a legal single move but not a legal next step, a hop after the game ended and
  a hop in a turn that passes must raise ``IllegalMove`` with ``legal_steps``' message and
  alternatives.
"""

from __future__ import annotations

import random
import types

import pytest

import tawla
from tawla import Step, engine as eng
from tawla.errors import IllegalMove
from tawla.match import Match
from tawla.moves import legal_steps
from tawla.playout import random_positions
from tawla.position import Position
from tawla.reference import engine as ref

CONFIGS = [(name, {}) for name in tawla.RULESET_IDS] + [
    ("mahbusa", {"mother_rule": "plakoto"}),
    ("tawla31", {"quadrant_lock_win": False}),
    ("tawla31", {"no_bearoff_with_opponent_in_home": False}),
]
CONFIG_IDS = [name + "".join(f"[{k}={v}]" for k, v in opts.items()) for name, opts in CONFIGS]
POSITIONS = 140  # per configuration; every prefix of the walk is a case
ROLLS = [(int(a), int(b)) for a, b in tawla.ROLLS]


def completions(pos: Position, dice, hops) -> dict:
    """``Match._completions`` of a match whose turn starts at ``pos`` with ``dice`` and ``hops``
    made (a stand-in carrying the attributes the method reads)."""
    m = types.SimpleNamespace(ruleset=pos.ruleset, _start=pos, _dice=tuple(dice),
                              _played=[Step(a, b, d, False) for a, b, d in hops])
    m._board_state = types.MethodType(Match._board_state, m)
    m.dice_left = Match.dice_left.fget(m)
    return Match._completions(m)


def expected_finals(pos: Position, dice, hops, over: bool) -> list:
    if over:
        return []
    comp = completions(pos, dice, hops)
    legal = {m.after for m in eng.legal_moves(pos, dice, engine="reference")}
    if not legal:  # the turn passes: its final position is the start
        return [(row, tuple(path)) for row, path in comp.items()]
    return [(row, tuple(path)) for row, path in comp.items() if row in legal]


def replay(r, pos: Position, hops):
    """The reference state after the hops, and whether one of them ended the game."""
    s = ref.State.from_row(pos.row)
    ended = False
    for a, b, _ in hops:
        s = ref.apply_step(r, s, a, b)
        ended = ended or ref.game_ended(r, s)
    return s, ended


def raised(fn, *args):
    try:
        fn(*args)
    except IllegalMove as e:
        return str(e), list(e.legal)
    return None


def walk_and_compare(r, rows, rng, all_rolls=False) -> tuple[int, int, int]:
    """Walk a random partial turn from every row (with a random roll, or with each of the 21)
    and compare at every prefix (module doc). Returns (partial turns, refused legal single
    moves, other refused hops)."""
    params = eng._params(r)
    cases = refused_moves = refused_other = 0
    pairs = [(row, roll) for row in rows
             for roll in (ROLLS if all_rolls else [(rng.randint(1, 6), rng.randint(1, 6))])]
    for row, dice in pairs:
        pos = Position(row.tobytes(), r)
        over = pos.result() is not None
        hops = []
        while True:
            where = f"{pos.id()} {dice} after {hops}"
            py = legal_steps(pos, dice, hops)
            singles, combined, ended = tawla._fast.turn_steps(pos.row, dice, hops, params)
            assert singles + combined == py, where
            s, py_ended = replay(r, pos, hops)
            assert ended == py_ended, where
            assert tawla._fast.turn_finals(pos.row, dice, hops, params) == expected_finals(pos, dice, hops, over), where
            cases += 1
            # refused hops: legal single moves that are not legal next steps, or any hop once
            # the turn is complete, has ended or passes
            rest = Match.dice_left.fget(types.SimpleNamespace(
                _dice=dice, _played=[Step(a, b, d, False) for a, b, d in hops]))
            moves = [(st.from_point, st.to_point, st.die) for st, _, _ in ref.next_steps(r, s, rest)]
            lit = {(x.from_point, x.to_point, x.die) for x in singles}
            bad = [h for h in moves if h not in lit]
            for h in (bad if singles else (moves[:1] or [(24, 23, 1)])):
                want = raised(legal_steps, pos, dice, hops + [h])
                assert want is not None, where
                assert raised(tawla._fast.turn_steps, pos.row, dice, hops + [h], params) == want, where
                assert raised(tawla._fast.turn_finals, pos.row, dice, hops + [h], params) == want, where
                if singles:
                    refused_moves += 1
                else:
                    refused_other += 1
            if not singles:
                break
            st = rng.choice(singles)
            hops.append((st.from_point, st.to_point, st.die))
    return cases, refused_moves, refused_other


@pytest.mark.parametrize("name,opts", CONFIGS, ids=CONFIG_IDS)
def test_turn_steps_and_finals_match_python(name, opts):
    r = tawla.get_ruleset(name, **opts)
    k = CONFIGS.index((name, opts))
    rows = random_positions(r, POSITIONS, seed=7100 + k, parallel_games=16, include_over=True)
    cases, moves, other = walk_and_compare(r, rows, random.Random(7100 + k))
    print(f"\n[turn steps] {r!r}: {cases} partial turns; refused: {moves} legal single moves "
          f"that are not legal next steps, {other} hops after the turn")
    assert cases >= 3 * POSITIONS and other >= POSITIONS


VECTORS = [  # RULES.md section 11: (id, ruleset, mover, opponent, roll, a hop to refuse, hops that end the game)
    *[(f"G1-{name}", name, {13: 1, 1: 14}, {2: 1 if name.startswith("tawla31") else 2,
                                            20: 14 if name.startswith("tawla31") else 13},
       (6, 5), (13, 8, 5), None) for name in tawla.RULESET_IDS],
    ("G5", "backgammon", {5: 1}, {2: 1, 19: 7, 20: 7}, (5, 3), (5, 0, 5), [(5, 2, 3), (2, 0, 5)]),
    ("G4", "adi", {4: 1, 2: 1}, {19: 3, 20: 3, 21: 3, 22: 2, 23: 2, 24: 2}, (6, 5), (2, 0, 5),
     [(4, 0, 5), (2, 0, 6)]),
    ("E5", "tawla31", {24: 10, 23: 1, 22: 1, 21: 1, 20: 1, 3: 1}, {1: 15}, (5, 2), None, [(24, 19, 5)]),
    ("F7", "tawla31-saharat", {24: 10, 22: 1, 21: 1, 20: 1, 19: 1, 10: 1}, {12: 14, 8: 1}, (1, 1),
     (24, 23, 1), None),
]


@pytest.mark.parametrize("vid,name,me,opp,dice,refuse,ending", VECTORS, ids=[v[0] for v in VECTORS])
def test_turn_steps_on_the_vectors(vid, name, me, opp, dice, refuse, ending):
    """Every roll and random walks on the vector positions, then the vector's own points: the
    hop the rules refuse as a next step, the hops that end the game."""
    r = tawla.get_ruleset(name)
    pos = Position.from_points(r, me, opp)
    params = eng._params(r)
    walk_and_compare(r, [pos.to_array()], random.Random(7300), all_rolls=True)
    if refuse:
        assert raised(tawla._fast.turn_steps, pos.row, dice, [refuse], params) == \
            raised(legal_steps, pos, dice, [refuse]) is not None
    if ending:
        singles, combined, ended = tawla._fast.turn_steps(pos.row, dice, ending, params)
        assert (singles, combined, ended) == ([], [], True)
        ((after, cont),) = tawla._fast.turn_finals(pos.row, dice, ending, params)
        assert cont == () and after == replay(r, pos, ending)[0].to_row()


def test_turn_steps_in_the_backgammon_regions():
    """The positions of test_regions (bear-off against blots, bar, closed boards, last checkers),
    where the maximum-dice rule, D17 and the high-die rule refuse legal single moves most."""
    from test_regions import REGIONS, region_positions

    r = tawla.get_ruleset("backgammon")
    rng = random.Random(7200)
    total = {"cases": 0, "moves": 0}
    for j, gen in enumerate(REGIONS.values()):
        rows, _ = region_positions(gen, 12, 7200 + j)
        cases, moves, _ = walk_and_compare(r, rows, rng, all_rolls=True)
        total["cases"] += cases
        total["moves"] += moves
    print(f"\n[turn steps, regions] {total['cases']} partial turns, {total['moves']} refused legal single moves")
    assert total["cases"] >= 2000 and total["moves"] >= 20


def test_malformed_hops_are_illegal_moves():
    r = tawla.get_ruleset("backgammon")
    pos = r.initial_position()
    params = eng._params(r)
    for hop in [(24, 21), (24, 21, 3, False, 0), (24, 21, (3,)), "24/21", 5]:
        with pytest.raises(IllegalMove):
            tawla._fast.turn_steps(pos.row, (3, 1), [hop], params)
    with pytest.raises(tawla.errors.InvalidDice):
        tawla._fast.turn_steps(pos.row, (0, 1), [], params)
    with pytest.raises(tawla.errors.InvalidId):
        tawla._fast.turn_finals(pos.row[:55], (3, 1), [], params)
    # a Step (4 fields, int die) is accepted as a hop
    singles, _, _ = tawla._fast.turn_steps(pos.row, (3, 1), [Step(24, 21, 3, False)], params)
    assert singles == legal_steps(pos, (3, 1), [(24, 21, 3)])[:len(singles)]
