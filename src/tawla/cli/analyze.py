"""``tawla analyze [FILE|DIR|GLOB ...]``: replay and analyse match records."""

from __future__ import annotations

import argparse
import importlib
import os
import sys
import time
from importlib import resources

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

from ..analysis import collect_files
from ..analysis.chunks import evaluator_for
from ..analysis.parallel import analyze_parallel
from ..errors import ConfigError, FormatError
from ..analysis.html_report import write_html
from ..analysis.report import TextStyle, plural, render_text, text_console, to_json
from ..analysis.rollouts import rollout_worst
from ..rules import get_ruleset
from .arguments import add_rollout_options, count, positive, rollout_settings

__all__ = ["add_parser", "run", "sample_files"]

HELP = "replay and analyse match records (.mat/.txt/.sgf, dirs, globs)"
DESCRIPTION = (
    "Replay every game of the match records given (Jellyfish .mat/.txt, gnubg .sgf; directories "
    "are searched recursively, globs expanded), check each play against the rules, rank it "
    "with an evaluator and print a table per file and the totals (--json: one JSON object). "
    "With no file, the bundled samples (matches the ply1 bot played against itself). "
    "The files are analysed on --workers processes (default: one per core), or on a Dask "
    "cluster with --scheduler; the report is the same either way. "
    "Exit status 1 when a file is unreadable, "
    "holds corrupt lines or a game that does not replay."
)


def sample_files() -> list:
    """The bundled samples that ``tawla analyze`` reads when given no file: matches that the
    ``ply1`` bot played against itself (``tools/make_samples.py``).

    Returns
    -------
    list of str
        Paths of the ``.mat`` files in ``tawla/data``, sorted.
    """
    folder = resources.files("tawla") / "data"
    return sorted(str(p) for p in folder.iterdir() if p.name.endswith(".mat"))


def add_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Register ``analyze`` on the ``tawla`` parser's subparsers."""
    p = subparsers.add_parser("analyze", help=HELP, description=DESCRIPTION)
    p.add_argument("files", nargs="*", help="files, directories or globs; none: the bundled samples")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.add_argument("--html", default=None, metavar="REPORT.html",
                   help="also write one self-contained page: error rates, ratings, the worst plays on boards")
    p.add_argument("--ruleset", default=None, help="override the record's Variation header")
    p.add_argument("--worst", type=count, default=3, help="worst decisions listed per file")
    p.add_argument("--heuristic", action="store_true", help="use the small built-in evaluator")
    p.add_argument("--level", choices=("net0", "net1", "net2"), default="net0",
                   help="the search that ranks every play: net0 (0 ply, the default), net1 or net2 (tawla.Bot's "
                        "1- and 2-ply searches on the network; slower); the report names it")
    p.add_argument("--rollout-worst", type=count, default=0, metavar="N",
                   help="roll out each player's N largest errors (the play made and the best play, on the same "
                        "dice) and report them with standard errors; the rollout settings below")
    add_rollout_options(p, "--rollout-level")
    p.add_argument("--no-eval", action="store_true", help="replay only, no ranking of plays")
    p.add_argument("--progress", action="store_true", help="show progress even when stderr is not a terminal (there: a plain line per second)")
    p.add_argument("--no-progress", action="store_true", help="never show the progress bar")
    p.add_argument("--workers", type=positive, default=None,
                   help="worker processes (default: the number of cores; 1: in this process)")
    p.add_argument("--scheduler", default=None, metavar="ADDRESS",
                   help='run on the Dask cluster of this scheduler (needs pip install "tawla-engine[dask]")')
    p.set_defaults(run=run)
    return p


def _paths(specs) -> list:
    """The record files named by the command line (the bundled samples for none)."""
    try:
        paths = collect_files(specs) if specs else sample_files()
    except OSError as e:
        raise FormatError(f"cannot list the records: {e}") from None
    if not paths:
        where = f" in {', '.join(map(str, specs))}" if specs else ""
        raise ConfigError(f"no match records (.mat, .txt, .sgf) found{where}")
    return paths


DASK_MODULE = "tawla.analysis.dask_run"
"""The module of the Dask runner, imported by name only when ``--scheduler`` is given."""


def dask_runner():
    """``tawla.analysis.dask_run.analyze_on_cluster``, imported on demand.

    Raises
    ------
    tawla.errors.ConfigError
        Dask is not installed.
    """
    try:
        module = importlib.import_module(DASK_MODULE)
    except ImportError as e:
        raise ConfigError(f'--scheduler needs Dask: pip install "tawla-engine[dask]" ({e})') from None
    return module.analyze_on_cluster


def run(args: argparse.Namespace) -> int:
    """Analyse and print; exit status 0 when every file replays clean.

    Raises
    ------
    tawla.errors.ConfigError
        A file, directory or glob that names nothing, or no record in them; an unknown
        ``--ruleset`` (:class:`~tawla.errors.UnsupportedRuleset`); ``--scheduler`` without
        Dask installed, or with ``--workers``.
    tawla.errors.FormatError
        ``--html`` names a file that cannot be written. After the report is printed: some file was unreadable, had corrupt lines or a game
        that does not replay (the report says which and why).
    """
    ruleset = get_ruleset(args.ruleset) if args.ruleset is not None else None
    paths = _paths(args.files)
    if not args.files and not args.json:
        print("No file given: analysing the bundled samples (the ply1 bot against itself). "
              "Next, try the real archives:\n"
              "  tawla analyze ../shared/data/matches\n", file=sys.stderr)
    if args.heuristic and args.level != "net0":
        raise ConfigError("--heuristic and --level: give one evaluator")
    if args.rollout_worst and args.no_eval:
        raise ConfigError("--rollout-worst needs the evaluation (not --no-eval) to find the worst plays")
    settings = rollout_settings(args)
    level = {"net0": "engine", "net1": "net1", "net2": "net2"}[args.level]
    evaluator_name = None if args.no_eval else ("heuristic" if args.heuristic else level)
    evaluator = evaluator_for(evaluator_name)
    if args.scheduler is not None and args.workers is not None:
        raise ConfigError("--workers and --scheduler: the processes of a Dask cluster are its own; give one of them")
    cluster = dask_runner() if args.scheduler is not None else None
    tty = sys.stderr.isatty()
    show = not args.no_progress and (args.progress or tty and not args.json)
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                  TextColumn("{task.fields[games]} games"), console=Console(stderr=True),
                  disable=not (show and tty), transient=True) as bar:
        task = bar.add_task("analysing", total=len(paths), games=0)
        state = {"files": 0, "games": 0, "shown": time.monotonic()}

        def tick(path, rep):
            state["files"] += 1
            state["games"] += len(rep.games)
            bar.update(task, advance=1, games=state["games"], description=getattr(path, "name", str(path)))
            now = time.monotonic()
            if show and not tty and (now - state["shown"] >= 1.0 or state["files"] == len(paths)):
                state["shown"] = now
                print(f"analysed {state['files']}/{len(paths)} files, {plural(state['games'], 'game')}: {path}",
                      file=sys.stderr, flush=True)

        # the workers encode each match's JSON or render its text, unless rollouts are added to
        # the reports afterwards
        with_json = args.json and not args.rollout_worst
        text_style = (TextStyle.of(text_console(), args.worst, evaluator_name is not None)
                      if not args.json and not args.rollout_worst else None)
        if cluster is not None:
            reports = cluster(paths, args.scheduler, evaluator_name=evaluator_name, ruleset=ruleset,
                              progress=tick, with_json=with_json, text_style=text_style)
        else:
            workers = args.workers if args.workers is not None else os.cpu_count() or 1
            reports = analyze_parallel(paths, evaluator_name=evaluator_name, ruleset=ruleset,
                                       workers=workers, progress=tick, with_json=with_json,
                                       text_style=text_style)
    if args.rollout_worst:
        rollout_worst(reports, args.rollout_worst, settings, workers=args.workers or 1, scheduler=args.scheduler,
                      progress=(lambda k, n: print(f"rolled out {k}/{n} plays", file=sys.stderr, flush=True))
                      if show else None)
    if args.json:
        print(to_json(reports, evaluator))
    else:
        render_text(reports, evaluator, worst=args.worst)
    if args.html is not None:
        write_html(args.html, reports, evaluator, worst=args.worst)
    failed = [r.path for r in reports if not r.ok]
    if failed:
        shown = ", ".join(failed[:3]) + (f" and {len(failed) - 3} more" if len(failed) > 3 else "")
        raise FormatError(f"{len(failed)} of {len(reports)} files did not replay clean ({shown}); "
                          "the report says why")
    return 0
