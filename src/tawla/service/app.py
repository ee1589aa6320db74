"""The FastAPI application: the routes of the JSON API under ``/v1``, the room's WebSocket
(:mod:`~tawla.service.sockets`), the error answers (:mod:`~tawla.service.answers`), the
metrics (:mod:`~tawla.service.metrics`) and the static files at ``/``.

Request bodies are limited to :attr:`Limits.body_bytes` (413); a body that is not JSON,
or sent without ``Content-Type: application/json``, is a 422 whose message says so.
"""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path
from typing import AsyncIterator, Optional

from fastapi import Depends, FastAPI, Request, WebSocket
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException

from .._version import __version__
from ..errors import TawlaError
from . import schemas as S
from .answers import error_body, status_of
from .board import router as board_router
from .hub import Hub
from .limits import BodyLimit, Limits
from .metrics import CONTENT_TYPE, Metrics
from .sockets import room_socket
from .store import Store
from .views import best_of, cube_of, evaluation_of, moves_of

__all__ = ["create_app", "STATIC", "status_of", "error_body"]

STATIC = Path(__file__).with_name("static")
"""The folder served at ``/`` (the web board)."""

_bearer = HTTPBearer(auto_error=False, description="the token of an account, a seat or a spectator")


def _address(request: Request) -> str:
    """The client's address (the peer of the connection)."""
    return request.client.host if request.client is not None else ""


def _token(cred: Optional[HTTPAuthorizationCredentials] = Depends(_bearer)) -> Optional[str]:
    return cred.credentials if cred is not None else None


def create_app(db: str = "sqlite:///tawla-serve.db", *, bot_threads: int = 2,
               limits: Limits | None = None) -> FastAPI:
    """The service as an ASGI application.

    Parameters
    ----------
    db : str
        The SQLAlchemy URL of the database (created if missing; rooms in it are resumed).
    bot_threads : int
        Threads for the bots' searches.
    limits : Limits, optional
        What one client may cost (default :class:`~tawla.service.limits.Limits`).

    Returns
    -------
    fastapi.FastAPI
    """
    limits = limits or Limits()
    metrics = Metrics()

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        store = Store(db)
        hub = Hub(store, bot_threads=bot_threads, limits=limits, metrics=metrics)
        app.state.hub = hub
        await hub.start()
        try:
            yield
        finally:
            await hub.stop()
            store.close()

    app = FastAPI(title="tawla", version=__version__, lifespan=lifespan,
                  description="Rooms, bots, timers and coin tables for backgammon, Tawla 31, Adi and Mahbusa.")

    app.add_middleware(BodyLimit, limit=limits.body_bytes)

    @app.exception_handler(TawlaError)
    async def _tawla_error(request: Request, exc: TawlaError) -> JSONResponse:
        metrics.error(exc)
        return JSONResponse(error_body(exc), status_code=status_of(exc))

    @app.exception_handler(RequestValidationError)
    async def _validation(request: Request, exc: RequestValidationError) -> JSONResponse:
        metrics.error("InvalidArgument")
        parts = [f"{'.'.join(str(x) for x in e.get('loc', ()))}: {e.get('msg')}" for e in exc.errors()]
        kind = (request.headers.get("content-type") or "").split(";")[0].strip().lower()
        if kind != "application/json" and any(e.get("loc", ("",))[0] == "body" for e in exc.errors()):
            parts.insert(0, "the body is JSON: send it with the header 'Content-Type: application/json'"
                            + (f" (not {kind!r})" if kind else " (none was sent)"))
        return JSONResponse({"error": "InvalidArgument", "detail": "; ".join(parts)[:2000] or "malformed body"},
                            status_code=422)

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        name = {404: "NotFound", 401: "Unauthorized", 403: "Forbidden"}.get(exc.status_code, "InvalidArgument")
        metrics.error(name)
        return JSONResponse({"error": name, "detail": str(exc.detail)}, status_code=exc.status_code,
                            headers=getattr(exc, "headers", None))

    def hub(request: Request) -> Hub:
        return request.app.state.hub

    E = S.ERRORS

    @app.get("/v1/health", response_model=S.Health)
    async def health() -> dict:
        return {"status": "ok"}

    @app.get("/v1/metrics", response_class=Response,
             responses={200: {"content": {"text/plain": {"schema": {"type": "string"}}},
                              "description": "Prometheus's text format (tawla.service.metrics)"}})
    async def metrics_text(request: Request) -> Response:
        """Actions, their time, errors, rooms and sockets in Prometheus's text format."""
        h = hub(request)
        return Response(metrics.render(r.status for r in h.rooms.values()), media_type=CONTENT_TYPE)

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

    @app.post("/v1/cube", response_model=S.CubeAnswer, responses=E)
    async def cube(request: Request, body: S.CubeRequest) -> dict:
        return await asyncio.get_running_loop().run_in_executor(
            hub(request).pool, cube_of, body.ruleset, body.position, body.length, body.score, body.cube,
            body.owner, body.crawford, body.level)

    @app.post("/v1/accounts", response_model=S.AccountAnswer, status_code=201, responses=E)
    async def create_account(request: Request, body: S.AccountRequest) -> dict:
        return hub(request).create_account(body.name, body.house, _address(request))

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
        return hub(request).create_room(data, token, _address(request))

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
        mem, room = await hub(request).act(code, token, body.engine_body())
        return Response(room.state_json(mem, with_match=False), media_type="application/json")

    @app.post("/v1/rooms/{code}/rematch", response_model=S.RoomState, responses=E)
    async def rematch(request: Request, code: str, token: Optional[str] = Depends(_token)) -> dict:
        return await hub(request).rematch(code, token)

    @app.get("/v1/tables", response_model=list[S.TableEntry])
    async def tables(request: Request) -> list:
        return hub(request).tables()

    @app.websocket("/v1/rooms/{code}/ws")
    async def socket(ws: WebSocket, code: str) -> None:
        await room_socket(ws, code)

    app.include_router(board_router)
    if STATIC.is_dir():
        app.mount("/", StaticFiles(directory=STATIC, html=True), name="static")
    return app
