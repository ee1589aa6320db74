"""``tawla board ID``: the diagram of a position."""

from __future__ import annotations

import argparse

from .arguments import POSITION_HELP, RULESET_HELP, load_position

__all__ = ["add_parser", "run"]

HELP = "print the board of a position"
DESCRIPTION = "Print the diagram of a position, seen from the side on roll, and its tawla ID."


def add_parser(subparsers) -> argparse.ArgumentParser:
    """Register ``board`` on the ``tawla`` parser's subparsers."""
    p = subparsers.add_parser("board", help=HELP, description=DESCRIPTION)
    p.add_argument("position", help=POSITION_HELP)
    p.add_argument("--ruleset", default="backgammon", help=RULESET_HELP)
    p.set_defaults(run=run)
    return p


def run(args: argparse.Namespace) -> int:
    """Print the diagram and the tawla ID; exit status 0.

    Raises
    ------
    tawla.errors.UnsupportedRuleset, tawla.errors.InvalidId, tawla.errors.InvalidPosition
    """
    pos = load_position(args.position, args.ruleset)
    print(pos)
    print(f"id {pos.id()}")
    return 0
