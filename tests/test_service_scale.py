"""The service on several processes: two ``tawla serve`` processes over one PostgreSQL
database, sharing their rooms through Redis. A room made on one is played through the other,
the same action sent to both at once is applied once, a socket on one follows actions made
on the other, and when one process is killed (``kill -9``) mid-match the other carries the
room on and fires the deadline the dead one had armed.

Needs real servers: ``TAWLA_TEST_POSTGRES`` (an SQLAlchemy URL of a role that may create
databases) and ``TAWLA_TEST_REDIS`` (a Redis URL); ``.ci/run`` starts both on loopback. Without
them the tests skip with a reason, except under CI=true, where that is a failure.
"""

from __future__ import annotations

import json
import os
import secrets
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

httpx = pytest.importorskip("httpx")
pytest.importorskip("fastapi")

from conftest import IN_CI  # noqa: E402
from service_helpers import Player, Server, ws_connect  # noqa: E402


def _need(var: str) -> str:
    url = os.environ.get(var)
    if not url:
        msg = f"{var} is not set: no real server to test against"
        if IN_CI:
            pytest.fail(msg + " (.ci/run starts PostgreSQL and Redis)")
        pytest.skip(msg)
    return url


@pytest.fixture(scope="module")
def pg_url():
    """A fresh PostgreSQL database for the module, dropped after."""
    sqlalchemy = pytest.importorskip("sqlalchemy")
    pytest.importorskip("psycopg")
    base = sqlalchemy.engine.make_url(_need("TAWLA_TEST_POSTGRES"))
    name = f"tawla_scale_{secrets.token_hex(4)}"
    admin = sqlalchemy.create_engine(base, isolation_level="AUTOCOMMIT")
    with admin.connect() as c:
        c.exec_driver_sql(f"CREATE DATABASE {name}")
    yield base.set(database=name).render_as_string(hide_password=False)
    with admin.connect() as c:
        c.exec_driver_sql(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
    admin.dispose()


@pytest.fixture(scope="module")
def redis_url():
    pytest.importorskip("redis")
    return _need("TAWLA_TEST_REDIS")


@pytest.fixture(scope="module")
def pair(pg_url, redis_url, tmp_path_factory):
    d = tmp_path_factory.mktemp("scale")
    servers = [Server(pg_url, cwd=str(d), redis=redis_url).start() for _ in range(2)]
    yield servers
    for s in servers:
        s.stop()


def test_a_room_is_played_through_both_processes(pair):
    a, b = (httpx.Client(base_url=s.url, timeout=30) for s in pair)
    r = a.post("/v1/rooms", json={"name": "Ann", "length": 1})
    host = Player(a, r.json()["code"], r.json()["token"], 0)
    r = b.post(f"/v1/rooms/{host.code}/join", json={"name": "Bob"})     # a room b never held
    assert r.status_code == 200, r.text
    guest_b = Player(b, host.code, r.json()["token"], 1)
    seats = {0: (host, Player(b, host.code, host.token, 0)), 1: (Player(a, host.code, guest_b.token, 1), guest_b)}
    for turn in range(12):                                                 # each action through the other process
        s = seats[0][turn % 2].state()
        if s["phase"] == "over":
            break
        p = seats[s["to_act"]][turn % 2]
        mine = p.state()
        assert mine["version"] == s["version"]
        if mine["phase"] == "roll":
            p.ok("roll")
        elif mine["phase"] == "move":
            p.ok("move", move=mine["legal_moves"][0])
    sa, sb = seats[0][0].state(), seats[0][1].state()
    assert sa["version"] == sb["version"] and sa["match"]["events"] == sb["match"]["events"]
    assert len([e for e in sa["match"]["events"] if e["type"] == "turn"]) >= 5


def test_the_same_action_sent_to_both_processes_is_applied_once(pair):
    a, b = (httpx.Client(base_url=s.url, timeout=30) for s in pair)
    codes = []
    for _ in range(6):
        r = a.post("/v1/rooms", json={"name": "Ann", "length": 1})
        host = Player(a, r.json()["code"], r.json()["token"], 0)
        r = b.post(f"/v1/rooms/{host.code}/join", json={"name": "Bob"})
        tokens = {0: host.token, 1: r.json()["token"]}
        s = host.state()
        seat = s["to_act"]
        mine = Player(a, host.code, tokens[seat], seat).state()
        move = mine["legal_moves"][0]
        body = {"action": "move", "move": move}
        with ThreadPoolExecutor(2) as pool:
            answers = list(pool.map(lambda c: c.post(f"/v1/rooms/{host.code}/actions", json=body,
                                                     headers={"Authorization": f"Bearer {tokens[seat]}"}), (a, b)))
        assert sorted(x.status_code for x in answers) == [200, 409], [x.text for x in answers]
        after = Player(b, host.code, tokens[seat], seat).state()
        assert after["version"] == s["version"] + 1
        assert len([e for e in after["match"]["events"] if e["type"] == "turn"]) == 1
        codes.append(host.code)
    assert len(set(codes)) == 6


def test_a_socket_on_one_process_follows_actions_on_the_other(pair):
    a = httpx.Client(base_url=pair[0].url, timeout=30)
    r = a.post("/v1/rooms", json={"name": "Ann", "length": 1})
    host = Player(a, r.json()["code"], r.json()["token"], 0)
    r = a.post(f"/v1/rooms/{host.code}/join", json={"name": "Bob"})
    tokens = {0: host.token, 1: r.json()["token"]}
    s = host.state()
    with ws_connect(pair[1], host.code, tokens[0]) as ws:
        first = json.loads(ws.recv(timeout=10))
        assert first["type"] == "state" and first["state"]["version"] == s["version"]
        mover = Player(a, host.code, tokens[s["to_act"]], s["to_act"])
        mover.ok("move", move=mover.state()["legal_moves"][0])
        end = time.monotonic() + 10
        while True:
            msg = json.loads(ws.recv(timeout=max(0.1, end - time.monotonic())))
            if msg["type"] == "state" and msg["state"]["version"] > s["version"]:
                break
        assert msg["state"]["to_act"] == 1 - s["to_act"]


def test_killing_a_process_mid_match_loses_nothing_and_its_timer_fires(pg_url, redis_url, tmp_path):
    servers = [Server(pg_url, cwd=str(tmp_path), redis=redis_url).start() for _ in range(2)]
    try:
        a, b = (httpx.Client(base_url=s.url, timeout=30) for s in servers)
        r = a.post("/v1/rooms", json={"name": "Ann", "length": 3, "turn_seconds": 2})
        host = Player(a, r.json()["code"], r.json()["token"], 0)
        r = a.post(f"/v1/rooms/{host.code}/join", json={"name": "Bob"})
        tokens = {0: host.token, 1: r.json()["token"]}
        s = host.state()
        mover = Player(a, host.code, tokens[s["to_act"]], s["to_act"])
        acked = mover.ok("move", move=mover.state()["legal_moves"][0])    # acknowledged by a
        servers[0].kill()                                                  # a held the room and its timer
        after = Player(b, host.code, tokens[0], 0).state()
        assert after["version"] >= acked["version"] and after["to_act"] == 1 - s["to_act"]
        assert after["phase"] == "roll" and after["deadline"] is not None
        end = time.monotonic() + 15                                        # the 2 s deadline fires on b
        while (now := Player(b, host.code, tokens[0], 0).state())["version"] == after["version"]:
            assert time.monotonic() < end, "the deadline of the killed process never fired"
            time.sleep(0.2)
        assert any(e["type"] == "timeout" for e in now["match"]["events"])
        who = now["to_act"]
        p = Player(b, host.code, tokens[who], who)                         # and b carries the match on
        mine = p.state()
        if mine["phase"] == "roll":
            p.ok("roll")
        elif mine["phase"] == "move":
            p.ok("move", move=mine["legal_moves"][0])
    finally:
        for s in servers:
            s.stop()


def test_stakes_paid_through_both_processes_never_overdraw(pair):
    a, b = (httpx.Client(base_url=s.url, timeout=30) for s in pair)
    accounts = []
    for name in ("payer", "host1", "host2", "host3", "host4"):
        r = a.post("/v1/accounts", json={"name": name, "house": "saharat"})
        accounts.append({"Authorization": f"Bearer {r.json()['token']}"})
    payer, hosts = accounts[0], accounts[1:]
    codes = []
    for h in hosts:
        r = a.post("/v1/rooms", json={"ruleset": "adi", "house": "saharat", "length": 1, "stake": 300,
                                      "name": "host"}, headers=h)
        assert r.status_code == 201, r.text
        codes.append(r.json()["code"])
    with ThreadPoolExecutor(4) as pool:
        answers = list(pool.map(lambda k: (a, b)[k % 2].post(f"/v1/rooms/{codes[k]}/join", json={"name": "payer"},
                                                               headers=payer), range(4)))
    assert sorted(x.status_code for x in answers) == [200, 200, 200, 409], [x.text for x in answers]
    me = b.get("/v1/accounts/me", headers=payer).json()
    assert me["balance"] == 100 and sum(e["amount"] for e in me["ledger"]) == 100


def test_a_process_holding_an_old_copy_still_fires_a_dead_process_deadline(pg_url, redis_url, tmp_path):
    """b reads the waiting room (listing the tables) before a makes it a match and dies: b's
    copy has no match, yet the deadline that passed in the database fires on b."""
    servers = [Server(pg_url, cwd=str(tmp_path), redis=redis_url).start() for _ in range(2)]
    try:
        a, b = (httpx.Client(base_url=s.url, timeout=30) for s in servers)
        r = a.post("/v1/rooms", json={"name": "Ann", "length": 3, "turn_seconds": 1, "public": True})
        code, token = r.json()["code"], r.json()["token"]
        assert code in [x["code"] for x in b.get("/v1/tables").json()]       # b holds the waiting room
        a.post(f"/v1/rooms/{code}/join", json={"name": "Bob"})
        version = Player(a, code, token, 0).state()["version"]
        servers[0].kill()
        end = time.monotonic() + 15
        while (now := Player(b, code, token, 0).state())["version"] == version:
            assert time.monotonic() < end, "the deadline never fired on b"
            time.sleep(0.2)
        assert any(e["type"] == "timeout" for e in now["match"]["events"])
    finally:
        for s in servers:
            s.stop()


def test_a_player_connected_through_another_process_does_not_forfeit(pg_url, redis_url, tmp_path):
    servers = [Server(pg_url, cwd=str(tmp_path), redis=redis_url, limits={"grace_floor": 0.5}).start()
               for _ in range(2)]
    try:
        a = httpx.Client(base_url=servers[0].url, timeout=30)
        acc = [a.post("/v1/accounts", json={"name": n, "house": "saharat"}).json()["token"] for n in ("Ann", "Bob")]
        r = a.post("/v1/rooms", json={"name": "Ann", "house": "saharat", "ruleset": "tawla31-saharat", "stake": 10,
                                      "grace_seconds": 1, "length": 1, "turn_seconds": 60},
                   headers={"Authorization": f"Bearer {acc[0]}"})
        assert r.status_code == 201, r.text
        code, token = r.json()["code"], r.json()["token"]
        a.post(f"/v1/rooms/{code}/join", json={"name": "Bob"}, headers={"Authorization": f"Bearer {acc[1]}"})
        ann = Player(a, code, token, 0)
        with ws_connect(pair_b := servers[1], code, token) as on_b:     # Ann's socket on b stays open
            on_b.recv(timeout=10)
            with ws_connect(servers[0], code, token) as on_a:           # and the one on a drops
                on_a.recv(timeout=10)
            time.sleep(2.5)                                              # past the 1 s grace period
            s = ann.state()
            assert s["phase"] != "over" and s["match"]["state"]["away"][0] is None, s["end_reason"]
            assert s["seats"][0]["connected"] is True
        assert pair_b.proc.poll() is None
    finally:
        for s in servers:
            s.stop()


def test_seekers_on_two_processes_are_paired_and_read_anywhere(pair):
    a, b = (httpx.Client(base_url=s.url, timeout=30) for s in pair)
    first = a.post("/v1/seeks", json={"ruleset": "adi", "house": "international", "length": 3, "name": "Ann"}).json()
    auth = {"Authorization": f"Bearer {first['token']}"}
    for c in (a, b):                                             # the seek is known on both
        assert c.get(f"/v1/seeks/{first['id']}", headers=auth).json()["status"] == "waiting"
    second = b.post("/v1/seeks", json={"ruleset": "adi", "house": "international", "length": 3, "name": "Bob"}).json()
    assert second["status"] == "paired" and second["opponent"] == "Ann"
    mine = b.get(f"/v1/seeks/{first['id']}", headers=auth).json()
    assert mine["status"] == "paired" and mine["room"] == second["room"] and mine["seat"] == 0
    s = Player(a, mine["room"], mine["room_token"], 0).state()
    assert [x["name"] for x in s["seats"]] == ["Ann", "Bob"]
    lone = b.post("/v1/seeks", json={"ruleset": "mahbusa", "house": "international", "length": 1, "name": "Cem",
                                     "bot_after": 0.3}).json()
    auth = {"Authorization": f"Bearer {lone['token']}"}
    end = time.monotonic() + 10
    while (v := a.get(f"/v1/seeks/{lone['id']}", headers=auth).json())["status"] == "waiting":
        assert time.monotonic() < end, "no bot came"
        time.sleep(0.1)
    assert v["status"] == "paired" and v["opponent"] == "Bot (net0)"  # the default level
