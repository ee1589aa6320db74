"""The FastAPI application: the routers of the JSON API under ``/v1`` (:mod:`~tawla.service.routes`,
one per resource), the error answers (:mod:`~tawla.service.answers`), the
metrics (:mod:`~tawla.service.metrics`) and the static files at ``/``.

Request bodies are limited to :attr:`Limits.body_bytes` (413); a body that is not JSON,
or sent without ``Content-Type: application/json``, is a 422 whose message says so.
"""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path
from typing import AsyncIterator

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException

from .._version import __version__
from ..errors import ConfigError, TawlaError
from .answers import error_body, status_of
from .board_svg import router as board_router
from .hub import Hub
from .limits import BodyLimit, Limits
from .metrics import Metrics
from .routes import ROUTERS
from .store import Store

__all__ = ["create_app", "app_from_env", "STATIC", "status_of", "error_body", "ENV_DB", "ENV_REDIS", "ENV_LIMITS"]

ENV_DB, ENV_REDIS, ENV_LIMITS = "TAWLA_SERVE_DB", "TAWLA_SERVE_REDIS", "TAWLA_SERVE_LIMITS"
"""The environment of :func:`app_from_env`: the database URL, the Redis URL (may be empty),
the limits as JSON (:meth:`~tawla.service.limits.Limits.as_dict`)."""

STATIC = Path(__file__).with_name("static")
"""The folder served at ``/`` (the web board)."""

def create_app(db: str = "sqlite:///tawla-serve.db", *, bot_threads: int = 2,
               limits: Limits | None = None, redis: str | None = None) -> FastAPI:
    """The service as an ASGI application.

    Parameters
    ----------
    db : str
        The SQLAlchemy URL of the database (created if missing; rooms in it are resumed).
    bot_threads : int
        Threads for the bots' searches.
    limits : Limits, optional
        What one client may cost (default :class:`~tawla.service.limits.Limits`).
    redis : str, optional
        A Redis URL: the rooms are shared with the other processes serving the same database
        (:mod:`~tawla.service.coordination`).

    Returns
    -------
    fastapi.FastAPI
    """
    limits = limits or Limits()
    metrics = Metrics()

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        store = Store(db)
        hub = Hub(store, bot_threads=bot_threads, limits=limits, metrics=metrics, redis_url=redis)
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

    for router in ROUTERS:
        app.include_router(router)
    app.include_router(board_router)
    if STATIC.is_dir():
        app.mount("/", StaticFiles(directory=STATIC, html=True), name="static")
    return app


def app_from_env() -> FastAPI:
    """:func:`create_app` configured by the environment (:data:`ENV_DB`, :data:`ENV_REDIS`,
    :data:`ENV_LIMITS`): the application each worker process of ``tawla serve --workers N``
    builds.

    Raises
    ------
    tawla.errors.ConfigError
        No database in the environment, or limits that do not read.
    """
    db = os.environ.get(ENV_DB)
    if not db:
        raise ConfigError(f"{ENV_DB} names the database of the service")
    try:
        limits = Limits(**json.loads(os.environ.get(ENV_LIMITS) or "{}"))
    except (ValueError, TypeError) as e:
        raise ConfigError(f"{ENV_LIMITS} is not the limits as JSON: {e}") from None
    return create_app(db, limits=limits, redis=os.environ.get(ENV_REDIS) or None)
