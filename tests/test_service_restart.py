"""``kill -9`` of ``tawla serve`` at any moment loses nothing: a restart on the same database
resumes rooms, tokens, matches mid-turn and deadlines (one that passed meanwhile fires)."""

from __future__ import annotations

import sqlite3
import time

import pytest

httpx = pytest.importorskip("httpx")
pytest.importorskip("fastapi")

from service_helpers import Player, Server, create_room, join, play_until, ws_connect  # noqa: E402


@pytest.fixture
def db(tmp_path):
    return f"sqlite:///{tmp_path / 'restart.db'}"


@pytest.fixture
def servers(tmp_path):
    started = []

    def start(db):
        s = Server(db, cwd=str(tmp_path)).start()
        started.append(s)
        return s

    yield start
    for s in started:
        s.stop()


def rebind(players: dict, client) -> dict:
    return {k: Player(client, p.code, p.token, p.seat) for k, p in players.items()}


def test_sigkill_mid_match_and_mid_turn_loses_nothing(db, servers):
    a = servers(db)
    with httpx.Client(base_url=a.url, timeout=30) as c:
        host = create_room(c, ruleset="backgammon", house="international", length=3, name="Ann")
        players = {0: host, 1: join(c, host, "Bob")}
        n_turns = [0]

        def three_turns_then_a_step(st):
            n_turns[0] = sum(e["type"] == "turn" for e in st["match"]["events"]) if st["match"] else 0
            return n_turns[0] >= 3 and st["phase"] == "move"
        s = play_until(players, lambda st: three_turns_then_a_step(players[0].state()))
        mover = players[s["to_act"]]
        st = mover.state()["legal_steps"][0]
        mover.ok("step", **{"from": st["from"], "to": st["to"], "dice": st["dice"]})
        before = mover.state()
        a.kill()  # SIGKILL right after the step was acknowledged
    b = servers(db)
    with httpx.Client(base_url=b.url, timeout=30) as c:
        players = rebind(players, c)
        mover = players[before["to_act"]]
        after = mover.state()
        assert after["match"] == before["match"]
        for key in ("phase", "turn", "to_act", "dice", "dice_left", "played_steps", "legal_steps",
                    "legal_moves", "position", "score", "deadline"):
            assert after[key] == before[key], key
        while mover.state()["legal_steps"]:  # finish the turn begun before the crash
            st = mover.state()["legal_steps"][0]
            mover.ok("step", **{"from": st["from"], "to": st["to"], "dice": st["dice"]})
        if mover.state()["phase"] == "move":
            mover.ok("confirm")
        b.kill()  # and once more, between turns
    c2 = servers(db)
    with httpx.Client(base_url=c2.url, timeout=30) as c:
        players = rebind(players, c)
        s = players[0].state()
        resigner, winner = players[s["turn"]], players[1 - s["turn"]]
        resigner.ok("resign", kind="backgammon")  # 3 points: the match to 3 ends
        end = winner.ok("accept")
        assert end["phase"] == "over" and end["winner"] == winner.seat and end["score"][winner.seat] == 3


def test_a_deadline_that_passed_while_down_fires_at_start(db, servers):
    a = servers(db)
    with httpx.Client(base_url=a.url, timeout=30) as c:
        host = create_room(c, ruleset="adi", house="international", length=1, turn_seconds=1)
        guest = join(c, host)
        s = host.state()
        deadline, to_act = s["deadline"], s["to_act"]
        assert deadline is not None and s["phase"] in ("roll", "move")
        a.kill()
    time.sleep(max(0.0, deadline - time.time()) + 0.5)
    b = servers(db)
    with httpx.Client(base_url=b.url, timeout=30) as c:
        s = Player(c, host.code, guest.token, guest.seat).state()
        timeouts = [e for e in s["match"]["events"] if e["type"] == "timeout"]
        assert timeouts and timeouts[0]["t"] >= deadline
        assert timeouts[0]["player"] == to_act  # the seat that was to act when the server died


def test_a_record_that_does_not_replay_keeps_only_its_room_shut(db, servers, tmp_path):
    a = servers(db)
    with httpx.Client(base_url=a.url, timeout=30) as c:
        broken, fine = (create_room(c, ruleset="adi", house="international", length=1) for _ in range(2))
        join(c, broken)
        join(c, fine)
        a.kill()
    con = sqlite3.connect(tmp_path / "restart.db")
    with con:
        con.execute("UPDATE rooms SET match = ? WHERE code = ?", ('{"format": "tawla-match"}', broken.code))
    con.close()
    b = servers(db)
    with httpx.Client(base_url=b.url, timeout=30) as c:
        assert c.get(f"/v1/rooms/{broken.code}", headers=broken.headers).status_code == 401  # not resumed
        assert Player(c, fine.code, fine.token, 0).state()["status"] == "playing"


def test_a_server_that_stops_does_not_report_its_players_gone(db, servers):
    pytest.importorskip("websockets.sync.client")
    a = servers(db)
    with httpx.Client(base_url=a.url, timeout=30) as c:
        accounts = [c.post("/v1/accounts", json={"name": n}).json()["token"] for n in ("a", "b")]
        r = c.post("/v1/rooms", json={"ruleset": "adi", "house": "saharat", "length": 1, "stake": 10,
                                      "grace_seconds": 60}, headers={"Authorization": f"Bearer {accounts[0]}"})
        host = Player(c, r.json()["code"], r.json()["token"], 0)
        c.post(f"/v1/rooms/{host.code}/join", json={}, headers={"Authorization": f"Bearer {accounts[1]}"})
        with ws_connect(a, host.code, host.token) as ws:
            ws.recv(timeout=10)
            a.stop()  # SIGTERM: uvicorn closes the socket with 1012
    b = servers(db)
    with httpx.Client(base_url=b.url, timeout=30) as c:
        events = Player(c, host.code, host.token, 0).state()["match"]["events"]
        assert not [e for e in events if e["type"] == "disconnect"]


def test_the_version_only_grows_across_a_restart(db, servers):
    a = servers(db)
    with httpx.Client(base_url=a.url, timeout=30) as c:
        host = create_room(c, ruleset="adi", house="international", length=1)
        join(c, host)
        for _ in range(6):  # spectators change the room, not its match's log
            join(c, host, "watcher")
        before = host.state()["version"]
        a.kill()
    b = servers(db)
    with httpx.Client(base_url=b.url, timeout=30) as c:
        after = Player(c, host.code, host.token, 0).state()
    assert after["version"] > before and after["spectators"] == 6


def test_a_database_written_before_the_events_table_loads(tmp_path, servers):
    """The tables as an older service wrote them: no ``events`` table, no ``rooms.version``,
    the whole match in ``rooms.match``."""
    import json

    from tawla.match import Match
    from tawla.service.store import hash_token

    m = Match("adi", "international", 1, ("Ann", "Bob"), rng=7, clock=time.time)
    while m.phase != "move":
        m.roll(m.turn)
    m.play(m.turn, m.legal_moves()[0])
    path = tmp_path / "old.db"
    con = sqlite3.connect(path)
    with con:
        con.executescript("""
            CREATE TABLE accounts (id INTEGER PRIMARY KEY AUTOINCREMENT, name VARCHAR(200) NOT NULL,
                token VARCHAR(64) NOT NULL UNIQUE, house VARCHAR(40) NOT NULL,
                balance INTEGER NOT NULL CONSTRAINT balance_not_negative CHECK (balance >= 0), created FLOAT NOT NULL);
            CREATE TABLE ledger (id INTEGER PRIMARY KEY AUTOINCREMENT, account INTEGER, room VARCHAR(16),
                amount INTEGER NOT NULL, kind VARCHAR(16) NOT NULL, t FLOAT NOT NULL);
            CREATE TABLE rooms (code VARCHAR(16) PRIMARY KEY, options TEXT NOT NULL, status VARCHAR(16) NOT NULL,
                match TEXT, deadline FLOAT, escrow INTEGER NOT NULL, match_no INTEGER NOT NULL,
                rematch TEXT NOT NULL, created FLOAT NOT NULL);
            CREATE TABLE members (id INTEGER PRIMARY KEY AUTOINCREMENT, room VARCHAR(16) NOT NULL, seat INTEGER,
                name VARCHAR(200) NOT NULL, token VARCHAR(64) UNIQUE, account INTEGER, bot VARCHAR(16));
        """)
        opts = {"house": "international", "public": False, "stake": 0, "ruleset": "adi", "length": 1}
        con.execute("INSERT INTO rooms VALUES ('OLDONE', ?, 'playing', ?, NULL, 0, 1, '[]', 0)",
                    (json.dumps(opts), m.to_json()))
        for seat, name in ((0, "Ann"), (1, "Bob")):
            con.execute("INSERT INTO members (room, seat, name, token) VALUES ('OLDONE', ?, ?, ?)",
                        (seat, name, hash_token(f"token-{seat}")))
    con.close()
    s = servers(f"sqlite:///{path}")
    with httpx.Client(base_url=s.url, timeout=30) as c:
        p = Player(c, "OLDONE", "token-0", 0)
        st = p.state()
        assert st["status"] == "playing" and st["match"]["events"] == m.events and st["version"] >= len(m.events)
        mover = Player(c, "OLDONE", f"token-{st['to_act']}", st["to_act"])
        assert mover.act("roll" if st["phase"] == "roll" else "resign", kind="single").status_code == 200
    s.kill()
    again = servers(f"sqlite:///{path}")
    with httpx.Client(base_url=again.url, timeout=30) as c:
        assert len(Player(c, "OLDONE", "token-0", 0).state()["match"]["events"]) > len(m.events)


def test_a_long_session_is_rebuilt_from_its_snapshot_and_writes_stay_flat(db, servers, tmp_path):
    """A money session past two snapshots: the match's document is written once, each action
    appends its own event rows (no bigger late in the session than early), a snapshot of the
    state is written every SNAPSHOT_EVERY events, and after kill -9 the room is rebuilt from
    the last snapshot and the events after it, equal to the match as it was."""
    from tawla.service.rooms import SNAPSHOT_EVERY
    a = servers(db)
    path = db.removeprefix("sqlite:///")
    with httpx.Client(base_url=a.url, timeout=30) as c:
        host = create_room(c, ruleset="backgammon", house="international", length=0, name="Ann")
        players = {0: host, 1: join(c, host, "Bob")}
        doc_size = None
        for _ in range(3000):
            s = players[0].state()
            n = len(s["match"]["events"])
            if n > 2 * SNAPSHOT_EVERY + 37:
                break
            if doc_size is None:
                con = sqlite3.connect(path)
                doc_size = len(con.execute("SELECT match FROM rooms").fetchone()[0])
                con.close()
            p = players[s["to_act"]]
            mine = p.state()
            if mine["phase"] == "roll":
                p.ok("roll")
            elif mine["phase"] == "move":
                p.ok("move", move=mine["legal_moves"][0])
            elif mine["phase"] == "double":
                p.ok("take")
        before = players[0].state()
        a.kill()
    con = sqlite3.connect(path)
    doc, snap = con.execute("SELECT match, snapshot FROM rooms").fetchone()
    sizes = [len(r[0]) for r in con.execute("SELECT event FROM events ORDER BY seq")]
    con.close()
    import json
    snapshot = json.loads(snap)
    assert len(doc) == doc_size                                      # the document is written once
    assert 2 * SNAPSHOT_EVERY <= snapshot["n"] < len(before["match"]["events"])
    assert len(snap) < 4 * doc_size                                  # the state, not the log
    k = len(sizes) // 4
    assert sum(sizes[-k:]) / k < 1.5 * sum(sizes[:k]) / k            # late rows no bigger than early ones
    b = servers(db)
    with httpx.Client(base_url=b.url, timeout=30) as c:
        players = rebind(players, c)
        after = players[0].state()
        assert after["match"] == before["match"]
        p = players[after["to_act"]]
        mine = p.state()
        if mine["phase"] == "roll":
            p.ok("roll")
        else:
            p.ok("move", move=mine["legal_moves"][0])
