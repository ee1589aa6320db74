"""Where the seeks of quick pairing are kept (:mod:`~tawla.service.seeks`): in the process's
memory when one process serves the rooms (:class:`MemoryBook`), in Redis when several do
(:class:`RedisBook`), so that every process sees every seek, pairs it and offers its bot.

A seek is a JSON-able record: ``id``, ``token`` (sha256 hex of the seek's token), ``table``,
``name``, ``rating``, ``low``, ``high``, ``account`` (id or None), ``address``, ``bot`` (a
level or None), ``bot_at`` and ``expires`` (seconds since the epoch), ``since``, ``status``
(``waiting``, ``paired``, ``failed``, ``cancelled``), ``detail`` and ``paired`` (the room's
``{"room", "room_token", "seat", "opponent"}``). A record that is no longer waiting is kept
for :data:`KEEP_SECONDS`, for its seeker to read.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import secrets
import time
from typing import Any, AsyncIterator

from ..errors import LimitExceeded

__all__ = ["MemoryBook", "RedisBook", "KEEP_SECONDS"]

KEEP_SECONDS = 3600.0
"""How long a seek that is no longer waiting stays readable."""


class MemoryBook:
    """The seeks of one process."""

    def __init__(self, most: int) -> None:
        self.most = most
        self.records: dict[str, dict] = {}
        self._lock = asyncio.Lock()

    @contextlib.asynccontextmanager
    async def locked(self) -> AsyncIterator[None]:
        """The book to oneself (pairing, cancelling, the timers)."""
        async with self._lock:
            yield

    async def waiting(self) -> list[dict]:
        """The waiting seeks, oldest first."""
        return sorted((r for r in self.records.values() if r["status"] == "waiting"), key=lambda r: r["since"])

    async def get(self, seek_id: str) -> dict | None:
        """A seek, or None."""
        return self.records.get(seek_id)

    async def put(self, rec: dict) -> None:
        """Keep (or replace) a seek; the oldest finished ones go past :attr:`most` records."""
        self.records[rec["id"]] = rec
        if len(self.records) > 2 * self.most:
            now = time.time()
            for k, r in list(self.records.items()):
                if r["status"] != "waiting" and (len(self.records) > 2 * self.most or now - r["since"] > KEEP_SECONDS):
                    del self.records[k]

    async def close(self) -> None:
        """Nothing to close."""


class RedisBook:
    """The seeks of every process serving the rooms, in Redis, under the deployment's
    ``prefix``: ``seek:ID`` (the record as JSON), ``seeks`` (the waiting ones' ids scored by
    their time), ``lock:seeks`` (the book to one process at a time; it lapses after
    :attr:`lock_seconds`)."""

    def __init__(self, redis: Any, prefix: str = "tawla:", lock_seconds: float = 5.0,
                 wait_seconds: float = 10.0) -> None:
        self.redis, self.lock_seconds, self.wait_seconds = redis, lock_seconds, wait_seconds
        self.lock_key, self.index, self.record = prefix + "lock:seeks", prefix + "seeks", prefix + "seek:"

    @contextlib.asynccontextmanager
    async def locked(self) -> AsyncIterator[None]:
        """The book to this process (pairing, cancelling, the timers).

        Raises
        ------
        tawla.errors.LimitExceeded
            The book stayed taken for :attr:`wait_seconds`.
        """
        value, end = secrets.token_hex(16), time.monotonic() + self.wait_seconds
        while not await self.redis.set(self.lock_key, value, nx=True, px=int(self.lock_seconds * 1000)):
            if time.monotonic() > end:
                raise LimitExceeded("quick pairing is busy: try again")
            await asyncio.sleep(0.005)
        try:
            yield
        finally:
            await self.redis.eval("if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) "
                                  "end return 0", 1, self.lock_key, value)

    async def waiting(self) -> list[dict]:
        """The waiting seeks, oldest first."""
        ids = await self.redis.zrange(self.index, 0, -1)
        if not ids:
            return []
        texts = await self.redis.mget([self.record + (i.decode() if isinstance(i, bytes) else i) for i in ids])
        return [json.loads(t) for t in texts if t is not None]

    async def get(self, seek_id: str) -> dict | None:
        """A seek, or None."""
        text = await self.redis.get(self.record + seek_id)
        return json.loads(text) if text is not None else None

    async def put(self, rec: dict) -> None:
        """Keep (or replace) a seek, in the waiting index while it waits."""
        ttl = int(max(rec["expires"] - time.time(), 0) + KEEP_SECONDS)
        async with self.redis.pipeline(transaction=True) as p:
            p.set(self.record + rec["id"], json.dumps(rec), ex=ttl)
            if rec["status"] == "waiting":
                p.zadd(self.index, {rec["id"]: rec["since"]})
            else:
                p.zrem(self.index, rec["id"])
            await p.execute()

    async def close(self) -> None:
        """The connection is the rooms' (closed with them)."""
