"""``tawla evaluate FILE -o OUT``: evaluate a file of positions, streamed to CSV, JSON lines or Parquet."""

from __future__ import annotations

import argparse
import os
import sys
import time

from ..analysis.position_output import FORMATS, Summary, columns, evaluate_file
from ..analysis.report import plural
from ..bots.levels import LEVELS as EVALUATOR_LEVELS, describe
from ..errors import ConfigError, FormatError
from .arguments import RULESET_HELP, parse_dice, positive

__all__ = ["add_parser", "run", "LEVELS"]

HELP = "evaluate a file of positions (IDs or a .npy of packed rows) to .csv, .jsonl or .parquet"
DESCRIPTION = (
    "Evaluate every position of FILE (text: one gnubg Position ID, XGID or tawla ID a line; or a "
    ".npy of packed rows, uint8 of shape (N, 56)) and write one row per position to OUT, in the "
    "format its extension names (.csv with one header row, .jsonl, or .parquet with pyarrow "
    "installed): the input (a .npy row: its tawla ID), then win, win_gammon, win_backgammon, "
    "lose_gammon, lose_backgammon (cubeless probabilities of the side to move, the gammon "
    "columns including backgammons) and equity (cubeless, in points of the ruleset's scoring), "
    "by tawla.evaluate at --level (net0, the default: the shipped network, the evaluator of tawla "
    "analyze; net1, net2: one and two rolls ahead on it; ply0..ply2: the hand-made model). "
    "With --dice, also --level's best play for that roll and the ID of the position it leaves "
    "the opponent. The file is read and written in chunks, on --workers processes (default: one per "
    "core) or a Dask cluster (--scheduler), so memory stays flat however long it is. A line that "
    "is not a position is reported on stderr with its file name and line number and the run goes "
    "on; the exit status is then 1."
)

LEVELS = EVALUATOR_LEVELS
"""The evaluator levels that ``--level`` takes (:data:`tawla.bots.levels.LEVELS`)."""


def add_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Register ``evaluate`` on the ``tawla`` parser's subparsers."""
    p = subparsers.add_parser("evaluate", help=HELP, description=DESCRIPTION)
    p.add_argument("file", help="positions: text, one ID a line, or a .npy of packed rows")
    p.add_argument("-o", "--output", required=True, metavar="OUT",
                   help=f"the file to write; its extension names the format ({', '.join(FORMATS)})")
    p.add_argument("--ruleset", default="backgammon", help=RULESET_HELP)
    p.add_argument("--dice", default=None, metavar="D1D2",
                   help="add the best play for this roll (e.g. 31 or 3-1) and the ID it leads to")
    p.add_argument("--level", choices=LEVELS, default="net0",
                   help="the evaluator of the values and the bot that chooses the play with --dice "
                        "(default: %(default)s, the evaluator and ranking of tawla analyze)")
    p.add_argument("--workers", type=positive, default=None,
                   help="worker processes (default: the number of cores; 1: in this process)")
    p.add_argument("--scheduler", default=None, metavar="ADDRESS",
                   help='run on the Dask cluster of this scheduler (needs pip install "tawla-engine[dask]")')
    p.add_argument("--chunk", type=positive, default=None, help="positions a chunk (default 8192)")
    p.add_argument("--progress", action="store_true", help="a line on stderr per second: positions written")
    p.set_defaults(run=run)
    return p


def run(args: argparse.Namespace) -> int:
    """Evaluate and write; exit status 0 when every line was a position.

    Raises
    ------
    tawla.errors.InvalidDice
        Bad ``--dice`` text.
    tawla.errors.ConfigError
        An output extension that names no format, ``.parquet`` without pyarrow, an unknown
        ``--ruleset``, ``--scheduler`` without Dask or with ``--workers``.
    tawla.errors.FormatError
        A ``.npy`` that is not packed rows; after the output is written: some lines were
        not positions (each reported on stderr).
    OSError
        FILE cannot be read or OUT written.
    """
    dice = parse_dice(args.dice) if args.dice is not None else None
    if args.scheduler is not None and args.workers is not None:
        raise ConfigError("--workers and --scheduler: the processes of a Dask cluster are its own; give one of them")
    workers = args.workers if args.workers is not None else os.cpu_count() or 1
    shown = {"at": time.monotonic()}

    def report(message: str) -> None:
        print(message, file=sys.stderr, flush=True)

    def progress(summary: Summary) -> None:
        now = time.monotonic()
        if args.progress and now - shown["at"] >= 1.0:
            shown["at"] = now
            print(f"evaluated {summary.positions:,} positions", file=sys.stderr, flush=True)

    options = {} if args.chunk is None else {"chunk_size": args.chunk}
    summary = evaluate_file(args.file, args.output, ruleset=args.ruleset, dice=dice, level=args.level,
                            workers=workers, scheduler=args.scheduler, on_error=report, progress=progress,
                            **options)
    print(f"wrote {plural(summary.positions, 'position')} to {args.output} "
          f"({', '.join(columns(dice is not None))}); evaluator {describe(args.level, args.ruleset)}",
          file=sys.stderr)
    if summary.bad:
        raise FormatError(f"{summary.bad} of {summary.positions + summary.bad} lines of {args.file} are not "
                          "positions (each reported above); the others are written")
    return 0
