"""A real ``tawla serve`` process on loopback for the service tests, and a small client.

The server is started as ``python -m tawla serve`` with the test's interpreter and its
environment (the installed package in CI; ``src`` where the caller put it on PYTHONPATH),
on a free port of 127.0.0.1, and is waited for on ``/v1/health``.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import time

import httpx

__all__ = ["Server", "free_port", "Player", "create_room", "play_until", "ws_connect"]

START_TIMEOUT = 30.0
"""Seconds a server has to answer /v1/health."""

ROOMY = {"rooms_per_window": 100_000, "accounts_per_window": 100_000, "coins_per_window": 10**9}
"""The per-address limits of a test server unless the test sets them: every client of a test
comes from 127.0.0.1."""


def free_port() -> int:
    """A TCP port of 127.0.0.1 that was free a moment ago."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """``tawla serve`` in a subprocess on a database URL; :meth:`kill` sends SIGKILL."""

    def __init__(self, db: str, cwd: str | None = None, limits: dict | None = None, redis: str | None = None,
                 workers: int = 1) -> None:
        self.db = db
        self.cwd = cwd
        self.extra = ([f"--redis={redis}"] if redis else []) + ([f"--workers={workers}"] if workers > 1 else [])
        every = {**ROOMY, **(limits or {})}
        self.limits = [f"--limit={k}={v}" for k, v in every.items()]
        self.proc: subprocess.Popen | None = None
        self.port = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> "Server":
        for _attempt in range(3):
            self.port = free_port()
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "tawla", "serve", "--host", "127.0.0.1", "--port", str(self.port),
                 "--db", self.db, "--log-level", "warning", *self.limits, *self.extra], cwd=self.cwd,
                env=dict(os.environ),
                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            deadline = time.monotonic() + START_TIMEOUT
            while time.monotonic() < deadline:
                if self.proc.poll() is not None:
                    break
                try:
                    if httpx.get(self.url + "/v1/health", timeout=1).status_code == 200:
                        return self
                except httpx.HTTPError:
                    pass
                time.sleep(0.05)
            err = self.stop()
            if "address already in use" not in err.lower():
                raise RuntimeError(f"tawla serve did not start: {err[-2000:]}")
        raise RuntimeError("tawla serve found no free port")

    def kill(self) -> None:
        """SIGKILL, as a crash."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(timeout=10)

    def stop(self) -> str:
        """Terminate (then kill) the process; its stderr."""
        err = ""
        if self.proc is not None:
            if self.proc.poll() is None:
                self.proc.terminate()
                try:
                    self.proc.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    self.proc.kill()
                    self.proc.wait(timeout=5)
            if self.proc.stderr is not None:
                err = self.proc.stderr.read().decode(errors="replace")
                self.proc.stderr.close()
            self.proc = None
        return err


class Player:
    """A seat's client: its token, the room, and the calls of the contract."""

    def __init__(self, client: httpx.Client, code: str, token: str, seat: int | None) -> None:
        self.client, self.code, self.token, self.seat = client, code, token, seat

    @property
    def headers(self) -> dict:
        return {"Authorization": f"Bearer {self.token}"}

    def state(self) -> dict:
        r = self.client.get(f"/v1/rooms/{self.code}", headers=self.headers)
        assert r.status_code == 200, r.text
        return r.json()

    def act(self, action: str, **fields) -> httpx.Response:
        return self.client.post(f"/v1/rooms/{self.code}/actions", json={"action": action, **fields},
                                headers=self.headers)

    def ok(self, action: str, **fields) -> dict:
        r = self.act(action, **fields)
        assert r.status_code == 200, r.text
        return r.json()


@contextlib.contextmanager
def ws_connect(server: "Server", code: str, token: str | None, *, first_message: bool = False, **kwargs):
    """A room's socket (``websockets.sync.client``), the token in the Authorization header, or
    with ``first_message`` sent as the socket's first message."""
    from websockets.sync.client import connect

    url = server.url.replace("http", "ws") + f"/v1/rooms/{code}/ws"
    headers = {"Authorization": f"Bearer {token}"} if token is not None and not first_message else None
    with connect(url, open_timeout=10, additional_headers=headers, **kwargs) as ws:
        if first_message:
            ws.send(json.dumps({"token": token}))
        yield ws


def create_room(client: httpx.Client, headers: dict | None = None, **options) -> Player:
    """A room with ``options``; the host's :class:`Player`."""
    r = client.post("/v1/rooms", json=options, headers=headers or {})
    assert r.status_code == 201, r.text
    d = r.json()
    return Player(client, d["code"], d["token"], d["seat"])


def join(client: httpx.Client, host: Player, name: str = "Guest", headers: dict | None = None) -> Player:
    r = client.post(f"/v1/rooms/{host.code}/join", json={"name": name}, headers=headers or {})
    assert r.status_code == 200, r.text
    d = r.json()
    return Player(client, host.code, d["token"], d["seat"])


def two_players(client: httpx.Client, **options) -> dict:
    """A room made by Ann with ``options`` and joined by Bob: ``{0: host, 1: guest}``."""
    host = create_room(client, name="Ann", **options)
    return {0: host, 1: join(client, host, "Bob")}


def play_turn(players: dict, state: dict) -> dict:
    """One action by the seat to act: roll, the first legal move, take, accept."""
    p = players[state["to_act"]]
    mine = p.state()
    if mine["phase"] == "roll":
        return p.ok("roll")
    if mine["phase"] == "move":
        return p.ok("move", move=mine["legal_moves"][0])
    if mine["phase"] == "double":
        return p.ok("take")
    if mine["phase"] == "resign":
        return p.ok("accept")
    return mine


def play_until(players: dict, done, limit: int = 2000, wait_bot: float = 10.0) -> dict:
    """Play (seats in ``players``; others are bots, waited for) until ``done(state)``."""
    any_p = next(iter(players.values()))
    state = any_p.state()
    for _ in range(limit):
        if done(state) or state["phase"] == "over":
            return state
        if state["to_act"] in players:
            state = play_turn(players, state)
        else:
            t_end = time.monotonic() + wait_bot
            while time.monotonic() < t_end:
                state = any_p.state()
                if state["to_act"] in players or state["phase"] == "over":
                    break
                time.sleep(0.01)
            else:
                raise AssertionError(f"the bot did not play: {state['phase']}")
    raise AssertionError("the match did not end within the limit")
