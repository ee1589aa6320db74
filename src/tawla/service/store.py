"""The service's database: rooms, their seats and tokens, matches, accounts and the ledger.

SQLAlchemy 2 Core over any database URL; SQLite (the default, a file in the working
directory) runs in WAL mode with ``synchronous=NORMAL``, which keeps every committed
transaction through a crash of the process (``kill -9``), and each transaction starts with
``BEGIN IMMEDIATE`` so that two writers never interleave. Every call here is one short
transaction on the store's one connection, made under a process-wide lock; the service calls them before it
acknowledges what they record.

Tables
------
``accounts``   id, name, token (sha256 hex), house, balance (coins, never negative), created
``ledger``     every change of a balance: account (NULL for the house's rake), room, amount
               (coins, signed), kind (``start``, ``stake``, ``refund``, ``prize``, ``rake``), t
``rooms``      code, options (JSON), status (``waiting``, ``playing``, ``over``, ``closed``),
               match (the engine's JSON as of the match's start, random generator included:
               never sent to a client), deadline (absolute, seconds since the epoch), escrow
               (coins held), match_no, rematch (JSON list of seats asking for one), created,
               version (the room's version as last written; NULL in databases written before it),
               dice (the provably fair dice of the room's next match, secret seed included:
               never sent to a client; NULL in databases written before it), snapshot (the
               match's state after its first events, :meth:`tawla.Match.snapshot`, written every
               :data:`~tawla.service.rooms.SNAPSHOT_EVERY` events: a room is rebuilt from it and
               the events after it; NULL: from the match's document)
``events``     the match's log after the document in ``rooms.match``: room, match_no, seq (the
               event's index in the match's log), event (its JSON); one row per event,
               appended with the action that made it, so that an action costs its own events
               and not a rewrite of the match
``members``    room, seat (0, 1, or NULL for a spectator), name, token (sha256 hex, NULL for a
               bot), account, bot (its level)
``deployment`` id: a random name drawn once for this database (the Redis keys of the processes
               serving it are named after it)
``ratings``, ``rating_changes``
               players' Glicko-2 ratings and their changes (:mod:`~tawla.service.rating_tables`)
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from typing import Any, Iterable

from sqlalchemy import (CheckConstraint, bindparam, Column, Float, Index, Integer, MetaData, String, Table, Text,
                        create_engine, event, func, insert, select, update)
from sqlalchemy.engine import Connection, Engine

from ..errors import InvalidAction
from . import rating_tables as RT
from .migrations import upgrade
from .status import RoomStatus

__all__ = ["Store", "hash_token", "STARTING_BALANCE"]

STARTING_BALANCE = {"saharat": 1000, "federation": 1000, "international": 1000}
"""Coins a new account starts with, per house."""

ROOM_COLUMNS = ("status", "deadline", "match_no", "rematch", "version")
ROOM_FIELDS = set(ROOM_COLUMNS)
"""The columns of a room that change with each action (:meth:`Store.save_room`); ``match``
changes only when a match starts."""

metadata = MetaData()

accounts = Table(
    "accounts", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("name", String(200), nullable=False),
    Column("token", String(64), nullable=False, unique=True),
    Column("house", String(40), nullable=False),
    Column("balance", Integer, CheckConstraint("balance >= 0", name="balance_not_negative"), nullable=False),
    Column("created", Float, nullable=False),
)

ledger = Table(
    "ledger", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("account", Integer, nullable=True, index=True),
    Column("room", String(16), nullable=True),
    Column("amount", Integer, nullable=False),
    Column("kind", String(16), nullable=False),
    Column("t", Float, nullable=False),
)

rooms = Table(
    "rooms", metadata,
    Column("code", String(16), primary_key=True),
    Column("options", Text, nullable=False),
    Column("status", String(16), nullable=False),
    Column("match", Text, nullable=True),
    Column("deadline", Float, nullable=True),
    Column("escrow", Integer, nullable=False, default=0),
    Column("match_no", Integer, nullable=False, default=0),
    Column("rematch", Text, nullable=False, default="[]"),
    Column("created", Float, nullable=False),
    Column("version", Integer, nullable=True),
    Column("dice", Text, nullable=True),
    Column("snapshot", Text, nullable=True),
)

events = Table(
    "events", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("room", String(16), nullable=False),
    Column("match_no", Integer, nullable=False),
    Column("seq", Integer, nullable=False),
    Column("event", Text, nullable=False),
    Index("events_of_a_match", "room", "match_no", "seq", unique=True),
)

members = Table(
    "members", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("room", String(16), nullable=False, index=True),
    Column("seat", Integer, nullable=True),
    Column("name", String(200), nullable=False),
    Column("token", String(64), nullable=True, unique=True),
    Column("account", Integer, nullable=True),
    Column("bot", String(16), nullable=True),
)


def hash_token(token: str) -> str:
    """The sha256 hex digest under which a bearer token is stored."""
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def _sqlite_pragmas(engine: Engine) -> None:
    @event.listens_for(engine, "connect")
    def _connect(dbapi_conn, _record):  # pragma: no cover - called by the pool
        dbapi_conn.isolation_level = None  # SQLAlchemy's "begin" below issues BEGIN itself
        cur = dbapi_conn.cursor()
        cur.execute("PRAGMA journal_mode=WAL")
        cur.execute("PRAGMA synchronous=NORMAL")
        cur.execute("PRAGMA busy_timeout=10000")
        cur.close()

    @event.listens_for(engine, "begin")
    def _begin(conn):  # pragma: no cover - called by SQLAlchemy
        conn.exec_driver_sql("BEGIN IMMEDIATE")


class Store:
    """The database behind a service (see the module's docstring for the tables).

    Parameters
    ----------
    url : str
        An SQLAlchemy URL, e.g. ``sqlite:///tawla-serve.db`` or ``postgresql://...``.

    Every method is one transaction, committed when it returns.
    """

    def __init__(self, url: str) -> None:
        self.url = url
        kwargs: dict[str, Any] = {}
        if url.startswith("sqlite"):
            kwargs["connect_args"] = {"check_same_thread": False}
        self.engine = create_engine(url, **kwargs)
        if self.engine.dialect.name == "sqlite":
            _sqlite_pragmas(self.engine)
        self._lock = threading.Lock()
        upgrade(self.engine)  # the schema's newest revision (tawla.service.migrations)
        with self.engine.connect() as c:
            self.deployment: str = c.exec_driver_sql("SELECT id FROM deployment").scalar_one()
        self._conn = self.engine.connect()  # one connection, used under the lock
        self._sqlite = self.engine.dialect.name == "sqlite"
        self._save = (update(rooms).where(rooms.c.code == bindparam("room_code"))  # built once: compiled once
                      .values({k: bindparam(k) for k in ROOM_FIELDS}))

    def close(self) -> None:
        """Close the connection and the pool."""
        with self._lock:
            self._conn.close()
        self.engine.dispose()

    def _tx(self):
        return _Tx(self)

    # ---------------------------------------------------------------- accounts and ledger
    def create_account(self, name: str, house: str, token: str) -> dict:
        """A new account with the house's starting balance (a ``start`` ledger entry)."""
        now = time.time()
        balance = STARTING_BALANCE.get(house, 1000)
        with self._tx() as c:
            aid = c.execute(insert(accounts).values(name=name, token=hash_token(token), house=house,
                                                    balance=balance, created=now)).inserted_primary_key[0]
            c.execute(insert(ledger).values(account=aid, room=None, amount=balance, kind="start", t=now))
        return {"id": aid, "name": name, "house": house, "balance": balance}

    def account_by_token(self, token: str) -> dict | None:
        """The account of a bearer token, or None."""
        with self._tx() as c:
            row = c.execute(select(accounts).where(accounts.c.token == hash_token(token))).mappings().first()
        return dict(row) if row is not None else None

    def account(self, account_id: int) -> dict:
        """An account with its ledger entries (oldest first)."""
        with self._tx() as c:
            row = c.execute(select(accounts).where(accounts.c.id == account_id)).mappings().one()
            entries = c.execute(select(ledger).where(ledger.c.account == account_id).order_by(ledger.c.id))
            out = dict(row)
            out.pop("token")
            out["ledger"] = [dict(e) for e in entries.mappings()]
        return out

    def totals(self) -> dict:
        """``{"balances", "escrow", "rake"}``: coins on accounts, held by rooms, and raked."""
        with self._tx() as c:
            b = c.execute(select(func.coalesce(func.sum(accounts.c.balance), 0))).scalar_one()
            e = c.execute(select(func.coalesce(func.sum(rooms.c.escrow), 0))).scalar_one()
            r = c.execute(select(func.coalesce(func.sum(ledger.c.amount), 0))
                          .where(ledger.c.kind == "rake")).scalar_one()
            s = c.execute(select(func.coalesce(func.sum(ledger.c.amount), 0))
                          .where(ledger.c.kind == "start")).scalar_one()
        return {"balances": int(b), "escrow": int(e), "rake": int(r), "issued": int(s)}

    @staticmethod
    def _debit(c: Connection, account_id: int, room: str, stake: int, now: float) -> None:
        res = c.execute(update(accounts).where(accounts.c.id == account_id, accounts.c.balance >= stake)
                        .values(balance=accounts.c.balance - stake))
        if res.rowcount != 1:
            raise InvalidAction(f"the account's balance is below the stake of {stake} coins")
        c.execute(insert(ledger).values(account=account_id, room=room, amount=-stake, kind="stake", t=now))
        c.execute(update(rooms).where(rooms.c.code == room).values(escrow=rooms.c.escrow + stake))

    @staticmethod
    def _credit(c: Connection, account_id: int | None, room: str, amount: int, kind: str, now: float) -> None:
        if amount <= 0:
            return
        if account_id is not None:
            c.execute(update(accounts).where(accounts.c.id == account_id)
                      .values(balance=accounts.c.balance + amount))
        c.execute(insert(ledger).values(account=account_id, room=room, amount=amount, kind=kind, t=now))
        c.execute(update(rooms).where(rooms.c.code == room).values(escrow=rooms.c.escrow - amount))

    # ---------------------------------------------------------------- rooms
    def create_room(self, code: str, options: dict, host: dict, dice: str | None = None) -> None:
        """Insert a waiting room and its host (seat 0), debiting a coin table's stake; ``dice``
        is the JSON of its first match's fair dice (:meth:`tawla.FairDice.to_json`).

        Raises
        ------
        tawla.errors.InvalidAction
            The host's balance is below the stake.
        """
        now = time.time()
        with self._tx() as c:
            c.execute(insert(rooms).values(code=code, options=json.dumps(options), status=RoomStatus.WAITING.value, match=None,
                                           deadline=None, escrow=0, match_no=0, rematch="[]", created=now,
                                           dice=dice, version=0))
            self._add_member(c, code, host)
            if options.get("stake") and host.get("account") is not None:
                self._debit(c, host["account"], code, options["stake"], now)

    @staticmethod
    def _add_member(c: Connection, code: str, m: dict) -> None:
        c.execute(insert(members).values(room=code, seat=m.get("seat"), name=m["name"],
                                         token=hash_token(m["token"]) if m.get("token") else None,
                                         account=m.get("account"), bot=m.get("bot")))

    def add_member(self, code: str, member: dict, *, stake: int = 0, room: dict | None = None) -> None:
        """Insert a member (a seat, a bot or a spectator); with ``stake`` its account pays it; with
        ``room`` (``status``, ``match``, ``deadline``, ``match_no``) the room is updated too.

        Raises
        ------
        tawla.errors.InvalidAction
            The account's balance is below the stake.
        """
        now = time.time()
        with self._tx() as c:
            self._add_member(c, code, member)
            if stake:
                self._debit(c, member["account"], code, stake, now)
            if room is not None:
                c.execute(update(rooms).where(rooms.c.code == code).values(**room))

    def save_room(self, code: str, values: dict, *, settle: Iterable[tuple] = (),
                  stakes: Iterable[tuple] = (), log: Iterable[tuple] = (),
                  rated: tuple | None = None, expected: int | None = None) -> list[dict] | None:
        """Update a room (``status``, ``deadline``, ``rematch``, ``match_no``, ``version``, and
        ``match`` and ``dice`` when one starts) in one transaction with its ledger movements,
        its new events and the ratings of its match: ``settle`` as ``(account or None, amount,
        kind)`` paid out of the room's escrow, ``stakes`` as ``(account, amount)`` paid into
        it, ``log`` as ``(match_no, seq, event JSON)`` appended to the ``events`` table,
        ``rated`` as ``(match_no, ruleset, kind, (player key of seat 0, of seat 1), winner)``
        a match result to rate (:func:`~tawla.service.rating_tables.rate_result`);
        ``expected``: the room's version as the writer last read or wrote it (the write is
        refused when the database holds another: a fence for writers on several processes).

        Returns
        -------
        list of dict or None
            With ``rated``, each seat's rating change; else None.

        Raises
        ------
        tawla.errors.InvalidAction
            A balance below a stake, or a room at another version than ``expected`` (nothing
            is written).
        """
        if (self._sqlite and values.keys() == ROOM_FIELDS and expected is None and rated is None
                and not stakes and not settle):
            self._save_plain(code, values, log)
            return None
        now = time.time()
        rows = [{"room": code, "match_no": n, "seq": q, "event": e} for n, q, e in log]
        with self._tx() as c:
            if values.keys() == ROOM_FIELDS and expected is None:
                c.execute(self._save, {"room_code": code, **values})
            else:
                q = update(rooms).where(rooms.c.code == code)
                if expected is not None:  # fenced: the room as this writer last read or wrote it
                    q = q.where(rooms.c.version == expected)
                if c.execute(q.values(**values)).rowcount != 1 and expected is not None:
                    raise InvalidAction(f"room {code} was changed by another process meanwhile: try again")
            for account_id, amount in stakes:
                self._debit(c, account_id, code, amount, now)
            for account_id, amount, kind in settle:
                self._credit(c, account_id, code, amount, kind, now)
            if "match" in values:  # a new match: the rows of the one before have no document now
                c.execute(events.delete().where(events.c.room == code, events.c.match_no < values["match_no"]))
            if rows:
                c.execute(insert(events), rows)
            if rated is not None:
                match_no, ruleset, kind, players, winner = rated
                return RT.rate_result(c, code, match_no, ruleset, kind, players, winner)
        return None

    _PLAIN_UPDATE = f"UPDATE rooms SET {', '.join(f'{k}=?' for k in ROOM_COLUMNS)} WHERE code=?"
    _PLAIN_INSERT = "INSERT INTO events (room, match_no, seq, event) VALUES (?, ?, ?, ?)"

    def _save_plain(self, code: str, values: dict, log: Iterable[tuple]) -> None:
        """The common write of an action on SQLite (the room's changing columns and its new
        events, nothing else), as two prepared statements on the driver's connection in one
        ``BEGIN IMMEDIATE`` transaction: a third of the cost of the same through SQLAlchemy."""
        params = (*(values[k] for k in ROOM_COLUMNS), code)
        rows = [(code, n, q, e) for n, q, e in log]
        with self._lock:
            raw: Any = self._conn.connection.driver_connection
            raw.execute("BEGIN IMMEDIATE")
            try:
                if rows:
                    raw.executemany(self._PLAIN_INSERT, rows)
                raw.execute(self._PLAIN_UPDATE, params)
            except BaseException:
                raw.execute("ROLLBACK")
                raise
            raw.execute("COMMIT")

    def load(self) -> list[dict]:
        """Every room not closed, with its ``members`` (a list of dicts, tokens hashed),
        ``events`` (the JSON texts of its current match's events after those of ``match``, in
        order) and ``ratings`` (its finished match's rating changes, or None)."""
        with self._tx() as c:
            return self._rooms(c, rooms.c.status != RoomStatus.CLOSED.value)

    def load_room(self, code: str, since: tuple[int, int] | None = None) -> dict | None:
        """One room as :meth:`load` gives it (closed or not), or None; with ``since``
        ``(match_no, seq)``, of that match's events only those from ``seq`` on."""
        with self._tx() as c:
            got = self._rooms(c, rooms.c.code == code, since)
        return got[0] if got else None

    @staticmethod
    def _rooms(c: Connection, where: Any, since: tuple[int, int] | None = None) -> list[dict]:
        out = [dict(r) for r in c.execute(select(rooms).where(where)).mappings()]
        by_code = {r["code"]: r for r in out}
        for r in out:
            r["members"] = []
            r["events"] = []
        one = [out[0]["code"]] if len(out) == 1 else None
        q = select(members).order_by(members.c.id)
        for m in c.execute(q.where(members.c.room.in_(one)) if one else q).mappings():
            if m["room"] in by_code:
                by_code[m["room"]]["members"].append(dict(m))
        q = select(events.c.room, events.c.match_no, events.c.event).order_by(events.c.room, events.c.match_no,
                                                                           events.c.seq)
        if one and since is not None:
            q = q.where(events.c.match_no == since[0], events.c.seq >= since[1])
        for e in c.execute(q.where(events.c.room.in_(one)) if one else q):
            owner = by_code.get(e.room)
            if owner is not None and e.match_no == owner["match_no"]:
                owner["events"].append(e.event)
        for r in out:
            r["ratings"] = (RT.changes_of_match(c, r["code"], r["match_no"])
                            if r["status"] == RoomStatus.OVER.value else None)
        return out

    def room_version(self, code: str) -> int | None:
        """The version of room ``code`` as last written (None: no such room, or never written)."""
        with self._tx() as c:
            return c.execute(select(rooms.c.version).where(rooms.c.code == code)).scalar_one_or_none()

    def room_of_token(self, token_hash: str) -> str | None:
        """The code of the room where the member with this hashed token sits, or None."""
        with self._tx() as c:
            return c.execute(select(members.c.room).where(members.c.token == token_hash)).scalar_one_or_none()

    def due_rooms(self, now: float) -> list[str]:
        """The codes of the rooms in play whose deadline is at or before ``now`` (seconds since
        the epoch)."""
        with self._tx() as c:
            return list(c.execute(select(rooms.c.code).where(rooms.c.status == RoomStatus.PLAYING.value,
                                                              rooms.c.deadline <= now)).scalars())

    def waiting_rooms(self) -> list[str]:
        """The codes of the rooms waiting for a player (public or not: the caller checks)."""
        with self._tx() as c:
            return list(c.execute(select(rooms.c.code).where(rooms.c.status == RoomStatus.WAITING.value)).scalars())

    # ---------------------------------------------------------------- ratings
    @staticmethod
    def _names(c: Connection):
        def names(keys: Iterable[str]) -> dict[str, str]:
            ids = {int(k[8:]): k for k in keys if k.startswith("account:")}
            if not ids:
                return {}
            rows = c.execute(select(accounts.c.id, accounts.c.name).where(accounts.c.id.in_(list(ids))))
            return {ids[r.id]: r.name for r in rows}
        return names

    def rating_of(self, player: str, ruleset: str, kind: str) -> float:
        """A player's rating for a ruleset and kind (a new player's, 1500, when he has none)."""
        with self._tx() as c:
            got = RT.current(c, player, ruleset, kind)
        return got[0].rating if got is not None else RT.NEW.rating

    def leaderboard(self, ruleset: str, kind: str, limit: int) -> list[dict]:
        """The best rated players of a ruleset and kind
        (:func:`~tawla.service.rating_tables.leaderboard`)."""
        with self._tx() as c:
            return RT.leaderboard(c, ruleset, kind, limit, self._names(c))

    def ratings_of(self, account_id: int, limit: int) -> dict:
        """An account's ratings and its last ``limit`` rating changes: ``{"ratings",
        "history"}`` (:func:`~tawla.service.rating_tables.player_ratings`,
        :func:`~tawla.service.rating_tables.player_history`)."""
        key = RT.account_key(account_id)
        with self._tx() as c:
            return {"ratings": RT.player_ratings(c, key), "history": RT.player_history(c, key, limit, self._names(c))}


class _Tx:
    """``with store._tx() as conn``: one transaction under the store's lock."""

    def __init__(self, store: Store) -> None:
        self.store = store

    def __enter__(self) -> Connection:
        self.store._lock.acquire()
        try:
            self._cm = self.store._conn.begin()
            self._cm.__enter__()
            return self.store._conn
        except BaseException:
            self.store._lock.release()
            raise

    def __exit__(self, *exc) -> None:
        try:
            self._cm.__exit__(*exc)
        finally:
            self.store._lock.release()
