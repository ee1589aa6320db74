"""Reader and writer for Jellyfish-style text match records (``.mat`` / ``.txt``).

This is a *syntax-only* parser: it turns the text into a list of games and
chronological actions (rolls with their play text, cube actions, results)
without checking a single move against the rules.  Replaying the plays is the
job of the rules engine.

The layout, shared by gnubg, Jellyfish, Snowie, Backgammon Galaxy,
Backgammon Studio, XG (Mobile) and GridGammon exports::

    ; [Player 1 "Player A"]                  optional header lines
    ; [Variation "Backgammon"]

     7 point match                           0 point match = money session

     Game 1
     Player A : 0                   Player B : 0
      1)                             32: 24/21 13/11
      2) 52: 13/8 6/4*               54: 25/21* 13/8
      3)  Doubles => 2                Takes
      ...
          Wins 2 points

Every numbered line holds the left player's action, then the right player's
action.  The columns are not fixed width (long plays push the right column
further right), so a line is cut into actions at the tokens that can only
start an action (``NN:`` dice, ``Doubles``, ``Takes``, ``Drops``, ``Wins``,
``Losses``) and a lone action on a line is given to a player by the order of
play (rolls alternate, a double is answered by the opponent); the column it
starts in decides only where the order of play does not (first action of a
game, result lines) and is checked against it.

Dialects handled (see ``shared/data/matches/SOURCES.md``): gnubg (``25/20``,
``6/0``, nothing after the dice for a dance, ``Wins 2 points`` on its own
line), Backgammon Galaxy (``Wins 2 point``, ``Losses 2 point`` on the
resigning side), Backgammon Studio (``bar/21``, ``6/off``, ``13/11(2)``,
``Cannot Move``, numbered result lines ``12)  Drops   Wins 1 point``,
move numbers not padded), XG Mobile (UTF-8 BOM, CRLF, numbered result lines)
and GridGammon (``Player A,1811 : 0`` score lines).  A score line may leave a name empty
(``  : 0    Player B : 0``); the name is then ``""``.

Large records are read game by game with :func:`stream_match` (two passes over the file:
the first finds the column layout and the headers, the second yields the games and their
actions one at a time), so that memory does not grow with the record.  The record model
(:class:`Action`, :class:`Game`, :class:`MatchRecord`) lives in
:mod:`tawla.formats.record` and is re-exported here.

Examples
--------
>>> rec = parse_match(" 1 point match\\n\\n Game 1\\n A : 0      B : 0\\n"
...                   "  1) 31: 8/5 6/5       42: 8/4 6/4\\n      Wins 1 point\\n")
>>> [(a.player, a.kind, a.dice, a.play) for a in rec.games[0].actions]
[(0, 'roll', (3, 1), '8/5 6/5'), (1, 'roll', (4, 2), '8/4 6/4'), (0, 'win', None, '')]
"""

from __future__ import annotations

import codecs
import os
from collections import Counter
from pathlib import Path
from typing import Iterator

from tawla.errors import FormatError, quote
from tawla.formats.matlines import PlayerAssigner, classify_lines
from tawla.formats.record import (
    ACTION_KINDS,
    DOUBLE,
    DROP,
    ILLEGAL,
    RESIGN,
    ROLL,
    TAKE,
    WIN,
    Action,
    Game,
    MatchRecord,
)

__all__ = [
    "Action",
    "Game",
    "MatchRecord",
    "MatchStream",
    "ROLL",
    "DOUBLE",
    "TAKE",
    "DROP",
    "RESIGN",
    "WIN",
    "ILLEGAL",
    "ACTION_KINDS",
    "read_match",
    "parse_match",
    "stream_match",
    "write_match",
    "read_text",
    "decode_text",
]


# --------------------------------------------------------------------------
# reading
# --------------------------------------------------------------------------


def read_text(path: str | os.PathLike) -> str:
    """Read a record file as text (UTF-8 with or without BOM, else Latin-1).

    Parameters
    ----------
    path : str or path-like

    Returns
    -------
    str
        The text, BOM removed, line endings unchanged.

    Raises
    ------
    OSError
        The file cannot be read.
    tawla.errors.FormatError
        ``path`` is not a str or path-like, or holds a NUL.
    """
    if not isinstance(path, (str, os.PathLike)):
        raise FormatError(f"a record's path is a str or path-like, not {type(path).__name__}")
    try:
        data = Path(path).read_bytes()
    except ValueError:  # a NUL in the path
        raise FormatError(f"not a readable path: {quote(str(path))}") from None
    return decode_text(data)


def decode_text(data: bytes) -> str:
    """The text of a record file's bytes, decoded as :func:`read_text` and :func:`stream_match` do.

    Parameters
    ----------
    data : bytes
        The whole file.

    Returns
    -------
    str
        UTF-8 (with or without BOM) where all of ``data`` is UTF-8, else Latin-1; the BOM
        removed, line endings unchanged.
    """
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        text = data.decode("latin-1")
    return text.lstrip("\ufeff")


def _encoding(path) -> str:
    """``"utf-8-sig"`` when the whole file is UTF-8, else ``"latin-1"`` (read in chunks)."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    with open(path, "rb") as f:
        try:
            while chunk := f.read(1 << 20):
                decoder.decode(chunk)
            decoder.decode(b"", final=True)
        except UnicodeDecodeError:
            return "latin-1"
    return "utf-8-sig"


def _file_lines(path, encoding: str) -> Iterator[str]:
    """The lines of a file without their line breaks, as ``str.splitlines`` cuts them."""
    with open(path, encoding=encoding, newline="") as f:
        first = True
        for chunk in f:
            if first:
                chunk, first = chunk.lstrip("\ufeff"), False
            yield from chunk.splitlines()


def _read_source(source) -> tuple:
    """``(path or None, a function returning a fresh line iterator)`` for a path or a text."""
    if not isinstance(source, (str, os.PathLike)):
        raise FormatError(f"read_match takes a path or the record text, not {type(source).__name__}")
    if isinstance(source, str) and ("\n" in source or "\r" in source):
        text = source.lstrip("\ufeff")
        return None, lambda: iter(text.splitlines())
    try:
        encoding = _encoding(source)
    except OSError as exc:
        raise FormatError(f"cannot read match file: {exc}", file=quote(str(source))) from exc
    except ValueError:  # a NUL in the path
        raise FormatError(f"not a readable path: {quote(str(source))}") from None
    return str(source), lambda: _file_lines(source, encoding)


# --------------------------------------------------------------------------
# reading: the record
# --------------------------------------------------------------------------


class MatchStream:
    """A match record read game by game (see :func:`stream_match`).

    Attributes
    ----------
    path : str or None
    headers : dict of str to str
    match_length : int
    players : tuple of str
    variation : str
    defects : list of str
        As in :class:`MatchRecord`; known before the first game is read.
    """

    def __init__(self, path, lines, headers, match_length, players, defects, threshold):
        self.path = path
        self.headers = headers
        self.match_length = match_length
        self.players = players
        self.variation = headers.get("Variation", "Backgammon")
        self.defects = defects
        self._lines = lines
        self._threshold = threshold

    def games(self) -> Iterator[tuple[Game, Iterator[Action]]]:
        """The games in file order, each with an iterator over its actions.

        Yields
        ------
        (Game, iterator of Action)
            The game's number, score, players and ratings are set; ``Game.actions`` stays
            empty: the actions come from the iterator, in chronological order. ``winner``,
            ``points``, ``resigned`` and ``defects`` are complete once the iterator is
            exhausted (moving on to the next game exhausts it).
        """
        items = classify_lines(self._lines())
        pending = [next((item for item in items if item[0] == "game"), None)]

        def actions(game: Game, players: PlayerAssigner) -> Iterator[Action]:
            for item in items:
                kind = item[0]
                if kind == "game":
                    pending[0] = item
                    break
                if kind == "line":
                    yield from players.feed(item[1])
                elif kind == "bad":
                    game.defects.append(f"line {item[1]}: unrecognised line {item[2]!r}")
            players.finish()

        while pending[0] is not None:
            game = Game(number=pending[0][2])
            pending[0] = None
            _kind, lineno, score = next(items)  # classify_lines gives a score item after each game
            if score is not None:
                game.score, game.players, game.ratings = score
            else:
                game.defects.append(("" if lineno is None else f"line {lineno}: ") + "missing score line")
            it = actions(game, PlayerAssigner(game, self._threshold))
            yield game, it
            for _ in it:  # the caller did not read all of them
                pass

    def to_record(self) -> MatchRecord:
        """Read every game into a :class:`MatchRecord`."""
        games = []
        for game, actions in self.games():
            game.actions = list(actions)
            games.append(game)
        return MatchRecord(path=self.path, headers=self.headers, match_length=self.match_length,
                           players=self.players, games=games, variation=self.variation,
                           defects=self.defects)


def stream_match(source: str | os.PathLike, path: str | os.PathLike | None = None) -> MatchStream:
    """Open a Jellyfish-style match record to be read game by game.

    A first pass reads the headers, the match length and the column layout (the mode of
    the left and right action columns on lines that hold both); the games are read on a
    second pass, one line at a time, when :meth:`MatchStream.games` is iterated.

    Parameters
    ----------
    source : str or path-like
        A path; a ``str`` containing a line break is the record text itself.
    path : str or path-like, optional
        For a text: stored in the record and used in error messages.

    Returns
    -------
    MatchStream

    Raises
    ------
    FormatError
        If the input is not a match record at all (no ``point match`` line and no
        ``Game`` line), cannot be read, or has a negative score or a number too long to be one.
    """
    fname, lines = _read_source(source)
    if fname is None and path is not None:
        fname = str(path)
    headers: dict[str, str] = {}
    match_length = None
    preamble: list[str] = []
    first_players = None
    left: Counter = Counter()
    right: Counter = Counter()
    games = 0
    try:
        for item in classify_lines(lines()):
            kind = item[0]
            if kind == "line":
                ln = item[1]
                if ln.move_number is not None and len(ln.segments) == 2:
                    left[ln.segments[0].col] += 1
                    right[ln.segments[1].col] += 1
            elif kind == "game":
                games += 1
            elif kind == "score":
                if games == 1 and item[2] is not None and first_players is None:
                    first_players = item[2][1]
            elif kind == "header":
                headers[item[1]] = item[2]
            elif kind == "length":
                if match_length is None:
                    match_length = item[2]
                else:
                    preamble.append(f"line {item[1]}: unrecognised line {item[3]!r}")
            elif kind == "preamble":
                preamble.append(f"line {item[1]}: unrecognised line {item[2]!r}")
    except OSError as exc:
        raise FormatError(f"cannot read match file: {exc}", file=fname) from exc
    except FormatError as exc:
        if fname is None:
            raise
        raise FormatError(str(exc), file=fname) from None
    if match_length is None and not games:
        raise FormatError("not a match record (no 'point match' or 'Game' line)", file=fname)
    lcol = left.most_common(1)[0][0] if left else 5  # gnubg's layout: 5 / 33
    rcol = right.most_common(1)[0][0] if right else 33
    if "Player 1" in headers and "Player 2" in headers:
        players = (headers["Player 1"], headers["Player 2"])
    elif games:
        players = first_players if first_players is not None else ("", "")
    else:
        players = ("", "")
    return MatchStream(fname, lines, headers, match_length or 0, players, preamble, (lcol + rcol) / 2)


def read_match(path_or_text: str | os.PathLike) -> MatchRecord:
    """Read a Jellyfish-style match record from a file (or from text).

    Parameters
    ----------
    path_or_text : str or path-like
        A path; a ``str`` containing a line break is taken as the record text
        itself (same as :func:`parse_match`).

    Returns
    -------
    MatchRecord

    Raises
    ------
    FormatError
        If the input is not a match record at all (no ``point match`` line
        and no ``Game`` line), or cannot be read.
    """
    return stream_match(path_or_text).to_record()


def parse_match(text: str, path: str | os.PathLike | None = None) -> MatchRecord:
    """Parse the text of a Jellyfish-style match record.

    Parameters
    ----------
    text : str
        The whole file (a leading BOM and CRLF line endings are fine).
    path : str or path-like, optional
        Stored in the record and used in error messages.

    Returns
    -------
    MatchRecord
        A game whose text is broken is kept, with its problems in
        ``Game.defects``; it never aborts the file.

    Raises
    ------
    FormatError
        If the text has neither a ``N point match`` line nor a ``Game N``
        line (it is not a match record).
    """
    if not isinstance(text, str):
        raise FormatError(f"parse_match takes the record text as str, not {type(text).__name__}",
                          file=None if path is None else str(path))
    text = text.lstrip("\ufeff")
    if "\n" not in text and "\r" not in text:
        text += "\n"  # one line of text, not a path
    return stream_match(text, path=path).to_record()


# --------------------------------------------------------------------------
# writing
# --------------------------------------------------------------------------

_RIGHT_COLUMN = 33  # gnubg layout: "NNN) " + left action padded to column 33


def _action_text(act: Action) -> str:
    """Text of an action as it is written in a record."""
    if act.kind == ROLL and act.dice is not None:
        d1, d2 = act.dice
        return f"{d1}{d2}: {act.play}".rstrip()
    if act.kind == DOUBLE:
        return "Doubles" if act.value is None else f"Doubles => {act.value}"
    if act.kind == TAKE:
        return "Takes"
    if act.kind == DROP:
        return "Drops"
    if act.kind in (WIN, RESIGN):
        word = "Wins" if act.kind == WIN else "Losses"
        if act.raw.startswith(word):
            return act.raw  # keeps "point"/"points" and "and the match"
        if act.value is None:
            return word
        return f"{word} {act.value} point{'s' if act.value != 1 else ''}"
    # illegal: the garbage as written, after its dice if it had any
    if act.dice is not None:
        return f"{act.dice[0]}{act.dice[1]}: {act.play}".rstrip()
    return act.play or act.raw


def _numbered_line(number: int, left: str | None, right: str | None) -> str:
    prefix = f"{number:3d}) "
    if right is None:
        return (prefix + (left or "")).rstrip()
    pad = max(_RIGHT_COLUMN - len(prefix), len(left or "") + 1)
    return prefix + (left or "").ljust(pad) + right


def write_match(record: MatchRecord) -> str:
    """Write a record as Jellyfish ``.mat`` text (gnubg layout).

    Raises ``tawla.errors.FormatError`` for anything but a :class:`MatchRecord`.

    Plays are written exactly as stored in ``Action.play``; the right column
    starts at column 33 unless the left action is longer; ``Wins`` lines are
    written unnumbered under the winner's column.

    Parameters
    ----------
    record : MatchRecord

    Returns
    -------
    str
        Text such that ``parse_match(write_match(r))`` has the same games,
        scores and actions (kind, player, dice, play, value) as ``r``.
    """
    if not isinstance(record, MatchRecord):
        raise FormatError(f"expected a MatchRecord, not {type(record).__name__}")
    out: list[str] = []
    headers = dict(record.headers)
    if record.variation != "Backgammon" and "Variation" not in headers:
        headers["Variation"] = record.variation
    for key, value in headers.items():
        out.append(f'; [{key} "{value}"]')
    if headers:
        out.append("")
    out.append(f" {record.match_length} point match")
    out.append("")
    for game in record.games:
        out.append(f" Game {game.number}")
        names = []
        for name, rating in zip(game.players, game.ratings):
            names.append(name if rating is None else f"{name},{rating}")
        left = f" {names[0]} : {game.score[0]}"
        out.append(left.ljust(max(32, len(left) + 1)) + f"{names[1]} : {game.score[1]}")
        number = 0
        pending: list[str | None] = [None, None]

        def flush() -> None:
            nonlocal number
            if pending[0] is not None or pending[1] is not None:
                number += 1
                out.append(_numbered_line(number, pending[0], pending[1]))
                pending[0] = pending[1] = None

        for act in game.actions:
            if act.kind == WIN:
                flush()
                indent = 6 if act.player == 0 else _RIGHT_COLUMN + 1
                out.append(" " * indent + _action_text(act))
                continue
            if act.player == 0:
                flush()
                pending[0] = _action_text(act)
            else:
                pending[1] = _action_text(act)
                flush()
        flush()
        out.append("")
    return "\n".join(out) + "\n"
