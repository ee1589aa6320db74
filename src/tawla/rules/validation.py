"""Validation of packed rows and batch dice: the one place that checks input before the
engines read it (the C engine reads only what passed here or its own twin of these checks).

A valid row (:mod:`tawla.core.layout`) of a ruleset has 15 checkers a side, the reserved
byte at 0, a bar only in the hitting games, not both sides borne off, and checkers of both
sides on one point only as a Mahbusa pin stack of exactly one pinned checker (RULES.md §1.2).
"""

from __future__ import annotations

import numpy as np

from ..core.layout import ME_OFF, OPP, PACKED_WIDTH, PIN as PIN_BYTES, RESERVED, pinned_points
from ..errors import InvalidDice, InvalidId, InvalidPosition
from . import PIN, Ruleset

__all__ = ["validate_row", "validate_rows", "check_rows_array", "check_dice_array"]


def validate_row(row: bytes, r: Ruleset, pinned_opp=None, counts=None) -> None:
    """Raise unless ``row`` is a valid position of ruleset ``r``.

    Parameters
    ----------
    row : bytes
        ``PACKED_WIDTH`` bytes.
    r : Ruleset
    pinned_opp : set of int, optional
        Points where the caller says the opponent's checker is pinned (then every pin
        stack must name exactly one pinned side).
    counts : (list, list), optional
        The 26 counts of each side when the caller has them unclipped (``from_points``).

    Raises
    ------
    tawla.errors.InvalidPosition
    """
    if len(row) != PACKED_WIDTH:
        raise InvalidPosition(f"row has {len(row)} bytes, not {PACKED_WIDTH}")
    me, opp = (counts if counts is not None else (list(row[ME_OFF:OPP]), list(row[OPP:PIN_BYTES])))
    for who, side in (("on roll", me), ("opponent", opp)):
        if any(n < 0 for n in side):
            raise InvalidPosition(f"negative checker count for the side {who}")
        if sum(side) != 15:
            raise InvalidPosition(f"the side {who} has {sum(side)} checkers, not 15")
    if any(row[RESERVED:]):
        raise InvalidPosition("reserved bytes of the row are not zero")
    if not r.has_bar and (me[25] or opp[25]):
        raise InvalidPosition(f"{r.name} has no bar")
    if me[0] == 15 and opp[0] == 15:
        raise InvalidPosition("both sides have borne off all their checkers")
    pinned_me = pinned_points(row)
    for p in range(1, 25):
        both = me[p] and opp[p]
        if p in pinned_me and not both:
            raise InvalidPosition(f"point {p} is marked pinned but is not a pin stack")
        if pinned_opp is not None and p in pinned_opp and not both:
            raise InvalidPosition(f"point {p} is marked pinned but is not a pin stack")
        if not both:
            continue
        if r.contact != PIN:
            raise InvalidPosition(f"point {p} holds checkers of both sides ({r.name})")
        if pinned_opp is not None and (p in pinned_me) == (p in pinned_opp):
            raise InvalidPosition(f"point {p}: say which side's checker is pinned (exactly one)")
        pinned_count = me[p] if p in pinned_me else opp[p]
        if pinned_count != 1:
            raise InvalidPosition(f"point {p} has {pinned_count} pinned checkers; a pin stack has exactly one")


def validate_rows(arr: np.ndarray, r: Ruleset) -> None:
    """:func:`validate_row` for every row of ``uint8[N, PACKED_WIDTH]``; the error names the row.

    Raises
    ------
    tawla.errors.InvalidPosition
    """
    for i in range(arr.shape[0]):
        try:
            validate_row(arr[i].tobytes(), r)
        except InvalidPosition as e:
            raise InvalidPosition(f"row {i}: {e}") from None


def check_rows_array(positions) -> np.ndarray:
    """A batch of rows as a C-contiguous ``uint8[N, PACKED_WIDTH]`` (shape and dtype checked).

    Raises
    ------
    tawla.errors.InvalidId
    """
    try:
        arr = np.asarray(positions)
    except (TypeError, ValueError):  # ragged nested lists
        raise InvalidId(f"positions must be an array of shape (N, {PACKED_WIDTH})") from None
    if arr.ndim != 2 or arr.shape[1] != PACKED_WIDTH:
        raise InvalidId(f"positions must have shape (N, {PACKED_WIDTH}), not {arr.shape}")
    if arr.dtype != np.uint8:
        raise InvalidId(f"positions must be uint8, not {arr.dtype}")
    return np.ascontiguousarray(arr)


def check_dice_array(dice, n: int) -> np.ndarray:
    """Batch dice as a C-contiguous ``uint8[n, 2]`` with values 1..6, from an array of any
    integer dtype (not bool, not float: nothing is rounded or wrapped).

    Raises
    ------
    tawla.errors.InvalidDice
    """
    try:
        d = np.asarray(dice)
    except (TypeError, ValueError):  # ragged nested lists
        raise InvalidDice(f"dice must be an array of shape ({n}, 2)") from None
    if d.shape != (n, 2):
        raise InvalidDice(f"dice must have shape ({n}, 2), not {d.shape}")
    if d.dtype == np.bool_ or not np.issubdtype(d.dtype, np.integer):
        raise InvalidDice(f"dice must be integers, not {d.dtype}")
    if d.size and (d.min() < 1 or d.max() > 6):
        raise InvalidDice("dice must be in 1..6")
    return np.ascontiguousarray(d, dtype=np.uint8)
