"""The contract of ``tawla serve`` end to end, against a real uvicorn process on loopback."""

from __future__ import annotations

import hashlib
import json

import pytest

import tawla
from tawla.service.views import load_position

httpx = pytest.importorskip("httpx")
pytest.importorskip("fastapi")
websockets_sync = pytest.importorskip("websockets.sync.client")

from service_helpers import Player, Server, create_room, join, play_until, two_players, ws_connect  # noqa: E402

START = "4HPwATDgc/ABMA"  # backgammon's starting position, gnubg Position ID


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    d = tmp_path_factory.mktemp("serve")
    s = Server(f"sqlite:///{d / 'contract.db'}", cwd=str(d)).start()
    yield s
    s.stop()


@pytest.fixture
def client(server):
    with httpx.Client(base_url=server.url, timeout=30) as c:
        yield c


class TestStateless:
    def test_health_schema_and_board_page(self, client):
        assert client.get("/v1/health").json() == {"status": "ok"}
        assert "/v1/rooms/{code}/actions" in client.get("/openapi.json").json()["paths"]
        page = client.get("/")
        assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")

    def test_moves_from_each_kind_of_id(self, client):
        r = client.post("/v1/moves", json={"ruleset": "backgammon", "position": START, "dice": [3, 1]})
        assert r.status_code == 200
        moves = [m["move"] for m in r.json()["moves"]]
        assert "8/5 6/5" in moves and len(moves) == 16
        tawla_id = r.json()["position"]
        again = client.post("/v1/moves", json={"ruleset": "backgammon", "position": tawla_id, "dice": [3, 1]})
        assert [m["move"] for m in again.json()["moves"]] == moves
        xgid = "XGID=-b----E-C---eE---c-e----B-:0:0:1:31:0:0:0:0:10"
        assert client.post("/v1/moves", json={"position": xgid, "dice": [3, 1]}).status_code == 200
        t31 = "AAAAAAAAAAAAAAAAD_AAAAAAAAAAAAAAAAAAAAAE"  # a tawla31 ID: it names its ruleset
        own = client.post("/v1/moves", json={"position": t31, "dice": [6, 5]})
        assert own.status_code == 200 and own.json()["ruleset"] == "tawla31"
        foreign = client.post("/v1/moves", json={"ruleset": "backgammon", "position": t31, "dice": [6, 5]})
        assert foreign.status_code == 400 and foreign.json()["error"] == "InvalidArgument"

    @pytest.mark.parametrize("body, error", [
        ({"ruleset": "backgammon", "position": "nonsense", "dice": [3, 1]}, "InvalidId"),
        ({"ruleset": "chess", "position": START, "dice": [3, 1]}, "UnsupportedRuleset"),
        ({"ruleset": "backgammon", "position": START, "dice": [7, 1]}, "InvalidDice"),
    ])
    def test_bad_input_is_a_4xx_with_the_class(self, client, body, error):
        r = client.post("/v1/moves", json=body)
        assert r.status_code == 400 and r.json()["error"] == error and r.json()["detail"]

    def test_malformed_body(self, client):
        r = client.post("/v1/moves", content=b"{not json", headers={"Content-Type": "application/json"})
        assert r.status_code == 422 and r.json()["error"] == "InvalidArgument"
        r = client.post("/v1/moves", json={"position": START, "dice": [3]})
        assert r.status_code == 422 and set(r.json()) == {"error", "detail"}

    def test_evaluate_and_best(self, client):
        ev = client.post("/v1/evaluate", json={"position": START}).json()
        assert 0 < ev["evaluation"]["win"] < 1 and "moves" not in ev
        ranked = client.post("/v1/evaluate", json={"position": START, "dice": [3, 1], "level": "ply0"}).json()
        best = client.post("/v1/best", json={"position": START, "dice": [3, 1], "level": "ply0"}).json()
        assert best["move"] == ranked["moves"][0]["move"] == "8/5 6/5"
        r = client.post("/v1/best", json={"position": START, "dice": [3, 1], "level": "ply9"})
        assert r.status_code == 400 and r.json()["error"] == "ConfigError"

    def test_every_answer_has_the_levels_of_tawla_evaluate_and_names_its_evaluator(self, client):
        row = load_position(START, None).to_array()
        ev = client.post("/v1/evaluate", json={"position": START}).json()
        assert ev["level"] == "net0" and ev["evaluator"].startswith("net0: the backgammon network (backgammon.npz")
        for level in ("net0", "net1", "ply0", "ply2"):
            got = client.post("/v1/evaluate", json={"position": START, "level": level}).json()
            want = tawla.evaluate(row, "backgammon", level)[0]
            assert got["level"] == level and got["evaluator"].startswith(f"{level}: ")
            assert abs(got["evaluation"]["equity"] - float(want[0])) < 1e-6
        best = client.post("/v1/best", json={"position": START, "dice": [3, 1]}).json()
        assert best["level"] == "net0" and best["evaluator"].startswith("net0: ")
        ranked = client.post("/v1/evaluate", json={"position": START, "dice": [3, 1], "level": "net2"}).json()
        assert ranked["moves"][0]["ply"] == 2 and ranked["moves"][0]["move"] == "8/5 6/5"
        for level in ("random", "net3"):
            r = client.post("/v1/evaluate", json={"position": START, "level": level})
            assert r.status_code == 400 and r.json()["error"] == "ConfigError"


    def test_cube(self, client):
        r = client.post("/v1/cube", json={"position": "sNvBATDYc+ABMA", "length": 5, "score": [2, 3]})
        assert r.status_code == 200, r.text
        d = r.json()
        assert d["match_length"] == 5 and d["proper"] == "no double, take" and d["double_pass"] == 1.0
        assert 0 < d["no_double_mwc"] < 1 and d["match_id"] and d["xgid"].startswith("XGID=")
        money = client.post("/v1/cube", json={"position": START, "level": "net1"}).json()
        assert money["match_length"] == 0 and "no_double_mwc" not in money or money["no_double_mwc"] is None
        for body, error in (({"position": START, "length": 5, "score": [5, 1]}, "InvalidArgument"),
                            ({"position": START, "cube": 3}, "InvalidArgument"),
                            ({"position": START, "owner": "me"}, "InvalidArgument"),
                            ({"position": START, "level": "ply9"}, "InvalidArgument"),
                            ({"ruleset": "tawla31", "position": START}, "InvalidId")):
            r = client.post("/v1/cube", json=body)
            assert r.status_code == 400 and r.json()["error"] in (error, "UnsupportedRuleset", "InvalidPosition"), (
                body, r.json())


class TestRooms:
    def test_options_outside_the_house_are_refused(self, client):
        for opts, error in (({"ruleset": "tawla31", "house": "federation", "length": 7}, "ConfigError"),
                            ({"ruleset": "adi", "house": "federation", "turn_seconds": 20}, "ConfigError"),
                            ({"ruleset": "backgammon", "house": "federation"}, "UnsupportedRuleset"),
                            ({"ruleset": "adi", "house": "saharat", "length": 3}, "ConfigError"),
                            ({"ruleset": "adi", "house": "nowhere"}, "ConfigError"),
                            ({"ruleset": "adi", "house": "international", "turn_seconds": 0.01}, "ConfigError"),
                            ({"ruleset": "adi", "house": "saharat", "stake": 5}, "Unauthorized")):
            r = client.post("/v1/rooms", json=opts)
            assert r.status_code == (401 if error == "Unauthorized" else 400), (opts, r.text)
            assert r.json()["error"] == error, (opts, r.text)

    def test_turn_time_from_the_host(self, client):
        host = create_room(client, ruleset="adi", house="federation", length=1, turn_seconds=90)
        join(client, host)
        s = host.state()
        assert s["options"]["turn_seconds"] == 90 and s["deadline"] is not None
        assert s["match"]["config"]["house"]["turn_time"] == 90
        unlimited = create_room(client, ruleset="adi", house="federation", turn_seconds=None)
        join(client, unlimited)
        assert unlimited.state()["deadline"] is None

    def test_play_step_by_step_and_the_errors(self, client):
        players = two_players(client, ruleset="backgammon", house="international", length=1)
        s = players[0].state()
        assert s["status"] == "playing" and s["phase"] == "move"  # the opening roll is played at once
        # fair dice: the commitment is public from the start, the seed is not
        fair = s["fair_dice"]
        assert set(fair) == {"scheme", "commitment", "client_seeds", "n"} and fair["n"] >= 1
        for part in ("config", "state"):
            assert "seed" not in s["match"][part]["rng"]
            assert s["match"][part]["rng"]["commitment"] == fair["commitment"]
        mover, other = players[s["to_act"]], players[1 - s["to_act"]]
        assert other.state()["legal_moves"] == []
        mine = mover.state()
        assert mine["legal_moves"] and mine["legal_steps"]
        r = other.act("roll")
        assert r.status_code == 409 and r.json()["error"] == "NotYourTurn"
        r = mover.act("step", **{"from": 3, "to": 25})
        assert r.status_code == 409 and r.json()["error"] == "IllegalMove"
        first = mine["legal_steps"][0]
        after = mover.ok("step", **{"from": first["from"], "to": first["to"], "dice": first["dice"]})
        assert after["played_steps"][0]["from"] == first["from"]
        assert mover.ok("undo")["played_steps"] == []
        r = mover.act("confirm")
        assert r.status_code == 409 and r.json()["error"] == "InvalidAction"
        while True:  # step until the turn is complete, then confirm
            cur = mover.state()
            if not cur["legal_steps"]:
                break
            st = cur["legal_steps"][0]
            mover.ok("step", **{"from": st["from"], "to": st["to"], "dice": st["dice"]})
        done = mover.ok("confirm")
        assert done["turn"] == other.seat or done["phase"] == "over"

    def test_auth(self, client):
        players = two_players(client, ruleset="adi", house="international", length=1)
        code = players[0].code
        r = client.post(f"/v1/rooms/{code}/actions", json={"action": "roll"})
        assert r.status_code == 401 and r.json()["error"] == "Unauthorized"
        r = client.post(f"/v1/rooms/{code}/actions", json={"action": "roll"}, headers={"Authorization": "Bearer x"})
        assert r.status_code == 401
        elsewhere = create_room(client, ruleset="adi")
        r = client.post(f"/v1/rooms/{code}/actions", json={"action": "roll"}, headers=elsewhere.headers)
        assert r.status_code == 403 and r.json()["error"] == "Forbidden"
        # a token of another room learns nothing of which rooms exist; no token, neither
        assert client.get("/v1/rooms/NOROOM", headers=elsewhere.headers).status_code == 403
        assert client.get("/v1/rooms/NOROOM").status_code == client.get(f"/v1/rooms/{code}").status_code == 401
        spectator = join(client, players[0], "Eve")
        assert spectator.seat is None and spectator.state()["you"] is None
        assert spectator.act("roll").status_code == 403

    def test_double_take_drop_resign_accept_reject(self, client):
        players = two_players(client, ruleset="backgammon", house="international", length=7)
        s = play_until(players, lambda st: st["phase"] == "roll")
        roller = players[s["turn"]]
        taker = players[1 - s["turn"]]
        assert roller.ok("double")["phase"] == "double"
        taken = taker.ok("take")
        assert taken["cube"] == {"value": 2, "owner": taker.seat, "in_play": True}
        s = play_until(players, lambda st: st["phase"] == "roll" and st["turn"] == taker.seat)
        assert taker.ok("double")["phase"] == "double"
        dropped = roller.ok("drop")
        assert dropped["score"][taker.seat] == 2
        s = players[0].state()
        resigner = players[s["turn"]]
        answerer = players[1 - s["turn"]]
        assert resigner.ok("resign", kind="single")["phase"] == "resign"
        assert resigner.act("accept").status_code == 409
        back = answerer.ok("reject")
        assert back["phase"] in ("roll", "move")
        resigner.ok("resign", kind="gammon")
        ended = answerer.ok("accept")
        assert ended["score"][answerer.seat] == (2 if answerer.seat == taker.seat else 0) + 2

    def test_a_match_against_a_bot_to_the_end_and_a_rematch(self, client):
        host = create_room(client, ruleset="adi", house="international", length=1, public=True)
        assert host.code in [t["code"] for t in client.get("/v1/tables").json()]
        r = client.post(f"/v1/rooms/{host.code}/bots", json={"level": "random"}, headers=host.headers)
        assert r.status_code == 201
        assert host.code not in [t["code"] for t in client.get("/v1/tables").json()]
        s = play_until({0: host}, lambda st: False)
        assert s["phase"] == "over" and s["winner"] in (0, 1) and s["seats"][1]["bot"] == "random"
        # over: the seed is revealed, and the match's document as served verifies
        over = host.state()
        assert over["phase"] == "over" and over["fair_dice"]["seed"]
        assert hashlib.sha256(bytes.fromhex(over["fair_dice"]["seed"])).hexdigest() == over["fair_dice"]["commitment"]
        v = tawla.verify_dice(over["match"])
        assert v.ok and v.rolls == over["fair_dice"]["n"] >= 2
        again = client.post(f"/v1/rooms/{host.code}/rematch", headers=host.headers)
        assert again.status_code == 200 and again.json()["match_no"] == 2 and again.json()["status"] == "playing"

    @pytest.mark.parametrize("level", ["ply0", "ply1", "ply2"])
    def test_bots_of_every_search_level_play(self, client, level):
        host = create_room(client, ruleset="tawla31", house="federation", length=1)
        client.post(f"/v1/rooms/{host.code}/bots", json={"level": level}, headers=host.headers)
        def two_bot_turns(_st):
            events = host.state()["match"]["events"]
            return sum(e["type"] == "turn" and e["player"] == 1 for e in events) >= 2

        s = play_until({0: host}, two_bot_turns)
        assert s["phase"] != "over" or s["winner"] is not None

    def test_only_the_host_adds_a_bot_of_a_known_level(self, client):
        host = create_room(client, ruleset="adi")
        r = client.post(f"/v1/rooms/{host.code}/bots", json={"level": "grandmaster"}, headers=host.headers)
        assert r.status_code == 400 and r.json()["error"] == "ConfigError"
        guest = join(client, host)
        r = client.post(f"/v1/rooms/{host.code}/bots", json={"level": "ply0"}, headers=guest.headers)
        assert r.status_code == 403


class TestSocket:
    def test_events_actions_and_malformed_messages(self, server, client):
        players = two_players(client, ruleset="mahbusa", house="international", length=1)
        with ws_connect(server, players[0].code, players[0].token) as a, \
                ws_connect(server, players[1].code, players[1].token, first_message=True) as b:
            first = json.loads(a.recv(timeout=10))
            assert first["type"] == "state" and first["state"]["you"] == 0
            json.loads(b.recv(timeout=10))
            for junk in ("not json", "[1, 2]", json.dumps({"action": "fly"})):
                a.send(junk)
                err = json.loads(a.recv(timeout=10))
                assert err["type"] == "error" and err["error"] == "InvalidArgument"
            s = first["state"]
            mover, other = (a, b) if s["to_act"] == 0 else (b, a)
            other.send(json.dumps({"action": "roll"}))
            err = json.loads(other.recv(timeout=10))
            assert err["type"] == "error" and err["status"] == 409
            p = players[s["to_act"]]
            move = p.state()["legal_moves"][0]
            mover.send(json.dumps({"action": "move", "move": move}))
            frames = [json.loads(mover.recv(timeout=10)) for _ in range(2)]
            assert {f["type"] for f in frames} == {"state", "ok"}
            pushed = json.loads(other.recv(timeout=10))  # the other side hears of it, with the events
            assert pushed["type"] == "state" and pushed["state"]["turn"] == 1 - s["to_act"]
            assert [e["type"] for e in pushed["events"]][:2] == ["play", "turn"]

    def test_a_socket_without_a_seat_is_closed(self, server, client):
        host = create_room(client, ruleset="adi")
        with ws_connect(server, host.code, "wrong") as ws:
            assert json.loads(ws.recv(timeout=10))["error"] == "Unauthorized"
        with ws_connect(server, host.code, "wrong", first_message=True) as ws:
            assert json.loads(ws.recv(timeout=10))["error"] == "Unauthorized"


def test_player_helper_is_used(client):
    assert isinstance(create_room(client, ruleset="adi"), Player)
