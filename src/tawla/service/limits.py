"""The service's limits on what one client may cost it: socket frames (size, rate, what is
queued for it), request bodies, spectators, and what one client address may create in a
time window (rooms, accounts, the coins those accounts start with); the per-house floor on
a coin table's grace period.

:class:`Limits` holds the numbers (``tawla serve --limit NAME=VALUE`` changes one);
:class:`TokenBucket` is a socket's frame rate, :class:`AddressWindow` the creations of each
address, :class:`BodyLimit` the ASGI middleware that refuses bodies over the size.
"""

from __future__ import annotations

import dataclasses
import json
import math
import time
from collections import deque
from dataclasses import dataclass
from typing import Any, Awaitable, Callable, Iterable, MutableMapping

from ..errors import ConfigError, LimitExceeded, quote

__all__ = ["Limits", "GRACE_FLOOR", "TokenBucket", "AddressWindow", "BodyLimit", "POLICY_CLOSE"]

POLICY_CLOSE = 1008
"""The WebSocket close code of a socket that broke a limit (RFC 6455: policy violation)."""

GRACE_FLOOR = {"saharat": 30.0, "federation": 30.0, "international": 30.0}
"""The shortest grace period (seconds) a coin table may have, per house: long enough for a
page reload or a network change to bring a player back before he forfeits his stake."""


@dataclass(frozen=True)
class Limits:
    """What one client may cost the service. Sizes in bytes, times in seconds.

    Attributes
    ----------
    frame_bytes : int
        The largest socket frame; a larger one gets an error frame and the policy close.
    frames_per_second, frame_burst : float, int
        A socket's sustained rate of frames and the burst above it (a token bucket); past
        them: an error frame and the policy close (:data:`POLICY_CLOSE`).
    send_queue : int
        Frames waiting to be sent to one socket; a socket that lets more pile up is a slow
        reader and is closed.
    body_bytes : int
        The largest HTTP request body (413 beyond).
    spectators : int
        Spectators per room.
    sockets_per_member : int
        Sockets open at once with one token (a seat's or a spectator's).
    window_seconds : float
        The window of the per-address counts below.
    rooms_per_window, accounts_per_window, coins_per_window : int
        Rooms, accounts and starting coins one client address may create in a window.
    auth_seconds : float
        Time a socket has to send its token as its first message.
    idle_timeouts : int
        Timeouts in a row that play for an absent human (no socket open; in a room with a
        bot, or without coins and with no human connected), after which the absent seat
        leaves and the match ends.
    grace_floor : float or None
        When set, the floor of every house's grace period instead of :data:`GRACE_FLOOR`.
    closed_room_seconds : float
        How long a room whose match is over stays in memory with no socket open (its
        tokens then expire).
    seeks, seeks_per_address : int
        Open seeks (quick pairing) in the process, and of one address.
    seek_seconds : float
        How long a seek waits for an opponent before it lapses.
    """

    frame_bytes: int = 16_384
    frames_per_second: float = 20.0
    frame_burst: int = 40
    send_queue: int = 64
    body_bytes: int = 65_536
    spectators: int = 32
    sockets_per_member: int = 4
    window_seconds: float = 3600.0
    rooms_per_window: int = 60
    accounts_per_window: int = 5
    coins_per_window: int = 5_000
    auth_seconds: float = 10.0
    idle_timeouts: int = 3
    grace_floor: float | None = None
    closed_room_seconds: float = 3600.0
    seeks: int = 1000
    seeks_per_address: int = 4
    seek_seconds: float = 600.0

    def grace_floor_of(self, house: str) -> float:
        """The shortest grace period of ``house``'s coin tables (seconds)."""
        if self.grace_floor is not None:
            return self.grace_floor
        return GRACE_FLOOR.get(house, max(GRACE_FLOOR.values()))

    @classmethod
    def from_pairs(cls, pairs: Iterable[str]) -> "Limits":
        """Limits with ``NAME=VALUE`` pairs applied (``tawla serve --limit``).

        Raises
        ------
        tawla.errors.ConfigError
            An unknown name, or a value that is not a positive number of the field's kind.
        """
        fields = {f.name: f for f in dataclasses.fields(cls)}
        values: dict[str, Any] = {}
        for pair in pairs:
            name, sep, text = pair.partition("=")
            name = name.strip().replace("-", "_")
            if not sep or name not in fields:
                raise ConfigError(f"a limit is NAME=VALUE with NAME one of {', '.join(fields)}, not {quote(pair)}")
            try:
                value = float(text)
            except ValueError:
                value = math.nan
            if not math.isfinite(value) or value <= 0:
                raise ConfigError(f"the limit {name} is a positive number, not {quote(text)}")
            values[name] = value if "float" in str(fields[name].type) else max(1, int(value))
        return cls(**values)

    def as_dict(self) -> dict[str, Any]:
        """The limits as JSON-able data."""
        return dataclasses.asdict(self)


class TokenBucket:
    """A rate of ``rate`` events a second with bursts of ``burst``: :meth:`take` says whether
    one more event is within it (on the monotonic clock)."""

    def __init__(self, rate: float, burst: int, clock: Callable[[], float] = time.monotonic) -> None:
        self.rate, self.burst, self.clock = float(rate), float(burst), clock
        self.tokens = float(burst)
        self.t = clock()

    def take(self) -> bool:
        """Spend one token; False when none is left."""
        now = self.clock()
        self.tokens = min(self.burst, self.tokens + (now - self.t) * self.rate)
        self.t = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True


class AddressWindow:
    """Amounts taken by each client address within a sliding window of ``seconds``.

    The addresses kept are those that took something within the window (older entries are
    dropped as they are met, and all of them every ``window`` takes), so memory follows
    the active addresses.
    """

    def __init__(self, seconds: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.seconds, self.clock = seconds, clock
        self._taken: dict[str, deque] = {}
        self._calls = 0

    def used(self, address: str) -> float:
        """What ``address`` took within the window."""
        q = self._expire(address, self.clock())
        return sum(a for _, a in q) if q else 0

    def take(self, address: str, limit: float, amount: float = 1, what: str = "requests") -> None:
        """Take ``amount`` for ``address`` if its total within the window stays at most ``limit``.

        Raises
        ------
        tawla.errors.LimitExceeded
            The window's total would pass ``limit`` (nothing is taken).
        """
        now = self.clock()
        self._calls += 1
        if self._calls % 1024 == 0:
            for a in list(self._taken):
                self._expire(a, now)
        q = self._expire(address, now)
        used = sum(a for _, a in q) if q else 0
        if used + amount > limit:
            raise LimitExceeded(f"this address has had its {limit:g} {what} for now "
                                f"(a window of {self.seconds:g} s); try later")
        self._taken.setdefault(address, deque()).append((now, amount))

    def _expire(self, address: str, now: float) -> deque | None:
        q = self._taken.get(address)
        if q is None:
            return None
        while q and q[0][0] <= now - self.seconds:
            q.popleft()
        if not q:
            del self._taken[address]
            return None
        return q


Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]


class BodyLimit:
    """ASGI middleware: an HTTP request whose body passes ``limit`` bytes is answered 413
    ``{"error": "LimitExceeded"}`` without reaching the application (a declared
    ``Content-Length`` is refused before reading; a chunked body is read up to the limit)."""

    def __init__(self, app: Callable, limit: int) -> None:
        self.app, self.limit = app, limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        length = dict(scope.get("headers") or ()).get(b"content-length")
        if length is not None:
            try:
                declared = int(length)
            except ValueError:
                declared = -1
            if declared > self.limit:
                await self._refuse(send)
                return
            await self.app(scope, receive, send)
            return
        messages: list = []
        size = 0
        while True:
            message = await receive()
            messages.append(message)
            if message["type"] != "http.request":
                break
            size += len(message.get("body", b""))
            if size > self.limit:
                await self._refuse(send)
                return
            if not message.get("more_body", False):
                break

        async def replay() -> MutableMapping[str, Any]:
            return messages.pop(0) if messages else await receive()

        await self.app(scope, replay, send)

    async def _refuse(self, send: Send) -> None:
        body = json.dumps({"error": "LimitExceeded",
                           "detail": f"a request body is at most {self.limit} bytes"}).encode()
        await send({"type": "http.response.start", "status": 413,
                    "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]})
        await send({"type": "http.response.body", "body": body})
