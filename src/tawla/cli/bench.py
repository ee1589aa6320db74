"""``tawla bench``: the speed table of :mod:`tawla.bench`, which parses its own options."""

from __future__ import annotations

import argparse

from .. import bench as speed_table

__all__ = ["add_parser", "run", "NAME"]

NAME = "bench"
HELP = "speed table: the fast engine vs the reference one and external engines (what it measures: tawla bench -h)"


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    """List ``bench`` among the ``tawla`` commands; its arguments go to :func:`run` unparsed."""
    subparsers.add_parser(NAME, help=HELP, add_help=False)


def run(argv: list[str]) -> int:
    """Run :func:`tawla.bench.main` on the arguments after ``bench``; returns the exit status.

    Its parser's ``--help`` and usage errors end in ``SystemExit``; they come back as the
    status argparse gives them (0 and 2).

    Raises
    ------
    tawla.errors.UnsupportedRuleset
        An unknown ``--ruleset``.
    tawla.errors.ConfigError
        A workload the ruleset cannot play.
    """
    try:
        return speed_table.main(argv)
    except SystemExit as e:
        if e.code is None or isinstance(e.code, int):
            return e.code or 0
        raise
