"""``tawla train``: train a neural evaluator by TD(0) self-play, or fit one in supervised rounds
on 1-ply search targets (``--from``), with a progress bar."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from ..evaluation.net import NetEvaluator
from ..training.race import load_race_positions, race_positions, save_race_positions, train_race_net
from ..training.supervised import SuperviseConfig, supervise
from ..training.td import TrainConfig, plot_curve, train
from .arguments import RULESET_HELP, count, positive

__all__ = ["add_parser", "run"]

HELP = "train a neural evaluator by self-play"
DESCRIPTION = (
    "Train the network of a ruleset by TD(0) self-play on the compiled engine: --games games in "
    "chunks, a checkpoint (--output, a .npz weights file) after each chunk, resumed when the file "
    "exists with the same options. Every --eval-every games the network plays --eval-pairs pairs "
    "of duplicate-dice games against the heuristic evaluator at 0 ply; --curve writes that "
    "learning curve as a PNG (needs matplotlib). The same options give the same weights. "
    "With --from NET.npz, supervised rounds instead: --rounds times, --positions positions of the "
    "network's self-play, each valued by a 1-ply (--depth 2: pruned 2-ply) search on the network "
    "(--trials N: by N truncated rollouts of --horizon moves of the network's greedy play), "
    "and the network fitted to "
    "them (--epochs passes, step size --fit-alpha); a checkpoint after each round. "
    "With --race NET.npz, a race network instead (the network of the races beyond the bear-off "
    "databases), by value iteration from the databases: --positions races of NET's self-play "
    "(--explore random plays; kept in --data, read from it when it exists), then --rounds rounds "
    "of 1-ply targets (the children valued by the databases and the last round's network) and "
    "a fit (--epochs passes, the first round 40, step size --fit-alpha, --fit-decay) of a network "
    "of --hidden units (--race-start: from that race network instead)."
)


def add_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Register ``train`` on the ``tawla`` parser's subparsers."""
    p = subparsers.add_parser("train", help=HELP, description=DESCRIPTION)
    p.add_argument("--ruleset", default=None,
                   help=RULESET_HELP.replace("%(default)s", "backgammon, or the ruleset of --from's network"))
    p.add_argument("--games", type=positive, default=100_000, help="self-play games (default: 100000)")
    p.add_argument("--hidden", type=positive, default=80, help="hidden units, 1..512 (default: 80)")
    p.add_argument("--seed", type=int, default=1, help="seeds the weights and the dice (default: 1)")
    p.add_argument("--alpha", type=float, default=0.1, help="step size at the start (default: 0.1)")
    p.add_argument("--alpha-end", type=float, default=0.02, help="step size at the end (default: 0.02)")
    p.add_argument("--chunk", type=positive, default=2000, help="games per checkpoint (default: 2000)")
    p.add_argument("--eval-every", type=int, default=20_000,
                   help="games between strength measurements, 0 for none (default: 20000)")
    p.add_argument("--eval-pairs", type=count, default=500,
                   help="game pairs per measurement, at least 1 for TD training; 0: none after the "
                        "supervised rounds (default: 500)")
    p.add_argument("--max-turns", type=positive, default=10_000, help="turns after which a game is cut (default: 10000)")
    p.add_argument("--race-cutoff", action="store_true",
                   help="backgammon, adi: races valued by the race model, the network trained on contact only")
    p.add_argument("-o", "--output", required=True, help="the weights file (.npz) to write and resume from")
    p.add_argument("--init", default=None, metavar="NET",
                   help="continue TD training from this network (.npz) instead of random weights")
    p.add_argument("--no-resume", action="store_true", help="start again even if --output exists")
    p.add_argument("--curve", default=None, help="write the learning curve to this PNG")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    s = p.add_argument_group("supervised rounds (with --from)")
    s.add_argument("--from", dest="start", default=None, metavar="NET",
                   help="the network (.npz) to start supervised rounds from")
    s.add_argument("--rounds", type=positive, default=3, help="rounds (default: 3)")
    s.add_argument("--positions", type=positive, default=200_000, help="positions a round (default: 200000)")
    s.add_argument("--epochs", type=positive, default=10, help="passes over a round's positions (default: 10)")
    s.add_argument("--fit-alpha", type=float, default=0.1, help="step size of a round's first pass (default: 0.1)")
    s.add_argument("--fit-decay", type=float, default=0.85, help="step size factor per pass (default: 0.85)")
    s.add_argument("--explore", type=float, default=0.1,
                   help="probability of a random move in the self-play that makes the positions (default: 0.1)")
    s.add_argument("--holdout", type=int, default=None,
                   help="positions a round kept out of the fit to measure it (default: a tenth, at most 5000)")
    s.add_argument("--depth", type=int, choices=(1, 2), default=1,
                   help="plies of the search that values the positions (default: 1)")
    s.add_argument("--prune", type=positive, default=2,
                   help="at --depth 2, the children per roll searched deeper, 1..8 (default: 2)")
    s.add_argument("--trials", type=count, default=0,
                   help="value the positions by this many truncated rollouts each instead of a search "
                        "(36 or a multiple stratifies the first roll; default: 0, the search)")
    s.add_argument("--horizon", type=count, default=8,
                   help="with --trials, the moves of a rollout (0: to the game's end or the race model; default: 8)")
    s.add_argument("--threads", type=positive, default=1, help="threads for the targets (default: 1)")
    g = p.add_argument_group("a race network (with --race)")
    g.add_argument("--race", default=None, metavar="NET",
                   help="train a race network; NET: the contact network whose self-play gives the races")
    g.add_argument("--race-start", default=None, metavar="RACE_NET", help="a race network to start from")
    g.add_argument("--data", default=None, metavar="FILE",
                   help="the training positions (.npz): written when made, read instead when it exists")
    p.set_defaults(run=run)
    return p


def run(args: argparse.Namespace) -> int:
    """Train, checkpointing to ``--output``; exit status 0.

    Raises
    ------
    tawla.errors.UnsupportedRuleset
        An unknown ``--ruleset``.
    tawla.errors.ConfigError
        No compiled engine, a checkpoint of other options, no matplotlib for ``--curve``.
    tawla.errors.InvalidArgument
        Options out of range.
    """
    if args.race is not None:
        return _run_race(args)
    if args.start is not None:
        return _run_supervised(args)
    args.ruleset = args.ruleset or "backgammon"
    cfg = TrainConfig(ruleset=args.ruleset, games=args.games, hidden=args.hidden, seed=args.seed,
                      alpha=args.alpha, alpha_end=args.alpha_end, chunk=args.chunk,
                      eval_every=args.eval_every, eval_pairs=args.eval_pairs, max_turns=args.max_turns,
                      race_cutoff=args.race_cutoff)
    cmd = "tawla train " + " ".join(sys.argv[2:]) if sys.argv[1:2] == ["train"] else None
    if cmd:
        cfg.extra["command"] = cmd
    columns = (TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
               TextColumn("{task.fields[rate]} games/s  {task.fields[last]}"), TimeRemainingColumn())
    with Progress(*columns, disable=args.no_progress, transient=False) as bar:
        task = bar.add_task(f"train {args.ruleset}", total=args.games, rate="", last="")

        def progress(done: int, total: int, info: dict) -> None:
            last = info["curve"][-1] if info["curve"] else None
            text = f"vs heuristic {last[1]:+.3f} ± {last[2]:.3f} at {last[0]}" if last else ""
            bar.update(task, completed=done, rate=f"{info['games_per_s']:.0f}", last=text)

        start = NetEvaluator.load(args.init) if args.init else None
        net = train(cfg, args.output, resume=not args.no_resume, progress=progress, start=start)
    curve = net.meta.get("curve") or []
    if curve:
        print(f"{args.output}: {net.meta['games']} games; vs the heuristic 0-ply: "
              f"{curve[-1][1]:+.3f} ± {curve[-1][2]:.3f} points a game", file=sys.stderr)
    if args.curve:
        plot_curve(net, args.curve)
    return 0


def _run_supervised(args: argparse.Namespace) -> int:
    """Supervised rounds from ``--from``, checkpointing to ``--output``; exit status 0."""
    start = NetEvaluator.load(args.start)
    args.ruleset = args.ruleset or start.ruleset.name
    cfg = SuperviseConfig(ruleset=args.ruleset, rounds=args.rounds, positions=args.positions,
                          explore=args.explore, epochs=args.epochs, alpha=args.fit_alpha,
                          alpha_decay=args.fit_decay,
                          holdout=min(5000, args.positions // 10) if args.holdout is None else args.holdout, seed=args.seed, max_turns=args.max_turns,
                          race_cutoff=True, eval_pairs=args.eval_pairs,
                          depth=args.depth, prune=args.prune, trials=args.trials, horizon=args.horizon)
    cmd = "tawla train " + " ".join(sys.argv[2:]) if sys.argv[1:2] == ["train"] else None
    if cmd:
        cfg.extra["command"] = cmd
    columns = (TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
               TextColumn("{task.fields[last]}"), TimeRemainingColumn())
    with Progress(*columns, disable=args.no_progress, transient=False) as bar:
        task = bar.add_task(f"supervise {args.ruleset}", total=args.rounds, last="")

        def progress(done: int, total: int, rec: dict) -> None:
            vs = rec.get("vs_heuristic")
            text = f"held-out error {rec['mse_before']} -> {rec['mse_after']}"
            if vs:
                text += f"; vs heuristic {vs[0]:+.3f} ± {vs[1]:.3f}"
            bar.update(task, completed=done, last=text)

        net = supervise(cfg, start, args.output, resume=not args.no_resume, threads=args.threads,
                        progress=progress)
    last = net.meta["supervised"]["rounds"][-1] if net.meta["supervised"]["rounds"] else None
    if last:
        print(f"{args.output}: {len(net.meta['supervised']['rounds'])} rounds; held-out error "
              f"{last['mse_before']} -> {last['mse_after']}", file=sys.stderr)
    return 0


def _run_race(args: argparse.Namespace) -> int:
    """A race network from ``--race`` by value iteration, written to ``--output``."""
    contact = NetEvaluator.load(args.race)
    start = NetEvaluator.load(args.race_start) if args.race_start else None
    cmd = "tawla train " + " ".join(sys.argv[2:]) if sys.argv[1:2] == ["train"] else ""
    if args.data is not None and Path(args.data).exists():
        rows, data_meta = load_race_positions(args.data)
    else:
        rows = race_positions(contact, args.positions, args.seed, explore=args.explore)
        data_meta = {"ruleset": contact.ruleset.name, "positions": int(len(rows)), "seed": args.seed,
                     "explore": args.explore, "command": cmd}
        if args.data is not None:
            save_race_positions(args.data, rows, data_meta)
    holdout = min(3000, len(rows) // 10) if args.holdout is None else args.holdout
    columns = (TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
               TextColumn("{task.fields[last]}"), TimeRemainingColumn())
    with Progress(*columns, disable=args.no_progress, transient=False) as bar:
        task = bar.add_task(f"race network {contact.ruleset.name}", total=args.rounds, last="")

        def progress(done: int, total: int, rec: dict) -> None:
            bar.update(task, completed=done, last=f"held-out error {rec['mse_before']} -> {rec['mse_after']}")

        net = train_race_net(contact, rows, rounds=args.rounds, hidden=args.hidden, epochs=args.epochs,
                             alpha=args.fit_alpha, decay=args.fit_decay, holdout=holdout, seed=args.seed,
                             threads=args.threads, start=start, progress=progress)
    net.meta.update({"command": cmd, "data": {k: v for k, v in data_meta.items() if k != "command"}})
    net.save(args.output)
    last = net.meta["rounds"][-1]
    print(f"{args.output}: race network of {net.hidden} hidden units, {len(net.meta['rounds'])} rounds on "
          f"{len(rows)} positions; held-out error {last['mse_before']} -> {last['mse_after']}", file=sys.stderr)
    return 0
