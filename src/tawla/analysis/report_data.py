"""What the analysis of a record gives: one :class:`Decision` per checker play, stored by
column in :class:`Plays`, one :class:`GameReport` per game and one :class:`MatchReport` per
file."""

from __future__ import annotations

import base64
import math
import struct
from array import array
from collections.abc import Sequence
from dataclasses import dataclass, field

from ..rules import get_ruleset, ruleset_byte
from .ids import decision_ids

__all__ = ["Decision", "Plays", "GameReport", "MatchReport"]


@dataclass
class Decision:
    """One checker play of a record.

    Attributes
    ----------
    game, move_number, line : int
        Game number, ``NN)`` number and file line of the play (None where the record has none).
    player : int
        0 = player 1 (left column), 1 = player 2.
    dice : (int, int)
    text : str
        The play as written.
    move : str
        The matched legal move in GNU Backgammon notation ("" for a pass).
    forced : bool
        At most one legal move existed.
    legal : int
        Number of legal moves (distinct resulting positions).
    pips : (int, int)
        Pip counts (mover, opponent) before the play.
    rank : int
        1 = the evaluator's best move.
    equity_loss : float
        Cubeless equity of the best move minus that of the played one (points, >= 0); in a
        match, the same of the normalised equity at the score (EMG: a single game's win +1
        at the cube's value, gnubg's ``mwc2eq``).
    best : str
        The evaluator's best move.
    mwc_loss : float or None
        In a match: the match-winning chance the play lost against the best (0..1), None
        elsewhere.
    """

    game: int
    move_number: int | None
    line: int | None
    player: int
    dice: tuple
    text: str
    move: str
    forced: bool
    legal: int
    pips: tuple
    rank: int = 1
    equity_loss: float = 0.0
    best: str = ""
    mwc_loss: float | None = None


class _Texts:
    """Many short strings in one buffer: UTF-8 bytes and their end offsets (5 bytes + text each)."""

    __slots__ = ("_data", "_ends")

    def __init__(self):
        self._data = bytearray()
        self._ends = array("I")

    def append(self, text: str) -> None:
        self._data += text.encode()
        self._ends.append(len(self._data))

    def __getitem__(self, i: int) -> str:
        start = self._ends[i - 1] if i else 0
        return self._data[start:self._ends[i]].decode()


_NONE = -1  # move number or line absent
_SMALL = struct.Struct("<BBBBHH")  # player, die 1, die 2, flags, pips of the mover, of the opponent
_SAME = 1  # flag: the matched move's notation is the text as written
_BOARD = 2  # flag: the board before the play is stored
_CUBE_SHIFT, _OWNER_SHIFT = 2, 6  # flag bits 2..5: log2 of the cube; bits 6..7: its owner (0 centred, 1 + player)
MAX_CUBE = 1 << 15
"""The largest cube a replayed game holds (its log2 is stored in 4 bits, as in a gnubg
match ID); a record that takes the cube past it is refused."""
_BOARD_BYTES = 29  # a packed row as in Position.id(): 26 bytes of 4-bit checker counts, 3 pin bytes


def _pack_board(row: bytes) -> bytes:
    """The first 29 bytes of :meth:`tawla.Position.id`'s 30 (its last byte names the ruleset)."""
    lo = int.from_bytes(row[0:52:2], "little")  # every count is at most 15: one nibble each
    hi = int.from_bytes(row[1:52:2], "little")
    return (lo | hi << 4).to_bytes(26, "little") + bytes(row[52:55])


class Plays(Sequence):
    """The checker plays of one game, stored by column (about 60 bytes and the text a play).

    A sequence of :class:`Decision`: ``plays[i]`` builds the Decision of the i-th play; the
    column methods (:meth:`count_forced`, :meth:`loss_total`, ...) read the columns without
    building one. A game of any length costs memory in proportion to its plays; the matched
    move's notation is stored only where it differs from the text as written, and the
    ranking columns only once a play has been ranked. The board before each play (29 bytes)
    and the cube (in the flags byte) are stored for the position IDs (:meth:`tawla_id`,
    :meth:`cube`).

    Parameters
    ----------
    game : int
        The game number every play belongs to.
    """

    __slots__ = ("game", "_numbers", "_lines", "_small", "_legal", "_text", "_move", "_rank", "_loss",
                 "_best", "_boards", "_mwc")

    def __init__(self, game: int):
        self.game = game
        self._numbers = array("i")  # NN) number
        self._lines = array("i")  # file line
        self._small = bytearray()  # per play: _SMALL
        self._legal = array("I")  # number of legal moves
        self._text, self._move = _Texts(), _Texts()
        # the ranking columns, made by the first ranked play
        self._rank: array[int] | None = None
        self._loss: array[float] | None = None
        self._best: _Texts | None = None
        self._boards = bytearray()  # per play: _BOARD_BYTES (zeros where no board was given)
        self._mwc: array[float] | None = None  # the MWC lost, made by the first play with one (NaN: none)

    def append(self, d: Decision, row: bytes | None = None, cube: int = 1, owner: int | None = None) -> None:
        """Store one play (``d.game`` is not stored: it is :attr:`game`).

        Parameters
        ----------
        d : Decision
        row : bytes, optional
            The packed row of the position before the play, seen from the player on roll.
        cube, owner : int, int or None
            The cube's value and owner (None: centred) when the play is made.
        """
        same = d.move == d.text
        flags = (_SAME if same else 0) | (_BOARD if row is not None else 0)
        flags |= (cube.bit_length() - 1) << _CUBE_SHIFT | (0 if owner is None else 1 + owner) << _OWNER_SHIFT
        self._numbers.append(_NONE if d.move_number is None else d.move_number)
        self._lines.append(_NONE if d.line is None else d.line)
        self._small += _SMALL.pack(d.player, d.dice[0], d.dice[1], flags, d.pips[0], d.pips[1])
        self._boards += _pack_board(row) if row is not None else bytes(_BOARD_BYTES)
        self._legal.append(d.legal)
        self._text.append(d.text)
        self._move.append("" if same else d.move)
        if self._rank is None and (d.rank != 1 or d.equity_loss != 0.0 or d.best):
            n = len(self._legal) - 1  # the plays before this one: rank 1, no loss
            self._rank, self._loss, self._best = array("I", [1] * n), array("d", [0.0] * n), _Texts()
            for _ in range(n):
                self._best.append("")
        if self._rank is not None and self._loss is not None and self._best is not None:  # made together
            self._rank.append(d.rank)
            self._loss.append(d.equity_loss)
            self._best.append(d.best)
        if self._mwc is None and d.mwc_loss is not None:
            self._mwc = array("d", [math.nan] * (len(self._legal) - 1))
        if self._mwc is not None:
            self._mwc.append(math.nan if d.mwc_loss is None else d.mwc_loss)

    def __len__(self) -> int:
        return len(self._legal)

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(len(self)))]
        n = len(self)
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError("play index out of range")
        player, d1, d2, flags, pips0, pips1 = _SMALL.unpack_from(self._small, _SMALL.size * i)
        number, line, text = self._numbers[i], self._lines[i], self._text[i]
        ranked = self._rank is not None
        return Decision(self.game, None if number == _NONE else number, None if line == _NONE else line,
                        player, (d1, d2), text, text if flags & _SAME else self._move[i], self._legal[i] <= 1,
                        self._legal[i], (pips0, pips1), self._rank[i] if ranked else 1,
                        self._loss[i] if ranked else 0.0, self._best[i] if ranked else "", self._mwc_of(i))

    def __iter__(self):
        return (self[i] for i in range(len(self)))

    def __eq__(self, other):
        return isinstance(other, Plays) and self.game == other.game and list(self) == list(other)

    def __repr__(self):
        return f"<Plays of game {self.game}: {len(self)} plays>"

    # --- column reads -------------------------------------------------------------------
    def player(self, i: int) -> int:
        """The player of the i-th play (0 or 1)."""
        return self._small[_SMALL.size * i]

    def _flags(self, i: int) -> int:
        return self._small[_SMALL.size * i + 3]

    def tawla_id(self, i: int, ruleset) -> str | None:
        """The :meth:`tawla.Position.id` of the position before the i-th play (from the side on
        roll) on ``ruleset`` (a Ruleset or its name), or None where the play was stored without
        its board."""
        if not self._flags(i) & _BOARD:
            return None
        start = _BOARD_BYTES * i
        tail = bytes((ruleset_byte(get_ruleset(ruleset)),))
        return base64.urlsafe_b64encode(bytes(self._boards[start:start + _BOARD_BYTES]) + tail).decode()

    def cube(self, i: int) -> tuple:
        """(value, owner) of the cube at the i-th play; owner None = centred."""
        flags = self._flags(i)
        owner = flags >> _OWNER_SHIFT & 3
        return 1 << (flags >> _CUBE_SHIFT & 15), None if owner == 0 else owner - 1

    def _rank_of(self, i: int) -> int:
        return self._rank[i] if self._rank is not None else 1

    def _loss_of(self, i: int) -> float:
        return self._loss[i] if self._loss is not None else 0.0

    def _mwc_of(self, i: int) -> float | None:
        x = self._mwc[i] if self._mwc is not None else math.nan
        return None if math.isnan(x) else x

    def _mwc_losses(self, player: int | None, unforced: bool) -> list[float]:
        if self._mwc is None:
            return []
        return [x for i, x in enumerate(self._mwc) if not math.isnan(x)
                and (player is None or self.player(i) == player) and not (unforced and self._legal[i] <= 1)]

    def mwc_loss_total(self, player: int | None = None, unforced: bool = False) -> float | None:
        """Sum of the match-winning chances lost by one player's plays (or both players'),
        None where no play was valued at a match score."""
        return None if self._mwc is None else sum(self._mwc_losses(player, unforced))

    def count_mwc(self, player: int | None = None, unforced: bool = False) -> int:
        """The plays (of one player, or both) valued at a match score: what
        :meth:`mwc_loss_total` sums over."""
        return len(self._mwc_losses(player, unforced))

    def count_forced(self, player: int | None = None) -> int:
        """Plays with at most one legal move (of one player, or of both)."""
        return sum(1 for i, n in enumerate(self._legal) if n <= 1 and (player is None or self.player(i) == player))

    def count(self, player: int | None = None) -> int:
        """Plays of one player, or of both."""
        if player is None:
            return len(self)
        return sum(1 for i in range(len(self)) if self.player(i) == player)

    @property
    def ranked(self) -> bool:
        """Whether an evaluator ranked any of these plays (a rank, a loss or a best move)."""
        return self._rank is not None

    def count_best(self, player: int) -> int:
        """Unforced plays of one player that the evaluator ranks first."""
        return sum(1 for i, n in enumerate(self._legal) if n > 1 and self.player(i) == player and self._rank_of(i) == 1)

    def loss_total(self, player: int | None = None, unforced: bool = False) -> float:
        """Sum of the equity losses (points) of one player's plays (or both players')."""
        if self._loss is None:
            return 0.0
        return sum(x for i, x in enumerate(self._loss)
                   if (player is None or self.player(i) == player) and not (unforced and self._legal[i] <= 1))

    def worst_indices(self, k: int) -> list:
        """The indices of the k unforced plays with the largest equity loss, largest first (ties:
        file order)."""
        return sorted((i for i, n in enumerate(self._legal) if n > 1), key=lambda i: -self._loss_of(i))[:k]

    def worst(self, k: int) -> list:
        """The k unforced plays with the largest equity loss, largest first (ties: file order)."""
        return [self[i] for i in self.worst_indices(k)]


@dataclass
class GameReport:
    """The replay of one game: its decisions, cube actions, result and notes.

    Attributes
    ----------
    number : int
    score : (int, int)
        The score before the game (player 1, player 2) as recorded.
    crawford : bool
        The Crawford game of a match (no doubling).
    decisions : Plays
        The checker plays, in order (a sequence of :class:`Decision`).
    cube_actions : int
    cube_value : int
        The cube at the end of the game.
    winner, points : int or None
        As recorded by the ``Wins`` line.
    expected_points : int or None
        What the rules give for the final position (or the drop).
    ending : str
        ``"single"``, ``"gammon"``, ``"backgammon"``, ``"mars"``, ..., ``"drop"``,
        ``"resign"``, ``"draw"`` or ``"unfinished"``.
    notes : list of str
        Remarks that do not make the record bad (a capped score, a roll-then-resign, a hit
        the record leaves open).
    error, error_move, error_line
        The first illegal or unreadable play, where the replay of the game stopped.
    hits_written, hits_unwritten : int
        Over the plays with one reading: hit points marked with ``*`` and hit points not
        marked (the record's habit, see :func:`tawla.analysis.replay.analyze_record`).
    unsettled : list of str
        Plays whose text fits a hitting and a non-hitting move with nothing in the game to
        choose (read without the hit); they become notes unless the file marks all its hits.
    cube_decisions : list of dict
        One per double, take and drop of the record, in order: ``kind`` (``"double"``,
        ``"take"``, ``"drop"``), ``player`` (who acts), ``move_number``, ``line``, ``board``
        (the tawla ID of the position before the doubler's roll, from the doubler's seat; None
        when the record doubles before any roll), ``cube`` and ``owner`` (before the double;
        owner None = centred). In an analysed money session (see ``cube_counts``) each
        analysed entry also carries the cube model's ``proper`` decision, its equities
        ``no_double``, ``double_take`` and ``double_pass`` (points per unit of the cube before
        the double, from the doubler's seat) and ``error`` (points per unit of cube lost by the
        player who acts, >= 0).
    cube_errors : list of dict
        The cube errors of an analysed money session or match (:mod:`tawla.analysis.cube`), in order:
        ``kind`` (``"missed_double"``, ``"wrong_double"``, ``"wrong_take"``, ``"wrong_drop"``),
        ``player`` (who erred), ``move_number``, ``line``, ``cube`` and ``owner`` (before the
        decision), ``board`` (tawla ID before the roll, from the seat of the player on roll),
        ``position_id``, ``match_id`` and ``xgid`` (backgammon; for a take or drop with the
        double offered), ``proper``, ``no_double``,
        ``double_take``, ``double_pass`` (as above), ``error`` (points per unit of cube, at least
        :data:`tawla.analysis.cube.MIN_ERROR`),
        ``error_memg`` (the same x 1000) and ``points`` (``error`` x the cube).
    cube_judged : list of dict
        Every cube decision judged, in order (where no double was right too): as
        ``cube_errors`` with ``kind`` the action taken (``"no_double"``, ``"double"``,
        ``"take"``, ``"drop"``) and ``error`` 0 when it was right; in a match also the
        equities as match-winning chances (``*_mwc``) and ``error_mwc``.
    cube_counts : dict or None
        ``{"decisions": [n1, n2], "close": [c1, c2]}``: the cube decisions of each record
        player (turns where he could double, answers to doubles) and the close ones; None
        when the cube decisions were not analysed (no evaluator, no cube, the Crawford game).
    """

    number: int
    score: tuple = (0, 0)
    crawford: bool = False
    decisions: Plays = None  # type: ignore[assignment]  # None: __post_init__ makes an empty Plays
    cube_actions: int = 0
    cube_value: int = 1
    winner: int | None = None
    points: int | None = None
    expected_points: int | None = None
    ending: str = ""
    notes: list = field(default_factory=list)
    error: str | None = None
    error_move: int | None = None
    error_line: int | None = None
    hits_written: int = 0
    hits_unwritten: int = 0
    unsettled: list = field(default_factory=list)
    cube_decisions: list = field(default_factory=list)
    cube_errors: list = field(default_factory=list)
    cube_judged: list = field(default_factory=list)
    cube_counts: dict | None = None

    def __post_init__(self):
        if self.decisions is None:
            self.decisions = Plays(self.number)

    def ids(self, i: int, ruleset, match_length: int = 0, jacoby: bool = True) -> dict:
        """The position IDs of the i-th play (:func:`tawla.analysis.ids.decision_ids`)."""
        return decision_ids(self.decisions, i, ruleset, score=self.score, match_length=match_length,
                            crawford=self.crawford, jacoby=jacoby)

    def to_dict(self, ruleset=None, match_length: int = 0, jacoby: bool = True) -> dict:
        """The report as plain data (the decisions as a list of dicts).

        With a ruleset, each decision also carries the IDs of the position before it
        (:meth:`ids`: ``position_id``, ``match_id`` and ``xgid``, or ``tawla_id``).
        """
        d = {k: getattr(self, k) for k in self.__dataclass_fields__ if k != "decisions"}
        d["score"], d["notes"], d["unsettled"] = list(self.score), list(self.notes), list(self.unsettled)
        d["cube_decisions"] = [dict(c) for c in self.cube_decisions]
        d["cube_errors"] = [dict(c) for c in self.cube_errors]
        d["cube_judged"] = [dict(c) for c in self.cube_judged]
        d["cube_counts"] = None if self.cube_counts is None else {k: list(v) for k, v in self.cube_counts.items()}
        if ruleset is None:
            d["decisions"] = [vars(x) for x in self.decisions]
        else:
            r = get_ruleset(ruleset)
            d["decisions"] = [dict(vars(x), **self.ids(i, r, match_length, jacoby))
                              for i, x in enumerate(self.decisions)]
        return d


@dataclass
class MatchReport:
    """The analysis of one record file."""

    path: str
    ruleset: str = ""
    match_length: int = 0
    players: tuple = ("", "")
    headers: dict = field(default_factory=dict)
    games: list = field(default_factory=list)
    error: str | None = None
    defects: list = field(default_factory=list)
    rollouts: list = field(default_factory=list)  # tawla.analysis.rollouts.rollout_worst's entries
    json_text: str | None = field(default=None, compare=False, repr=False)
    """The report's match as JSON text when it was encoded where it was analysed
    (:func:`tawla.analysis.report.match_json`); None once the report changes after that."""
    text: tuple | None = field(default=None, compare=False, repr=False)
    """``(TextStyle, text)``: the file's part of the text report when it was rendered where it
    was analysed (:func:`tawla.analysis.report.match_text`); None once the report changes."""

    @property
    def ok(self) -> bool:
        """True when the file was read, has no corrupt lines, and every game replays."""
        return self.error is None and not self.defects and all(g.error is None for g in self.games)

    @property
    def jacoby(self) -> bool:
        """The Jacoby rule of the record's ``Jacoby`` header (default on; money sessions only)."""
        return str(self.headers.get("Jacoby", "On")).strip().lower() not in ("off", "0", "false", "no")

    @property
    def beaver(self) -> bool:
        """Whether the record's ``Beaver`` header allows beavers (default off, RULES.md §2.3)."""
        return str(self.headers.get("Beaver", "Off")).strip().lower() in ("on", "1", "true", "yes")

    def ids(self, game, i: int) -> dict:
        """The position IDs of the i-th play of one of :attr:`games` (:meth:`GameReport.ids`)."""
        return game.ids(i, get_ruleset(self.ruleset), self.match_length, self.jacoby)

    def player_name(self, player: int) -> str:
        """The name of player 0 or 1, ``"player 1"`` / ``"player 2"`` when the record has none."""
        return self.players[player] or f"player {player + 1}"

    def decisions(self, player=None):
        """The plays of one player (or both), as a list of :class:`Decision`."""
        return [d for g in self.games for d in g.decisions if player is None or d.player == player]

    def to_dict(self) -> dict:
        """The report as plain data, with ``ok``."""
        return {"path": self.path, "ruleset": self.ruleset, "match_length": self.match_length,
                "players": list(self.players), "headers": dict(self.headers),
                "games": [g.to_dict(self.ruleset or None, self.match_length, self.jacoby) for g in self.games],
                "error": self.error,
                "defects": list(self.defects), "ok": self.ok, "rollouts": list(self.rollouts)}
