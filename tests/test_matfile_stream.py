"""The .mat reader game by game (:func:`tawla.formats.matfile.stream_match`) and the score
lines of real exports that leave a player's name empty."""

from __future__ import annotations

import pytest

from tawla.errors import FormatError
from tawla.formats.matfile import parse_match, read_match, stream_match, write_match

from conftest import shared_path

# A real export's score line with an empty first name (the server wrote no name).
EMPTY_NAME = """ 3 point match

 Game 1
  : 0                           Player2 : 0
  1) 31: 8/5 6/5                 42: 8/4 6/4
  2)  Doubles => 2                Drops
      Wins 1 point
"""


def test_empty_player_name_reads():
    rec = parse_match(EMPTY_NAME)
    (game,) = rec.games
    assert game.defects == []
    assert game.players == ("", "Player2") and rec.players == ("", "Player2")
    assert game.score == (0, 0)
    assert [a.kind for a in game.actions] == ["roll", "roll", "double", "drop", "win"]
    again = parse_match(write_match(rec))
    assert again.games[0].players == ("", "Player2") and again.games[0].defects == []


def test_empty_second_name_and_rating():
    text = EMPTY_NAME.replace("  : 0                           Player2 : 0",
                              " Player1,1811 : 0                 : 0")
    (game,) = parse_match(text).games
    assert (game.players, game.ratings, game.defects) == (("Player1", ""), (1811, None), [])


def _games(stream):
    out = []
    for game, actions in stream.games():
        game.actions = list(actions)
        out.append(game)
    return out


def test_stream_gives_what_the_whole_reader_gives():
    folder = shared_path("data", "matches")
    files = sorted(p for p in folder.rglob("*") if p.suffix in (".mat", ".txt") and "gammonx" not in p.parts[-2])
    assert len(files) == 49
    for path in files:
        whole = read_match(path)
        stream = stream_match(path)
        assert (stream.headers, stream.match_length, stream.players, stream.variation, stream.defects) == (
            whole.headers, whole.match_length, whole.players, whole.variation, whole.defects)
        assert _games(stream) == whole.games, path.name


def test_games_can_be_skipped_and_read_again(tmp_path):
    path = tmp_path / "m.mat"
    path.write_text(EMPTY_NAME + EMPTY_NAME.split("\n", 2)[2].replace("Game 1", "Game 2"), encoding="utf-8")
    stream = stream_match(path)
    numbers = [game.number for game, _actions in stream.games()]  # actions never read
    assert numbers == [1, 2]
    (g1, g2) = _games(stream)  # a second pass reads the file again
    assert len(g1.actions) == len(g2.actions) == 5 and g2.winner == 0


def test_game_fields_are_complete_after_its_actions(tmp_path):
    path = tmp_path / "m.mat"
    path.write_text(EMPTY_NAME.replace("      Wins 1 point\n", ""), encoding="utf-8")
    games = stream_match(path).games()
    game, actions = next(games)
    assert game.players == ("", "Player2") and game.defects == []  # set before the actions
    assert len(list(actions)) == 4
    assert game.winner is None and game.defects == ["no result line (unfinished game)"]
    assert next(games, None) is None


def test_latin1_and_bom_files(tmp_path):
    latin = tmp_path / "latin.mat"
    latin.write_bytes(EMPTY_NAME.replace("Player2", "J\xf8rgen").encode("latin-1"))
    assert read_match(latin).players == ("", "J\xf8rgen")
    bom = tmp_path / "bom.mat"
    bom.write_bytes(b"\xef\xbb\xbf" + EMPTY_NAME.replace("\n", "\r\n").encode())
    rec = read_match(bom)
    assert rec.match_length == 3 and rec.games[0].actions[0].line == 5


def test_not_a_record_and_missing_file(tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_text("hello\n", encoding="utf-8")
    with pytest.raises(FormatError):
        stream_match(bad)
    with pytest.raises(FormatError):
        stream_match(tmp_path / "missing.mat")
