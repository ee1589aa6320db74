"""The service's limits in process, on hand-moved clocks and a socket that never reads: the
frame rate, the per-address windows, the send queue of a slow reader (bounded, then closed
with the policy code), the size of request bodies, and ``--limit`` parsing."""

from __future__ import annotations

import asyncio
import json

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("prometheus_client")

from tawla.errors import ConfigError, LimitExceeded  # noqa: E402
from tawla.service.limits import GRACE_FLOOR, POLICY_CLOSE, AddressWindow, BodyLimit, Limits, TokenBucket  # noqa: E402
from tawla.service.metrics import Metrics  # noqa: E402


class Clock:
    def __init__(self) -> None:
        self.t = 100.0

    def __call__(self) -> float:
        return self.t


def test_limits_from_pairs():
    lim = Limits.from_pairs(["frames_per_second=2.5", "spectators=3", "grace-floor=1"])
    assert lim.frames_per_second == 2.5 and lim.spectators == 3 and lim.grace_floor == 1.0
    assert lim.grace_floor_of("saharat") == 1.0 and Limits().grace_floor_of("saharat") == GRACE_FLOOR["saharat"]
    for bad in (["nope=1"], ["spectators"], ["spectators=-1"], ["spectators=nan"], ["spectators=x"]):
        with pytest.raises(ConfigError):
            Limits.from_pairs(bad)


def test_token_bucket_takes_bursts_then_the_rate():
    clock = Clock()
    b = TokenBucket(rate=2, burst=3, clock=clock)
    assert [b.take() for _ in range(4)] == [True, True, True, False]
    clock.t += 0.5  # one token back
    assert b.take() and not b.take()
    clock.t += 100  # no more than the burst
    assert sum(b.take() for _ in range(10)) == 3


def test_address_window_counts_each_address_within_the_window():
    clock = Clock()
    w = AddressWindow(60, clock=clock)
    for _ in range(3):
        w.take("1.2.3.4", 3)
    with pytest.raises(LimitExceeded):
        w.take("1.2.3.4", 3)
    w.take("5.6.7.8", 3)  # another address
    w.take("5.6.7.8", 1000, amount=999)
    with pytest.raises(LimitExceeded):
        w.take("5.6.7.8", 1000, amount=1)
    clock.t += 61
    w.take("1.2.3.4", 3)
    assert w.used("1.2.3.4") == 1 and w.used("5.6.7.8") == 0 and set(w._taken) == {"1.2.3.4"}


class StuckSocket:
    """A socket whose peer never reads: every send waits forever."""

    def __init__(self) -> None:
        self.sent: list = []
        self.closed: list = []

    async def send_text(self, text: str) -> None:
        self.sent.append(text)
        await asyncio.Event().wait()

    async def close(self, code: int = 1000, reason: str = "") -> None:
        self.closed.append(code)


class FakeHub:
    metrics = Metrics()


def test_a_slow_reader_is_dropped_with_its_queue_bounded():
    from tawla.service.sockets import Connection

    async def run():
        ws = StuckSocket()
        conn = Connection(ws, 8, FakeHub())
        sizes = []
        for i in range(1000):
            conn.put_nowait({"type": "state", "n": i})
            sizes.append(conn.queue.qsize())
            await asyncio.sleep(0)
        await asyncio.sleep(0.01)
        return ws, conn, max(sizes)

    ws, conn, most = asyncio.run(run())
    assert most <= 8 and conn.closed is not None and "slow" in conn.closed
    assert ws.closed == [POLICY_CLOSE] and len(ws.sent) == 1  # the first frame, stuck; the rest dropped


def test_a_close_sends_the_error_frame_then_the_policy_code():
    from tawla.service.sockets import Connection, error_frame

    class Socket(StuckSocket):
        async def send_text(self, text):
            self.sent.append(text)

    async def run():
        ws = Socket()
        conn = Connection(ws, 4, FakeHub())
        for i in range(3):
            conn.put_nowait({"n": i})
        conn.close("limit: rate", error_frame("LimitExceeded", "too fast", 429))
        conn.put_nowait({"n": "after"})  # nothing is queued once closing
        await conn.finish()
        return ws

    ws = asyncio.run(run())
    frames = [json.loads(t) for t in ws.sent]
    assert frames[-1]["error"] == "LimitExceeded" and len(frames) <= 4 and ws.closed == [POLICY_CLOSE]


def _asgi_post(app, body_chunks, headers):
    sent = []
    chunks = list(body_chunks)

    async def receive():
        if chunks:
            c = chunks.pop(0)
            return {"type": "http.request", "body": c, "more_body": bool(chunks)}
        return {"type": "http.disconnect"}

    async def send(message):
        sent.append(message)

    scope = {"type": "http", "method": "POST", "path": "/", "headers": headers}
    asyncio.run(app(scope, receive, send))
    return sent


def test_body_limit_refuses_declared_and_chunked_bodies():
    seen = []

    async def inner(scope, receive, send):
        body = b""
        while True:
            m = await receive()
            body += m.get("body", b"")
            if not m.get("more_body"):
                break
        seen.append(body)
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"ok"})

    app = BodyLimit(inner, 100)
    big = _asgi_post(app, [b"x" * 101], [(b"content-length", b"101")])
    assert big[0]["status"] == 413 and json.loads(big[1]["body"])["error"] == "LimitExceeded" and not seen
    chunked = _asgi_post(app, [b"x" * 60, b"x" * 60], [])
    assert chunked[0]["status"] == 413 and not seen
    fine = _asgi_post(app, [b"x" * 50, b"y" * 50], [])
    assert fine[0]["status"] == 200 and seen == [b"x" * 50 + b"y" * 50]


def test_a_room_rebuilds_its_match_from_what_was_written():
    """A failed write puts the match back to its document and the events written after it."""
    from tawla.service.rooms import Member, Room, room_options

    room = Room("ABCDEF", room_options("adi", "international", 1, None, False, 0, None, False))
    room.members = [Member("ABCDEF", 0, "a", "x"), Member("ABCDEF", 1, "b", "y")]
    m = room.start_match()
    while m.phase != "move":
        m.roll(m.turn)
    written = m.event_count
    rows = room.unsaved_events()
    assert [json.loads(e) for _, _, e in rows] == m.events_since(room.saved_events)
    room.saved_events = written
    m.play(m.turn, m.legal_moves()[0])  # applied, then its write fails
    assert room.match.event_count > written
    room.rebuild()
    assert room.match.event_count == written and room.match.events == m.events[:written]
    again = Room("ABCDEF", room.options)
    again.restore(room.match_json, [e for _, _, e in rows])
    assert again.match.to_json() == room.match.to_json()
