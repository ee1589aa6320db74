"""The :class:`Step` value type (one checker's step), shared by both engines."""

from __future__ import annotations

from typing import NamedTuple

__all__ = ["Step"]


class Step(NamedTuple):
    """One checker's step (RULES.md §1.3).

    Attributes
    ----------
    from_point : int
        1..24, or 25 for the bar (mover's numbering).
    to_point : int
        1..24, or 0 for off.
    die : int or tuple[int, ...]
        The die used; for a one-checker combined step from :func:`legal_steps`, the
        dice in the order they are used.
    hit : bool
        The step hits a blot (backgammon, adi) or pins one (mahbusa); for a combined step,
        whether any part of it does.
    """

    from_point: int
    to_point: int
    die: int | tuple
    hit: bool

    @property
    def dice(self) -> tuple:
        """The dice used, always as a tuple."""
        return self.die if isinstance(self.die, tuple) else (self.die,)

    def path(self) -> tuple:
        """The points the checker touches after its start (0 = off), one per die."""
        pts, p = [], self.from_point
        for d in self.dice:
            p = max(p - d, 0)
            pts.append(p)
        return tuple(pts)

    def __str__(self):
        def name(p):
            return "bar" if p == 25 else "off" if p == 0 else str(p)
        return f"{name(self.from_point)}/{name(self.to_point)}" + ("*" if self.hit else "")


