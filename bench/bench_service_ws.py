"""Throughput of ``tawla serve`` driven over its WebSockets, with a cheap load client.

    python bench/bench_service_ws.py --rooms 100 --rate 500 --seconds 20                 # one process, SQLite
    python bench/bench_service_ws.py --pg URL [--redis URL] --rooms 100 --rate 500      # one process, PostgreSQL
    python bench/bench_service_ws.py --shared --pg URL --redis URL --rooms 100 --rate 500  # two processes

Each room is a money session of backgammon between two scripted players, each on a socket of
its own (``/v1/rooms/{code}/ws``): when a state frame says a player is to act, he sends the
action (``roll``; the first legal move; ``take``) and waits for its ``ok`` frame; a room has
at most one action in flight and waits a random time between its actions (exponential, mean
``rooms / rate`` seconds: the rooms' actions arrive as a Poisson stream), so the rooms
together ask for ``--rate`` actions a second. An action is one accepted roll, move or
take, written to the database before its ``ok``. No bot plays, so the server's CPU is the
actions' and their state frames' only.

One process (default): the server is pinned to CPU 0 (``taskset``) and the client to CPU 1,
on SQLite. ``--shared``: two servers on one PostgreSQL database and Redis, not pinned; with
``--split seats`` each room's two sockets are on different servers (every action crosses
processes), with ``--split rooms`` each room is on one server (a proxy routing by room).

Reported (one line of JSON, and a table row): actions a second served, the latency of an
action (sent -> ``ok``) at p50/p99 over the steady window (after :data:`WARMUP` seconds), the
server CPU per action (``/proc``; all servers), the client's CPU per action (not counted),
the refused actions, and on SQLite the bytes of event rows per action (the match's document
is written once per match, a snapshot every 200 events).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
from websockets.asyncio.client import connect

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_service import cpu_seconds, start_server  # noqa: E402

WARMUP = 3.0
"""Seconds at the start left out of the latencies."""
LIMITS = ("rooms_per_window=1000000", "frames_per_second=1000", "frame_burst=1000")


def start(db: str, redis: str | None, cpu: int | None, cwd: str,
          profile: str | None = None) -> tuple[subprocess.Popen, str]:
    """A ``tawla serve`` process (pinned to ``cpu``; under cProfile, written to ``profile`` at
    its end), waited for on /v1/health (:func:`bench_service.start_server`)."""
    return start_server(db, LIMITS, extra=[f"--redis={redis}"] if redis else [],
                        wrap=["taskset", "-c", str(cpu)] if cpu is not None else [],
                        python=["-m", "cProfile", "-o", profile] if profile else [], cwd=cwd)


class Room:
    """One room's two players and what was measured of it."""

    def __init__(self, code: str, tokens: dict[int, str], gap: float) -> None:
        self.code, self.tokens, self.gap = code, tokens, gap
        self.state: dict[int, dict] = {}
        self.inflight = False
        self.sent = 0.0
        self.next_at = 0.0
        self.latencies: list[tuple[float, float]] = []  # (when sent, seconds)
        self.refused = 0


async def player(room: Room, seat: int, url: str, end: float, sockets: dict) -> None:
    ws_url = url.replace("http", "ws") + f"/v1/rooms/{room.code}/ws"
    async with connect(ws_url, additional_headers={"Authorization": f"Bearer {room.tokens[seat]}"},
                       max_size=2**22) as ws:
        sockets[seat] = ws
        async for raw in ws:
            msg = json.loads(raw)
            kind = msg["type"]
            if kind == "ok":
                room.latencies.append((room.sent, time.perf_counter() - room.sent))
                room.inflight = False
            elif kind == "error":
                room.refused += 1
                room.inflight = False
            elif kind == "state":
                room.state[seat] = msg["state"]
            if time.perf_counter() >= end:
                return
            for s in (0, 1):  # the seat to act, on its own socket, once nothing is in flight
                st = room.state.get(s)
                if (st is not None and st["to_act"] == s and not room.inflight and s in sockets
                        and st["version"] == max(x["version"] for x in room.state.values())):
                    action = ({"action": "roll"} if st["phase"] == "roll" else
                              {"action": "move", "move": st["legal_moves"][0]} if st["phase"] == "move" else
                              {"action": "take"} if st["phase"] == "double" else None)
                    if action is None:
                        continue
                    room.inflight = True
                    wait = room.next_at - time.perf_counter()
                    if wait > 0:
                        await asyncio.sleep(wait)
                    room.sent = time.perf_counter()
                    room.next_at = room.sent + random.expovariate(1.0 / room.gap)  # Poisson arrivals
                    await sockets[s].send(json.dumps(action))


async def drive(rooms: list[Room], urls: list[str], seconds: float, split: str) -> None:
    now = time.perf_counter()
    end = now + seconds
    tasks = []
    for k, room in enumerate(rooms):
        room.next_at = now + random.uniform(0, room.gap)
        sockets: dict = {}
        for seat in (0, 1):
            url = urls[(seat if split == "seats" else k) % len(urls)]
            tasks.append(asyncio.create_task(player(room, seat, url, end, sockets)))
    done, pending = await asyncio.wait(tasks, timeout=seconds + 1)  # a quiet socket is closed at the end
    for t in pending:
        t.cancel()
    for t in done:
        if t.exception() is not None:
            print("socket:", type(t.exception()).__name__, t.exception(), file=sys.stderr)


def make_rooms(urls: list[str], n: int, rate: float, split: str) -> list[Room]:
    out = []
    with httpx.Client(timeout=30) as c:
        for k in range(n):
            a = urls[0] if split == "seats" else urls[k % len(urls)]
            b = urls[1 % len(urls)] if split == "seats" else a
            r = c.post(a + "/v1/rooms", json={"ruleset": "backgammon", "length": 0, "turn_seconds": None,
                                              "name": "A"}).json()
            j = c.post(b + f"/v1/rooms/{r['code']}/join", json={"name": "B"}).json()
            out.append(Room(r["code"], {0: r["token"], 1: j["token"]}, n / rate))
    return out


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))] if xs else float("nan")


def main(argv: list[str] | None = None) -> dict:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--rooms", type=int, default=100)
    p.add_argument("--rate", type=float, default=500.0, help="actions a second asked for, all rooms together")
    p.add_argument("--seconds", type=float, default=20.0)
    p.add_argument("--shared", action="store_true", help="two servers on --pg and --redis")
    p.add_argument("--pg", default=None, help="a PostgreSQL URL (a fresh database is made on it) instead of SQLite")
    p.add_argument("--redis", default=None, help="a Redis URL (needed by --shared; one server with it coordinates "
                                                  "through it too)")
    p.add_argument("--split", choices=("seats", "rooms"), default="seats",
                   help="--shared: each room's two seats on the two servers (every action crosses processes; "
                        "the default), or each room on one server (as a proxy that routes by room would)")
    p.add_argument("--profile", default=None, metavar="FILE", help="the (first) server under cProfile")
    args = p.parse_args(argv)
    d = tempfile.mkdtemp(prefix="tawla-bench-ws-")
    servers = []
    made_db = None
    try:
        if args.pg:
            import secrets

            import sqlalchemy
            base = sqlalchemy.engine.make_url(args.pg)
            made_db = f"tawla_bench_{secrets.token_hex(4)}"
            admin = sqlalchemy.create_engine(base, isolation_level="AUTOCOMMIT")
            with admin.connect() as c:
                c.exec_driver_sql(f"CREATE DATABASE {made_db}")
            db = base.set(database=made_db).render_as_string(hide_password=False)
            if args.shared:
                servers = [start(db, args.redis, None, d, args.profile if k == 0 else None) for k in range(2)]
            else:
                servers = [start(db, args.redis, 0, d, args.profile)]
                os.sched_setaffinity(0, {1})
        else:
            db = f"sqlite:///{d}/bench.db"
            servers = [start(db, None, 0, d, args.profile)]
            os.sched_setaffinity(0, {1})
        urls = [u for _, u in servers]
        rooms = make_rooms(urls, args.rooms, args.rate, args.split)
        db_file = Path(d, "bench.db")
        cpu0 = [cpu_seconds(proc.pid) for proc, _ in servers]
        client0, t0 = time.process_time(), time.perf_counter()
        asyncio.run(drive(rooms, urls, args.seconds, args.split))
        wall = time.perf_counter() - t0
        server_cpu = sum(cpu_seconds(proc.pid) - c for (proc, _), c in zip(servers, cpu0))
        client_cpu = time.process_time() - client0
        actions = sum(len(r.latencies) for r in rooms)
        wall = min(wall, args.seconds)  # the actions counted were sent within the window
        steady = [lat for r in rooms for sent, lat in r.latencies if sent - t0 >= WARMUP]
        db_name = "PostgreSQL" if args.pg else "SQLite"
        out = {"mode": (f"two processes, PostgreSQL + Redis, split by {args.split}" if args.shared
                        else f"one process (CPU 0), {db_name}" + (" + Redis" if args.redis else "")),
               "rooms": args.rooms, "asked": args.rate, "seconds": round(wall, 1),
               "actions_per_second": round(actions / wall, 1),
               "p50_ms": round(1000 * pct(steady, 0.5), 2), "p99_ms": round(1000 * pct(steady, 0.99), 2),
               "server_cpu_ms_per_action": round(1000 * server_cpu / max(actions, 1), 3),
               "client_cpu_ms_per_action": round(1000 * client_cpu / max(actions, 1), 3),
               "refused": sum(r.refused for r in rooms)}
        if db_file.exists():
            import sqlite3
            con = sqlite3.connect(db_file)
            ev = con.execute("SELECT COALESCE(SUM(LENGTH(event)), 0) FROM events").fetchone()[0]
            snap = con.execute("SELECT COALESCE(SUM(LENGTH(snapshot)), 0) FROM rooms").fetchone()[0]
            con.close()
            out["event_bytes_per_action"] = round(ev / max(actions, 1))
            out["snapshot_bytes_kept"] = snap
        print(json.dumps(out))
        print(f"| {out['mode']} | {args.rooms} | {args.rate:g} | {out['actions_per_second']} | {out['p50_ms']} ms | "
              f"{out['p99_ms']} ms | {out['server_cpu_ms_per_action']} ms | {out['client_cpu_ms_per_action']} ms |")
        return out
    finally:
        for proc, _ in servers:
            proc.send_signal(2)  # SIGINT: uvicorn stops, a profile is written
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
        if made_db:
            import sqlalchemy
            admin = sqlalchemy.create_engine(sqlalchemy.engine.make_url(args.pg), isolation_level="AUTOCOMMIT")
            with admin.connect() as c:
                c.exec_driver_sql(f"DROP DATABASE IF EXISTS {made_db} WITH (FORCE)")


if __name__ == "__main__":
    main()
