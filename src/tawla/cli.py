"""The ``tawla`` command.

``tawla moves ID DICE``   the legal plays of a position (gnubg Position ID, XGID or tawla ID)
``tawla board ID``        the board diagram of a position
``tawla analyze FILE...``  replay and analyse match records (.mat/.txt/.sgf; dirs, globs)
``tawla selfplay``        the engine plays itself and writes a .mat record
``tawla bench``           the speed table (fast vs reference vs external engines)

Exit status: 0 on success, 1 when the input is bad (malformed ID, dice, an illegal
play in a record, ...), 2 on usage errors.
"""

from __future__ import annotations

import argparse
import os
import sys

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

from . import bench, errors
from .analysis import HeuristicEvaluator, analyze_paths, collect_files, default_evaluator
from .formats.gnubg import decode_xgid
from .formats.matfile import write_match
from .position import Position
from .analysis.report import render_text, to_json
from .rules import RULESET_IDS, get_ruleset
from .bots.selfplay import selfplay

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
        after = Position(m.after, pos.ruleset)
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


def sample_files() -> list:
    """The bundled self-play samples that ``tawla analyze`` reads when given no file."""
    from importlib import resources

    folder = resources.files("tawla") / "data"
    return sorted(str(p) for p in folder.iterdir() if p.name.endswith(".mat"))


def _cmd_analyze(args) -> int:
    if args.files:
        try:
            paths = collect_files(args.files)
        except FileNotFoundError as e:
            print(f"tawla analyze: no such file or directory: {e}", file=sys.stderr)
            return 2
        except OSError as e:
            print(f"tawla analyze: {e}", file=sys.stderr)
            return 2
    else:
        paths = sample_files()
        if not args.json:
            print("No file given: analysing the bundled self-play samples. Next, try the real archives:\n"
                  "  tawla analyze ../shared/data/matches\n", file=sys.stderr)
    if not paths:
        print("tawla analyze: no match records found", file=sys.stderr)
        return 2
    evaluator = None if args.no_eval else (HeuristicEvaluator() if args.heuristic else default_evaluator())
    show = not args.no_progress and not args.json and sys.stderr.isatty() or args.progress
    err = Console(stderr=True)
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                  TextColumn("{task.fields[games]} games"), console=err, disable=not show,
                  transient=True) as bar:
        task = bar.add_task("analysing", total=len(paths), games=0)
        games = [0]

        def tick(path, rep):
            games[0] += len(rep.games)
            bar.update(task, advance=1, games=games[0], description=f"{path.name if hasattr(path, 'name') else path}")

        reports = analyze_paths(paths, evaluator=evaluator, ruleset=args.ruleset, progress=tick)
    if args.json:
        print(to_json(reports, evaluator))
    else:
        render_text(reports, evaluator, worst=args.worst)
    return 0 if all(r.ok for r in reports) else 1


def _cmd_selfplay(args) -> int:

    if args.games is not None and args.games < 1 or args.length is not None and args.length < 1:
        print("tawla selfplay: --games and --length take a whole number >= 1", file=sys.stderr)
        return 2
    if args.games is not None and args.length is not None:
        print("tawla selfplay: give --games (a money session) or --length (a match), not both", file=sys.stderr)
        return 2
    try:
        record = selfplay(args.ruleset, games=args.games, length=args.length, seed=args.seed, policy=args.policy)
    except (ValueError, KeyError) as e:
        print(f"tawla selfplay: {e}", file=sys.stderr)
        return 2
    text = write_match(record)
    if args.output in (None, "-"):
        sys.stdout.write(text)
    else:
        try:
            with open(args.output, "w", encoding="utf-8") as f:
                f.write(text)
        except OSError as e:
            print(f"tawla selfplay: cannot write {args.output}: {e}", file=sys.stderr)
            return 1
        print(f"wrote {len(record.games)} games to {args.output}", file=sys.stderr)
    return 0


def _cmd_bench(args, rest) -> int:

    return bench.main(rest)


def _count(text: str) -> int:
    n = int(text)
    if n < 0:
        raise argparse.ArgumentTypeError("must be >= 0")
    return n


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

    a = sub.add_parser("analyze", help="replay and analyse match records (.mat/.txt/.sgf, dirs, globs)")
    a.add_argument("files", nargs="*", help="files, directories or globs; none: the bundled samples")
    a.add_argument("--json", action="store_true", help="machine-readable output")
    a.add_argument("--ruleset", default=None, help="override the record's Variation header")
    a.add_argument("--worst", type=_count, default=3, help="worst decisions listed per file")
    a.add_argument("--heuristic", action="store_true", help="use the small built-in evaluator")
    a.add_argument("--no-eval", action="store_true", help="replay only, no ranking of plays")
    a.add_argument("--progress", action="store_true", help="show the progress bar even when not a terminal")
    a.add_argument("--no-progress", action="store_true")
    a.set_defaults(func=_cmd_analyze)

    sp = sub.add_parser("selfplay", help="the engine plays itself; writes a .mat record")
    sp.add_argument("--ruleset", default="backgammon")
    sp.add_argument("--games", type=int, default=None, help="a money session of N games")
    sp.add_argument("--length", type=int, default=None, help="a match to N points (default per ruleset)")
    sp.add_argument("--seed", type=int, default=0)
    sp.add_argument("--policy", default="random", help="random, or a tawla.Bot level")
    sp.add_argument("-o", "--output", default=None, help="file to write (default: stdout)")
    sp.set_defaults(func=_cmd_selfplay)

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
    except BrokenPipeError:  # the reader went away (| head): not an error of ours
        try:
            sys.stdout = open(os.devnull, "w")
        except OSError:
            pass
        return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
