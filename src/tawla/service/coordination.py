"""Rooms shared by several processes through Redis: a room's lock held across processes, the
room read again from the database when another process changed it, and every change told to
the other processes (so that they send it to their sockets).

A process applies an action to a room only under the room's Redis lock (``SET NX PX``, let go
by a compare-and-delete script, so a lock whose process died lapses after
:attr:`SharedRooms.lock_seconds`). Taking the lock reads ``version:CODE``, the room's
version in the database as the last holder left it, and marks it unknown (``?``) until the
lock is let go with the version then written: a holder that dies mid-write leaves it
unknown. When it differs from the version this process last read or wrote, or is unknown,
the room's version is read from the database and the room read again when that differs. So
an action is applied once, on the room as the database holds it, whichever process receives
it; and each write is fenced by that version (:meth:`tawla.service.store.Store.save_room`'s
``expected``), so a holder whose lock lapsed while it was slow writes nothing. After a change the process publishes ``{"code", "version", "origin"}`` on the channel
:data:`CHANNEL`; the others, when they hold sockets or a timer of the room, read it again
and send it on (any process reads a room's version from the database each time the room is
asked for, so none answers an older state than one acknowledged elsewhere). Deadlines: every process looks for rooms
whose deadline passed (:meth:`tawla.service.store.Store.due_rooms`) and fires them under the
lock, so a timer fires once even when the process that armed it is gone.
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
import time
from typing import Any, Callable

from ..errors import ConfigError, LimitExceeded
from .registry import RoomRegistry
from .rooms import Room
from .tasks import TaskSet

aioredis: Any
try:  # the scale extra
    import redis.asyncio as aioredis
except ImportError:  # pragma: no cover - checked when a Redis URL is given
    aioredis = None

__all__ = ["SharedRooms", "CHANNEL"]

log = logging.getLogger("tawla.service")

REDIS_CONNECTIONS = 64
"""Connections to Redis a process keeps at most (more callers wait for one)."""
CHANNEL = "rooms"
"""The Redis channel of the rooms' changes (after the deployment's prefix)."""
_ACQUIRE = """if redis.call('set', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
  local v = redis.call('get', KEYS[2])
  redis.call('set', KEYS[2], '?')
  local seats = {}
  local h = redis.call('hgetall', KEYS[3])
  for i = 1, #h, 2 do
    local origin, seat = string.match(h[i], '^(.*):(%d)$')
    if origin and origin ~= ARGV[3] and tonumber(h[i + 1]) > 0
        and redis.call('exists', ARGV[4] .. 'alive:' .. origin) == 1 then
      table.insert(seats, seat)
    end
  end
  return {1, v or '?', seats}
end
return {0, '?', {}}"""
_RELEASE = """if redis.call('get', KEYS[1]) == ARGV[1] then
  redis.call('set', KEYS[2], ARGV[2])
  return redis.call('del', KEYS[1])
end
return 0"""
# Every key is named after the deployment (PREFIX = "tawla:DEPLOYMENT:", the database's id).
# PREFIX version:CODE holds the room's version in the database as its last holder left it, or
# "?" while a holder may be writing (so a holder that dies leaves "?": read the database).
# PREFIX sockets:CODE counts each process's open sockets per seat (field "ORIGIN:SEAT"); a
# process is alive while PREFIX alive:ORIGIN lasts (renewed every second, lapsing after
# ALIVE_SECONDS), so the sockets of a dead process stop counting.
ALIVE_SECONDS = 5.0


class SharedRooms:
    """The guard of :class:`~tawla.service.rooms.RoomLock` when rooms are shared by processes.

    Parameters
    ----------
    url : str
        The Redis URL, e.g. ``redis://127.0.0.1:6379/0``.
    registry : RoomRegistry
        The process's rooms (read again through :meth:`RoomRegistry.refresh`).
    tasks : TaskSet
        Where the listener and the publications run.
    on_change : callable
        Called with a room of this process that another process changed (and that this
        process has read again).
    lock_seconds : float
        How long a lock lives when its process dies holding it.
    wait_seconds : float
        How long an action waits for a lock before it is refused (LimitExceeded).

    Raises
    ------
    tawla.errors.ConfigError
        The ``redis`` package (the scale extra) is not installed.
    """

    def __init__(self, url: str, registry: RoomRegistry, tasks: TaskSet, on_change: Callable[[Room], None],
                 lock_seconds: float = 10.0, wait_seconds: float = 10.0, deployment: str = "") -> None:
        if aioredis is None:
            raise ConfigError("several processes need the scale extra (pip install 'tawla-engine[scale]')")
        self.url, self.registry, self.tasks, self.on_change = url, registry, tasks, on_change
        self.lock_seconds, self.wait_seconds = lock_seconds, wait_seconds
        pool = aioredis.BlockingConnectionPool.from_url(url, max_connections=REDIS_CONNECTIONS,
                                                        timeout=wait_seconds)
        self.redis: Any = aioredis.Redis(connection_pool=pool)
        self.origin = secrets.token_hex(8)
        self.prefix = f"tawla:{deployment}:" if deployment else "tawla:"
        self.held: dict[str, str] = {}
        self.listening = asyncio.Event()

    async def enter(self, room: Room) -> None:
        """Take ``room``'s shared lock (the process's own is held), then read the room again if
        another process changed it.

        Raises
        ------
        tawla.errors.LimitExceeded
            The lock stayed taken for :attr:`wait_seconds`, or Redis did not answer.
        """
        p = self.prefix
        keys = (f"{p}lock:{room.code}", f"{p}version:{room.code}", f"{p}sockets:{room.code}")
        value = secrets.token_hex(16)
        end = time.monotonic() + self.wait_seconds
        pause = 0.001
        while True:
            try:
                got, version, seats = await self.redis.eval(_ACQUIRE, 3, *keys, value,
                                                            int(self.lock_seconds * 1000), self.origin, p)
            except aioredis.RedisError as e:
                raise LimitExceeded(f"room {room.code} cannot be locked now ({type(e).__name__}): try again") from None
            if got:
                break
            if time.monotonic() > end:
                raise LimitExceeded(f"room {room.code} is busy: try again")
            await asyncio.sleep(pause)
            pause = min(0.02, pause * 2)
        self.held[room.code] = value
        room.remote_seats = frozenset(int(x) for x in seats)
        try:
            if version in (b"?", "?") or room.stored_version is None or int(version) != room.stored_version:
                self.registry.refresh(room)  # changed elsewhere, or unknown: read the database
        except BaseException:
            await self.exit(room, failed=True)
            raise

    async def exit(self, room: Room, failed: bool = False) -> None:
        """Let ``room``'s shared lock go (only if this process still holds it), leaving the
        room's version as written; after a failure (``failed``: what was written is not
        known for sure) leaving it unknown, so that the next holder reads the database."""
        value = self.held.pop(room.code, None)
        if value is not None:
            version = "?" if failed or room.stored_version is None else str(room.stored_version)
            try:
                await self.redis.eval(_RELEASE, 2, f"{self.prefix}lock:{room.code}",
                                      f"{self.prefix}version:{room.code}", value, version)
            except aioredis.RedisError as e:  # the lock lapses by itself; its version stays "?"
                log.warning("room %s: its lock was not let go: %s", room.code, e)

    async def count_socket(self, code: str, seat: int, change: int) -> None:
        """Count a socket of ``seat`` opened (``change`` 1) or closed (-1) on this process."""
        try:
            await self.redis.hincrby(f"{self.prefix}sockets:{code}", f"{self.origin}:{seat}", change)
        except aioredis.RedisError as e:  # the count is read under the lock; a lost one errs on "connected"
            log.warning("room %s: a socket was not counted: %s", code, e)

    async def alive_forever(self) -> None:
        """Say every second that this process is alive (its sockets count while it is)."""
        while True:
            try:
                await self.redis.set(f"{self.prefix}alive:{self.origin}", 1, px=int(ALIVE_SECONDS * 1000))
            except aioredis.RedisError as e:
                log.warning("Redis did not answer: %s", e)
            await asyncio.sleep(1.0)

    def changed(self, room: Room) -> None:
        """Tell the other processes that ``room`` is at its version now."""
        msg = json.dumps({"code": room.code, "version": room.stored_version, "origin": self.origin})
        self.tasks.spawn(self._publish(msg))

    async def _publish(self, msg: str) -> None:
        try:
            await self.redis.publish(self.prefix + CHANNEL, msg)
        except Exception as e:  # the others read the room at its next lock or deadline
            log.warning("a room's change was not published: %s", e)

    async def listen(self) -> None:
        """Follow the other processes' changes until cancelled (reconnecting after an error)."""
        while True:
            try:
                pubsub = self.redis.pubsub()
                await pubsub.subscribe(self.prefix + CHANNEL)
                self.listening.set()
                async for msg in pubsub.listen():
                    if msg.get("type") == "message":
                        self._heard(msg["data"])
            except asyncio.CancelledError:
                raise
            except Exception as e:
                log.warning("the rooms' channel broke (%s): listening again", e)
                await asyncio.sleep(0.5)

    def _heard(self, data: bytes | str) -> None:
        try:
            note = json.loads(data)
            code, version, origin = note["code"], note["version"], note["origin"]
        except (ValueError, KeyError, TypeError):
            return
        if origin == self.origin:
            return
        room = self.registry.rooms.get(code)
        if room is None or room.stored_version == version:
            return
        self.on_change(room)

    async def close(self) -> None:
        """Close the connection to Redis."""
        try:
            await self.redis.aclose()
        except Exception:  # pragma: no cover - closing a broken connection
            pass
