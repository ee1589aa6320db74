"""Dice and rolls (RULES.md §1.3): validation, the dice a roll gives, the 21 distinct rolls.

:func:`check_dice` is the one validator of a roll given as a pair; batch dice arrays are
checked by :func:`tawla.rules.validation.check_dice_array`.
"""

from __future__ import annotations

from typing import Iterable

import numpy as np

from ..errors import InvalidDice, quote

__all__ = ["check_dice", "expand_dice", "ROLLS", "ROLL_WEIGHTS", "DiceLike"]

DiceLike = Iterable[int]
"""A roll as callers give it: two integers 1..6 in any iterable (a tuple, a list, a ``uint8[2]`` row)."""

ROLLS = np.array([(a, b) for a in range(1, 7) for b in range(a, 7)], dtype=np.uint8)
"""``uint8[21, 2]``: the 21 distinct rolls, (1,1), (1,2), ..., (1,6), (2,2), ..., (6,6)."""
ROLLS.setflags(write=False)

ROLL_WEIGHTS = np.array([1 / 36 if a == b else 2 / 36 for a, b in ROLLS], dtype=np.float64)
"""``float64[21]``: the probability of each roll in :data:`ROLLS` (1/36 doubles, 2/36 others)."""
ROLL_WEIGHTS.setflags(write=False)


def check_dice(dice: Iterable[int]) -> tuple[int, int]:
    """Validate a roll: two integers in 1..6.

    Returns
    -------
    (int, int)

    Raises
    ------
    tawla.errors.InvalidDice
    """
    try:
        a, b = dice
    except (TypeError, ValueError):
        raise InvalidDice(f"dice must be a pair of integers in 1..6, not {quote(dice)}") from None
    for d in (a, b):
        if isinstance(d, bool) or not isinstance(d, (int, np.integer)):
            raise InvalidDice(f"dice must be integers in 1..6, not {quote(dice)}")
        if not 1 <= int(d) <= 6:
            raise InvalidDice(f"dice must be in 1..6, not {quote(dice)}")
    return int(a), int(b)


def expand_dice(dice: tuple[int, int]) -> tuple[int, ...]:
    """§1.3: the dice a roll gives to play, high first — two for a non-double, four for a double."""
    a, b = dice
    return (a, a, a, a) if a == b else (max(a, b), min(a, b))
