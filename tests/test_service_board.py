"""``GET /v1/rooms/{code}/board.svg``: the room's board from the viewer's seat, lit checkers for
the seat to move, lit destinations with ``selected``; against a real ``tawla serve`` process."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

httpx = pytest.importorskip("httpx")
pytest.importorskip("fastapi")

from service_helpers import Server, create_room, join  # noqa: E402
from tawla.service.board_svg import move_hops  # noqa: E402

SVG = "{http://www.w3.org/2000/svg}"


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    d = tmp_path_factory.mktemp("board")
    s = Server(f"sqlite:///{d / 'board.db'}", cwd=str(d)).start()
    with httpx.Client(base_url=s.url, timeout=30) as c:
        yield c
    s.stop()


def board(client, player, **params):
    r = client.get(f"/v1/rooms/{player.code}/board.svg", headers=player.headers, params=params)
    assert r.status_code == 200, r.text
    assert r.headers["content-type"].startswith("image/svg+xml")
    return ET.fromstring(r.text)


def lit(root, what="checker"):
    return sorted({int(e.get("data-point")) for e in root.iter() if "lit" in e.get("class", "").split()
                   and e.get("class", "").split()[0] == what})


def test_board_of_a_room(client):
    host = create_room(client, name="Ann", ruleset="backgammon", length=3)
    waiting = board(client, host)
    assert waiting.get("data-ruleset") == "backgammon"
    guest = join(client, host, "Bob")
    state = host.state()
    mover = {0: host, 1: guest}[state["to_act"]]
    other = {0: host, 1: guest}[1 - state["to_act"]]
    if state["phase"] == "roll":
        mover.ok("roll")
    mine = mover.state()
    assert mine["phase"] == "move"
    froms = sorted({s["from"] for s in mine["legal_steps"]})
    root = board(client, mover)
    assert lit(root) == froms and root.get("data-flipped") == "0"
    assert root.find(f".//{SVG}g[@class='dice']").get("data-dice") == "".join(map(str, mine["dice"]))
    p = froms[0]
    sel = board(client, mover, selected=p)
    assert lit(sel) == [p]
    assert lit(sel, "point") + lit(sel, "off") == sorted({s["to"] for s in mine["legal_steps"] if s["from"] == p})
    seen = board(client, other)
    assert seen.get("data-flipped") == "1" and not lit(seen)     # the other seat: its own view, nothing lit
    assert seen.get("data-position") == root.get("data-position")
    move = mine["legal_moves"][0]
    mover.ok("move", move=move)
    after = board(client, other)                                 # the next player sees the move made
    arrows = [e for e in after.iter(SVG + "g") if e.get("class") == "arrow"]
    assert arrows and all(a.get("data-side") == "opponent" for a in arrows)
    assert [(int(a.get("data-tail")), int(a.get("data-head"))) for a in arrows] == move_hops(move)


def test_move_hops():
    assert move_hops("bar/22* 13/8(2) 6/off 24/18/12") == [(25, 22), (13, 8), (13, 8), (6, 0), (24, 18), (18, 12)]
    assert move_hops("") == [] and move_hops("nonsense 30/2") == []


def test_board_errors(client):
    host = create_room(client, name="Ann", ruleset="mahbusa", house="saharat", length=1)
    assert client.get(f"/v1/rooms/{host.code}/board.svg").status_code == 401
    assert client.get("/v1/rooms/ZZZZZZ/board.svg", headers=host.headers).status_code == 403
    # the token goes in the Authorization header only, never in the URL
    assert client.get(f"/v1/rooms/{host.code}/board.svg", params={"token": host.token}).status_code == 401
    r = client.get(f"/v1/rooms/{host.code}/board.svg", headers=host.headers, params={"selected": 30})
    assert r.status_code == 422 and r.json()["error"] == "InvalidArgument"
    by_header = client.get(f"/v1/rooms/{host.code}/board.svg", headers=host.headers)
    assert by_header.status_code == 200 and ET.fromstring(by_header.text).get("data-ruleset") == "mahbusa"
