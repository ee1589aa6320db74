"""``tawla rollout ID [ID ...]``: positions (or a decision's plays, ``--dice``) rolled out."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

from ..errors import ConfigError, FormatError, TawlaError
from ..met.cube import relative_owner
from ..rollout import Rollout, RolloutSettings, plan_rollout
from ..rollout.text import format_text
from ..rollout.run import RolloutRun
from .arguments import (POSITION_HELP, POSITION_RULESET_HELP, add_match_options, add_rollout_options, load_position, match_state,
                        parse_dice, rollout_settings)

__all__ = ["add_parser", "run", "EXIT_INTERRUPTED"]

EXIT_INTERRUPTED = 130

HELP = "roll out positions, or every play of a roll, to settle their values"
DESCRIPTION = (
    "Play each position out --trials times (both sides by --level's 0-ply choice, the side on roll "
    "to roll) and report the mean result with standard errors: the cubeless probabilities (win, "
    "win gammon, win backgammon, lose gammon, lose backgammon; tawla31: a 15-point win or loss in "
    "the gammon columns), the cubeless equity in the ruleset's points and, in backgammon, the "
    "cubeful equity of money play (cube decisions made in every trial by Janowski's model, per unit "
    "of the cube; none before the first roll). With --dice, every legal play of that roll (or the "
    "--top best at 0 ply) is rolled out on the same dice and the plays are ranked. Variance reduction "
    "(luck adjustment at 0 ply), stratified first two rolls and the bear-off databases are on unless "
    "turned off. In a match (--length and --score, or an XGID that carries them) backgammon's trials "
    "make their cube decisions at the score (GNU Backgammon's match model; --cubeless: cubeless trials, "
    "the score applied to their probabilities), a position rolled out not doubled and doubled for its "
    "cube decision at the score; in the Tawla rulesets each trial is worth the table's match-winning "
    "chance after its points (Tawla 31's trials play to the end: no truncation, no variance reduction, "
    "no bear-off database stop). Each play is ranked by its value at the score (EMG in backgammon; "
    "2 x match-winning chance - 1 in the Tawla rulesets), with its match-winning chance. The result is "
    "the same for a --seed whatever --workers or --scheduler. Ctrl-C prints the result so far and "
    "exits with status 130."
)


def add_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Register ``rollout`` on the ``tawla`` parser's subparsers."""
    p = subparsers.add_parser("rollout", help=HELP, description=DESCRIPTION)
    p.add_argument("positions", nargs="*", metavar="ID", help=POSITION_HELP)
    p.add_argument("--positions", dest="positions_file", metavar="FILE", default=None,
                   help="roll out every position of FILE (one ID a line; JSON lines out)")
    p.add_argument("--ruleset", default=None, help=POSITION_RULESET_HELP)
    p.add_argument("--dice", default=None, metavar="D1D2", help="roll out every legal play of this roll")
    p.add_argument("--top", type=int, default=None, help="with --dice: the N best plays at 0 ply only")
    add_rollout_options(p)
    p.add_argument("--workers", type=int, default=1, help="worker processes (default %(default)s)")
    p.add_argument("--scheduler", default=None, metavar="ADDRESS",
                   help='run on the Dask cluster of this scheduler (pip install "tawla-engine[dask]")')
    p.add_argument("--save", default=None, metavar="FILE",
                   help="write the work done to FILE as it finishes (trial blocks; with --positions, "
                        "each finished position)")
    p.add_argument("--resume", default=None, metavar="FILE", help="continue from a --save file (same options)")
    p.add_argument("--json", action="store_true", help="JSON out (one object a position, a line each)")
    p.add_argument("--no-progress", action="store_true", help="no progress display on stderr")
    add_match_options(p)
    p.set_defaults(run=run)
    return p


def _context(args, text: str, position) -> dict:
    """The options of :func:`tawla.rollout.plan_rollout` for the match context: a match's
    state, or money play's cube owner seen from the side on roll (0 centred, 1 its own, -1 the
    other's)."""
    state = match_state(args, text, position)
    if state is None:
        return {}
    if state.match_length:
        return {"match_state": state}
    return {"cube_owner": relative_owner(state.cube_owner, state.player_on_roll)}


class _Progress:
    """A rich progress bar on a terminal (trials done, the equity so far), one plain line a
    second off it."""

    def __init__(self, enabled: bool, total: int, label: str) -> None:
        self.enabled, self.total, self.label = enabled, total, label
        self.tty = sys.stderr.isatty()
        self.bar: Progress | None = None
        self.last = 0.0

    def __enter__(self) -> "_Progress":
        if self.enabled and self.tty:
            self.bar = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                                TextColumn("{task.fields[eq]}"), transient=True)
            self.bar.start()
            self.task = self.bar.add_task(self.label, total=self.total, eq="")
        return self

    def __exit__(self, *exc) -> None:
        if self.bar is not None:
            self.bar.stop()

    def __call__(self, run: RolloutRun) -> None:
        if not self.enabled:
            return
        t = run.tallies[0]
        eq = f"equity {t.mean()[5]:+.4f} ± {t.se()[5]:.4f}" if t.n > 1 else ""
        if self.bar is not None:
            self.bar.update(self.task, completed=t.n, eq=eq)
        elif time.monotonic() - self.last >= 1.0:
            self.last = time.monotonic()
            print(f"{self.label}: {t.n} of {self.total} trials, {eq}", file=sys.stderr, flush=True)


def _one(args, text: str, settings: RolloutSettings, dice, save, resume, out) -> Rollout | None:
    """Roll out one position (or its decision) and return it; on Ctrl-C, print the trials so far
    with ``out`` and return None."""
    pos = load_position(text, args.ruleset)
    plan = plan_rollout(pos, dice, settings=settings, top=args.top, **_context(args, text, pos))
    if plan.job is None:
        return plan.result(None)
    run = RolloutRun(plan.job, save=save, resume=resume)
    with _Progress(not args.no_progress, settings.trials, f"rollout {text.strip()[:20]}") as prog:
        try:
            run.run(workers=args.workers, scheduler=args.scheduler, progress=prog)
        except KeyboardInterrupt:
            if run.tallies and run.tallies[0].n:
                out(plan.result(run))
            else:
                print("interrupted before a block of trials finished", file=sys.stderr)
            return None
    return plan.result(run)


def _emit(args, ro: Rollout) -> None:
    if args.json:
        print(json.dumps(ro.to_json()), flush=True)
    else:
        print(format_text(ro), flush=True)


def _ids(args) -> list[str]:
    ids = list(args.positions)
    if args.positions_file is not None:
        ids += [line.strip() for line in Path(args.positions_file).read_text().splitlines()
                if line.strip() and not line.lstrip().startswith("#")]
    if not ids:
        raise ConfigError("give one or more position IDs, or --positions FILE")
    return ids


def _done_ids(path: str | None) -> dict[str, dict]:
    """The finished positions of a ``--positions --save`` file (JSON lines keyed by ``input``)."""
    if path is None:
        return {}
    done = {}
    for i, line in enumerate(Path(path).read_text().splitlines(), 1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
            done[obj["input"]] = obj
        except (json.JSONDecodeError, KeyError, TypeError) as e:
            raise FormatError(f"{path}:{i}: not a line of a saved rollout ({e})") from None
    return done


def run(args: argparse.Namespace) -> int:
    """Roll out and print; exit status 0, 1 for a bad position, 130 when interrupted.

    Raises
    ------
    tawla.errors.ConfigError
        No positions, a match score, bad options.
    tawla.errors.InvalidArgument, tawla.errors.InvalidPosition, tawla.errors.InvalidId
        Bad settings, a finished position, a malformed ID.
    """
    if args.top is not None and args.dice is None:
        raise ConfigError("--top needs --dice")
    if args.workers < 1:
        raise ConfigError(f"--workers must be at least 1, not {args.workers}")
    if args.scheduler is not None and args.workers != 1:
        raise ConfigError("--workers and --scheduler: the processes of a Dask cluster are its own; give one of them")
    settings = rollout_settings(args)
    dice = parse_dice(args.dice) if args.dice is not None else None
    ids = _ids(args)
    bulk = args.positions_file is not None or len(ids) > 1
    if bulk:
        args.json = args.json or args.positions_file is not None
        done = _done_ids(args.resume)
        same = args.save is not None and args.resume is not None and Path(args.save).resolve() == Path(args.resume).resolve()
        save = open(args.save, "a" if same else "w") if args.save is not None else None
        status = 0
        try:
            for text in ids:
                if text in done:
                    _print_json(done[text])
                    if save is not None and not same:
                        save.write(json.dumps(done[text]) + "\n")
                    continue
                try:
                    ro = _one(args, text, settings, dice, None, None, lambda r: _emit(args, r))
                except TawlaError as e:
                    print(f"tawla rollout: {text.strip()}: {type(e).__name__}: {e}", file=sys.stderr)
                    status = 1
                    continue
                if ro is None:
                    return EXIT_INTERRUPTED
                obj = {"input": text, **ro.to_json()}
                if save is not None:
                    save.write(json.dumps(obj) + "\n")
                    save.flush()
                _print_json(obj) if args.json else print(format_text(ro))
        finally:
            if save is not None:
                save.close()
        return status
    ro = _one(args, ids[0], settings, dice, args.save, args.resume, lambda r: _emit(args, r))
    if ro is None:
        return EXIT_INTERRUPTED
    _emit(args, ro)
    return 0


def _print_json(obj: dict) -> None:
    print(json.dumps(obj), flush=True)
