"""Reading the values of the ``tawla`` command line: dice, positions, counts.

Each reader raises the :mod:`tawla.errors` class that names what is wrong with the text, so
that :func:`tawla.cli.main` reports it in one line with the right exit status; the counts are
``argparse`` types, whose errors are the parser's own usage errors.
"""

from __future__ import annotations

import argparse
import re

from ..errors import InvalidDice, InvalidId, quote
from ..position import Position
from ..rules import get_ruleset

__all__ = ["parse_dice", "load_position", "count", "positive", "RULESET_HELP", "POSITION_HELP"]

RULESET_HELP = ("backgammon (bg), adi (sheshbesh), mahbusa (mah), tawla31 (31) or tawla31-saharat (t31s); "
                "default: %(default)s")
POSITION_HELP = "a gnubg Position ID (14 chars), an XGID (XGID=...) or a tawla ID (40 chars)"

_DICE = re.compile(r"([1-6])\s*[-,/]?\s*([1-6])")


def parse_dice(text: str) -> tuple:
    """The roll written as two digits 1..6: ``31``, ``3-1``, ``3,1``, ``3/1`` or ``3 1``.

    Returns
    -------
    (int, int)
        The dice in the order written.

    Raises
    ------
    tawla.errors.InvalidDice
        Anything else: a die out of 1..6 (``79``), digits that are not ASCII (``²³``),
        the empty text, more or fewer than two dice.
    """
    match = _DICE.fullmatch(text.strip())
    if match is None:
        raise InvalidDice(f"dice must be two digits 1..6 such as 31 or 3-1, not {quote(text)}")
    return int(match[1]), int(match[2])


def load_position(text: str, ruleset) -> Position:
    """A position from a gnubg Position ID (14 chars), an XGID, or a tawla ID (40 chars).

    Parameters
    ----------
    text : str
        The ID; an XGID is told apart by its ``XGID=`` prefix or its ten ``:``-separated fields.
    ruleset : str or Ruleset
        gnubg IDs and XGIDs describe backgammon boards (backgammon, adi); a tawla ID any ruleset's.

    Raises
    ------
    tawla.errors.InvalidId
        Text that is none of the three, or a malformed one.
    tawla.errors.InvalidPosition
        A well-formed ID of a board that breaks the ruleset's invariants.
    tawla.errors.UnsupportedRuleset
        An unknown ruleset, or a gnubg ID or XGID with a ruleset that is not played on a
        backgammon board.
    """
    r = get_ruleset(ruleset)
    t = text.strip()
    if t.upper().startswith("XGID=") or t.count(":") >= 9:
        return Position.from_xgid(t, r)
    if len(t) == 14:
        return Position.from_gnubg_id(t, r)
    if len(t) == 40:
        return Position.from_id(t, r)
    raise InvalidId(f"{quote(text)} is neither a gnubg Position ID (14 chars), an XGID, nor a tawla ID (40 chars)")


def _whole_number(text: str, least: int) -> int:
    try:
        n = int(text)
    except ValueError:
        n = None
    if n is None or n < least:
        raise argparse.ArgumentTypeError(f"expected a whole number >= {least}, not {quote(text)}")
    return n


def count(text: str) -> int:
    """``argparse`` type: a whole number >= 0."""
    return _whole_number(text, 0)


def positive(text: str) -> int:
    """``argparse`` type: a whole number >= 1."""
    return _whole_number(text, 1)
