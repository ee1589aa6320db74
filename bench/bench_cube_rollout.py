"""Cube decisions at the score by cubeful rollout against GNU Backgammon's 4-ply analyses of
real matches, beside tawla's 0-ply and 2-ply decisions on the same positions. Not run in CI.

Usage::

    python bench/bench_cube_rollout.py [--folder ../shared/data/gnubg-analysed] [--positions 80]
        [--trials 324] [--workers 2] [--seed 1]

A seeded sample of the close cube decisions (GNU Backgammon's proper action other than "No
double, take") of the 4-ply exports (``bench_cube.blocks``) is rolled out at its score by
``tawla.rollout(position, match_state=...)``: net0 trials with cube decisions at the score in
every trial, the position not doubled and doubled on the same dice; its proper action is
compared with gnubg's, as are those of tawla's cube model on net0's probabilities (0 ply,
``tawla analyze``) and on net2's (two rolls ahead, ``tawla analyze --level net2``), each with
a 95% interval. The last line is a one-line summary.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from bench_cube import blocks, category, interval
from tawla import Position, rollout
from tawla.analysis.evaluators import SearchEvaluator, default_evaluator
from tawla.bots.cube import cube_decision
from tawla.formats.gnubg import MatchState
from tawla.rules import get_ruleset

BG = get_ruleset("backgammon")


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--folder", default=str(Path(__file__).resolve().parents[2] / "shared" / "data" / "gnubg-analysed"))
    ap.add_argument("--positions", type=int, default=80)
    ap.add_argument("--trials", type=int, default=324)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    found = []
    for name, pid, mid, _, proper in blocks(Path(args.folder) / "analysed" / "4-ply"):
        state = MatchState.from_match_id(mid)
        state = MatchState(**{**state.__dict__, "dice": (0, 0), "double_offered": False, "turn": state.player_on_roll})
        theirs = category(proper)
        if theirs in ("no double", "dead") or state.match_length == 0:
            continue
        found.append((name, pid, state, theirs))
    rng = np.random.default_rng(args.seed)
    pick = sorted(rng.choice(len(found), size=min(args.positions, len(found)), replace=False))
    sample = [found[i] for i in pick]
    rows = np.stack([np.frombuffer(Position.from_gnubg_id(pid).row, np.uint8) for _, pid, _, _ in sample])
    net0 = default_evaluator().probabilities(rows.copy(), BG)
    net2 = SearchEvaluator("net2").cube_probabilities(rows.copy(), BG)
    agree = {"rollout": 0, "net0": 0, "net2": 0}
    start = time.perf_counter()
    for k, ((name, pid, state, theirs), row) in enumerate(zip(sample, rows)):
        ro = rollout(Position.from_gnubg_id(pid), trials=args.trials, seed=args.seed + k, match_state=state,
                     workers=args.workers)
        assert ro.cube is not None
        mine = {"rollout": ro.cube, "net0": cube_decision(net0[k], row.tobytes(), BG, state),
                "net2": cube_decision(net2[k], row.tobytes(), BG, state)}
        for how, d in mine.items():
            agree[how] += (category(d.proper) if d.may_double else "dead") == theirs
        print(f"{name} {pid}: gnubg {theirs}; rollout {ro.cube.proper} (ND {100 * ro.cube.no_double_mwc:.2f}%, "
              f"DT {100 * ro.cube.double_take_mwc:.2f}%, DP {100 * ro.cube.double_pass_mwc:.2f}%)", flush=True)
    n = len(sample)
    print(f"{n} close cube decisions of {len(found)} (seed {args.seed}), {args.trials} trials each, "
          f"{time.perf_counter() - start:.0f} s")
    for how, k in agree.items():
        print(f"proper action = gnubg 4-ply's, {how}: {interval(k, n)}")
    print("SUMMARY " + "; ".join(f"{how} {interval(k, n)}" for how, k in agree.items()))


if __name__ == "__main__":
    main()
