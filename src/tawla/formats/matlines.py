"""The lines of a Jellyfish-style ``.mat`` record: what each line is, and the actions on it.

:func:`classify_lines` tells headers, the match length, ``Game N`` lines, score lines and the
numbered lines of a game apart, and cuts each numbered line into action segments;
:class:`PlayerAssigner` turns the segments of one game into :class:`~tawla.formats.record.Action`
values and gives each its player.  Syntax only: no move is checked against the rules.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterator

from tawla.errors import FormatError, quote
from tawla.formats.record import (
    DOUBLE,
    DROP,
    ILLEGAL,
    PASSES_TURN,
    RESIGN,
    ROLL,
    TAKE,
    WIN,
    Action,
    Game,
)

__all__ = ["Segment", "RawLine", "classify_lines", "parse_score", "PlayerAssigner"]


_HEADER_RE = re.compile(r'^\s*;\s*\[\s*(?P<key>[^"\]]*?)\s+"(?P<value>.*)"\s*\]\s*$')
_LENGTH_RE = re.compile(r"^\s*(?P<n>\d+)\s+point\s+match\s*$", re.IGNORECASE)
_GAME_RE = re.compile(r"^\s*Game\s+(?P<n>\d+)\s*$", re.IGNORECASE)
#: ``Name A : 3     Name B : 1``; either name may be empty (``  : 0    Name B : 0``).
_SCORE_RE = re.compile(
    r"^\s*(?P<a>(?:\S.*?)?)\s*:\s*(?P<x>-?\d+)\s+(?P<b>(?:[^\s:].*?)?)\s*:\s*(?P<y>-?\d+)\s*$"
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

_DICE = {(a, b): (a, b) for a in range(10) for b in range(10)}  # one tuple per roll, shared

_MAX_DIGITS = 9
"""The most digits of a number in a record (lengths, scores, game and move numbers, cube values)."""


def _number(text: str, lineno, what: str) -> int:
    """A number of a record line; FormatError past :data:`_MAX_DIGITS` digits."""
    if len(text.lstrip("-")) > _MAX_DIGITS:
        where = "" if lineno is None else f"line {lineno}: "
        raise FormatError(f"{where}{what} {quote(text)} is out of range")
    return int(text)


@dataclass
class Segment:
    """One action's text on a numbered line, before its player is known."""

    col: int
    text: str
    orphan: bool = False  # text not introduced by an action token


@dataclass
class RawLine:
    """A numbered or result line of a game, cut into segments."""

    lineno: int
    move_number: int | None
    segments: list[Segment]


def _split_actions(body: str, offset: int) -> list[Segment]:
    """Cut the text of a line (after its ``NN)``) into action segments.

    Parameters
    ----------
    body : str
        Text after the ``NN)`` (or the whole line for an unnumbered result).
    offset : int
        Column of ``body[0]`` in the line.

    Returns
    -------
    list of Segment
        In left-to-right order.  Text before the first action token (like a
        bare ``????``) becomes an orphan segment.
    """
    starts = [m.start() for m in _START_RE.finditer(body)]
    segments = []
    head_end = starts[0] if starts else len(body)
    head = body[:head_end]
    if head.strip():
        col = offset + len(head) - len(head.lstrip())
        segments.append(Segment(col, head.strip(), orphan=True))
    for i, s in enumerate(starts):
        end = starts[i + 1] if i + 1 < len(starts) else len(body)
        segments.append(Segment(offset + s, body[s:end].strip()))
    return segments


def classify_lines(lines: Iterator[str]):
    """Classify the lines of a record.

    Yields
    ------
    tuple
        ``("header", key, value)``, ``("length", lineno, n, text)``, ``("preamble", lineno,
        text)`` before
        the first game; ``("game", lineno, n)``, ``("score", lineno, parsed)`` (``parsed`` from
        :func:`parse_score`, or None for a missing score line), ``("line", RawLine)`` and
        ``("bad", lineno, text)`` inside games.

    Raises
    ------
    FormatError
        A negative score, or a number (length, game or move number, score) too long to be one.
    """
    in_game = False
    need_score = False
    for lineno, line in enumerate(lines, start=1):
        line = line.expandtabs(8).rstrip()
        if not line.strip():
            continue
        if need_score:
            need_score = False
            score = parse_score(line, lineno)
            yield "score", lineno, score
            if score is not None:
                continue
        if (m := _GAME_RE.match(line)):
            in_game = need_score = True
            yield "game", lineno, _number(m["n"], lineno, "game number")
            continue
        if not in_game:
            if (m := _HEADER_RE.match(line)):
                yield "header", m["key"], m["value"]
            elif (m := _LENGTH_RE.match(line)):
                yield "length", lineno, _number(m["n"], lineno, "match length"), line.strip()[:40]
            else:
                yield "preamble", lineno, line.strip()[:40]
            continue
        if (m := _NUMBERED_RE.match(line)):
            yield "line", RawLine(lineno, _number(m["n"], lineno, "move number"),
                                  _split_actions(line[m.end():], m.end()))
            continue
        segs = _split_actions(line, 0)
        if segs and not any(s.orphan for s in segs):  # unnumbered line, e.g. "Wins 2 points"
            yield "line", RawLine(lineno, None, segs)
        else:
            yield "bad", lineno, line.strip()[:40]
    if need_score:
        yield "score", None, None


def parse_score(line: str, lineno: int | None = None):
    """Parse a score line ``Name A : 3     Name B : 1`` (GridGammon: ``Name,1811 : 3``).

    Returns
    -------
    tuple or None
        ``(score, players, ratings)``, or None if the line is not a score line.

    Raises
    ------
    FormatError
        A score line with a negative score or a number too long to be one.
    """
    m = _SCORE_RE.match(line)
    if not m:
        return None
    names: list[str] = []
    ratings: list[int | None] = []
    for name in (m["a"], m["b"]):
        r = _RATING_RE.match(name)
        if r:
            names.append(r["name"].strip())
            ratings.append(_number(r["rating"], lineno, "rating"))
        else:
            names.append(name)
            ratings.append(None)
    score = (_number(m["x"], lineno, "score"), _number(m["y"], lineno, "score"))
    if min(score) < 0:
        where = "" if lineno is None else f"line {lineno}: "
        raise FormatError(f"{where}negative score in {quote(line.strip())}")
    return score, tuple(names), tuple(ratings)


def _parse_segment(seg: Segment, player: int, lineno: int, move_number: int | None,
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
        act.dice = _DICE[d1, d2]
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
        act.value = _number(m["n"], lineno, "cube value or points") if m["n"] else None
        return act
    if text == "Takes":
        act.kind = TAKE
        return act
    if text == "Drops":
        act.kind = DROP
        return act
    if (m := _WIN_RE.match(text)):
        act.kind = WIN
        act.value = _number(m["n"], lineno, "cube value or points") if m["n"] else None
        return act
    if (m := _LOSS_RE.match(text)):
        act.kind = RESIGN
        act.value = _number(m["n"], lineno, "cube value or points") if m["n"] else None
        return act
    act.play = text
    defects.append(f"{where}: unreadable action {text[:40]!r}")
    return act


class PlayerAssigner:
    """Gives each segment of one game its player, line by line, and fills the game's result.

    Every numbered line holds the left player's action, then the right player's; a lone
    action goes to the player whose turn it is by the order of play (rolls alternate, a
    double is answered by the opponent); the column decides only where the order of play
    does not (first action of a game, result lines) and is checked against it.
    """

    def __init__(self, game: Game, threshold: float):
        self.game, self.threshold = game, threshold
        self.expected: int | None = None  # who acts next by the order of play
        self.cube = 1
        self.finished = False
        self.last_before_result: Action | None = None

    def feed(self, ln: RawLine) -> list[Action]:
        """The actions of one line, in order."""
        game, defects, segs = self.game, self.game.defects, ln.segments
        if not segs:
            return []  # empty numbered line (Studio writes one after the result)
        if len(segs) > 2:
            defects.append(f"line {ln.lineno}: {len(segs)} actions on one line")
        single = len(segs) == 1
        out = []
        for i, seg in enumerate(segs):
            by_column = 0 if seg.col < self.threshold else 1
            player = by_column if single else min(i, 1)  # two actions: left, then right
            act = _parse_segment(seg, player, ln.lineno, ln.move_number, defects)
            is_result = act.kind in (WIN, RESIGN)  # these go by column, not by turn
            if single and not is_result and self.expected is not None:
                act.player = self.expected  # the order of play wins over the column
            out_of_turn = self.expected is not None and not is_result and act.player != self.expected
            wrong_column = single and act.kind != ILLEGAL and act.player != by_column
            if out_of_turn or wrong_column:
                defects.append(f"line {ln.lineno}: {act.kind} of player {act.player + 1} "
                               f"out of turn or in the wrong column")
            if self.finished:
                defects.append(f"line {ln.lineno}: {act.kind} after the result")
            out.append(act)
            if act.kind == DOUBLE and act.value:
                self.cube = max(self.cube, act.value)
            if act.kind == RESIGN:
                game.resigned = True
            if act.kind == WIN:
                if game.winner is not None:
                    defects.append(f"line {ln.lineno}: second result line")
                game.winner, game.points = act.player, act.value
                self.finished = True
                if act.value is not None and act.value > 3 * self.cube:
                    defects.append(f"line {ln.lineno}: implausible result {act.raw!r} (cube {self.cube})")
                self.expected = None
            else:
                self.last_before_result = act
                if act.kind in PASSES_TURN:
                    self.expected = 1 - act.player
        return out

    def finish(self) -> None:
        """Derive ``resigned`` from the order of actions; note a missing result."""
        game = self.game
        if game.winner is None:
            game.defects.append("no result line (unfinished game)")
            return
        last = self.last_before_result
        if last is not None and last.kind == ROLL and last.player != game.winner:
            game.resigned = True  # the loser rolled last: roll-then-resign
