"""The rooms a running service holds in memory and the tokens that open them: who is where,
what a bearer token may reach, and when a room leaves memory.

A finished room (``over`` or ``closed``) that has had no socket open for
:attr:`Limits.closed_room_seconds` leaves memory in :meth:`RoomRegistry.sweep`; its tokens
expire then (the database keeps it).
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

    def add(self, room: Room) -> None:
        """Hold ``room`` and the tokens of its members."""
        self.rooms[room.code] = room
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

    def room(self, code: str) -> Room:
        """The room ``code`` (case-insensitive).

        Raises
        ------
        tawla.errors.NotFound
        """
        room = self.rooms.get(code.upper()) if isinstance(code, str) else None
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
        return [r.table_entry() for r in self.rooms.values()
                if r.options.get("public") and r.status == RoomStatus.WAITING]
