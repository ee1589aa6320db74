"""The ``tawla`` command.

``tawla moves ID DICE``   the legal plays of a position (gnubg Position ID, XGID or tawla ID)
``tawla board ID``        the board diagram of a position
``tawla bench``           the speed table (fast vs reference vs external engines)

Exit status: 0 on success, 1 when the input is bad (malformed ID, dice, ...), 2 on
usage errors.
"""

from __future__ import annotations

import argparse
import sys

from . import errors
from .position import Position
from .rules import RULESET_IDS, get_ruleset

__all__ = ["main"]


def _parse_dice(text: str) -> tuple:
    digits = [c for c in text if c.isdigit()]
    if len(digits) != 2 or any(c in "0789" for c in digits):
        raise errors.InvalidDice(f"dice must be two digits 1..6 such as 31 or 3-1, not {text!r}")
    return int(digits[0]), int(digits[1])


def load_position(text: str, ruleset: str) -> Position:
    """A position from a gnubg Position ID (14 chars), an XGID, or a tawla ID (40 chars).

    Raises
    ------
    tawla.errors.InvalidId
    """
    t = text.strip()
    if t.upper().startswith("XGID=") or t.count(":") >= 9:
        from .formats.gnubg import decode_xgid

        me, opp, _info = decode_xgid(t)
        return Position._from_own_coords(get_ruleset(ruleset), me, opp)
    if len(t) == 14:
        return Position.from_gnubg_id(t, ruleset)
    if len(t) == 40:
        return Position.from_id(t, ruleset)
    raise errors.InvalidId(f"{text!r} is neither a gnubg Position ID (14 chars), an XGID, nor a tawla ID (40 chars)")


def _cmd_moves(args) -> int:
    pos = load_position(args.position, args.ruleset)
    dice = _parse_dice(args.dice)
    moves = pos.legal_moves(dice)
    print(pos)
    print()
    if not moves:
        print(f"{dice[0]}{dice[1]}: no legal play, the turn passes")
        return 0
    print(f"{dice[0]}{dice[1]}: {len(moves)} legal play{'s' if len(moves) != 1 else ''}")
    for i, m in enumerate(moves, 1):
        after = m.result_position()
        pips = after.pip_count()[0]
        extra = "  (ends the game)" if m.ended else ""
        line = f"{i:4d}. {str(m):28s} pips {pips:3d}"
        if pos.ruleset.has_bar:
            line += f"  {Position(after.row, pos.ruleset).flip().gnubg_id()}"
        print(line + extra)
    return 0


def _cmd_board(args) -> int:
    pos = load_position(args.position, args.ruleset)
    print(pos)
    print(f"id {pos.id()}")
    return 0


def _cmd_bench(args, rest) -> int:
    from . import bench

    return bench.main(rest)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="tawla", description="A fast, exact rules engine for the backgammon family.")
    sub = p.add_subparsers(dest="command", required=True)

    m = sub.add_parser("moves", help="list the legal plays of a position for a roll")
    m.add_argument("position", help="gnubg Position ID (14 chars), XGID, or tawla ID (40 chars)")
    m.add_argument("dice", help="the roll, e.g. 31 or 3-1")
    m.add_argument("--ruleset", default="backgammon", choices=list(RULESET_IDS) + ["bg", "sheshbesh", "31"])
    m.set_defaults(func=_cmd_moves)

    b = sub.add_parser("board", help="print the board of a position")
    b.add_argument("position")
    b.add_argument("--ruleset", default="backgammon", choices=list(RULESET_IDS) + ["bg", "sheshbesh", "31"])
    b.set_defaults(func=_cmd_board)

    sub.add_parser("bench", help="speed table: fast vs reference vs external engines (options: tawla bench -h)",
                   add_help=False)
    return p


def main(argv=None) -> int:
    """Entry point of the ``tawla`` command; returns the exit status."""
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    if argv and argv[0] == "bench":
        return _cmd_bench(None, argv[1:])
    try:
        args = parser.parse_args(argv)
    except SystemExit as e:
        return int(e.code or 0)
    try:
        return args.func(args)
    except errors.TawlaError as e:
        print(f"tawla: error: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
