"""A deployment copied from one database to another (``tawla serve migrate --from URL --to
URL``): both brought to the newest revision, every table copied row for row (ids kept, the
target's sequences moved past them), then the copy checked: the same rows in every table and
the same balance, ledger sum and escrow for every account and room. The copy is one
transaction on the target: a failed check leaves its tables empty (the schema made). Copy a
deployment that is stopped: the source is read table by table, so one that changes while it
is read fails the check.
"""

from __future__ import annotations

import contextlib
from typing import Any, Iterator

from sqlalchemy import create_engine, func, select
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import ArgumentError, NoSuchModuleError, OperationalError

from ...errors import ConfigError, FormatError
from .. import rating_tables as RT
from .. import store as ST
from . import upgrade

__all__ = ["copy_database", "opened", "TABLES", "BATCH"]

TABLES = (ST.accounts, ST.ledger, ST.rooms, ST.members, ST.events, RT.ratings, RT.rating_changes)
"""The tables copied, in this order."""
BATCH = 1000
"""Rows inserted per statement."""


@contextlib.contextmanager
def opened(url: str) -> Iterator[Engine]:
    """An engine of the database at ``url``, disposed after.

    Raises
    ------
    tawla.errors.ConfigError
        A URL SQLAlchemy does not read, a driver that is not installed, or a database that
        does not open.
    """
    try:
        engine = create_engine(url)
    except (ArgumentError, NoSuchModuleError, ImportError) as e:
        raise ConfigError(f"not a database URL SQLAlchemy can open: {url!r} ({e})") from None
    try:
        yield engine
    except OperationalError as e:
        raise ConfigError(f"the database {engine.url.render_as_string(hide_password=True)} does not open: "
                          f"{e.orig}") from None
    finally:
        engine.dispose()


def _fingerprint(c: Connection) -> dict[str, Any]:
    """What must be equal after a copy: rows per table, each account's balance and ledger sum,
    each room's escrow."""
    out: dict[str, Any] = {t.name: c.execute(select(func.count()).select_from(t)).scalar_one() for t in TABLES}
    out["balances"] = sorted((r.id, r.balance) for r in c.execute(select(ST.accounts.c.id, ST.accounts.c.balance)))
    out["ledger"] = sorted((r.account if r.account is not None else -1, int(r.total)) for r in c.execute(
        select(ST.ledger.c.account, func.sum(ST.ledger.c.amount).label("total")).group_by(ST.ledger.c.account)))
    out["escrow"] = sorted((r.code, r.escrow) for r in c.execute(select(ST.rooms.c.code, ST.rooms.c.escrow)))
    return out


def copy_database(source: str, target: str) -> dict[str, Any]:
    """Copy the service's database at URL ``source`` into the empty one at URL ``target``.

    Both are upgraded to the newest revision first (the source in place, as the service would
    at its start).

    Returns
    -------
    dict
        Rows copied per table, and ``accounts_checked``: accounts whose balance and ledger sum
        were found equal.

    Raises
    ------
    tawla.errors.ConfigError
        The target holds accounts or rooms already, or the two URLs are one database.
    tawla.errors.FormatError
        The copy differs from the source (nothing is written then).
    """
    if source == target:
        raise ConfigError("--from and --to are the same database")
    with opened(source) as src, opened(target) as dst:
        upgrade(src)
        upgrade(dst)
        with src.connect() as s, dst.begin() as d:
            for t in (ST.accounts, ST.rooms):
                if d.execute(select(func.count()).select_from(t)).scalar_one():
                    raise ConfigError(f"the target database has {t.name} already: copy into an empty one")
            copied = {}
            for t in TABLES:
                n = 0
                rows = s.execute(select(t).order_by(*t.primary_key.columns)).mappings()
                while batch := [dict(r) for r in rows.fetchmany(BATCH)]:
                    d.execute(t.insert(), batch)
                    n += len(batch)
                copied[t.name] = n
            if d.dialect.name == "postgresql":
                for t in TABLES:
                    if "id" in t.c:
                        d.exec_driver_sql(f"SELECT setval(pg_get_serial_sequence('{t.name}', 'id'), "
                                          f"COALESCE(MAX(id), 1), MAX(id) IS NOT NULL) FROM {t.name}")
            before, after = _fingerprint(s), _fingerprint(d)
            if before != after:
                differ = sorted(k for k in before if before[k] != after[k])
                raise FormatError(f"the copy differs from the source in {', '.join(differ)}: nothing was written")
    return {**copied, "accounts_checked": len(after["balances"])}
