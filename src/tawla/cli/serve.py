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
    p.add_argument("task", nargs="?", default="run", choices=("run", "upgrade", "migrate"),
                   help="run (the default): serve; upgrade: bring --db to the newest schema in place and exit; "
                        "migrate: copy the deployment --from URL --to URL (an empty database), checked after")
    p.add_argument("--from", dest="source", default=None, metavar="URL", help="migrate: the database copied")
    p.add_argument("--to", dest="target", default=None, metavar="URL", help="migrate: the empty database it goes to")
    p.add_argument("--host", default="127.0.0.1", help="the address to listen on (default: %(default)s)")
    p.add_argument("--port", type=int, default=8000, help="the TCP port (default: %(default)s)")
    p.add_argument("--db", default=None,
                   help="an SQLAlchemy database URL (default: sqlite:///tawla-serve.db, in the working directory)")
    p.add_argument("--redis", default=None, metavar="URL",
                   help="a Redis URL (e.g. redis://127.0.0.1:6379/0): share the rooms with every process serving "
                        "the same --db (needs the scale extra)")
    p.add_argument("--workers", type=int, default=1,
                   help="processes serving this port (more than 1 needs --redis; default: %(default)s)")
    p.add_argument("--log-level", default="info", choices=("debug", "info", "warning", "error"),
                   help="what is logged to stderr; at info, one access-log line per request (default: %(default)s)")
    p.add_argument("--limit", action="append", default=[], metavar="NAME=VALUE",
                   help="change one of the limits of tawla.service.limits.Limits, e.g. frames_per_second=20, "
                        "spectators=32, grace_floor=30 (repeatable)")
    p.set_defaults(run=run)
    return p


def run(args: argparse.Namespace) -> int:
    """Serve until interrupted, or upgrade or copy a database (``task``); exit status 0.

    Raises
    ------
    tawla.errors.ConfigError
        The serve extra (FastAPI, uvicorn, SQLAlchemy, prometheus_client) is not installed, a
        ``--limit`` that is not one, a database URL that does not open, or a copy into a
        database that is not empty.
    tawla.errors.FormatError
        A copy that differs from its source (nothing is written).
    """
    try:
        from .. import service
        from ..service.limits import Limits
    except ImportError as e:
        raise ConfigError(f"tawla serve needs the serve extra (pip install 'tawla-engine[serve]'): {e}") from None
    if args.task == "upgrade":
        return _upgrade(args.db or service.DEFAULT_DB)
    if args.task == "migrate":
        return _migrate(args.source, args.target)
    limits = Limits.from_pairs(args.limit)
    if args.workers < 1:
        raise ConfigError(f"--workers is at least 1, not {args.workers}")
    service.serve(args.host, args.port, args.db or service.DEFAULT_DB, log_level=args.log_level, limits=limits,
                  announce=lambda line: print(line, flush=True), redis=args.redis, workers=args.workers)
    return 0


def _upgrade(db: str) -> int:
    from ..service.migrations import HEAD, revision, upgrade

    from ..service.migrations.copy_db import opened

    with opened(db) as engine:
        before = revision(engine)
        upgrade(engine)
        print(f"{db}: schema revision {before or 'none kept'} -> {revision(engine)} (newest: {HEAD})")
    return 0


def _migrate(source: str | None, target: str | None) -> int:
    if not source or not target:
        raise ConfigError("tawla serve migrate needs --from URL and --to URL")
    from ..service.migrations.copy_db import copy_database

    copied = copy_database(source, target)
    checked = copied.pop("accounts_checked")
    rows = ", ".join(f"{name} {n}" for name, n in copied.items())
    print(f"copied {source} -> {target}: {rows}; {checked} balances and ledgers checked equal")
    return 0
