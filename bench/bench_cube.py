"""Cube decisions at the score against GNU Backgammon's analyses of real matches. Not run in CI.

Usage::

    python bench/bench_cube.py [--folder ../shared/data/gnubg-analysed] [--depth 4-ply]

Every "Cube analysis" block of GNU Backgammon's text exports (``analysed/<depth>/*.txt``: the
position before the roll, its Position ID and Match ID, gnubg's cubeless probabilities and
its proper cube action) is put through tawla's cube model at the score
(:func:`tawla.bots.cube.cube_decision`: :class:`tawla.met.MatchCube` in matches) twice:

* on tawla's own probabilities (``net0``, the evaluator of ``tawla analyze``, 0 ply): what
  ``tawla analyze`` decides;
* on the probabilities GNU Backgammon printed in the block (turned to the doubler's side in
  the block of an answer, which gnubg prints from the taker's): the model alone (at 0-ply
  exports this is GNU Backgammon's own model, so the agreement should be all but total; at
  4-ply gnubg's cubeful equities come from its search, not from Janowski's formula).

Reported: the blocks, how many tawla judges (the cube available to the side on roll in
tawla's model), and the share of blocks whose proper action tawla's equals (all, and the
close ones: gnubg's proper action other than "No double, take"), with 95% intervals; then
how many cube decisions ``tawla analyze`` judges on the raw records of the same matches.
The last line is a one-line summary.
"""

from __future__ import annotations

import argparse
import math
import re
from collections import Counter
from pathlib import Path

import numpy as np

from tawla import Position
from tawla.analysis.files import analyze_paths
from tawla.analysis.evaluators import default_evaluator
from tawla.bots.cube import cube_decision
from tawla.formats.gnubg import MatchState
from tawla.rules import get_ruleset

BG = get_ruleset("backgammon")
_PID = re.compile(r"Position ID: (\S+)")
_MID = re.compile(r"Match ID   : (\S+)")
_PROBS = re.compile(r"^\s+(-?\d\.\d+) (-?\d\.\d+) (-?\d\.\d+) - (-?\d\.\d+) (-?\d\.\d+) (-?\d\.\d+)\s*$")


def category(text: str) -> str:
    """gnubg's proper action (or tawla's) as one of: no double, double take, double pass, too
    good pass, too good take, dead (redoubles counted as doubles; an optional double as no
    double: doubling gains nothing)."""
    t = text.lower().replace("redouble", "double").strip()
    if "dead cube" in t or t == "no double":
        return "dead"
    if t.startswith("optional"):
        return "no double"
    if t.startswith("too good"):
        return "too good pass" if "pass" in t else "too good take"
    if t.startswith("double"):
        return "double pass" if "pass" in t else "double take"
    return "no double"


def blocks(folder: Path):
    """(file, Position ID, Match ID, gnubg probabilities[5], gnubg's proper action) of every
    cube analysis block."""
    for path in sorted(folder.glob("*.txt")):
        pid = mid = None
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
        for i, line in enumerate(lines):
            m = _PID.search(line)
            if m:
                pid = m[1]
                continue
            m = _MID.search(line)
            if m:
                mid = m[1]
                continue
            if line.strip() != "Cube analysis" or pid is None or mid is None:
                continue
            probs, proper = None, None
            for follow in lines[i + 1:i + 12]:
                pm = _PROBS.match(follow)
                if pm and probs is None:
                    w, wg, wbg, _, lg, lbg = (float(v) for v in pm.groups())
                    probs = [max(v, 0.0) for v in (w, wg, wbg, lg, lbg)]
                if follow.startswith("Proper cube action:"):
                    proper = follow.split(":", 1)[1].split("(")[0].strip()
                    break
            if probs is not None and proper is not None:
                yield path.name, pid, mid, probs, proper


def interval(k: int, n: int) -> str:
    if not n:
        return "n/a"
    p = k / n
    h = 1.96 * math.sqrt(p * (1 - p) / n)
    return f"{100 * p:.1f}% ± {100 * h:.1f} ({k}/{n})"


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--folder", default=str(Path(__file__).resolve().parents[2] / "shared" / "data" / "gnubg-analysed"))
    ap.add_argument("--depth", default="4-ply")
    args = ap.parse_args(argv)
    folder = Path(args.folder)
    found = list(blocks(folder / "analysed" / args.depth))
    rows = np.stack([np.frombuffer(Position.from_gnubg_id(pid).row, dtype=np.uint8) for _, pid, _, _, _ in found])
    ours = default_evaluator().probabilities(rows.copy(), BG)
    judged = agree = close = close_agree = model_agree = model_close = 0
    confusion: Counter = Counter()
    for (name, pid, mid, gp, proper), row, p in zip(found, rows, ours):
        state = MatchState.from_match_id(mid)
        if state.double_offered:  # the taker's block: its probabilities from the taker's side
            gp = [1 - gp[0], gp[3], gp[4], gp[1], gp[2]]
        state = MatchState(**{**state.__dict__, "dice": (0, 0), "double_offered": False,
                              "turn": state.player_on_roll})
        theirs = category(proper)
        mine_d = cube_decision(p, row.tobytes(), BG, state)
        model_d = cube_decision(np.array(gp), row.tobytes(), BG, state)
        mine = category(mine_d.proper) if mine_d.may_double else "dead"
        judged += mine_d.may_double
        agree += mine == theirs
        model = category(model_d.proper) if model_d.may_double else "dead"
        model_agree += model == theirs
        if theirs not in ("no double", "dead"):
            close += 1
            close_agree += mine == theirs
            model_close += model == theirs
        confusion[theirs, mine] += 1
    n = len(found)
    print(f"{n} cube analysis blocks in {folder / 'analysed' / args.depth}")
    print(f"judged by tawla's model (the cube available): {interval(judged, n)}")
    print(f"proper action = gnubg's, net0 probabilities: {interval(agree, n)}; close ones: {interval(close_agree, close)}")
    print(f"proper action = gnubg's, gnubg's printed probabilities through tawla's model: {interval(model_agree, n)}; "
          f"close ones: {interval(model_close, close)}")
    print("gnubg proper -> tawla proper (net0): " + ", ".join(f"{a} -> {b}: {c}" for (a, b), c in sorted(confusion.items())))
    reports = analyze_paths(sorted(str(p) for p in (folder / "raw").glob("*.txt")), evaluator=default_evaluator())
    decisions = sum(sum(g.cube_counts["decisions"]) for r in reports for g in r.games if g.cube_counts)
    print(f"tawla analyze on the raw records: {decisions} cube decisions judged (gnubg's blocks: {n})")
    print(f"SUMMARY blocks {n}; judged {judged}; agree {interval(agree, n)}; close {interval(close_agree, close)}; "
          f"analyze judged {decisions}")


if __name__ == "__main__":
    main()
