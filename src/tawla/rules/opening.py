"""The opening roll (RULES.md §1.6) as a pure function of the two single dice thrown.

Each player throws one die; a tie is thrown again. The higher die starts and plays the two
dice shown, or rolls both dice again where the ruleset has ``opening_reroll`` (tawla31).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..core.dice import check_dice
from . import get_ruleset

__all__ = ["OpeningRoll", "opening_roll"]


@dataclass(frozen=True)
class OpeningRoll:
    """The outcome of one throw of the opening roll (RULES.md §1.6).

    Attributes
    ----------
    starter : int or None
        0 or 1 (the player whose die was higher), None on a tie (both throw again).
    dice : (int, int) or None
        The dice the starter plays now, or None when the starter must roll both dice
        again (``opening_reroll``) or on a tie.
    reroll : bool
        True when the starter rolls both dice again for his first turn.
    """

    starter: int | None
    dice: tuple | None
    reroll: bool


def opening_roll(ruleset, die0: int, die1: int) -> OpeningRoll:
    """The opening-roll procedure as a pure function of the two single dice thrown (§1.6).

    Parameters
    ----------
    ruleset : Ruleset or str
    die0, die1 : int
        The die thrown by player 0 and by player 1, each 1..6.

    Returns
    -------
    OpeningRoll

    Raises
    ------
    tawla.errors.InvalidDice
        A die that is not an integer 1..6.
    tawla.errors.UnsupportedRuleset
        An unknown ruleset name.
    """
    r = get_ruleset(ruleset)
    die0, die1 = check_dice((die0, die1))
    if die0 == die1:
        return OpeningRoll(None, None, False)
    starter = 0 if die0 > die1 else 1
    if r.opening_reroll:
        return OpeningRoll(starter, None, True)
    return OpeningRoll(starter, (max(die0, die1), min(die0, die1)), False)
