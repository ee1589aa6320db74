"""A room: its options (checked against the house), seats, spectators, the match it plays,
and the state a client sees.

A room is made by its host (seat 0) with the host's options; the match starts when a player
joins (seat 1) or the host adds a bot. Statuses: ``waiting`` (for seat 1), ``playing``,
``over`` (the match ended; a rematch starts another), ``closed`` (the host left before the
match started).
"""

from __future__ import annotations

import asyncio
import json
import secrets
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from ..errors import ConfigError, FormatError, quote
from ..match import FairDice, HouseRules, Match, get_house
from .status import RoomStatus
from .views import legal_views, position_view, public_match

__all__ = ["Member", "Room", "room_options", "house_of", "new_code", "new_token"]

SNAPSHOT_EVERY = 200
"""Events of a match between two snapshots of its state (:meth:`Room.snapshot_due`)."""

MIN_TURN_SECONDS = 1
"""The shortest turn time a host may choose (seconds), at a house that takes any."""

_CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"


def new_code() -> str:
    """A random room code: 6 letters and digits (no 0/O, 1/I)."""
    return "".join(secrets.choice(_CODE_ALPHABET) for _ in range(6))


def new_token() -> str:
    """A random bearer token (32 bytes, URL-safe base64)."""
    return secrets.token_urlsafe(32)


def house_of(options: dict[str, Any]) -> HouseRules:
    """The house profile of a room: the house with the host's turn time, stake and grace period.

    Raises
    ------
    tawla.errors.ConfigError
        An unknown house, a turn time outside the house's choices, a stake at a house
        without coin tables (no table fee), a grace period that is not a positive number.
    """
    overrides: dict[str, Any] = {}
    if "turn_seconds" in options:
        overrides["turn_time"] = options["turn_seconds"]
    base = get_house(options["house"])
    stake = options.get("stake") or 0
    if stake:
        if base.fee_percent <= 0:
            raise ConfigError(f"the {base.name} house has no coin tables: no stake")
        overrides["stake"] = stake
        if options.get("grace_seconds") is not None:
            overrides["grace_period"] = options["grace_seconds"]
    elif options.get("grace_seconds") is not None:
        raise ConfigError("a grace period is an option of coin tables (a stake)")
    return get_house(base, **overrides) if overrides else base


def room_options(ruleset: str, house: str, length: int | None, turn_seconds: Any, public: bool,
                 stake: int, grace_seconds: float | None, turn_given: bool,
                 grace_floor: Callable[[str], float] = lambda house: 0.0, rated: bool = False) -> dict[str, Any]:
    """The host's options, checked: ``{"ruleset", "house", "length", "public", "stake", "rated",
    ["turn_seconds"], ["grace_seconds"]}`` (``turn_seconds`` only when the host chose one:
    None is unlimited; without it the house's default holds; ``rated``: the match's result
    changes the players' ratings, :mod:`~tawla.service.rating_tables`).

    Raises
    ------
    tawla.errors.ConfigError
        A length, turn time, stake or grace period the house does not allow, a turn time
        under :data:`MIN_TURN_SECONDS`, a coin table's grace period (given, or the
        house's) under ``grace_floor(house)`` seconds, or a rated money session (a rated room
        plays a match).
    tawla.errors.UnsupportedRuleset
        A ruleset the house does not offer.
    """
    if isinstance(stake, bool) or not isinstance(stake, int) or stake < 0:
        raise ConfigError(f"a stake is a whole number of coins >= 0, not {quote(stake)}")
    if (turn_given and isinstance(turn_seconds, (int, float)) and not isinstance(turn_seconds, bool)
            and turn_seconds < MIN_TURN_SECONDS):
        raise ConfigError(f"a turn lasts at least {MIN_TURN_SECONDS} s, not {quote(turn_seconds)}")
    opts: dict[str, Any] = {"house": house, "public": bool(public), "stake": stake, "rated": bool(rated)}
    if turn_given:
        opts["turn_seconds"] = turn_seconds
    if grace_seconds is not None:
        opts["grace_seconds"] = grace_seconds
    h = house_of(opts)
    name = h.name if h.name in ("federation", "saharat", "international") else house
    if stake and h.grace_period is not None and h.grace_period < grace_floor(name):
        raise ConfigError(f"a coin table of the {name} house gives at least {grace_floor(name):g} s to "
                          f"come back after a disconnect, not {quote(h.grace_period)}")
    r = h.ruleset(ruleset)
    opts["house"] = name
    opts["ruleset"] = r.name
    n = h.check_length(r.name, length)
    if n == 0 and h.coin_table:
        raise ConfigError("a coin table plays a match (one payment at the end), not a money session")
    if n == 0 and rated:
        raise ConfigError("a rated room plays a match (one result to rate), not a money session")
    opts["length"] = n
    return opts


class RoomLock:
    """A room's lock: an :class:`asyncio.Lock` of the process and, when the service runs on
    several processes, the lock they share (``guard``: its ``enter(room)`` takes the shared
    lock and reads the room again when another process changed it; ``exit(room)`` lets it go)."""

    def __init__(self, room: "Room") -> None:
        self.room = room
        self.local = asyncio.Lock()
        self.guard: Any = None

    async def __aenter__(self) -> None:
        await self.local.acquire()
        if self.guard is not None:
            try:
                await self.guard.enter(self.room)
            except BaseException:
                self.local.release()
                raise

    async def __aexit__(self, *exc: Any) -> None:
        try:
            if self.guard is not None:
                await self.guard.exit(self.room, failed=exc[0] is not None)
        finally:
            self.local.release()

    def locked(self) -> bool:
        """Whether the process holds the lock."""
        return self.local.locked()


@dataclass
class Member:
    """A seat (0 or 1), or a spectator (``seat`` None) of a room."""

    room: str
    seat: int | None
    name: str
    token: str | None  # sha256 hex of the bearer token; None for a bot
    account: int | None = None
    bot: str | None = None


@dataclass
class Room:
    """A room in memory: its options, members, match and the tasks that serve it."""

    code: str
    options: dict[str, Any]
    status: RoomStatus = RoomStatus.WAITING
    match: Match | None = None
    match_json: str | None = None  # the match's document as written at its start (rooms.match)
    saved_events: int = 0  # events of the match in the database: the document's and the rows after it
    match_no: int = 0
    escrow: int = 0
    rematch: set = field(default_factory=set)
    members: list = field(default_factory=list)
    version: int = 0
    lock: "RoomLock" = field(init=False, repr=False)
    timer: asyncio.Task | None = None
    bot_task: asyncio.Task | None = None
    sockets: dict = field(default_factory=dict)  # socket's queue -> seat (None: spectator)
    idle_timeouts: int = 0  # timeouts in a row that played for an absent human seat
    quiet_since: float | None = None  # monotonic time the room was last left with no socket, once over
    _public: tuple | None = None  # (version, public match JSON)
    sent_events: tuple = (0, 0)  # (match_no, events sent to the sockets)
    _views: dict = field(default_factory=dict)  # (seat, with_match) -> (version, connected, state)
    next_dice: FairDice = field(default_factory=FairDice)  # the next match's dice (secret seed)
    ratings: list | None = None  # each seat's rating change once a rated match is over
    stored_version: int | None = None  # the version in the database as last read or written here
    snapshot_n: int = 0  # the match's events when its last snapshot (or its document) was written
    remote_seats: frozenset = frozenset()  # seats with a socket open on another process (as of the last lock)

    def __post_init__(self) -> None:
        self.lock = RoomLock(self)

    def presence(self) -> frozenset:
        """The seats (None: spectators) with a socket open here or, several processes
        serving the room, on another process."""
        return frozenset(self.sockets.values()) | self.remote_seats

    def connected(self, seat: int | None) -> bool:
        """Whether ``seat`` has a socket open, on this process or another."""
        return seat in self.sockets.values() or seat in self.remote_seats

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> "Room":
        """A room as :meth:`tawla.service.store.Store.load` gives it: its columns, members,
        the events after its match's document and its rating changes; its version goes on from
        the one written (a database written before the column: from at least the number of
        changes made before).

        Raises
        ------
        tawla.errors.FormatError
            A stored match that does not replay, next dice that do not read, an unknown status.
        """
        try:
            status = RoomStatus(row["status"])
        except ValueError:
            raise FormatError(f"unknown room status {quote(row['status'])}") from None
        room = cls(code=row["code"], options=json.loads(row["options"]), status=status, match_no=row["match_no"],
                   escrow=row["escrow"], rematch=set(json.loads(row["rematch"])), ratings=row.get("ratings"))
        if row.get("dice"):  # a database written before the column draws new dice
            try:
                room.next_dice = FairDice.from_json(json.loads(row["dice"]))
            except ValueError as e:
                raise FormatError(f"the room's next dice do not read: {e}") from None
        for m in row["members"]:
            room.members.append(Member(room.code, m["seat"], m["name"], m["token"], m["account"], m["bot"]))
        if row["match"] is not None:
            try:
                snapshot = json.loads(row["snapshot"]) if row.get("snapshot") else None
            except ValueError:  # an unreadable snapshot: the whole log is replayed
                snapshot = None
            room.restore(row["match"], row["events"], snapshot)
        stored = row.get("version")
        room.version = stored if stored is not None else (room.match.event_count if room.match is not None else 0)
        room.stored_version = stored
        return room

    def catch_up(self, row: dict[str, Any]) -> bool:
        """Follow what another process wrote, cheaply: ``row`` is the room as
        :meth:`tawla.service.store.Store.load_room` gives it with the events from
        :attr:`saved_events` on; when it plays the same match, the events are applied to this
        match (:meth:`tawla.Match.catch_up`) and the other columns taken. False when it cannot
        be followed so (another match, or events that do not apply): read the room whole then.
        """
        m = self.match
        if m is None or row["match_no"] != self.match_no or row["match"] != self.match_json:
            return False
        other = Room.from_row({**row, "match": None})
        try:
            m.catch_up([json.loads(e) for e in row["events"]])
        except FormatError:
            return False
        self.take_from(other, keep_match=True)
        self.saved_events = m.event_count
        return True

    def take_from(self, other: "Room", *, keep_match: bool = False) -> None:
        """Become ``other`` (the same room read again from the database), keeping this
        object's lock, sockets and tasks (with ``keep_match``, its match too); the cached
        views are dropped."""
        names: tuple[str, ...] = ("options", "status", "match_no", "escrow", "rematch", "members", "next_dice",
                                  "ratings")
        if not keep_match:
            names += ("match", "match_json", "saved_events", "snapshot_n")
        for name in names:
            setattr(self, name, getattr(other, name))
        self.stored_version = other.version
        self.version = max(other.version, self.version + 1)  # a room's version only grows
        self.__dict__.pop("_house", None)
        self._public = None
        self._views = {}

    @property
    def rated(self) -> bool:
        """Whether the room's matches are rated."""
        return bool(self.options.get("rated"))

    @property
    def house(self) -> HouseRules:
        """The room's house profile (:func:`house_of`; the options never change)."""
        h = self.__dict__.get("_house")
        if h is None:
            h = self.__dict__["_house"] = house_of(self.options)
        return h

    @property
    def stake(self) -> int:
        """Coins each player puts in (0: not a coin table)."""
        return int(self.options.get("stake") or 0)

    def seat(self, n: int) -> Member | None:
        """The member in seat ``n``, or None."""
        return next((m for m in self.members if m.seat == n), None)

    def bot_seat(self) -> int | None:
        """The seat a bot plays, or None."""
        return next((m.seat for m in self.members if m.bot is not None), None)

    def set_client_seed(self, seat: int, text: str) -> None:
        """Seat ``seat``'s client seed for the next match's dice (:attr:`next_dice`, replaced
        by a new object: a noted room keeps the old one).

        Raises
        ------
        tawla.errors.InvalidAction
            A seed that is not printable text of at most 64 characters.
        """
        dice = FairDice(self.next_dice.seed, self.next_dice.client_seeds)
        dice.set_client_seed(seat, text)
        self.next_dice = dice

    def start_match(self) -> Match:
        """A new match between the two seats on provably fair dice (:attr:`next_dice`, whose
        commitment was public before the match, with the players' client seeds; the seed is
        public once the match is over; a new :attr:`next_dice` is drawn for the next match),
        on the wall clock (seconds since the epoch, so that deadlines outlive the process).

        Raises
        ------
        tawla.errors.ConfigError
            Options the house no longer allows (as for :class:`tawla.Match`).
        """
        o = self.options
        names = (self.seat(0).name, self.seat(1).name)  # type: ignore[union-attr]
        dice = FairDice(self.next_dice.seed, self.next_dice.client_seeds)  # a noted room keeps next_dice unrolled
        self.match = Match(o["ruleset"], self.house, o["length"], names, rng=dice, clock=time.time)
        self.next_dice = FairDice()
        self.ratings = None
        self.match_json = self.match.to_json()
        self.saved_events = self.match.event_count
        self.match_no += 1
        self.snapshot_n = self.saved_events
        self.rematch = set()
        self.status = RoomStatus.PLAYING
        return self.match

    def restore(self, text: str, events: Sequence[str] = (), snapshot: dict | None = None) -> None:
        """Rebuild the match from its document as written at its start and the JSON texts of
        the events written after it: from ``snapshot`` (:meth:`tawla.Match.snapshot`) and the
        events after it when there is one, else by replaying the whole log (the engine replays
        it exactly; a snapshot that does not resume falls back to that); without events the
        document's state is checked against its log too (:meth:`tawla.Match.from_json`).

        Raises
        ------
        tawla.errors.FormatError
            A record that does not replay.
        """
        if events:
            doc = json.loads(text)
            if not isinstance(doc, dict) or not isinstance(doc.get("events"), list):
                raise FormatError("a stored match is a tawla-match document")
            log = doc["events"] + [json.loads(e) for e in events]
            self.match = None
            if snapshot is not None:
                try:
                    self.match = Match.resume(doc, log, snapshot, clock=time.time)
                    self.snapshot_n = snapshot["n"]
                except FormatError:
                    self.match = None
            if self.match is None:
                self.match = Match.replay({**doc, "events": log}, clock=time.time)
                self.snapshot_n = len(doc["events"])
        else:
            self.match = Match.from_json(text, clock=time.time)
            self.snapshot_n = self.match.event_count
        self.match_json = text
        self.saved_events = self.match.event_count

    def snapshot_due(self) -> str | None:
        """The JSON of the match's snapshot to write with its next events, when
        :data:`SNAPSHOT_EVERY` events have been made since the last one; else None."""
        m = self.match
        if m is None or m.event_count - self.snapshot_n < SNAPSHOT_EVERY:
            return None
        return json.dumps(m.snapshot(), separators=(",", ":"))

    def rebuild(self) -> None:
        """The match as written: its document and the events written after it (used when a
        write failed, so that memory never runs ahead of the database)."""
        m = self.match
        if m is None or self.match_json is None:
            return
        start = json.loads(self.match_json)
        doc = {**start, "events": start["events"] + m.events_since(len(start["events"]))[
            : self.saved_events - len(start["events"])]}
        self.match = Match.replay(doc, clock=time.time)

    def unsaved_events(self) -> list[tuple[int, int, str]]:
        """``(match_no, seq, event JSON)`` of the match's events not yet written."""
        m = self.match
        if m is None:
            return []
        new = m.events_since(self.saved_events)
        return [(self.match_no, self.saved_events + i, json.dumps(e, sort_keys=True, separators=(",", ":")))
                for i, e in enumerate(new)]

    def public_match(self) -> dict[str, Any] | None:
        """The engine's JSON without the random generator (cached per version)."""
        if self.match is None:
            return None
        if self._public is None or self._public[0] != self.version:
            self._public = (self.version, public_match(self.match.to_json()))
        return self._public[1]

    def state(self, viewer: Member | None, *, with_match: bool = True) -> dict[str, Any]:
        """The room's state as ``GET /v1/rooms/{code}`` gives it to ``viewer``.

        ``legal_moves`` and ``legal_steps`` are filled for the seat that must act now only.
        ``deadline`` is in seconds since the epoch (None: no timer). The dict is made once per
        version of the room and viewer's seat, and shared: callers do not change it.
        """
        key = (None if viewer is None else viewer.seat, with_match)
        connected = self.presence()
        hit = self._views.get(key)
        if hit is not None and hit[0] == self.version and hit[1] == connected:
            return hit[2]
        if with_match:
            out = {**self.state(viewer, with_match=False), "match": self.public_match()}
        else:
            out = self._state(viewer)
        self._views[key] = (self.version, connected, out)
        return out

    def state_json(self, viewer: Member | None, *, with_match: bool = True) -> bytes:
        """:meth:`state` as JSON text (UTF-8), encoded once per version and viewer's seat."""
        out = self.state(viewer, with_match=with_match)
        key = ("json", None if viewer is None else viewer.seat, with_match)
        hit = self._views.get(key)
        if hit is not None and hit[0] is out:
            return hit[1]
        text = json.dumps(out, separators=(",", ":"), allow_nan=False).encode()
        self._views[key] = (out, text)
        return text

    def _state(self, viewer: Member | None) -> dict[str, Any]:
        out = dict(self._common())
        out["you"] = None if viewer is None else viewer.seat
        m = self.match
        if m is not None and viewer is not None and viewer.seat is not None and viewer.seat == m.to_act:
            out["legal_moves"], out["legal_steps"] = legal_views(m)
        return out

    def _common(self) -> dict[str, Any]:
        """The part of :meth:`state` every viewer shares, made once per version and set of
        connected seats."""
        connected = self.presence()
        hit = self._views.get("common")
        if hit is not None and hit[0] == self.version and hit[1] == connected:
            return hit[2]
        m = self.match
        seats = []
        for n in (0, 1):
            s = self.seat(n)
            seats.append(None if s is None else {"seat": n, "name": s.name, "bot": s.bot,
                                                 "connected": s.bot is not None or n in connected})
        out: dict[str, Any] = {
            "code": self.code, "status": self.status, "options": dict(self.options), "seats": seats,
            "you": None, "spectators": sum(1 for x in self.members if x.seat is None),
            "match_no": self.match_no, "rematch": sorted(self.rematch), "version": self.version,
            "phase": "waiting" if m is None else m.phase, "turn": None, "to_act": None, "dice": None,
            "dice_left": [], "score": [0, 0], "length": self.options["length"],
            "cube": {"value": 1, "owner": None, "in_play": False}, "winner": None, "end_reason": None,
            "payout": None, "deadline": None, "position": None, "played_steps": [], "offer": None,
            "legal_moves": [], "legal_steps": [], "fair_dice": None, "ratings": self.ratings,
            "next_fair_dice": (self.next_dice.public() if self.status in (RoomStatus.WAITING, RoomStatus.OVER)
                               else None),
            "analysis": ({"html": f"/v1/rooms/{self.code}/analysis.html",
                          "json": f"/v1/rooms/{self.code}/analysis.json"}
                         if self.status == RoomStatus.OVER and m is not None else None),
        }
        if m is not None:
            out.update({
                "turn": m.turn, "to_act": m.to_act, "dice": list(m.dice) if m.dice is not None else None,
                "dice_left": list(m.dice_left), "score": list(m.score),
                "cube": {"value": m.cube_value, "owner": m.cube_owner, "in_play": bool(m.cube_in_play)},
                "winner": m.winner, "end_reason": m.end_reason, "payout": m.payout, "deadline": m.deadline,
                "position": position_view(m), "offer": m.offer, "fair_dice": m.fair_dice,
                "played_steps": [{"from": s.from_point, "to": s.to_point, "dice": list(s.dice), "hit": bool(s.hit)}
                                 for s in m.played_steps],
            })
        self._views["common"] = (self.version, connected, out)
        return out

    def row(self, *, with_match: bool = False, with_dice: bool = False) -> dict[str, Any]:
        """The room's columns for :meth:`tawla.service.store.Store.save_room`: those that
        change with each action, with ``with_match`` the match's document (at its start) and
        the next match's dice, with ``with_dice`` those dice."""
        m = self.match
        out = {"status": self.status, "match_no": self.match_no, "version": self.version,
               "deadline": None if m is None else m.deadline, "rematch": json.dumps(sorted(self.rematch))}
        if with_match:
            out["match"] = self.match_json
            out["snapshot"] = None
        if with_match or with_dice:
            out["dice"] = json.dumps(self.next_dice.to_json())
        return out

    def table_entry(self) -> dict[str, Any]:
        """The room as ``GET /v1/tables`` lists it, with every option that decides a coin
        table's outcome: ``stake``, ``fee_percent`` (the rake), ``grace_seconds`` (time to come
        back after a disconnect before forfeiting; None: no forfeit), ``turn_seconds``,
        ``step_seconds`` and ``length``."""
        host = self.seat(0)
        o = self.options
        h = self.house
        return {"code": self.code, "ruleset": o["ruleset"], "house": o["house"], "length": o["length"],
                "turn_seconds": o.get("turn_seconds", h.turn_time), "step_seconds": h.step_time,
                "stake": self.stake, "fee_percent": h.fee_percent if self.stake else 0,
                "grace_seconds": h.grace_period if self.stake else None,
                "host": host.name if host is not None else None}
