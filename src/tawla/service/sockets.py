"""A room's WebSocket (``/v1/rooms/{code}/ws``) and the limits each socket lives under.

The token comes in the ``Authorization: Bearer`` header of the upgrade request, or else as
the socket's first message, ``{"token": "..."}``, within :attr:`Limits.auth_seconds` (a
browser cannot set headers on a WebSocket; a token in the URL would be written to logs).
Then each message is an action as for ``POST .../actions``; the answers are frames:
``{"type": "ok", "action"}``, ``{"type": "error", "error", "detail"[, "status"]}`` and
``{"type": "state", "state", "events"}`` after every change of the room.

Limits (:class:`~tawla.service.limits.Limits`): a text frame over ``frame_bytes``, or frames
faster than ``frames_per_second`` with bursts of ``frame_burst``, get an error frame
(``LimitExceeded``) and the close code 1008; a binary frame or one that is not an action
object gets an error frame and the socket stays up; a socket that lets ``send_queue``
frames pile up unsent (a slow reader) is closed with 1008, its frames dropped, and so is a
socket past ``sockets_per_member`` open with one token; a socket's
next message is read only once its queue has drained to half, so that a client writing
faster than it reads is held back rather than dropped.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from typing import Any, Optional

import orjson
from fastapi import WebSocket, WebSocketDisconnect
from pydantic import ValidationError

from ..errors import TawlaError, Unauthorized
from . import schemas as S
from .answers import error_body, status_of
from .hub import Hub
from .limits import POLICY_CLOSE, TokenBucket

__all__ = ["room_socket", "Connection", "SERVER_RESTART", "error_frame"]

log = logging.getLogger("tawla.service")

SERVER_RESTART = 1012
"""The WebSocket close code with which uvicorn closes the sockets when it stops."""

_CLOSE = object()  # in a send queue: close the socket after the frames before it

SLOW_READER_SECONDS = 10.0
"""How long a socket's next message waits for its queue to drain to half before the socket is
dropped as a slow reader."""


def error_frame(error: str, detail: str, status: int | None = None) -> dict[str, Any]:
    """``{"type": "error", "error", "detail"[, "status"]}``."""
    out: dict[str, Any] = {"type": "error", "error": error, "detail": " ".join(detail.split())[:500]}
    if status is not None:
        out["status"] = status
    return out


class Connection:
    """One socket's sending side: a queue of at most ``limit`` frames and the task that sends
    them in order. :meth:`put_nowait` on a full queue drops the socket (a slow reader)."""

    def __init__(self, ws: WebSocket, limit: int, hub: Hub) -> None:
        self.ws, self.hub = ws, hub
        self.queue: asyncio.Queue = asyncio.Queue(maxsize=limit + 1)  # + the close marker
        self.limit = limit
        self.closed: Optional[str] = None
        self.reader: Optional[asyncio.Task] = None
        self.member: Any = None  # set by the hub when the socket joins its room
        self.closing: Optional[asyncio.Task] = None
        self.writer = asyncio.get_running_loop().create_task(self._write())

    def put_nowait(self, frame: dict[str, Any]) -> None:
        """Queue a frame; past the limit the socket is closed as a slow reader."""
        if self.closed is not None:
            return
        if self.queue.qsize() >= self.limit:
            self.hub.metrics.socket_closes.labels("slow").inc()
            self._drop("a slow reader: frames were not read")
            return
        self.queue.put_nowait(frame)

    def close(self, reason: str, frame: Optional[dict[str, Any]] = None) -> None:
        """Send ``frame`` (if any) after the frames queued, then close with 1008."""
        if self.closed is not None:
            return
        log.info("a socket is closed: %s", reason)
        self.closed = reason
        while self.queue.qsize() >= self.limit:  # room for the last frame and the marker
            self.queue.get_nowait()
        if frame is not None:
            self.queue.put_nowait(frame)
        self.queue.put_nowait(_CLOSE)

    def _drop(self, reason: str) -> None:
        """Stop sending at once: the queued frames are dropped, the socket closed."""
        log.info("a socket is dropped: %s", reason)
        self.closed = reason
        self.writer.cancel()
        if self.reader is not None and self.reader is not asyncio.current_task():
            self.reader.cancel()  # it waits for a frame; when it is the caller, it stops at its loop's test
        self.closing = asyncio.get_running_loop().create_task(self._close_now(reason))  # kept: a task needs a reference

    async def _close_now(self, reason: str) -> None:
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.ws.close(code=POLICY_CLOSE, reason=reason[:100]), 2.0)

    async def _write(self) -> None:
        with contextlib.suppress(Exception):
            while True:
                frame = await self.queue.get()
                if frame is _CLOSE:
                    await self.ws.close(code=POLICY_CLOSE, reason=(self.closed or "")[:100])
                    if self.reader is not None:
                        self.reader.cancel()
                    return
                await self.ws.send_text(orjson.dumps(frame).decode())

    async def drained(self, seconds: float) -> bool:
        """Wait until at most half of the queue is left (the socket's own answers must not
        outrun its sending); False when that takes more than ``seconds`` (a slow reader)."""
        deadline = asyncio.get_running_loop().time() + seconds
        while self.queue.qsize() > self.limit // 2 and self.closed is None:
            if asyncio.get_running_loop().time() > deadline:
                return False
            await asyncio.sleep(0.005)
        return True

    async def finish(self, timeout: float = 2.0) -> None:
        """Wait for the frames queued before a close to be sent, at most ``timeout`` s."""
        with contextlib.suppress(Exception, asyncio.CancelledError):
            await asyncio.wait_for(asyncio.shield(self.writer), timeout)
        self.writer.cancel()


def _header_token(ws: WebSocket) -> Optional[str]:
    auth = ws.headers.get("authorization") or ""
    scheme, _, value = auth.partition(" ")
    return value.strip() or None if scheme.lower() == "bearer" else None


async def _first_message_token(ws: WebSocket, seconds: float) -> Optional[str]:
    """The token of the socket's first message ``{"token": ...}`` (None: not one)."""
    try:
        message = await asyncio.wait_for(ws.receive(), seconds)
    except asyncio.TimeoutError:
        return None
    text = message.get("text")
    if not isinstance(text, str) or len(text) > 1024:
        return None
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        return None
    token = data.get("token") if isinstance(data, dict) else None
    return token if isinstance(token, str) else None


async def room_socket(ws: WebSocket, code: str) -> None:
    """The room's socket (see the module's docstring); closed with ``4000 + status`` when the
    token has no place in the room, 1008 when a limit is broken."""
    h: Hub = ws.app.state.hub
    limits = h.limits
    await ws.accept()
    token = _header_token(ws) or await _first_message_token(ws, limits.auth_seconds)
    try:
        if token is None:
            raise Unauthorized('a socket sends its token first: {"token": "..."} (or an Authorization header)')
        mem = h.member(code, token)
        room = h.room(code)
    except TawlaError as e:
        h.metrics.error(e)
        with contextlib.suppress(Exception):
            await ws.send_json({"type": "error", **error_body(e)})
            await ws.close(code=4000 + status_of(e))
        return
    conn = Connection(ws, limits.send_queue, h)
    conn.reader = asyncio.current_task()
    bucket = TokenBucket(limits.frames_per_second, limits.frame_burst)
    try:
        await h.sockets.connect(room, mem, conn)
    except TawlaError as e:
        h.metrics.error(e)
        h.metrics.socket_closes.labels("sockets").inc()
        conn.reader = None
        conn.close(f"limit: {e}", {"type": "error", "status": status_of(e), **error_body(e)})
        await conn.finish()
        return
    gone = True
    try:
        while conn.closed is None:
            message = await ws.receive()
            if message["type"] == "websocket.disconnect":
                gone = message.get("code") != SERVER_RESTART  # the server stopping: the player has not left
                break
            text, data = message.get("text"), message.get("bytes")
            size = len(text.encode("utf-8", "surrogatepass")) if isinstance(text, str) else len(data or b"")
            if not bucket.take() or size > limits.frame_bytes:
                reason = "rate" if size <= limits.frame_bytes else "size"
                detail = (f"at most {limits.frames_per_second:g} frames a second (bursts of {limits.frame_burst})"
                          if reason == "rate" else f"a frame is at most {limits.frame_bytes} bytes")
                h.metrics.error("LimitExceeded")
                h.metrics.socket_closes.labels(reason).inc()
                conn.close(f"limit: {reason}", error_frame("LimitExceeded", detail, 429))
                break
            if not isinstance(text, str):
                h.metrics.error("InvalidArgument")
                conn.put_nowait(error_frame("InvalidArgument", "a message is an action object in a text frame, "
                                                               "not a binary frame"))
                continue
            if not await conn.drained(SLOW_READER_SECONDS):
                h.metrics.socket_closes.labels("slow").inc()
                conn._drop("a slow reader: frames were not read")
                break
            reply = await _socket_action(h, code, token, text)
            if reply is not None:
                conn.put_nowait(reply)
            await asyncio.sleep(0)  # frames already buffered do not keep other requests waiting
    except WebSocketDisconnect as e:
        gone = e.code != SERVER_RESTART
    except asyncio.CancelledError:
        if conn.closed is None:  # not ours: the server is stopping
            raise
    finally:
        conn.reader = None
        await h.sockets.disconnect(room, mem, conn, report=gone)
    await conn.finish()


async def _socket_action(h: Hub, code: str, token: str, text: str) -> Optional[dict[str, Any]]:
    """One message of a socket: an action as for ``POST .../actions``. The answer: an error
    frame (malformed, or refused), or ``{"type": "ok", "action"}`` (the state follows)."""
    try:
        data = json.loads(text)
        body = S.ActionRequest.model_validate(data)
    except (ValueError, ValidationError, RecursionError) as e:
        h.metrics.error("InvalidArgument")
        detail = "nested too deeply" if isinstance(e, RecursionError) else " ".join(str(e).split())[:500]
        return error_frame("InvalidArgument", f"a message is an action object: {detail}")
    try:
        await h.actions.act(code, token, body.engine_body())
    except TawlaError as e:
        h.metrics.error(e)
        return {"type": "error", "status": status_of(e), **error_body(e)}
    return {"type": "ok", "action": body.action}
