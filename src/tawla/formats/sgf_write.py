"""Writing match records as GNU Backgammon SGF (``GM[6]``), the dialect :mod:`tawla.formats.sgf` reads.

One game tree per game, as gnubg's ``save match`` writes them::

    (;FF[4]GM[6]CA[UTF-8]AP[tawla:0.9]MI[length:7][game:0][ws:0][bs:0]PW[Player A]PB[Player B]
    DT[2025-11-08]RU[Crawford]RE[B+4R]
    ;W[42hdfd]
    ;B[double]
    ;W[take]
    ;B[61xrrq]
    )

The root node: the fixed header (``FF[4]GM[6]CA[UTF-8]`` and the ``AP`` of the writer),
``MI`` (match length, 0 for money; the game's index from 0; the scores of ``W`` and ``B``
before it), the names ``PW`` (the record's player 1, left column) and ``PB`` (player 2);
in the first game only, ``DT``, ``EV`` and ``PC`` from the ``EventDate``, ``Event`` and
``Site`` headers; ``RU[Crawford]`` in match play with the Crawford rule (a backgammon match
whose ``Crawford`` header is not ``Off``; ``RU[Crawford:CrawfordGame]`` for the Crawford game,
derived from the scores) or ``RU[Jacoby]`` in a money session played with
the Jacoby rule; ``RE[W+2]`` / ``RE[B+4R]`` (winner, points, ``R`` for a resignation) when
the game has a result. A record of another ruleset than backgammon keeps its name in the
private root property ``VA`` (and its options, JSON, in ``VO``), which gnubg ignores.

Each roll is a node ``;W[<dice><moves>]`` / ``;B[...]``: the two dice as rolled, then one
pair of point letters per checker moved, from and to, in the mover's own numbering: for
``W`` point ``p`` is letter ``a`` + ``p - 1``, for ``B`` letter ``a`` + ``24 - p``; the bar
is ``y`` and off is ``z`` for both (a roll that cannot be played has the dice alone). Hits
are implicit, as gnubg writes them. A play written as one link over both dice
(``24/17`` for a 61) is one pair, which gnubg's loader applies as one checker move to the
same board, except in the variations played from backgammon's starting position with hits
(backgammon, adi), where the writer follows the checkers and splits such a link into one
pair per die, as gnubg writes it, through the intermediate point that is not blocked (one
that holds no opponent checker when both are open: a hit on the way is written in the play,
``24/18*/17``). Cube actions are ``double``, ``take`` and ``drop`` nodes of their player; a
resignation is the ``R`` of ``RE``. Text that is no play (garbage a site wrote in place of
one) is kept as the node's value, which gnubg skips and :func:`tawla.formats.sgf.parse_sgf`
reads back as the same illegal action. gnubg's analysis properties (``A``, ``DA``, ``GS``,
``LU``, the skill marks), which the reader skips, are not written.
"""

from __future__ import annotations

import re

from .._version import __version__
from ..errors import FormatError, quote
from .record import DOUBLE, DROP, ILLEGAL, ROLL, TAKE, Action, Game, MatchRecord
from .sgf import HITTING_VARIATIONS, START

__all__ = ["write_sgf", "play_pairs", "point_letter"]

_PART = re.compile(r"(?P<chain>[^()]+?)(?:\((?P<times>[1-4])\))?")
_POINT_WORDS = {"bar": 25, "b": 25, "off": 0, "o": 0}


def point_letter(point: int, player: int) -> str:
    """The gnubg SGF letter of a point in the mover's own numbering (the inverse of
    :func:`tawla.formats.sgf.sgf_point`).

    Parameters
    ----------
    point : int
        1..24, 25 for the bar, 0 for off.
    player : int
        0 for ``W`` (the record's player 1), 1 for ``B``.

    Raises
    ------
    tawla.errors.FormatError
        A point outside 0..25 or a player other than 0 and 1.
    """
    if isinstance(point, bool) or not isinstance(point, int) or not 0 <= point <= 25 or player not in (0, 1):
        raise FormatError(f"no SGF letter for point {quote(point)} of player {quote(player)}")
    if point == 25:
        return "y"
    if point == 0:
        return "z"
    return chr(ord("a") + (point - 1 if player == 0 else 24 - point))


def _point(text: str, play: str) -> int:
    t = text.strip().lower()
    if t in _POINT_WORDS:
        return _POINT_WORDS[t]
    if t.isdigit() and t.isascii() and int(t) <= 25:
        return int(t)
    raise FormatError(f"{quote(t)} is not a point in the play {quote(play)}")


def play_pairs(play: str) -> list[tuple[int, int]]:
    """The checker moves of a play's text as (from, to) pairs in the mover's numbering.

    Parameters
    ----------
    play : str
        The text of a ``.mat`` play (``"13/7* 8/7"``, ``"bar/20"``, ``"24/22(2)"``,
        ``"6/off"``, ``"13/7/1"``); hit marks are dropped, ``(n)`` repeats a part, a chain
        ``a/b/c`` is one pair per link. ``""``: no move.

    Returns
    -------
    list of (int, int)
        At most four pairs; 25 is the bar, 0 off.

    Raises
    ------
    tawla.errors.FormatError
        Text that is not a play, or more than four checker moves.
    """
    pairs: list[tuple[int, int]] = []
    for part in play.split():
        m = _PART.fullmatch(part)
        if m is None or "/" not in m["chain"]:
            raise FormatError(f"{quote(part)} is not a checker move in the play {quote(play)}")
        points = [_point(p, play) for p in m["chain"].replace("*", "").split("/")]
        pairs += list(zip(points, points[1:])) * int(m["times"] or 1)
    if len(pairs) > 4:
        raise FormatError(f"the play {quote(play)} moves more than four checkers")
    return pairs


def _escape(text: str) -> str:
    return str(text).replace("\\", "\\\\").replace("]", "\\]")


class _Board:
    """Checker counts of both players in their own numbering (25: the bar), no rule checked."""

    def __init__(self):
        self.sides = [dict(START), dict(START)]

    def held(self, player: int, point: int) -> int:
        """The opponent checkers of ``player`` on his own point ``point`` (1..24)."""
        return self.sides[1 - player].get(25 - point, 0)

    def move(self, player: int, src: int, dst: int) -> None:
        mine, theirs = self.sides[player], self.sides[1 - player]
        mine[src] = mine.get(src, 0) - 1
        if dst > 0:
            mine[dst] = mine.get(dst, 0) + 1
            if theirs.get(25 - dst, 0) == 1:
                theirs[25 - dst] = 0
                theirs[25] = theirs.get(25, 0) + 1

    def split(self, player: int, pairs: list[tuple[int, int]], dice: tuple[int, int]) -> list[tuple[int, int]]:
        """``pairs`` with each link over several dice cut into one pair per die, applied."""
        out: list[tuple[int, int]] = []
        d1, d2 = dice
        for src, dst in pairs:
            steps = [(src, dst)]
            gap = src - dst
            if dst > 0 and d1 == d2 and gap > d1 and gap % d1 == 0:
                points = list(range(src, dst - 1, -d1))
                steps = list(zip(points, points[1:]))
            elif dst > 0 and d1 != d2 and gap == d1 + d2:
                mids = sorted((src - d for d in (d1, d2)), key=lambda m: (self.held(player, m) >= 2,
                                                                          self.held(player, m) > 0))
                if self.held(player, mids[0]) < 2:
                    steps = [(src, mids[0]), (mids[0], dst)]
            for a, b in steps:
                self.move(player, a, b)
            out += steps
        return out


def _node(act: Action, game: Game, board: _Board | None) -> str | None:
    """The ``;W[...]`` / ``;B[...]`` node of an action; None for one that has no node."""
    colour = "W" if act.player == 0 else "B"
    if act.kind == ROLL and act.dice is not None:
        try:
            pairs = play_pairs(act.play)
        except FormatError as e:
            raise FormatError(f"game {game.number}: {e}") from None
        if board is not None and act.player in (0, 1):
            pairs = board.split(act.player, pairs, act.dice)
        moves = "".join(point_letter(a, act.player) + point_letter(b, act.player) for a, b in pairs)
        return f";{colour}[{act.dice[0]}{act.dice[1]}{moves}]"
    if act.kind in (DOUBLE, TAKE, DROP):
        return f";{colour}[{act.kind}]"
    if act.kind == ILLEGAL:
        return f";{colour}[{_escape(act.play or act.raw)}]"
    return None  # win and resign: the RE of the root


def _date(text: str) -> str:
    m = re.fullmatch(r"\s*(\d{4})[.\-/](\d{1,2})[.\-/](\d{1,2})\s*", text)
    return f"{m[1]}-{int(m[2]):02d}-{int(m[3]):02d}" if m else text.strip()


def _root(record: MatchRecord, game: Game, index: int, crawford: bool) -> str:
    n = record.match_length
    names = game.players if any(game.players) else record.players
    out = [f"(;FF[4]GM[6]CA[UTF-8]AP[tawla:{__version__}]MI[length:{n}][game:{game.number - 1}]"
           f"[ws:{game.score[0]}][bs:{game.score[1]}]PW[{_escape(names[0])}]PB[{_escape(names[1])}]"]
    if index == 0:
        h = record.headers
        for prop, key in (("DT", "EventDate"), ("EV", "Event"), ("PC", "Site")):
            if h.get(key, "").strip():
                out.append(f"{prop}[{_escape(_date(h[key]) if prop == 'DT' else h[key])}]")
        if record.variation.strip().lower() != "backgammon":
            out.append(f"VA[{_escape(record.variation)}]")
            if h.get("Ruleset options", "").strip():
                out.append(f"VO[{_escape(h['Ruleset options'])}]")
    if n:
        if record.crawford_rule:
            out.append("RU[Crawford:CrawfordGame]" if crawford else "RU[Crawford]")
    elif str(record.headers.get("Jacoby", "On")).strip().lower() not in ("off", "0", "false", "no"):
        out.append("RU[Jacoby]")
    if game.winner in (0, 1) and game.points is not None:
        out.append(f"RE[{'WB'[game.winner]}+{game.points}{'R' if game.resigned else ''}]")
    return "".join(out)


def write_sgf(record: MatchRecord) -> str:
    """Write a record as GNU Backgammon SGF text (the module docstring gives the dialect).

    Parameters
    ----------
    record : MatchRecord
        As :func:`tawla.formats.matfile.read_match`, :func:`tawla.formats.sgf.read_sgf` or
        :meth:`tawla.Match.to_match_record` give it.

    Returns
    -------
    str
        One game tree per game, each on its own lines; such that
        :func:`tawla.formats.sgf.parse_sgf` gives back the same games, scores, players,
        rolls (player, dice, the same checker moves), cube actions and results.

    Raises
    ------
    tawla.errors.FormatError
        Not a :class:`MatchRecord`, or a roll whose text is not a play (:func:`play_pairs`).
    """
    if not isinstance(record, MatchRecord):
        raise FormatError(f"expected a MatchRecord, not {type(record).__name__}")
    out: list[str] = []
    n, crawford_done = record.match_length, False
    for index, game in enumerate(record.games):
        a, b = game.score
        crawford = bool(record.crawford_rule and not crawford_done and (a == n - 1) != (b == n - 1) and max(a, b) < n)
        crawford_done = crawford_done or crawford or bool(n and (a == n - 1 or b == n - 1))
        out.append(_root(record, game, index, crawford))
        board = _Board() if record.variation.strip().lower() in HITTING_VARIATIONS else None
        out += [node for node in (_node(act, game, board) for act in game.actions) if node is not None]
        out.append(")")
    return "\n".join(out) + "\n"
