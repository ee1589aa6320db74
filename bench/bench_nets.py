"""Strength and agreement of the trained networks (seeded, duplicate dice, 95% intervals). Not run in CI.

Usage::

    python bench/bench_nets.py pubeval  [--net FILE] [--pairs 5000]     # backgammon net0 and ply0 vs pubeval
    python bench/bench_nets.py heuristic --ruleset R [--net FILE] [--pairs 1000]  # net0 vs the heuristic ply0
    python bench/bench_nets.py versus --ruleset R --net FILE [--against FILE]     # two networks at 0 ply
    python bench/bench_nets.py agree    [--net FILE] [--decisions 1500]  # best play = GNU Backgammon 0-ply's?
    python bench/bench_nets.py speed    [--net FILE]                     # evaluations a second, 0-ply decisions

``pubeval``, ``heuristic`` and ``versus`` (a network against another) play 0-ply players against each other with
:func:`tawla.training.duel` (all games at once, one expand a ply); pubeval's choice is the
child whose board it scores highest (``gnubg_nn.pub_eval_score``, checked to equal
``gnubg_nn.pub_best_move`` on every decision of a sample). ``agree``: decisions met in GNU
Backgammon 0-ply self-play (``gnubg_nn.best_move``, seeded dice), those with at least two
distinct legal results; the share where tawla's 0-ply choice (heuristic, then the network)
is GNU Backgammon's, with its 95% interval. Without ``--net`` the shipped network is used.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
from pathlib import Path

if sys.argv[1:2] == ["speed"]:
    # per-core figures: one BLAS thread. Otherwise the thread OpenBLAS starts for the race
    # tables' matrix products keeps spinning after them, and process time counts it.
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402

import tawla
import oracles
from tawla import native
from tawla.evaluation import evaluate_rows
from tawla.evaluation.net import NetEvaluator, shipped_net
from tawla.rules import OPPOSITE
from tawla.training import duel, evaluator_player

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_strength import after_key, apply_gnubg, to_gnubg  # noqa: E402

BG = tawla.get_ruleset("backgammon")


def load(args, ruleset, option: str = "net") -> NetEvaluator:
    """The network of ``--net`` (or of ``option``, e.g. ``against``), else the shipped one."""
    path = getattr(args, option)
    net = NetEvaluator.load(path) if path else shipped_net(ruleset)
    if net is None:
        raise SystemExit(f"no network for {tawla.get_ruleset(ruleset).name}: pass --{option} FILE")
    return net


def pubeval_player(rows: np.ndarray) -> np.ndarray:
    """Minus pubeval's score of the board after the move (``rows``: children, next mover's seat)."""
    import gnubg_nn as g
    return np.array([-g.pub_eval_score(oracles.gnubg_board(bytes(x), OPPOSITE)) for x in rows])


def cmd_pubeval(args) -> None:
    net = load(args, BG)
    for name, player in (("net0", evaluator_player(BG, net)), ("ply0", evaluator_player(BG))):
        t = time.process_time()
        res = duel(BG, player, lambda rows: pubeval_player(rows), args.pairs, seed=args.seed)
        print(f"backgammon {name} vs pubeval: {res}; {time.process_time() - t:.0f} s CPU", flush=True)


def cmd_heuristic(args) -> None:
    r = tawla.get_ruleset(args.ruleset)
    net = load(args, r)
    res = duel(r, evaluator_player(r, net), evaluator_player(r), args.pairs, seed=args.seed)
    print(f"{r.name} net0 vs heuristic ply0: {res}", flush=True)


def cmd_versus(args) -> None:
    r = tawla.get_ruleset(args.ruleset)
    res = duel(r, evaluator_player(r, load(args, r)), evaluator_player(r, load(args, r, "against")),
               args.pairs, seed=args.seed)
    print(f"{r.name} net0 of {args.net or 'the shipped network'} vs net0 of "
          f"{args.against or 'the shipped network'}: {res}", flush=True)


def gnubg_decisions(n: int, seed: int):
    """``n`` unforced (position, dice, gnubg's resulting row) from GNU Backgammon 0-ply self-play."""
    import gnubg_nn as g
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < n:
        pos = BG.initial_position()
        while pos.result() is None and len(out) < n:
            dice = (int(rng.integers(1, 7)), int(rng.integers(1, 7)))
            moves = pos.legal_moves(dice)
            if not moves:
                pos = pos.flip()
                continue
            best = g.best_move(to_gnubg(pos.row), *dice)
            flat = [v for f, t in best for v in (f - 1, t - 1)]
            key = after_key(apply_gnubg(to_gnubg(pos.row), flat))
            chosen = next(m for m in moves if m.after[:52] == key)
            if len({m.after for m in moves}) > 1:
                out.append((pos, dice, moves, chosen.after))
            pos = pos.play(chosen)
    return out


def cmd_agree(args) -> None:
    net = load(args, BG)
    decisions = gnubg_decisions(args.decisions, args.seed)
    for name, contact in (("ply0 (heuristic)", None), ("net0", net)):
        same = 0
        for pos, dice, moves, gnubg_after in decisions:
            children = np.frombuffer(b"".join(native.flip_row(m.after, BG) for m in moves), np.uint8).reshape(-1, 56)
            v = -evaluate_rows(children, BG, checked=False, contact=contact)[:, 0]
            same += moves[int(np.argmax(v))].after == gnubg_after
        p = same / len(decisions)
        h = 1.96 * math.sqrt(p * (1 - p) / len(decisions))
        print(f"{name}: best play = GNU Backgammon 0-ply's on {same}/{len(decisions)} unforced decisions "
              f"= {100 * p:.1f}% ± {100 * h:.1f}", flush=True)


def cmd_speed(args) -> None:
    net = load(args, BG)
    rows = tawla.batch.random_positions(BG, 4000, seed=3)
    children, parent, _roll = tawla.expand_all_rolls(rows[:200], ruleset=BG)
    params = native.backend.params(BG)
    fast = native.backend.compiled("_net")
    # the best of several runs: on a shared machine the slower ones measure the other jobs
    for label, x in (("random positions", rows), ("children of 200 positions x 21 rolls", children)):
        x = np.ascontiguousarray(x)
        reps = max(1, 80_000 // len(x))
        dt = math.inf
        for _ in range(5):
            t = time.process_time()
            for _ in range(reps):
                fast.net_outputs(x, params, net.w1, net.b1, net.w2, net.b2, False)
            dt = min(dt, (time.process_time() - t) / (reps * len(x)))
        print(f"net outputs ({net.hidden} hidden, sparse), {label}: {1e6 * dt:.3f} µs each = "
              f"{1 / dt:,.0f} a CPU second")
    import gnubg_nn as g
    boards = [to_gnubg(bytes(x)) for x in rows[:2000]]
    t = time.process_time()
    for b in boards:
        g.probabilities(b, 0)
    dt = (time.process_time() - t) / len(boards)
    print(f"gnubg_nn.probabilities 0-ply (through Python): {1e6 * dt:.2f} µs each")
    if shipped_net(BG) is not None:
        positions = [p for p in (tawla.Position(bytes(x), BG) for x in rows[:500]) if p.result() is None]
        n_moves = np.mean([len(p.legal_moves((3, 1))) for p in positions])
        search = tawla.Bot(BG, "net0")
        search._net0 = None  # the legal moves as objects, valued by evaluate_rows
        for name, bot in (("", tawla.Bot(BG, "net0")), (" through the search (moves as objects)", search)):
            bot.choose(positions[0], (3, 1))  # the race tables loaded before the clock starts
            best = math.inf
            for _ in range(7):
                t = time.process_time()
                for p in positions:
                    bot.choose(p, (3, 1))
                best = min(best, (time.process_time() - t) / len(positions))
            print(f"Bot net0 decision (3-1, {n_moves:.1f} moves on average){name}: {1e6 * best:.1f} µs")
    x = np.ascontiguousarray(children)
    t = time.process_time()
    dense = fast.net_inputs(x, params, False)  # float32[N, 274]
    t_in = time.process_time() - t
    h = 1.0 / (1.0 + np.exp(-(dense @ net.w1 + net.b1)))
    _ = 1.0 / (1.0 + np.exp(-(h.astype(np.float32) @ net.w2.T + net.b2)))
    dt = (time.process_time() - t) / len(x)
    print(f"net outputs, dense (the compiled inputs as float32[N, {dense.shape[1]}], then numpy matrix products), "
          f"children: {1e6 * dt:.3f} µs each = {1 / dt:,.0f} a CPU second (the inputs {1e6 * t_in / len(x):.3f} µs)")


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("what", choices=["pubeval", "heuristic", "versus", "agree", "speed"])
    ap.add_argument("--net", default=None)
    ap.add_argument("--against", default=None, help="versus: the other network (default: the shipped one)")
    ap.add_argument("--ruleset", default="backgammon")
    ap.add_argument("--pairs", type=int, default=5000)
    ap.add_argument("--decisions", type=int, default=1500)
    ap.add_argument("--seed", type=int, default=50000)
    args = ap.parse_args(argv)
    {"pubeval": cmd_pubeval, "heuristic": cmd_heuristic, "versus": cmd_versus, "agree": cmd_agree, "speed": cmd_speed}[args.what](args)


if __name__ == "__main__":
    main()
