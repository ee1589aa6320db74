"""Bearing off the last checker: RULES.md §1.4 ``len'``, decision D17, vector G5.

A sequence that bears off the mover's 15th checker counts the dice it used, like any other
sequence: where another sequence plays more dice, only the longer ones are legal. (A game
end with mover checkers still on the board, the quadrant lock or the plakoto mother rule,
counts every die: vector E5 in test_vectors.py.) Both engines, ``legal_moves``, ``expand``
and ``legal_steps``; every expectation is written out by hand.
"""

from __future__ import annotations

import numpy as np
import pytest

import tawla
from tawla import Position, Step, legal_steps
from tawla.batch import legal_moves
from tawla.native import flip_row as _native_flip

ENGINES = ["reference", "fast"]
HITTING = ["backgammon", "adi"]

# G5: one mover checker on 5 and 14 off; an opponent blot on the mover's 2 point, the other
# 14 opponent checkers on the mover's 19 and 20 points (7 each), none off.
G5_ME = {5: 1}
G5_OPP = {2: 1, 19: 7, 20: 7}
G5_PID = "8PcHABAQAAAAAA"


def g5(ruleset) -> Position:
    return Position.from_points(ruleset, G5_ME, G5_OPP)


def expand_one(pos: Position, dice, engine: str) -> list[bytes]:
    children, parent = tawla.expand(pos.to_array()[None, :], np.array([dice], np.uint8),
                                    ruleset=pos.ruleset, engine=engine)
    assert list(parent) == [0] * len(children)
    return [bytes(c) for c in children]


@pytest.mark.parametrize("ruleset", HITTING)
def test_g5_is_the_position_of_its_gnubg_id(ruleset):
    assert g5(ruleset).gnubg_id() == G5_PID
    assert Position.from_gnubg_id(G5_PID, ruleset) == g5(ruleset)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("ruleset", HITTING)
@pytest.mark.parametrize("dice", [(5, 3), (3, 5)])
def test_g5_only_the_hit_and_off_is_legal(engine, ruleset, dice):
    """5-3: 5/2*/off (the 3 first) plays both dice; 5/off alone plays one and is illegal."""
    pos = g5(ruleset)
    moves = legal_moves(pos, dice, engine=engine)
    assert [str(m) for m in moves] == ["5/2*/off"]
    (m,) = moves
    assert m.steps == (Step(5, 2, 3, True), Step(2, 0, 5, False))
    assert m.ended
    after = Position.from_points(ruleset, {}, {19: 7, 20: 7}, bar=(0, 1), off=(15, 0))
    assert m.after == after.row
    assert expand_one(pos, dice, engine) == [_native_flip(after.row, pos.ruleset)]


@pytest.mark.parametrize("engine", ENGINES)
def test_g5_expand_all_rolls_has_one_child_for_5_3(engine):
    pos = g5("backgammon")
    children, parent, roll = tawla.expand_all_rolls(pos.to_array()[None, :], ruleset="backgammon",
                                                    engine=engine)
    k = [tuple(int(x) for x in r) for r in tawla.ROLLS].index((3, 5))
    got = [bytes(c) for c, r in zip(children, roll) if r == k]
    after = Position.from_points("backgammon", {}, {19: 7, 20: 7}, bar=(0, 1), off=(15, 0))
    assert got == [_native_flip(after.row, pos.ruleset)]


@pytest.mark.parametrize("each_engine", ENGINES, indirect=True)
@pytest.mark.parametrize("ruleset,kind,points", [("backgammon", "backgammon", 3), ("adi", "gammon", 2)])
def test_g5_result_after_the_move(each_engine, ruleset, kind, points):
    """STD: the opponent, none off and a checker on the bar, loses a backgammon (3 at cube 1);
    ADI: mars (2)."""
    pos = g5(ruleset)
    (m,) = pos.legal_moves((5, 3))
    nxt = pos.play(m)
    assert nxt.result() == tawla.GameResult(1, kind, points)


def test_g5_step_by_step_refuses_five_off_first():
    """§1.3: 5/off with the 5 is a legal single move but not the first step of a kept
    sequence; the board lights up 5/2* only (and the combined 5/off via 2*)."""
    pos = g5("backgammon")
    assert legal_steps(pos, (5, 3)) == [Step(5, 2, 3, True), Step(5, 0, (3, 5), True)]
    assert legal_steps(pos, (5, 3), [(5, 2, 3)]) == [Step(2, 0, 5, False)]
    with pytest.raises(tawla.errors.IllegalMove):
        legal_steps(pos, (5, 3), [(5, 0, 5)])


@pytest.mark.parametrize("engine", ENGINES)
def test_last_checker_off_with_one_die_when_nothing_plays_two(engine):
    """The opponent holds the mover's 2 point: 5/2 is blocked, so 5/off with the 5 is the
    longest sequence and legal (the 3 is void)."""
    pos = Position.from_points("backgammon", {5: 1}, {2: 2, 19: 7, 20: 6})
    moves = legal_moves(pos, (5, 3), engine=engine)
    assert [(m.steps, m.ended) for m in moves] == [((Step(5, 0, 5, False),), True)]
    assert len(expand_one(pos, (5, 3), engine)) == 1


@pytest.mark.parametrize("engine", ENGINES)
def test_same_final_position_keeps_the_two_dice_path(engine):
    """One checker on 3, roll 4-1: 3/off with the 4 alone plays one die; 3/2/off (the 1
    first) plays two and reaches the same empty board, so the move's path is the two-step one."""
    pos = Position.from_points("backgammon", {3: 1}, {19: 8, 20: 7})
    moves = legal_moves(pos, (4, 1), engine=engine)
    assert [(m.steps, m.ended) for m in moves] == [((Step(3, 2, 1, False), Step(2, 0, 4, False)), True)]


@pytest.mark.parametrize("engine", ENGINES)
def test_higher_die_when_the_last_checker_comes_off_with_either(engine):
    """One checker on 3, roll 4-3: it comes off with the 4 or with the 3, one die either way
    (nothing is left to move); §1.4 keeps the larger die."""
    pos = Position.from_points("backgammon", {3: 1}, {19: 8, 20: 7})
    moves = legal_moves(pos, (4, 3), engine=engine)
    assert [(m.steps, m.ended) for m in moves] == [((Step(3, 0, 4, False),), True)]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("ruleset", tawla.RULESET_IDS)
def test_double_that_bears_off_the_last_checkers_early(engine, ruleset):
    """Checkers on 5 and 2, roll 6-6: 5/off then 2/off (5 is the highest point first) ends
    the game after two of the four dice."""
    pos = Position.from_points(ruleset, {5: 1, 2: 1}, {19: 8, 20: 7})
    moves = legal_moves(pos, (6, 6), engine=engine)
    assert [(m.steps, m.ended) for m in moves] == [((Step(5, 0, 6, False), Step(2, 0, 6, False)), True)]
    assert len(expand_one(pos, (6, 6), engine)) == 1


def _one_checker_positions(ruleset):
    """The mover's last checker on each home point, the opponent's blots and points spread
    over the mover's home and outfield in a fixed pattern (hitting games)."""
    out = []
    patterns = [{2: 1}, {2: 2}, {1: 1, 4: 1}, {3: 1, 5: 2}, {1: 2, 2: 1, 3: 1}, {4: 1, 6: 1},
                {2: 1, 3: 2, 4: 1}, {1: 1, 2: 1, 3: 1, 4: 1, 5: 1}]
    for p in range(1, 7):
        for pat in patterns:
            if p in pat:
                continue
            opp = dict(pat)
            opp[20] = 15 - sum(pat.values())
            out.append(Position.from_points(ruleset, {p: 1}, opp))
            opp[20] -= 1  # one of them on the bar instead
            out.append(Position.from_points(ruleset, {p: 1}, opp, bar=(0, 1)))
    return out


@pytest.mark.parametrize("ruleset", HITTING)
def test_one_checker_left_fast_equals_reference(ruleset):
    """Every roll on a fixed set of last-checker positions: the same moves, steps and flags."""
    pairs = 0
    for pos in _one_checker_positions(ruleset):
        for a, b in tawla.ROLLS:
            dice = (int(a), int(b))
            fast = [(m.steps, m.after, m.ended) for m in legal_moves(pos, dice, engine="fast")]
            ref = [(m.steps, m.after, m.ended) for m in legal_moves(pos, dice, engine="reference")]
            assert fast == ref, f"{pos.gnubg_id()} {dice}"
            assert sorted(expand_one(pos, dice, "fast")) == sorted(expand_one(pos, dice, "reference"))
            pairs += 1
    assert pairs > 1000
