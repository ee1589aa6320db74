"""SGF export in GNU Backgammon's dialect: read -> write -> read keeps every play and cube action.

The records of the shared archive (.mat, .txt and gnubg's own .sgf) are written as SGF, read
back and replayed: the same plays (the legal move each one matches, from the same position,
with the same cube) and cube actions, game by game, on ~60 games by default and the whole
archive under ``-m slow``. gnubg's own files come back node for node as gnubg wrote them,
and every node written uses the properties of gnubg's dialect. Matches of
:class:`tawla.Match` and ``tawla selfplay`` write SGF too.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

import tawla
from tawla.analysis import analyze_record, collect_files, read_record
from tawla.cli import main
from tawla.errors import FormatError
from tawla.formats.record import MatchRecord
from tawla.formats.sgf import _parse_trees, parse_sgf, read_sgf, sgf_point
from tawla.formats.sgf_write import play_pairs, point_letter, write_sgf

from conftest import require_module, shared_path
from test_notation_roundtrip import _drive

SUBSET = [  # 59 games: gnubg's .sgf and .mat, Jellyfish .txt, resignations, an illegal-play dump, a money session
    "gnubg-scripts", "gnubgparser/gnubg_7p_2025-11-08-2305.sgf", "gnubgparser/gnubg_7p_2025-11-08-2305.mat",
    "gnubgparser/gnubg_roll_then_resign_1p.mat", "gnubgparser/gnubg_selfplay_drops_7p.mat",
    "bglab-galaxy/galaxy_5pt_match10030560.txt", "bglab-studio/studio_3pt_2024-05-11_id4211790.txt",
    "nodots-xgmobile/xgmobile_money_vs_XG-Intermediate_2022-12-24.txt",
]
ROOT_PROPS = {"FF", "GM", "CA", "AP", "MI", "PW", "PB", "DT", "EV", "PC", "RU", "RE", "VA", "VO"}
MOVE_VALUE = re.compile(r"[1-6][1-6](?:[a-z][a-z]){0,4}|double|take|drop")


def replayed(record: MatchRecord) -> list:
    """Per game: the score, the plays (player, dice, matched move, position before, cube),
    the cube actions as written and as replayed, the result, whether it replays clean."""
    rep = analyze_record(record)
    assert rep.error is None
    out = []
    for game, g in zip(record.games, rep.games, strict=True):
        plays = [(d.player, tuple(d.dice), d.move, g.decisions.tawla_id(i, rep.ruleset), g.decisions.cube(i))
                 for i, d in enumerate(g.decisions)]
        cube = [(a.kind, a.player) for a in game.actions if a.kind in ("double", "take", "drop")]
        rolls = [(a.player, a.dice) for a in game.actions if a.kind == "roll"]
        out.append((g.number, tuple(g.score), plays, rolls, cube, g.cube_actions, g.cube_value, g.winner, g.points,
                    g.error is None))
    return out


def round_trip(paths) -> tuple[int, int]:
    records = games = 0
    for path in paths:
        try:
            record = read_record(path)
        except FormatError:  # not a match record (the archive's Greek tavli games)
            continue
        back = parse_sgf(write_sgf(record))
        assert back.match_length == record.match_length and back.players == record.players
        assert replayed(back) == replayed(record), path
        records += 1
        games += len(record.games)
    return records, games


def test_subset_round_trips():
    folder = shared_path("data", "matches")
    records, games = round_trip(collect_files([str(folder / name) for name in SUBSET]))
    assert records == 12 and games == 59


@pytest.mark.slow
def test_whole_archive_round_trips():
    records, games = round_trip(collect_files([shared_path("data", "matches")]))
    assert records >= 53 and games >= 486


def test_gnubg_files_come_back_as_gnubg_wrote_them():
    for path in sorted(shared_path("data", "matches").rglob("*.sgf")):
        theirs, ours = _parse_trees(path.read_text(encoding="utf-8")), _parse_trees(write_sgf(read_sgf(path)))
        assert len(theirs) == len(ours)
        for a, b in zip(theirs, ours):
            assert {k: a[0][k] for k in ("MI", "PW", "PB", "RU", "RE") if k in a[0]} == \
                {k: b[0][k] for k in ("MI", "PW", "PB", "RU", "RE") if k in b[0]}
            moves = [[(k, n[k]) for n in nodes[1:] for k in ("W", "B") if k in n] for nodes in (a, b)]
            assert moves[0] == moves[1], path


def _moves(text: str) -> list:
    return [[(k, n[k]) for n in nodes[1:] for k in ("W", "B") if k in n] for nodes in _parse_trees(text)]


@pytest.mark.parametrize("mat,sgf", [("gnubgparser/gnubg_7p_2025-11-08-2305.mat", "gnubgparser/gnubg_7p_2025-11-08-2305.sgf"),
                                     ("gnubg-scripts/gnubg_vs_human_3pt_2023-09-01.mat",
                                      "gnubg-scripts/gnubg_vs_human_3pt_2023-09-01.sgf")])
def test_a_mat_export_of_gnubg_becomes_the_sgf_gnubg_saved(mat, sgf):
    """The same matches saved by gnubg as .mat and as .sgf: the .mat written as SGF has gnubg's
    nodes, one for one (the dice, one pair of letters per die in gnubg's order, the cube)."""
    folder = shared_path("data", "matches")
    theirs = _moves((folder / sgf).read_text(encoding="utf-8"))
    assert _moves(write_sgf(read_record(folder / mat))) == theirs and sum(map(len, theirs)) > 150


def _check_dialect(text: str) -> None:
    trees = _parse_trees(text)
    assert text.startswith("(;FF[4]GM[6]CA[UTF-8]AP[tawla:") and text.count("(;FF[4]GM[6]") == len(trees)
    for i, nodes in enumerate(trees):
        root = nodes[0]
        assert set(root) <= ROOT_PROPS and {"FF", "GM", "MI", "PW", "PB"} <= set(root)
        info = dict(v.split(":") for v in root["MI"])
        assert list(info) == ["length", "game", "ws", "bs"] and all(v.isdigit() for v in info.values())
        assert re.fullmatch(r"[WB]\+\d+R?", root.get("RE", ["W+1"])[0])
        assert root.get("RU", ["Crawford"])[0] in ("Crawford", "Crawford:CrawfordGame", "Jacoby")
        for node in nodes[1:]:
            (prop, values), = node.items()
            assert prop in ("W", "B") and len(values) == 1 and MOVE_VALUE.fullmatch(values[0]), node


def test_written_properties_are_gnubgs(tmp_path, capsys):
    folder = shared_path("data", "matches")
    for name in ("gnubgparser/gnubg_selfplay_drops_7p.mat", "bglab-galaxy/galaxy_5pt_match10030560.txt",
                 "nodots-xgmobile/xgmobile_money_vs_XG-Intermediate_2022-12-24.txt"):
        _check_dialect(write_sgf(read_record(folder / name)))
    assert main(["selfplay", "--games", "2", "--policy", "ply0", "-o", str(tmp_path / "s.sgf")]) == 0
    text = (tmp_path / "s.sgf").read_text()
    _check_dialect(text)
    assert "RU[Jacoby]" not in text  # selfplay's money sessions: gammons count (Jacoby off)
    assert main(["analyze", "--no-eval", "--no-progress", str(tmp_path / "s.sgf")]) == 0


def test_links_over_both_dice_are_one_pair_per_die():
    record = read_record(shared_path("data", "matches", "gnubgparser", "gnubg_selfplay_drops_7p.mat"))
    for game in record.games:
        game.actions = game.actions[:1]
    game = record.games[0]
    game.actions[0].dice, game.actions[0].play, game.actions[0].player = (6, 1), "24/17", 0
    assert ";W[61xrrq]" in write_sgf(record)  # 24/18 is open at the start, 23 too: the 6 first
    record.variation = "mahbusa"
    assert ";W[61xq]" in write_sgf(record)  # no board followed: the link as written


def test_play_pairs_and_letters():
    assert play_pairs("13/7* 8/7") == [(13, 7), (8, 7)]
    assert play_pairs("bar/20 24/22(2)") == [(25, 20), (24, 22), (24, 22)]
    assert play_pairs("6/off 13/7/1") == [(6, 0), (13, 7), (7, 1)]
    assert play_pairs("") == []
    for bad in ("13-7", "foo/bar", "6/4(5)", "6/4(2) 5/3(2) 2/1", "26/20"):
        with pytest.raises(FormatError):
            play_pairs(bad)
    for player in (0, 1):
        for point in range(26):
            assert sgf_point(point_letter(point, player), player) == point
    with pytest.raises(FormatError):
        point_letter(26, 0)
    with pytest.raises(FormatError):
        write_sgf("not a record")  # type: ignore[arg-type]


@pytest.mark.parametrize("ruleset,house,length,seed", [("bg", "international", 3, 5), ("bg", "international", 0, 8),
                                                         ("tawla31", "federation", 1, 3), ("mahbusa", "saharat", 1, 2),
                                                         ("adi", "federation", 3, 4)])
def test_matches_write_sgf_that_replays_as_their_mat(ruleset, house, length, seed):
    m = _drive(tawla.Match(ruleset, house, length, rng=seed), np.random.default_rng(seed))
    mat, sgf = m.to_match_record(), parse_sgf(m.to_sgf())
    assert sgf.variation == mat.variation and sgf.headers.get("Ruleset options") == mat.headers.get("Ruleset options")
    assert replayed(sgf) == replayed(mat)
    assert analyze_record(sgf).ok


def gnubg_positions(text: str, gnubg_nn) -> list:
    """Per game tree, the gnubg Position ID before each roll, with the SGF loaded the way
    gnubg's loader does it (not through tawla's reader): each pair of letters moves one
    checker of the player's own board (``a`` + point for W, ``x`` - point for B, ``y`` the
    bar, ``z`` off), a lone opponent checker on its destination goes to the bar; the IDs are
    gnubg_nn's own encoding of the board (``[opponent, player on roll]``)."""
    games = []
    for tree in re.findall(r"\(;FF\[4\]GM\[6\].*?\n\)", text, re.S):
        board = [[0] * 25 for _ in range(2)]
        for side in board:
            for point, n in {23: 2, 12: 5, 7: 3, 5: 5}.items():
                side[point] = n
        ids = []
        for colour, value in re.findall(r"\n;([WB])\[([^\]]*)\]", tree):
            m = re.fullmatch(r"[1-6][1-6]((?:[a-z]{2}){0,4})", value)
            if m is None:
                continue
            me = "WB".index(colour)
            ids.append(gnubg_nn.position_id([board[1 - me], board[me]]))
            for i in range(0, len(m[1]), 2):
                src, dst = (24 if c == "y" else -1 if c == "z" else ord(c) - 97 if me == 0 else 120 - ord(c)
                            for c in m[1][i:i + 2])
                board[me][src] -= 1
                if dst >= 0:
                    board[me][dst] += 1
                    if board[1 - me][23 - dst] == 1:
                        board[1 - me][23 - dst], board[1 - me][24] = 0, board[1 - me][24] + 1
        games.append(ids)
    return games


def test_sgf_read_as_gnubg_reads_it_gives_the_replayed_positions():
    gnubg_nn = require_module("gnubg_nn")
    bg = tawla.get_ruleset("backgammon")
    folder = shared_path("data", "matches")
    records = [read_record(folder / name) for name in ("gnubgparser/gnubg_selfplay_drops_7p.mat",
                                                       "bglab-galaxy/galaxy_5pt_match10030560.txt")]
    records.append(_drive(tawla.Match("bg", "international", 3, rng=5), np.random.default_rng(5)).to_match_record())
    for record in records:
        rep = analyze_record(record)
        want = [[tawla.Position.from_id(g.decisions.tawla_id(i, rep.ruleset), bg).gnubg_id() for i in range(len(g.decisions))]
                for g in rep.games]
        assert gnubg_positions(write_sgf(record), gnubg_nn) == want
