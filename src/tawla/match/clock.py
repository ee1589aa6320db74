"""A match's turn clock as a value (RULES.md §1.9, the house's timers): the deadlines of the
timers running in the current phase and, while a resignation offer is pending, the time left
on the mover's paused timers.

A :class:`TurnClock` is never changed: every method returns a new one, so a match's state
holds it as it holds any value, and an action that fails puts the old one back with the rest.
Times are seconds of the match's injected clock; a time of None (a match without a clock)
runs no timer.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Mapping

from ..errors import InvalidAction, quote
__all__ = ["TurnClock", "TIMER_KINDS", "finite"]

TIMER_KINDS = ("roll", "move", "offer")
"""What a phase's timers wait for: a roll, a move, an answer to a double or a resignation."""


def finite(x) -> bool:
    """Whether the real number ``x`` is finite as a float (an int too large for one is not)."""
    try:
        return math.isfinite(x)
    except OverflowError:
        return False


def _checked(timers: dict[str, float]) -> dict[str, float]:
    """``timers`` once every value in it is a finite number.

    Raises
    ------
    tawla.errors.InvalidAction
        A value past the range of a float (a clock time near it plus a limit).
    """
    for k, v in timers.items():
        if not finite(v):
            raise InvalidAction(f"the {k} timer {quote(v)} is not a finite number of seconds")
    return timers


@dataclass(frozen=True, eq=True)
class TurnClock:
    """The timers of a match's phase.

    Attributes
    ----------
    running : Mapping[str, float]
        Timer name (``roll``, ``turn``, ``step``, ``offer``) -> its deadline (seconds).
    paused : Mapping[str, float] or None
        While a resignation offer is pending: timer name -> seconds left on the mover's
        timers; else None.
    """

    running: Mapping[str, float] = field(default_factory=dict)
    paused: Mapping[str, float] | None = None

    __hash__ = None  # type: ignore[assignment]  # the mappings are not hashable

    @property
    def deadline(self) -> float | None:
        """The earliest deadline of the running timers, or None."""
        return min(self.running.values()) if self.running else None

    def start(self, kind: str, t: float | None, house: Any) -> "TurnClock":
        """The timers of a phase waiting for ``kind`` (:data:`TIMER_KINDS`) started at ``t``
        with ``house``'s limits (its ``turn_time`` and ``step_time``): a roll and an answer
        wait ``step_time``, else ``turn_time``; a move both ``turn_time`` and ``step_time``.
        The paused timers are kept.

        Raises
        ------
        tawla.errors.InvalidAction
            A deadline past the range of a float.
        """
        timers: dict[str, float] = {}
        if t is not None:
            if kind == "move":
                if house.turn_time:
                    timers["turn"] = t + house.turn_time
                if house.step_time:
                    timers["step"] = t + house.step_time
            else:
                limit = house.step_time or house.turn_time
                if limit:
                    timers[kind] = t + limit
        return TurnClock(_checked(timers), self.paused)

    def step_restarted(self, t: float | None, house: Any) -> "TurnClock":
        """A step or an undo at ``t`` starts the step timer again (houses with one)."""
        if not house.step_time or t is None:
            return self
        return TurnClock(_checked({**self.running, "step": t + house.step_time}), self.paused)

    def paused_at(self, t: float | None) -> "TurnClock":
        """The running timers paused at ``t`` with the time they had left (none run then)."""
        return TurnClock({}, _checked({k: v - t for k, v in self.running.items()}) if t is not None else None)

    def resumed_at(self, t: float | None) -> "TurnClock":
        """The paused timers running again from ``t`` with the time they had left."""
        running = _checked({k: t + v for k, v in self.paused.items()}) if self.paused is not None and t is not None else {}
        return TurnClock(running, None)

    def stopped(self) -> "TurnClock":
        """No timer running or paused."""
        return TurnClock()

    def to_json(self) -> tuple[dict[str, float], dict[str, float] | None]:
        """``(timers, paused)`` as the match's JSON state writes them."""
        return dict(self.running), dict(self.paused) if self.paused is not None else None

    @classmethod
    def from_json(cls, timers: Mapping[str, float], paused: Mapping[str, float] | None) -> "TurnClock":
        """The clock of a document's ``timers`` and ``paused``."""
        return cls(dict(timers), dict(paused) if paused is not None else None)
