"""The sockets of the rooms: who watches each room, what each socket is sent after a change,
and a player's socket opening (an absent player is back) or closing (a coin table's player
with no socket left is reported gone). The WebSocket endpoint itself is
:mod:`~tawla.service.sockets`; a socket here is its queue, with ``put_nowait(frame)`` and
``close(reason)``.
"""

from __future__ import annotations

from typing import Any, Callable

from ..errors import LimitExceeded
from ..rules.match_play import Phase
from .limits import Limits
from .metrics import Metrics
from .rooms import Member, Room
from .writes import RoomWrites

__all__ = ["RoomSockets"]


class RoomSockets:
    """The sockets of a service's rooms.

    Parameters
    ----------
    writes : RoomWrites
        Where a reconnection or a disconnection is written.
    limits : Limits
    metrics : Metrics
    after : callable
        Called with the room after a change (sends the state, arms the timer, wakes the bot).
    """

    def __init__(self, writes: RoomWrites, limits: Limits, metrics: Metrics, after: Callable[[Room], None]) -> None:
        self.writes, self.limits, self.metrics, self.after = writes, limits, metrics, after
        self.presence: Any = None  # several processes: where a seat's open sockets are counted

    async def _count(self, room: Room, seat: int | None, change: int) -> None:
        if self.presence is not None and seat is not None:
            await self.presence.count_socket(room.code, seat, change)

    def broadcast(self, room: Room) -> None:
        """Queue for each of the room's sockets its view of the state (without the match record)
        and the match's events since the last frame (``events``: the engine's log entries,
        dice included once thrown)."""
        if not room.sockets:
            return
        events = self._new_events(room)
        by_seat: dict[Any, dict] = {}
        for q, seat in list(room.sockets.items()):
            if seat not in by_seat:
                viewer = room.seat(seat) if seat is not None else None
                by_seat[seat] = {"type": "state", "state": room.state(viewer, with_match=False), "events": events}
            q.put_nowait(by_seat[seat])

    @staticmethod
    def _new_events(room: Room) -> list:
        """The match's events not yet sent to the room's sockets (all of a new match's); the
        cost is that of the new events only."""
        m = room.match
        if m is None:
            return []
        match_no, sent = room.sent_events
        n = m.event_count
        new = m.events_since(sent if match_no == room.match_no and sent <= n else 0)
        room.sent_events = (room.match_no, n)
        return new

    async def connect(self, room: Room, mem: Member, q: Any) -> None:
        """A socket of ``mem`` opens (``q``: its queue): it gets the state; an absent player
        is back.

        Raises
        ------
        tawla.errors.LimitExceeded
            ``mem`` has :attr:`Limits.sockets_per_member` sockets open already.
        """
        if sum(1 for other in room.sockets if getattr(other, "member", None) is mem) >= self.limits.sockets_per_member:
            raise LimitExceeded(f"a token opens at most {self.limits.sockets_per_member} sockets at once")
        q.member = mem
        if not room.sockets:
            self._new_events(room)  # what happened while no socket was open is in the state
        room.sockets[q] = mem.seat
        self.metrics.sockets.inc()
        await self._count(room, mem.seat, 1)
        if mem.seat is not None:
            room.idle_timeouts = 0
        m = room.match
        if mem.seat is not None and m is not None and m.phase != Phase.OVER and m.away[mem.seat] is not None:
            async with room.lock:
                m = room.match  # as read again under the lock
                if m is not None and m.phase != Phase.OVER and m.away[mem.seat] is not None:
                    self.writes.commit(room, lambda: m.reconnect(mem.seat))
            self.after(room)
        else:
            q.put_nowait({"type": "state", "state": room.state(mem if mem.seat is not None else None,
                                                               with_match=False)})

    async def disconnect(self, room: Room, mem: Member, q: Any, *, report: bool = True) -> None:
        """A socket closes: on a coin table with a grace period, a player with no socket left
        (on any process) is reported gone (he forfeits unless he is back within the grace
        period); not when ``report`` is False (the server is stopping)."""
        if room.sockets.pop(q, False) is not False:
            self.metrics.sockets.dec()
            await self._count(room, mem.seat, -1)
        m = room.match
        if (not report or mem.seat is None or m is None or m.phase == Phase.OVER or mem.seat in room.sockets.values()
                or not room.stake or room.house.grace_period is None or m.away[mem.seat] is not None):
            return
        async with room.lock:  # read again under it, with the seats connected on other processes
            m = room.match
            if m is not None and m.phase != Phase.OVER and m.away[mem.seat] is None and not room.connected(mem.seat):
                self.writes.commit(room, lambda: m.disconnect(mem.seat))
        self.after(room)
