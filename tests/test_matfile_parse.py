"""Tests of the match-record parsers (:mod:`tawla.formats.matfile`, :mod:`tawla.formats.sgf`).

The real records live in ``shared/data/matches`` (outside the repository, see
its ``SOURCES.md``).  Without them the data tests are skipped, except on CI
(``CI=true``), where a missing data folder is an error.  The synthetic tests
at the end run everywhere.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from tawla.errors import FormatError
from tawla.formats.matfile import (
    Action,
    MatchRecord,
    parse_match,
    read_match,
    write_match,
)
from tawla.formats.sgf import parse_sgf, read_sgf, sgf_point

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "matches"

# Per .mat/.txt file, from the tables of SOURCES.md (cross-checked by
# test_expectations_match_sources_md):
# (match length (0 = money), games, turns (rolls incl. dances),
#  checker moves, cube actions, games ending in a drop, Galaxy "Losses" games)
EXPECTED = {
    "backgammonlib/test_match_1.txt": (23, 22, 998, 2046, 42, 6, 0),
    "backgammonlib/test_match_2.txt": (23, 25, 866, 1690, 62, 18, 0),
    "backgammonlib/test_match_3.txt": (25, 18, 682, 1448, 50, 11, 0),
    "backgammonlib/test_match_4.txt": (25, 26, 863, 1740, 56, 16, 0),
    "backgammonlib/test_match_5.txt": (21, 23, 985, 2029, 48, 8, 0),
    "backgammonlib/test_match_6.txt": (21, 20, 723, 1458, 40, 10, 0),
    "bglab-galaxy/galaxy_16pt_match10315962.txt": (16, 1, 12, 31, 2, 1, 0),
    "bglab-galaxy/galaxy_17pt_match8170603.txt": (17, 18, 487, 1003, 38, 12, 0),
    "bglab-galaxy/galaxy_1pt_match1495872.txt": (1, 1, 39, 92, 0, 0, 0),
    "bglab-galaxy/galaxy_2pt_match8062348.txt": (2, 1, 41, 96, 2, 0, 0),
    "bglab-galaxy/galaxy_3pt_match1436325.txt": (3, 5, 121, 262, 6, 3, 0),
    "bglab-galaxy/galaxy_3pt_match2225428.txt": (3, 5, 151, 337, 6, 3, 0),
    "bglab-galaxy/galaxy_4pt_match8782487.txt": (4, 1, 71, 122, 2, 0, 0),
    "bglab-galaxy/galaxy_5pt_match10030560.txt": (5, 5, 231, 481, 8, 2, 2),
    "bglab-galaxy/galaxy_5pt_match10041414.txt": (5, 7, 126, 292, 12, 5, 1),
    "bglab-galaxy/galaxy_5pt_match2430002.txt": (5, 8, 183, 370, 14, 6, 0),
    "bglab-galaxy/galaxy_7pt_match1209980.txt": (7, 9, 316, 648, 16, 5, 0),
    "bglab-galaxy/galaxy_7pt_match12473715.txt": (7, 9, 426, 794, 16, 4, 0),
    "bglab-galaxy/galaxy_7pt_match1301058.txt": (7, 8, 397, 836, 12, 2, 1),
    "bglab-galaxy/galaxy_8pt_match1093632.txt": (8, 1, 15, 38, 2, 1, 0),
    "bglab-studio/studio_11pt_2023-03-03_id2686434.txt": (11, 8, 467, 770, 18, 2, 0),
    "bglab-studio/studio_13pt_2023-01-18_id2549921.txt": (13, 15, 669, 1099, 36, 10, 0),
    "bglab-studio/studio_13pt_2023-03-24_id2753261.txt": (13, 19, 563, 957, 36, 14, 0),
    "bglab-studio/studio_13pt_2023-07-23_id3125134.txt": (13, 7, 323, 588, 18, 3, 0),
    "bglab-studio/studio_13pt_2023-10-19_id3447372.txt": (13, 16, 571, 987, 28, 7, 0),
    "bglab-studio/studio_3pt_2024-05-11_id4211790.txt": (3, 2, 62, 121, 6, 1, 0),
    "bglab-studio/studio_5pt_2024-04-22_id4141034.txt": (5, 8, 393, 678, 12, 6, 0),
    "bglab-studio/studio_7pt_2023-08-03_id3163388.txt": (7, 8, 235, 401, 16, 6, 0),
    "bglab-studio/studio_9pt_2023-09-16_id3327210.txt": (9, 8, 354, 593, 18, 4, 0),
    "gnubg-scripts/galaxy_3pt_match1486073.txt": (3, 2, 109, 233, 2, 0, 0),
    "gnubg-scripts/galaxy_5pt_match1484923.txt": (5, 4, 203, 426, 6, 0, 1),
    "gnubg-scripts/gnubg_vs_human_3pt_2023-09-01.mat": (3, 3, 159, 342, 4, 0, 0),
    "gnubgparser/gnubg_7p_2025-11-08-2305.mat": (7, 4, 189, 394, 8, 1, 0),
    "gnubgparser/gnubg_roll_then_resign_1p.mat": (1, 1, 3, 4, 0, 0, 0),
    "gnubgparser/gnubg_selfplay_drops_7p.mat": (7, 6, 194, 427, 14, 3, 0),
    "nodots-xgmobile/xgmobile_money_vs_XG-Intermediate_2022-12-24.txt": (0, 23, 1128, 2287, 52, 7, 0),
    "bglib-gridgammon/gridgammon_1pt_2009-03-22_2057.txt": (1, 1, 43, 94, 0, 0, 0),
    "bglib-gridgammon/gridgammon_25pt_2009-04-10_2316.txt": (25, 28, 929, 1900, 60, 17, 0),
    "bglib-gridgammon/gridgammon_3pt_2009-01-15_1857.txt": (3, 1, 59, 116, 2, 0, 0),
    "bglib-gridgammon/gridgammon_3pt_2009-03-15_1037.txt": (3, 4, 122, 279, 6, 2, 0),
    "bglib-gridgammon/gridgammon_4pt_2009-02-02_0823.txt": (4, 2, 82, 167, 6, 1, 0),
    "bglib-gridgammon/gridgammon_5pt_2009-01-21_1100.txt": (5, 8, 253, 547, 12, 5, 0),
    "bglib-gridgammon/gridgammon_7pt_2009-04-15_2320.txt": (7, 9, 362, 753, 18, 6, 0),
    "bglib-gridgammon/gridgammon_9pt_2009-02-13_2303.txt": (9, 12, 343, 709, 24, 9, 0),
    "bglib-live/match_25pt_2008-12-29.txt": (25, 23, 1033, 2060, 56, 11, 0),
    "bglib-live/tournament_final_11pt_2009-02-22.txt": (11, 15, 359, 732, 26, 10, 0),
    "bglib-online/online_15pt_id1864694.txt": (15, 12, 453, 901, 22, 5, 0),
    "bglib-online/online_5pt_id1857680.txt": (5, 3, 134, 288, 4, 0, 0),
    "bglib-online/online_7pt_id1910477.txt": (7, 11, 315, 675, 18, 7, 0),
}

# The one documented disagreement.  SOURCES.md's turn / checker-move numbers
# come from a replaying checker; in bglib-live/match_25pt_2008-12-29.txt the
# replay breaks down after the three "Illegal play" dumps (games 11, 17, 18;
# "28 replay errors"), so its counts for those games are not what is written.
# Syntactically the file holds 1047 rolls (+3 illegal-play entries with dice)
# and 2093 checker moves: 14 turns / 33 checker moves more than documented.
# (33 is exactly the checker moves written after the dump in game 11.)
WRITTEN_COUNTS = {"bglib-live/match_25pt_2008-12-29.txt": (1047, 2093)}

# Games with documented defects (SOURCES.md, "Known bad data").
KNOWN_BAD = {
    "bglib-live/match_25pt_2008-12-29.txt": {11, 17, 18},
    "bglab-studio/studio_3pt_2024-05-11_id4211790.txt": {2},
}

SGF_EXPECTED = {  # games, turns, checker moves (SOURCES.md)
    "gnubgparser/gnubg_7p_2025-11-08-2305.sgf": (7, 4, 189, 394),
    "gnubgparser/gnubg_7p_2025-11-08-2308.sgf": (7, 5, 236, 506),
    "gnubg-scripts/galaxy_3pt_match1486073_analyzed.sgf": (3, 2, 109, 233),
    "gnubg-scripts/gnubg_vs_human_3pt_2023-09-01.sgf": (3, 3, 159, 342),
}
SGF_PAIRS = {  # SGF -> .mat/.txt of the same match
    "gnubgparser/gnubg_7p_2025-11-08-2305.sgf": "gnubgparser/gnubg_7p_2025-11-08-2305.mat",
    "gnubg-scripts/gnubg_vs_human_3pt_2023-09-01.sgf": "gnubg-scripts/gnubg_vs_human_3pt_2023-09-01.mat",
    "gnubg-scripts/galaxy_3pt_match1486073_analyzed.sgf": "gnubg-scripts/galaxy_3pt_match1486073.txt",
}
NOT_MATCH_RECORDS = [
    "gammonx-variants/portes_game.txt",
    "gammonx-variants/tavli_match_portes_plakoto_fevga.txt",
    "gammonx-variants/backgammon_game_cube.txt",
    "bgammon-replay/bgammon_replay_example.match",
]


def data_dir() -> Path:
    """The data folder; skip (or fail on CI) when it is missing."""
    if not (DATA / "SOURCES.md").is_file():
        reason = f"match data not found at {DATA}"
        if os.environ.get("CI") == "true":
            pytest.fail(reason)
        pytest.skip(reason)
    return DATA


_CACHE: dict[str, MatchRecord] = {}


def load(name: str) -> MatchRecord:
    """Parse a data file once per session."""
    if name not in _CACHE:
        path = data_dir() / name
        _CACHE[name] = read_sgf(path) if name.endswith(".sgf") else read_match(path)
    return _CACHE[name]


def checker_moves(play: str) -> int:
    """Single-checker hops in a play: ``13/7(2)`` = 2, ``24/18/13`` = 2, ``13/4`` = 1."""
    total = 0
    for token in play.split():
        m = re.fullmatch(r"(.*?)(?:\((\d)\))?\*?", token)
        total += int(m.group(2) or 1) * token.count("/")
    return total


def counts(rec: MatchRecord) -> tuple[int, int]:
    rolls = [a for g in rec.games for a in g.rolls]
    return len(rolls), sum(checker_moves(a.play) for a in rolls)


def action_keys(game, drop_resign=False):
    return [a.key() for a in game.actions if not (drop_resign and a.kind == "resign")]


# --------------------------------------------------------------------------
# the data set as a whole
# --------------------------------------------------------------------------


def _sources_rows() -> dict[str, tuple]:
    """The Jellyfish-format rows of the SOURCES.md file tables."""
    rows, folder = {}, None
    for line in (data_dir() / "SOURCES.md").read_text(encoding="utf-8").splitlines():
        if line.startswith("### "):
            folder = line[4:].strip().rstrip("/")
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 9 and cells[0].startswith("`") and "Jellyfish" in cells[2]:
            turns, moves = (int(x) for x in cells[6].split("/"))
            length = 0 if cells[4] == "money" else int(cells[4])
            rows[f"{folder}/{cells[0].strip('`')}"] = (
                length, int(cells[5]), turns, moves, int(cells[7]))
    return rows


def test_expectations_match_sources_md():
    rows = _sources_rows()
    assert rows == {name: exp[:5] for name, exp in EXPECTED.items()}


def test_every_record_file_is_expected():
    found = {
        str(p.relative_to(data_dir()))
        for p in data_dir().rglob("*")
        if p.suffix in (".mat", ".txt") and "gammonx" not in p.parts[-2]
    }
    assert found == set(EXPECTED)
    assert len(found) == 49


def test_totals():
    games = sum(len(load(name).games) for name in EXPECTED)
    assert games == 476 == sum(exp[1] for exp in EXPECTED.values())
    turns = sum(counts(load(name))[0] for name in EXPECTED)
    moves = sum(counts(load(name))[1] for name in EXPECTED)
    assert sum(exp[2] for exp in EXPECTED.values()) == 17842  # SOURCES.md summary
    assert sum(exp[3] for exp in EXPECTED.values()) == 35341
    assert (turns, moves) == (17842 + 14, 35341 + 33)  # see WRITTEN_COUNTS


# --------------------------------------------------------------------------
# each file
# --------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_file_parses_as_documented(name):
    length, n_games, turns, moves, cube, drops, losses = EXPECTED[name]
    rec = load(name)
    assert rec.match_length == length
    assert len(rec.games) == n_games
    assert [g.number for g in rec.games] == list(range(1, n_games + 1))
    assert counts(rec) == WRITTEN_COUNTS.get(name, (turns, moves))
    assert sum(len(g.cube_actions) for g in rec.games) == cube
    assert sum(any(a.kind == "drop" for a in g.actions) for g in rec.games) == drops
    assert sum(any(a.kind == "resign" for a in g.actions) for g in rec.games) == losses
    assert rec.defects == []
    assert rec.games[0].score == (0, 0)
    for game in rec.games:
        assert game.winner in (0, 1) and game.points, f"game {game.number} has no result"
        bad = game.number in KNOWN_BAD.get(name, ())
        assert bool(game.defects) == bad, (game.number, game.defects)
        for act in game.actions:
            assert act.player in (0, 1) and act.line
            if act.kind == "roll":
                assert len(act.dice) == 2 and all(1 <= d <= 6 for d in act.dice)
            if act.kind in ("double", "win", "resign"):
                assert act.value and act.value > 0
    # the running score: each game's result gives the next game's score
    for game, nxt in zip(rec.games, rec.games[1:]):
        score = list(game.score)
        score[game.winner] += game.points
        assert tuple(score) == nxt.score, f"after game {game.number}"


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_round_trip(name):
    rec = load(name)
    again = parse_match(write_match(rec))
    assert again.match_length == rec.match_length
    assert again.headers == rec.headers
    assert again.variation == rec.variation
    assert len(again.games) == len(rec.games)
    for g1, g2 in zip(rec.games, again.games):
        assert (g2.number, g2.score, g2.players, g2.ratings) == (
            g1.number, g1.score, g1.players, g1.ratings)
        assert action_keys(g2) == action_keys(g1)
        assert (g2.winner, g2.points, g2.resigned) == (g1.winner, g1.points, g1.resigned)
        assert bool(g2.defects) == bool(g1.defects)


# --------------------------------------------------------------------------
# known bad data
# --------------------------------------------------------------------------


def test_illegal_play_dumps_are_recorded():
    rec = load("bglib-live/match_25pt_2008-12-29.txt")
    illegal = {
        g.number: [a for a in g.actions if a.kind == "illegal"] for g in rec.games
    }
    assert {n for n, acts in illegal.items() if acts} == {11, 17, 18}
    expected = {11: (0, (1, 1), 315), 17: (1, (2, 1), 486), 18: (0, (2, 1), 517)}
    for number, (player, dice, line) in expected.items():
        (act,) = illegal[number]
        assert (act.player, act.dice, act.line, act.move_number) == (
            player, dice, line, 24 if number != 18 else 13)
        assert act.play.startswith("Illegal play (25;0;1;")
        assert act.raw.startswith(f"{dice[0]}{dice[1]}: Illegal play")
        assert any("Illegal play" in d for d in rec.games[number - 1].defects)
    # the dump shares its line with the opponent's dance (game 11) or double (game 18)
    g11 = rec.games[10].actions
    i = next(k for k, a in enumerate(g11) if a.kind == "illegal")
    assert g11[i + 1].key() == ("roll", 1, (1, 1), "", None)
    g18 = rec.games[17].actions
    assert [a.kind for a in g18[-4:]] == ["illegal", "double", "drop", "win"]
    assert [a.player for a in g18[-4:]] == [0, 1, 0, 1]


def test_garbage_ending_is_recorded():
    rec = load("bglab-studio/studio_3pt_2024-05-11_id4211790.txt")
    game = rec.games[1]
    last = game.actions[-2:]
    assert (last[0].kind, last[0].dice, last[0].play, last[0].move_number) == (
        "illegal", (3, 2), "????", 24)
    assert (last[1].kind, last[1].player, last[1].value) == ("win", 1, 4016)
    assert any("????" in d for d in game.defects)
    assert any("4016" in d for d in game.defects)
    assert rec.games[0].defects == []


@pytest.mark.parametrize("name", NOT_MATCH_RECORDS)
def test_other_formats_are_rejected(name):
    with pytest.raises(FormatError):
        read_match(data_dir() / name)


# --------------------------------------------------------------------------
# dialect details (examples quoted in SOURCES.md)
# --------------------------------------------------------------------------


def find(rec: MatchRecord, line: int) -> list[Action]:
    return [a for g in rec.games for a in g.actions if a.line == line]


def test_gnubg_details():
    rec = load("backgammonlib/test_match_1.txt")
    first = rec.games[0].actions[0]
    assert first.key() == ("roll", 1, (3, 2), "24/21 13/11", None)  # empty left column
    assert first.move_number == 1 and first.line == 5
    assert [a.key() for a in find(rec, 10)] == [
        ("double", 0, None, "", 2), ("take", 1, None, "", None)]
    assert [a.key() for a in find(rec, 17)] == [
        ("roll", 0, (6, 6), "20/14 20/14 18/12* 14/8", None), ("roll", 1, (4, 4), "", None)]
    # overflowing left play pushes the right column
    rec = load("gnubg-scripts/gnubg_vs_human_3pt_2023-09-01.mat")
    assert [a.key() for a in find(rec, 15)] == [
        ("roll", 0, (1, 1), "25/24 23/22 22/21* 13/12", None),
        ("roll", 1, (6, 1), "25/24 20/14", None)]
    rec = load("gnubgparser/gnubg_roll_then_resign_1p.mat")
    (game,) = rec.games
    assert [a.kind for a in game.actions][-2:] == ["roll", "win"]
    assert game.actions[-2].play == "" and game.actions[-2].player != game.winner
    assert game.resigned


def test_galaxy_resignation():
    rec = load("bglab-galaxy/galaxy_5pt_match10030560.txt")
    game = rec.games[1]
    assert [a.key() for a in game.actions[-3:]] == [
        ("roll", 0, (6, 2), "1/0 1/0", None), ("resign", 1, None, "", 2), ("win", 0, None, "", 2)]
    assert game.resigned and (game.winner, game.points) == (0, 2)
    assert rec.headers["Player 1 Elo"] == "5,00/0"
    last = rec.games[-1].actions[-1]
    assert last.raw == "Wins 1 point and the match" and last.player == 0


def test_studio_details():
    rec = load("bglab-studio/studio_13pt_2023-10-19_id3447372.txt")
    assert [a.key() for a in find(rec, 54)] == [
        ("roll", 0, (5, 3), "", None), ("double", 1, None, "", 2)]
    assert find(rec, 54)[0].raw == "53: Cannot Move"
    rec = load("bglab-studio/studio_3pt_2024-05-11_id4211790.txt")
    g1 = rec.games[0]
    assert [a.key() for a in g1.actions[-3:]] == [
        ("double", 1, None, "", 2), ("drop", 0, None, "", None), ("win", 1, None, "", 1)]
    assert g1.actions[-1].move_number == 12  # numbered result line
    assert rec.games[1].actions[0].key() == ("roll", 1, (3, 1), "8/5 6/5", None)
    plays = {a.play for g in rec.games for a in g.rolls}
    assert {"24/20(2) 13/9(2)", "13/4", "bar/20* 13/11", "bar/23 24/22 7/5*(2)"} <= plays


def test_xg_mobile_details():
    rec = load("nodots-xgmobile/xgmobile_money_vs_XG-Intermediate_2022-12-24.txt")
    assert rec.match_length == 0
    assert rec.headers["Site"] == "XG Mobile"  # BOM stripped
    assert rec.headers["Jacoby"] == "On"
    assert rec.players == ("Player A", "XG-Intermediate")
    assert rec.games[0].actions[0].key() == ("roll", 1, (1, 5), "24/23 23/18", None)
    win = rec.games[0].actions[-1]
    assert (win.kind, win.player, win.value, win.move_number) == ("win", 0, 4, 47)


def test_gridgammon_details():
    rec = load("bglib-gridgammon/gridgammon_25pt_2009-04-10_2316.txt")
    assert rec.games[0].players == ("Player A", "Player B")
    assert rec.games[0].ratings == (1811, 1823)
    assert find(rec, 7)[1].dice == (2, 6)  # thrown order kept ("26:")
    rec = load("bglib-gridgammon/gridgammon_3pt_2009-01-15_1857.txt")
    assert (rec.games[0].winner, rec.games[0].points) == (1, 4)  # not capped


def test_live_match_result_on_numbered_line():
    rec = load("bglib-live/match_25pt_2008-12-29.txt")
    last = rec.games[-1]
    assert last.actions[-1].raw == "Wins 2 points and the match"
    assert last.winner == 1 and last.score == (20, 23)
    assert last.resigned  # player 1 wins right after player 0's own move


# --------------------------------------------------------------------------
# SGF
# --------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(SGF_EXPECTED))
def test_sgf_files(name):
    length, n_games, turns, moves = SGF_EXPECTED[name]
    rec = load(name)
    assert rec.match_length == length
    assert len(rec.games) == n_games
    assert counts(rec) == (turns, moves)
    assert rec.games[0].score == (0, 0)
    for game in rec.games:
        assert game.defects == []
        assert game.winner in (0, 1) and game.points
        assert game.actions[-1].kind == "win"
    for game, nxt in zip(rec.games, rec.games[1:]):
        score = list(game.score)
        score[game.winner] += game.points
        assert tuple(score) == nxt.score


@pytest.mark.parametrize("sgf_name", sorted(SGF_PAIRS))
def test_sgf_agrees_with_mat(sgf_name):
    sgf, mat = load(sgf_name), load(SGF_PAIRS[sgf_name])
    assert sgf.match_length == mat.match_length
    assert len(sgf.games) == len(mat.games)
    galaxy = "galaxy" in sgf_name
    for gs, gm in zip(sgf.games, mat.games):
        assert (gs.score, gs.winner, gs.points) == (gm.score, gm.winner, gm.points)
        if not galaxy:
            # gnubg wrote both files: identical plays, hits starred the same way
            assert action_keys(gs) == action_keys(gm, drop_resign=True)
        else:
            # Galaxy never stars hits and gnubg reordered the moves on import
            def norm(game):
                return [
                    (a.kind, a.player, a.dice, sorted(a.play.replace("*", "").split()), a.value)
                    for a in game.actions if a.kind != "resign"
                ]
            assert norm(gs) == norm(gm)


def test_sgf_resignations():
    rec = load("gnubgparser/gnubg_7p_2025-11-08-2305.sgf")
    assert [(g.winner, g.points, g.resigned) for g in rec.games] == [
        (1, 2, True), (0, 2, False), (0, 4, False), (0, 3, True)]


def test_sgf_point_letters():
    assert [sgf_point(c, 0) for c in "afxyz"] == [1, 6, 24, 25, 0]
    assert [sgf_point(c, 1) for c in "alpxyz"] == [24, 13, 9, 1, 25, 0]
    with pytest.raises(FormatError):
        sgf_point("{", 0)


def test_sgf_synthetic():
    text = (
        "(;FF[4]GM[6]MI[length:3][game:0][ws:0][bs:0]PW[Al]PB[Bo]RE[W+2]C[a [bracket\\] ]"
        ";B[41lpab];W[31fehe];W[double];B[take];W[62ysfd]A[x][y](;B[51])(;B[66]))"
        "(;FF[4]GM[6]MI[length:3][game:1][ws:2][bs:0]PW[Al]PB[Bo]RE[B+1R];B[21ybya];W[double];B[drop])"
    )
    rec = parse_sgf(text)
    g1, g2 = rec.games
    assert [a.key() for a in g1.actions] == [
        ("roll", 1, (4, 1), "13/9 24/23", None),
        ("roll", 0, (3, 1), "6/5 8/5", None),
        ("double", 0, None, "", 2),
        ("take", 1, None, "", None),
        ("roll", 0, (6, 2), "25/19 6/4", None),
        ("roll", 1, (5, 1), "", None),  # first variation only
        ("win", 0, None, "", 2),
    ]
    assert g2.score == (2, 0) and g2.resigned and g2.winner == 1
    assert g2.actions[0].play == "25/23 25/24"
    with pytest.raises(FormatError):
        parse_sgf("(;FF[4]GM[1]SZ[19];B[aa])")
    with pytest.raises(FormatError):
        parse_sgf("(;FF[4]GM[6]")


# --------------------------------------------------------------------------
# synthetic records (run without the data)
# --------------------------------------------------------------------------

SIMPLE = """\
; [Player 1 "Al"]
; [Player 2 "Bo"]
; [Variation "Backgammon"]

 3 point match

 Game 1
 Al : 0                         Bo : 0
  1)                             52: 13/11 24/19
  2) 33: 24/21 24/21 13/10 13/10 62: 24/22 22/16
  3) 61: 13/7 8/7                 Doubles => 2
  4)  Takes                      64:
  5) 51:
      Wins 2 points

 Game 2
 Al : 2                         Bo : 0
  1) 31: 8/5 6/5                 42: 8/4 6/4
  2)  Doubles => 2                Drops
      Wins 1 point and the match
"""


def test_synthetic_layout():
    rec = parse_match(SIMPLE, path="simple.mat")
    assert rec.path == "simple.mat"
    assert rec.players == ("Al", "Bo") and rec.match_length == 3
    g1, g2 = rec.games
    assert [a.key() for a in g1.actions] == [
        ("roll", 1, (5, 2), "13/11 24/19", None),
        ("roll", 0, (3, 3), "24/21 24/21 13/10 13/10", None),
        ("roll", 1, (6, 2), "24/22 22/16", None),
        ("roll", 0, (6, 1), "13/7 8/7", None),
        ("double", 1, None, "", 2),
        ("take", 0, None, "", None),
        ("roll", 1, (6, 4), "", None),
        ("roll", 0, (5, 1), "", None),
        ("win", 0, None, "", 2),
    ]
    assert g1.actions[1].move_number == 2 and g1.actions[1].line == 10
    assert (g1.winner, g1.points, g1.resigned, g1.defects) == (0, 2, False, [])
    assert [a.kind for a in g2.actions] == ["roll", "roll", "double", "drop", "win"]
    assert g2.score == (2, 0) and g2.winner == 0 and g2.points == 1


def test_synthetic_round_trip_and_column():
    rec = parse_match(SIMPLE)
    text = write_match(rec)
    again = parse_match(text)
    assert [action_keys(g) for g in again.games] == [action_keys(g) for g in rec.games]
    first = next(line for line in text.splitlines() if line.lstrip().startswith("1)"))
    assert first.index("52:") == 33  # right column at 33
    overflow = next(line for line in text.splitlines() if "13/10 13/10" in line)
    assert re.search(r"13/10 13/10 +62: 24/22 22/16$", overflow)


def test_crlf_bom_and_text_input():
    text = "\ufeff" + SIMPLE.replace("\n", "\r\n")
    rec = read_match(text)  # text with line breaks is accepted directly
    assert [action_keys(g) for g in rec.games] == [
        action_keys(g) for g in parse_match(SIMPLE).games]
    assert rec.headers["Player 1"] == "Al"


def test_read_match_path_types(tmp_path):
    path = tmp_path / "m.mat"
    path.write_text(SIMPLE, encoding="utf-8")
    for arg in (path, str(path)):
        rec = read_match(arg)
        assert len(rec.games) == 2 and rec.path == str(path)
    with pytest.raises(FormatError):
        read_match(tmp_path / "missing.mat")


def test_broken_game_does_not_abort():
    text = SIMPLE.replace("  3) 61: 13/7 8/7 ", "  3) 61: 13/7 8/7 @@garbage@@ ")
    rec = parse_match(text)
    g1, g2 = rec.games
    assert g1.defects and any(a.kind == "illegal" for a in g1.actions)
    assert g2.defects == []
    assert (g2.winner, g2.points) == (0, 1)


def test_out_of_turn_is_a_defect():
    text = SIMPLE.replace("  5) 51:", "  5)                             51:")
    rec = parse_match(text)
    g1 = rec.games[0]
    # the order of play wins (player 1 rolled last, so player 0 rolls) ...
    assert g1.actions[7].key() == ("roll", 0, (5, 1), "", None)
    # ... and the column disagreement is reported
    assert any("wrong column" in d for d in g1.defects)


def test_money_session_and_losses():
    text = (
        " 0 point match\n\n Game 1\n A : 0     B : 0\n"
        "  1) 31: 8/5 6/5                 42: 8/4 6/4\n"
        "  2) 62: 24/18 13/11              Losses 2 point\n"
        "      Wins 2 point\n"
    )
    rec = parse_match(text)
    assert rec.match_length == 0 and rec.variation == "Backgammon"
    (game,) = rec.games
    assert [a.key() for a in game.actions][-2:] == [
        ("resign", 1, None, "", 2), ("win", 0, None, "", 2)]
    assert game.resigned and game.defects == []
    again = parse_match(write_match(rec))
    assert action_keys(again.games[0]) == action_keys(game)


@pytest.mark.parametrize("text", [
    "",
    "hello world\n",
    "White Roll 5 4\nWhite Move 11/16\n",
    "(;FF[4]GM[6];B[41lpab])\n",
])
def test_not_a_match_record(text):
    with pytest.raises(FormatError):
        parse_match(text)


def test_game_without_score_line():
    rec = parse_match(" 1 point match\n\n Game 1\n")
    (game,) = rec.games
    assert game.actions == [] and "missing score line" in game.defects
    text = SIMPLE.replace(" Al : 2                         Bo : 0\n", "")
    rec = parse_match(text)
    assert any("missing score line" in d for d in rec.games[1].defects)
    assert rec.games[1].winner == 0 and rec.games[0].defects == []
