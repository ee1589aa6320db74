"""The open rollout benchmark of backgammon: decisions (a position and a roll) whose candidate
plays are rolled out by GNU Backgammon's evaluator, not by tawla. Not run in CI.

Usage::

    python bench/make_benchmark.py decisions [--n 1200] [--seed 31000] [-o bench/benchmark/backgammon-decisions.jsonl]
    python bench/make_benchmark.py rollout [--decisions FILE] [-o bench/benchmark/backgammon.jsonl]
                                   [--seed 31] [--min-trials 72] [--max-trials 648] [--target-se 0.01]
                                   [--limit N] [--workers 1]

``decisions``: positions of GNU Backgammon 0-ply self-play (``gnubg_nn.best_move``) in which each
move is, with probability ``--explore`` (0.1), a uniformly random legal play instead, so that
the games reach primes, back games, crashed boards and bear-offs against contact as well as
the positions of good play. Every unforced decision is kept with probability ``--keep`` (0.2)
while its class (``gnubg_nn.classify``: contact, crashed, race; bear-off positions of gnubg's
database are left out, they are exact) is under its quota (``--quota``, the shares of contact,
crashed and race). Its candidates are GNU Backgammon 2-ply's five best plays (of
gnubg 0-ply's eight best, :func:`two_ply`) plus tawla net2's choice where it is not one of them.
One JSON object a line, in a seeded random order (so that the
first ``k`` rolled out are a fair sample of all): the gnubg Position ID, the dice, the class, the candidates (gnubg
position keys of the position after the play, opponent on roll, the play, 2-ply equity).
The games are a different source from any of tawla's training data (tawla's own self-play
and the shared match archive).

``rollout``: each candidate's position after the play rolled out, cubeless money, both sides
played by GNU Backgammon 0-ply (``gnubg_nn.best_move``), games played out to the end or to
gnubg's bear-off database (``gnubg_nn.probabilities`` there, as gnubg's ``bearofftruncation
exact``), with

- **duplicate dice**: trial ``t`` of every candidate of a decision rolls the same dice, the
  first two rolls stratified over the 36 x 36 (trial ``t`` starts with roll ``t % 36`` then
  ``t // 36 % 36``), the rest from ``random.Random`` seeded by (seed, decision, trial);
- **variance reduction** (gnubg's luck adjustment): every move, the 0-ply equity after the
  best play of the roll made less the mean over the 36 rolls is summed as luck and taken
  from the result;
- **adaptive trials**: ``--min-trials`` each, then 36 more at a time for the best candidate and
  every candidate whose paired standard error against it is over ``--target-se`` and that is
  not already more than 0.15 and 5 standard errors worse, up to ``--max-trials``.

GNU Backgammon's own ``rollout`` (the ``gnubg`` module, 1.1.0a16) is not used: it prints
"Rollout done. Printing final results." and no results, stores none in the game record or the
exports, and ``gnubg.hint()`` returns a structure that contains itself; the 0-ply player here is
the same network (``gnubg_nn``), in the open.

The output is appended a decision a line as each finishes (the run resumes where the file
ends): the decision with, per candidate, the rollout equity of the mover, its standard error,
the paired standard error of its difference from the best candidate, and the trials. Each run
appends its command, seed and CPU seconds to ``bench/benchmark/RUNS.md``'s log (by hand).
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import oracles  # noqa: E402
from bench_strength import after_key, apply_gnubg  # noqa: E402

OUT_DIR = HERE / "benchmark"
ROLLS = [(a, b) for a in range(1, 7) for b in range(a, 7)]
WEIGHTS = [1 / 36 if a == b else 2 / 36 for a, b in ROLLS]
ORDERED = [(a, b) for a in range(1, 7) for b in range(1, 7)]
CLASSES = {2: "bearoff", 3: "race", 4: "crashed", 5: "contact"}


def gnubg():
    try:
        import gnubg_nn
    except ImportError:
        sys.exit('needs GNU Backgammon\'s networks as a module: pip install "gnubg-nn==1.1.0a11"')
    return gnubg_nn


def money(p) -> float:
    """Cubeless money equity of gnubg's five probabilities (gammons include backgammons)."""
    return 2 * p[0] - 1 + p[1] - p[3] + p[2] - p[4]


def loss_points(loser) -> int:
    """Points lost by the side ``loser`` (gnubg's 25 counts: points 1..24 then bar) of a finished game."""
    if sum(loser) < 15:
        return 1
    return 3 if loser[24] or any(loser[18:24]) else 2


def after(g, board, d1, d2):
    """The board after gnubg 0-ply's best play, from the next side to roll ([the side that moved, the other])."""
    r = g.best_move(board, d1, d2, b=1)
    if r == () or not r[0]:
        return [board[1], board[0]]
    return [list(x) for x in g.board_from_position_key(r[1])]


def roller_value(g, board) -> float:
    """0-ply equity of ``board`` for the side to roll (board[1]); a finished game exactly."""
    if sum(board[0]) == 0:
        return -loss_points(board[1])
    return money(g.probabilities(board, 0))


def trial(g, board, seed: int, decision: int, t: int) -> float:
    """One variance-reduced game from ``board`` (side board[1] to roll): its result for that side
    less the luck of the dice."""
    rng = random.Random(f"{seed}:{decision}:{t}")
    sign, luck = 1.0, 0.0
    for ply in range(1000):
        if g.classify(board) == g.c_bearoff:
            return sign * money(g.probabilities(board, 0)) - luck
        if ply == 0:
            d1, d2 = ORDERED[t % 36]
        elif ply == 1:
            d1, d2 = ORDERED[t // 36 % 36]
        else:
            d1, d2 = rng.randint(1, 6), rng.randint(1, 6)
        values = {r: -roller_value(g, after(g, board, *r)) for r in ROLLS}
        mean = sum(w * values[r] for r, w in zip(ROLLS, WEIGHTS))
        luck += sign * (values[(min(d1, d2), max(d1, d2))] - mean)
        board = after(g, board, d1, d2)
        if sum(board[0]) == 0:
            return sign * loss_points(board[1]) - luck
        sign = -sign
    raise RuntimeError("a rollout game ran past 1000 moves")


def two_ply(g, board, dice, keep: int = 8) -> list:
    """(key, play, 2-ply equity of the mover) of the ``keep`` best plays at 0 ply, best first at
    2 ply (the position after each play valued by ``gnubg_nn.probabilities(.., 2)``, as
    ``best_move(.., n=2)`` values the plays its filter keeps)."""
    listed = g.best_move(board, *dice, n=0, b=1, list=1)[2][:keep]
    out = [(k, tuple(mv), -money(g.probabilities([list(x) for x in g.board_from_position_key(k)], 2)))
           for k, mv, _p, _e in listed]
    return sorted(out, key=lambda x: -x[2])


def cmd_decisions(args) -> None:
    g = gnubg()
    import tawla
    from tawla.rules import OPPOSITE
    bg = tawla.get_ruleset("backgammon")
    bot = tawla.Bot(bg, "net2")
    quota = dict(zip(("contact", "crashed", "race"), (float(x) for x in args.quota.split(","))))
    want = {c: int(round(args.n * s / sum(quota.values()))) for c, s in quota.items()}
    have = {c: 0 for c in quota}
    rng = np.random.default_rng(args.seed)
    out = Path(args.output)
    out.parent.mkdir(parents=True, exist_ok=True)
    lines, games = [], 0
    while any(have[c] < want[c] for c in want):
        pos, games = bg.initial_position(), games + 1
        while pos.result() is None:
            dice = (int(rng.integers(1, 7)), int(rng.integers(1, 7)))
            moves = pos.legal_moves(dice)
            if not moves:
                pos = pos.flip()
                continue
            board = oracles.gnubg_board(pos.row, OPPOSITE)
            cls = CLASSES.get(g.classify(board))
            distinct = len({m.after for m in moves})
            if distinct > 1 and cls in want and have[cls] < want[cls] and rng.random() < args.keep:
                listed = two_ply(g, board, dice)
                cands = [{"key": k, "move": list(mv), "ply2": round(e, 5)} for k, mv, e in listed[:5]]
                mine = bot.choose(pos, dice).after
                me_opp = oracles.gnubg_board(mine, OPPOSITE)
                key = g.key_of_board([me_opp[1], me_opp[0]])
                net2 = next((i for i, c in enumerate(cands) if c["key"] == key), None)
                if net2 is None:
                    full = {k: (mv, e) for k, mv, e in listed}
                    mv, e = full.get(key, ((), None))
                    cands.append({"key": key, "move": list(mv), "ply2": None if e is None else round(float(e), 5)})
                    net2 = len(cands) - 1
                lines.append(json.dumps({"id": pos.gnubg_id(), "dice": list(dice), "class": cls,
                                         "candidates": cands, "net2": net2}))
                have[cls] += 1
            if rng.random() < args.explore:
                chosen = moves[int(rng.integers(len(moves)))]
            else:
                best = g.best_move(board, *dice)
                flat = [v for f, to in best for v in (f - 1, to - 1)]
                key52 = after_key(apply_gnubg(board, flat))
                chosen = next(m for m in moves if m.after[:52] == key52)
            pos = pos.play(chosen)
    order = np.random.default_rng(args.seed + 1).permutation(len(lines))  # any prefix a fair sample
    out.write_text("\n".join(lines[i] for i in order) + "\n")
    print(f"{len(lines)} decisions ({have}) from {games} games of gnubg 0-ply self-play, seed {args.seed}, "
          f"explore {args.explore} -> {out}")


def roll_decision(args_tuple):
    """Roll out one decision's candidates; the decision's JSON object with the results added."""
    d, index, seed, min_trials, max_trials, target = args_tuple
    g = gnubg()
    t0 = time.process_time()
    boards = [[list(x) for x in g.board_from_position_key(c["key"])] for c in d["candidates"]]
    results = [[] for _ in boards]
    open_ = set(range(len(boards)))
    while open_:
        for i in sorted(open_):
            start = len(results[i])
            step = min_trials if start == 0 else 36
            results[i] += [-trial(g, boards[i], seed, index, t) for t in range(start, start + step)]
        means = [float(np.mean(r)) for r in results]
        best = int(np.argmax(means))
        open_ = set()
        for i, r in enumerate(results):
            if i == best or len(r) >= max_trials:
                continue
            n = min(len(r), len(results[best]))  # the best may have fewer trials than another
            diff = np.array(results[best][:n]) - np.array(r[:n])
            se = float(diff.std(ddof=1) / math.sqrt(n))
            gap = float(diff.mean())
            if se > target and not (gap > 0.15 and gap > 5 * se):
                open_.add(i)
        if open_ and len(results[best]) < max_trials:
            open_.add(best)
        open_ = {i for i in open_ if len(results[i]) < max_trials}
    means = [float(np.mean(r)) for r in results]
    best = int(np.argmax(means))
    for i, (c, r) in enumerate(zip(d["candidates"], results)):
        n = min(len(r), len(results[best]))
        diff = np.array(results[best][:n]) - np.array(r[:n])
        c["equity"] = round(means[i], 5)
        c["se"] = round(float(np.std(r, ddof=1) / math.sqrt(len(r))), 5)
        c["se_diff"] = 0.0 if i == best else round(float(diff.std(ddof=1) / math.sqrt(n)), 5)
        c["trials"] = len(r)
    d["best"] = best
    d["cpu_s"] = round(time.process_time() - t0, 2)
    d["index"] = index
    return d


def cmd_rollout(args) -> None:
    src = [json.loads(s) for s in Path(args.decisions).read_text().splitlines() if s.strip()]
    out = Path(args.output)
    done = len(out.read_text().splitlines()) if out.exists() else 0
    stop = len(src) if args.limit is None else min(len(src), done + args.limit)
    jobs = [(src[i], i, args.seed, args.min_trials, args.max_trials, args.target_se) for i in range(done, stop)]
    print(f"{done} decisions rolled out already; {len(jobs)} to go", flush=True)
    t0 = time.perf_counter()
    with open(out, "a") as f:
        if args.workers > 1:
            with ProcessPoolExecutor(args.workers) as ex:
                results = ex.map(roll_decision, jobs)
                for d in results:
                    f.write(json.dumps(d) + "\n")
                    f.flush()
                    report(d, t0)
        else:
            for job in jobs:
                d = roll_decision(job)
                f.write(json.dumps(d) + "\n")
                f.flush()
                report(d, t0)


def report(d, t0) -> None:
    c = d["candidates"]
    print(f"{d['index']:5d} {d['class']:<8} {d['id']} {d['dice']} best {c[d['best']]['equity']:+.3f} "
          f"trials {max(x['trials'] for x in c)} max se_diff {max(x['se_diff'] for x in c):.4f} "
          f"cpu {d['cpu_s']:.1f}s wall {time.perf_counter() - t0:.0f}s", flush=True)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    a = sub.add_parser("decisions")
    a.add_argument("--n", type=int, default=1200)
    a.add_argument("--seed", type=int, default=31000)
    a.add_argument("--explore", type=float, default=0.1)
    a.add_argument("--keep", type=float, default=0.2)
    a.add_argument("--quota", default="0.5,0.2,0.3", help="shares of contact, crashed, race")
    a.add_argument("-o", "--output", default=str(OUT_DIR / "backgammon-decisions.jsonl"))
    b = sub.add_parser("rollout")
    b.add_argument("--decisions", default=str(OUT_DIR / "backgammon-decisions.jsonl"))
    b.add_argument("-o", "--output", default=str(OUT_DIR / "backgammon.jsonl"))
    b.add_argument("--seed", type=int, default=31)
    b.add_argument("--min-trials", type=int, default=72)
    b.add_argument("--max-trials", type=int, default=648)
    b.add_argument("--target-se", type=float, default=0.01)
    b.add_argument("--limit", type=int, default=None)
    b.add_argument("--workers", type=int, default=1)
    args = ap.parse_args(argv)
    {"decisions": cmd_decisions, "rollout": cmd_rollout}[args.cmd](args)


if __name__ == "__main__":
    main()
