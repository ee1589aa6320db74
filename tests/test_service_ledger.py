"""Coin tables on a real ``tawla serve``: stakes, the 10 % rake once at the end of a match,
forfeits on leaving or on not coming back within the grace period, and a ledger in which
balances never go negative and balances + rake stay constant, with matches ending at once."""

from __future__ import annotations

import json
import sqlite3
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

httpx = pytest.importorskip("httpx")
pytest.importorskip("fastapi")
websockets_sync = pytest.importorskip("websockets.sync.client")

from service_helpers import Player, Server, ws_connect  # noqa: E402

STAKE = 100
START = 1000  # tawla.service.store.STARTING_BALANCE["saharat"]
ROOMS = 8


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    d = tmp_path_factory.mktemp("ledger")
    s = Server(f"sqlite:///{d / 'ledger.db'}", cwd=str(d), limits={"grace_floor": 1}).start()
    s.path = d / "ledger.db"
    yield s
    s.stop()


@pytest.fixture
def client(server):
    with httpx.Client(base_url=server.url, timeout=60) as c:
        yield c


def account(client, name: str) -> dict:
    r = client.post("/v1/accounts", json={"name": name, "house": "saharat"})
    assert r.status_code == 201, r.text
    d = r.json()
    assert d["account"]["balance"] == START
    return {"Authorization": f"Bearer {d['token']}"}


def balance(client, headers) -> int:
    me = client.get("/v1/accounts/me", headers=headers).json()
    assert sum(e["amount"] for e in me["ledger"]) == me["balance"] >= 0
    return me["balance"]


def coin_room(client, host_acc, guest_acc, **extra) -> dict:
    r = client.post("/v1/rooms", json={"ruleset": "adi", "house": "saharat", "length": 1, "stake": STAKE,
                                       "name": "host", **extra}, headers=host_acc)
    assert r.status_code == 201, r.text
    host = Player(client, r.json()["code"], r.json()["token"], 0)
    r = client.post(f"/v1/rooms/{host.code}/join", json={"name": "guest"}, headers=guest_acc)
    assert r.status_code == 200, r.text
    return {0: host, 1: Player(client, host.code, r.json()["token"], 1)}


def db_totals(path) -> tuple[int, int, int]:
    con = sqlite3.connect(path)
    try:
        b = con.execute("SELECT COALESCE(SUM(balance), 0) FROM accounts").fetchone()[0]
        e = con.execute("SELECT COALESCE(SUM(escrow), 0) FROM rooms").fetchone()[0]
        r = con.execute("SELECT COALESCE(SUM(amount), 0) FROM ledger WHERE kind = 'rake'").fetchone()[0]
        n = con.execute("SELECT COUNT(*) FROM accounts").fetchone()[0]
    finally:
        con.close()
    return b + e + r, n, r


def test_a_stake_needs_an_account_and_a_coin_house(client):
    r = client.post("/v1/rooms", json={"ruleset": "adi", "house": "saharat", "stake": STAKE})
    assert r.status_code == 401
    acc = account(client, "nocoins")
    r = client.post("/v1/rooms", json={"ruleset": "adi", "house": "federation", "stake": STAKE}, headers=acc)
    assert r.status_code == 400 and r.json()["error"] == "ConfigError"
    host = client.post("/v1/rooms", json={"ruleset": "adi", "house": "saharat", "stake": STAKE}, headers=acc)
    code, token = host.json()["code"], host.json()["token"]
    r = client.post(f"/v1/rooms/{code}/bots", json={"level": "ply0"}, headers={"Authorization": f"Bearer {token}"})
    assert r.status_code == 409  # bots play for no coins
    assert balance(client, acc) == START - STAKE
    r = client.post(f"/v1/rooms/{code}/actions", json={"action": "leave"}, headers={"Authorization": f"Bearer {token}"})
    assert r.status_code == 200 and r.json()["status"] == "closed"
    assert balance(client, acc) == START  # the stake comes back from a room that never started


def test_balances_never_go_negative_under_concurrent_joins(server, client):
    rich = [account(client, f"host{i}") for i in range(12)]
    poor = account(client, "poor")
    codes = []
    for acc in rich:
        r = client.post("/v1/rooms", json={"ruleset": "adi", "house": "saharat", "length": 1, "stake": 300},
                        headers=acc)
        codes.append(r.json()["code"])
    with ThreadPoolExecutor(12) as ex:
        answers = list(ex.map(lambda code: client.post(f"/v1/rooms/{code}/join", json={}, headers=poor), codes))
    ok = [a for a in answers if a.status_code == 200]
    assert len(ok) == START // 300 and all(a.status_code in (200, 409) for a in answers)
    assert balance(client, poor) == START - 300 * len(ok)
    total, n, _ = db_totals(server.path)
    assert total == n * START


def test_rake_once_and_constant_total_with_matches_ending_at_once(server, client):
    hosts = [account(client, f"h{i}") for i in range(ROOMS)]
    guests = [account(client, f"g{i}") for i in range(ROOMS)]
    rooms = [coin_room(client, h, g) for h, g in zip(hosts, guests)]
    for h in hosts + guests:
        assert balance(client, h) == START - STAKE

    def finish(i):  # half the matches end by leaving, half by a resignation accepted
        players = rooms[i]
        s = players[0].state()
        if i % 2:
            return players[s["to_act"] if s["to_act"] is not None else 0].act("leave")
        resigner = players[s["turn"]]
        r = resigner.act("resign", kind="single")
        assert r.status_code == 200, r.text
        return players[1 - s["turn"]].act("accept")

    with ThreadPoolExecutor(ROOMS) as ex:
        answers = list(ex.map(finish, range(ROOMS)))
    assert all(a.status_code == 200 and a.json()["phase"] == "over" for a in answers), [a.text for a in answers]
    fee = 2 * STAKE * 10 // 100
    for players, h, g in zip(rooms, hosts, guests):
        s = players[0].state()
        assert s["payout"] == {"winner": s["winner"], "pot": 2 * STAKE, "fee": fee, "prize": 2 * STAKE - fee}
        won, lost = (h, g) if s["winner"] == 0 else (g, h)
        assert balance(client, won) == START - STAKE + 2 * STAKE - fee
        assert balance(client, lost) == START - STAKE
    total, n, rake = db_totals(server.path)
    assert total == n * START and rake >= ROOMS * fee
    r = rooms[0][0].act("leave")
    assert r.status_code == 409  # the match is over: no second payment


def test_not_coming_back_within_the_grace_period_forfeits(server, client):
    h, g = account(client, "away"), account(client, "stays")
    players = coin_room(client, h, g, grace_seconds=1)
    with ws_connect(server, players[0].code, players[0].token) as ws:
        assert json.loads(ws.recv(timeout=10))["type"] == "state"
    s = players[1].state()
    for _ in range(100):  # the host's socket closed: he forfeits after a second
        if s["phase"] == "over":
            break
        time.sleep(0.05)
        s = players[1].state()
    assert s["phase"] == "over" and s["winner"] == 1 and s["end_reason"] == "forfeit"
    assert any(e["type"] == "disconnect" for e in s["match"]["events"])
    assert balance(client, g) == START - STAKE + 180 and balance(client, h) == START - STAKE


def test_coming_back_within_the_grace_period_keeps_the_match(server, client):
    h, g = account(client, "back"), account(client, "waits")
    players = coin_room(client, h, g, grace_seconds=1.5)
    with ws_connect(server, players[0].code, players[0].token) as ws:
        json.loads(ws.recv(timeout=10))
    for _ in range(100):  # the server has reported him gone
        if any(e["type"] == "disconnect" for e in players[1].state()["match"]["events"]):
            break
        time.sleep(0.02)
    with ws_connect(server, players[0].code, players[0].token, first_message=True) as ws:
        frame = json.loads(ws.recv(timeout=10))
        assert frame["type"] == "state" and frame["state"]["seats"][0]["connected"]
        time.sleep(1.8)  # past the grace period, connected
        s = players[1].state()
    assert s["phase"] != "over"
    assert [e["type"] for e in s["match"]["events"] if e["type"] in ("disconnect", "reconnect")] == \
        ["disconnect", "reconnect"]
    spectator = client.post(f"/v1/rooms/{players[0].code}/join", json={"name": "watcher"}).json()
    assert spectator["seat"] is None
    with ws_connect(server, players[0].code, spectator["token"]) as ws:
        seen = json.loads(ws.recv(timeout=10))["state"]
        assert seen["you"] is None and seen["legal_moves"] == [] and seen["code"] == players[0].code
        ws.send(json.dumps({"action": "roll"}))
        assert json.loads(ws.recv(timeout=10))["status"] == 403
