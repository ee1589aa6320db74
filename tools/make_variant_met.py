"""Measure the points a game is won by in each Tawla ruleset, for their match equity tables.

Run (about 17 CPU minutes)::

    python tools/make_variant_met.py --pairs 100000 --seed 2026 -o src/tawla/data/met/variants.json

Each ruleset's shipped network plays itself (``tawla.training.duel``, greedy 0-ply play) for
``pairs`` games: one game of each duplicate pair (the other is the same game with the seats
swapped, the same bot on both: no new information); the absolute points of every decided game
are counted (drawn or unfinished games are left out: RULES.md replays a frozen game). The tables are
computed from these counts when loaded (:mod:`tawla.met.variants`).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from concurrent.futures import ProcessPoolExecutor

import numpy as np

from tawla.evaluation.net import shipped_net
from tawla.training.duel import duel, evaluator_player

RULESETS = ("adi", "mahbusa", "tawla31", "tawla31-saharat")


def measure(args) -> tuple[str, dict]:
    ruleset, pairs, seed = args
    t0 = time.process_time()
    player = evaluator_player(ruleset, shipped_net(ruleset))
    res = duel(ruleset, player, player, pairs, seed=seed)
    points = np.abs(np.asarray(res.points)[0::2])  # one game of each pair
    won = points[points > 0]
    keys, counts = np.unique(won.astype(int), return_counts=True)
    return ruleset, {"counts": {str(k): int(c) for k, c in zip(keys, counts)}, "games": int(len(points)),
                     "undecided": int((points == 0).sum()), "mean_points": round(float(won.mean()), 4),
                     "cpu_seconds": round(time.process_time() - t0, 1)}


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("-o", "--output", required=True)
    args = ap.parse_args(argv)
    with ProcessPoolExecutor(args.workers) as pool:
        results = dict(pool.map(measure, [(r, args.pairs, args.seed) for r in RULESETS]))
    doc = {"command": "python tools/make_variant_met.py " + " ".join(argv if argv is not None else sys.argv[1:]),
           "level": "net0 against itself (greedy 0-ply play), one game of each duplicate pair", "seed": args.seed,
           "rulesets": results}
    with open(args.output, "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    for r, e in results.items():
        print(r, e["games"], e["mean_points"], e["counts"])


if __name__ == "__main__":
    main()
