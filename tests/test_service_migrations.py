"""The service database's schema under Alembic: a database written by the first service (no
revision kept, each match whole in ``rooms.match``) and one with the ``events`` table but no
``rooms.version`` are upgraded in place and their rooms resume; ``tawla serve upgrade`` says
the revision; ``tawla serve migrate`` copies a deployment (SQLite to SQLite here, SQLite to
PostgreSQL where ``TAWLA_TEST_POSTGRES`` names one) with every balance checked equal, and
refuses a target that is not empty."""

from __future__ import annotations

import json
import os
import secrets
import subprocess
import sys
import time

import numpy as np
import pytest

sqlalchemy = pytest.importorskip("sqlalchemy")
pytest.importorskip("alembic")
httpx = pytest.importorskip("httpx")
pytest.importorskip("fastapi")

from conftest import IN_CI  # noqa: E402
from service_helpers import Player, Server  # noqa: E402

from tawla.match import Match  # noqa: E402
from tawla.service.migrations import HEAD, revision, upgrade  # noqa: E402
from tawla.service.store import hash_token  # noqa: E402


def _old_database(path, *, with_events_table: bool = False) -> dict:
    """A database as the first service wrote it: the baseline tables and no revision, an
    account with its starting coins and a stake in escrow, a room in play (its match whole in
    ``rooms.match``, on a numpy generator) with two seats."""
    engine = sqlalchemy.create_engine(f"sqlite:///{path}")
    upgrade(engine, "0001")
    m = Match("backgammon", "international", 3, ("Ann", "Bob"), rng=np.random.default_rng(5))
    m.play(m.to_act, str(m.legal_moves()[0]))
    tokens = {0: secrets.token_urlsafe(16), 1: secrets.token_urlsafe(16)}
    with engine.begin() as c:
        c.exec_driver_sql("DROP TABLE alembic_version")
        c.exec_driver_sql("INSERT INTO accounts (id, name, token, house, balance, created) "
                          "VALUES (1, 'Ann', 'x', 'saharat', 900, 1.0)")
        c.exec_driver_sql("INSERT INTO ledger (account, room, amount, kind, t) VALUES (1, NULL, 1000, 'start', 1.0)")
        c.exec_driver_sql("INSERT INTO ledger (account, room, amount, kind, t) VALUES (1, 'OLDRM1', -100, 'stake', 2.0)")
        c.exec_driver_sql(
            "INSERT INTO rooms (code, options, status, match, deadline, escrow, match_no, rematch, created) "
            "VALUES ('OLDRM1', ?, 'playing', ?, NULL, 100, 1, '[]', 1.0)",
            (json.dumps({"ruleset": "backgammon", "house": "international", "length": 3, "public": False,
                         "stake": 0}), m.to_json()))
        for seat, name in ((0, "Ann"), (1, "Bob")):
            c.exec_driver_sql("INSERT INTO members (room, seat, name, token, account, bot) VALUES "
                              "('OLDRM1', ?, ?, ?, NULL, NULL)", (seat, name, hash_token(tokens[seat])))
        if with_events_table:  # a later service made the table but not yet rooms.version
            c.exec_driver_sql("CREATE TABLE events (id INTEGER PRIMARY KEY, room VARCHAR(16) NOT NULL, "
                              "match_no INTEGER NOT NULL, seq INTEGER NOT NULL, event TEXT NOT NULL)")
    engine.dispose()
    return {"tokens": tokens, "to_act": m.to_act, "events": m.event_count}


def _tawla(*args, cwd) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tawla", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=120)


@pytest.mark.parametrize("with_events_table", [False, True])
def test_an_old_database_is_upgraded_in_place_and_its_room_resumes(tmp_path, with_events_table):
    path = tmp_path / "old.db"
    old = _old_database(path, with_events_table=with_events_table)
    engine = sqlalchemy.create_engine(f"sqlite:///{path}")
    assert revision(engine) is None
    engine.dispose()
    s = Server(f"sqlite:///{path}", cwd=str(tmp_path)).start()
    try:
        with httpx.Client(base_url=s.url, timeout=30) as c:
            seat = old["to_act"]
            p = Player(c, "OLDRM1", old["tokens"][seat], seat)
            state = p.state()
            assert state["phase"] == "roll" and len(state["match"]["events"]) == old["events"]
            p.ok("roll")
            assert p.state()["phase"] == "move"
    finally:
        s.stop()
    engine = sqlalchemy.create_engine(f"sqlite:///{path}")
    assert revision(engine) == HEAD
    cols = {x["name"] for x in sqlalchemy.inspect(engine).get_columns("rooms")}
    assert {"version", "dice"} <= cols and sqlalchemy.inspect(engine).has_table("rating_changes")
    with engine.connect() as c:  # the next match's dice drawn at the first start are kept
        assert json.loads(c.exec_driver_sql("SELECT dice FROM rooms").scalar_one())["commitment"]
    engine.dispose()


def test_upgrade_says_the_revision_and_runs_again_as_a_no_op(tmp_path):
    _old_database(tmp_path / "old.db")
    first = _tawla("serve", "upgrade", "--db", f"sqlite:///{tmp_path / 'old.db'}", cwd=tmp_path)
    assert first.returncode == 0 and f"none kept -> {HEAD}" in first.stdout, first.stderr
    again = _tawla("serve", "upgrade", "--db", f"sqlite:///{tmp_path / 'old.db'}", cwd=tmp_path)
    assert again.returncode == 0 and f"{HEAD} -> {HEAD}" in again.stdout
    bad = _tawla("serve", "upgrade", "--db", "nosuchdriver://x", cwd=tmp_path)
    assert bad.returncode != 0 and "ConfigError" in bad.stderr and "Traceback" not in bad.stderr


def _copy_and_serve(tmp_path, target: str) -> None:
    old = _old_database(tmp_path / "old.db")
    source = f"sqlite:///{tmp_path / 'old.db'}"
    done = _tawla("serve", "migrate", "--from", source, "--to", target, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "accounts 1, ledger 2, rooms 1, members 2" in done.stdout and "1 balances" in done.stdout
    again = _tawla("serve", "migrate", "--from", source, "--to", target, cwd=tmp_path)
    assert again.returncode != 0 and "not empty" not in again.stdout and "copy into an empty one" in again.stderr
    s = Server(target, cwd=str(tmp_path)).start()
    try:
        with httpx.Client(base_url=s.url, timeout=30) as c:
            seat = old["to_act"]
            p = Player(c, "OLDRM1", old["tokens"][seat], seat)
            assert p.state()["phase"] == "roll"
            p.ok("roll")
            r = c.post("/v1/accounts", json={"name": "new", "house": "saharat"})   # ids go on after the copied ones
            assert r.status_code == 201 and r.json()["account"]["id"] == 2
    finally:
        s.stop()
    engine = sqlalchemy.create_engine(target)
    with engine.connect() as c:
        assert c.exec_driver_sql("SELECT balance FROM accounts WHERE id = 1").scalar_one() == 900
        assert c.exec_driver_sql("SELECT SUM(amount) FROM ledger WHERE account = 1").scalar_one() == 900
    engine.dispose()


def test_migrate_copies_a_deployment_to_another_sqlite_file(tmp_path):
    _copy_and_serve(tmp_path, f"sqlite:///{tmp_path / 'new.db'}")


def test_migrate_copies_a_deployment_to_postgresql(tmp_path):
    base = os.environ.get("TAWLA_TEST_POSTGRES")
    if not base:
        if IN_CI:
            pytest.fail("TAWLA_TEST_POSTGRES is not set (.ci/run starts PostgreSQL)")
        pytest.skip("TAWLA_TEST_POSTGRES is not set: no PostgreSQL to copy to")
    pytest.importorskip("psycopg")
    url = sqlalchemy.engine.make_url(base)
    name = f"tawla_migrate_{secrets.token_hex(4)}"
    admin = sqlalchemy.create_engine(url, isolation_level="AUTOCOMMIT")
    with admin.connect() as c:
        c.exec_driver_sql(f"CREATE DATABASE {name}")
    try:
        _copy_and_serve(tmp_path, url.set(database=name).render_as_string(hide_password=False))
    finally:
        time.sleep(0.2)
        with admin.connect() as c:
            c.exec_driver_sql(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
        admin.dispose()
