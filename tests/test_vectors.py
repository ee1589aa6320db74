"""RULES.md §11 test vectors, one test (or one parametrised family) per vector.

Every expectation below is written out by hand from RULES.md, never computed by the engine.
Positions are given in the mover's numbering (RULES.md §1.1); the opponent's checkers are
given in the mover's numbering too (``Position.from_points`` convention). A final position is
written as the mover's ``{point: count}`` after the move (checkers borne off are implied).
"""

from __future__ import annotations

import pytest

import tawla
from tawla import Position, Step, get_ruleset, legal_steps, opening_roll

ALL = tawla.RULESET_IDS  # backgammon, adi, mahbusa, tawla31, tawla31-saharat


# Every test runs on the reference engine, and on the compiled one where it is built.
pytestmark = pytest.mark.usefixtures("each_engine")


def pos(ruleset, me, opp, **kw) -> Position:
    return Position.from_points(ruleset, me, opp, **kw)


def finals(position, dice) -> list[dict]:
    """The mover's checkers ``{point: count}`` after each legal move (mover's seat)."""
    return [m.result_position().to_points()["on_roll"] for m in position.legal_moves(dice)]


def same(got: list[dict], expected: list[dict]) -> bool:
    """Equal as sets of final positions, and no final listed twice."""
    key = lambda d: tuple(sorted(d.items()))  # noqa: E731
    return len(got) == len({key(g) for g in got}) and {key(g) for g in got} == {key(e) for e in expected}


def first_single_steps(position, dice, played=()) -> list[tuple]:
    """(from, to, die) of the legal next single steps (what a board lights up, §1.3)."""
    return [(s.from_point, s.to_point, s.die) for s in legal_steps(position, dice, played)
            if isinstance(s.die, int)]


def blocker(ruleset: str) -> int:
    """How many opponent checkers close a point: 2 where a blot can be hit or pinned, 1 in Tawla 31."""
    return 1 if ruleset.startswith("tawla31") else 2


# --- G1-G4: generic forced-move vectors, every ruleset ---------------------------------------
@pytest.mark.parametrize("ruleset", ALL)
def test_G1_larger_die(ruleset):
    """G1: 13/7 and 13/8 each legal, neither continues (7/2, 8/2 blocked): M = 1, play the 6."""
    n = blocker(ruleset)
    p = pos(ruleset, {13: 1, 1: 14}, {2: n, 20: 15 - n})
    assert same(finals(p, (6, 5)), [{7: 1, 1: 14}])
    assert same(finals(p, (5, 6)), [{7: 1, 1: 14}])
    (move,) = p.legal_moves((6, 5))
    assert [(s.from_point, s.to_point, s.die) for s in move.steps] == [(13, 7, 6)]
    # Step by step: 13/8 is refused as a first step although it is a legal single move.
    assert first_single_steps(p, (6, 5)) == [(13, 7, 6)]


@pytest.mark.parametrize("ruleset", ALL)
def test_G2_partial_double(ruleset):
    """G2: 4-4 with the mover's 5 blocked: only 13/9, the other three 4s are forfeited."""
    n = blocker(ruleset)
    p = pos(ruleset, {13: 1, 1: 14}, {5: n, 20: 15 - n})
    assert same(finals(p, (4, 4)), [{9: 1, 1: 14}])
    (move,) = p.legal_moves((4, 4))
    assert len(move.steps) == 1 and not move.ended


G34_OPPONENT = {19: 3, 20: 3, 21: 3, 22: 2, 23: 2, 24: 2}  # all 15 on the mover's 19..24


@pytest.mark.parametrize("ruleset", ALL)
def test_G3_bearoff_seed002(ruleset):
    """G3: one on 2, two on 1, roll 2-1: finals {one on 1} and {two on 1} (2/1 then 1/off with the 2)."""
    p = pos(ruleset, {2: 1, 1: 2}, G34_OPPONENT)
    assert same(finals(p, (2, 1)), [{1: 1}, {1: 2}])
    for m in p.legal_moves((2, 1)):
        assert len(m.steps) == 2 and not m.ended
    # the 1 may go first as 2/1, then 1/off with the 2 is allowed (1 is now the highest point)
    assert (2, 1, 1) in first_single_steps(p, (2, 1))
    assert first_single_steps(p, (2, 1), [(2, 1, 1)]) == [(1, 0, 2)]


G4_SCORE = {  # (kind, points) for the winner, cube 1; the loser has none off, all in its own home
    "backgammon": ("gammon", 2),
    "adi": ("gammon", 2),  # mars
    "mahbusa": ("gammon", 2),
    "tawla31": ("gammon", 15),  # 15 - 0 checkers off
    "tawla31-saharat": ("gammon", 2),
}


@pytest.mark.parametrize("ruleset", ALL)
def test_G4_higher_die_from_highest_point(ruleset):
    """G4: checkers on 4 and 2, roll 6-5: 4/off and 2/off in either order, the game is over."""
    p = pos(ruleset, {4: 1, 2: 1}, G34_OPPONENT)
    moves = p.legal_moves((6, 5))
    assert same(finals(p, (6, 5)), [{}])
    (move,) = moves
    assert move.ended
    assert sorted((s.from_point, s.to_point) for s in move.steps) == [(2, 0), (4, 0)]
    # step by step: 4/off with either die (2/off with the 5 is not yet allowed: 4 is higher)
    assert sorted(first_single_steps(p, (6, 5))) == [(4, 0, 5), (4, 0, 6)]
    assert first_single_steps(p, (6, 5), [(4, 0, 5)]) == [(2, 0, 6)]
    assert first_single_steps(p, (6, 5), [(4, 0, 6)]) == [(2, 0, 5)]
    nxt = p.play(move)
    kind, points = G4_SCORE[ruleset]
    assert nxt.result() == tawla.GameResult(1, kind, points)
    assert nxt.flip().result() == tawla.GameResult(0, kind, points)
    if ruleset == "backgammon":
        assert nxt.result(cube=4) == tawla.GameResult(1, "gammon", 8)
    assert nxt.legal_moves((3, 1)) == []


# --- A1-A2: adi / backgammon --------------------------------------------------------------------
@pytest.mark.parametrize("ruleset", ["backgammon", "adi"])
def test_A1_opening_uses_two_different_dice(ruleset):
    outcomes = set()
    for a in range(1, 7):
        for b in range(1, 7):
            o = opening_roll(ruleset, a, b)
            if a == b:
                assert (o.starter, o.dice, o.reroll) == (None, None, False)
                continue
            assert o.starter == (0 if a > b else 1)
            assert o.dice == (max(a, b), min(a, b)) and not o.reroll
            outcomes.add((o.starter, a, b))
    assert len(outcomes) == 30  # OpenSpiel: 30 ordered non-double opening outcomes
    start = get_ruleset(ruleset).initial_position()
    for a in range(2, 7):
        for b in range(1, a):
            moves = start.legal_moves((a, b))
            assert moves
            for m in moves:
                assert sorted(s.die for s in m.steps) == [b, a]
    # literal: 3-1 makes the 5-point, 6-5 runs a back checker 24/13
    assert {24: 2, 13: 5, 8: 2, 6: 4, 5: 2} in finals(start, (3, 1))
    assert {24: 1, 13: 6, 8: 3, 6: 5} in finals(start, (6, 5))


def test_A1_openspiel_counts_30_opening_outcomes():
    import pyspiel  # open_spiel is a test dependency (pyproject.toml)

    game = pyspiel.load_game("backgammon", {"scoring_type": "enable_gammons"})
    state = game.new_initial_state()
    assert state.is_chance_node()
    ours = sum(1 for a in range(1, 7) for b in range(1, 7) if opening_roll("adi", a, b).starter is not None)
    assert len(state.chance_outcomes()) == ours == 30


def test_A2_scoring():
    """A2: loser with 0 off and a checker on the bar: ADI = 2, STD = 3 x cube."""
    loser = dict(on_roll={6: 14}, opponent={}, bar=(1, 0), off=(0, 15))
    adi = Position.from_points("adi", **loser)
    assert adi.result() == tawla.GameResult(1, "gammon", 2)
    assert adi.result(cube=4) == tawla.GameResult(1, "gammon", 2)  # no cube in adi
    std = Position.from_points("backgammon", **loser)
    for v in (1, 2, 4, 8, 64):
        assert std.result(cube=v) == tawla.GameResult(1, "backgammon", 3 * v)
    assert std.flip().result(cube=2) == tawla.GameResult(0, "backgammon", 6)
    # D14 option: a checker on the bar (only) makes it a gammon
    local = Position.from_points(get_ruleset("backgammon", bar_backgammon_counts_double=True), **loser)
    assert local.result(cube=2) == tawla.GameResult(1, "gammon", 4)


# --- M1-M4: mahbusa -------------------------------------------------------------------------------
def test_M1_pin_black_lands_on_white_blot():
    """M1 (Black on roll, Black's numbering): White's single on A10 = Black's 15."""
    black = pos("mahbusa", {24: 13, 18: 2}, {15: 1, 1: 14})
    moves = black.legal_moves((3, 1))
    got = [m.result_position().to_points() for m in moves]
    expected = [  # (Black's checkers, points where White is pinned)
        ({24: 11, 23: 1, 21: 1, 18: 2}, ()),
        ({24: 12, 20: 1, 18: 2}, ()),
        ({24: 12, 21: 1, 18: 1, 17: 1}, ()),
        ({24: 12, 23: 1, 18: 1, 15: 1}, (15,)),  # 24/23 18/15*: Black on top of White
        ({24: 13, 17: 1, 15: 1}, (15,)),  # 18/17 18/15*
        ({24: 13, 18: 1, 14: 1}, ()),  # 18/14 (via 15 or 17): the White checker stays free
    ]
    key = lambda on, pins: (tuple(sorted(on.items())), tuple(pins))  # noqa: E731
    assert sorted(key(g["on_roll"], g["pinned_opponent"]) for g in got) == sorted(key(*e) for e in expected)
    for g in got:
        assert g["opponent"][15] == 1 and g["pinned_on_roll"] == ()


def test_M1_pinned_checker_cannot_move_and_point_is_closed():
    """White on roll (White's numbering): own 10 pinned under one Black checker."""
    white = pos("mahbusa", {24: 13, 13: 1, 10: 1}, {10: 1, 1: 14}, pinned_on_roll=[10])
    for dice in [(3, 3), (3, 1), (6, 3), (4, 3)]:
        for m in white.legal_moves(dice):
            assert all(s.from_point != 10 and s.to_point != 10 for s in m.steps), (dice, str(m))
            after = m.result_position().to_points()
            assert after["pinned_on_roll"] == (10,) and after["on_roll"][10] == 1
    # 3-3: 13/10 is closed, so the 13 cannot move at all; only the 24 stack moves (21, 18, 15, 12)
    fixed = {13: 1, 10: 1}
    assert same(finals(white, (3, 3)), [
        {24: 12, 12: 1, **fixed},  # 24/12
        {24: 11, 21: 1, 15: 1, **fixed},  # 24/15 24/21
        {24: 11, 18: 2, **fixed},  # 24/18(2)
        {24: 10, 21: 2, 18: 1, **fixed},  # 24/18 24/21(2)
        {24: 9, 21: 4, **fixed},  # 24/21(4)
    ])


def test_M1_black_may_add_and_release():
    # Black on roll with its pin stack on Black's 15 (White's 10): another Black checker may land
    black = pos("mahbusa", {24: 13, 18: 1, 15: 1}, {15: 1, 1: 14}, pinned_opponent=[15])
    added = [m.result_position().to_points() for m in black.legal_moves((3, 3))]
    assert any(a["on_roll"].get(15) == 2 and a["pinned_opponent"] == (15,) for a in added)
    # when the last pinner leaves (15/14), White's checker is free: a plain blot again
    black1 = pos("mahbusa", {24: 14, 15: 1}, {15: 1, 1: 14}, pinned_opponent=[15])
    after = [m.result_position().to_points() for m in black1.legal_moves((1, 1))]
    released = [a for a in after if 15 not in a["on_roll"]]
    assert released and all(a["pinned_opponent"] == () and a["opponent"][15] == 1 for a in released)
    # ... and then White may move it: White's 10 -> 7 with a 3
    white = pos("mahbusa", {24: 14, 10: 1}, {14: 1, 1: 14})
    assert (10, 7, 3) in first_single_steps(white, (3, 2))


def test_M2_pinned_checker_blocks_bearoff():
    """M2: White all home, its checker on 3 pinned: no bear-off with any roll, inside moves legal."""
    white = pos("mahbusa", {1: 3, 2: 3, 3: 1, 4: 3, 5: 3, 6: 2}, {3: 1, 20: 14}, pinned_on_roll=[3])
    for a in range(1, 7):
        for b in range(a, 7):
            for m in white.legal_moves((a, b)):
                assert all(s.to_point != 0 for s in m.steps)
                assert m.result_position().to_points()["off"] == (0, 0)
    # 6-5: the 5 plays 6/1, the 6 is unplayable (no bear-off)
    assert same(finals(white, (6, 5)), [{1: 4, 2: 3, 3: 1, 4: 3, 5: 3, 6: 1}])
    assert white.legal_moves((6, 6)) == []
    assert not white.is_frozen() and white.result() is None


@pytest.mark.parametrize("mother_rule", ["none", "plakoto"])
def test_M3_mutual_mother_pin_is_a_frozen_draw(mother_rule):
    r = get_ruleset("mahbusa", mother_rule=mother_rule)
    white = pos(r, {24: 1, 1: 14}, {24: 14, 1: 1}, pinned_on_roll=[24], pinned_opponent=[1])
    black = white.flip()
    assert black.to_points()["pinned_on_roll"] == (24,) and black.to_points()["pinned_opponent"] == (1,)
    for p in (white, black):
        assert p.result() == tawla.GameResult(None, "draw", 0)
        for a in range(1, 7):
            for b in range(a, 7):
                assert p.legal_moves((a, b)) == []
    assert white.is_frozen() and black.is_frozen()


def test_M4_single_mother_pin():
    me, opp = {24: 1, 13: 14}, {24: 2, 19: 13}  # Black: 2 pinners on White's 24, none on Black's 24
    white = pos("mahbusa", me, opp, pinned_on_roll=[24])
    assert white.result() is None and white.flip().result() is None and not white.is_frozen()
    assert same(finals(white, (6, 5)), [{24: 1, 13: 12, 8: 1, 7: 1}, {24: 1, 13: 13, 2: 1}])
    plakoto = pos(get_ruleset("mahbusa", mother_rule="plakoto"), me, opp, pinned_on_roll=[24])
    assert plakoto.result() == tawla.GameResult(1, "mother", 2)
    assert plakoto.flip().result() == tawla.GameResult(0, "mother", 2)
    assert plakoto.legal_moves((6, 5)) == []


# --- E1-E5: tawla31 ----------------------------------------------------------------------------------
def test_E1_start_double_six():
    start = get_ruleset("tawla31").initial_position()
    assert same(finals(start, (6, 6)), [{24: 13, 18: 1, 6: 1}])


def test_E2_black_six_six_after_white_six_five():
    start = get_ruleset("tawla31").initial_position()
    assert same(finals(start, (6, 5)), [{24: 14, 13: 1}])
    black = start.play(start.legal_moves((6, 5))[0])
    assert black.to_points()["opponent"] == {1: 14, 12: 1}  # White's runner on Black's 12 (A13)
    assert same(finals(black, (6, 6)), [{24: 14, 18: 1}])


def test_E3_lock_released_by_the_one():
    white = pos("tawla31", {7: 1, 24: 14}, {1: 15})
    assert same(finals(white, (6, 1)), [{24: 13, 18: 1, 6: 1}])
    (move,) = white.legal_moves((6, 1))
    assert [(s.from_point, s.to_point, s.die) for s in move.steps] == [(7, 6, 1), (24, 18, 6)]
    assert first_single_steps(white, (6, 1)) == [(7, 6, 1)]


def test_E4_no_bearoff_with_opponent_in_home():
    white = pos("tawla31", {2: 5, 3: 5, 4: 4, 5: 1}, {1: 1, 24: 14})
    assert white.legal_moves((6, 5)) == []
    assert legal_steps(white, (6, 5)) == []
    assert not white.is_frozen() and white.result() is None  # Black can still move: a pass


E5_START = {24: 10, 23: 1, 22: 1, 21: 1, 20: 1, 3: 1}
E5_LOCK = [  # quadrant lock, the game ends (the other die is void)
    {24: 9, 23: 1, 22: 1, 21: 1, 20: 1, 19: 1, 3: 1},  # 24/19
    {24: 8, 23: 1, 22: 2, 21: 1, 20: 1, 19: 1, 3: 1},  # 24/22 24/19
]
E5_OTHER = [
    {24: 9, 22: 2, 21: 1, 20: 1, 18: 1, 3: 1},  # 23/18 24/22
    {24: 10, 21: 1, 20: 2, 18: 1, 3: 1},  # 23/18 22/20
    {24: 10, 22: 1, 20: 1, 19: 1, 18: 1, 3: 1},  # 23/18 21/19
    {24: 10, 22: 1, 21: 1, 18: 2, 3: 1},  # 23/18 20/18
    {24: 10, 22: 1, 21: 1, 20: 1, 16: 1, 3: 1},  # 23/16 (= 23/21 21/16)
    {24: 9, 23: 1, 22: 1, 21: 1, 20: 1, 17: 1, 3: 1},  # 24/22/17
    {24: 10, 21: 2, 20: 1, 17: 1, 3: 1},  # 23/21 22/17
    {24: 10, 23: 1, 20: 1, 19: 1, 17: 1, 3: 1},  # 22/17 21/19
    {24: 10, 23: 1, 21: 1, 18: 1, 17: 1, 3: 1},  # 22/17 20/18
    {24: 10, 23: 1, 21: 1, 20: 1, 15: 1, 3: 1},  # 22/15 (= 22/20 20/15)
    {24: 9, 23: 1, 22: 2, 20: 1, 16: 1, 3: 1},  # 24/22 21/16
    {24: 10, 23: 1, 20: 2, 16: 1, 3: 1},  # 22/20 21/16
    {24: 10, 23: 1, 22: 1, 18: 1, 16: 1, 3: 1},  # 21/16 20/18
    {24: 10, 23: 1, 22: 1, 20: 1, 14: 1, 3: 1},  # 21/14
    {24: 9, 23: 1, 22: 2, 21: 1, 15: 1, 3: 1},  # 24/22 20/15
    {24: 10, 22: 1, 21: 2, 15: 1, 3: 1},  # 23/21 20/15
    {24: 10, 23: 1, 22: 1, 19: 1, 15: 1, 3: 1},  # 21/19 20/15
    {24: 10, 23: 1, 22: 1, 21: 1, 13: 1, 3: 1},  # 20/13
    {24: 9, 22: 1, 21: 2, 20: 1, 19: 1, 3: 1},  # 23/21 24/19: 23 emptied, no lock
    {24: 9, 23: 1, 21: 1, 20: 2, 19: 1, 3: 1},  # 22/20 24/19: 22 emptied
    {24: 9, 23: 1, 22: 1, 20: 1, 19: 2, 3: 1},  # 21/19 24/19: 21 emptied
    {24: 9, 23: 1, 22: 1, 21: 1, 19: 1, 18: 1, 3: 1},  # 20/18 24/19: 20 emptied
]


def test_E5_quadrant_lock():
    white = pos("tawla31", E5_START, {1: 15})
    moves = white.legal_moves((5, 2))
    got = [m.result_position().to_points()["on_roll"] for m in moves]
    assert same(got, E5_LOCK + E5_OTHER)
    for m in moves:
        fin = m.result_position().to_points()["on_roll"]
        assert m.ended == (fin in E5_LOCK)
        if m.ended:
            assert white.play(m).result() == tawla.GameResult(1, "quadrant_lock", 15)
        else:
            assert len(m.steps) == 2 and white.play(m).result() is None
    (lock1,) = [m for m in moves if m.result_position().to_points()["on_roll"] == E5_LOCK[0]]
    assert [(s.from_point, s.to_point, s.die) for s in lock1.steps] == [(24, 19, 5)]
    # with the option off the lock is no win: 24/19 must be followed by the 2
    off = pos(get_ruleset("tawla31", quadrant_lock_win=False), E5_START, {1: 15})
    assert not any(m.ended for m in off.legal_moves((5, 2)))
    assert E5_LOCK[0] not in finals(off, (5, 2))


# --- F1-F7: tawla31-saharat ------------------------------------------------------------------------
def test_F1_opening_six_five_cannot_split():
    start = get_ruleset("tawla31-saharat").initial_position()
    assert same(finals(start, (6, 5)), [{24: 14, 13: 1}])
    assert sorted(first_single_steps(start, (6, 5))) == [(24, 18, 6), (24, 19, 5)]


def _after_f1():
    start = get_ruleset("tawla31-saharat").initial_position()
    black = start.play(start.legal_moves((6, 5))[0])
    # White's stack (A24) is Black's 12, White's runner (A13) is Black's 1
    assert black.to_points()["opponent"] == {12: 14, 1: 1}
    assert black.to_points()["on_roll"] == {24: 15}
    return black


def test_F2_black_six_six():
    assert same(finals(_after_f1(), (6, 6)), [{24: 14, 18: 1}])


def test_F3_black_five_five_lock_released_on_own_9():
    assert same(finals(_after_f1(), (5, 5)), [{24: 14, 4: 1}, {24: 13, 19: 1, 9: 1}])


F4_WHITE = {24: 9, 22: 1, 21: 1, 20: 1, 19: 1, 18: 1, 10: 1}


def test_F4_wall():
    # Black: 14 on own 24 (= White's 12), runner on own 20 (= White's 8)
    white = pos("tawla31-saharat", F4_WHITE, {12: 14, 8: 1})
    assert first_single_steps(white, (1, 1)) == [(22, 21, 1), (21, 20, 1), (20, 19, 1), (19, 18, 1),
                                                 (18, 17, 1), (10, 9, 1)]
    assert (24, 23, 1) not in first_single_steps(white, (2, 1))
    for m in white.legal_moves((2, 1)):
        assert m.steps[0][:2] != (24, 23)
    # legal when Black's runner stands on Black's 1..5 (its 3 = White's 15) ...
    ahead = pos("tawla31-saharat", F4_WHITE, {12: 14, 15: 1})
    assert (24, 23, 1) in first_single_steps(ahead, (1, 1))
    # ... or when Black has borne off a checker
    off = pos("tawla31-saharat", F4_WHITE, {12: 14}, off=(0, 1))
    assert (24, 23, 1) in first_single_steps(off, (1, 1))


def test_F5_seam_wall_across_the_movers_1_24():
    # White: 22, 23, 24, 1, 2 and 5/3 would add 3: White's 22..24,1..3 = Black's 10..15, a wall
    me = {24: 8, 23: 1, 22: 1, 2: 1, 1: 1, 5: 3}
    white = pos("tawla31-saharat", me, {12: 14, 8: 1})  # Black on its 24 and 20: none on <= 9
    assert (5, 3, 2) not in first_single_steps(white, (2, 1))
    wall = (22, 23, 24, 1, 2, 3)
    plays = [m.result_position().to_points()["on_roll"] for m in white.legal_moves((2, 1))]
    assert not any(all(fin.get(p) for p in wall) for fin in plays)
    # 5/3 is fine once 23/22 has broken the run first
    assert {24: 8, 22: 2, 3: 1, 2: 1, 1: 1, 5: 2} in plays
    # with a Black checker on Black's 3 (White's 15, below the wall) it is legal
    ahead = pos("tawla31-saharat", me, {12: 14, 15: 1})
    assert (5, 3, 2) in first_single_steps(ahead, (2, 1))


def test_F6_no_wall_across_the_opponents_1_24():
    # 10/9 makes White's 14..9 = Black's 2, 1, 24, 23, 22, 21: not consecutive on Black's path
    white = pos("tawla31-saharat", {14: 2, 13: 2, 12: 2, 11: 2, 10: 6, 20: 1}, {6: 15})
    assert (10, 9, 1) in first_single_steps(white, (2, 1))
    assert any(all(m.result_position().to_points()["on_roll"].get(p) for p in range(9, 15))
               for m in white.legal_moves((2, 1)))


F7_WHITE = {24: 10, 22: 1, 21: 1, 20: 1, 19: 1, 10: 1}


def test_F7_wall_per_step():
    white = pos("tawla31-saharat", F7_WHITE, {12: 14, 8: 1})
    assert sorted(first_single_steps(white, (1, 1))) == sorted(
        [(10, 9, 1), (19, 18, 1), (20, 19, 1), (21, 20, 1), (22, 21, 1)])
    # after 19/18 breaks the run, 24/23 is a legal step
    assert (24, 23, 1) in first_single_steps(white, (1, 1), [Step(19, 18, 1, False)])
    moves = white.legal_moves((1, 1))
    assert len(moves) == 74
    assert len({m.after for m in moves}) == 74
    assert all(len(m.steps) == 4 for m in moves)
    assert any(m.result_position().to_points()["on_roll"].get(23) for m in moves)
    assert all(m.steps[0][:2] != (24, 23) for m in moves)
