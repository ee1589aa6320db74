"""The :class:`Move` value: one legal move, its steps and the rows before and after it."""

from __future__ import annotations

from typing import Iterable, Protocol

from ..errors import ConfigError
from .steps import Step, format_steps

__all__ = ["Move", "register_position_type", "position_type"]



class RulesOf(Protocol):
    """What a :class:`Move` needs of its ruleset (a :class:`tawla.Ruleset`): its id and what
    landing on a single opponent checker does."""

    @property
    def name(self) -> str: ...

    @property
    def contact(self) -> str: ...


_POSITION_TYPE: list[type | None] = [None]


def register_position_type(cls: type) -> None:
    """Called once by :mod:`tawla.position`: the board class that :meth:`Move.result_position`
    and :meth:`tawla.Ruleset.initial_position` build (``cls(row, ruleset)``). It lets the
    value and rules layers return the board type of the layer above without importing it."""
    _POSITION_TYPE[0] = cls


def position_type() -> type:
    """The registered board class (:class:`tawla.Position` once the package is imported).

    Raises
    ------
    tawla.errors.ConfigError
        Before :mod:`tawla.position` has registered it (``import tawla`` does).
    """
    cls = _POSITION_TYPE[0]
    if cls is None:
        raise ConfigError("no board class registered yet: import tawla (tawla.position registers it)")
    return cls


class Move:
    """A legal move: the single steps of one canonical path and the board they lead to.

    Moves are made by :meth:`tawla.Position.legal_moves` and :func:`tawla.parse_move`; two
    moves are equal when they start from the same position and lead to the same one.

    Attributes
    ----------
    steps : tuple[Step, ...]
        Single-die steps in play order. The canonical path: of all the orders that reach
        the resulting position, the first found when trying dice from high to low and,
        for each die, checkers from the highest point down. A pass has no steps.
    dice : (int, int)
        The roll.
    ended : bool
        Whether the move ends the game (last checker off, quadrant lock, mother rule).
    source, after : bytes
        Packed rows (mover's seat) before and after the move.
    ruleset : Ruleset
    """

    __slots__ = ("steps", "dice", "ended", "source", "after", "ruleset")
    steps: tuple[Step, ...]
    dice: tuple[int, int]
    ended: bool
    source: bytes
    after: bytes
    ruleset: RulesOf

    def __init__(self, steps: Iterable[Step], dice: Iterable[int], ended: bool, source: bytes, after: bytes,
                 ruleset: RulesOf) -> None:
        set_ = object.__setattr__
        set_(self, "steps", tuple(steps))
        set_(self, "dice", tuple(dice))
        set_(self, "ended", ended)
        set_(self, "source", source)
        set_(self, "after", after)
        set_(self, "ruleset", ruleset)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Move is immutable")

    def __delattr__(self, name: str) -> None:
        raise AttributeError("Move is immutable")

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, Move) and self.after == other.after and self.source == other.source
                and self.ruleset == other.ruleset)

    def __hash__(self) -> int:
        return hash((self.source, self.after))

    def __str__(self) -> str:
        return format_steps(self.steps)

    def __repr__(self) -> str:
        return f"<Move {self} ({self.dice[0]}-{self.dice[1]})>"

    @classmethod
    def passing(cls, row: bytes, dice: tuple[int, int], ruleset: RulesOf) -> Move:
        """The empty move of a turn that passes (legal only when no other move is)."""
        return cls((), dice, False, row, row, ruleset)

    def result_position(self):  # a tawla.Position: the class lives in a layer above this one
        """The :class:`tawla.Position` after the move, still seen from the mover's seat (not flipped)."""
        return position_type()(self.after, self.ruleset)

    @property
    def is_pass(self) -> bool:
        """True for the empty move of a turn that passes."""
        return not self.steps
