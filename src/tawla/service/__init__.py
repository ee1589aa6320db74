"""``tawla serve``: the match engine behind HTTP and WebSockets (needs the ``serve`` extra).

:func:`create_app` builds the FastAPI application; :func:`serve` runs it with uvicorn. The
contract (JSON under ``/v1``, bearer tokens) is described in the README's "Serving games".

Parts, one module each: the database (:mod:`~tawla.service.store`), a room and its state
(:mod:`~tawla.service.rooms`), the running rooms put together (:mod:`~tawla.service.hub`) from
their registry, lobby, actions, writes, settlement, timers, bot driver and sockets (a module
each, listed there), the WebSocket endpoint (:mod:`~tawla.service.sockets`), what one client
may cost (:mod:`~tawla.service.limits`), the metrics (:mod:`~tawla.service.metrics`), what
needs no room (:mod:`~tawla.service.views`), the bodies (:mod:`~tawla.service.schemas`), the
error answers (:mod:`~tawla.service.answers`), the routers by resource
(:mod:`~tawla.service.routes`) and the application (:mod:`~tawla.service.app`). The web board is served from ``static/`` at ``/``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Optional

from .app import create_app

if TYPE_CHECKING:
    from .limits import Limits

__all__ = ["create_app", "serve", "DEFAULT_DB", "LOG_LEVELS"]

DEFAULT_DB = "sqlite:///tawla-serve.db"
"""The database when none is given: an SQLite file in the working directory."""


LOG_LEVELS = ("debug", "info", "warning", "error")
"""The levels of ``tawla serve --log-level``; at ``info`` and below each request is logged
(uvicorn's access log: client, method, path, status)."""

GRACEFUL_SECONDS = 5
"""Seconds a stopping server (SIGTERM, Ctrl-C) waits for requests and sockets before it
closes them."""


def serve(host: str = "127.0.0.1", port: int = 8000, db: str = DEFAULT_DB, *, log_level: str = "info",
          limits: Optional["Limits"] = None, announce: Callable[[str], None] = print,
          redis: str | None = None, workers: int = 1) -> None:
    """Run the service with uvicorn until interrupted (SIGINT or SIGTERM: it stops within
    :data:`GRACEFUL_SECONDS`).

    Parameters
    ----------
    host : str
        The address to listen on (default loopback only).
    port : int
        The TCP port (0: any free one).
    db : str
        An SQLAlchemy URL.
    log_level : str
        One of :data:`LOG_LEVELS`.
    limits : Limits, optional
        What one client may cost (:class:`tawla.service.limits.Limits`).
    announce : callable
        Called with the line that says where the service listens, once it is bound.
    redis : str, optional
        A Redis URL: the rooms are shared with every process serving the same database
        (this one's workers, other ``tawla serve`` processes, on other machines too).
    workers : int
        Processes serving the socket (more than one needs ``redis``; each is
        :func:`tawla.service.app.app_from_env`).

    Raises
    ------
    tawla.errors.ConfigError
        Several workers without Redis, or on an SQLite database in memory.
    """
    import json
    import os
    import socket

    import uvicorn

    from ..errors import ConfigError
    from .app import ENV_DB, ENV_LIMITS, ENV_REDIS
    from .limits import Limits

    limits = limits or Limits()
    if workers > 1 and not redis:
        raise ConfigError("several workers share their rooms through Redis: give --redis URL")
    if workers > 1 and db.startswith("sqlite") and ":memory:" in db:
        raise ConfigError("several workers need one database: not SQLite in memory")
    family, kind, proto, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
    sock = socket.socket(family, kind, proto)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(address)
    sock.listen(2048)  # connections wait in the backlog until the application has started
    bound = sock.getsockname()
    shown = f"[{bound[0]}]" if family == socket.AF_INET6 else bound[0]
    # frames are small JSON: compressing them costs more CPU than it saves on loopback or a LAN
    common = dict(log_level=log_level, access_log=True, ws_max_size=4 * limits.frame_bytes,
                  ws_per_message_deflate=False, timeout_graceful_shutdown=GRACEFUL_SECONDS)
    shared = f"; rooms shared through Redis, {workers} worker{'s' if workers > 1 else ''}" if redis else ""
    announce(f"tawla serve: listening on http://{shown}:{bound[1]} (database {db}{shared}; log level {log_level}; "
             f"stop with Ctrl-C or SIGTERM)")
    if workers <= 1:
        config = uvicorn.Config(create_app(db, limits=limits, redis=redis), **common)  # type: ignore[arg-type]
        uvicorn.Server(config).run(sockets=[sock])
        return
    from uvicorn.supervisors import Multiprocess

    os.environ.update({ENV_DB: db, ENV_REDIS: redis or "", ENV_LIMITS: json.dumps(limits.as_dict())})
    config = uvicorn.Config("tawla.service.app:app_from_env", factory=True, workers=workers,
                            **common)  # type: ignore[arg-type]
    Multiprocess(config, sockets=[sock]).run()
