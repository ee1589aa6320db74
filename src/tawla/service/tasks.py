"""What a running room does by itself: its timer (one task sleeps until
:attr:`tawla.Match.deadline` and calls :meth:`tawla.Match.on_timeout`), its bot (searches in
a thread pool, off the event loop; what it plays is applied and written like a player's
action), the end of an abandoned room (its humans away for :attr:`Limits.idle_timeouts`
timeouts in a row), and the sweep that takes finished rooms out of memory.

:class:`RoomTasks` is a part of :class:`~tawla.service.hub.Hub`; it uses the hub's rooms,
limits and writes (declared here, defined there).
"""

from __future__ import annotations

import asyncio
import logging
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable

from ..bots.policies import MatchView, bot_action
from ..errors import TawlaError
from .limits import Limits
from .rooms import Room
from .views import bot_for

__all__ = ["RoomTasks", "MAX_TIMEOUTS", "MAX_BOT_ACTIONS"]

log = logging.getLogger("tawla.service")

MAX_TIMEOUTS = 16
"""The most deadlines one timer wake-up handles (each ends a phase; a bound on the loop)."""

MAX_BOT_ACTIONS = 64
"""The most actions a bot makes in a row before yielding to a new task."""


class RoomTasks:
    """Timers, bots, abandoned rooms and the sweep of finished ones (a part of the hub)."""

    rooms: dict[str, Room]
    limits: Limits
    pool: ThreadPoolExecutor
    _tasks: set[asyncio.Task]

    def _apply(self, room: Room, call: Callable[[], Any]) -> None:
        raise NotImplementedError  # the hub's

    def broadcast(self, room: Room) -> None:
        raise NotImplementedError  # the hub's

    def evict(self, room: Room) -> None:
        raise NotImplementedError  # the hub's

    # ---------------------------------------------------------------- tasks
    def _spawn(self, coro) -> asyncio.Task:
        t = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(t)
        t.add_done_callback(self._done)
        return t

    def _done(self, t: asyncio.Task) -> None:
        """A timer's or a bot's task ended: forget it, log what it raised."""
        self._tasks.discard(t)
        if not t.cancelled() and t.exception() is not None:
            log.error("a room task failed", exc_info=t.exception())

    def _after(self, room: Room) -> None:
        """Send the new state to the room's sockets, arm its timer and wake its bot."""
        self.broadcast(room)
        self._arm(room)
        m = room.match
        bot = room.bot_seat()
        if (m is not None and bot is not None and m.phase != "over" and m.to_act == bot
                and (room.bot_task is None or room.bot_task.done())):
            room.bot_task = self._spawn(self._bot_play(room))

    def _arm(self, room: Room) -> None:
        current = asyncio.current_task()
        if room.timer is not None and room.timer is not current and not room.timer.done():
            room.timer.cancel()
        room.timer = None
        m = room.match
        if m is None or m.phase == "over" or m.deadline is None:
            return
        room.timer = self._spawn(self._fire_at(room, m.deadline))

    async def _fire_at(self, room: Room, deadline: float) -> None:
        delay = deadline - time.time()
        if delay > 0:
            await asyncio.sleep(delay)
        async with room.lock:
            m = room.match
            fired = 0
            while (m is not None and m.phase != "over" and m.deadline is not None and fired < MAX_TIMEOUTS):
                now = time.time()
                if m.deadline > now:
                    break
                absent = self._absent_human(room)
                try:
                    m.on_timeout(now)
                except TawlaError as e:  # pragma: no cover - the engine refuses only bad times
                    log.error("room %s: on_timeout failed: %s", room.code, e)
                    break
                fired += 1
                room.idle_timeouts = room.idle_timeouts + 1 if absent is not None else 0
                if absent is not None and room.idle_timeouts >= self.limits.idle_timeouts and m.phase != "over":
                    log.info("room %s: seat %s was away for %d timeouts in a row: the match ends",
                             room.code, absent, room.idle_timeouts)
                    try:
                        m.leave(absent)
                    except TawlaError as e:  # pragma: no cover - leaving is allowed in every phase
                        log.error("room %s: leave failed: %s", room.code, e)
            if fired:
                room.version += 1
                self._save(room)
        if room.timer is asyncio.current_task():
            room.timer = None
        self._after(room)

    def _save(self, room: Room, stakes: tuple = ()) -> None:
        raise NotImplementedError  # the hub's

    @staticmethod
    def _absent_human(room: Room) -> int | None:
        """The seat a timeout is about to play for when the room looks abandoned: a human's
        seat with no socket open, in a room with a bot, or in a room without coins where
        no human has a socket open; else None (a coin table between two humans is left to
        its grace period)."""
        m = room.match
        if m is None:
            return None
        seat = m.to_act
        mem = room.seat(seat) if seat is not None else None
        if mem is None or mem.bot is not None or seat in room.sockets.values():
            return None
        if room.bot_seat() is not None:
            return seat
        if room.stake or any(s is not None for s in room.sockets.values()):
            return None
        return seat

    async def _bot_play(self, room: Room) -> None:
        """The bot of the room acts while it is to act: its decision (:func:`tawla.bots.policies.bot_action`:
        doubles, takes, drops, resignations and moves at the match's score) is worked out
        off the event loop, then applied unless the room changed meanwhile (a timeout)."""
        loop = asyncio.get_running_loop()
        for _ in range(MAX_BOT_ACTIONS):
            async with room.lock:
                m, seat = room.match, room.bot_seat()
                if m is None or seat is None or m.phase == "over" or m.to_act != seat:
                    return
                level = room.seat(seat).bot or "ply0"  # type: ignore[union-attr]
                version, view = room.version, MatchView.of(m)
            name, move = await loop.run_in_executor(self.pool, lambda: bot_action(bot_for(view.ruleset, level), view))
            async with room.lock:
                if room.version != version:  # a timeout played meanwhile
                    continue
                if name == "move":
                    self._apply(room, lambda: m.play(seat, move))
                else:
                    call = {"roll": m.roll, "double": m.double, "take": m.take, "drop": m.drop,
                            "accept": m.accept_resignation, "reject": m.reject_resignation}[name]
                    self._apply(room, lambda: call(seat))
            self.broadcast(room)
            self._arm(room)

    # ---------------------------------------------------------------- the sweep
    async def sweep_forever(self) -> None:
        """Every few seconds, take out of memory the rooms whose match is over and that have
        had no socket open for :attr:`Limits.closed_room_seconds` (their tokens expire)."""
        period = max(0.2, min(30.0, self.limits.closed_room_seconds / 4))
        while True:
            await asyncio.sleep(period)
            self.sweep(time.monotonic())

    def sweep(self, now: float) -> int:
        """One sweep at ``now`` (monotonic seconds); the number of rooms taken out."""
        gone = 0
        for room in list(self.rooms.values()):
            if room.status not in ("over", "closed") or room.sockets:
                room.quiet_since = None
                continue
            if room.quiet_since is None:
                room.quiet_since = now
            elif now - room.quiet_since >= self.limits.closed_room_seconds:
                self.evict(room)
                gone += 1
        return gone
