"""Races beyond the bear-off databases: tawla's race model and race networks against GNU
Backgammon's rollouts and choices. Not run in CI.

Usage::

    python bench/bench_race.py truth [--positions 3000] [--trials 72] [--seed 99]
    python bench/bench_race.py score [--net FILE ...]
    python bench/bench_race.py duel [--ruleset backgammon] [--net FILE] [--pairs 2000] [--seed 98]

``truth``: ``--positions`` races beyond the databases (a checker of either side outside its
home board, no contact) from tawla net0's self-play with one play in seven random
(:func:`tawla.training.race.race_positions`, seed ``--seed``; the race networks' training
positions use other seeds), each rolled out ``--trials`` times by GNU Backgammon's 0-ply
player (``bench/make_benchmark.py``'s variance-reduced trial), and GNU Backgammon 2-ply's
choice for a seeded roll in each of the first half where its two best plays differ by more
than 0.02; written to ``bench/data/race/backgammon-race-truth.npz``.

``score``: for the race model (net0's evaluator with no race network), the shipped race
network and each ``--net`` file, and GNU Backgammon 0-ply beside them:

- the mean absolute error of the cubeless equity against the rollouts (95% interval) and
  its bias;
- on the decisions, the share of choices equal to GNU Backgammon 2-ply's and the mean
  equity (millipoints, by GNU Backgammon 2-ply) given up.

``duel``: net0 with the race network (``--net``, else the shipped one) of ``--ruleset``
(backgammon or adi) against net0 with the race model, both at 0 ply, from ``--pairs`` races beyond the databases (seed ``--seed``, apart
from the truth's and the training's), each played twice on the same dice with the sides'
players swapped: the points a game the race network's side wins, with the 95% interval of the
pairs' means.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import oracles  # noqa: E402
from bench_strength import after_key, apply_gnubg  # noqa: E402
from make_benchmark import money, trial  # noqa: E402

import tawla  # noqa: E402
from tawla import native  # noqa: E402
from tawla.evaluation import evaluate_rows  # noqa: E402
from tawla.evaluation import net as net_module  # noqa: E402
from tawla.evaluation.net import NetEvaluator, shipped_net, shipped_race_net  # noqa: E402
from tawla.rules import OPPOSITE  # noqa: E402
from tawla.training.race import race_positions  # noqa: E402

BG = tawla.get_ruleset("backgammon")
TRUTH = HERE / "data" / "race" / "backgammon-race-truth.npz"


def cmd_truth(args) -> None:
    import gnubg_nn as g
    rows = race_positions(shipped_net(BG), args.positions, seed=args.seed)
    t0 = time.process_time()
    eq, se = np.zeros(len(rows)), np.zeros(len(rows))
    for i, x in enumerate(rows):
        b = oracles.gnubg_board(bytes(x), OPPOSITE)
        v = [trial(g, b, args.seed, i, k) for k in range(args.trials)]
        eq[i], se[i] = np.mean(v), np.std(v, ddof=1) / math.sqrt(len(v))
    rng = np.random.default_rng(args.seed)
    d_rows, d_dice, d_keys, d_eqs = [], [], [], []
    for x in rows[:len(rows) // 2]:
        pos = tawla.Position(bytes(x), BG)
        dice = (int(rng.integers(1, 7)), int(rng.integers(1, 7)))
        if len({m.after for m in pos.legal_moves(dice)}) < 2:
            continue
        b = oracles.gnubg_board(bytes(x), OPPOSITE)
        plays = {}
        for k, mv, _p, _e in g.best_move(b, *dice, n=0, b=1, list=1)[2][:8]:
            flat = [v for i in range(0, len(mv), 2) for v in (mv[i] - 1, mv[i + 1] - 1)]
            plays[after_key(apply_gnubg(b, flat))] = -money(g.probabilities([list(t) for t in g.board_from_position_key(k)], 2))
        top = sorted(plays.values(), reverse=True)
        if len(top) < 2 or top[0] - top[1] <= 0.02:
            continue
        keys = sorted(plays, key=plays.get, reverse=True)
        d_rows.append(x)
        d_dice.append(dice)
        d_keys.append(np.frombuffer(b"".join(keys), np.uint8).reshape(-1, 52))
        d_eqs.append(np.array([plays[k] for k in keys]))
    TRUTH.parent.mkdir(parents=True, exist_ok=True)
    width = max(len(k) for k in d_keys)
    keys = np.zeros((len(d_keys), width, 52), np.uint8)
    eqs = np.full((len(d_keys), width), np.nan)
    for i, (k, e) in enumerate(zip(d_keys, d_eqs)):
        keys[i, :len(k)], eqs[i, :len(e)] = k, e
    np.savez_compressed(TRUTH, rows=rows, equity=eq, se=se, d_rows=np.array(d_rows), d_dice=np.array(d_dice, np.uint8),
                        d_keys=keys, d_equity=eqs, seed=args.seed, trials=args.trials)
    print(f"{len(rows)} races rolled out ({args.trials} trials, mean standard error {se.mean():.4f}, "
          f"{time.process_time() - t0:.0f} CPU s); {len(d_rows)} decisions -> {TRUTH}")


def interval(x) -> str:
    x = np.asarray(x, dtype=np.float64)
    return f"{x.mean():.4f} ± {1.96 * x.std(ddof=1) / math.sqrt(len(x)):.4f}"


def cmd_score(args) -> None:
    import gnubg_nn as g
    z = np.load(TRUTH)
    rows, truth = z["rows"], z["equity"]
    contact = shipped_net(BG)
    shipped = shipped_race_net(BG)
    nets = [("race model", None)] + ([("shipped race net", shipped)] if shipped is not None else [])
    nets += [(Path(f).name, NetEvaluator.load(f)) for f in args.net]
    ref = np.array([money(g.probabilities(oracles.gnubg_board(bytes(x), OPPOSITE), 0)) for x in rows])
    print(f"{len(rows)} races beyond the databases, GNU Backgammon rollouts of {int(z['trials'])} trials (mean "
          f"standard error {z['se'].mean():.4f}); {len(z['d_rows'])} decisions where gnubg 2-ply's two best differ "
          f"by > 0.02")
    print(f"{'evaluator':<22} {'|equity error| (95%)':<22} {'bias':>8}   {'= gnubg 2-ply':<16} {'loss (mp)':>9}")
    d = ref - truth
    print(f"{'gnubg 0-ply':<22} {interval(np.abs(d)):<22} {d.mean():+8.4f}")
    try:
        for name, race in nets:
            net_module._SHIPPED_RACE[BG.name] = race
            d = evaluate_rows(rows, BG, contact=contact)[:, 0] - truth
            same, loss = 0, []
            for x, dice, keys, eqs in zip(z["d_rows"], z["d_dice"], z["d_keys"], z["d_equity"]):
                pos = tawla.Position(bytes(x), BG)
                moves = pos.legal_moves(tuple(int(v) for v in dice))
                kids = np.frombuffer(b"".join(native.flip_row(m.after, BG) for m in moves), np.uint8).reshape(-1, 56)
                pick = moves[int(np.argmax(-evaluate_rows(kids, BG, contact=contact)[:, 0]))].after[:52]
                known = {bytes(k): e for k, e in zip(keys, eqs) if not np.isnan(e)}
                same += pick == bytes(keys[0])
                loss.append(1000 * (eqs[0] - known.get(pick, np.nanmin(eqs))))
            n = len(z["d_rows"])
            print(f"{name:<22} {interval(np.abs(d)):<22} {d.mean():+8.4f}   {same}/{n} = {100 * same / n:4.1f}%    "
                  f"{np.mean(loss):9.1f}", flush=True)
    finally:
        net_module._SHIPPED_RACE.pop(BG.name, None)


def cmd_duel(args) -> None:
    r = tawla.get_ruleset(args.ruleset)
    contact = shipped_net(r)
    race = NetEvaluator.load(args.net) if args.net else shipped_race_net(r)
    if race is None:
        sys.exit("no race network: pass --net FILE")
    starts = race_positions(contact, args.pairs, seed=args.seed)

    def play(row: bytes, dice, net) -> bytes:
        pos = tawla.Position(row, r)
        moves = pos.legal_moves(dice)
        if not moves:
            return native.flip_row(row, r)
        net_module._SHIPPED_RACE[r.name] = net
        kids = np.frombuffer(b"".join(native.flip_row(m.after, r) for m in moves), np.uint8).reshape(-1, 56)
        return bytes(kids[int(np.argmax(-evaluate_rows(kids, r, contact=contact)[:, 0]))])

    t0 = time.process_time()
    pair_means = []
    try:
        for i, start in enumerate(starts):
            rng_seed = np.random.SeedSequence([args.seed, i])
            total = 0.0
            for race_first in (True, False):
                rng = np.random.default_rng(rng_seed)
                row, ply = bytes(start), 0
                while True:
                    pos = tawla.Position(row, r)
                    res = pos.result()
                    if res is not None:
                        mover_is_race = (ply % 2 == 0) == race_first
                        for_mover = res.points if res.winner == 0 else -res.points
                        total += for_mover if mover_is_race else -for_mover
                        break
                    dice = (int(rng.integers(1, 7)), int(rng.integers(1, 7)))
                    mover_is_race = (ply % 2 == 0) == race_first
                    row = play(row, dice, race if mover_is_race else None)
                    ply += 1
            pair_means.append(total / 2)
    finally:
        net_module._SHIPPED_RACE.pop(r.name, None)
    x = np.array(pair_means)
    print(f"{r.name}: race network vs race model, net0 both, {len(x)} pairs of races from seed {args.seed}: "
          f"{x.mean():+.4f} ± {1.96 * x.std(ddof=1) / math.sqrt(len(x)):.4f} points a game "
          f"({time.process_time() - t0:.0f} CPU s)")


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    a = sub.add_parser("truth")
    a.add_argument("--positions", type=int, default=3000)
    a.add_argument("--trials", type=int, default=72)
    a.add_argument("--seed", type=int, default=99)
    b = sub.add_parser("score")
    b.add_argument("--net", nargs="*", default=[])
    c = sub.add_parser("duel")
    c.add_argument("--ruleset", default="backgammon")
    c.add_argument("--net", default=None)
    c.add_argument("--pairs", type=int, default=2000)
    c.add_argument("--seed", type=int, default=98)
    args = ap.parse_args(argv)
    {"truth": cmd_truth, "score": cmd_score, "duel": cmd_duel}[args.cmd](args)


if __name__ == "__main__":
    main()
