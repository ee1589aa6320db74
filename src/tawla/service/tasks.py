"""The service's background tasks (room timers, bots, the sweep): started on the running
event loop, kept until they end, their failures logged, all cancelled when the service stops."""

from __future__ import annotations

import asyncio
import logging
from typing import Any, Coroutine

__all__ = ["TaskSet"]

log = logging.getLogger("tawla.service")


class TaskSet:
    """The running background tasks of a service."""

    def __init__(self) -> None:
        self._tasks: set[asyncio.Task] = set()

    def spawn(self, coro: Coroutine[Any, Any, Any]) -> asyncio.Task:
        """Run ``coro`` as a task of the running loop (kept until it ends)."""
        t = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(t)
        t.add_done_callback(self._done)
        return t

    def _done(self, t: asyncio.Task) -> None:
        """A task ended: forget it, log what it raised."""
        self._tasks.discard(t)
        if not t.cancelled() and t.exception() is not None:
            log.error("a room task failed", exc_info=t.exception())

    def cancel_all(self) -> None:
        """Cancel every task still running."""
        for t in list(self._tasks):
            t.cancel()
