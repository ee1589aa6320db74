"""A flood from one seat's socket and its effect on another room, against a real ``tawla serve``.

Run as a script (the figures of ``bench/SERVICE.md``, "A flood from one seat")::

    python bench/bench_flood.py --frames 4000 --reads 400
    python bench/bench_flood.py --frames 4000 --reads 400 --limit frames_per_second=1000000 \
        --limit frame_burst=1000000     # no rate limit: what the engine's flat cost alone gives
    PYTHONPATH=OLD_SRC python bench/bench_flood.py --plain   # a server of an older tawla

A real ``python -m tawla serve`` is started on a free port of 127.0.0.1 with a fresh SQLite
database (``--log-level warning``; ``--limit`` pairs passed on). Two rooms are made
(backgammon to 1 point, two players each); room A is played on until a seat must move.
Then, at once:

* the flooder opens room A's socket as the seat to move and writes ``--frames`` frames as
  fast as it can, ``step`` and ``undo`` in turn (its first legal step), without reading, then
  reads every answer until the server closes the socket (or 30 s pass);
* the reader sends ``GET /v1/rooms/{B}`` one after the other (each answer read before the
  next request), at least ``--reads`` of them and on until the flooder is done, timing each
  from the client.

A baseline of ``--reads`` reads of room B with no flood is taken first. Reported: the read
latencies (p50, p99, max) with and without the flood, the frames the flooder got answered
(ok and error frames), the close code, and room A's log length before and after.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import time
from pathlib import Path

import httpx
import websockets

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_service import start_server  # noqa: E402


def _pct(xs: list[float], q: float) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, int(q * len(s)))] if s else float("nan")


async def _room(c: httpx.AsyncClient) -> tuple[str, list[str]]:
    r = (await c.post("/v1/rooms", json={"ruleset": "backgammon", "house": "international", "length": 1})).json()
    j = (await c.post(f"/v1/rooms/{r['code']}/join", json={})).json()
    return r["code"], [r["token"], j["token"]]


async def _to_a_move(c: httpx.AsyncClient, code: str, tokens: list[str]) -> int:
    """Play the room on (roll, first legal move) until a seat must move; that seat."""
    for _ in range(200):
        s = (await c.get(f"/v1/rooms/{code}", headers={"Authorization": f"Bearer {tokens[0]}"})).json()
        seat = s["to_act"]
        h = {"Authorization": f"Bearer {tokens[seat]}"}
        if s["phase"] == "move":
            return seat
        await c.post(f"/v1/rooms/{code}/actions", json={"action": "roll"}, headers=h)
    raise RuntimeError("no move phase reached")


async def _reads(c: httpx.AsyncClient, code: str, token: str, n: int,
                 until: asyncio.Task | None = None) -> list[float]:
    """``n`` reads one after the other, and more until ``until`` is done; their latencies."""
    out: list[float] = []
    h = {"Authorization": f"Bearer {token}"}
    while len(out) < n or (until is not None and not until.done()):
        t = time.perf_counter()
        r = await c.get(f"/v1/rooms/{code}", headers=h)
        out.append(time.perf_counter() - t)
        if r.status_code != 200:
            raise RuntimeError(f"a read failed: {r.status_code} {r.text[:200]}")
    return out


async def _flood(url: str, code: str, token: str, step: dict, frames: int, plain: bool = False) -> dict:
    ws_url = url.replace("http", "ws") + f"/v1/rooms/{code}/ws" + (f"?token={token}" if plain else "")
    got = {"ok": 0, "error": 0, "state": 0, "errors": {}, "close": None}
    async with websockets.connect(ws_url, additional_headers={"Authorization": f"Bearer {token}"},
                                  max_queue=None) as ws:
        await ws.recv()
        t = time.perf_counter()
        step_text = json.dumps({"action": "step", "from": step["from"], "to": step["to"]})
        undo_text = json.dumps({"action": "undo"})
        sent = 0
        try:
            for i in range(frames):
                await ws.send(step_text if i % 2 == 0 else undo_text)
                sent += 1
        except websockets.ConnectionClosed:
            pass
        got["sent"], got["send_seconds"] = sent, time.perf_counter() - t
        try:
            while got["ok"] + got["error"] < sent:
                f = json.loads(await asyncio.wait_for(ws.recv(), 30))
                got[f["type"]] = got.get(f["type"], 0) + 1
                if f["type"] == "error":
                    got["errors"][f["error"]] = got["errors"].get(f["error"], 0) + 1
            got["close"] = "open: every frame answered"
        except websockets.ConnectionClosed as e:
            got["close"] = e.rcvd.code if e.rcvd is not None else None
        except asyncio.TimeoutError:
            got["close"] = "still open after 30 s"
        got["seconds"] = time.perf_counter() - t
    return got


async def run(url: str, frames: int, reads: int, plain: bool = False) -> dict:
    async with httpx.AsyncClient(base_url=url, timeout=120) as c:
        a, a_tokens = await _room(c)
        b, b_tokens = await _room(c)
        seat = await _to_a_move(c, a, a_tokens)
        h = {"Authorization": f"Bearer {a_tokens[seat]}"}
        state = (await c.get(f"/v1/rooms/{a}", headers=h)).json()
        step = state["legal_steps"][0]
        log_before = len(state["match"]["events"])
        baseline = await _reads(c, b, b_tokens[0], reads)
        flood = asyncio.create_task(_flood(url, a, a_tokens[seat], step, frames, plain))
        await asyncio.sleep(0)
        during = await _reads(c, b, b_tokens[0], reads, until=flood)
        flooded = await flood
        log_after = len((await c.get(f"/v1/rooms/{a}", headers=h)).json()["match"]["events"])
        t = time.perf_counter()
        health = (await c.get("/v1/health")).status_code
        health_s = time.perf_counter() - t
    return {"baseline": baseline, "during": during, "flood": flooded, "log": (log_before, log_after),
            "health": (health, health_s)}


def report(out: dict) -> str:
    def ms(xs):
        return f"p50 {_pct(xs, .5) * 1e3:.1f} ms, p99 {_pct(xs, .99) * 1e3:.1f} ms, max {max(xs) * 1e3:.1f} ms"

    f = out["flood"]
    return "\n".join([
        f"reads of room B, no flood:   {len(out['baseline'])} reads, {ms(out['baseline'])}",
        f"reads of room B, flood on A: {len(out['during'])} reads, {ms(out['during'])}",
        f"flooder: sent {f['sent']} frames in {f['send_seconds']:.2f} s; answered: {f['ok']} ok, "
        f"{f['error']} error {f['errors']}, {f['state']} state; close code {f['close']} after {f['seconds']:.2f} s",
        f"room A's log: {out['log'][0]} events before, {out['log'][1]} after",
        f"/v1/health after: {out['health'][0]} in {out['health'][1] * 1e3:.1f} ms",
    ])


def engine_costs(lengths=(1_000, 40_000), repeat: int = 20) -> str:
    """In process: what following a match's log costs at a given length. A log of ``n``
    events is made of step/undo pairs in one turn (as an engine without the undo bound wrote
    them; such a log still replays); then, per call, the median of ``repeat``: ``events`` (the
    whole log copied), ``events_since`` (the service's call: the last two events),
    ``to_json`` (the whole document), and a step with the rows a service writes for it."""
    import statistics

    from tawla.match import Match

    lines = []
    for n in lengths:
        m = Match("backgammon", "international", 7, rng=3)
        while m.phase != "move":
            m.roll(m.turn)
        doc = m.to_dict()
        s0 = m.legal_steps()[0]
        die = [s0.die] if isinstance(s0.die, int) else list(s0.die)
        while len(doc["events"]) < n:
            doc["events"].append({"type": "step", "t": None, "player": m.turn, "from": s0.from_point,
                                  "to": s0.to_point, "dice": die, "hit": s0.hit})
            doc["events"].append({"type": "undo", "t": None, "player": m.turn})
        big = Match.replay(doc)

        def timed(fn):
            xs = []
            for _ in range(repeat):
                t = time.perf_counter()
                fn()
                xs.append(time.perf_counter() - t)
            return statistics.median(xs) * 1e3

        k = big.event_count
        full, tail, whole = timed(lambda: big.events), timed(lambda: big.events_since(k - 2)), timed(big.to_json)

        def step_and_rows():
            big.step(big.turn, s0.from_point, s0.to_point)
            rows = [json.dumps(e, sort_keys=True, separators=(",", ":")) for e in big.events_since(k)]
            big._events.pop()  # the measured step taken back by hand (undo is spent in this turn)
            big._played, big._hops, big._lits = (), (), big._lits[:1]
            return rows

        step = timed(step_and_rows)
        lines.append(f"log of {k} events: events {full:.2f} ms, events_since {tail:.3f} ms, to_json {whole:.1f} ms "
                     f"({len(big.to_json()) / 1e6:.2f} MB), a step and its rows {step:.3f} ms")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--frames", type=int, default=4000)
    p.add_argument("--reads", type=int, default=400)
    p.add_argument("--limit", action="append", default=[], metavar="NAME=VALUE")
    p.add_argument("--engine", action="store_true", help="only the in-process costs of following a long log")
    p.add_argument("--plain", action="store_true",
                   help="an older tawla: no --log-level, the socket's token in the URL")
    args = p.parse_args(argv)
    if args.engine:
        print(engine_costs())
        return 0
    with tempfile.TemporaryDirectory() as d:
        proc, url = start_server(f"sqlite:///{d}/flood.db", args.limit, args.plain)
        try:
            out = asyncio.run(run(url, args.frames, args.reads, args.plain))
        finally:
            proc.terminate()
            proc.wait(timeout=30)
    print(report(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
