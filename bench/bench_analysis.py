"""Benchmarks of the main job: replay (and rank) the shared match archive; the replay cost
per play against the length of a game; the peak memory of the analysis of a record near the
size limit.

Run::

    python -m pytest bench/bench_analysis.py --benchmark-only -s          # all of it
    python -m pytest bench/bench_analysis.py --benchmark-only -s -k scaling

* ``test_analyze_archive``: games and plays per second over ../shared/data/matches, replay only
  and with the default evaluator.
* ``test_replay_scaling``: one legal backgammon game each of 1,000, 10,000 and 100,000 plies,
  written with :func:`tawla.formats.matfile.write_match` and replayed by
  :func:`tawla.analysis.analyze_file` (no evaluator): the cost per play, in CPU time of the
  process (wall time on a shared machine counts the other processes too), must stay within
  20 % of that of the shortest game (replayed once untimed first, so that no game pays for
  the first calls). The cost of each 10,000 plays of the longest game and the mean number
  of legal moves a play are printed as well.
* ``test_peak_memory``: a record of at least 60 MiB (copies of the 100,000-ply game)
  analysed in a fresh interpreter; its peak resident memory above the interpreter's own
  must stay under 4x the record's size.

The long games come from :func:`long_game` and are kept in pytest's cache folder
(``.pytest_cache/d/tawla-long-games``): building the 100,000-ply game takes minutes.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

import tawla
from tawla.analysis import analyze_file, analyze_paths, collect_files, default_evaluator
from tawla.analysis.replay import analyze_games
from tawla.analysis.report_data import MatchReport
from tawla.formats.matfile import stream_match, write_match
from tawla.formats.record import ROLL, WIN, Action, Game, MatchRecord
from tawla.native import flip_row

ARCHIVE = Path(__file__).resolve().parents[2] / "shared" / "data" / "matches"
SCALING_PLIES = (1_000, 10_000, 100_000)
LARGE_RECORD_BYTES = 60 * 2 ** 20  # the record of test_peak_memory: copies of the longest game
SEGMENT = 10_000  # plays per segment of the longest game in test_replay_scaling
FLAT_WITHIN = 0.20  # cost per play: at most 20 % above or below that of the 1,000-ply game
MEMORY_FACTOR = 4  # peak memory of the analysis: at most 4x the record's size


def _files():
    if not ARCHIVE.exists():
        pytest.skip(f"{ARCHIVE} is missing")
    return [p for p in collect_files([ARCHIVE]) if p.parent.name not in {"gammonx-variants", "bgammon-replay"}]


@pytest.mark.parametrize("ranked", [False, True], ids=["replay", "replay+rank"])
def test_analyze_archive(benchmark, ranked):
    files = _files()
    evaluator = default_evaluator() if ranked else None
    t0 = time.perf_counter()
    reports = benchmark.pedantic(analyze_paths, args=(files,), kwargs={"evaluator": evaluator},
                                 rounds=1, iterations=1)
    dt = time.perf_counter() - t0
    games = sum(len(r.games) for r in reports)
    plays = sum(len(g.decisions) for r in reports for g in r.games)
    name = evaluator.name if evaluator else "no evaluator"
    print(f"\n[analyze {name}] {len(files)} files, {games} games, {plays} plays in {dt:.2f} s: "
          f"{games / dt:.1f} games/s, {plays / dt:.0f} plays/s")


# --- long games ------------------------------------------------------------------------------
def _contact(row) -> bool:
    """Some checker of the mover still has an opponent checker ahead of it (a hit can come)."""
    mine = [p for p in range(1, 26) if row[p]]
    theirs = ([0] if row[51] else []) + [p for p in range(1, 25) if row[26 + p]]  # the bar enters low
    return bool(mine and theirs and max(mine) > min(theirs))


def _liveliness(rows):
    """How far each resulting position (packed rows, seen from the mover) is from a race.

    Opponent checkers sent to the bar count most, then the mover's blots (a hit back sends
    them round again); checkers borne off or already home count against. Self-play that
    picks the liveliest move stays a middle game of about 38 legal moves a play for
    100,000 plies; one that only hits where it can ends up chasing one checker a side.
    """
    mine = rows[:, 1:25]
    return 30 * rows[:, 51] + 5 * (mine == 1).sum(1) - 3 * rows[:, 0] - mine[:, :6].sum(1)


def _next_turn(pos, rng, first):
    """(dice, move text, next position) of a turn that keeps contact, or None.

    The dice are thrown at random; among the moves that keep contact, the one with the best
    :func:`_liveliness` (random noise added) is played. The dice are thrown again (up to 8
    times) while no move keeps contact.
    """
    for _ in range(8):
        d = (rng.randint(1, 6), rng.randint(1, 6))
        while first and d[0] == d[1]:
            d = (rng.randint(1, 6), rng.randint(1, 6))
        every = pos.legal_moves(d)
        if not every:
            return d, "", pos.flip()
        legal = [m for m in every if not m.ended]
        if not legal:
            continue
        rows = np.frombuffer(b"".join(m.after for m in legal), dtype=np.uint8).reshape(len(legal), -1)
        order = np.argsort(-(_liveliness(rows) + np.array([rng.random() * 4 for _ in legal])), kind="stable")
        for k in order[:6]:
            m = legal[int(k)]
            nxt = tawla.Position(flip_row(m.after, pos.ruleset), pos.ruleset)  # m is legal: no check
            if _contact(nxt.row):
                return d, str(m), nxt
    return None


def long_game(plies: int, seed: int = 0) -> MatchRecord:
    """A legal backgammon game (a money session of one game) of at least ``plies`` turns.

    Self-play that keeps the game going: each side keeps contact and plays the liveliest
    move (:func:`_next_turn`); where no throw keeps contact, the last 4 to 40 turns are taken back
    and played again. After ``plies`` turns, random legal play ends the game.

    Parameters
    ----------
    plies : int
        Turns before the game is let end.
    seed : int

    Returns
    -------
    MatchRecord
        One game: the rolls with their plays in GNU notation, then the result.
    """
    bg = tawla.get_ruleset("backgammon")
    rng = random.Random(seed)
    hist = [(bg.initial_position(), None)]  # (position before the turn, (dice, text) of the turn)
    while len(hist) <= plies:
        turn = _next_turn(hist[-1][0], rng, len(hist) == 1)
        if turn is None:
            del hist[len(hist) - min(len(hist) - 1, rng.randint(4, 40)):]
            continue
        hist[-1] = (hist[-1][0], turn[:2])
        hist.append((turn[2], None))
    turns = [t for _pos, t in hist[:-1]]
    pos = hist[-1][0]
    while pos.result() is None:
        d = (rng.randint(1, 6), rng.randint(1, 6))
        legal = pos.legal_moves(d)
        m = rng.choice(legal) if legal else None
        turns.append((d, str(m) if m else ""))
        pos = pos.play(m) if m else pos.flip()
    res = pos.result()
    last = (len(turns) - 1) % 2  # the player of the last turn; the result is seen by the other
    winner = 1 - last if res.winner == 0 else last
    actions = [Action(i % 2, ROLL, dice=d, play=text) for i, (d, text) in enumerate(turns)]
    actions.append(Action(winner, WIN, value=res.points))
    game = Game(number=1, score=(0, 0), players=("Player A", "Player B"), actions=actions,
                winner=winner, points=res.points)
    return MatchRecord(path=None, headers={"Jacoby": "Off"}, match_length=0, players=game.players,
                       games=[game])


def _cached_game(request, plies: int) -> Path:
    folder = Path(request.config.cache.mkdir("tawla-long-games"))
    path = folder / f"long_game_{plies}_seed0_v2.mat"
    if not path.exists():
        t0 = time.perf_counter()
        path.write_text(write_match(long_game(plies)), encoding="utf-8")
        print(f"\n[long game] built {plies} plies in {time.perf_counter() - t0:.0f} s: {path}")
    return path


def _timed_analysis(path):
    """:func:`analyze_file` of a .mat file (no evaluator), timed.

    Returns
    -------
    (MatchReport, float, float, list of float)
        The report, the wall and the CPU seconds, and the CPU time at the end of each
        :data:`SEGMENT` plays.
    """
    src = stream_match(path)
    marks = []

    def timed(actions):
        n = 0
        for act in actions:
            if act.kind == ROLL:
                n += 1
                if n % SEGMENT == 0:
                    marks.append(time.process_time())
            yield act

    rep = MatchReport(path=str(path), match_length=src.match_length, players=tuple(src.players),
                      headers=dict(src.headers), defects=list(src.defects))
    w0, c0 = time.perf_counter(), time.process_time()
    analyze_games(rep, ((g, timed(actions)) for g, actions in src.games()), src.variation)
    return rep, time.perf_counter() - w0, time.process_time() - c0, [m - c0 for m in marks]


def test_replay_scaling(benchmark, request):
    rows, segments = [], []
    _timed_analysis(_cached_game(request, SCALING_PLIES[0]))  # warm-up: first calls, caches
    for plies in SCALING_PLIES:
        path = _cached_game(request, plies)
        rep, wall, cpu, marks = _timed_analysis(path) if plies != SCALING_PLIES[-1] else benchmark.pedantic(
            _timed_analysis, args=(path,), rounds=1, iterations=1)
        assert rep.ok, [g.error for g in rep.games]
        plays = rep.games[0].decisions
        n = len(plays)
        rows.append((plies, n, path.stat().st_size, wall, cpu, cpu / n * 1e6, sum(d.legal for d in plays) / n))
        if plies == SCALING_PLIES[-1]:
            legal = [d.legal for d in plays]
            for k, (a, b) in enumerate(zip([0.0] + marks, marks)):
                part = legal[k * SEGMENT:(k + 1) * SEGMENT]
                segments.append((k * SEGMENT, (b - a) / SEGMENT * 1e6, sum(part) / len(part)))
    print("\n[replay scaling, no evaluator; CPU time]\n"
          "  plies   plays     bytes   wall s    CPU s   us/play  legal/play")
    for plies, n, size, wall, cpu, per, legal in rows:
        print(f"  {plies:>6} {n:>7} {size:>9} {wall:>8.2f} {cpu:>8.2f} {per:>9.1f} {legal:>11.1f}")
    print(f"  the {SCALING_PLIES[-1]}-ply game by {SEGMENT} plays:")
    for first, per, legal in segments:
        print(f"    plays {first:>6}-{first + SEGMENT:<6} {per:>7.1f} us/play {legal:>6.1f} legal/play")
    base = rows[0][5]
    for plies, _n, _size, _wall, _cpu, per, _legal in rows[1:]:
        assert abs(per / base - 1) <= FLAT_WITHIN, f"{plies} plies: {per:.0f} us/play against {base:.0f}"


_MEASURE = """
import json, resource, sys, time
import tawla.analysis
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
t0 = time.perf_counter()
rep = tawla.analysis.analyze_file(sys.argv[1])
dt = time.perf_counter() - t0
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"base_kib": base, "peak_kib": peak, "seconds": dt, "ok": rep.ok,
                  "plays": sum(len(g.decisions) for g in rep.games)}))
"""


def test_peak_memory(benchmark, request, tmp_path):
    game = _cached_game(request, SCALING_PLIES[-1]).read_text(encoding="utf-8")
    head, body = game.split(" Game 1\n", 1)
    copies = -(-LARGE_RECORD_BYTES // len(body.encode()))
    path = tmp_path / "large.mat"
    with open(path, "w", encoding="utf-8") as f:
        f.write(head)
        for k in range(1, copies + 1):
            f.write(f" Game {k}\n" + body)
    size = path.stat().st_size
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    run = benchmark.pedantic(subprocess.run, args=([sys.executable, "-c", _MEASURE, str(path)],),
                             kwargs={"capture_output": True, "text": True, "env": env}, rounds=1, iterations=1)
    assert run.returncode == 0, run.stderr[-2000:]
    out = json.loads(run.stdout.strip().splitlines()[-1])
    assert out["ok"]
    grown = (out["peak_kib"] - out["base_kib"]) * 1024
    print(f"\n[peak memory] record {size / 2**20:.1f} MiB ({copies} games), {out['plays']} plays in "
          f"{out['seconds']:.0f} s: "
          f"peak RSS {out['peak_kib'] / 1024:.0f} MiB, {grown / 2**20:.0f} MiB above the interpreter's "
          f"{out['base_kib'] / 1024:.0f} MiB = {grown / size:.2f}x the record")
    assert grown <= MEMORY_FACTOR * size
