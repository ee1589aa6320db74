"""``tawla board ID``: the diagram of a position."""

from __future__ import annotations

import argparse

from .arguments import POSITION_HELP, POSITION_RULESET_HELP, add_match_options, id_lines, load_position, match_state

__all__ = ["add_parser", "run"]

HELP = "print the board of a position"
DESCRIPTION = (
    "Print the diagram of a position, seen from the side on roll, then its IDs: on a backgammon "
    "board the gnubg Position ID, the gnubg Match ID and the XGID (with the cube and the score of "
    "the match options, or of the XGID given), and on every board its tawla ID."
)


def add_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Register ``board`` on the ``tawla`` parser's subparsers."""
    p = subparsers.add_parser("board", help=HELP, description=DESCRIPTION)
    p.add_argument("position", help=POSITION_HELP)
    p.add_argument("--ruleset", default=None, help=POSITION_RULESET_HELP)
    add_match_options(p)
    p.set_defaults(run=run)
    return p


def run(args: argparse.Namespace) -> int:
    """Print the diagram and the IDs; exit status 0.

    Raises
    ------
    tawla.errors.UnsupportedRuleset, tawla.errors.InvalidId, tawla.errors.InvalidPosition
    tawla.errors.ConfigError
        Match options that make no match state, or on a board without an XGID.
    """
    pos = load_position(args.position, args.ruleset)
    state = match_state(args, args.position, pos)
    print(pos)
    print()
    print("\n".join(id_lines(pos, state)))
    return 0
