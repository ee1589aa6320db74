"""``tawla serve``: the match engine behind HTTP and WebSockets (needs the ``serve`` extra).

:func:`create_app` builds the FastAPI application; :func:`serve` runs it with uvicorn. The
contract (JSON under ``/v1``, bearer tokens) is described in the README's "Serving games".

Parts, one module each: the database (:mod:`~tawla.service.store`), rooms and their state
(:mod:`~tawla.service.rooms`), the running rooms with their timers, bots, sockets and coins
(:mod:`~tawla.service.hub`), what needs no room (:mod:`~tawla.service.views`), the bodies
(:mod:`~tawla.service.schemas`) and the routes (:mod:`~tawla.service.app`). The web board is
served from ``static/`` at ``/``.
"""

from __future__ import annotations

from .app import create_app

__all__ = ["create_app", "serve", "DEFAULT_DB"]

DEFAULT_DB = "sqlite:///tawla-serve.db"
"""The database when none is given: an SQLite file in the working directory."""


def serve(host: str = "127.0.0.1", port: int = 8000, db: str = DEFAULT_DB) -> None:
    """Run the service with uvicorn until interrupted.

    Parameters
    ----------
    host : str
        The address to listen on (default loopback only).
    port : int
        The TCP port (0: any free one).
    db : str
        An SQLAlchemy URL.
    """
    import uvicorn

    uvicorn.run(create_app(db), host=host, port=port, log_level="warning")
