"""``tawla selfplay``: the engine plays itself and writes the games as a .mat or .sgf record."""

from __future__ import annotations

import argparse
import sys

from ..bots.selfplay import selfplay
from ..formats.matfile import write_match
from ..formats.sgf_write import write_sgf
from .arguments import RULESET_HELP, positive

__all__ = ["add_parser", "run"]

HELP = "the engine plays itself; writes a .mat or .sgf record"
DESCRIPTION = (
    "Play a money session of --games N games or a match to --length N points (default: the "
    "ruleset's usual match length) between two copies of a policy, with seeded dice, and write "
    "the record in Jellyfish .mat text (with a Variation header naming the ruleset), or, for an "
    "output file named *.sgf, in GNU Backgammon's SGF. The same seed gives the same record."
)


def add_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Register ``selfplay`` on the ``tawla`` parser's subparsers."""
    p = subparsers.add_parser("selfplay", help=HELP, description=DESCRIPTION)
    p.add_argument("--ruleset", default="backgammon", help=RULESET_HELP)
    size = p.add_mutually_exclusive_group()
    size.add_argument("--games", type=positive, default=None, help="a money session of N games")
    size.add_argument("--length", type=positive, default=None, help="a match to N points (default per ruleset)")
    p.add_argument("--seed", type=int, default=0, help="seeds the dice and the random policy (default: 0)")
    p.add_argument("--policy", default="random", help="random, or a tawla.Bot level (default: random)")
    p.add_argument("-o", "--output", default=None,
                   help="file to write, .sgf: GNU Backgammon SGF, else .mat text (default, or -: stdout, .mat)")
    p.add_argument("--sgf", action="store_true", help="write SGF whatever the file's name (stdout included)")
    p.set_defaults(run=run)
    return p


def run(args: argparse.Namespace) -> int:
    """Play and write the record; exit status 0.

    Raises
    ------
    tawla.errors.UnsupportedRuleset
        An unknown ``--ruleset``.
    tawla.errors.ConfigError
        An unknown ``--policy``.
    OSError
        The output file cannot be written.
    """
    record = selfplay(args.ruleset, games=args.games, length=args.length, seed=args.seed, policy=args.policy)
    sgf = args.sgf or str(args.output or "").lower().endswith(".sgf")
    text = write_sgf(record) if sgf else write_match(record)
    if args.output in (None, "-"):
        sys.stdout.write(text)
        return 0
    with open(args.output, "w", encoding="utf-8") as f:
        f.write(text)
    print(f"wrote {len(record.games)} games to {args.output}", file=sys.stderr)
    return 0
