"""The running service's rooms, put together from their parts, one job each:

- :mod:`~tawla.service.registry`: the rooms in memory and the tokens that open them;
- :mod:`~tawla.service.lobby`: accounts, new rooms, joining, a bot taking a seat;
- :mod:`~tawla.service.seeks`: quick pairing of seekers into new rooms;
- :mod:`~tawla.service.actions`: a seat's actions, leaving, the rematch;
- :mod:`~tawla.service.writes`: every change and its write (the version moves there only;
  one rollback);
- :mod:`~tawla.service.settlement`: what a coin table pays out;
- :mod:`~tawla.service.timers` and :mod:`~tawla.service.bot_driver`: what a room does by
  itself;
- :mod:`~tawla.service.room_sockets`: what each socket is sent.

After every change :meth:`Hub.after` sends the room's new state to its sockets, arms its
timer and wakes its bot. At start the rooms are loaded from the database and a deadline that
passed while the server was down fires at once.
"""

from __future__ import annotations

import asyncio
import logging
import time
from concurrent.futures import ThreadPoolExecutor

from ..errors import TawlaError
from .actions import ACTIONS, RoomActions
from .bot_driver import BotDriver
from .coordination import SharedRooms
from .limits import Limits
from .lobby import Lobby
from .match_analysis import MatchAnalyses
from .metrics import Metrics
from .registry import RoomRegistry
from .room_sockets import RoomSockets
from .rooms import Member, Room
from .seek_book import MemoryBook, RedisBook
from .seeks import Seeks
from .store import Store
from .tasks import TaskSet
from .timers import Timers
from .writes import RoomWrites

__all__ = ["Hub", "ACTIONS"]

log = logging.getLogger("tawla.service")

DUE_SECONDS = 0.5
"""How often a process of several looks for deadlines that passed (seconds)."""


class Hub:
    """The service's rooms, in memory and in the :class:`~tawla.service.store.Store`.

    Parameters
    ----------
    store : Store
    bot_threads : int
        Threads of the pool that runs the bots' searches.
    limits : Limits, optional
        What one client may cost (default :class:`Limits`).
    metrics : Metrics, optional
        Where actions, rooms and sockets are counted.
    redis_url : str, optional
        Redis, when several processes serve the rooms of one database.

    Attributes
    ----------
    registry, lobby, actions, sockets, timers, bots, writes
        The parts (see the module's docstring).
    analyses : MatchAnalyses
        The analyses of finished matches (:mod:`~tawla.service.match_analysis`).
    seeks : Seeks
        Quick pairing (:mod:`~tawla.service.seeks`).
    shared : SharedRooms or None
        With ``redis_url``: the rooms shared with other processes
        (:mod:`~tawla.service.coordination`); None when this process serves them alone.
    """

    def __init__(self, store: Store, bot_threads: int = 2, limits: Limits | None = None,
                 metrics: Metrics | None = None, redis_url: str | None = None) -> None:
        self.store = store
        self.limits = limits or Limits()
        self.metrics = metrics or Metrics()
        self.pool = ThreadPoolExecutor(max_workers=bot_threads, thread_name_prefix="tawla-bot")
        self.tasks = TaskSet()
        self.writes = RoomWrites(store)
        self.registry = RoomRegistry(store, self.limits)
        self.sockets = RoomSockets(self.writes, self.limits, self.metrics, self.after)
        self.timers = Timers(self.writes, self.limits, self.tasks, self.after)
        self.bots = BotDriver(self.writes, self.pool, self.tasks, self._bot_acted)
        self.lobby = Lobby(self.registry, self.writes, self.limits, self.after)
        self.actions = RoomActions(self.registry, self.writes, self.metrics, self.after)
        self.analyses = MatchAnalyses()
        self.shared = (SharedRooms(redis_url, self.registry, self.tasks, self._changed_elsewhere,
                                   deployment=store.deployment) if redis_url else None)
        self.seeks = Seeks(self.lobby, RedisBook(self.shared.redis, self.shared.prefix) if self.shared is not None
                           else MemoryBook(self.limits.seeks))
        self.registry.guard = self.shared
        self.sockets.presence = self.shared
        self.writes.shared = self.shared is not None

    @property
    def rooms(self) -> dict[str, Room]:
        """The rooms in memory, by code."""
        return self.registry.rooms

    def member(self, code: str, token: str | None) -> Member:
        """:meth:`RoomRegistry.member`."""
        return self.registry.member(code, token)

    def room(self, code: str) -> Room:
        """:meth:`RoomRegistry.room`."""
        return self.registry.room(code)

    def after(self, room: Room) -> None:
        """After a change: send the new state to the room's sockets, arm its timer and wake its
        bot (and tell the other processes)."""
        self.sockets.broadcast(room)
        self.timers.arm(room)
        self.bots.wake(room)
        if self.shared is not None:
            self.shared.changed(room)

    def _bot_acted(self, room: Room) -> None:
        self.sockets.broadcast(room)
        self.timers.arm(room)
        if self.shared is not None:
            self.shared.changed(room)

    def _changed_elsewhere(self, room: Room) -> None:
        """Another process changed ``room``: read it again and send it to this process's
        sockets, with its timer armed, when the process serves any of them."""
        if room.sockets or room.timer is not None:
            self.tasks.spawn(self._follow(room))

    async def _follow(self, room: Room) -> None:
        try:
            self.registry.refresh(room)
        except TawlaError as e:
            log.error("room %s could not be read again: %s", room.code, e)
            return
        self.sockets.broadcast(room)
        self.timers.arm(room)

    async def fire_due_forever(self) -> None:
        """Several processes: every :data:`DUE_SECONDS`, arm the timer of each room whose
        deadline passed in the database, the room read as the database holds it (whichever
        process armed its timer; it fires once: under the shared lock)."""
        while True:
            await asyncio.sleep(DUE_SECONDS)
            try:
                due = self.store.due_rooms(time.time())
            except Exception as e:  # the database away: try again at the next pass
                log.error("looking for deadlines: %s", e)
                continue
            for code in due:
                try:
                    room = self.registry.room(code)  # read again when another process moved it
                except TawlaError as e:  # one unreadable room does not hold up the others
                    log.error("room %s: its deadline cannot be fired: %s", code, e)
                    continue
                if room.timer is None or room.timer.done():
                    self.timers.arm(room)

    async def start(self) -> None:
        """Load every open room from the database, arm its timer (a deadline already passed
        fires at once) and let its bot play. A room whose stored match does not replay is
        logged and left out (its tokens then get 401)."""
        for row in self.store.load():
            try:
                room = Room.from_row(row)
            except TawlaError as e:  # one unreadable record keeps its room shut, not the service
                log.error("room %s is not resumed: %s", row["code"], e)
                continue
            # a restart is a change: the version goes on from the one written
            room.stored_version = row.get("version")
            room.version += 1
            if not row.get("dice"):  # a room from before the column: its newly drawn dice kept
                try:
                    self.writes.commit(room, None, lambda r: self.writes.save_columns(r, with_dice=True))
                except Exception as e:  # written at its next change instead
                    log.error("room %s: its next dice were not written: %s", room.code, e)
            self.registry.add(room)
            self.after(room)
        self.tasks.spawn(self.sweep_forever())
        self.tasks.spawn(self.seeks.run_forever())
        if self.shared is not None:
            self.tasks.spawn(self.shared.listen())
            self.tasks.spawn(self.shared.alive_forever())
            self.tasks.spawn(self.fire_due_forever())
            await asyncio.wait_for(self.shared.listening.wait(), timeout=10)

    async def stop(self) -> None:
        """Cancel the timers and bot tasks, stop the bot pool."""
        for room in self.rooms.values():
            for t in (room.timer, room.bot_task):
                if t is not None:
                    t.cancel()
        self.tasks.cancel_all()
        self.pool.shutdown(wait=False, cancel_futures=True)
        self.analyses.close()
        if self.shared is not None:
            await self.shared.close()

    async def sweep_forever(self) -> None:
        """Every few seconds, take out of memory the rooms whose match is over and that have
        had no socket open for :attr:`Limits.closed_room_seconds` (:meth:`RoomRegistry.sweep`)."""
        period = max(0.2, min(30.0, self.limits.closed_room_seconds / 4))
        while True:
            await asyncio.sleep(period)
            self.registry.sweep(time.monotonic())
