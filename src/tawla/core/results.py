"""How a game ends: :class:`ResultKind` (codes shared with the C engine) and :class:`GameResult`.

RULES.md §1.7 (frozen positions), §1.8 (scoring), §2.2 (gammon, backgammon), §4.4 (the
plakoto mother rule), §5.6 (the tawla31 quadrant lock).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum

__all__ = ["ResultKind", "KINDS", "GameResult", "BASE_POINTS"]


class ResultKind(IntEnum):
    """The kinds of game end. The integer codes are those of the C engine's results and of
    :attr:`tawla.PlayoutResult.kind`; :attr:`label` is the name used everywhere in Python
    (``GameResult.kind``, JSON, reports)."""

    SINGLE = 0
    GAMMON = 1  # mars in the 1/2 games; in tawla31 the loser bore off none (15 points)
    BACKGAMMON = 2
    QUADRANT_LOCK = 3
    MOTHER = 4
    DRAW = 5
    UNFINISHED = 6  # a playout cut at its turn limit (never a GameResult)

    @property
    def label(self) -> str:
        """The lower-case name: ``"single"``, ``"gammon"``, ..., ``"quadrant_lock"``."""
        return self.name.lower()


KINDS = tuple(k.label for k in ResultKind)
"""The kind labels indexed by code."""

BASE_POINTS = {"single": 1, "gammon": 2, "backgammon": 3}
"""Points at cube 1 of a single win, a gammon (mars) and a backgammon (RULES.md §1.8, §2.2)."""


@dataclass(frozen=True)
class GameResult:
    """The end of a game, relative to the seat of the position it was computed for.

    Attributes
    ----------
    winner : int or None
        0 = the player on roll in that position, 1 = the opponent, None for a draw.
    kind : str
        A :class:`ResultKind` label: ``"single"``, ``"gammon"`` (mars), ``"backgammon"``,
        ``"quadrant_lock"`` (§5.6), ``"mother"`` (§4.4 plakoto option) or ``"draw"``
        (frozen position, §1.7).
    points : int
        Points the winner scores (RULES.md §1.8): cube x 1/2/3 for backgammon, 1/2 for
        adi, mahbusa and tawla31-saharat, 15 minus the loser's checkers off for tawla31,
        0 for a draw.
    """

    winner: int | None
    kind: str
    points: int
