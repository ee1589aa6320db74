"""The rooms a running service holds in memory and the tokens that open them: who is where,
what a bearer token may reach, and when a room leaves memory.

A finished room (``over`` or ``closed``) that has had no socket open for
:attr:`Limits.closed_room_seconds` leaves memory in :meth:`RoomRegistry.sweep`; its tokens
expire then (the database keeps it).

When the service runs on several processes (``guard`` set: rooms shared through
:mod:`~tawla.service.coordination`), a room or a token this process does not hold is looked
for in the database, and a room is read again when another process changed it (its version
in the database is read each time the room is asked for: :meth:`refresh`), so a client
never reads a room older than an action acknowledged by another process.
"""

from __future__ import annotations

import asyncio
from typing import Any

from ..errors import Forbidden, NotFound, Unauthorized, quote
from .limits import Limits
from .rooms import Member, Room
from .status import RoomStatus
from .store import Store, hash_token

__all__ = ["RoomRegistry"]


class RoomRegistry:
    """The rooms in memory (``rooms``: code -> :class:`Room`) and their members' tokens
    (``tokens``: the sha256 hex of a bearer token -> :class:`Member`)."""

    def __init__(self, store: Store, limits: Limits) -> None:
        self.store, self.limits = store, limits
        self.rooms: dict[str, Room] = {}
        self.tokens: dict[str, Member] = {}
        self.guard: Any = None  # the rooms' shared lock when several processes serve them

    @property
    def shared(self) -> bool:
        """Whether other processes serve these rooms too."""
        return self.guard is not None

    def add(self, room: Room) -> None:
        """Hold ``room`` and the tokens of its members."""
        self.rooms[room.code] = room
        room.lock.guard = self.guard
        for mem in room.members:
            self.admit(mem)

    def _read(self, code: str) -> Room | None:
        """Room ``code`` as the database holds it, now held here (shared rooms), or None."""
        row = self.store.load_room(code)
        if row is None or row["status"] == RoomStatus.CLOSED.value:
            return None
        room = Room.from_row(row)
        self.add(room)
        return room

    def refresh(self, room: Room) -> None:
        """Read ``room`` again from the database if another process changed it (its version
        there differs from the one this process read or wrote). No-op for the rooms of one
        process.

        Raises
        ------
        tawla.errors.FormatError
            The stored match does not replay.
        """
        if not self.shared:
            return
        if self.store.room_version(room.code) == room.stored_version:
            return
        caught_up = False
        if room.match is not None:  # the same match moved on: its new events only
            row = self.store.load_room(room.code, (room.match_no, room.saved_events))
            caught_up = row is not None and room.catch_up(row)
        if not caught_up:
            row = self.store.load_room(room.code)
            if row is None:
                return
            room.take_from(Room.from_row(row))
        for mem in room.members:
            self.admit(mem)

    def admit(self, mem: Member) -> None:
        """Let ``mem``'s token open its room (a bot has none)."""
        if mem.token is not None:
            self.tokens[mem.token] = mem

    def member(self, code: str, token: str | None) -> Member:
        """The member of room ``code`` whose bearer token is ``token``. The token is checked
        before the room, so that a request without a valid token learns nothing of which
        rooms exist.

        Raises
        ------
        tawla.errors.Unauthorized
            No token, or one the service does not know (or no longer: a closed room's).
        tawla.errors.Forbidden
            A token of another room, or an account's, whether or not room ``code`` exists.
        """
        if not token:
            raise Unauthorized("a bearer token is required")
        mem = self.tokens.get(hash_token(token))
        if mem is None and self.shared:
            code_of_token = self.store.room_of_token(hash_token(token))
            if code_of_token is not None and code_of_token not in self.rooms:
                self._read(code_of_token)
            elif code_of_token is not None:
                self.refresh(self.rooms[code_of_token])
            mem = self.tokens.get(hash_token(token))
        if mem is None:
            if self.store.account_by_token(token) is not None:
                raise Forbidden("an account token has no seat in a room: use the token of the seat")
            raise Unauthorized("unknown token")
        if not isinstance(code, str) or mem.room != code.upper() or mem.room not in self.rooms:
            raise Forbidden(f"this token has no seat in room {quote(code)}")
        return mem

    def account(self, token: str | None) -> dict[str, Any]:
        """The account of a bearer token.

        Raises
        ------
        tawla.errors.Unauthorized
            No token, or not an account's.
        """
        if not token:
            raise Unauthorized("an account token is required")
        acc = self.store.account_by_token(token)
        if acc is None:
            raise Unauthorized("unknown account token")
        return acc

    def room(self, code: str, *, fresh: bool = True) -> Room:
        """The room ``code`` (case-insensitive); with several processes, as the database
        holds it now, or with ``fresh`` False as last read (for a caller that takes its lock,
        under which it is read again).

        Raises
        ------
        tawla.errors.NotFound
        """
        room = self.rooms.get(code.upper()) if isinstance(code, str) else None
        if self.shared and isinstance(code, str):  # as the database holds it now (one version read)
            if room is None:
                room = self._read(code.upper())
            elif fresh:
                self.refresh(room)
        if room is None:
            raise NotFound(f"no room {quote(code)}")
        return room

    def evict(self, room: Room) -> None:
        """Take a room out of memory: its tokens expire, its tasks stop, its sockets are closed
        (what the database holds stays)."""
        if self.rooms.get(room.code) is not room:
            return
        del self.rooms[room.code]
        for x in room.members:
            token = x.token
            if token is not None and self.tokens.get(token) is x:
                del self.tokens[token]
        for t in (room.timer, room.bot_task):
            if t is not None and t is not asyncio.current_task():
                t.cancel()
        for q in list(room.sockets):
            close = getattr(q, "close", None)
            if close is not None:
                close("the room is closed")

    def sweep(self, now: float) -> int:
        """Take out of memory, at ``now`` (monotonic seconds), the finished rooms left with
        no socket for :attr:`Limits.closed_room_seconds`; the number taken out."""
        gone = 0
        for room in list(self.rooms.values()):
            if room.status not in (RoomStatus.OVER, RoomStatus.CLOSED) or room.sockets:
                room.quiet_since = None
                continue
            if room.quiet_since is None:
                room.quiet_since = now
            elif now - room.quiet_since >= self.limits.closed_room_seconds:
                self.evict(room)
                gone += 1
        return gone

    def tables(self) -> list[dict[str, Any]]:
        """Public rooms waiting for a player, with the options that decide a coin table's
        outcome (:meth:`Room.table_entry`)."""
        if self.shared:
            for code in self.store.waiting_rooms():
                self.room(code)
        return [r.table_entry() for r in self.rooms.values()
                if r.options.get("public") and r.status == RoomStatus.WAITING]
