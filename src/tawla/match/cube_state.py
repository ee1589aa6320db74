"""The doubling cube of a game as a value (RULES.md §2.3): its value and who owns it.

A :class:`Cube` is never changed: a take returns a new one, so a match's state holds it as
it holds any value, and an action that fails puts the old one back with the rest.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Cube", "CENTRED"]


@dataclass(frozen=True)
class Cube:
    """The cube: ``value`` (1, 2, 4, ...) and ``owner`` (0 or 1; None while centred)."""

    value: int = 1
    owner: int | None = None

    @property
    def offered(self) -> int:
        """The value a double offers (twice the cube's)."""
        return 2 * self.value

    def may_double(self, player: int) -> bool:
        """Whether the cube is ``player``'s to turn: centred, or his."""
        return self.owner is None or self.owner == player

    def taken_by(self, player: int) -> "Cube":
        """The cube after ``player`` took a double: twice the value, his."""
        return Cube(2 * self.value, player)


CENTRED = Cube()
"""The cube at the start of a game: 1, centred."""
