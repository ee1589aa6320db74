"""Score evaluators on the open rollout benchmark (``bench/benchmark/``, made by
``bench/make_benchmark.py``): tawla's levels and GNU Backgammon 0-ply and 1-ply side by side in
one run. Not run in CI.

Usage::

    python bench/bench_benchmark.py [--benchmark bench/benchmark/backgammon.jsonl]
                                    [--levels net0,net1,net2,ply0] [--gnubg 0,1] [--net FILE]

For every decision (a position and a roll, its candidate plays rolled out by GNU Backgammon's
0-ply player with duplicate dice and variance reduction) each evaluator chooses among the
candidates (the play whose position it values best for the mover; a tawla level through
:class:`tawla.Bot`'s values of those positions, GNU Backgammon through
``gnubg_nn.probabilities(position, plies)``), and the figures are:

- **error per decision** (millipoints, GNU Backgammon's benchmark measure): the rollout equity
  of the rollout's best candidate less that of the candidate chosen, times 1000, averaged;
- **best chosen**: the share of decisions on which the rollout's best is chosen;
- **equity error per position**: the mean absolute difference between the evaluator's cubeless
  money equity of each candidate's position and its rollout equity (candidates with a rollout
  standard error of at most ``--max-se``).

Each with its 95% interval, over all decisions and split by GNU Backgammon's class of the
position before the roll (``gnubg_nn.classify``: contact, crashed, race). The benchmark's
standard errors are reported beside (the error per decision of a perfect chooser is 0 only up
to them).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import tawla  # noqa: E402

BG = tawla.get_ruleset("backgammon")
CLASSES = ("contact", "crashed", "race")


def money(p) -> float:
    return 2 * p[0] - 1 + p[1] - p[3] + p[2] - p[4]


def candidate_rows(g, decision) -> np.ndarray:
    """uint8[K, 56]: each candidate's position after the play, the opponent on roll (tawla rows)."""
    rows = [tawla.Position.from_gnubg_id(g.position_id([list(x) for x in g.board_from_position_key(c["key"])])).to_array()
            for c in decision["candidates"]]
    return np.stack(rows)


def tawla_values(level: str, rows: np.ndarray, net) -> np.ndarray:
    """The mover's equity of each candidate position (rows: the opponent on roll) at ``level``."""
    if net is not None and level.startswith("net"):
        from tawla.bots.lookahead import preroll_columns
        from tawla.evaluation import evaluate_rows
        depth = int(level[-1])
        ev = (lambda x: evaluate_rows(x, BG, checked=False, contact=net))
        cols = ev(rows) if depth == 0 else preroll_columns(rows, BG, ev, depth)
        return -np.asarray(cols)[:, 0]
    return -np.asarray(tawla.evaluate(rows, BG, level), dtype=np.float64)[:, 0]


def gnubg_values(g, plies: int, decision) -> np.ndarray:
    return np.array([-money(g.probabilities([list(x) for x in g.board_from_position_key(c["key"])], plies))
                     for c in decision["candidates"]])


def interval(x) -> str:
    x = np.asarray(x, dtype=np.float64)
    if len(x) < 2:
        return f"{x.mean() if len(x) else float('nan'):.4f}"
    h = 1.96 * x.std(ddof=1) / math.sqrt(len(x))
    return f"{x.mean():.4f} ± {h:.4f}"


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--benchmark", default=str(HERE / "benchmark" / "backgammon.jsonl"))
    ap.add_argument("--levels", default="net0,net1,net2,ply0")
    ap.add_argument("--gnubg", default="0,1", help="GNU Backgammon plies to score beside (empty: none)")
    ap.add_argument("--net", default=None, help="a network file (tawla train's output) for the net levels")
    ap.add_argument("--max-se", type=float, default=0.02)
    args = ap.parse_args(argv)
    import gnubg_nn as g

    decisions = [json.loads(s) for s in Path(args.benchmark).read_text().splitlines() if s.strip()]
    net = None
    if args.net:
        from tawla.evaluation.net import NetEvaluator
        net = NetEvaluator.load(args.net)
    evaluators = [(lv, lambda d, rows, lv=lv: tawla_values(lv, rows, net)) for lv in args.levels.split(",") if lv]
    evaluators += [(f"gnubg {p}-ply", lambda d, rows, p=int(p): gnubg_values(g, p, d))
                   for p in args.gnubg.split(",") if p]
    cls = np.array([d["class"] for d in decisions])
    se = np.array([max(c["se_diff"] for c in d["candidates"]) for d in decisions])
    print(f"{len(decisions)} decisions of {args.benchmark} ({', '.join(f'{c} {int((cls == c).sum())}' for c in CLASSES)}); "
          f"largest paired standard error of a candidate against the best: mean {se.mean():.4f}, "
          f"median {np.median(se):.4f}; trials a candidate up to {max(c['trials'] for d in decisions for c in d['candidates'])}")
    print(f"{'evaluator':<14} {'error/decision (mp)':<22} {'best chosen':<16} {'|equity error|':<18} "
          + " ".join(f"{c + ' (mp)':<20}" for c in CLASSES) + " CPU ms/decision")
    rows_of = [candidate_rows(g, d) for d in decisions]
    for name, values in evaluators:
        t = time.process_time()
        loss, best, eq_err, eq_cls = [], [], [], []
        for d, rows in zip(decisions, rows_of):
            v = values(d, rows)
            truth = np.array([c["equity"] for c in d["candidates"]])
            pick = int(np.argmax(v))
            loss.append(1000 * (truth.max() - truth[pick]))
            best.append(float(pick == int(np.argmax(truth))))
            for c, x in zip(d["candidates"], v):
                if c["se"] <= args.max_se:
                    eq_err.append(abs(float(x) - c["equity"]))
                    eq_cls.append(d["class"])
        ms = 1000 * (time.process_time() - t) / len(decisions)
        loss_a = np.array(loss)
        by = " ".join(f"{interval(loss_a[cls == c]):<20}" for c in CLASSES)
        print(f"{name:<14} {interval(loss_a):<22} {100 * np.mean(best):5.1f}%{'':<10} {interval(eq_err):<18} {by} {ms:.1f}",
              flush=True)


if __name__ == "__main__":
    main()
