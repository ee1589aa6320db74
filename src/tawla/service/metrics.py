"""The service's metrics, served by ``GET /v1/metrics`` in Prometheus's text format.

Made with ``prometheus_client`` (the reference client; it writes the format, escapes the
labels and keeps the histogram's buckets) on a registry of the application's own, so that
two applications in one process count apart.

Metrics
-------
``tawla_actions_total{action, outcome}``
    Room actions (``roll``, ``step``, ...) by outcome: ``ok`` or the ``tawla.errors`` class.
``tawla_action_seconds``
    Histogram of the time to apply and write one action (the room's lock included).
``tawla_errors_total{error}``
    Error answers (HTTP and socket frames) by ``tawla.errors`` class.
``tawla_rooms{status}``
    Rooms in memory by status (``waiting``, ``playing``, ``over``, ``closed``).
``tawla_sockets``
    Room sockets open.
``tawla_socket_closes_total{reason}``
    Sockets the server closed for breaking a limit (``rate``, ``size``, ``slow``, ``auth``).
"""

from __future__ import annotations

import contextlib
import time
from typing import Iterable, Iterator

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.exposition import CONTENT_TYPE_LATEST

from ..errors import TawlaError
from .status import RoomStatus

__all__ = ["Metrics", "CONTENT_TYPE"]

CONTENT_TYPE = CONTENT_TYPE_LATEST
"""The media type of the text format."""

STATUSES = tuple(RoomStatus)

BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
"""The upper bounds (seconds) of the action-time histogram's buckets."""


class Metrics:
    """The counters of one application (see the module's docstring)."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        r = self.registry
        self.actions = Counter("tawla_actions", "Room actions, by action and outcome (ok or the error class)",
                               ["action", "outcome"], registry=r)
        self.action_seconds = Histogram("tawla_action_seconds", "Time to apply and write one action (seconds)",
                                        buckets=BUCKETS, registry=r)
        self.errors = Counter("tawla_errors", "Error answers and error frames, by tawla.errors class", ["error"],
                              registry=r)
        self.rooms = Gauge("tawla_rooms", "Rooms in memory, by status", ["status"], registry=r)
        self.sockets = Gauge("tawla_sockets", "Room sockets open", registry=r)
        self.socket_closes = Counter("tawla_socket_closes", "Sockets closed by the server for breaking a limit",
                                     ["reason"], registry=r)

    @contextlib.contextmanager
    def action(self, name: str) -> Iterator[None]:
        """Count and time one action named ``name`` (one of the hub's actions)."""
        t = time.perf_counter()
        outcome = "ok"
        try:
            yield
        except TawlaError as e:
            outcome = type(e).__name__
            raise
        finally:
            self.actions.labels(name, outcome).inc()
            self.action_seconds.observe(time.perf_counter() - t)

    def error(self, error: TawlaError | str) -> None:
        """Count an error answer (an exception or a class name)."""
        self.errors.labels(error if isinstance(error, str) else type(error).__name__).inc()

    def render(self, statuses: Iterable[str]) -> bytes:
        """The text format, with the rooms counted from the ``statuses`` of the rooms in memory."""
        counts: dict[str, int] = dict.fromkeys(STATUSES, 0)
        for s in statuses:
            counts[s] = counts.get(s, 0) + 1
        for s, n in counts.items():
            self.rooms.labels(s).set(n)
        return generate_latest(self.registry)
