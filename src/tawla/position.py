"""Position: an immutable board seen from the seat of the player to move.

Numbering (RULES.md §1.1): points 1..24 in the on-roll player's numbering (24
farthest from his home), 25 = bar, 0 = off. The opponent's checkers are given in
the **on-roll player's** numbering too. The packed-row layout is documented in
:mod:`tawla.core.layout`.
"""

from __future__ import annotations

import base64
import binascii
import re
from typing import Any, Iterable, Mapping

import numpy as np

from . import native
from .core.dice import DiceLike, check_dice
from .core.geometry import own_coords
from .core.layout import (ME_BAR, ME_OFF, OPP, OPP_BAR, OPP_OFF, PACKED_WIDTH, PIN, RESERVED, pin_bytes,
                          pinned_points)
from .core.moves import Move, register_position_type
from .core.results import GameResult
from .errors import (IllegalMove, InvalidAction, InvalidArgument, InvalidDice, InvalidId, InvalidPosition,
                     UnsupportedRuleset, quote)
from .formats.gnubg import MatchState, decode_position_id, decode_xgid, encode_position_id, encode_xgid
from .notation import parse_move
from .rules import Ruleset, RulesetLike, get_ruleset, ruleset_byte, ruleset_of_byte
from .rules.validation import validate_row

__all__ = ["Position", "GameResult", "position_of", "positions_to_array", "array_to_positions",
           "ids_to_array", "array_to_ids"]


_last_generated: tuple[bytes | None, Ruleset | None, tuple[Move, ...] | list[Move]] = (None, None, ())
"""(row, ruleset, moves) of the latest :meth:`Position.legal_moves` call: :meth:`Position.play`
accepts a move of that list (the very object) without generating the moves again."""


class Position:
    """An immutable backgammon-family position, seen from the player to move.

    Equality and hash include the ruleset (and its options). Build one with
    :meth:`from_points`, :meth:`from_array`, :meth:`from_id`, :meth:`from_gnubg_id`,
    :meth:`from_xgid` or :meth:`Ruleset.initial_position`.
    """

    __slots__ = ("_row", "_ruleset", "_hash")
    _row: bytes
    _ruleset: Ruleset
    _hash: int | None

    def __init__(self, row: bytes, ruleset: Ruleset):
        # Internal: callers use the from_* constructors, which validate.
        object.__setattr__(self, "_row", row)
        object.__setattr__(self, "_ruleset", ruleset)
        object.__setattr__(self, "_hash", None)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Position is immutable")

    def __delattr__(self, name: str) -> None:
        raise AttributeError("Position is immutable")

    # --- construction ----------------------------------------------------------------
    @classmethod
    def from_points(cls, ruleset: RulesetLike, on_roll: Mapping[int, int], opponent: Mapping[int, int], *,
                    bar: tuple[int, int] = (0, 0), off: tuple[int, int] | None = None,
                    pinned_on_roll: Iterable[int] = (), pinned_opponent: Iterable[int] = ()) -> Position:
        """Build a position from point counts.

        Parameters
        ----------
        ruleset : Ruleset or str
        on_roll, opponent : dict[int, int]
            Checkers per point, keys 1..24 **in the on-roll player's numbering** (the
            opponent's too); a count includes every checker of that side on the point.
        bar : (int, int)
            Checkers on the bar (on roll, opponent); hitting games only.
        off : (int, int) or None
            Checkers borne off; default 15 minus the checkers on board and bar.
        pinned_on_roll, pinned_opponent : iterable of int
            Points (on-roll numbering) where that side's single checker is pinned under
            the other side's checkers (Mahbusa, RULES.md §4.2).

        Returns
        -------
        Position

        Raises
        ------
        tawla.errors.InvalidPosition
            Wrong checker counts, both colours on a point (other than a Mahbusa pin
            stack of exactly one pinned checker), a bar in a game without one, ...
        tawla.errors.UnsupportedRuleset
            Unknown ruleset.
        """
        r = get_ruleset(ruleset)
        me, opp = [0] * 26, [0] * 26
        for side, counts in ((me, on_roll), (opp, opponent)):
            if not hasattr(counts, "items"):
                raise InvalidPosition("on_roll and opponent must be dicts {point: count}")
            for p, n in counts.items():
                if not isinstance(p, (int, np.integer)) or isinstance(p, bool) or not 1 <= p <= 24:
                    raise InvalidPosition(f"point {quote(p)} is not an integer in 1..24")
                if not isinstance(n, (int, np.integer)) or isinstance(n, bool) or not 0 <= n <= 15:
                    raise InvalidPosition(f"count {quote(n)} on point {p} is not an integer in 0..15")
                side[int(p)] += int(n)
        def pair(value, what):
            try:
                a, b = value
            except (TypeError, ValueError):
                raise InvalidPosition(f"{what} must be a pair of integers, not {quote(value)}") from None
            if not all(isinstance(x, (int, np.integer)) and not isinstance(x, bool) for x in (a, b)):
                raise InvalidPosition(f"{what} must be a pair of integers, not {quote(value)}")
            return int(a), int(b)

        me[25], opp[25] = pair(bar, "bar")
        if off is None:
            me[0], opp[0] = 15 - sum(me[1:]), 15 - sum(opp[1:])
        else:
            me[0], opp[0] = pair(off, "off")
        pinned_me: set[int] = set()
        pinned_opp: set[int] = set()
        for pts, dest in ((pinned_on_roll, pinned_me), (pinned_opponent, pinned_opp)):
            if isinstance(pts, (str, bytes)) or not hasattr(pts, "__iter__"):
                raise InvalidPosition(f"pinned points must be a sequence of points, not {quote(pts)}")
            for p in pts:
                if not isinstance(p, (int, np.integer)) or isinstance(p, bool) or not 1 <= p <= 24:
                    raise InvalidPosition(f"pinned point {quote(p)} is not in 1..24")
                dest.add(int(p))
        row = bytes(x & 0xFF if 0 <= x <= 255 else 255 for x in me + opp) + pin_bytes(pinned_me)
        row += bytes(PACKED_WIDTH - len(row))
        validate_row(row, r, pinned_opp=pinned_opp, counts=(me, opp))
        return cls(row, r)

    @classmethod
    def from_array(cls, row: np.ndarray | bytes | Iterable[int], ruleset: RulesetLike) -> Position:
        """Build a position from a packed row (``uint8[PACKED_WIDTH]``, :mod:`tawla.core.layout`).

        Raises
        ------
        tawla.errors.InvalidId
            Wrong shape or dtype, or not an array of numbers.
        tawla.errors.InvalidPosition
            A row that is not a valid position of the ruleset.
        """
        r = get_ruleset(ruleset)
        try:
            arr = np.asarray(row)
        except (TypeError, ValueError, OverflowError) as e:  # ragged or foreign objects
            raise InvalidId(f"a packed row is {PACKED_WIDTH} bytes, not {quote(row)}: {e}") from None
        if arr.shape != (PACKED_WIDTH,):
            raise InvalidId(f"a packed row has shape ({PACKED_WIDTH},), not {arr.shape}")
        if arr.dtype != np.uint8:
            if not np.issubdtype(arr.dtype, np.integer) or arr.min() < 0 or arr.max() > 255:
                raise InvalidId(f"a packed row is uint8, not {arr.dtype}")
            arr = arr.astype(np.uint8)
        b = arr.tobytes()
        validate_row(b, r)
        return cls(b, r)

    @classmethod
    def from_id(cls, text: str, ruleset: RulesetLike | None = None) -> Position:
        """Inverse of :meth:`id`: the position on the ruleset its ID names.

        Parameters
        ----------
        text : str
        ruleset : str or Ruleset, optional
            Checked against the ID's own; needed for an ID written before IDs named their
            ruleset (its last byte zero).

        Raises
        ------
        tawla.errors.InvalidId
            Not a valid ID string, or a last byte that names no ruleset.
        tawla.errors.InvalidArgument
            ``ruleset`` is not the one the ID names (another ruleset, or other options), or an
            ID that names none without ``ruleset``.
        tawla.errors.InvalidPosition
            A well-formed ID of an invalid position.
        tawla.errors.UnsupportedRuleset
            An unknown ``ruleset``.
        """
        given = get_ruleset(ruleset) if ruleset is not None else None
        if not isinstance(text, str):
            raise InvalidId(f"a position ID is a string, not {type(text).__name__}")
        t = text.strip()
        if not re.fullmatch(r"[A-Za-z0-9_-]{40}", t):
            raise InvalidId(f"{quote(text)} is not a tawla position ID (40 characters)")
        try:
            raw = base64.urlsafe_b64decode(t.encode("ascii"))
        except (binascii.Error, ValueError):
            raise InvalidId(f"{quote(text)} is not valid base64") from None
        if len(raw) != 30:
            raise InvalidId(f"{quote(text)} does not decode to 30 bytes")
        try:
            named = ruleset_of_byte(raw[-1])
        except UnsupportedRuleset as e:
            raise InvalidId(f"{quote(text)}: {e}") from None
        if named is None and given is None:
            raise InvalidArgument(f"{quote(text)} names no ruleset (an ID written before IDs named one): give the ruleset")
        if named is not None and given is not None and named != given:
            raise InvalidArgument(f"{quote(text)} is a position of {named!r}, not of {given!r}")
        r = named if named is not None else given
        assert r is not None
        return cls(_unpack_id(raw, text, r), r)

    @classmethod
    def from_gnubg_id(cls, pid: str, ruleset: RulesetLike = "backgammon") -> Position:
        """A position from a GNU Backgammon Position ID (14 characters), player on roll to move.

        Raises
        ------
        tawla.errors.InvalidId
        tawla.errors.UnsupportedRuleset
            For a ruleset whose board a gnubg ID cannot describe (pins).
        """
        r = _board_ruleset(ruleset, "gnubg Position IDs")
        me, opp = decode_position_id(pid)
        return cls._from_own_coords(r, me, opp)

    @classmethod
    def from_xgid(cls, text: str, ruleset: RulesetLike = "backgammon") -> Position:
        """The position of an eXtreme Gammon XGID, seen from the player on roll; its match
        context (cube, score, dice) is :meth:`tawla.MatchState.from_xgid` of the same text.

        Returns
        -------
        Position

        Raises
        ------
        tawla.errors.InvalidId
            A malformed XGID (its match fields included).
        tawla.errors.UnsupportedRuleset
            A ruleset without backgammon's board.
        """
        r = _board_ruleset(ruleset, "XGIDs")
        me, opp, info = decode_xgid(text)
        MatchState._of_xgid_fields(info, text)  # the whole XGID is checked, not only the board
        return cls._from_own_coords(r, me, opp)

    def xgid(self, match_state: MatchState | None = None) -> str:
        """The XGID of this position with an optional match context (player 0 = XG's bottom).

        Parameters
        ----------
        match_state : tawla.formats.gnubg.MatchState, optional
            Default: a money game, cube 1 centred, player 0 on roll, no dice.

        Raises
        ------
        tawla.errors.UnsupportedRuleset
            Not a backgammon board.
        """
        if not self._ruleset.has_bar:
            raise UnsupportedRuleset(f"XGIDs describe backgammon boards, not {self._ruleset.name}")
        if match_state is not None and not isinstance(match_state, MatchState):
            raise InvalidId(f"match_state must be a MatchState, not {type(match_state).__name__}")
        m = match_state or MatchState(jacoby=False)
        turn = 1 if m.player_on_roll == 0 else -1
        cube_position = {None: 0, 0: 1, 1: -1}[m.cube_owner]
        me, opp = self._own_coords()
        return encode_xgid(me, opp, turn=turn, cube_value=m.cube_value, cube_position=cube_position,
                           dice=m.dice, cube_action="D" if m.double_offered else None, score=m.score,
                           crawford=m.crawford if m.match_length else False,
                           jacoby=m.jacoby if not m.match_length else False, match_length=m.match_length)

    @classmethod
    def _from_own_coords(cls, r: Ruleset, me: tuple[int, ...], opp: tuple[int, ...]) -> Position:
        """From two 26-tuples, each in its own side's numbering (0 off, 25 bar)."""
        on_roll = {p: me[p] for p in range(1, 25) if me[p]}
        opponent = {r.opponent_point(q): opp[q] for q in range(1, 25) if opp[q]}
        bar = (me[25], opp[25])
        off = (me[0], opp[0])
        return cls.from_points(r, on_roll, opponent, bar=bar, off=off)

    def _own_coords(self) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """(on_roll, opponent) as 26-tuples, each in its own side's numbering."""
        return own_coords(self._row, self._ruleset.geometry)

    def gnubg_id(self) -> str:
        """The GNU Backgammon Position ID (hitting games only).

        Raises
        ------
        tawla.errors.UnsupportedRuleset
            Mahbusa pin stacks and the Tawla 31 geometries are not gnubg positions.
        """
        if not self._ruleset.has_bar:
            raise UnsupportedRuleset(f"gnubg Position IDs describe backgammon boards, not {self._ruleset.name}")
        return encode_position_id(*self._own_coords())

    # --- views ----------------------------------------------------------------------
    @property
    def ruleset(self) -> Ruleset:
        """The :class:`Ruleset` of this position."""
        return self._ruleset

    @property
    def row(self) -> bytes:
        """The packed row as ``bytes`` (length ``PACKED_WIDTH``)."""
        return self._row

    def to_array(self) -> np.ndarray:
        """The packed row, ``uint8[PACKED_WIDTH]`` (layout: :mod:`tawla.core.layout`)."""
        return np.frombuffer(self._row, dtype=np.uint8).copy()

    def id(self) -> str:
        """A short text ID: 40 characters of URL-safe base64 over 30 bytes (the 52 checker
        counts of the row as 4-bit nibbles, then the 3 pin bytes and the byte that names the
        ruleset with its options, :func:`tawla.rules.ruleset_byte`). :meth:`from_id` inverts
        it, on the same ruleset."""
        return base64.urlsafe_b64encode(_pack_id(self._row, ruleset_byte(self._ruleset))).decode()

    def to_points(self) -> dict[str, Any]:
        """The keyword arguments of :meth:`from_points` that rebuild this position
        (without the ruleset): ``on_roll``, ``opponent``, ``bar``, ``off``,
        ``pinned_on_roll``, ``pinned_opponent``."""
        row = self._row
        pinned_me = pinned_points(row)
        return {
            "on_roll": {p: row[p] for p in range(1, 25) if row[p]},
            "opponent": {p: row[OPP + p] for p in range(1, 25) if row[OPP + p]},
            "bar": (row[ME_BAR], row[OPP_BAR]),
            "off": (row[ME_OFF], row[OPP_OFF]),
            "pinned_on_roll": tuple(sorted(pinned_me)),
            "pinned_opponent": tuple(p for p in range(1, 25)
                                     if row[p] and row[OPP + p] and p not in pinned_me),
        }

    def pip_count(self) -> tuple[int, int]:
        """Pip counts (on roll, opponent), each in its own numbering; the bar counts 25 pips."""
        me, opp = self._own_coords()
        return (sum(p * me[p] for p in range(1, 26)), sum(q * opp[q] for q in range(1, 26)))

    def flip(self) -> Position:
        """The same board seen from the other seat (the other player to move)."""
        return Position(native.flip_row(self._row, self._ruleset), self._ruleset)

    # --- rules ----------------------------------------------------------------------
    def legal_moves(self, dice: DiceLike) -> list[Move]:
        """The legal moves for a roll (RULES.md §1.4, §1.5 and the ruleset's sections).

        Parameters
        ----------
        dice : (int, int)
            Each 1..6, in any order.

        Returns
        -------
        list[tawla.Move]
            One move per distinct resulting position, in canonical order; empty when the
            turn passes (or the game is over).

        Raises
        ------
        tawla.errors.InvalidDice
        """
        global _last_generated
        moves = native.legal_moves(self._row, check_dice(dice), self._ruleset)
        _last_generated = (self._row, self._ruleset, moves)
        return list(moves)

    def play(self, move: Move | str | None, dice: DiceLike | None = None) -> Position:
        """The position for the next turn: the board after ``move``, seen from the opponent.

        Parameters
        ----------
        move : Move, str or None
            A move from :meth:`legal_moves` for this position (the pass of
            :meth:`tawla.Bot.choose` included), notation (then ``dice`` is required), or None
            for a pass (then ``dice`` is required; legal only when no move is).
        dice : (int, int), optional

        Raises
        ------
        tawla.errors.IllegalMove
            The move is not legal here.
        """
        if native.is_over(self._row, self._ruleset):
            raise InvalidAction("the game is over: no move can be played")
        if move is None:  # a pass, as Bot.choose and legal_moves() == [] say it
            if dice is None:
                raise InvalidDice("playing a pass (None) needs the dice")
            move = Move.passing(self._row, check_dice(dice), self._ruleset)
        if isinstance(move, str):
            if dice is None:
                raise InvalidDice("playing move text needs the dice")
            move = parse_move(move, self, dice)
        if not isinstance(move, Move):
            raise IllegalMove(f"play() takes a Move or move text, not {type(move).__name__}", text=quote(move, 80))
        if move.source != self._row or move.ruleset != self._ruleset:
            raise IllegalMove(f"move {move} was not generated for this position", text=str(move))
        row, ruleset, last = _last_generated
        if ruleset is self._ruleset and row == self._row and any(m is move for m in last):
            return Position(native.flip_row(move.after, self._ruleset), self._ruleset)
        legal = self.legal_moves(move.dice)
        if move.steps or legal:  # a pass is legal only when no move is
            if not any(m.after == move.after for m in legal):
                raise IllegalMove(f"move {move} is not legal here", text=str(move), legal=legal)
        elif move.after != self._row:
            raise IllegalMove("a pass must leave the board as it is", text=str(move))
        return Position(native.flip_row(move.after, self._ruleset), self._ruleset)

    def result(self, cube: int = 1) -> GameResult | None:
        """The result if the game is over, else None (RULES.md §1.7, §1.8, §2.2, §4.4, §5.6).

        Parameters
        ----------
        cube : int
            Cube value (backgammon only; points are cube x 1/2/3).

        Returns
        -------
        GameResult or None
        """
        if (isinstance(cube, bool) or not isinstance(cube, (int, np.integer)) or cube < 1
                or cube & (cube - 1)):
            raise InvalidAction(f"the cube value is a power of two >= 1, not {quote(cube)}")
        return native.game_result(self._row, self._ruleset, int(cube))

    def is_frozen(self) -> bool:
        """§1.7: neither side has a legal single step with any die value (no-hit games)."""
        return native.is_frozen(self._row, self._ruleset)

    # --- dunder ---------------------------------------------------------------------
    def __eq__(self, other: object) -> bool:
        return isinstance(other, Position) and self._row == other._row and self._ruleset == other._ruleset

    def __hash__(self) -> int:
        h = self._hash
        if h is None:
            h = hash((self._row, self._ruleset))
            object.__setattr__(self, "_hash", h)
        return h

    def __repr__(self) -> str:
        return f"Position.from_id({self.id()!r})"  # the ID names the ruleset and its options

    def __str__(self) -> str:
        return _diagram(self)


_new_object = object.__new__
_slots = Position.__dict__  # the slot descriptors (the annotations above name their types)
_set_row, _set_ruleset, _set_hash = _slots["_row"].__set__, _slots["_ruleset"].__set__, _slots["_hash"].__set__


def position_of(row: bytes, ruleset: Ruleset) -> Position:
    """``Position(row, ruleset)`` for a row known valid, its slots set directly (the match
    engine builds one per turn)."""
    pos = _new_object(Position)
    _set_row(pos, row)
    _set_ruleset(pos, ruleset)
    _set_hash(pos, None)
    return pos


def _board_ruleset(ruleset, what: str) -> Ruleset:
    """The ruleset for a backgammon-board format (gnubg IDs, XGIDs): a hitting game."""
    r = get_ruleset(ruleset)
    if not r.has_bar:
        raise UnsupportedRuleset(f"{what} describe backgammon boards (backgammon, adi), not {r.name}")
    return r


# --- the ID ----------------------------------------------------------------------------------
def _pack_id(row: bytes, ruleset: int) -> bytes:
    """30 bytes: the 52 count bytes as 4-bit nibbles, the 3 pin bytes, the ruleset's byte."""
    nib = bytearray(26)
    for i in range(0, 52, 2):
        nib[i // 2] = (row[i] & 0xF) | (row[i + 1] & 0xF) << 4
    return bytes(nib) + row[PIN:RESERVED] + bytes((ruleset,))


def _unpack_id(raw: bytes, text: str, r: Ruleset) -> bytes:
    row = bytearray(PACKED_WIDTH)
    for i in range(26):
        row[2 * i], row[2 * i + 1] = raw[i] & 0xF, raw[i] >> 4
    row[PIN:RESERVED] = raw[26:29]
    packed = bytes(row)
    validate_row(packed, r)
    return packed


def positions_to_array(positions: Iterable[Position]) -> np.ndarray:
    """Stack positions into ``uint8[N, PACKED_WIDTH]``.

    Raises
    ------
    tawla.errors.InvalidPosition
        An item that is not a :class:`Position`.
    """
    rows = []
    if isinstance(positions, (str, bytes, np.ndarray)) or not hasattr(positions, "__iter__"):
        raise InvalidPosition(f"expected an iterable of Position objects, not {type(positions).__name__}")
    for p in positions:
        if not isinstance(p, Position):
            raise InvalidPosition(f"expected Position objects, got {type(p).__name__}")
        rows.append(p.row)
    if not rows:
        return np.zeros((0, PACKED_WIDTH), dtype=np.uint8)
    return np.frombuffer(b"".join(rows), dtype=np.uint8).reshape(len(rows), PACKED_WIDTH).copy()


def array_to_positions(array: np.ndarray, ruleset: RulesetLike) -> list[Position]:
    """``uint8[N, PACKED_WIDTH]`` -> list of validated :class:`Position`.

    Raises
    ------
    tawla.errors.InvalidId, tawla.errors.InvalidPosition
    """
    try:
        arr = np.asarray(array)
    except ValueError as e:  # ragged nested lists
        raise InvalidId(f"expected an array of shape (N, {PACKED_WIDTH}): {e}") from None
    if arr.ndim != 2 or arr.shape[1] != PACKED_WIDTH:
        raise InvalidId(f"expected shape (N, {PACKED_WIDTH}), got {arr.shape}")
    return [Position.from_array(row, ruleset) for row in arr]


def ids_to_array(ids: Iterable[str], ruleset: RulesetLike) -> np.ndarray:
    """Position IDs (:meth:`Position.id`) -> ``uint8[N, PACKED_WIDTH]``.

    Raises
    ------
    tawla.errors.InvalidId
        Not an iterable of IDs, or an ID that is not one of ``ruleset``.
    tawla.errors.InvalidArgument
        An ID that names another ruleset (:meth:`Position.from_id`).
    """
    if isinstance(ids, (str, bytes, np.ndarray)) or not hasattr(ids, "__iter__"):
        raise InvalidId(f"expected an iterable of position IDs, not {type(ids).__name__}")
    return positions_to_array(Position.from_id(t, ruleset) for t in ids)


def array_to_ids(array: np.ndarray, ruleset: RulesetLike) -> list[str]:
    """``uint8[N, PACKED_WIDTH]`` -> list of position IDs."""
    return [p.id() for p in array_to_positions(array, ruleset)]


# --- the ASCII diagram ------------------------------------------------------------------------
def _diagram(pos: Position) -> str:
    """An ASCII board from the on-roll player's seat: his points 13..24 on top, 12..1 below.

    ``X`` = on roll, ``O`` = opponent; a pin stack shows the pinner with a lower-case
    letter for the pinned checker beneath (``Ox``: O pins X).
    """
    row = pos.row
    pins = pinned_points(row)

    def cell(p):
        me, opp = row[p], row[OPP + p]
        if me and opp:
            return (f"{opp}O+x" if p in pins else f"{me}X+o").rjust(5)
        if me:
            return f"{me}X".rjust(5)
        if opp:
            return f"{opp}O".rjust(5)
        return "    .".rjust(5)

    top = list(range(13, 25))
    bottom = list(range(12, 0, -1))
    lines = [f"{pos.ruleset.name}: X on roll, O opponent (X's numbering)"]
    lines.append(" " + "".join(f"{p:5d}" for p in top[:6]) + " |" + "".join(f"{p:5d}" for p in top[6:]))
    lines.append(" " + "".join(cell(p) for p in top[:6]) + " |" + "".join(cell(p) for p in top[6:]))
    lines.append(" " + "".join(cell(p) for p in bottom[:6]) + " |" + "".join(cell(p) for p in bottom[6:]))
    lines.append(" " + "".join(f"{p:5d}" for p in bottom[:6]) + " |" + "".join(f"{p:5d}" for p in bottom[6:]))
    pips = pos.pip_count()
    lines.append(f" bar X {row[ME_BAR]} O {row[OPP_BAR]}   off X {row[ME_OFF]} O {row[OPP_OFF]}   pips X {pips[0]} O {pips[1]}")
    return "\n".join(lines)


register_position_type(Position)
