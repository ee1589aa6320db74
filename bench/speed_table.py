"""The speed table, every engine measured side by side in one run on this machine:
``python bench/speed_table.py [options]`` in a clone of the repository (``tawla bench`` says so).

Workloads
---------
W1
    The 2000 GNU Backgammon positions of ``bench/data/w1`` (1000 contact, 1000 race) x the 21
    rolls, backgammon rules (or adi, the same movement).
W2
    2000 positions met in seeded random games of the chosen ruleset (fast engine) x 21 rolls.

Measures
--------
* ns per distinct child: ``tawla.expand`` (fast; the call included, best of ``--repeat``),
  ``tawla.expand_all_rolls`` (fast), the reference engine (on a sample of positions),
  ``gnubg_nn.moves`` (W1, when installed) and OpenSpiel (whole-turn children walked through
  ``legal_actions``/``child`` on states met in random OpenSpiel games, when installed);
  every figure divides by tawla's number of children, so the ratios are time ratios.
* a 2-thread run: two threads each calling ``expand`` on half the batch (the GIL is
  released), speed-up over one thread;
* random games per second: ``tawla.playout`` (fast, C loop), the reference engine, gnubg_nn
  (random choice among ``gnubg_nn.moves``), OpenSpiel (random actions);
* match actions per CPU second through the public :class:`~tawla.Match` API
  (:func:`measure_match`): random single steps (roll, step, confirm) and random whole moves
  (roll, play) for tawla31 and backgammon, and the JSON record's cost per logged event.

All times are wall-clock (``time.perf_counter``), best of the repeats; on a busy machine the
numbers move, the ratios in one run much less.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import threading
import time
from pathlib import Path

import numpy as np

from tawla import native
from tawla.batch import expand, expand_all_rolls, fast_available, playout
from tawla.core.dice import ROLLS
from tawla.errors import ConfigError
from tawla.match import Match
from tawla.native import turn_engine
from oracles import gnubg_board, spiel_whole_turns
from tawla.rules import RULESET_IDS, get_ruleset
from workloads import workload

__all__ = ["main", "run", "MATCH_TABLES", "match_step_actions",
           "match_move_actions", "measure_match", "measure_validation"]

DESCRIPTION = """\
Measure the move generator, the random-game loop and the match engine on this machine,
every engine side by side in one run, and print the table.

workloads:
  W1  the 2000 GNU Backgammon positions shipped with tawla (1000 contact, 1000 race)
      x the 21 rolls, backgammon rules (or adi, the same movement)
  W2  2000 positions met in seeded random games of --ruleset x the 21 rolls; with W1,
      a W2 row for every ruleset follows

what is measured (wall-clock, best of --repeat; "cpu": the calling thread's CPU time):
  move generation  ns per distinct child: tawla.expand and tawla.expand_all_rolls (fast
                   engine), the reference engine (a sample), gnubg_nn.moves and OpenSpiel
                   when installed; every row divides by tawla's number of children, so
                   "x fast" (a row's ns per child / tawla.expand's) is a time ratio
  2 threads        expand() on half the batch in each of two threads: speed-up over one
  random games     games per second from the starting position: tawla.playout (C loop),
                   the reference engine, gnubg_nn and OpenSpiel (random moves);
                   "x fast" = tawla.playout's games/s / the row's
  match actions    actions per CPU second through tawla.Match (single steps: roll, step,
                   confirm; whole moves: roll, play), and the JSON record's cost in
                   microseconds per logged event (to_json, the next to_json, from_json)
"""
"""The text of ``python bench/speed_table.py -h``: what each part of the table measures."""

MATCH_TABLES = {"tawla31": ("federation", 31), "backgammon": ("international", 0)}
"""The tables of the match-action workloads: ruleset -> (house, length); no clock, so no
timers; the backgammon table is a money session that nobody leaves."""


def _best(fn, repeat: int) -> float:
    """Best wall-clock time of ``repeat`` calls, in seconds."""
    return _best2(fn, repeat)[0]


def _best2(fn, repeat: int):
    """(best wall-clock, best CPU time of the calling thread) of ``repeat`` calls, seconds."""
    best = cpu = float("inf")
    for _ in range(repeat):
        t, c = time.perf_counter(), time.thread_time()
        fn()
        cpu = min(cpu, time.thread_time() - c)
        best = min(best, time.perf_counter() - t)
    return best, cpu


def _rows_dice(arr):

    rep = np.repeat(arr, 21, axis=0)
    dice = np.tile(ROLLS, (len(arr), 1))
    return rep, dice


def measure_validation(arr, r, repeat: int) -> dict:
    """The cost of :func:`tawla.expand`'s input checks on ``arr`` x 21 rolls: the public call
    and the same expansion without them (:func:`tawla.native.expand`, the path of the
    engine's own rows), timed in alternation (best of ``repeat`` each, seconds), and the C row
    validator alone.

    Returns
    -------
    dict
        ``checked``, ``unchecked``, ``validate`` (seconds) and ``ratio``
        (``checked / unchecked - 1``: the share of the unchecked time the checks add).
    """
    rep, dice = _rows_dice(arr)
    rows = np.ascontiguousarray(rep, dtype=np.uint8)
    d8 = np.ascontiguousarray(dice, dtype=np.uint8)
    checked = unchecked = valid = float("inf")
    for _ in range(repeat):
        checked = min(checked, _best(lambda: expand(rep, dice, ruleset=r), 1))
        unchecked = min(unchecked, _best(lambda: native.expand(rows, d8, r), 1))
        valid = min(valid, _best(lambda: native.validate_rows(rows, r), 1))
    return {"checked": checked, "unchecked": unchecked, "validate": valid, "ratio": checked / unchecked - 1.0}


def measure_fast(arr, r, repeat: int) -> dict:

    rep, dice = _rows_dice(arr)
    children, _ = expand(rep, dice, ruleset=r)
    n = len(children)
    del children
    t_expand, c_expand = _best2(lambda: expand(rep, dice, ruleset=r), repeat)
    t_all, c_all = _best2(lambda: expand_all_rolls(arr, ruleset=r), repeat)
    # two threads, each expanding half of the batch (every other row, so both halves hold the
    # same mix of positions and rolls: contiguous halves of W1 are contact vs race)
    parts = [(np.ascontiguousarray(rep[k::2]), np.ascontiguousarray(dice[k::2])) for k in (0, 1)]

    cpu_two = [float("inf")]

    def work(k, cpus):
        c = time.thread_time()
        expand(*parts[k], ruleset=r)
        cpus[k] = time.thread_time() - c

    def two_threads():
        cpus = [0.0, 0.0]
        ts = [threading.Thread(target=work, args=(k, cpus)) for k in (0, 1)]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
        cpu_two[0] = min(cpu_two[0], max(cpus))

    t_two = _best(two_threads, max(repeat, 15))
    return {"children": n, "pairs": len(rep), "expand": t_expand, "all_rolls": t_all, "two_threads": t_two,
            "expand_cpu": c_expand, "all_rolls_cpu": c_all, "two_threads_cpu": cpu_two[0]}


def measure_reference(arr, r, sample: int) -> dict:

    sub = arr[:: max(1, len(arr) // sample)][:sample]
    rep, dice = _rows_dice(sub)
    t = time.perf_counter()
    children, _ = expand(rep, dice, ruleset=r, engine="reference")
    dt = time.perf_counter() - t
    return {"children": len(children), "pairs": len(rep), "time": dt}


def measure_gnubg(arr, r, sample: int):
    try:
        import gnubg_nn as g
    except ImportError:
        return None

    sub = arr[:: max(1, len(arr) // sample)][:sample]
    boards = [gnubg_board(row.tobytes(), r.geometry) for row in sub]
    rolls = [(int(a), int(b)) for a, b in ROLLS]
    moves = g.moves
    t = time.perf_counter()
    for b in boards:
        for d1, d2 in rolls:
            moves(b, d1, d2)
    dt = time.perf_counter() - t
    children, _, _ = expand_all_rolls(sub, ruleset=r)
    return {"children": len(children), "pairs": len(sub) * 21, "time": dt}


def measure_openspiel(n_states: int, n_games: int, seed: int = 7):
    try:
        import pyspiel
    except ImportError:
        return None
    game = pyspiel.load_game("backgammon")
    rng = random.Random(seed)
    # ns per child: whole-turn children of decision states met in random games
    states: list[object] = []  # pyspiel states
    while len(states) < n_states:
        st = game.new_initial_state()
        while not st.is_terminal() and len(states) < n_states:
            if st.is_chance_node():
                st.apply_action(rng.choice([a for a, _ in st.chance_outcomes()]))
                continue
            if not states or rng.random() < 0.2:
                states.append(st.clone())
            st.apply_action(rng.choice(st.legal_actions()))
    t = time.perf_counter()
    children = sum(max(len(spiel_whole_turns(s)), 1) for s in states)
    dt_children = time.perf_counter() - t
    # random games
    t = time.perf_counter()
    for _ in range(n_games):
        st = game.new_initial_state()
        while not st.is_terminal():
            if st.is_chance_node():
                outs = st.chance_outcomes()
                st.apply_action(outs[rng.randrange(len(outs))][0])
            else:
                acts = st.legal_actions()
                st.apply_action(acts[rng.randrange(len(acts))])
    dt_games = time.perf_counter() - t
    return {"states": len(states), "children": children, "time_children": dt_children,
            "games": n_games, "time_games": dt_games}


def gnubg_random_games(n_games: int, seed: int = 7):
    try:
        import gnubg_nn as g
    except ImportError:
        return None
    rng = random.Random(seed)
    start = [[0, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0]] * 2
    moves, from_key = g.moves, g.board_from_position_key
    t = time.perf_counter()
    for _ in range(n_games):
        board = [list(start[0]), list(start[1])]
        while True:
            d1, d2 = rng.randint(1, 6), rng.randint(1, 6)
            keys = moves(board, d1, d2)
            if keys:
                after = from_key(keys[rng.randrange(len(keys))])
                if sum(after[1]) == 0:
                    break
                board = [after[1], after[0]]
            else:
                board = [board[1], board[0]]
    return {"games": n_games, "time": time.perf_counter() - t}


def _fmt_ns(x):
    return f"{x:,.1f}" if x < 100 else f"{x:,.0f}"


def _row(cols, widths):
    return "  ".join(str(c).rjust(w) if i else str(c).ljust(w) for i, (c, w) in enumerate(zip(cols, widths)))


def run(workload_name="W1", ruleset="backgammon", *, repeat=5, ref_sample=100, external=True,
        playout_games=20_000, ref_games=20, variants=True, match_actions=20_000, out=print) -> dict:
    """Measure and print the table; returns the raw measurements (``match_actions``: actions
    per match workload, :func:`measure_match`)."""

    r = get_ruleset(ruleset)
    if not fast_available():
        out("speed table: the fast engine is not built; nothing to measure")
        return {}
    if workload_name.upper() == "W1" and not r.has_bar:
        raise ConfigError("W1 is a backgammon workload: use --ruleset backgammon/adi, or --workload W2")
    arr = workload(workload_name, r)
    res = {"workload": workload_name.upper(), "ruleset": r.name}
    cpu = platform.processor() or platform.machine()
    try:
        for ln in Path("/proc/cpuinfo").read_text().splitlines():
            if ln.startswith("model name"):
                cpu = ln.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    try:
        load = " load average %.1f %.1f %.1f;" % os.getloadavg()
    except (AttributeError, OSError):
        load = ""
    out(f"speed table - workload {workload_name.upper()}: {len(arr)} positions x 21 rolls, ruleset {r.name}; "
        f"{cpu}, {os.cpu_count()} CPUs;{load} best of {repeat}")
    out("ns/child: wall-clock time of the call / tawla's number of distinct children (cpu ns: the calling "
        "thread's CPU time, steadier on a busy machine); x fast: this row's time per child / tawla.expand's "
        "(how many times slower than the fast engine)")
    out("")
    fast = measure_fast(arr, r, repeat)
    res["fast"] = fast
    n = fast["children"]
    ns_fast = fast["expand"] / n * 1e9
    ns_fast_cpu = fast["expand_cpu"] / n * 1e9
    widths = (34, 8, 10, 10, 10, 9)
    out(_row(("move generation", "pairs", "children", "ns/child", "cpu ns", "x fast"), widths))
    out(_row(("tawla.expand (fast, incl. call)", fast["pairs"], n, _fmt_ns(ns_fast), _fmt_ns(ns_fast_cpu), "1.0"),
             widths))
    out(_row(("tawla.expand_all_rolls (fast)", fast["pairs"], n, _fmt_ns(fast["all_rolls"] / n * 1e9),
              _fmt_ns(fast["all_rolls_cpu"] / n * 1e9), f"{fast['all_rolls'] / fast['expand']:.2f}"), widths))
    ref = measure_reference(arr, r, ref_sample)
    res["reference"] = ref
    ns_ref = ref["time"] / ref["children"] * 1e9
    out(_row(("tawla reference (sample)", ref["pairs"], ref["children"], _fmt_ns(ns_ref), "", f"{ns_ref / ns_fast:,.0f}"),
             widths))
    if external and r.has_bar and workload_name.upper() == "W1":
        gn = measure_gnubg(arr, r, len(arr))
        res["gnubg"] = gn
        if gn:
            ns = gn["time"] / gn["children"] * 1e9
            out(_row(("gnubg_nn.moves (Python)", gn["pairs"], gn["children"], _fmt_ns(ns), "", f"{ns / ns_fast:,.1f}"),
                     widths))
        else:
            out("gnubg_nn: not installed")
    if external and r.has_bar:
        sp = measure_openspiel(200, 20)
        res["openspiel"] = sp
        if sp:
            ns = sp["time_children"] / sp["children"] * 1e9
            out(_row(("OpenSpiel (random-game states)", sp["states"], sp["children"], _fmt_ns(ns), "",
                      f"{ns / ns_fast:,.0f}"), widths))
        else:
            out("OpenSpiel (pyspiel): not installed")
    speed = fast["expand"] / fast["two_threads"]
    speed_cpu = fast["expand_cpu"] / fast["two_threads_cpu"]
    res["two_thread_speedup"] = speed
    res["two_thread_speedup_cpu"] = speed_cpu
    out("")
    out(f"tawla.expand: {_fmt_ns(ns_fast)} ns per child wall-clock, {_fmt_ns(ns_fast_cpu)} CPU "
        f"({n:,} children of {fast['pairs']:,} position x roll pairs)")
    out(f"2 threads, each expand() on half the batch (alternate rows): {fast['two_threads'] * 1e3:.1f} ms vs "
        f"{fast['expand'] * 1e3:.1f} ms on one: {speed:.2f}x wall-clock speed-up; CPU-bound estimate "
        f"{speed_cpu:.2f}x (one thread's CPU time / the busier thread's)")
    if variants and workload_name.upper() == "W1":
        out("")
        out("W2 of every ruleset: positions met in its own seeded random games; x W1: ns/child / W1's above")
        out(_row(("W2, own random-game positions", "pairs", "children", "ns/child", "cpu ns", "x W1"), widths))
        res["w2"] = {}
        for name in RULESET_IDS:
            rv = get_ruleset(name)
            a2 = workload("W2", rv)
            f2 = measure_fast(a2, rv, max(2, repeat // 2))
            ns2 = f2["expand"] / f2["children"] * 1e9
            res["w2"][name] = f2
            cpu2 = f2["expand_cpu"] / f2["children"] * 1e9
            out(_row((f"tawla.expand, {name}", f2["pairs"], f2["children"], _fmt_ns(ns2), _fmt_ns(cpu2),
                      f"{ns2 / ns_fast:.2f}"), widths))
    # playouts
    out("")
    widths = (34, 8, 10, 10, 10, 9)
    out(f"random games from the starting position, {r.name}: games per second (cpu g/s: per CPU second); "
        "x fast: tawla.playout's games/s / this row's")
    out(_row((f"random games, {r.name}", "games", "time s", "games/s", "cpu g/s", "x fast"), widths))
    playout(r, 200, seed=1)  # warm up
    t, c = time.perf_counter(), time.thread_time()
    playout(r, playout_games, seed=1)
    dt, dc = time.perf_counter() - t, time.thread_time() - c
    gps, gps_cpu = playout_games / dt, playout_games / max(dc, 1e-9)
    res["playout_fast"] = gps
    res["playout_fast_cpu"] = gps_cpu
    out(_row(("tawla.playout (fast, C loop)", playout_games, f"{dt:.2f}", f"{gps:,.0f}", f"{gps_cpu:,.0f}", "1.0"),
             widths))
    t = time.perf_counter()
    playout(r, ref_games, seed=1, engine="reference")
    dt = time.perf_counter() - t
    res["playout_reference"] = ref_games / dt
    out(_row(("tawla reference", ref_games, f"{dt:.2f}", f"{ref_games / dt:,.1f}", "", f"{gps / (ref_games / dt):,.0f}"),
             widths))
    if external and r.has_bar:
        gg = gnubg_random_games(200)
        if gg:
            x = gg["games"] / gg["time"]
            res["playout_gnubg"] = x
            out(_row(("gnubg_nn (Python loop)", gg["games"], f"{gg['time']:.2f}", f"{x:,.0f}", "", f"{gps / x:,.1f}"),
                     widths))
        sp = res.get("openspiel")
        if sp:
            x = sp["games"] / sp["time_games"]
            res["playout_openspiel"] = x
            out(_row(("OpenSpiel (random actions)", sp["games"], f"{sp['time_games']:.2f}", f"{x:,.0f}", "",
                      f"{gps / x:,.1f}"), widths))
    # match actions
    mm = measure_match(match_actions)
    res["match"] = mm
    out("")
    out(f"match actions through the public API ({match_actions:,} per workload; turn search on the "
        f"{turn_engine()} engine)")
    out("steps: roll, a random lit step, confirm; moves: roll, play a random legal move; "
        "JSON: us per logged event (next: the to_json after one more action)")
    match_widths = (34, 17, 12, 12, 9, 10, 10)
    out(_row(("match actions", "table", "steps/cpu s", "moves/cpu s", "to_json", "next", "from_json"), match_widths))
    for name, x in mm.items():
        house, length = MATCH_TABLES[name]
        out(_row((name, f"{house} {length}", f"{x['steps']:,.0f}", f"{x['moves']:,.0f}",
                  f"{x['to_json_us']:.2f}",
                  f"{x['to_json_next_us']:.3f}", f"{x['from_json_us']:.2f}"), match_widths))
    worst = min(min(x["steps"], x["moves"]) for x in mm.values())
    out(f"slowest match workload: {worst:,.0f} actions per CPU second")
    return res


def _new_table(ruleset, seed):
    house, length = MATCH_TABLES[ruleset]
    return Match(ruleset, house, length, rng=seed)


def match_step_actions(ruleset: str, n_actions: int, seed: int = 1):
    """Play ``n_actions`` random legal single-step actions through the public API.

    Each action is a :meth:`~tawla.Match.roll`, a :meth:`~tawla.Match.step` (a random step of
    :meth:`~tawla.Match.legal_steps`, combined steps included, with its dice) or a
    :meth:`~tawla.Match.confirm` once nothing is lit; a finished match is replaced by a new
    one (:data:`MATCH_TABLES`).

    Returns
    -------
    (float, Match)
        The calling thread's CPU seconds for the ``n_actions`` actions (the ``legal_steps``
        queries included), and the last match.
    """
    return _timed_actions(ruleset, n_actions, seed, _random_step)


def _random_step(m: Match, rnd: random.Random) -> None:
    lit = m.legal_steps()
    if lit:
        s = lit[rnd.randrange(len(lit))]
        m.step(m.turn, s.from_point, s.to_point, dice=s.dice)
    else:
        m.confirm(m.turn)


def _random_play(m: Match, rnd: random.Random) -> None:
    moves = m.legal_moves()
    m.play(m.turn, moves[rnd.randrange(len(moves))])


def _timed_actions(ruleset: str, n_actions: int, seed: int, move) -> tuple:
    """The thread's CPU seconds for ``n_actions`` actions of random matches (a roll, or
    ``move(match, rng)`` in the move phase; a finished match replaced by a new one), and the
    last match."""
    rnd = random.Random(seed)
    m = _new_table(ruleset, seed)
    c = time.thread_time()
    for _ in range(n_actions):
        phase = m.phase
        if phase == "roll":
            m.roll(m.turn)
        elif phase == "move":
            move(m, rnd)
        else:
            m = _new_table(ruleset, rnd.randrange(1 << 30))
    return time.thread_time() - c, m


def match_move_actions(ruleset: str, n_actions: int, seed: int = 1):
    """Like :func:`match_step_actions` with whole moves: each action is a roll or a
    :meth:`~tawla.Match.play` of a random move of :meth:`~tawla.Match.legal_moves`.

    Returns
    -------
    (float, Match)
        CPU seconds (the ``legal_moves`` queries included) and the last match.
    """
    return _timed_actions(ruleset, n_actions, seed, _random_play)


def measure_match(n_actions: int = 20_000, seed: int = 1) -> dict:
    """Match actions per CPU second and the cost of the JSON record, per table of
    :data:`MATCH_TABLES`.

    Returns
    -------
    dict
        Per ruleset: ``steps`` and ``moves`` (actions per CPU second of
        :func:`match_step_actions` and :func:`match_move_actions`), ``events`` (the log of the
        step workload's match), ``to_json_us`` (µs per logged event for a whole
        :meth:`~tawla.Match.to_json` of a freshly loaded match), ``to_json_next_us`` (µs per
        event for the next ``to_json`` after one more action), ``from_json_us`` (µs per event
        of :meth:`~tawla.Match.from_json`), and ``engine`` (:func:`tawla.native.turn_engine`).
    """
    out = {}
    for ruleset in MATCH_TABLES:
        match_step_actions(ruleset, min(500, n_actions), seed)  # warm up
        dt_steps, m = match_step_actions(ruleset, n_actions, seed)
        dt_moves, _ = match_move_actions(ruleset, n_actions, seed)
        js = m.to_json()
        n = len(m.events)
        c = time.thread_time()
        loaded = Match.from_json(js)
        t_from = time.thread_time() - c
        c = time.thread_time()
        loaded.to_json()
        t_to = time.thread_time() - c
        if loaded.phase == "roll":
            loaded.roll(loaded.turn)
        elif loaded.phase == "move" and loaded.legal_steps():
            s = loaded.legal_steps()[0]
            loaded.step(loaded.turn, s.from_point, s.to_point, dice=s.dice)
        c = time.thread_time()
        loaded.to_json()
        t_next = time.thread_time() - c
        out[ruleset] = {"steps": n_actions / max(dt_steps, 1e-9), "moves": n_actions / max(dt_moves, 1e-9),
                        "events": n, "to_json_us": t_to / n * 1e6, "to_json_next_us": t_next / n * 1e6,
                        "from_json_us": t_from / n * 1e6, "engine": turn_engine()}
    return out


def main(argv=None) -> int:
    """Entry point of ``python bench/speed_table.py`` (``argv``: its arguments)."""
    p = argparse.ArgumentParser(prog="python bench/speed_table.py", description=DESCRIPTION,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--workload", default="W1", choices=["W1", "W2", "w1", "w2"],
                   help="W1: the 2000 gnubg positions x 21 rolls; W2: 2000 random-game positions of --ruleset")
    p.add_argument("--ruleset", default="backgammon", help="ruleset id or alias (W1: backgammon or adi)")
    p.add_argument("--repeat", type=int, default=5, help="timing repeats (best is kept)")
    p.add_argument("--ref-sample", type=int, default=100, help="positions for the reference engine")
    p.add_argument("--games", type=int, default=20_000, help="random games for the fast playout")
    p.add_argument("--ref-games", type=int, default=20, help="random games for the reference playout")
    p.add_argument("--match-actions", type=int, default=20_000, help="actions per match workload")
    p.add_argument("--no-external", action="store_true", help="skip gnubg_nn and OpenSpiel")
    p.add_argument("--no-variants", action="store_true", help="skip the W2 rows of the other rulesets")
    a = p.parse_args(argv)
    run(a.workload, a.ruleset, repeat=a.repeat, ref_sample=a.ref_sample, external=not a.no_external,
        playout_games=a.games, ref_games=a.ref_games, variants=not a.no_variants, match_actions=a.match_actions)
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
