"""Cube decisions at the score against GNU Backgammon's analyses of real matches. Not run in CI.

Usage::

    python bench/bench_cube.py [--folder ../shared/data/gnubg-analysed] [--depth 4-ply] [--level net0]
    python bench/bench_cube.py --checker [--depth 4-ply] [--level net0]

``--level net1`` or ``net2``: ``tawla analyze --level``'s evaluator
(:class:`tawla.analysis.evaluators.SearchEvaluator`): the cube decisions of a match by its
cubeful search 1 or 2 plies deep (:mod:`tawla.bots.cubeful`; ``--rolls-ahead``: the model on
probabilities one or two rolls ahead instead, as before that search), the checker plays by
the bot's search at the score. ``--no-analyze`` skips the analysis of the raw records.

``--checker``: every checker play of the exports ("Move number N: ... to play DD", its
candidates and the one played, starred) ranked by tawla at the score (net0 probabilities,
:func:`tawla.bots.score.play_values_at_score`, the evaluator of ``tawla analyze``): the error
of the play made against GNU Backgammon's (its best candidate's equity minus the played
one's, both normalised EMG), per player per game (at least 10 unforced plays) their mean in
mEMG, its correlation and mean difference, and the plays each calls errors (> 0.03): the
share of tawla's that are gnubg's and of gnubg's that tawla finds.

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
from tawla.analysis.evaluators import SearchEvaluator, default_evaluator
from tawla.bots.cube import cube_decision, score_state
from tawla.bots.score import play_values_at_score
from tawla.notation import fitting_moves
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


_MOVE = re.compile(r"^Move number \d+:\s+(.+?) to play (\d)(\d)")
_PLAYED = re.compile(r"^\* (.+?) moves (.+)$")
_CAND = re.compile(r"^(\*?)\s+(\d+)\. .*Eq\.:\s+([-+]\d+\.\d+)(?:\s+\(([-+]\d+\.\d+)\))?")


def plays(folder: Path):
    """(file, player, Position ID, Match ID, dice, played text, gnubg's error) of every checker
    play with a candidate list (forced plays and "Cannot move" have none)."""
    for path in sorted(folder.glob("*.txt")):
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
        cur = None
        for line in lines:
            m = _MOVE.match(line)
            if m:
                cur = {"player": m[1], "dice": (int(m[2]), int(m[3])), "pid": None, "mid": None, "played": None}
                continue
            if cur is None:
                continue
            if "Position ID:" in line and cur["pid"] is None:
                cur["pid"] = line.split(":", 1)[1].strip()
            elif line.strip().startswith("Match ID") and cur["mid"] is None:
                cur["mid"] = line.split(":", 1)[1].strip()
            elif _PLAYED.match(line):
                cur["played"] = _PLAYED.match(line)[2].strip()
            else:
                c = _CAND.match(line)
                if c and c[1] == "*" and cur["played"]:
                    error = -float(c[4]) if c[4] else 0.0
                    yield (path.name, cur["player"], cur["pid"], cur["mid"], cur["dice"], cur["played"], error)
                    cur = None


def checker(folder: Path, cubeless: bool = False, level: str = "net0") -> None:
    """The checker-play comparison of ``--checker`` (module docstring); ``cubeless``: tawla's
    plays ranked by cubeless money equity instead (the ranking before match play)."""
    ev = default_evaluator()
    search = SearchEvaluator(level) if level != "net0" else None
    errors_t, errors_g, groups = [], [], {}
    skipped = 0
    for name, player, pid, mid, dice, text, g_err in plays(folder):
        pos = Position.from_gnubg_id(pid)
        state = None if cubeless else score_state(MatchState.from_match_id(mid))
        legal = pos.legal_moves(dice)
        fits = fitting_moves(text.replace("*", ""), pos, dice, legal=legal)
        if len(legal) < 2 or not fits:
            skipped += 1
            continue
        rows = np.stack([np.frombuffer(pos.play(mv).row, dtype=np.uint8) for mv in legal]).copy()
        if search is not None:
            values = search(rows, BG) if state is None else search.values_at_score(rows, BG, state)
        elif state is None:
            values = -ev.probabilities(rows, BG)[:, 0]
        else:
            values, _ = play_values_at_score(rows, ev.probabilities(rows, BG), BG, state)
        idx = next(k for k, mv in enumerate(legal) if mv.after == fits[0].after)
        t_err = float(values.max() - values[idx])
        errors_t.append(t_err)
        errors_g.append(g_err)
        groups.setdefault((name, player), []).append((t_err, g_err))
    t, g = np.array(errors_t), np.array(errors_g)
    print(f"{len(t)} unforced plays compared ({skipped} forced or unreadable left out)")
    print(f"mean error per play: tawla {1000 * t.mean():.2f} mEMG, gnubg {1000 * g.mean():.2f} mEMG")
    both = int(((t > 0.03) & (g > 0.03)).sum())
    print(f"errors (> 0.03): tawla {int((t > 0.03).sum())}, gnubg {int((g > 0.03).sum())}; tawla's that are gnubg's "
          f"{interval(both, int((t > 0.03).sum()))}; gnubg's that tawla finds {interval(both, int((g > 0.03).sum()))}")
    per = [(np.mean([a for a, _ in v]), np.mean([b for _, b in v])) for v in groups.values() if len(v) >= 10]
    a, b = np.array(per).T * 1000
    r = float(np.corrcoef(a, b)[0, 1])
    d = a - b
    print(f"per player per game ({len(per)} with >= 10 unforced plays): correlation r = {r:.3f}; "
          f"mean difference tawla - gnubg {d.mean():+.2f} ± {1.96 * d.std(ddof=1) / math.sqrt(len(d)):.2f} mEMG")
    print(f"SUMMARY plays {len(t)}; r {r:.3f}; diff {d.mean():+.2f} mEMG; precision {both / max(1, int((t > 0.03).sum())):.3f}; "
          f"recall {both / max(1, int((g > 0.03).sum())):.3f}")


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
    ap.add_argument("--checker", action="store_true", help="compare the checker plays instead of the cube decisions")
    ap.add_argument("--cubeless", action="store_true", help="with --checker: tawla ranks by cubeless money equity")
    ap.add_argument("--level", choices=("net0", "net1", "net2"), default="net0",
                    help="tawla analyze --level's evaluator (net1, net2: searches with the cube decisions inside)")
    ap.add_argument("--rolls-ahead", action="store_true",
                    help="net1, net2: the model on probabilities rolls ahead instead of the cubeful search")
    ap.add_argument("--no-analyze", action="store_true", help="skip tawla analyze on the raw records")
    args = ap.parse_args(argv)
    folder = Path(args.folder)
    if args.checker:
        checker(folder / "analysed" / args.depth, args.cubeless, args.level)
        return
    found = list(blocks(folder / "analysed" / args.depth))
    rows = np.stack([np.frombuffer(Position.from_gnubg_id(pid).row, dtype=np.uint8) for _, pid, _, _, _ in found])
    evaluator = default_evaluator() if args.level == "net0" else SearchEvaluator(args.level)
    ours = (evaluator.probabilities(rows.copy(), BG) if args.level == "net0"
            else evaluator.cube_probabilities(rows.copy(), BG))
    judged = agree = close = close_agree = model_agree = model_close = 0
    confusion: Counter = Counter()
    for (name, pid, mid, gp, proper), row, p in zip(found, rows, ours):
        state = MatchState.from_match_id(mid)
        if state.double_offered:  # the taker's block: its probabilities from the taker's side
            gp = [1 - gp[0], gp[3], gp[4], gp[1], gp[2]]
        state = MatchState(**{**state.__dict__, "dice": (0, 0), "double_offered": False,
                              "turn": state.player_on_roll})
        theirs = category(proper)
        at = score_state(state)
        if args.level != "net0" and not args.rolls_ahead and at is not None:  # tawla analyze's search
            mine_d = evaluator.match_cube(row.tobytes(), BG, at)
        else:
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
    print(f"proper action = gnubg's, {args.level} probabilities: {interval(agree, n)}; "
          f"close ones: {interval(close_agree, close)}")
    print(f"proper action = gnubg's, gnubg's printed probabilities through tawla's model: {interval(model_agree, n)}; "
          f"close ones: {interval(model_close, close)}")
    print("gnubg proper -> tawla proper (net0): " + ", ".join(f"{a} -> {b}: {c}" for (a, b), c in sorted(confusion.items())))
    if args.no_analyze:
        print(f"SUMMARY blocks {n}; judged {judged}; agree {interval(agree, n)}; close {interval(close_agree, close)}")
        return
    reports = analyze_paths(sorted(str(p) for p in (folder / "raw").glob("*.txt")), evaluator=evaluator)
    decisions = sum(sum(g.cube_counts["decisions"]) for r in reports for g in r.games if g.cube_counts)
    print(f"tawla analyze on the raw records: {decisions} cube decisions judged (gnubg's blocks: {n})")
    print(f"SUMMARY blocks {n}; judged {judged}; agree {interval(agree, n)}; close {interval(close_agree, close)}; "
          f"analyze judged {decisions}")


if __name__ == "__main__":
    main()
