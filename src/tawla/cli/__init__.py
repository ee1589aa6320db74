"""The ``tawla`` command: one module per command, one error discipline at the edge.

``tawla moves ID DICE``    the legal plays of a position, ranked by a bot (gnubg Position ID, XGID or tawla ID)
``tawla board ID``         the board diagram of a position and its IDs (gnubg, XGID, tawla)
``tawla rollout ID...``    positions, or every play of a roll, rolled out (trials, standard errors)
``tawla cube ID``          the cube decision of a position, money or at a match score
``tawla analyze FILE...``  replay and analyse match records (.mat/.txt/.sgf; dirs, globs)
``tawla evaluate FILE``    evaluate a file of positions to .csv, .jsonl or .parquet
``tawla selfplay``         the engine plays itself and writes a .mat or .sgf record
``tawla train``            train a neural evaluator by self-play
``tawla bench``            where the speed table is (``python bench/speed_table.py``)
``tawla serve``            the game service: rooms, bots, timers, coin tables (the serve extra)

:func:`main` turns a :class:`tawla.errors.TawlaError` (or an ``OSError`` on a file) into one
line on stderr, ``tawla <command>: <ClassName>: <message>``, never a traceback. Exit status:
:data:`EXIT_OK`, :data:`EXIT_BAD_DATA` (a malformed ID, an illegal play or a corrupt line in a
record, an unreadable file, any other ``TawlaError``), :data:`EXIT_USAGE` (argparse's usage
errors, bad dice text, an unknown ruleset, any :class:`~tawla.errors.ConfigError`).
"""

from __future__ import annotations

import argparse
import os
import sys

from .._version import __version__
from ..errors import ConfigError, InvalidDice, TawlaError
from . import analyze, bench, board, cube, evaluate, moves, rollout, selfplay, serve, train, verify_dice
from .analyze import sample_files

__all__ = ["main", "build_parser", "exit_status", "sample_files", "EXIT_OK", "EXIT_BAD_DATA", "EXIT_USAGE"]

EXIT_OK = 0
EXIT_BAD_DATA = 1
EXIT_USAGE = 2

USAGE_ERRORS = (ConfigError, InvalidDice)
"""The :mod:`tawla.errors` classes that mean the command line itself is wrong (exit 2)."""

COMMANDS = (moves, board, cube, rollout, analyze, evaluate, selfplay, train, bench, serve, verify_dice)
"""The command modules, in the order ``tawla -h`` lists them."""


def build_parser() -> argparse.ArgumentParser:
    """The ``tawla`` parser: one subparser per command, each set up by its module."""
    p = argparse.ArgumentParser(
        prog="tawla", description="A fast, exact rules engine for the backgammon family.",
        epilog="Exit status: 0 success, 1 bad data (a malformed ID, an illegal play in a record, an "
               "unreadable file), 2 usage error (bad options, dice text or ruleset).")
    p.add_argument("--version", action="version", version=f"tawla {__version__}")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for command in COMMANDS:
        command.add_parser(sub)
    return p


def exit_status(error: Exception) -> int:
    """The exit status for an error that reached the command's edge: 2 usage, 1 bad data."""
    return EXIT_USAGE if isinstance(error, USAGE_ERRORS) else EXIT_BAD_DATA


def _report(command: str, error: Exception) -> int:
    """Print ``tawla <command>: <ClassName>: <message>`` as one line on stderr; the exit status."""
    message = " ".join(str(error).split())
    print(f"tawla {command}: {type(error).__name__}: {message}", file=sys.stderr)
    return exit_status(error)


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``tawla`` command.

    Parameters
    ----------
    argv : list of str, optional
        The arguments after ``tawla`` (default: ``sys.argv[1:]``).

    Returns
    -------
    int
        The exit status: 0, 1 (bad data) or 2 (usage).
    """
    argv = list(sys.argv[1:] if argv is None else argv)
    command = argv[0] if argv else ""
    try:
        if command == bench.NAME:
            return bench.run(argv[1:])
        try:
            args = build_parser().parse_args(argv)
        except SystemExit as e:  # argparse: --help (0) or a usage error (2), already printed
            return e.code if isinstance(e.code, int) else EXIT_OK
        command = args.command
        return args.run(args)
    except TawlaError as e:
        return _report(command, e)
    except BrokenPipeError:  # the reader went away (| head): not an error of ours
        try:
            sys.stdout = open(os.devnull, "w")
        except OSError:
            pass
        return EXIT_OK
    except OSError as e:  # a file named on the command line cannot be read or written
        return _report(command, e)
