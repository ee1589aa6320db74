"""``tawla moves ID DICE``: the legal plays of a position for one roll."""

from __future__ import annotations

import argparse

from ..position import Position
from .arguments import POSITION_HELP, RULESET_HELP, load_position, parse_dice

__all__ = ["add_parser", "run"]

HELP = "list the legal plays of a position for a roll"
DESCRIPTION = (
    "Print the board, then every legal play of the side on roll for the roll DICE (one per "
    "distinct resulting position) with the mover's pip count after it and, on a backgammon "
    "board, the gnubg Position ID of the position the opponent then faces."
)


def add_parser(subparsers) -> argparse.ArgumentParser:
    """Register ``moves`` on the ``tawla`` parser's subparsers."""
    p = subparsers.add_parser("moves", help=HELP, description=DESCRIPTION)
    p.add_argument("position", help=POSITION_HELP)
    p.add_argument("dice", help="the roll: two digits 1..6, e.g. 31 or 3-1")
    p.add_argument("--ruleset", default="backgammon", help=RULESET_HELP)
    p.set_defaults(run=run)
    return p


def run(args: argparse.Namespace) -> int:
    """Print the legal plays; exit status 0.

    Raises
    ------
    tawla.errors.UnsupportedRuleset, tawla.errors.InvalidDice, tawla.errors.InvalidId,
    tawla.errors.InvalidPosition
    """
    dice = parse_dice(args.dice)
    pos = load_position(args.position, args.ruleset)
    moves = pos.legal_moves(dice)
    print(pos)
    print()
    if not moves:
        print(f"{dice[0]}{dice[1]}: no legal play, the turn passes")
        return 0
    print(f"{dice[0]}{dice[1]}: {len(moves)} legal play{'s' if len(moves) != 1 else ''}")
    for i, m in enumerate(moves, 1):
        after = Position(m.after, pos.ruleset)
        extra = "  (ends the game)" if m.ended else ""
        line = f"{i:4d}. {str(m):28s} pips {after.pip_count()[0]:3d}"
        if pos.ruleset.has_bar:
            line += f"  {after.flip().gnubg_id()}"
        print(line + extra)
    return 0
