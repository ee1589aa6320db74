"""Rules of match and money play that sit above a single game (RULES.md §2.4).

The phases of a match, the Crawford rule and the Jacoby rule, written once for the match engine and the analysis.
"""

from __future__ import annotations

from enum import StrEnum

__all__ = ["Phase", "crawford_game", "jacoby_points"]


class Phase(StrEnum):
    """The phases of a match (see :mod:`tawla.match`). A ``str``: each member equals its value
    (``Phase.OVER == "over"``) and is written as it in JSON."""

    ROLL = "roll"  # the player on turn rolls (or doubles first)
    MOVE = "move"  # the player on turn plays his dice
    DOUBLE = "double"  # a double awaits the answer
    RESIGN = "resign"  # a resignation offer awaits the answer
    OVER = "over"  # the match is over


def crawford_game(length: int, score, crawford_done: bool) -> bool:
    """§2.4 (D20): whether the game about to start is the Crawford game.

    Parameters
    ----------
    length : int
        Points to win the match; 0 for a money session (never Crawford).
    score : (int, int)
        The score before the game.
    crawford_done : bool
        Whether the Crawford game of this match has already been played.

    Returns
    -------
    bool
        True for the first game in which exactly one player is one point from winning.
    """
    a, b = score
    return bool(length > 0 and not crawford_done and (a == length - 1) != (b == length - 1)
                and max(a, b) < length)


def jacoby_points(kind: str, points: int, cube: int, *, money: bool, jacoby: bool) -> int:
    """§2.4 (D19): under the Jacoby rule, in a money session, a gammon or backgammon counts
    a single game while the cube is still at 1.

    Parameters
    ----------
    kind : str
        The result kind label (``"single"``, ``"gammon"``, ``"backgammon"``, ...).
    points : int
        The points the result is worth without the rule.
    cube : int
        The cube value.
    money, jacoby : bool
        Whether the game is a money session and the Jacoby rule is in force.
    """
    if money and jacoby and cube == 1 and kind in ("gammon", "backgammon"):
        return cube
    return points
