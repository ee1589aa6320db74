"""``tawla bench``: where the speed table is. It is benchmark code, kept out of the package:
``python bench/speed_table.py`` in a clone of the repository (``bench/ENGINE.md`` holds its
figures)."""

from __future__ import annotations

import argparse

__all__ = ["add_parser", "run", "NAME", "WHERE"]

NAME = "bench"
HELP = "where the speed table is: python bench/speed_table.py in a clone of the repository"
WHERE = ("The speed table (the fast engine against the reference one and external engines, side by side in "
         "one run) is benchmark code in the repository, not in the package: in a clone, run\n"
         "    python bench/speed_table.py            (what it measures: python bench/speed_table.py -h)")


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    """List ``bench`` among the ``tawla`` commands; its arguments are ignored."""
    subparsers.add_parser(NAME, help=HELP, add_help=False)


def run(argv: list[str]) -> int:
    """Print :data:`WHERE`; returns 0."""
    print(WHERE)
    return 0
