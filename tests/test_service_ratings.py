"""Ratings and client seeds on a real ``tawla serve``: rated rooms seat accounts and bots,
a rated match's result changes both players' Glicko-2 ratings once (a resignation and a
forfeit are losses), the leaderboard and an account's history; the players' client seeds go
into the match's fair dice before its first roll, and a finished room's match verifies."""

from __future__ import annotations

import pytest

httpx = pytest.importorskip("httpx")
pytest.importorskip("fastapi")

from service_helpers import Player, Server, create_room  # noqa: E402

from tawla.match.dice_verify import verify_dice  # noqa: E402
from tawla.ratings import NEW, rate_match  # noqa: E402

WIN, LOSS = rate_match(NEW, NEW, 1.0)
"""Two new players, one match: the winner's and the loser's new ratings."""


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    d = tmp_path_factory.mktemp("ratings")
    s = Server(f"sqlite:///{d / 'ratings.db'}", cwd=str(d)).start()
    yield s
    s.stop()


@pytest.fixture
def client(server):
    with httpx.Client(base_url=server.url, timeout=60) as c:
        yield c


def account(client, name: str) -> dict:
    r = client.post("/v1/accounts", json={"name": name, "house": "international"})
    assert r.status_code == 201, r.text
    return {"Authorization": f"Bearer {r.json()['token']}"}


def rated_room(client, host_acc, guest_acc, ruleset="backgammon", length=1, **extra) -> dict:
    r = client.post("/v1/rooms", json={"ruleset": ruleset, "length": length, "rated": True, "name": "host",
                                       **extra}, headers=host_acc)
    assert r.status_code == 201, r.text
    host = Player(client, r.json()["code"], r.json()["token"], 0)
    r = client.post(f"/v1/rooms/{host.code}/join", json={"name": "guest"}, headers=guest_acc)
    assert r.status_code == 200, r.text
    return {0: host, 1: Player(client, host.code, r.json()["token"], 1)}


def resign_now(players: dict) -> dict:
    """The seat to act resigns a single game and the other accepts: the match of one point
    ends; the final state."""
    s = players[0].state()
    loser = s["to_act"]
    players[loser].ok("resign", kind="single")
    players[1 - loser].ok("accept")
    s = players[0].state()
    assert s["phase"] == "over" and s["winner"] == 1 - loser
    return s


def test_a_rated_room_seats_accounts_and_plays_a_match(client):
    r = client.post("/v1/rooms", json={"length": 1, "rated": True})
    assert r.status_code == 401 and r.json()["error"] == "Unauthorized"
    acc = account(client, "Rhea")
    r = client.post("/v1/rooms", json={"length": 0, "rated": True}, headers=acc)
    assert r.status_code == 400 and r.json()["error"] == "ConfigError", r.text
    host = create_room(client, headers=acc, length=1, rated=True)
    r = client.post(f"/v1/rooms/{host.code}/join", json={"name": "guest"})
    assert r.status_code == 401, r.text                      # a guest has no rating
    r = client.post(f"/v1/rooms/{host.code}/join", json={"name": "again"}, headers=acc)
    assert r.status_code == 409 and r.json()["error"] == "InvalidAction", r.text
    assert host.state()["phase"] == "waiting"


def test_a_resigned_rated_match_moves_both_ratings_once(client):
    a, b = account(client, "Amal"), account(client, "Basim")
    players = rated_room(client, a, b)
    assert players[0].state()["options"]["rated"] is True and players[0].state()["ratings"] is None
    s = resign_now(players)
    w = s["winner"]
    got = s["ratings"]
    assert got[w]["before"] == got[1 - w]["before"] == 1500.0
    assert got[w]["after"] == pytest.approx(WIN.rating) and got[1 - w]["after"] == pytest.approx(LOSS.rating)
    assert got[w]["change"] == pytest.approx(WIN.rating - 1500) and got[w]["deviation"] == pytest.approx(WIN.deviation)
    assert players[1].state()["ratings"] == got               # both seats see it
    winner_acc, loser_acc = (a, b) if w == 0 else (b, a)
    mine = client.get("/v1/accounts/me/ratings", headers=winner_acc).json()
    assert mine["ratings"] == [{"ruleset": "backgammon", "kind": "game", "rating": pytest.approx(WIN.rating),
                                "deviation": pytest.approx(WIN.deviation),
                                "volatility": pytest.approx(WIN.volatility), "played": 1}]
    (h,) = mine["history"]
    assert h["room"] == players[0].code and h["result"] == 1.0 and h["opponent"] in ("Amal", "Basim")
    assert client.get("/v1/accounts/me/ratings", headers=loser_acc).json()["history"][0]["result"] == 0.0
    board = client.get("/v1/ratings/backgammon", params={"kind": "game", "limit": 500}).json()
    names = [p["name"] for p in board["players"]]
    winner_name = "Amal" if w == 0 else "Basim"
    assert names.index(winner_name) < names.index("Basim" if w == 0 else "Amal")
    ranks = [p["rank"] for p in board["players"]]
    assert ranks == list(range(1, len(ranks) + 1))
    assert [p["rating"] for p in board["players"]] == sorted((p["rating"] for p in board["players"]), reverse=True)
    # the rematch is another rated match: the ratings of the first stay in the history
    for p in players.values():
        p.client.post(f"/v1/rooms/{p.code}/rematch", headers=p.headers)
    assert players[0].state()["ratings"] is None
    resign_now(players)
    assert len(client.get("/v1/accounts/me/ratings", headers=a).json()["history"]) == 2


def test_leaving_a_rated_match_is_a_loss_and_bots_are_rated(client):
    a = account(client, "Dalia")
    host = create_room(client, headers=a, ruleset="adi", house="international", length=3, rated=True, name="Dalia")
    r = client.post(f"/v1/rooms/{host.code}/bots", json={"level": "ply0"}, headers=host.headers)
    assert r.status_code == 201, r.text
    host.ok("leave")
    s = host.state()
    assert s["phase"] == "over" and s["winner"] == 1 and s["end_reason"] == "forfeit"
    assert s["ratings"][0]["after"] == pytest.approx(LOSS.rating)
    assert s["ratings"][1]["after"] == pytest.approx(WIN.rating)
    board = client.get("/v1/ratings/adi").json()               # kind match: length 3
    bots = [p for p in board["players"] if p["bot"] == "ply0"]
    assert bots and bots[0]["player"] == "bot:ply0" and bots[0]["name"] == "Bot (ply0)" and bots[0]["rating"] > 1500
    assert client.get("/v1/ratings/adi", params={"kind": "game"}).json()["players"] == []


def test_ratings_endpoints_refuse_bad_input(client):
    assert client.get("/v1/ratings/no-such-game").status_code == 400
    assert client.get("/v1/ratings/backgammon", params={"kind": "blitz"}).status_code == 422
    assert client.get("/v1/ratings/backgammon", params={"limit": 0}).status_code == 422
    assert client.get("/v1/accounts/me/ratings").status_code == 401


def test_casual_rooms_and_guests_are_not_rated(client):
    host = create_room(client, name="Guest", length=1)
    r = client.post(f"/v1/rooms/{host.code}/join", json={"name": "Other"})
    players = {0: host, 1: Player(client, host.code, r.json()["token"], 1)}
    s = resign_now(players)
    assert s["ratings"] is None and s["options"]["rated"] is False


def test_client_seeds_go_into_the_dice_and_the_finished_match_verifies(client):
    r = client.post("/v1/rooms", json={"length": 1, "name": "Ann", "client_seed": "ann's luck"})
    assert r.status_code == 201, r.text
    made = r.json()
    host = Player(client, made["code"], made["token"], 0)
    commitment = made["fair_dice"]["commitment"]
    assert made["fair_dice"]["client_seeds"] == ["ann's luck", ""] and "seed" not in made["fair_dice"]
    r = client.post(f"/v1/rooms/{host.code}/client-seed", json={"client_seed": "ann again"}, headers=host.headers)
    assert r.status_code == 200 and r.json()["commitment"] == commitment, r.text
    waiting = host.state()["next_fair_dice"]
    assert waiting["client_seeds"] == ["ann again", ""] and "seed" not in waiting
    bad = client.post(f"/v1/rooms/{host.code}/client-seed", json={"client_seed": "tab\there"}, headers=host.headers)
    assert bad.status_code == 409 and bad.json()["error"] == "InvalidAction"
    r = client.post(f"/v1/rooms/{host.code}/join", json={"name": "Bob", "client_seed": "bob"})
    assert r.status_code == 200, r.text
    guest = Player(client, host.code, r.json()["token"], 1)
    s = host.state()
    assert s["fair_dice"]["commitment"] == commitment and s["fair_dice"]["client_seeds"] == ["ann again", "bob"]
    assert s["next_fair_dice"] is None and "seed" not in s["match"]["state"]["rng"]
    late = client.post(f"/v1/rooms/{host.code}/client-seed", json={"client_seed": "x"}, headers=guest.headers)
    assert late.status_code == 409, late.text                  # fixed at the first roll
    s = resign_now({0: host, 1: guest})
    doc = s["match"]
    assert doc["state"]["rng"]["seed"]                          # revealed at the end
    assert verify_dice(doc).ok
    nxt = s["next_fair_dice"]
    assert nxt["commitment"] != commitment and nxt["client_seeds"] == ["", ""]
    spectator = client.post(f"/v1/rooms/{host.code}/join", json={"name": "Sam"}).json()
    r = client.post(f"/v1/rooms/{host.code}/client-seed", json={"client_seed": "x"},
                    headers={"Authorization": f"Bearer {spectator['token']}"})
    assert r.status_code == 403, r.text
    r = client.post(f"/v1/rooms/{host.code}/client-seed", json={"client_seed": "rematch"}, headers=guest.headers)
    assert r.status_code == 200 and r.json()["client_seeds"] == ["", "rematch"]
    for p in (host, guest):
        client.post(f"/v1/rooms/{p.code}/rematch", headers=p.headers)
    s = host.state()
    assert s["match_no"] == 2 and s["fair_dice"]["commitment"] == nxt["commitment"]
    assert s["fair_dice"]["client_seeds"] == ["", "rematch"]


def test_the_store_rates_a_match_once_and_loads_its_changes(tmp_path):
    from tawla.service.store import Store
    store = Store(f"sqlite:///{tmp_path / 'once.db'}")
    try:
        store.create_room("ROOM01", {"ruleset": "backgammon", "length": 1}, {"seat": 0, "name": "a", "token": "t"})
        rated = (1, "backgammon", "game", ("account:1", "bot:ply1"), 1)
        first = store.save_room("ROOM01", {"status": "over", "match_no": 1}, rated=rated)
        again = store.save_room("ROOM01", {"status": "over", "match_no": 1}, rated=rated)
        assert first == again and first[1]["after"] == pytest.approx(WIN.rating)
        board = store.leaderboard("backgammon", "game", 10)
        assert [(p["player"], p["played"]) for p in board] == [("bot:ply1", 1), ("account:1", 1)]
        (room,) = store.load()
        assert room["ratings"] == first
        assert store.save_room("ROOM01", {"version": 3}) is None
    finally:
        store.close()


def test_a_finished_match_is_analysed_for_its_room_once(client):
    host = create_room(client, name="Ann", length=1)
    r = client.post(f"/v1/rooms/{host.code}/join", json={"name": "Bob"})
    guest = Player(client, host.code, r.json()["token"], 1)
    early = client.get(f"/v1/rooms/{host.code}/analysis.json", headers=host.headers)
    assert early.status_code == 409 and early.json()["error"] == "InvalidAction"
    players = {0: host, 1: guest}
    for _ in range(6):                                         # a few turns, then a resignation
        s = host.state()
        p = players[s["to_act"]]
        mine = p.state()
        if mine["phase"] == "move":
            p.ok("move", move=mine["legal_moves"][0])
        elif mine["phase"] == "roll":
            p.ok("roll")
    s = resign_now(players)
    assert s["analysis"] == {"html": f"/v1/rooms/{host.code}/analysis.html",
                             "json": f"/v1/rooms/{host.code}/analysis.json"}
    assert client.get(s["analysis"]["json"]).status_code == 401
    other = create_room(client, name="Elsewhere")
    assert client.get(s["analysis"]["json"], headers=other.headers).status_code == 403
    r = client.get(s["analysis"]["json"], headers=guest.headers)
    assert r.status_code == 200, r.text
    rep = r.json()
    assert rep["players"] == ["Ann", "Bob"] and rep["error"] is None and rep["ok"]
    made = [e for e in s["match"]["events"] if e["type"] == "turn"]
    assert sum(p["plays"] for p in rep["player_stats"]) == len(made) >= 3   # every play of the match judged
    html = client.get(s["analysis"]["html"], headers=host.headers)
    assert html.status_code == 200 and html.headers["content-type"].startswith("text/html")
    assert f"room {host.code}, match 1" in html.text and "Ann" in html.text
    spectator = client.post(f"/v1/rooms/{host.code}/join", json={"name": "Sam"}).json()
    again = client.get(s["analysis"]["json"], headers={"Authorization": f"Bearer {spectator['token']}"})
    assert again.status_code == 200 and again.text == r.text   # made once, kept


def test_an_analysis_outlives_a_request_that_gives_up(monkeypatch):
    import asyncio
    import time as _time

    from tawla.service import match_analysis as MA

    calls = []

    def slow(record, title):
        calls.append(title)
        _time.sleep(0.3)
        return "<html/>", "{}"

    monkeypatch.setattr(MA, "analyse", slow)

    async def main():
        a = MA.MatchAnalyses()
        try:
            first = asyncio.ensure_future(a.of("ROOM01", 1, None))
            second = asyncio.ensure_future(a.of("ROOM01", 1, None))
            await asyncio.sleep(0.05)
            first.cancel()                                   # the first client goes away
            assert await second == ("<html/>", "{}")         # the other still gets it
            assert await a.of("ROOM01", 1, None) == ("<html/>", "{}")   # kept: not made again
        finally:
            a.close()

    asyncio.run(main())
    assert len(calls) == 1
