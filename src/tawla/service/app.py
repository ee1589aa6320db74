"""The FastAPI application: the routes of the JSON API under ``/v1``, the room's WebSocket,
the error answers and the static files at ``/``.

Errors are answered as ``{"error": <tawla.errors class>, "detail": <message>}``: 400 for bad
input (IDs, dice, options), 401 without a token or with an unknown one, 403 with a token
that has no seat in the room, 404 for an unknown room, 409 for what the match refuses now
(:class:`~tawla.errors.NotYourTurn`, :class:`~tawla.errors.InvalidAction`,
:class:`~tawla.errors.IllegalMove`, ...), 422 for a malformed body
(:class:`~tawla.errors.InvalidArgument`).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from pathlib import Path
from typing import Any, AsyncIterator, Optional

from fastapi import Depends, FastAPI, Query, Request, WebSocket, WebSocketDisconnect
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from fastapi.staticfiles import StaticFiles
from pydantic import ValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException

from .._version import __version__
from ..errors import (AmbiguousMove, Forbidden, IllegalMove, InvalidAction, NotFound, NotYourTurn, TawlaError,
                      Unauthorized)
from . import schemas as S
from .board import router as board_router
from .hub import Hub
from .store import Store
from .views import best_of, evaluation_of, moves_of

__all__ = ["create_app", "STATIC"]

STATIC = Path(__file__).with_name("static")
"""The folder served at ``/`` (the web board)."""

SERVER_RESTART = 1012
"""The WebSocket close code with which uvicorn closes the sockets when it stops."""

_STATUS = {Unauthorized: 401, Forbidden: 403, NotFound: 404, NotYourTurn: 409, InvalidAction: 409,
           IllegalMove: 409, AmbiguousMove: 409}

_bearer = HTTPBearer(auto_error=False, description="the token of an account, a seat or a spectator")


def status_of(error: TawlaError) -> int:
    """The HTTP status of a :mod:`tawla.errors` class (400 unless listed)."""
    for cls in type(error).__mro__:
        if cls in _STATUS:
            return _STATUS[cls]
    return 400


def error_body(error: TawlaError) -> dict[str, str]:
    """``{"error", "detail"}`` of an error."""
    return {"error": type(error).__name__, "detail": " ".join(str(error).split())}


def _token(cred: Optional[HTTPAuthorizationCredentials] = Depends(_bearer)) -> Optional[str]:
    return cred.credentials if cred is not None else None


def create_app(db: str = "sqlite:///tawla-serve.db", *, bot_threads: int = 2) -> FastAPI:
    """The service as an ASGI application.

    Parameters
    ----------
    db : str
        The SQLAlchemy URL of the database (created if missing; rooms in it are resumed).
    bot_threads : int
        Threads for the bots' searches.

    Returns
    -------
    fastapi.FastAPI
    """

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        store = Store(db)
        hub = Hub(store, bot_threads=bot_threads)
        app.state.hub = hub
        await hub.start()
        try:
            yield
        finally:
            await hub.stop()
            store.close()

    app = FastAPI(title="tawla", version=__version__, lifespan=lifespan,
                  description="Rooms, bots, timers and coin tables for backgammon, Tawla 31, Adi and Mahbusa.")

    @app.exception_handler(TawlaError)
    async def _tawla_error(request: Request, exc: TawlaError) -> JSONResponse:
        return JSONResponse(error_body(exc), status_code=status_of(exc))

    @app.exception_handler(RequestValidationError)
    async def _validation(request: Request, exc: RequestValidationError) -> JSONResponse:
        parts = [f"{'.'.join(str(x) for x in e.get('loc', ()))}: {e.get('msg')}" for e in exc.errors()]
        return JSONResponse({"error": "InvalidArgument", "detail": "; ".join(parts)[:2000] or "malformed body"},
                            status_code=422)

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        name = {404: "NotFound", 401: "Unauthorized", 403: "Forbidden"}.get(exc.status_code, "InvalidArgument")
        return JSONResponse({"error": name, "detail": str(exc.detail)}, status_code=exc.status_code,
                            headers=getattr(exc, "headers", None))

    def hub(request: Request) -> Hub:
        return request.app.state.hub

    E = S.ERRORS

    @app.get("/v1/health", response_model=S.Health)
    async def health() -> dict:
        return {"status": "ok"}

    @app.post("/v1/moves", response_model=S.MovesAnswer, responses=E)
    async def moves(body: S.MovesRequest) -> dict:
        return moves_of(body.ruleset, body.position, body.dice)

    @app.post("/v1/evaluate", response_model=S.EvaluateAnswer, responses=E, response_model_exclude_none=True)
    async def evaluate(request: Request, body: S.EvaluateRequest) -> dict:
        return await asyncio.get_running_loop().run_in_executor(
            hub(request).pool, evaluation_of, body.ruleset, body.position, body.dice, body.level)

    @app.post("/v1/best", response_model=S.BestAnswer, responses=E)
    async def best(request: Request, body: S.BestRequest) -> dict:
        return await asyncio.get_running_loop().run_in_executor(
            hub(request).pool, best_of, body.ruleset, body.position, body.dice, body.level)

    @app.post("/v1/accounts", response_model=S.AccountAnswer, status_code=201, responses=E)
    async def create_account(request: Request, body: S.AccountRequest) -> dict:
        return hub(request).create_account(body.name, body.house)

    @app.get("/v1/accounts/me", response_model=S.AccountView, responses=E)
    async def account_me(request: Request, token: Optional[str] = Depends(_token)) -> dict:
        h = hub(request)
        return h.store.account(h.account(token)["id"])

    @app.post("/v1/rooms", response_model=S.RoomCreated, status_code=201, responses=E)
    async def create_room(request: Request, body: S.RoomRequest, token: Optional[str] = Depends(_token)) -> dict:
        data = body.model_dump()
        if "turn_seconds" not in body.model_fields_set:
            del data["turn_seconds"]
        elif data["turn_seconds"] is not None and float(data["turn_seconds"]).is_integer():
            data["turn_seconds"] = int(data["turn_seconds"])
        return hub(request).create_room(data, token)

    @app.post("/v1/rooms/{code}/join", response_model=S.Joined, responses=E)
    async def join(request: Request, code: str, body: Optional[S.JoinRequest] = None,
                   token: Optional[str] = Depends(_token)) -> dict:
        return await hub(request).join(code, body.name if body is not None else None, token)

    @app.post("/v1/rooms/{code}/bots", response_model=S.BotAdded, status_code=201, responses=E)
    async def add_bot(request: Request, code: str, body: Optional[S.BotRequest] = None,
                      token: Optional[str] = Depends(_token)) -> dict:
        return await hub(request).add_bot(code, token, body.level if body is not None else "ply0")

    # The room's state is built and encoded once per version (Room.state_json), so these two
    # answer the encoded text; the schema still documents it as RoomState.
    @app.get("/v1/rooms/{code}", response_model=S.RoomState, responses=E)
    async def room_state(request: Request, code: str, token: Optional[str] = Depends(_token)) -> Response:
        h = hub(request)
        mem = h.member(code, token)
        return Response(h.room(code).state_json(mem if mem.seat is not None else None),
                        media_type="application/json")

    @app.post("/v1/rooms/{code}/actions", response_model=S.RoomState, responses=E)
    async def action(request: Request, code: str, body: S.ActionRequest,
                     token: Optional[str] = Depends(_token)) -> Response:
        h = hub(request)
        mem = await h.act(code, token, body.engine_body())
        return Response(h.room(code).state_json(mem, with_match=False), media_type="application/json")

    @app.post("/v1/rooms/{code}/rematch", response_model=S.RoomState, responses=E)
    async def rematch(request: Request, code: str, token: Optional[str] = Depends(_token)) -> dict:
        return await hub(request).rematch(code, token)

    @app.get("/v1/tables", response_model=list[S.TableEntry])
    async def tables(request: Request) -> list:
        return hub(request).tables()

    @app.websocket("/v1/rooms/{code}/ws")
    async def room_socket(ws: WebSocket, code: str, token: str = Query(default="")) -> None:
        h: Hub = ws.app.state.hub
        await ws.accept()
        try:
            mem = h.member(code, token)
        except TawlaError as e:
            await ws.send_json({"type": "error", **error_body(e)})
            await ws.close(code=4000 + status_of(e))
            return
        room = h.room(code)
        q: asyncio.Queue = asyncio.Queue()
        writer = asyncio.get_running_loop().create_task(_write(ws, q))
        await h.connect(room, mem, q)
        gone = True
        try:
            while True:
                text = await ws.receive_text()
                reply = await _socket_action(h, code, token, text)
                if reply is not None:
                    q.put_nowait(reply)
        except WebSocketDisconnect as e:
            gone = e.code != SERVER_RESTART  # the server is stopping: the player has not left
        finally:
            writer.cancel()
            await h.disconnect(room, mem, q, report=gone)

    app.include_router(board_router)
    if STATIC.is_dir():
        app.mount("/", StaticFiles(directory=STATIC, html=True), name="static")
    return app


async def _write(ws: WebSocket, q: asyncio.Queue) -> None:
    """Send the frames queued for one socket, in order."""
    with contextlib.suppress(Exception):
        while True:
            await ws.send_json(await q.get())


async def _socket_action(h: Hub, code: str, token: str, text: str) -> Optional[dict[str, Any]]:
    """One message of a socket: an action as for ``POST .../actions``. The answer: an error
    frame (malformed, or refused), or ``{"type": "ok", "action"}`` (the state follows)."""
    try:
        data = json.loads(text)
        body = S.ActionRequest.model_validate(data)
    except (ValueError, ValidationError) as e:
        detail = " ".join(str(e).split())[:500]
        return {"type": "error", "error": "InvalidArgument", "detail": f"a message is an action object: {detail}"}
    try:
        await h.act(code, token, body.engine_body())
    except TawlaError as e:
        return {"type": "error", "status": status_of(e), **error_body(e)}
    return {"type": "ok", "action": body.action}
