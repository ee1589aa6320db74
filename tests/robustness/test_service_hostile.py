"""``tawla serve`` against hostile clients, on a real uvicorn on loopback: a flood of frames
from one seat ends in an error frame and the policy close, the log stays flat and each
action appends its events; bad frames, huge dice, loose types and large bodies are typed
4xx answers; coin tables show every money option and floor the grace period; creation is
bounded; tokens stay out of URLs and expire with their room. Every loop is bounded; no test
measures time."""

from __future__ import annotations

import json
import sqlite3
import time

import pytest

httpx = pytest.importorskip("httpx")
pytest.importorskip("fastapi")
pytest.importorskip("prometheus_client")
websockets_sync = pytest.importorskip("websockets.sync.client")
from websockets.exceptions import ConnectionClosed  # noqa: E402

from service_helpers import Player, Server, create_room, join, play_until, two_players, ws_connect  # noqa: E402
from tawla.match.turn_play import MAX_UNDOS  # noqa: E402

TIGHT = {"frames_per_second": 1, "frame_burst": 8, "spectators": 2, "sockets_per_member": 2, "idle_timeouts": 1,
         "auth_seconds": 5, "frame_bytes": 2048, "body_bytes": 8192, "closed_room_seconds": 1}


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    d = tmp_path_factory.mktemp("hostile")
    s = Server(f"sqlite:///{d / 'hostile.db'}", cwd=str(d), limits=TIGHT).start()
    s.path = d / "hostile.db"
    yield s
    s.stop()


@pytest.fixture
def client(server):
    with httpx.Client(base_url=server.url, timeout=30) as c:
        yield c


def frames_until_close(ws, limit: int = 500) -> tuple[list, int | None]:
    """The frames a socket receives until the server closes it, and the close code."""
    frames = []
    for _ in range(limit):
        try:
            frames.append(json.loads(ws.recv(timeout=20)))
        except ConnectionClosed as e:
            return frames, e.rcvd.code if e.rcvd is not None else None
    raise AssertionError("the socket stayed open")


# ------------------------------------------------------------------ the flood
def test_a_flood_of_frames_gets_an_error_frame_then_the_policy_close(server, client):
    players = two_players(client, ruleset="backgammon", house="international", length=1)
    s = play_until(players, lambda st: st["phase"] == "move")
    mover = players[s["to_act"]]
    before = len(mover.state()["match"]["events"])
    with ws_connect(server, mover.code, mover.token) as ws:
        st = json.loads(ws.recv(timeout=10))["state"]
        step = st["legal_steps"][0]
        for _ in range(200):  # step/undo pairs as fast as the client can write them
            try:
                ws.send(json.dumps({"action": "step", "from": step["from"], "to": step["to"]}))
                ws.send(json.dumps({"action": "undo"}))
            except ConnectionClosed:  # the server closed first (a loaded machine): read what it sent
                break
        frames, code = frames_until_close(ws)
    assert code == 1008
    errors = [f for f in frames if f["type"] == "error"]
    assert errors and errors[-1]["error"] == "LimitExceeded" and errors[-1]["status"] == 429
    assert len([f for f in frames if f["type"] == "ok"]) <= TIGHT["frame_burst"] + 10
    after = len(mover.state()["match"]["events"])
    assert after - before <= TIGHT["frame_burst"] + 10
    other = two_players(client, ruleset="adi")  # the service goes on
    assert other[0].state()["status"] == "playing"


def test_undo_is_bounded_and_each_action_appends_its_events(server, client):
    players = two_players(client, ruleset="backgammon", house="international", length=1)
    s = play_until(players, lambda st: st["phase"] == "move")
    mover = players[s["to_act"]]
    step = mover.state()["legal_steps"][0]
    con = sqlite3.connect(server.path)
    try:
        start_doc = con.execute("SELECT match FROM rooms WHERE code = ?", (mover.code,)).fetchone()[0]
        refused = 0
        for _ in range(MAX_UNDOS + 10):
            mover.ok("step", **{"from": step["from"], "to": step["to"]})
            r = mover.act("undo")
            if r.status_code == 409:
                assert r.json()["error"] == "InvalidAction" and "undo" in r.json()["detail"]
                refused += 1
                break
            assert r.status_code == 200, r.text
        assert refused == 1
        events = mover.state()["match"]["events"]
        flat = len(events)
        for _ in range(20):
            assert mover.act("undo").status_code == 409
        assert len(mover.state()["match"]["events"]) == flat
        # the match's document is not rewritten; the events are rows after it
        doc, match_no = con.execute("SELECT match, match_no FROM rooms WHERE code = ?", (mover.code,)).fetchone()
        rows = [json.loads(e) for (e,) in con.execute(
            "SELECT event FROM events WHERE room = ? AND match_no = ? ORDER BY seq", (mover.code, match_no))]
    finally:
        con.close()
    assert doc == start_doc
    assert len(json.loads(doc)["events"]) + len(rows) == len(events)
    assert [r["type"] for r in rows] == [e["type"] for e in events[len(events) - len(rows):]]


# ------------------------------------------------------------------ frames
def test_bad_frames_get_error_frames_and_a_large_one_the_policy_close(server, client):
    players = two_players(client, ruleset="adi")
    with ws_connect(server, players[0].code, players[0].token) as ws:
        json.loads(ws.recv(timeout=10))
        ws.send(b"\x00\x01binary")
        err = json.loads(ws.recv(timeout=10))
        assert err["type"] == "error" and err["error"] == "InvalidArgument" and "binary" in err["detail"]
        ws.send("[" * 1000 + "]" * 1000)
        err = json.loads(ws.recv(timeout=10))
        assert err["type"] == "error" and err["error"] == "InvalidArgument"
        for dice in (10**30, 2**63, [7]):
            ws.send(json.dumps({"action": "step", "from": 24, "to": 18, "dice": dice}))
            err = json.loads(ws.recv(timeout=10))
            assert err["type"] == "error" and err["error"] == "InvalidArgument", err
        ws.send(json.dumps({"action": "move", "move": "x" * (TIGHT["frame_bytes"] + 10)}))
        frames, code = frames_until_close(ws)
    assert code == 1008 and frames[-1]["error"] == "LimitExceeded"


def test_huge_dice_and_loose_types_are_4xx(client):
    players = two_players(client, ruleset="adi")
    for dice in (10**30, 2**63, [10**30], 0, [1, 2, 3, 4, 5]):
        r = players[0].act("step", **{"from": 24, "to": 18, "dice": dice})
        assert r.status_code == 422 and r.json()["error"] == "InvalidArgument", r.text
    for loose in ({"stake": True}, {"stake": "100"}, {"stake": 1.5}, {"turn_seconds": "60"}, {"grace_seconds": "60"},
                  {"length": "3"}, {"public": "yes"}):
        r = client.post("/v1/rooms", json={"ruleset": "adi", "house": "saharat", **loose})
        assert r.status_code == 422 and r.json()["error"] == "InvalidArgument", (loose, r.text)


def test_large_bodies_and_a_missing_content_type(client):
    r = client.post("/v1/moves", content=b'{"position": "' + b"x" * 9000 + b'"}',
                    headers={"Content-Type": "application/json"})
    assert r.status_code == 413 and r.json()["error"] == "LimitExceeded"
    host = create_room(client, ruleset="adi")
    r = client.post(f"/v1/rooms/{host.code}/bots", content=b'{"level": "ply1"}', headers=host.headers)
    assert r.status_code == 422 and "Content-Type: application/json" in r.json()["detail"]


# ------------------------------------------------------------------ tokens
def test_tokens_stay_out_of_urls_and_expire_with_their_room(server, client):
    host = create_room(client, ruleset="adi")
    url = server.url.replace("http", "ws") + f"/v1/rooms/{host.code}/ws?token={host.token}"
    with websockets_sync.connect(url, open_timeout=10) as ws:  # a token in the URL is not read
        ws.send(json.dumps({"action": "roll"}))
        frames, code = frames_until_close(ws)
    assert frames[0]["error"] == "Unauthorized" and code == 4401
    # no token: the same answer for a room that exists and one that does not
    for path in (f"/v1/rooms/{host.code}", "/v1/rooms/ZZZZZZ"):
        assert client.get(path).status_code == 401
        assert client.post(path + "/actions", json={"action": "roll"}).status_code == 401
    # the host leaves the waiting room: it closes, its token expires, nobody joins it
    assert host.act("leave").status_code == 200
    assert client.get(f"/v1/rooms/{host.code}", headers=host.headers).status_code == 401
    assert client.post(f"/v1/rooms/{host.code}/join", json={}).status_code == 404


# ------------------------------------------------------------------ bounded creation
def test_spectators_per_room_are_bounded(client):
    players = two_players(client, ruleset="adi")
    for _ in range(TIGHT["spectators"]):
        assert join(client, players[0], "watcher").seat is None
    r = client.post(f"/v1/rooms/{players[0].code}/join", json={"name": "one too many"})
    assert r.status_code == 429 and r.json()["error"] == "LimitExceeded"


def test_sockets_per_token_are_bounded(server, client):
    players = two_players(client, ruleset="adi")
    watcher = join(client, players[0], "watcher")
    with ws_connect(server, watcher.code, watcher.token) as a, ws_connect(server, watcher.code, watcher.token) as b:
        assert json.loads(a.recv(timeout=10))["type"] == json.loads(b.recv(timeout=10))["type"] == "state"
        with ws_connect(server, watcher.code, watcher.token, first_message=True) as c:
            frames, code = frames_until_close(c)
        assert code == 1008 and frames[-1]["error"] == "LimitExceeded"
    with ws_connect(server, watcher.code, watcher.token) as again:  # closed ones do not count
        assert json.loads(again.recv(timeout=10))["type"] == "state"


def test_a_room_abandoned_by_both_players_ends(client):
    players = two_players(client, ruleset="adi", house="international", length=5, turn_seconds=1)
    s = players[0].state()
    for _ in range(300):  # nobody acts, nobody is connected
        if s["phase"] == "over":
            break
        time.sleep(0.05)
        s = players[0].state()
    assert s["phase"] == "over" and s["end_reason"] == "forfeit"


def test_a_room_abandoned_to_its_bot_ends(client):
    host = create_room(client, ruleset="adi", house="international", length=5, turn_seconds=1)
    assert client.post(f"/v1/rooms/{host.code}/bots", json={"level": "ply0"}, headers=host.headers).status_code == 201
    s = host.state()
    for _ in range(300):  # the host never acts: the first timeout that plays for him ends the match
        if s["phase"] == "over":
            break
        time.sleep(0.05)
        s = host.state()
    assert s["phase"] == "over" and s["end_reason"] == "forfeit" and s["winner"] == 1 and s["status"] == "over"
    # over, with no socket open: after closed_room_seconds the room leaves memory, its tokens expire
    for _ in range(300):
        r = client.get(f"/v1/rooms/{host.code}", headers=host.headers)
        if r.status_code != 200:
            break
        time.sleep(0.05)
    assert r.status_code == 401


@pytest.fixture(scope="module")
def strict(tmp_path_factory):
    d = tmp_path_factory.mktemp("strict")
    s = Server(f"sqlite:///{d / 'strict.db'}", cwd=str(d),
               limits={"rooms_per_window": 3, "accounts_per_window": 2, "coins_per_window": 1500}).start()
    yield s
    s.stop()


def test_rooms_accounts_and_coins_per_address_are_bounded(strict):
    with httpx.Client(base_url=strict.url, timeout=30) as c:
        for _ in range(3):
            assert c.post("/v1/rooms", json={"ruleset": "adi"}).status_code == 201
        r = c.post("/v1/rooms", json={"ruleset": "adi"})
        assert r.status_code == 429 and r.json()["error"] == "LimitExceeded"
        assert c.post("/v1/accounts", json={"name": "a"}).status_code == 201  # 1000 coins
        r = c.post("/v1/accounts", json={"name": "b"})  # 1000 more would pass 1500
        assert r.status_code == 429 and "coins" in r.json()["detail"]


# ------------------------------------------------------------------ money options
def test_coin_tables_show_their_money_options_and_floor_the_grace_period(server, client):
    tokens = [client.post("/v1/accounts", json={"name": n, "house": "saharat"}).json()["token"] for n in "ab"]
    auth = [{"Authorization": f"Bearer {t}"} for t in tokens]
    r = client.post("/v1/rooms", json={"ruleset": "adi", "house": "saharat", "length": 1, "stake": 100,
                                       "grace_seconds": 0.001, "public": True}, headers=auth[0])
    assert r.status_code == 400 and r.json()["error"] == "ConfigError" and "30" in r.json()["detail"]
    r = client.post("/v1/rooms", json={"ruleset": "adi", "house": "saharat", "length": 1, "stake": 100,
                                       "public": True}, headers=auth[0])
    assert r.status_code == 201
    host = Player(client, r.json()["code"], r.json()["token"], 0)
    table = next(t for t in client.get("/v1/tables").json() if t["code"] == host.code)
    assert table["stake"] == 100 and table["grace_seconds"] >= 30 and table["fee_percent"] == 10
    assert table["length"] == 1 and table["turn_seconds"] is not None and "step_seconds" in table
    joined = client.post(f"/v1/rooms/{host.code}/join", json={"name": "b"}, headers=auth[1]).json()
    assert joined["table"] == table
    guest = Player(client, host.code, joined["token"], 1)
    # a page reload: the socket closes and opens again at once; the match goes on, no coin moves
    with ws_connect(server, guest.code, guest.token) as ws:
        json.loads(ws.recv(timeout=10))
    with ws_connect(server, guest.code, guest.token, first_message=True) as ws:
        assert json.loads(ws.recv(timeout=10))["type"] == "state"
    s = host.state()
    assert s["phase"] != "over"
    balances = [client.get("/v1/accounts/me", headers=a).json()["balance"] for a in auth]
    assert balances == [900, 900]


# ------------------------------------------------------------------ operators
def test_metrics_in_prometheus_text(client):
    players = two_players(client, ruleset="adi")
    players[0].act("roll")
    r = client.get("/v1/metrics")
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/plain")
    text = r.text
    for name in ("tawla_actions_total{", "tawla_action_seconds_bucket{", 'tawla_rooms{status="playing"}',
                 "tawla_sockets ", "tawla_errors_total{"):
        assert name in text, name
