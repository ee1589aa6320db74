"""Agreement of tawla's evaluators and levels with GNU Backgammon's (``gnubg_nn``). Not run in CI.

Usage::

    python bench/bench_agreement.py equity [--net FILE] [--matches DIR] [--worst 10]
    python bench/bench_agreement.py agree2 [--net FILE] [--decisions 1500] [--seed 50000] [--levels net0,net1,net2]

``equity``: every position before a roll in the backgammon games of the match records under
``--matches`` (read and replayed by :func:`tawla.analysis.files.analyze_paths`, the reader of
``tawla analyze``), deduplicated, valued by tawla's 0-ply evaluators and by GNU Backgammon
0-ply; the mean absolute difference of the cubeless money equities with its 95% interval, by
GNU Backgammon's position class (contact: contact and crashed; race: race and bear-off), the
median and the worst positions. ``net0`` is the evaluator of ``tawla analyze``
(:class:`tawla.analysis.evaluators.EngineEvaluator`: exact game ends, the race model, the
network in contact); ``ply0`` is the same routing with the heuristic contact model;
``pip-and-blot`` is :class:`~tawla.analysis.evaluators.HeuristicEvaluator`.

GNU Backgammon's equity: ``gnubg_nn.probabilities(board, 0)`` values the board for the side
on roll (``board[1]``, :func:`oracles.gnubg_board` (``bench/oracles.py``)) as (win, win gammon, win backgammon,
lose gammon, lose backgammon), the gammon columns including the backgammons, so the cubeless
money equity is ``2 win - 1 + wg - lg + wbg - lbg``, tawla's equity column for the same
probabilities (:func:`check_conversion` verifies both on known positions before each run).

``agree2``: the decisions of ``bench_nets.py agree`` (GNU Backgammon 0-ply self-play, seeded
dice, at least two distinct legal results); the share on which each :class:`tawla.Bot` level
plays GNU Backgammon 2-ply's choice (``gnubg_nn.best_move(board, d1, d2, n=2)``, ``n`` the
plies) and GNU Backgammon 0-ply's, with 95% intervals, and GNU Backgammon 0-ply's own
agreement with its 2-ply. GNU Backgammon 2-ply takes about 0.16 s of CPU a decision and net2
about 0.04 s: 1,500 decisions (the default) take about 5 CPU minutes, 8 minutes of wall time
on a loaded 2-core machine.

``--net FILE`` replaces the shipped network (``tawla train``'s output) in every net level.
The last line of each command is a one-line summary.
"""

from __future__ import annotations

import argparse
import hashlib
import math
import sys
import time
from pathlib import Path

import numpy as np

import tawla
import oracles
from tawla.analysis.evaluators import EngineEvaluator, HeuristicEvaluator
from tawla.analysis.files import analyze_paths, collect_files
from tawla.evaluation import evaluate_rows
from tawla.evaluation.net import NetEvaluator, shipped_net
from tawla.rules import OPPOSITE

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_nets import gnubg_decisions  # noqa: E402
from bench_strength import after_key, apply_gnubg  # noqa: E402

BG = tawla.get_ruleset("backgammon")
MATCHES = "/work/shared/data/matches"


def load_net(path: str | None) -> tuple[NetEvaluator, str]:
    """The network of ``--net`` (else the shipped one) and a label: its file and the start of its sha256."""
    if path:
        net, name = NetEvaluator.load(path), str(path)
    else:
        net, name = shipped_net(BG), "shipped"
    if net is None:
        raise SystemExit("no backgammon network is shipped: pass --net FILE")
    return net, f"{name} (sha256 {hashlib.sha256(net.to_bytes()).hexdigest()[:12]})"


def board(row: bytes) -> list:
    return oracles.gnubg_board(bytes(row), OPPOSITE)


def money_equity(p) -> float:
    """Cubeless money equity of gnubg's (win, wg, wbg, lg, lbg), gammons including backgammons."""
    w, wg, wbg, lg, lbg = p
    return 2.0 * w - 1.0 + wg - lg + wbg - lbg


def gnubg_equity(rows: np.ndarray) -> np.ndarray:
    import gnubg_nn as g
    return np.array([money_equity(g.probabilities(board(r.tobytes()), 0)) for r in rows])


def check_conversion() -> None:
    """Perspective and columns on positions whose value is known: the opening (near 0 for the
    side on roll), a won and a lost bear-off, a backgammon, and tawla's equity rebuilt from its
    own probabilities by the same formula."""
    import gnubg_nn as g

    def pos(me, opp):  # opp in its own numbering
        return tawla.Position.from_points(BG, me, {25 - k: v for k, v in opp.items()})

    cases = [(BG.initial_position(), -0.1, 0.15),
             (pos({1: 2}, {1: 1, 2: 1}), 0.99, 1.01),  # borne off with any roll: a single win
             (pos({6: 15}, {1: 1}), -2.0, -1.0),  # loses; a gammon unless a six comes
             (pos({1: 1}, {23: 1, 6: 14}), 2.99, 3.01)]  # wins with the opponent in its home: backgammon
    for p, lo, hi in cases:
        e = money_equity(g.probabilities(board(p.row), 0))
        if not lo <= e <= hi:
            raise SystemExit(f"gnubg equity {e:+.3f} of {p.gnubg_id()} outside [{lo}, {hi}]: conversion wrong")
    rows = np.frombuffer(b"".join(p.row for p, _, _ in cases), np.uint8).reshape(len(cases), -1).copy()
    t = evaluate_rows(rows, BG)
    assert np.allclose(t[:, 0], [money_equity(x) for x in t[:, 1:]], atol=1e-6), "tawla's columns changed"


def archive_rows(matches: str) -> tuple[np.ndarray, dict]:
    """The distinct positions before a roll in the backgammon games of ``matches``, and counts."""
    reports = analyze_paths(collect_files([matches]), evaluator=None)
    seen: dict[str, None] = {}
    info = {"files": len(reports), "unread": 0, "games": 0, "positions": 0}
    for rep in reports:
        if rep.ruleset != BG.name:
            info["unread"] += 1
            continue
        info["games"] += len(rep.games)
        for game in rep.games:
            for i in range(len(game.decisions)):
                tid = game.decisions.tawla_id(i)
                if tid is not None:
                    info["positions"] += 1
                    seen.setdefault(tid)
    rows = np.frombuffer(b"".join(tawla.Position.from_id(t, BG).row for t in seen), np.uint8)
    return rows.reshape(len(seen), -1).copy(), info


def interval(x: np.ndarray) -> str:
    if len(x) == 0:
        return "-"
    h = 1.96 * x.std(ddof=1) / math.sqrt(len(x)) if len(x) > 1 else float("nan")
    return f"{x.mean():.4f} ± {h:.4f}"


def cmd_equity(args) -> None:
    import gnubg_nn as g
    check_conversion()
    net, label = load_net(args.net)
    t0 = time.process_time()
    rows, info = archive_rows(args.matches)
    print(f"{info['files']} record files ({info['unread']} not read as backgammon), {info['games']} games, "
          f"{info['positions']} positions before a roll, {len(rows)} distinct; read in "
          f"{time.process_time() - t0:.1f} s CPU", flush=True)
    ref = gnubg_equity(rows)
    race = np.array([g.classify(board(r.tobytes())) <= g.c_race for r in rows])
    values = {"net0": evaluate_rows(rows, BG, contact=net)[:, 0],
              "ply0": evaluate_rows(rows, BG)[:, 0],
              "pip-and-blot": HeuristicEvaluator()(rows, BG)}
    if args.net is None:
        assert np.array_equal(values["net0"], EngineEvaluator()(rows, BG)), "not tawla analyze's evaluator"
    print(f"network: {label}; gnubg_nn 0-ply, cubeless money equity of the side on roll")
    print(f"{'evaluator':<14} {'mean |diff| (95%)':<20} {'contact':<20} {'race':<20} {'median':>7} {'bias':>8}")
    for name, v in values.items():
        d = v - ref
        a = np.abs(d)
        print(f"{name:<14} {interval(a):<20} {interval(a[~race]):<20} {interval(a[race]):<20} "
              f"{np.median(a):7.4f} {d.mean():+8.4f}")
    print(f"positions: {int((~race).sum())} contact, {int(race.sum())} race (gnubg_nn.classify)")
    d = values["net0"] - ref
    print(f"the {args.worst} largest |net0 - gnubg| (gnubg Position ID, class, gnubg, net0):")
    for i in np.argsort(-np.abs(d), kind="stable")[:args.worst]:
        p = tawla.Position(rows[i].tobytes(), BG)
        print(f"  {p.gnubg_id()}  {'race' if race[i] else 'contact':<7} {ref[i]:+.3f} {values['net0'][i]:+.3f} "
              f"({d[i]:+.3f})")
    a = np.abs(d)
    h = 1.96 * a.std(ddof=1) / math.sqrt(len(a))
    print(f"SUMMARY equity [{label}]: net0 mean |Δ| vs gnubg 0-ply {a.mean():.4f} ± {h:.4f} over {len(a)} "
          f"archive positions (contact {a[~race].mean():.4f}, race {a[race].mean():.4f}, median "
          f"{np.median(a):.4f}); ply0 {np.abs(values['ply0'] - ref).mean():.4f}; target ≤ 0.04 "
          f"{'met' if a.mean() + h <= 0.04 else 'not met' if a.mean() - h > 0.04 else 'not separated'}",
          flush=True)


def share(same: int, n: int) -> str:
    p = same / n
    return f"{same}/{n} = {100 * p:.1f}% ± {100 * 1.96 * math.sqrt(p * (1 - p) / n):.1f}"


def cmd_agree2(args) -> None:
    import gnubg_nn as g
    net, label = load_net(args.net)
    decisions = gnubg_decisions(args.decisions, args.seed)
    t = time.process_time()
    two = []
    for pos, dice, moves, _after0 in decisions:
        best = g.best_move(board(pos.row), *dice, n=2)
        key = after_key(apply_gnubg(board(pos.row), [v for f, to in best for v in (f - 1, to - 1)]))
        two.append(next(m.after for m in moves if m.after[:52] == key))
    print(f"{len(decisions)} unforced decisions of GNU Backgammon 0-ply self-play (seed {args.seed}); "
          f"gnubg 2-ply: {1e3 * (time.process_time() - t) / len(decisions):.0f} ms CPU a decision", flush=True)
    same0 = sum(a == d[3] for a, d in zip(two, decisions))
    print(f"{'gnubg 0-ply':<12} = gnubg 2-ply {share(same0, len(decisions))}", flush=True)
    results = {}
    for level in args.levels.split(","):
        bot = tawla.Bot(BG, level)
        if level.startswith("net"):
            bot.contact = net
        t = time.process_time()
        chosen = [bot.choose(pos, dice).after for pos, dice, _m, _a in decisions]
        ms = 1e3 * (time.process_time() - t) / len(decisions)
        s2 = sum(c == a for c, a in zip(chosen, two))
        s0 = sum(c == d[3] for c, d in zip(chosen, decisions))
        results[level] = (s2, s0)
        print(f"{level:<12} = gnubg 2-ply {share(s2, len(decisions))};  = gnubg 0-ply "
              f"{share(s0, len(decisions))};  {ms:.1f} ms CPU a decision", flush=True)
    n = len(decisions)
    parts = "; ".join(f"{lv} {100 * s2 / n:.1f}% (0-ply {100 * s0 / n:.1f}%)" for lv, (s2, s0) in results.items())
    print(f"SUMMARY agree2 [{label}]: = gnubg 2-ply on {n} decisions (seed {args.seed}): {parts}; "
          f"gnubg 0-ply itself {100 * same0 / n:.1f}%", flush=True)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("what", choices=["equity", "agree2"])
    ap.add_argument("--net", default=None, help="network file (default: the shipped one)")
    ap.add_argument("--matches", default=MATCHES, help="directory of match records")
    ap.add_argument("--worst", type=int, default=10)
    ap.add_argument("--decisions", type=int, default=1500)
    ap.add_argument("--seed", type=int, default=50000)
    ap.add_argument("--levels", default="net0,net1,net2")
    args = ap.parse_args(argv)
    {"equity": cmd_equity, "agree2": cmd_agree2}[args.what](args)


if __name__ == "__main__":
    main()
