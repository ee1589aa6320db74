"""The Tawla rulesets' match equity tables against matches the bots play. Not run in CI.

Usage::

    python bench/bench_variant_met.py --ruleset tawla31 --length 11 --matches 2000 [--seed 77]

New games (another seed than the tables' measurement, ``tools/make_variant_met.py``) of the
shipped network against itself are played and chained into matches of ``--length`` points,
each game used once; at the start of every game the score (player A away, player B away) is
recorded with whether A went on to win the match. Reported: the matches, the scores visited
at least 50 times and the share of them whose 95% interval of A's winning share holds the
table's value, and a z-score of all visits together: each match's sum of (won - table) over
the scores it passed (zero mean where the table is right; the visits of one match are
correlated, the matches are not), their total over the root of the sum of their squares; the
last line is a one-line summary.
"""

from __future__ import annotations

import argparse
import math
from collections import defaultdict

import numpy as np

from tawla.evaluation.net import shipped_net
from tawla.met.variants import variant_met
from tawla.training.duel import duel, evaluator_player


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ruleset", default="tawla31")
    ap.add_argument("--length", type=int, default=11)
    ap.add_argument("--matches", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=77)
    args = ap.parse_args(argv)
    table = variant_met(args.ruleset)
    player = evaluator_player(args.ruleset, shipped_net(args.ruleset))
    visits: dict = defaultdict(lambda: [0, 0])  # (a, b) -> [visits, A won]
    pool: list = []
    per_match: list = []  # sum over the match's scores of (A won - table)
    seed, done = args.seed, 0
    while done < args.matches:
        a = b = args.length
        path = []
        while a > 0 and b > 0:
            while not pool:
                res = duel(args.ruleset, player, player, 500, seed=seed)
                seed += 1
                # one game of each duplicate pair (the other mirrors it), the first mover of
                # each game drawn at random between the match's players
                first = np.asarray(res.points)[0::2]
                flip = np.random.default_rng(seed).random(len(first)) < 0.5
                pool = [float(p) for p in np.where(flip, -first, first)[::-1] if p != 0]
            p = pool.pop()
            path.append((a, b))
            if p > 0:
                a -= int(p)
            else:
                b -= int(-p)
        for s in path:
            visits[s][0] += 1
            visits[s][1] += int(a <= 0)
        per_match.append(sum(int(a <= 0) - table.mwc(*s) for s in path))
        done += 1
    inside = counted = 0
    for (a, b), (n, won) in visits.items():
        m = table.mwc(a, b)
        if n >= 50:
            counted += 1
            share = won / n
            half = 1.96 * math.sqrt(max(m * (1 - m), 1e-12) / n)
            inside += abs(share - m) <= half
    d = np.asarray(per_match)
    z = d.sum() / math.sqrt((d ** 2).sum()) if (d ** 2).sum() > 0 else float("nan")
    print(f"{args.matches} {args.length}-point {args.ruleset} matches; {counted} scores visited >= 50 times, "
          f"{inside} of them ({100 * inside / max(counted, 1):.0f}%) within the 95% interval of the table; "
          f"all visits together z = {z:+.2f}")
    print(f"SUMMARY {args.ruleset} {args.length} matches {args.matches} inside {inside}/{counted} z {z:+.2f}")


if __name__ == "__main__":
    main()
