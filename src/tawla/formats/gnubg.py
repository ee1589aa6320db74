"""GNU Backgammon Position ID / Match ID and eXtreme Gammon XGID codecs.

A standalone codec: no game logic, stdlib only.  Boards use the project's
convention, a pair ``(on_roll, opponent)`` of 26-int tuples, each in that
side's *own* numbering: index 0 = checkers borne off, 1..24 = points (1 is the
deepest home point, 24 the farthest), 25 = the bar.  The opponent's own point
``q`` is the on-roll player's point ``25 - q``.

Format facts (checked against gnubg's manual, its ``matchid.c`` and the
``gnubg_nn`` oracle):

* Position ID: 80-bit key, bits packed least-significant-first into 10 bytes,
  then base64 (``A-Za-z0-9+/``) without padding, 14 chars.  For each side,
  points 1..24 then the bar: one ``1`` per checker, then a ``0``.  The first
  half is the player *not* on roll (gnubg's ``anBoard[0]``), the second the
  player on roll (``anBoard[1]``, the side ``gnubg_nn.moves`` moves).
* Match ID: 72-bit key (9 bytes, same packing), 12 base64 chars.  Bits
  (0-based) 0-3 log2 cube, 4-5 owner (0, 1, 3 = centred), 6 player on roll,
  7 Crawford, 8-10 game state, 11 turn, 12 doubled, 13-14 resignation, 15-17
  and 18-20 dice (higher first), 21-35 match length, 36-50 and 51-65 scores,
  bit 66 = *not* Jacoby (gnubg stores ``!fJacoby``; set means Jacoby off).
* XGID: ``XGID=board:cube:cubepos:turn:dice:score_bottom:score_top:
  crawford_or_rules:match_length:max_cube``.  Board char 0 is the top
  (lower-case) player's bar, chars 1..24 are the bottom player's points 1..24,
  char 25 the bottom (upper-case) player's bar; ``A``/``a`` = 1 checker, ...
"""

from __future__ import annotations

import operator
import re
from dataclasses import dataclass
from typing import Sequence, TypedDict

import numpy as np

from ..errors import InvalidId, InvalidPosition, TawlaError, quote

__all__ = ["encode_position_id", "decode_position_id", "MatchState", "encode_xgid", "decode_xgid"]

_B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
_B64_INDEX = {c: i for i, c in enumerate(_B64)}
_CHECKERS = 15
_INT = re.compile(r"-?[0-9]+\Z")
_MAX_DIGITS = 18
"""The most digits of an XGID number field (every field fits in far fewer)."""


# --------------------------------------------------------------------- helpers
def _b64_int(text, nchars: int, what: str) -> int:
    """Decode ``nchars`` gnubg base64 chars (whitespace-stripped) to a big-endian int."""
    if not isinstance(text, str):
        raise InvalidId(f"{what} must be a str, not {type(text).__name__}")
    s = text.strip()
    if len(s) != nchars:
        raise InvalidId(f"{what} must be {nchars} characters, got {len(s)}: {quote(s)}")
    n = 0
    for i, ch in enumerate(s):
        v = _B64_INDEX.get(ch)
        if v is None:
            raise InvalidId(f"{what} {quote(s)}: invalid character {ch!r} at index {i}")
        n = (n << 6) | v
    return n


def _num(value, name: str, lo: int, hi: int | None, what: str) -> int:
    """``value`` as an int in ``lo..hi`` (``hi`` None = unbounded), else InvalidId."""
    try:
        v = operator.index(value)
    except TypeError:
        raise InvalidId(f"{what}: {name} {quote(value)} is not an int") from None
    if v < lo or (hi is not None and v > hi):
        raise InvalidId(f"{what}: {name} {quote(v)} is not in {lo}..{'' if hi is None else hi}")
    return v


def _pair(value, name: str, lo: int, hi: int | None, what: str) -> tuple[int, int]:
    try:
        items = tuple(value)
    except TypeError:
        raise InvalidId(f"{what}: {name} {quote(value)} is not a pair") from None
    if len(items) != 2:
        raise InvalidId(f"{what}: {name} {quote(value)} is not a pair")
    return _num(items[0], name, lo, hi, what), _num(items[1], name, lo, hi, what)


def _b64_str(n: int, nchars: int) -> str:
    return "".join(_B64[(n >> (6 * (nchars - 1 - i))) & 63] for i in range(nchars))


def _board(board, name: str, checkers: int, err) -> tuple[int, ...]:
    """Validate one side (26 ints, own numbering) and return it as a tuple."""
    try:
        side = tuple(operator.index(x) for x in board)
    except TypeError as exc:
        raise err(f"{name}: expected a sequence of 26 ints ({exc})") from None
    if len(side) != 26:
        raise err(f"{name}: expected 26 entries (off, points 1..24, bar), got {len(side)}")
    if min(side) < 0:
        raise err(f"{name}: negative checker count")
    on_board = sum(side[1:])
    if on_board > checkers:
        raise err(f"{name}: {on_board} checkers on board and bar, more than {checkers}")
    if side[0] != checkers - on_board:
        raise err(f"{name}: off count {side[0]} != {checkers} - {on_board} on board")
    return side


def _no_shared_point(on_roll, opponent, err) -> None:
    for p in range(1, 25):
        if on_roll[p] and opponent[25 - p]:
            raise err(
                f"point {p} (opponent's {25 - p}) is held by both sides "
                f"({on_roll[p]} and {opponent[25 - p]} checkers)"
            )


# ----------------------------------------------------------------- position ID
def encode_position_id(on_roll: Sequence[int], opponent: Sequence[int], *, checkers: int = _CHECKERS) -> str:
    """Encode a board as a 14-character gnubg Position ID.

    Parameters
    ----------
    on_roll, opponent : sequence of 26 int
        Checker counts in each side's own numbering (0 = off, 1..24 = points,
        25 = bar).  The off count must equal ``checkers`` minus the rest.
    checkers : int, optional
        Checkers per side (15; 3 for hypergammon).

    Returns
    -------
    str
        The Position ID: opponent's half first, then the player on roll.

    Raises
    ------
    InvalidPosition
        Wrong length, negative or too many checkers, inconsistent off count,
        or a point held by both sides.
    """
    a = _board(on_roll, "on_roll", checkers, InvalidPosition)
    b = _board(opponent, "opponent", checkers, InvalidPosition)
    _no_shared_point(a, b, InvalidPosition)
    key = pos = 0
    for side in (b, a):
        for i in range(1, 26):
            key |= ((1 << side[i]) - 1) << pos
            pos += side[i] + 1
    n = int.from_bytes(key.to_bytes(10, "little"), "big") << 4
    return _b64_str(n, 14)


def decode_position_id(text: str, *, checkers: int = _CHECKERS) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Decode a gnubg Position ID.

    Parameters
    ----------
    text : str
        14 base64 characters (``A-Za-z0-9+/``, no ``=`` padding); surrounding
        whitespace is ignored.
    checkers : int, optional
        Checkers per side, used for the off counts (15; 3 for hypergammon).

    Returns
    -------
    (on_roll, opponent) : tuple of two 26-int tuples
        Each side in its own numbering, off counts included.

    Raises
    ------
    InvalidId
        Wrong length or character, non-zero padding bits, too few point
        separators, more than ``checkers`` on one side, or a point held by
        both sides, or ``checkers`` not a whole number in 1..15.
    """
    if isinstance(checkers, bool) or not isinstance(checkers, int) or not 1 <= checkers <= _CHECKERS:
        raise InvalidId(f"checkers must be a whole number in 1..{_CHECKERS}, not {quote(checkers)}")
    n = _b64_int(text, 14, "position ID")
    if n & 0xF:
        raise InvalidId(f"position ID {quote(text.strip())}: trailing padding bits are not zero")
    key = int.from_bytes((n >> 4).to_bytes(10, "big"), "little")
    halves, pos = [], 0
    for name in ("opponent", "on_roll"):
        counts = []
        for _ in range(25):
            c = 0
            while pos < 80 and (key >> pos) & 1:
                c, pos = c + 1, pos + 1
            if pos >= 80:
                raise InvalidId(f"position ID {quote(text.strip())}: ends before the last point")
            pos += 1
            counts.append(c)
        if sum(counts) > checkers:
            raise InvalidId(
                f"position ID {quote(text.strip())}: {name} has {sum(counts)} checkers (> {checkers})"
            )
        halves.append((checkers - sum(counts), *counts))
    if key >> pos:
        raise InvalidId(f"position ID {quote(text.strip())}: non-zero bits after the last point")
    opponent, on_roll = halves
    _no_shared_point(on_roll, opponent, InvalidId)
    return on_roll, opponent


# -------------------------------------------------------------------- match ID
# (name, first bit, width) in gnubg's order.
_MATCH_FIELDS = (
    ("cube", 0, 4), ("owner", 4, 2), ("move", 6, 1), ("crawford", 7, 1),
    ("state", 8, 3), ("turn", 11, 1), ("doubled", 12, 1), ("resign", 13, 2),
    ("die1", 15, 3), ("die2", 18, 3), ("length", 21, 15), ("score0", 36, 15),
    ("score1", 51, 15), ("no_jacoby", 66, 1),
)


@dataclass(frozen=True)
class MatchState:
    """The fields of a gnubg Match ID.

    Players are gnubg's absolute player 0 and player 1.  Constructing one
    validates it and stores the dice higher die first (as gnubg encodes them).

    Attributes
    ----------
    cube_value : int
        Cube value, a power of two from 1 to 2**15.
    cube_owner : int or None
        ``None`` = centred, else the owning player (0 or 1).
    player_on_roll : int
        Player on roll, or who did roll (0/1); the Position ID's on-roll half.
    crawford : bool
        This is the Crawford game (match play only).
    game_state : int
        0 no game, 1 playing, 2 over, 3 resigned, 4 ended by a dropped cube.
    turn : int
        Player who must make the next decision (0/1).
    double_offered : bool
        A double is being offered.
    resignation : int
        0 none, 1 single, 2 gammon, 3 backgammon (offered by ``1 - turn``).
    dice : tuple of int
        ``(high, low)`` in 1..6, or ``(0, 0)`` when not rolled.
    match_length : int
        Points, 0..32767; 0 is a money game.
    score : tuple of int
        ``(player 0, player 1)`` in points, 0..32767 (at most ``match_length``).
    jacoby : bool
        Jacoby rule in force (bit 66 holds its negation; gnubg default True).

    Raises
    ------
    InvalidId
        On any field out of range (from the constructor and ``from_match_id``).
    """

    cube_value: int = 1
    cube_owner: int | None = None
    player_on_roll: int = 0
    crawford: bool = False
    game_state: int = 1
    turn: int = 0
    double_offered: bool = False
    resignation: int = 0
    dice: tuple[int, int] = (0, 0)
    match_length: int = 0
    score: tuple[int, int] = (0, 0)
    jacoby: bool = True

    def __post_init__(self):
        put = object.__setattr__
        cv = _num(self.cube_value, "cube_value", 1, 1 << 15, "match state")
        if cv & (cv - 1):
            raise InvalidId(f"match state: cube_value {cv} is not a power of 2")
        put(self, "cube_value", cv)
        if self.cube_owner is not None:
            put(self, "cube_owner", _num(self.cube_owner, "cube_owner", 0, 1, "match state"))
        for name, hi in (("player_on_roll", 1), ("turn", 1), ("game_state", 4),
                         ("resignation", 3), ("match_length", 0x7FFF)):
            put(self, name, _num(getattr(self, name), name, 0, hi, "match state"))
        dice = _pair(self.dice, "dice", 0, 6, "match state")
        if 0 in dice and dice != (0, 0):
            raise InvalidId(f"match state: dice {dice} must be both 1..6 or (0, 0)")
        score = _pair(self.score, "score", 0, 0x7FFF, "match state")
        if self.match_length and max(score) > self.match_length:
            raise InvalidId(f"match state: score {score} exceeds match length {self.match_length}")
        for name in ("crawford", "double_offered", "jacoby"):
            flag = getattr(self, name)
            if not isinstance(flag, (bool, np.bool_)):
                raise InvalidId(f"match state: {name} must be True or False, not {quote(flag)}")
            put(self, name, bool(flag))
        if not self.match_length and self.crawford:
            raise InvalidId("match state: crawford is set in a money game")
        put(self, "dice", dice)  # as rolled: gnubg keeps the order, so IDs round-trip
        put(self, "score", score)

    @classmethod
    def from_xgid(cls, text: str) -> "MatchState":
        """The match context of an eXtreme Gammon XGID: XG's bottom player is player 0 and
        the top player player 1 (cube owner, score, player on roll); the board is
        :meth:`tawla.Position.from_xgid` of the same text.

        Raises
        ------
        InvalidId
            A malformed XGID or match fields out of range.
        """
        return cls._of_xgid_fields(decode_xgid(text)[2], text)

    @classmethod
    def _of_xgid_fields(cls, info: XgidFields, text: str) -> MatchState:
        """:meth:`from_xgid` of the match fields ``info`` that :func:`decode_xgid` read from ``text``."""
        on_roll = 0 if info["turn"] == 1 else 1
        owner = {0: None, 1: 0, -1: 1}[info["cube_position"]]
        low, high = sorted(info["dice"])
        try:
            return cls(cube_value=info["cube_value"], cube_owner=owner, player_on_roll=on_roll,
                       crawford=info["crawford"], game_state=1, turn=on_roll,
                       double_offered=info["cube_action"] is not None, dice=(high, low),
                       match_length=info["match_length"], score=info["score"], jacoby=info["jacoby"])
        except TawlaError as e:
            raise InvalidId(f"XGID {quote(text)}: {e}") from None

    @classmethod
    def from_match_id(cls, text: str) -> "MatchState":
        """Decode a 12-character gnubg Match ID.

        Raises
        ------
        InvalidId
            Wrong length or character, cube-owner code 2, game state above 4,
            a die above 6 or only one die set, a score above the match length,
            Crawford in a money game, or non-zero unused bits 67..71.
        """
        n = _b64_int(text, 12, "match ID")
        key = int.from_bytes(n.to_bytes(9, "big"), "little")
        f = {name: (key >> lo) & ((1 << w) - 1) for name, lo, w in _MATCH_FIELDS}
        where = f"match ID {quote(text.strip())}"
        if key >> 67:
            raise InvalidId(f"{where}: unused bits 67..71 are not zero")
        if f["owner"] == 2:
            raise InvalidId(f"{where}: invalid cube owner code 2")
        try:
            return cls(
                cube_value=1 << f["cube"],
                cube_owner=None if f["owner"] == 3 else f["owner"],
                player_on_roll=f["move"], crawford=bool(f["crawford"]),
                game_state=f["state"], turn=f["turn"], double_offered=bool(f["doubled"]),
                resignation=f["resign"], dice=(f["die1"], f["die2"]),
                match_length=f["length"], score=(f["score0"], f["score1"]),
                jacoby=not f["no_jacoby"],
            )
        except InvalidId as exc:
            raise InvalidId(f"{where}: {exc}") from None

    def match_id(self) -> str:
        """Return the 12-character gnubg Match ID of this state."""
        values = {
            "cube": self.cube_value.bit_length() - 1,
            "owner": 3 if self.cube_owner is None else self.cube_owner,
            "move": self.player_on_roll, "crawford": int(self.crawford),
            "state": self.game_state, "turn": self.turn, "doubled": int(self.double_offered),
            "resign": self.resignation, "die1": self.dice[0], "die2": self.dice[1],
            "length": self.match_length, "score0": self.score[0], "score1": self.score[1],
            "no_jacoby": int(not self.jacoby),
        }
        key = 0
        for name, lo, _ in _MATCH_FIELDS:
            key |= values[name] << lo
        return _b64_str(int.from_bytes(key.to_bytes(9, "little"), "big"), 12)


# ------------------------------------------------------------------------ XGID
class XgidFields(TypedDict):
    """The match fields of an XGID as :func:`decode_xgid` returns them (``info``)."""

    turn: int
    cube_value: int
    cube_position: int
    dice: tuple[int, int]
    cube_action: str | None
    score: tuple[int, int]
    crawford: bool
    jacoby: bool
    beaver: bool
    match_length: int
    max_cube: int


def _xg_int(field: str, name: str, lo: int, hi: int | None = None) -> int:
    if not _INT.match(field):
        raise InvalidId(f"XGID: {name} {quote(field)} is not an integer")
    if len(field.lstrip("-")) > _MAX_DIGITS:
        raise InvalidId(f"XGID: {name} {quote(field)} is out of range")
    return _num(int(field), name, lo, hi, "XGID")


def decode_xgid(text: str) -> tuple[tuple[int, ...], tuple[int, ...], XgidFields]:
    """Decode an eXtreme Gammon XGID (with or without the ``XGID=`` prefix).

    Returns
    -------
    on_roll, opponent : 26-int tuples
        Own numbering, off counts included.  The player on roll is the bottom
        (upper-case) player when ``turn == 1`` and the top one when ``-1``.
    info : dict
        Keyword arguments for :func:`encode_xgid`: ``turn`` (1 bottom, -1
        top), ``cube_value`` (1, 2, 4, ...), ``cube_position`` (1 bottom owns,
        0 centred, -1 top owns; the on-roll player owns it iff it equals
        ``turn``), ``dice`` ((d1, d2) as written, or (0, 0)), ``cube_action``
        (None, or ``"D"`` doubled / ``"B"`` beavered / ``"R"`` raccooned),
        ``score`` ((bottom, top) points), ``crawford`` (match play),
        ``jacoby`` and ``beaver`` (money play), ``match_length`` (0 = money),
        ``max_cube`` (cube value limit, e.g. 1024).

    Raises
    ------
    InvalidId
        Not 10 ``:``-separated fields, a bad board character, a checker on the
        wrong bar, more than 15 checkers a side, or a field out of range.
    """
    if not isinstance(text, str):
        raise InvalidId(f"XGID must be a str, not {type(text).__name__}")
    s = text.strip()
    if s.startswith("XGID="):
        s = s[5:]
    parts = s.split(":")
    if len(parts) != 10:
        raise InvalidId(f"XGID {quote(text.strip())}: expected 10 ':'-separated fields, got {len(parts)}")
    board = parts[0]
    if len(board) != 26:
        raise InvalidId(f"XGID board {quote(board)}: expected 26 characters, got {len(board)}")
    bottom, top = [0] * 26, [0] * 26
    for i, ch in enumerate(board):
        if ch == "-":
            continue
        if "A" <= ch <= "O":
            if i == 0:
                raise InvalidId(f"XGID board {quote(board)}: bottom checkers on the top bar")
            bottom[i] = ord(ch) - 64
        elif "a" <= ch <= "o":
            if i == 25:
                raise InvalidId(f"XGID board {quote(board)}: top checkers on the bottom bar")
            top[25 - i] = ord(ch) - 96
        else:
            raise InvalidId(f"XGID board {quote(board)}: invalid character {ch!r} at index {i}")
    for name, side in (("bottom", bottom), ("top", top)):
        if sum(side) > _CHECKERS:
            raise InvalidId(f"XGID board {quote(board)}: {name} has {sum(side)} checkers (> 15)")
        side[0] = _CHECKERS - sum(side)
    turn = _xg_int(parts[3], "turn", -1, 1)
    if turn == 0:
        raise InvalidId("XGID turn: must be 1 or -1")
    dfield, action = parts[4], None
    dice: tuple[int, int] = (0, 0)
    if dfield in ("D", "B", "R"):
        action = dfield
    elif re.fullmatch(r"[0-6]{2}", dfield) and (dfield == "00" or "0" not in dfield):
        dice = (int(dfield[0]), int(dfield[1]))
    else:
        raise InvalidId(f"XGID dice: {quote(dfield)} is not 00, two dice 1..6, D, B or R")
    ml = _xg_int(parts[8], "match length", 0)
    flags = _xg_int(parts[7], "crawford/jacoby", 0, 1 if ml else 3)
    score = (_xg_int(parts[5], "bottom score", 0), _xg_int(parts[6], "top score", 0))
    info = XgidFields(
        turn=turn,
        cube_value=1 << _xg_int(parts[1], "cube value", 0, 15),
        cube_position=_xg_int(parts[2], "cube position", -1, 1),
        dice=dice, cube_action=action,
        score=score,
        crawford=bool(ml and flags), jacoby=bool(not ml and flags & 1),
        beaver=bool(not ml and flags & 2), match_length=ml,
        max_cube=1 << _xg_int(parts[9], "max cube", 0, 15),
    )
    if ml and max(score) >= ml:
        raise InvalidId(f"XGID score {score} is not below the match length {ml}")
    on_roll, opponent = (bottom, top) if turn == 1 else (top, bottom)
    return tuple(on_roll), tuple(opponent), info


def encode_xgid(on_roll: Sequence[int], opponent: Sequence[int], *, turn: int = 1, cube_value: int = 1,
                cube_position: int = 0, dice: Sequence[int] = (0, 0), cube_action: str | None = None,
                score: Sequence[int] = (0, 0), crawford: bool = False, jacoby: bool = False,
                beaver: bool = False, match_length: int = 0, max_cube: int = 1024) -> str:
    """Encode a board and its context as an XGID (with the ``XGID=`` prefix).

    Parameters
    ----------
    on_roll, opponent : sequence of 26 int
        Own numbering (0 off, 1..24 points, 25 bar), 15 checkers a side.
    turn, cube_value, cube_position, dice, cube_action, score, crawford, jacoby,
    beaver, match_length, max_cube
        As returned in ``info`` by :func:`decode_xgid`; ``turn`` says whether
        ``on_roll`` is the bottom (1) or the top (-1) player.

    Raises
    ------
    InvalidPosition
        A malformed board or a point held by both sides.
    InvalidId
        A context field that the XGID cannot express.
    """
    a = _board(on_roll, "on_roll", _CHECKERS, InvalidPosition)
    b = _board(opponent, "opponent", _CHECKERS, InvalidPosition)
    _no_shared_point(a, b, InvalidPosition)
    w = "XGID"
    turn = _num(turn, "turn", -1, 1, w)
    if turn == 0:
        raise InvalidId("XGID: turn must be 1 (bottom on roll) or -1 (top on roll)")
    bottom, top = (a, b) if turn == 1 else (b, a)
    chars = []
    for i in range(26):
        nb = bottom[i] if i else 0
        nt = top[25 - i] if i < 25 else 0
        chars.append(chr(64 + nb) if nb else chr(96 + nt) if nt else "-")

    def log2(v, name):
        v = _num(v, name, 1, 1 << 15, w)
        if v & (v - 1):
            raise InvalidId(f"XGID: {name} {v} is not a power of 2")
        return v.bit_length() - 1

    dice = _pair(dice, "dice", 0, 6, w)
    if cube_action is not None:
        if cube_action not in ("D", "B", "R") or dice != (0, 0):
            raise InvalidId(f"XGID: cube_action {cube_action!r} must be D, B or R, without dice")
        dfield = cube_action
    elif 0 in dice and dice != (0, 0):
        raise InvalidId(f"XGID: dice {dice} must be both 1..6 or (0, 0)")
    else:
        dfield = f"{dice[0]}{dice[1]}"
    match_length = _num(match_length, "match_length", 0, None, w)
    score = _pair(score, "score", 0, None, w)
    if match_length and max(score) >= match_length:
        raise InvalidId(f"XGID: score {score} is not below the match length {match_length}")
    if match_length:
        if jacoby or beaver:
            raise InvalidId("XGID: jacoby/beaver apply to money games only")
        flags = int(bool(crawford))
    else:
        if crawford:
            raise InvalidId("XGID: crawford applies to match play only")
        flags = int(bool(jacoby)) | 2 * int(bool(beaver))
    fields = [
        "".join(chars), log2(cube_value, "cube_value"),
        _num(cube_position, "cube_position", -1, 1, w), turn, dfield,
        score[0], score[1], flags, match_length, log2(max_cube, "max_cube"),
    ]
    return "XGID=" + ":".join(map(str, fields))
