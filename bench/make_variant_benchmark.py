"""The open rollout benchmark of a Tawla ruleset (Tawla 31, Tawla 31 Saharat, Mahbusa, Adi):
decisions whose candidate plays are rolled out by tawla's strongest rollout level. Not run in CI.

No other engine plays these rulesets (GNU Backgammon, OpenSpiel and wildbg play backgammon
only), so unlike the backgammon benchmark (``bench/make_benchmark.py``, rolled out by GNU
Backgammon) these rollouts are tawla's own: they judge the evaluators by how tawla's best
player fares with each play.

Usage::

    python bench/make_variant_benchmark.py decisions --ruleset tawla31 [--n 600] [--seed 41000]
    python bench/make_variant_benchmark.py rollout --ruleset tawla31 [--trials 648] [--se 0.01] [--limit N]

``decisions``: positions of tawla net0's self-play in which each move is, with probability
``--explore`` (0.1), a uniformly random legal play instead; every decision with at least two
distinct plays kept with probability ``--keep`` (0.2); in a seeded random order (any prefix a
fair sample). Candidates: net2's five best plays (:meth:`tawla.Bot.hint`). One JSON object a
line in ``bench/benchmark/<ruleset>-decisions.jsonl``: the tawla ID, the dice, the class
(``race`` or ``contact``: :func:`tawla.evaluation.is_race`), the candidates (the tawla ID of
the position after the play, opponent on roll; the play; net2's value).

``rollout``: each decision's candidates rolled out by :func:`tawla.rollout` at ``--level``
(default ``net1``: 1-ply trials on the shipped network, the strongest; about 70 CPU seconds for
144 trials of five Tawla 31 plays, whose points per game reach 15, so a standard error of
0.25 points there), cubeless, luck-adjusted, duplicate dice across
the candidates, until every play's standard error is at most ``--se`` (at least 72 trials,
at most ``--trials``); appended a decision a line to ``bench/benchmark/<ruleset>.jsonl`` (the
run resumes where it ends), each candidate with its ``equity`` (the mover's, in the
ruleset's points), ``se`` and ``trials``, and the decision's ``best`` and ``cpu_s``.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

import tawla
from tawla.evaluation import is_race
from tawla.rollout import RolloutSettings

OUT_DIR = Path(__file__).resolve().parent / "benchmark"


def cmd_decisions(args) -> None:
    r = tawla.get_ruleset(args.ruleset)
    net0, net2 = tawla.Bot(r, "net0"), tawla.Bot(r, "net2")
    rng = np.random.default_rng(args.seed)
    lines, games = [], 0
    while len(lines) < args.n:
        pos, games = r.initial_position(), games + 1
        plies = 0
        while pos.result() is None and len(lines) < args.n and plies < 2000:
            plies += 1
            dice = (int(rng.integers(1, 7)), int(rng.integers(1, 7)))
            moves = pos.legal_moves(dice)
            if not moves:
                pos = pos.flip()
                continue
            if len({m.after for m in moves}) > 1 and rng.random() < args.keep:
                ranked = net2.hint(pos, dice)[:5]
                cands = [{"after": tawla.Position(rm.move.after, r).flip().id(), "move": str(rm.move),
                          "net2": round(float(rm.value), 5)} for rm in ranked]
                race = bool(is_race(pos.to_array()[None, :], r)[0])
                lines.append(json.dumps({"ruleset": r.name, "id": pos.id(), "dice": list(dice),
                                         "class": "race" if race else "contact", "candidates": cands}))
            move = moves[int(rng.integers(len(moves)))] if rng.random() < args.explore else net0.choose(pos, dice)
            pos = pos.play(move)
    order = np.random.default_rng(args.seed + 1).permutation(len(lines))
    out = Path(args.dir) / f"{r.name}-decisions.jsonl"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("\n".join(lines[i] for i in order) + "\n")
    print(f"{len(lines)} decisions from {games} games of {r.name} net0 self-play, seed {args.seed} -> {out}")


def cmd_rollout(args) -> None:
    r = tawla.get_ruleset(args.ruleset)
    src = [json.loads(s) for s in (Path(args.dir) / f"{r.name}-decisions.jsonl").read_text().splitlines() if s.strip()]
    out = Path(args.dir) / f"{r.name}.jsonl"
    done = len(out.read_text().splitlines()) if out.exists() else 0
    stop = len(src) if args.limit is None else min(len(src), done + args.limit)
    print(f"{done} decisions rolled out already; {stop - done} to go", flush=True)
    with open(out, "a") as f:
        for i in range(done, stop):
            d = src[i]
            t0 = time.process_time()
            pos = tawla.Position.from_id(d["id"], r)
            settings = RolloutSettings(trials=args.trials, se=args.se, min_trials=72, level=args.level,
                                       variance_reduction=True, cubeful=False, seed=args.seed + i)
            ro = tawla.rollout(pos, tuple(d["dice"]), settings=settings, plays=[c["move"] for c in d["candidates"]])
            by_move = {str(p.move): p for p in ro.plays}
            for c in d["candidates"]:
                p = by_move[c["move"]]
                c["equity"] = round(float(p.result.equity), 5)
                c["se"] = round(float(p.result.equity_se), 5)
                c["trials"] = int(p.result.trials)
            d["best"] = int(np.argmax([c["equity"] for c in d["candidates"]]))
            d["rollout"] = {"level": args.level, "max_trials": args.trials, "se": args.se, "seed": args.seed + i,
                            "variance_reduction": True}
            d["cpu_s"] = round(time.process_time() - t0, 2)
            d["index"] = i
            f.write(json.dumps(d) + "\n")
            f.flush()
            print(f"{i:5d} {d['class']:<8} {d['id']} {d['dice']} best {d['candidates'][d['best']]['equity']:+.3f} "
                  f"trials {max(c['trials'] for c in d['candidates'])} max se {max(c['se'] for c in d['candidates']):.4f} "
                  f"cpu {d['cpu_s']:.1f}s", flush=True)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    a = sub.add_parser("decisions")
    a.add_argument("--ruleset", required=True)
    a.add_argument("--n", type=int, default=600)
    a.add_argument("--seed", type=int, default=41000)
    a.add_argument("--explore", type=float, default=0.1)
    a.add_argument("--keep", type=float, default=0.2)
    a.add_argument("--dir", default=str(OUT_DIR))
    b = sub.add_parser("rollout")
    b.add_argument("--ruleset", required=True)
    b.add_argument("--trials", type=int, default=648)
    b.add_argument("--se", type=float, default=0.01, help="in the ruleset's points (Tawla 31: up to 15 a game)")
    b.add_argument("--level", default="net1", help="the trials' level (net1, the strongest; net0 ten times faster)")
    b.add_argument("--seed", type=int, default=41)
    b.add_argument("--limit", type=int, default=None)
    b.add_argument("--dir", default=str(OUT_DIR))
    args = ap.parse_args(argv)
    {"decisions": cmd_decisions, "rollout": cmd_rollout}[args.cmd](args)


if __name__ == "__main__":
    main()
