"""A room's timer: one task sleeps until :attr:`tawla.Match.deadline` and calls
:meth:`tawla.Match.on_timeout`; the end of an abandoned room (its humans away for
:attr:`Limits.idle_timeouts` timeouts in a row).

At start the rooms are loaded and a deadline that passed while the server was down fires at
once.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Callable

from ..errors import TawlaError
from ..rules.match_play import Phase
from .limits import Limits
from .rooms import Room
from .tasks import TaskSet
from .writes import RoomWrites

__all__ = ["Timers", "MAX_TIMEOUTS"]

log = logging.getLogger("tawla.service")

MAX_TIMEOUTS = 16
"""The most deadlines one timer wake-up handles (each ends a phase; a bound on the loop)."""


class Timers:
    """The timers of a service's rooms.

    Parameters
    ----------
    writes : RoomWrites
        Where a timeout's change is written.
    limits : Limits
    tasks : TaskSet
        Where a timer's task runs.
    after : callable
        Called with the room after a timer fired (sends the state, arms the next timer,
        wakes the bot).
    """

    def __init__(self, writes: RoomWrites, limits: Limits, tasks: TaskSet, after: Callable[[Room], None]) -> None:
        self.writes, self.limits, self.tasks, self.after = writes, limits, tasks, after

    def arm(self, room: Room) -> None:
        """(Re)start ``room``'s timer for its match's deadline (none: no timer)."""
        current = asyncio.current_task()
        if room.timer is not None and room.timer is not current and not room.timer.done():
            room.timer.cancel()
        room.timer = None
        m = room.match
        if m is None or m.phase == Phase.OVER or m.deadline is None:
            return
        room.timer = self.tasks.spawn(self._fire_at(room, m.deadline))

    async def _fire_at(self, room: Room, deadline: float) -> None:
        delay = deadline - time.time()
        if delay > 0:
            await asyncio.sleep(delay)
        async with room.lock:
            m = room.match
            if m is not None and m.phase != Phase.OVER and m.deadline is not None and m.deadline <= time.time():
                self.writes.commit(room, lambda: self._timeouts(room))
        if room.timer is asyncio.current_task():
            room.timer = None
        self.after(room)

    def _timeouts(self, room: Room) -> None:
        """Every deadline passed by now (at most :data:`MAX_TIMEOUTS`); a room abandoned by
        its humans ends."""
        m = room.match
        fired = 0
        while m is not None and m.phase != Phase.OVER and m.deadline is not None and fired < MAX_TIMEOUTS:
            now = time.time()
            if m.deadline > now:
                break
            absent = self.absent_human(room)
            try:
                m.on_timeout(now)
            except TawlaError as e:  # pragma: no cover - the engine refuses only bad times
                log.error("room %s: on_timeout failed: %s", room.code, e)
                break
            fired += 1
            room.idle_timeouts = room.idle_timeouts + 1 if absent is not None else 0
            if absent is not None and room.idle_timeouts >= self.limits.idle_timeouts and m.phase != Phase.OVER:
                log.info("room %s: seat %s was away for %d timeouts in a row: the match ends",
                         room.code, absent, room.idle_timeouts)
                try:
                    m.leave(absent)
                except TawlaError as e:  # pragma: no cover - leaving is allowed in every phase
                    log.error("room %s: leave failed: %s", room.code, e)

    @staticmethod
    def absent_human(room: Room) -> int | None:
        """The seat a timeout is about to play for when the room looks abandoned: a human's
        seat with no socket open, in a room with a bot, or in a room without coins where
        no human has a socket open; else None (a coin table between two humans is left to
        its grace period)."""
        m = room.match
        if m is None:
            return None
        seat = m.to_act
        mem = room.seat(seat) if seat is not None else None
        if mem is None or mem.bot is not None or room.connected(seat):
            return None
        if room.bot_seat() is not None:
            return seat
        if room.stake or any(s is not None for s in room.presence()):
            return None
        return seat
