"""Quick pairing on a real ``tawla serve``: two compatible seekers are paired into a room
(the older hosts), incompatible ones wait, a seek is cancelled, a bot is offered after the
wait the seeker chose, a seek nobody answers lapses, a rated seek needs an account and pairs within rating ranges, and a
seek is its token's only."""

from __future__ import annotations

import time

import pytest

httpx = pytest.importorskip("httpx")
pytest.importorskip("fastapi")

from service_helpers import Player, Server  # noqa: E402


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    d = tmp_path_factory.mktemp("seeks")
    s = Server(f"sqlite:///{d / 'seeks.db'}", cwd=str(d)).start()
    yield s
    s.stop()


@pytest.fixture
def client(server):
    with httpx.Client(base_url=server.url, timeout=60) as c:
        yield c


def seek(client, headers=None, **body) -> dict:
    r = client.post("/v1/seeks", json=body, headers=headers or {})
    assert r.status_code == 201, r.text
    return r.json()


def seek_state(client, s: dict) -> httpx.Response:
    return client.get(f"/v1/seeks/{s['id']}", headers={"Authorization": f"Bearer {s['token']}"})


def cancel(client, s: dict) -> httpx.Response:
    return client.delete(f"/v1/seeks/{s['id']}", headers={"Authorization": f"Bearer {s['token']}"})


def test_two_compatible_seekers_are_paired_into_a_room(client):
    first = seek(client, ruleset="backgammon", length=1, name="Ann")
    assert first["status"] == "waiting" and first["bot_in"] is None and first["rating"] == 1500.0
    other = seek(client, ruleset="backgammon", length=3, name="Odd")   # another table: waits
    assert other["status"] == "waiting"
    second = seek(client, ruleset="backgammon", length=1, name="Bob")
    assert second["status"] == "paired" and second["seat"] == 1 and second["opponent"] == "Ann"
    mine = seek_state(client, first).json()
    assert mine["status"] == "paired" and mine["seat"] == 0 and mine["room"] == second["room"]
    host = Player(client, mine["room"], mine["room_token"], 0)
    guest = Player(client, second["room"], second["room_token"], 1)
    s = host.state()
    assert s["phase"] != "waiting" and [x["name"] for x in s["seats"]] == ["Ann", "Bob"]
    assert guest.state()["you"] == 1 and s["options"]["rated"] is False
    r = cancel(client, first)
    assert r.status_code == 409 and r.json()["error"] == "InvalidAction"
    assert seek_state(client, other).json()["status"] == "waiting"
    assert cancel(client, other).json()["status"] == "cancelled"
    assert seek_state(client, other).json()["status"] == "cancelled"       # still readable, not waiting
    assert cancel(client, other).status_code == 409


def test_a_bot_is_offered_after_the_chosen_wait(client):
    s = seek(client, ruleset="adi", house="international", length=1, name="Cem", bot_after=0.3, bot_level="ply0")
    assert s["status"] == "waiting" and 0 < s["bot_in"] <= 0.3
    end = time.monotonic() + 10
    while (view := seek_state(client, s).json())["status"] == "waiting":
        assert time.monotonic() < end, "no bot came"
        time.sleep(0.05)
    assert view["status"] == "paired" and view["seat"] == 0 and view["opponent"] == "Bot (ply0)"
    state = Player(client, view["room"], view["room_token"], 0).state()
    assert state["seats"][1]["bot"] == "ply0" and state["phase"] != "waiting"


def test_rated_seeks_need_accounts_and_pair_within_rating_ranges(client):
    r = client.post("/v1/seeks", json={"length": 5, "rated": True})
    assert r.status_code == 401 and r.json()["error"] == "Unauthorized"
    accs = []
    for name in ("Dina", "Emre", "Fadi"):
        r = client.post("/v1/accounts", json={"name": name, "house": "international"})
        accs.append({"Authorization": f"Bearer {r.json()['token']}"})
    picky = seek(client, accs[0], length=5, rated=True, rating_range=[1600, 3000], name="Dina")
    plain = seek(client, accs[1], length=5, rated=True, name="Emre")   # 1500: out of Dina's range
    assert picky["status"] == plain["status"] == "waiting"
    casual = seek(client, length=5, name="Guest")                       # not rated: another table
    assert casual["status"] == "waiting"
    third = seek(client, accs[2], length=5, rated=True, rating_range=[1400, 1600], name="Fadi")
    assert third["status"] == "paired" and third["opponent"] == "Emre"
    state = Player(client, third["room"], third["room_token"], 1).state()
    assert state["options"]["rated"] is True
    same = seek(client, accs[0], length=5, rated=True, name="Dina again")   # one account never meets itself
    assert same["status"] == "waiting"
    for s in (picky, casual, same):
        assert cancel(client, s).status_code == 200


def test_bad_seeks_and_other_tokens_are_refused(client):
    assert client.post("/v1/seeks", json={"ruleset": "chess"}).status_code == 400
    assert client.post("/v1/seeks", json={"rating_range": [1800, 1200]}).json()["error"] == "ConfigError"
    assert client.post("/v1/seeks", json={"bot_after": -1}).status_code == 422
    assert client.post("/v1/seeks", json={"bot_after": 1, "bot_level": "grandmaster"}).status_code == 400
    assert client.post("/v1/seeks", json={"rated": True, "length": 1},
                       headers={"Authorization": "Bearer not-an-account"}).status_code == 401
    s = seek(client, ruleset="mahbusa", house="international", length=1)
    assert client.get(f"/v1/seeks/{s['id']}").status_code == 401
    assert client.get(f"/v1/seeks/{s['id']}", headers={"Authorization": "Bearer wrong"}).status_code == 401
    assert client.get("/v1/seeks/nope", headers={"Authorization": f"Bearer {s['token']}"}).status_code == 404
    more = [seek(client, ruleset="mahbusa", house="international", length=n) for n in (3, 5, 7)]
    r = client.post("/v1/seeks", json={"ruleset": "mahbusa", "house": "international", "length": 9})
    assert r.status_code == 429 and r.json()["error"] == "LimitExceeded"
    for x in [s, *more]:
        assert cancel(client, x).status_code == 200


def test_a_seek_nobody_answers_lapses(tmp_path):
    s = Server(f"sqlite:///{tmp_path / 'lapse.db'}", cwd=str(tmp_path), limits={"seek_seconds": 0.5}).start()
    try:
        with httpx.Client(base_url=s.url, timeout=30) as c:
            x = seek(c, length=1, name="Alone")
            end = time.monotonic() + 10
            while (v := seek_state(c, x).json())["status"] == "waiting":
                assert time.monotonic() < end, "the seek never lapsed"
                time.sleep(0.1)
            assert v["status"] == "failed" and "no opponent" in v["detail"]
    finally:
        s.stop()
