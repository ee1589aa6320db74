"""``tawla serve``: run the game service (rooms, bots, timers, coin tables) over HTTP."""

from __future__ import annotations

import argparse

from ..errors import ConfigError

__all__ = ["add_parser", "run"]

HELP = "run the game service: rooms, bots, timers and coin tables over HTTP (needs the serve extra)"
DESCRIPTION = (
    "Serve the JSON API under /v1 (the OpenAPI schema at /openapi.json) and the web board at /, "
    "with every accepted action written to the database before it is acknowledged; rooms in the "
    "database are resumed at start, and a deadline that passed while the server was down fires then. "
    "Needs the serve extra: pip install 'tawla-engine[serve]'."
)


def add_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Register ``serve`` on the ``tawla`` parser's subparsers."""
    p = subparsers.add_parser("serve", help=HELP, description=DESCRIPTION)
    p.add_argument("--host", default="127.0.0.1", help="the address to listen on (default: %(default)s)")
    p.add_argument("--port", type=int, default=8000, help="the TCP port (default: %(default)s)")
    p.add_argument("--db", default=None,
                   help="an SQLAlchemy database URL (default: sqlite:///tawla-serve.db, in the working directory)")
    p.set_defaults(run=run)
    return p


def run(args: argparse.Namespace) -> int:
    """Serve until interrupted; exit status 0.

    Raises
    ------
    tawla.errors.ConfigError
        The serve extra (FastAPI, uvicorn, SQLAlchemy) is not installed.
    """
    try:
        from .. import service
    except ImportError as e:
        raise ConfigError(f"tawla serve needs the serve extra (pip install 'tawla-engine[serve]'): {e}") from None
    service.serve(args.host, args.port, args.db or service.DEFAULT_DB)
    return 0
