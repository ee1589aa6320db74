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
and GridGammon (``Player A,1811 : 0`` score lines).

Examples
--------
>>> rec = parse_match(" 1 point match\\n\\n Game 1\\n A : 0      B : 0\\n"
...                   "  1) 31: 8/5 6/5       42: 8/4 6/4\\n      Wins 1 point\\n")
>>> [(a.player, a.kind, a.dice, a.play) for a in rec.games[0].actions]
[(0, 'roll', (3, 1), '8/5 6/5'), (1, 'roll', (4, 2), '8/4 6/4'), (0, 'win', None, '')]
"""

from __future__ import annotations

import os
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from tawla.errors import FormatError

__all__ = [
    "Action",
    "Game",
    "MatchRecord",
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
    "write_match",
    "read_text",
]

ROLL = "roll"
DOUBLE = "double"
TAKE = "take"
DROP = "drop"
RESIGN = "resign"
WIN = "win"
ILLEGAL = "illegal"
ACTION_KINDS = (ROLL, DOUBLE, TAKE, DROP, RESIGN, WIN, ILLEGAL)

#: Kinds after which the *other* player acts next (used to assign lone actions).
_PASSES_TURN = (ROLL, ILLEGAL, DOUBLE, TAKE, DROP, RESIGN)


# --------------------------------------------------------------------------
# data model
# --------------------------------------------------------------------------


@dataclass
class Action:
    """One action of a game, as written in the record.

    Attributes
    ----------
    player : int
        0 = left column / player 1, 1 = right column / player 2.
    kind : str
        One of ``"roll"``, ``"double"``, ``"take"``, ``"drop"``, ``"resign"``,
        ``"win"``, ``"illegal"`` (see :data:`ACTION_KINDS`).
    dice : tuple of int or None
        The two dice in the order written (``"35:"`` gives ``(3, 5)``), for
        rolls and for illegal-play entries that carry dice; else None.
    play : str
        The move text exactly as written, stripped (``"13/7* 8/7"``,
        ``"24/22(2)"``, ``"bar/20"``).  ``""`` for a roll with no move (nothing
        after the dice, or ``Cannot Move``).  For ``"illegal"`` the garbage
        text itself (``"????"``, ``"Illegal play (...)"``).
    value : int or None
        Cube value for ``"double"`` (``Doubles => 4`` gives 4), points for
        ``"win"`` and ``"resign"``; else None.
    line : int or None
        1-based line number in the file.
    move_number : int or None
        The ``NN`` of the ``NN)`` line, None for unnumbered result lines.
    raw : str
        The raw text of the action, stripped (``"52: 13/8 6/4*"``,
        ``"Wins 1 point and the match"``).
    """

    player: int
    kind: str
    dice: tuple[int, int] | None = None
    play: str = ""
    value: int | None = None
    line: int | None = None
    move_number: int | None = None
    raw: str = ""

    def key(self) -> tuple:
        """The content of the action without its location (for comparisons).

        Returns
        -------
        tuple
            ``(kind, player, dice, play, value)``.
        """
        return (self.kind, self.player, self.dice, self.play, self.value)


@dataclass
class Game:
    """One game of a match record.

    Attributes
    ----------
    number : int
        The game number as written (``Game 3`` gives 3).
    score : tuple of int
        Score of (player 1, player 2) before the game.
    players : tuple of str
        Names from the score line (a GridGammon rating suffix ``,1811`` is
        removed and kept in ``ratings``).
    actions : list of Action
        All actions in chronological order (left then right on each line).
    winner : int or None
        0 or 1 from the ``Wins`` line, None if the game has no result.
    points : int or None
        Points from the ``Wins`` line as written (capped or not, as the site
        wrote it).
    resigned : bool
        True when the record shows a resignation: a ``Losses`` line (Galaxy),
        an SGF ``R`` result, or a game that ends right after the *loser's* own
        roll (roll-then-resign).  A resignation written as a bare ``Wins``
        line after the winner's move cannot be told from a bear-off without
        replaying the game, and stays False.
    defects : list of str
        Problems found while parsing this game (garbage text, illegal-play
        dumps, out-of-turn actions, implausible results); empty for a clean
        game.
    ratings : tuple
        Ratings glued to the names in GridGammon score lines, else
        ``(None, None)``.
    """

    number: int
    score: tuple[int, int] = (0, 0)
    players: tuple[str, str] = ("", "")
    actions: list[Action] = field(default_factory=list)
    winner: int | None = None
    points: int | None = None
    resigned: bool = False
    defects: list[str] = field(default_factory=list)
    ratings: tuple[int | None, int | None] = (None, None)

    @property
    def rolls(self) -> list[Action]:
        """The ``"roll"`` actions (dances included).

        Returns
        -------
        list of Action
        """
        return [a for a in self.actions if a.kind == ROLL]

    @property
    def cube_actions(self) -> list[Action]:
        """The ``"double"``, ``"take"`` and ``"drop"`` actions.

        Returns
        -------
        list of Action
        """
        return [a for a in self.actions if a.kind in (DOUBLE, TAKE, DROP)]


@dataclass
class MatchRecord:
    """A parsed match record.

    Attributes
    ----------
    path : str or None
        File the record was read from, None for parsed text.
    headers : dict of str to str
        The ``; [Key "value"]`` headers in file order (values unchanged).
    match_length : int
        Points to win the match; 0 = money session (``0 point match``, or no
        length line at all).
    players : tuple of str
        Player 1 (left column) and player 2 (right column): the ``Player 1`` /
        ``Player 2`` headers if present, else the names of the first score
        line.
    games : list of Game
    variation : str
        From the ``Variation`` header, default ``"Backgammon"``.
    defects : list of str
        Problems outside any game (unrecognised lines before the first game).
    """

    path: str | None
    headers: dict[str, str] = field(default_factory=dict)
    match_length: int = 0
    players: tuple[str, str] = ("", "")
    games: list[Game] = field(default_factory=list)
    variation: str = "Backgammon"
    defects: list[str] = field(default_factory=list)


# --------------------------------------------------------------------------
# line-level regular expressions
# --------------------------------------------------------------------------

_HEADER_RE = re.compile(r'^\s*;\s*\[\s*(?P<key>[^"\]]*?)\s+"(?P<value>.*)"\s*\]\s*$')
_LENGTH_RE = re.compile(r"^\s*(?P<n>\d+)\s+point\s+match\s*$", re.IGNORECASE)
_GAME_RE = re.compile(r"^\s*Game\s+(?P<n>\d+)\s*$", re.IGNORECASE)
_SCORE_RE = re.compile(
    r"^\s*(?P<a>\S.*?)\s*:\s*(?P<x>-?\d+)\s+(?P<b>\S.*?)\s*:\s*(?P<y>-?\d+)\s*$"
)
_RATING_RE = re.compile(r"^(?P<name>.*?),(?P<rating>\d+)$")
_NUMBERED_RE = re.compile(r"^\s*(?P<n>\d+)\)")

#: Tokens that can only start an action.  ``Illegal play`` and ``????`` are not
#: here: after dice they are the play text of that roll; alone they form an
#: orphan segment (see :func:`_split_actions`).
_START_RE = re.compile(r"(?<!\S)(?:\d\d:|Doubles\b|Takes\b|Drops\b|Wins\b|Losses\b)")

_DICE_RE = re.compile(r"^(?P<d1>\d)(?P<d2>\d):\s*(?P<rest>.*)$", re.DOTALL)
_DOUBLE_RE = re.compile(r"^Doubles(?:\s*=>\s*(?P<n>\d+))?$")
_WIN_RE = re.compile(r"^Wins(?:\s+(?P<n>\d+)\s+points?)?(?P<match>\s+and\s+the\s+match)?$")
_LOSS_RE = re.compile(r"^Losses(?:\s+(?P<n>\d+)\s+points?)?$")
_CANNOT_MOVE_RE = re.compile(r"^cannot\s+move$", re.IGNORECASE)

#: One checker move as written by any of the dialects: ``13/7``, ``13/7*``,
#: ``25/20``, ``bar/20*``, ``6/off``, ``13/11(2)``, ``8/4*(2)``, ``24/18/13``.
_MOVE_TOKEN = r"(?:bar|\d{1,2})\*?(?:/(?:bar|off|\d{1,2})\*?)+(?:\(\d\))?\*?"
_PLAY_RE = re.compile(rf"^{_MOVE_TOKEN}(?:\s+{_MOVE_TOKEN})*$")


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
    """
    data = Path(path).read_bytes()
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        text = data.decode("latin-1")
    return text.lstrip("\ufeff")


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
    if not isinstance(path_or_text, (str, os.PathLike)):
        raise FormatError(f"read_match takes a path or the record text, not {type(path_or_text).__name__}")
    if isinstance(path_or_text, str) and ("\n" in path_or_text or "\r" in path_or_text):
        return parse_match(path_or_text)
    try:
        text = read_text(path_or_text)
    except OSError as exc:
        raise FormatError(f"cannot read match file: {exc}", file=str(path_or_text)) from exc
    return parse_match(text, path=str(path_or_text))


@dataclass
class _Segment:
    """One action's text on a numbered line, before its player is known."""

    col: int
    text: str
    orphan: bool = False  # text not introduced by an action token


@dataclass
class _RawLine:
    """A numbered or result line of a game, cut into segments."""

    lineno: int
    move_number: int | None
    segments: list[_Segment]


@dataclass
class _RawGame:
    game: Game
    lines: list[_RawLine] = field(default_factory=list)


def _split_actions(body: str, offset: int) -> list[_Segment]:
    """Cut the text of a line (after its ``NN)``) into action segments.

    Parameters
    ----------
    body : str
        Text after the ``NN)`` (or the whole line for an unnumbered result).
    offset : int
        Column of ``body[0]`` in the line.

    Returns
    -------
    list of _Segment
        In left-to-right order.  Text before the first action token (like a
        bare ``????``) becomes an orphan segment.
    """
    starts = [m.start() for m in _START_RE.finditer(body)]
    segments = []
    head_end = starts[0] if starts else len(body)
    head = body[:head_end]
    if head.strip():
        col = offset + len(head) - len(head.lstrip())
        segments.append(_Segment(col, head.strip(), orphan=True))
    for i, s in enumerate(starts):
        end = starts[i + 1] if i + 1 < len(starts) else len(body)
        segments.append(_Segment(offset + s, body[s:end].strip()))
    return segments


def _parse_segment(seg: _Segment, player: int, lineno: int, move_number: int | None,
                   defects: list[str]) -> Action:
    """Turn one segment into an :class:`Action` (syntax only).

    Unrecognised text becomes an ``"illegal"`` action and a defect.
    """
    text = seg.text
    where = f"line {lineno}"
    act = Action(player=player, kind=ILLEGAL, line=lineno, move_number=move_number, raw=text)
    if seg.orphan:
        act.play = text
        defects.append(f"{where}: garbage {text[:40]!r} without dice")
        return act
    m = _DICE_RE.match(text)
    if m:
        d1, d2, rest = int(m["d1"]), int(m["d2"]), m["rest"].strip()
        act.dice = (d1, d2)
        if not (1 <= d1 <= 6 and 1 <= d2 <= 6):
            act.play = rest
            defects.append(f"{where}: impossible dice {text[:3]!r}")
        elif rest == "" or _CANNOT_MOVE_RE.match(rest):
            act.kind = ROLL
        elif _PLAY_RE.match(rest):
            act.kind, act.play = ROLL, rest
        else:
            act.play = rest
            if rest.startswith("Illegal play"):
                defects.append(f"{where}: illegal-play dump {rest[:40]!r}")
            else:
                defects.append(f"{where}: garbage play {rest[:40]!r}")
        return act
    if (m := _DOUBLE_RE.match(text)):
        act.kind = DOUBLE
        act.value = int(m["n"]) if m["n"] else None
        return act
    if text == "Takes":
        act.kind = TAKE
        return act
    if text == "Drops":
        act.kind = DROP
        return act
    if (m := _WIN_RE.match(text)):
        act.kind = WIN
        act.value = int(m["n"]) if m["n"] else None
        return act
    if (m := _LOSS_RE.match(text)):
        act.kind = RESIGN
        act.value = int(m["n"]) if m["n"] else None
        return act
    act.play = text
    defects.append(f"{where}: unreadable action {text[:40]!r}")
    return act


def _column_threshold(raw_games: list[_RawGame]) -> float:
    """Column that separates left from right actions in this file.

    The midpoint between the most common start column of left actions and of
    right actions on lines that hold both (overflowing lines are rare, so the
    mode is the nominal column).  Falls back to gnubg's layout (5 / 33).
    """
    left: Counter = Counter()
    right: Counter = Counter()
    for rg in raw_games:
        for ln in rg.lines:
            if ln.move_number is not None and len(ln.segments) == 2:
                left[ln.segments[0].col] += 1
                right[ln.segments[1].col] += 1
    lcol = left.most_common(1)[0][0] if left else 5
    rcol = right.most_common(1)[0][0] if right else 33
    return (lcol + rcol) / 2


def _assign_players(rg: _RawGame, threshold: float) -> None:
    """Give each segment of a game a player and fill ``rg.game``."""
    game = rg.game
    defects = game.defects
    expected: int | None = None  # who acts next by the order of play
    cube = 1
    finished = False
    for ln in rg.lines:
        segs = ln.segments
        if not segs:
            continue  # empty numbered line (Studio writes one after the result)
        if len(segs) > 2:
            defects.append(f"line {ln.lineno}: {len(segs)} actions on one line")
        single = len(segs) == 1
        for i, seg in enumerate(segs):
            by_column = 0 if seg.col < threshold else 1
            player = by_column if single else min(i, 1)  # two actions: left, then right
            act = _parse_segment(seg, player, ln.lineno, ln.move_number, defects)
            is_result = act.kind in (WIN, RESIGN)  # these go by column, not by turn
            if single and not is_result and expected is not None:
                act.player = expected  # the order of play wins over the column
            out_of_turn = expected is not None and not is_result and act.player != expected
            wrong_column = single and act.kind != ILLEGAL and act.player != by_column
            if out_of_turn or wrong_column:
                defects.append(
                    f"line {ln.lineno}: {act.kind} of player {act.player + 1} "
                    f"out of turn or in the wrong column"
                )
            if finished:
                defects.append(f"line {ln.lineno}: {act.kind} after the result")
            game.actions.append(act)
            # book-keeping for the next action and the result
            if act.kind == DOUBLE and act.value:
                cube = max(cube, act.value)
            if act.kind == RESIGN:
                game.resigned = True
            if act.kind == WIN:
                if game.winner is not None:
                    defects.append(f"line {ln.lineno}: second result line")
                game.winner, game.points = act.player, act.value
                finished = True
                if act.value is not None and act.value > 3 * cube:
                    defects.append(
                        f"line {ln.lineno}: implausible result {act.raw!r} (cube {cube})"
                    )
                expected = None
            elif act.kind in _PASSES_TURN:
                expected = 1 - act.player
    _finish_game(game)


def _finish_game(game: Game) -> None:
    """Derive ``resigned`` from the order of actions; note a missing result."""
    if game.winner is None:
        game.defects.append("no result line (unfinished game)")
        return
    before = [a for a in game.actions if a.kind != WIN]
    if before and before[-1].kind == ROLL and before[-1].player != game.winner:
        game.resigned = True  # the loser rolled last: roll-then-resign


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
    fname = None if path is None else str(path)
    text = text.lstrip("\ufeff")
    headers: dict[str, str] = {}
    match_length: int | None = None
    raw_games: list[_RawGame] = []
    preamble_defects: list[str] = []
    current: _RawGame | None = None
    need_score = False

    for lineno, line in enumerate(text.splitlines(), start=1):
        line = line.expandtabs(8).rstrip()
        if not line.strip():
            continue
        if need_score:
            need_score = False
            score = _parse_score(line)
            if score is not None:
                current.game.score, current.game.players, current.game.ratings = score
                continue
            current.game.defects.append(f"line {lineno}: missing score line")
        if (m := _GAME_RE.match(line)):
            current = _RawGame(Game(number=int(m["n"])))
            raw_games.append(current)
            need_score = True
            continue
        if current is None:
            if (m := _HEADER_RE.match(line)):
                headers[m["key"]] = m["value"]
            elif (m := _LENGTH_RE.match(line)) and match_length is None:
                match_length = int(m["n"])
            else:
                preamble_defects.append(f"line {lineno}: unrecognised line {line.strip()[:40]!r}")
            continue
        if (m := _NUMBERED_RE.match(line)):
            segs = _split_actions(line[m.end():], m.end())
            current.lines.append(_RawLine(lineno, int(m["n"]), segs))
            continue
        segs = _split_actions(line, 0)
        if segs and not any(s.orphan for s in segs):  # unnumbered line, e.g. "Wins 2 points"
            current.lines.append(_RawLine(lineno, None, segs))
        else:
            current.game.defects.append(f"line {lineno}: unrecognised line {line.strip()[:40]!r}")

    if match_length is None and not raw_games:
        raise FormatError("not a match record (no 'point match' or 'Game' line)", file=fname)
    if need_score:
        current.game.defects.append("missing score line")

    threshold = _column_threshold(raw_games)
    for rg in raw_games:
        _assign_players(rg, threshold)

    games = [rg.game for rg in raw_games]
    if "Player 1" in headers and "Player 2" in headers:
        players = (headers["Player 1"], headers["Player 2"])
    elif games:
        players = games[0].players
    else:
        players = ("", "")
    return MatchRecord(
        path=fname,
        headers=headers,
        match_length=match_length or 0,
        players=players,
        games=games,
        variation=headers.get("Variation", "Backgammon"),
        defects=preamble_defects,
    )


def _parse_score(line: str):
    """Parse a score line ``Name A : 3     Name B : 1`` (GridGammon: ``Name,1811 : 3``).

    Returns
    -------
    tuple or None
        ``(score, players, ratings)``, or None if the line is not a score line.
    """
    m = _SCORE_RE.match(line)
    if not m:
        return None
    names, ratings = [], []
    for name in (m["a"], m["b"]):
        r = _RATING_RE.match(name)
        if r:
            names.append(r["name"].strip())
            ratings.append(int(r["rating"]))
        else:
            names.append(name)
            ratings.append(None)
    return (int(m["x"]), int(m["y"])), tuple(names), tuple(ratings)


# --------------------------------------------------------------------------
# writing
# --------------------------------------------------------------------------

_RIGHT_COLUMN = 33  # gnubg layout: "NNN) " + left action padded to column 33


def _action_text(act: Action) -> str:
    """Text of an action as it is written in a record."""
    if act.kind == ROLL:
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
