"""The service database's schema, versioned by Alembic: :func:`upgrade` brings a database to
the newest revision (a database made before the revisions were kept is stamped with the
baseline first), :func:`revision` says where one is. Revisions live in ``versions/``:

- ``0001`` baseline: accounts, ledger, rooms (each match whole in ``rooms.match``), members;
- ``0002`` events: the ``events`` table (one row per event after the match's document) and
  ``rooms.version``;
- ``0003`` fair dice and ratings: ``rooms.dice``, the ``ratings`` and ``rating_changes`` tables;
- ``0004`` snapshots: ``rooms.snapshot``;
- ``0005`` the deployment's id (``deployment``), drawn once.

Each revision adds only what is missing, so databases written by any earlier service (some
had the ``events`` table without ``rooms.version``) are upgraded in place.
"""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from sqlalchemy import inspect
from sqlalchemy.engine import Engine

__all__ = ["upgrade", "revision", "HEAD", "BASELINE"]

HEAD = "0005"
"""The newest revision."""
BASELINE = "0001"
"""The schema of the first service, which kept no revision."""
_HERE = Path(__file__).resolve().parent
_LOCK_KEY = int.from_bytes(b"tawla", "big")
"""The PostgreSQL advisory lock held while a process upgrades the schema."""


def _config(connection) -> Config:
    cfg = Config()
    cfg.set_main_option("script_location", str(_HERE))
    cfg.attributes["connection"] = connection
    return cfg


def revision(engine: Engine) -> str | None:
    """The database's revision (None: none kept, an empty database or one from before)."""
    with engine.connect() as c:
        return MigrationContext.configure(c).get_current_revision()


def upgrade(engine: Engine, to: str = "head") -> None:
    """Bring the database to revision ``to`` (default the newest), in one transaction; a
    database with the service's tables and no revision is stamped ``0001`` first. Several
    processes may call it at once (on PostgreSQL under an advisory lock; SQLite's
    transactions are exclusive)."""
    with engine.begin() as c:
        if c.dialect.name == "postgresql":
            c.exec_driver_sql(f"SELECT pg_advisory_xact_lock({_LOCK_KEY})")
        cfg = _config(c)
        have = MigrationContext.configure(c).get_current_revision()
        if have is None and inspect(c).has_table("rooms"):
            command.stamp(cfg, BASELINE)
        command.upgrade(cfg, to)
