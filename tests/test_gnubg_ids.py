"""Tests for tawla.formats.gnubg: gnubg Position ID / Match ID and XGID codecs."""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

import pytest

import tawla

from tawla.errors import InvalidId, InvalidPosition
from tawla.formats.gnubg import (
    MatchState,
    decode_position_id,
    decode_xgid,
    encode_position_id,
    encode_xgid,
)

IN_CI = os.environ.get("CI") == "true"
POSITIONS_DIR = Path(__file__).resolve().parents[2] / "shared" / "data" / "positions"
START_XGID = "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10"
KNOWN_PIDS = ["4HPwATDgc/ABMA", "jGfkASjg8wcBMA", "zGbiIQgxH/AAWA", "zGbiIYCYD3gALA", "27YBAAAAACAAAA"]


def side(points: dict[int, int]) -> tuple[int, ...]:
    """A 26-int side from {point: count} (25 = bar); the off count is filled in."""
    counts = [0] * 26
    for p, n in points.items():
        counts[p] = n
    counts[0] = 15 - sum(counts)
    return tuple(counts)


START = side({24: 2, 13: 5, 8: 3, 6: 5})

# Literal expected boards, (on_roll, opponent), each in its own numbering.
EXPECTED = {
    "4HPwATDgc/ABMA": (START, START),
    "jGfkASjg8wcBMA": (
        side({6: 5, 8: 7, 13: 1, 24: 2}),
        side({3: 2, 6: 4, 8: 2, 11: 1, 13: 4, 23: 1, 24: 1}),
    ),
    "zGbiIQgxH/AAWA": (
        side({1: 1, 4: 2, 6: 5, 13: 4, 24: 2, 25: 1}),
        side({3: 2, 5: 2, 6: 2, 8: 2, 10: 1, 13: 4, 17: 1, 22: 1}),
    ),
    "zGbiIYCYD3gALA": (
        side({1: 1, 4: 2, 6: 5, 13: 4, 24: 2, 25: 1}),
        side({3: 2, 5: 2, 6: 2, 8: 2, 10: 1, 13: 4, 17: 1}),  # one checker off
    ),
    "27YBAAAAACAAAA": (
        side({25: 1}),  # 14 off, one on the bar, closed out
        side({1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2}),  # 3 off
    ),
}


def _need_gnubg_nn():
    try:
        import gnubg_nn
    except ImportError:
        if IN_CI:
            pytest.fail("gnubg_nn (the oracle) is not installed, and CI=true")
        pytest.skip("gnubg_nn (the oracle) is not installed")
    return gnubg_nn


def _shared_pids() -> list[str]:
    files = sorted(POSITIONS_DIR.glob("*.pid"))
    if not files:
        if IN_CI:
            pytest.fail(f"no *.pid files under {POSITIONS_DIR}, and CI=true")
        pytest.skip(f"shared position data not found under {POSITIONS_DIR}")
    pids = [ln.strip() for f in files for ln in f.read_text().splitlines() if ln.strip()]
    assert len(pids) == 2000
    return pids


def to_gnubg(on_roll, opponent):
    """Our pair -> gnubg_nn's [anBoard[0], anBoard[1]] (player on roll second)."""
    return [list(opponent[1:26]), list(on_roll[1:26])]


# ----------------------------------------------------------------- position ID
@pytest.mark.parametrize("pid", KNOWN_PIDS)
def test_known_position_ids(pid):
    assert decode_position_id(pid) == EXPECTED[pid]
    assert encode_position_id(*EXPECTED[pid]) == pid


def test_position_id_accepts_whitespace_and_sequences():
    assert decode_position_id("  4HPwATDgc/ABMA\n") == (START, START)
    assert encode_position_id(list(START), list(START)) == "4HPwATDgc/ABMA"


def test_gnubg_manual_key_example():
    # The manual's start-position key is E0 73 F0 01 30 E0 73 F0 01 30.
    on_roll, opponent = decode_position_id("4HPwATDgc/ABMA")
    assert on_roll == opponent == START


def test_second_half_is_player_on_roll():
    gnubg_nn = _need_gnubg_nn()
    on_roll, opponent = decode_position_id("27YBAAAAACAAAA")
    board = to_gnubg(on_roll, opponent)
    assert gnubg_nn.board_from_position_id("27YBAAAAACAAAA") == board
    # gnubg_nn moves board[1]: the closed-out bar checker cannot move ...
    assert gnubg_nn.moves(board, 1, 2) == ()
    # ... while the other half, put on roll, can.
    assert gnubg_nn.moves(board[::-1], 1, 2) != ()


def test_shared_positions_agree_with_gnubg_nn():
    gnubg_nn = _need_gnubg_nn()
    for pid in _shared_pids():
        on_roll, opponent = decode_position_id(pid)
        assert [list(x) for x in gnubg_nn.board_from_position_id(pid)] == to_gnubg(on_roll, opponent), pid
        assert gnubg_nn.position_id(to_gnubg(on_roll, opponent)) == pid
        assert encode_position_id(on_roll, opponent) == pid


def test_shared_positions_round_trip_stdlib_only():
    for pid in _shared_pids():
        on_roll, opponent = decode_position_id(pid)
        assert sum(on_roll) == sum(opponent) == 15
        assert encode_position_id(on_roll, opponent) == pid
        # the swapped board is legal too and round-trips
        assert decode_position_id(encode_position_id(opponent, on_roll)) == (opponent, on_roll)


@pytest.mark.parametrize(
    "bad",
    [
        "4HPwATDgc/ABM",  # 13 chars
        "4HPwATDgc/ABMAA",  # 15 chars
        "4HPwATDgc/ABMA==",  # base64 padding is not part of the ID
        "4HPwATDgc-ABMA",  # '-' is not in the alphabet
        "4HPwATDgc/AB A",  # inner space
        "4HPwATDgc/ABMB",  # non-zero trailing padding bits
        "//////////////",  # all ones: too many checkers, too few separators
        "",
    ],
)
def test_bad_position_id_syntax(bad):
    with pytest.raises(InvalidId):
        decode_position_id(bad)


def _raw_id(sides):
    """Build an ID from raw (opponent, on_roll) point lists without validation."""
    bits = []
    for counts in sides:
        for n in counts:
            bits += [1] * n + [0]
    bits += [0] * (80 - len(bits))
    key = int("".join(map(str, reversed(bits))), 2)
    n = int.from_bytes(key.to_bytes(10, "little"), "big") << 4
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
    return "".join(alphabet[(n >> (6 * (13 - i))) & 63] for i in range(14))


def test_raw_id_helper_matches_encoder():
    assert _raw_id([START[1:], START[1:]]) == "4HPwATDgc/ABMA"


def test_too_many_checkers_on_one_side():
    pid = _raw_id([[16] + [0] * 24, [0] * 25])  # 16 checkers on opponent's ace point
    with pytest.raises(InvalidId, match="16 checkers"):
        decode_position_id(pid)


def test_both_sides_on_one_point():
    # opponent has a checker on its 1 point = on-roll player's 24 point
    opp = [1] + [0] * 24
    me = [0] * 23 + [1, 0]
    with pytest.raises(InvalidId, match="both"):
        decode_position_id(_raw_id([opp, me]))


def test_encode_rejects_bad_boards():
    with pytest.raises(InvalidPosition):
        encode_position_id(START[:25], START)  # 25 entries
    with pytest.raises(InvalidPosition):
        encode_position_id(side({6: 16}), START)  # 16 checkers
    with pytest.raises(InvalidPosition):
        encode_position_id((1,) + START[1:], START)  # off count inconsistent
    with pytest.raises(InvalidPosition):
        encode_position_id(side({24: 1}), side({1: 1}))  # both on one point


def test_hypergammon_checker_count():
    three = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 0)
    pid = encode_position_id(three, three, checkers=3)
    assert decode_position_id(pid, checkers=3) == (three, three)


# -------------------------------------------------------------------- match ID
def test_match_id_manual_example():
    # gnubg manual: score 2-4 in a 9-point match, player 0 holds a 2-cube,
    # player 1 has just rolled 52.
    ms = MatchState.from_match_id("QYkqASAAIAAA")
    assert ms == MatchState(
        cube_value=2, cube_owner=0, player_on_roll=1, crawford=False, game_state=1,
        turn=1, double_offered=False, resignation=0, dice=(5, 2), match_length=9,
        score=(2, 4), jacoby=True,
    )
    assert ms.match_id() == "QYkqASAAIAAA"


def test_match_id_money_start():
    ms = MatchState.from_match_id("cAkAAAAAAAAA")
    assert (ms.cube_value, ms.cube_owner, ms.player_on_roll, ms.turn) == (1, None, 1, 1)
    assert (ms.game_state, ms.dice, ms.match_length, ms.score) == (1, (0, 0), 0, (0, 0))
    assert not ms.crawford and not ms.double_offered and ms.resignation == 0 and ms.jacoby
    assert ms.match_id() == "cAkAAAAAAAAA"


def test_bit_66_is_not_jacoby():
    ms = MatchState.from_match_id("QYkqASAAIAAA")
    off = dataclasses.replace(ms, jacoby=False)
    assert off.match_id() == "QYkqASAAIAAE"  # only bit 66 (value 4 in the last char) set
    assert MatchState.from_match_id("QYkqASAAIAAE").jacoby is False


def test_match_state_round_trips():
    cases = [
        MatchState(),
        MatchState(cube_value=64, cube_owner=1, player_on_roll=0, crawford=True, game_state=1,
                   turn=1, double_offered=True, match_length=25, score=(24, 3), jacoby=False),
        MatchState(cube_value=1 << 15, game_state=4, resignation=3, dice=(6, 6),
                   match_length=0x7FFF, score=(0x7FFF, 0)),
        MatchState(game_state=0, turn=1, resignation=2, dice=(1, 3), score=(9000, 12)),
    ]
    for ms in cases:
        assert MatchState.from_match_id(ms.match_id()) == ms


def test_dice_kept_in_thrown_order():
    # gnubg stores the dice as rolled; keeping the order makes every Match ID round-trip.
    assert MatchState(dice=(2, 5)).dice == (2, 5)
    assert MatchState(dice=(2, 5)).match_id() != MatchState(dice=(5, 2)).match_id()
    assert MatchState.from_match_id("POEsbDmLkyoF").match_id() == "POEsbDmLkyoF"
    for mid in ("QYkqASAAIAAA", "cAkAAAAAAAAA"):
        assert MatchState.from_match_id(mid).match_id() == mid


def _mid(**bits) -> str:
    """A raw match ID from (first_bit, width, value) triples, unvalidated."""
    key = 0
    for lo, width, value in bits.values():
        key |= (value & ((1 << width) - 1)) << lo
    n = int.from_bytes(key.to_bytes(9, "little"), "big")
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
    return "".join(alphabet[(n >> (6 * (11 - i))) & 63] for i in range(12))


@pytest.mark.parametrize(
    "bad",
    [
        "QYkqASAAIAA",  # 11 chars
        "QYkqASAAIAAAA",  # 13 chars
        "QYkqASAA-AAA",  # bad character
        "QYkqASAAIA==",  # padding
        _mid(owner=(4, 2, 2), state=(8, 3, 1)),  # cube owner code 2
        _mid(owner=(4, 2, 3), state=(8, 3, 5)),  # game state 5
        _mid(owner=(4, 2, 3), d1=(15, 3, 7), d2=(18, 3, 1)),  # die 7
        _mid(owner=(4, 2, 3), d1=(15, 3, 4), d2=(18, 3, 0)),  # one die only
        _mid(owner=(4, 2, 3), length=(21, 15, 5), s0=(36, 15, 6)),  # score > length
        _mid(owner=(4, 2, 3), crawford=(7, 1, 1)),  # Crawford in a money game
        _mid(owner=(4, 2, 3), pad=(67, 5, 1)),  # unused bits set
    ],
)
def test_bad_match_ids(bad):
    with pytest.raises(InvalidId):
        MatchState.from_match_id(bad)


def test_mid_helper_matches_encoder():
    assert _mid(owner=(4, 2, 3), state=(8, 3, 1), move=(6, 1, 1), turn=(11, 1, 1)) == "cAkAAAAAAAAA"


@pytest.mark.parametrize(
    "kwargs",
    [
        {"cube_value": 3},
        {"cube_value": 1 << 16},
        {"cube_owner": 2},
        {"player_on_roll": 2},
        {"game_state": 5},
        {"resignation": 4},
        {"dice": (0, 3)},
        {"dice": (7, 1)},
        {"dice": (1, 2, 3)},
        {"match_length": 1 << 15},
        {"score": (1 << 15, 0)},
        {"match_length": 5, "score": (6, 0)},
        {"crawford": True},
        {"turn": 1.0},
    ],
)
def test_match_state_rejects_bad_fields(kwargs):
    with pytest.raises(InvalidId):
        MatchState(**kwargs)


# ------------------------------------------------------------------------ XGID
def test_xgid_start_position():
    on_roll, opponent, info = decode_xgid(START_XGID)
    assert on_roll == opponent == START
    assert info == dict(
        turn=1, cube_value=1, cube_position=0, dice=(0, 0), cube_action=None, score=(0, 0),
        crawford=False, jacoby=False, beaver=False, match_length=0, max_cube=1024,
    )
    assert encode_xgid(on_roll, opponent, **info) == START_XGID
    assert decode_xgid(START_XGID[5:]) == (on_roll, opponent, info)  # no prefix


def test_xgid_matches_position_id_boards():
    # Bottom on roll, then top on roll, for a non-symmetric position.
    on_roll, opponent = EXPECTED["zGbiIQgxH/AAWA"]
    x = encode_xgid(on_roll, opponent, turn=1, dice=(3, 1), score=(2, 4), match_length=7,
                    cube_value=2, cube_position=-1, max_cube=64)
    assert x == "XGID=-A-aB-E-a---dD-a-b-bb-b-BA:1:-1:1:31:2:4:0:7:6"
    a, b, info = decode_xgid(x)
    assert (a, b) == (on_roll, opponent)
    assert info["dice"] == (3, 1) and info["score"] == (2, 4) and info["max_cube"] == 64
    y = encode_xgid(on_roll, opponent, turn=-1, cube_action="D", jacoby=True, beaver=True)
    assert y == "XGID=ab-B-BB-B-A-dD---A-e-bA-a-:0:0:-1:D:0:0:3:0:10"
    a, b, info = decode_xgid(y)
    assert (a, b) == (on_roll, opponent)
    assert info["turn"] == -1 and info["cube_action"] == "D" and info["jacoby"] and info["beaver"]


def test_xgid_round_trips_shared_positions():
    for i, pid in enumerate(_shared_pids()):
        on_roll, opponent = decode_position_id(pid)
        turn = 1 if i % 2 else -1
        x = encode_xgid(on_roll, opponent, turn=turn, dice=(1 + i % 6, 1 + i // 6 % 6))
        a, b, info = decode_xgid(x)
        assert (a, b) == (on_roll, opponent)
        assert encode_xgid(a, b, **info) == x


@pytest.mark.parametrize(
    "bad",
    [
        "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0",  # 9 fields
        "XGID=-b----E-C---eE---c-e----B:0:0:1:00:0:0:0:0:10",  # 25 board chars
        "XGID=-b----E-C---eE---c-e----B-x:0:0:1:00:0:0:0:0:10",  # 27 board chars
        "XGID=-b----E-C---eE---c-e----B*:0:0:1:00:0:0:0:0:10",  # bad char
        "XGID=-b----E-C---eE---c-e----P-:0:0:1:00:0:0:0:0:10",  # 'P' = 16
        "XGID=Ab----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10",  # bottom checker on top bar
        "XGID=-b----E-C---eE---c-e----Ba:0:0:1:00:0:0:0:0:10",  # top checker on bottom bar
        "XGID=-b----E-C---eE---c-e---BB-:0:0:1:00:0:0:0:0:10",  # 17 bottom checkers
        "XGID=-b----E-C---eE---c-e----B-:0:0:0:00:0:0:0:0:10",  # turn 0
        "XGID=-b----E-C---eE---c-e----B-:0:2:1:00:0:0:0:0:10",  # cube position 2
        "XGID=-b----E-C---eE---c-e----B-:0:0:1:70:0:0:0:0:10",  # die 7
        "XGID=-b----E-C---eE---c-e----B-:0:0:1:30:0:0:0:0:10",  # one die
        "XGID=-b----E-C---eE---c-e----B-:0:0:1:X:0:0:0:0:10",  # bad cube action
        "XGID=-b----E-C---eE---c-e----B-:x:0:1:00:0:0:0:0:10",  # non-numeric cube
        "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:2:5:10",  # money flags in a match
        "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:5:0:0:5:10",  # score reaches length
        "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:4:0:10",  # money flags > 3
    ],
)
def test_bad_xgids(bad):
    with pytest.raises(InvalidId):
        decode_xgid(bad)


def test_encode_xgid_rejects_bad_context():
    with pytest.raises(InvalidPosition):
        encode_xgid(side({24: 1}), side({1: 1}))
    for kwargs in ({"turn": 0}, {"cube_value": 3}, {"dice": (0, 4)}, {"cube_action": "D", "dice": (3, 1)},
                   {"crawford": True}, {"match_length": 5, "jacoby": True},
                   {"match_length": 5, "score": (5, 0)}, {"cube_position": 2}):
        with pytest.raises(InvalidId):
            encode_xgid(START, START, **kwargs)


# XGID and Match ID through the public API
def test_xgid_and_match_id():
    text = "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10"
    start, state = tawla.Position.from_xgid(text), tawla.MatchState.from_xgid(text)
    assert start == tawla.get_ruleset("backgammon").initial_position()
    assert (state.cube_value, state.cube_owner, state.player_on_roll, state.match_length) == (1, None, 0, 0)
    assert start.xgid(state) == "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10"
    text = "XGID=-b----E-C---eE---c-e----B-:1:-1:-1:52:2:4:0:9:10"
    pos, st = tawla.Position.from_xgid(text), tawla.MatchState.from_xgid(text)
    assert (st.cube_value, st.cube_owner, st.player_on_roll, st.dice, st.score, st.match_length) == \
        (2, 1, 1, (5, 2), (2, 4), 9)
    assert pos.xgid(st) == "XGID=-b----E-C---eE---c-e----B-:1:-1:-1:52:2:4:0:9:10"
    m = tawla.MatchState.from_match_id("QYkqASAAIAAA")  # the gnubg manual's example
    assert (m.cube_value, m.cube_owner, m.player_on_roll, m.dice, m.match_length, m.score) == \
        (2, 0, 1, (5, 2), 9, (2, 4))
    assert m.match_id() == "QYkqASAAIAAA"
    with pytest.raises(InvalidId):
        tawla.Position.from_xgid("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0")
    with pytest.raises(InvalidId):
        tawla.MatchState.from_match_id("QYkqASAAIAA")


