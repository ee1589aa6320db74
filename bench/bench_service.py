"""Load benchmark of ``tawla serve``: many concurrent rooms, bots and scripted players, on loopback.

Run as a script (the figures of ``bench/SERVICE.md``)::

    python bench/bench_service.py --rooms 200 --rate 1000 --seconds 30

or with pytest-benchmark: ``python -m pytest bench/bench_service.py --benchmark-only -s -p no:xdist``
(a shorter run).

A real ``python -m tawla serve`` process is started on a free port of 127.0.0.1 with a fresh
SQLite database. One asyncio client (:class:`httpx.AsyncClient`) then runs ``--rooms``
rooms at once: half of them a scripted player against a ``ply0`` bot, half two scripted
players (international house, adi and backgammon matches to 1 point, a rematch when one
ends). A scripted player reads the state (``GET``) when it is his turn and acts (``roll``,
then the first legal move; a ``take`` or ``accept`` when asked). The load is paced: each room
waits ``rooms / rate`` seconds between its actions, so that the rooms together ask for
``--rate`` actions a second (a closed loop: a room never has more than one request in
flight). Every request's latency is measured from the client; the server's CPU time is read
from ``/proc``.

Reported: client actions a second (POST actions), all requests a second, server-side actions
a second (the players' and the bots', each written to the database before it is answered),
p50/p99/max latency of the actions and of the reads, the same p50/p99 of the actions after
the first :data:`WARMUP` seconds, and the server's and the client's CPU per request.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

RULESETS = ("adi", "backgammon")
WARMUP = 5.0
"""Seconds at the start whose actions the steady-state latencies leave out (the burst of the
rooms' first requests and the bots' first searches)."""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(db: str, limits=("rooms_per_window=1000000",), plain: bool = False, *, extra=(), wrap=(),
                 python=(), cwd: str | None = None) -> tuple[subprocess.Popen, str]:
    """``python -m tawla serve`` on a free loopback port with ``--limit`` pairs ``limits``; waits for
    /v1/health (30 s at most). ``plain``: without ``--log-level`` (for a server of an older
    version, which has none); ``extra``: more arguments of ``tawla serve``; ``wrap``: a command
    it runs under (``taskset -c 0``); ``python``: options of the interpreter (``-m cProfile``)."""
    port = _free_port()
    args = [*wrap, sys.executable, *python, "-m", "tawla", "serve", "--port", str(port), "--db", db]
    if not plain:
        args += ["--log-level", "warning"]
    for pair in limits:
        args += ["--limit", pair]
    proc = subprocess.Popen([*args, *extra], cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            if httpx.get(url + "/v1/health", timeout=1).status_code == 200:
                return proc, url
        except httpx.HTTPError:
            time.sleep(0.05)
    proc.kill()
    raise RuntimeError("tawla serve did not start")


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of a process (Linux ``/proc``)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class Stats:
    """Latencies (seconds) of the actions and reads; those that start before ``steady`` (a
    ``time.perf_counter`` time) are also kept apart, as the start-up burst."""

    def __init__(self) -> None:
        self.actions: list[float] = []
        self.reads: list[float] = []
        self.steady_actions: list[float] = []
        self.steady = float("inf")
        self.errors = 0

    async def timed(self, coro, kind: list[float]):
        t = time.perf_counter()
        r = await coro
        dt = time.perf_counter() - t
        kind.append(dt)
        if kind is self.actions and t >= self.steady:
            self.steady_actions.append(dt)
        if r.status_code >= 500:
            self.errors += 1
        return r


def _pct(xs: list[float], q: float) -> float:
    if not xs:
        return float("nan")
    s = sorted(xs)
    return s[min(len(s) - 1, int(q * len(s)))] * 1000


async def make_room(client: httpx.AsyncClient, i: int, gate: asyncio.Semaphore) -> tuple[str, dict, bool]:
    """Room ``i``: ``(code, {seat: headers}, with_bot)``; a bot in every other room."""
    async with gate:
        ruleset = RULESETS[i % len(RULESETS)]
        r = await client.post("/v1/rooms", json={"ruleset": ruleset, "house": "international", "length": 1,
                                                 "name": f"p{i}"})
        host = r.json()
        code = host["code"]
        heads = {0: {"Authorization": f"Bearer {host['token']}"}}
        with_bot = i % 2 == 0
        if with_bot:
            await client.post(f"/v1/rooms/{code}/bots", json={"level": "ply0"}, headers=heads[0])
        else:
            g = (await client.post(f"/v1/rooms/{code}/join", json={"name": f"q{i}"})).json()
            heads[1] = {"Authorization": f"Bearer {g['token']}"}
    return code, heads, with_bot


async def run_room(client: httpx.AsyncClient, i: int, room: tuple, stats: Stats, stop: float,
                   interval: float) -> int:
    """One room until ``stop`` (time.monotonic): returns its server-side version count."""
    code, heads, with_bot = room
    rng = random.Random(i)
    await asyncio.sleep(rng.random() * interval)
    version = 0
    state = (await stats.timed(client.get(f"/v1/rooms/{code}", headers=heads[0]), stats.reads)).json()
    next_t = time.monotonic()
    while time.monotonic() < stop:
        version = max(version, state.get("version", 0))
        seat = state.get("to_act")
        if state["phase"] == "over":
            body = None
            r = await stats.timed(client.post(f"/v1/rooms/{code}/rematch", headers=heads[0]), stats.actions)
            if not with_bot:
                r = await stats.timed(client.post(f"/v1/rooms/{code}/rematch", headers=heads[1]), stats.actions)
            state = r.json()
            continue
        if seat not in heads:  # the bot's turn: look again shortly
            await asyncio.sleep(0.02)
            state = (await stats.timed(client.get(f"/v1/rooms/{code}", headers=heads[0]), stats.reads)).json()
            continue
        if state.get("you") != seat:
            state = (await stats.timed(client.get(f"/v1/rooms/{code}", headers=heads[seat]), stats.reads)).json()
            continue
        phase = state["phase"]
        if phase == "roll":
            body = {"action": "roll"}
        elif phase == "move":
            body = {"action": "move", "move": state["legal_moves"][0]}
        elif phase == "double":
            body = {"action": "take"}
        else:
            body = {"action": "accept"}
        delay = next_t - time.monotonic()
        if delay > 0:
            await asyncio.sleep(delay)
        next_t = max(next_t + interval, time.monotonic() - interval)
        r = await stats.timed(client.post(f"/v1/rooms/{code}/actions", json=body, headers=heads[seat]),
                              stats.actions)
        state = r.json() if r.status_code == 200 else \
            (await stats.timed(client.get(f"/v1/rooms/{code}", headers=heads[seat]), stats.reads)).json()
    return version


async def load(url: str, rooms: int, rate: float, seconds: float) -> dict:
    """Run the rooms for ``seconds``; the figures."""
    stats = Stats()
    limits = httpx.Limits(max_connections=rooms + 8, max_keepalive_connections=rooms + 8)
    async with httpx.AsyncClient(base_url=url, timeout=60, limits=limits) as client:
        gate = asyncio.Semaphore(16)
        made = await asyncio.gather(*(make_room(client, i, gate) for i in range(rooms)))
        stop = time.monotonic() + seconds
        t0 = time.monotonic()
        stats.steady = time.perf_counter() + min(WARMUP, seconds / 2)
        versions = await asyncio.gather(*(run_room(client, i, made[i], stats, stop, rooms / rate)
                                          for i in range(rooms)))
        wall = time.monotonic() - t0
    return {"rooms": rooms, "target_rate": rate, "seconds": wall, "actions": len(stats.actions),
            "reads": len(stats.reads), "server_actions": sum(versions), "errors_5xx": stats.errors,
            "actions_per_s": len(stats.actions) / wall, "requests_per_s": (len(stats.actions) + len(stats.reads)) / wall,
            "server_actions_per_s": sum(versions) / wall,
            "action_p50_ms": _pct(stats.actions, 0.5), "action_p99_ms": _pct(stats.actions, 0.99),
            "action_max_ms": _pct(stats.actions, 1.0),
            "steady_action_p50_ms": _pct(stats.steady_actions, 0.5),
            "steady_action_p99_ms": _pct(stats.steady_actions, 0.99),
            "read_p50_ms": _pct(stats.reads, 0.5), "read_p99_ms": _pct(stats.reads, 0.99)}


def measure(rooms: int = 200, rate: float = 1000, seconds: float = 30) -> dict:
    """Start a server on a fresh database, load it, stop it; the figures (with the server's CPU
    seconds and the load average before and after)."""
    with tempfile.TemporaryDirectory() as d:
        proc, url = start_server(f"sqlite:///{d}/bench.db")
        try:
            la0 = os.getloadavg()
            c0, k0 = cpu_seconds(proc.pid), time.process_time()
            out = asyncio.run(load(url, rooms, rate, seconds))
            out["server_cpu_s"] = cpu_seconds(proc.pid) - c0
            out["client_cpu_s"] = time.process_time() - k0
            out["server_cpu_ms_per_request"] = 1000 * out["server_cpu_s"] / max(1, out["actions"] + out["reads"])
            out["loadavg_before"], out["loadavg_after"] = la0, os.getloadavg()
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
    return out


def report(out: dict) -> str:
    return "\n".join(f"{k:28s} {v:.3f}" if isinstance(v, float) else f"{k:28s} {v}" for k, v in out.items())


def test_service_load(benchmark):
    """A short load run (200 rooms, 10 s); the figures as extra_info."""
    res: dict = {}

    def run():
        res.update(measure(rooms=200, rate=1000, seconds=10))

    benchmark.pedantic(run, rounds=1, iterations=1)
    print("\n" + report(res))
    benchmark.extra_info.update({k: v for k, v in res.items() if isinstance(v, (int, float))})
    assert res["errors_5xx"] == 0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--rooms", type=int, default=200)
    p.add_argument("--rate", type=float, default=1000, help="actions a second asked of all rooms together")
    p.add_argument("--seconds", type=float, default=30)
    a = p.parse_args(argv)
    print(report(measure(a.rooms, a.rate, a.seconds)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
