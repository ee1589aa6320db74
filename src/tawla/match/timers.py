"""The clocks of a match: turn, step and answer timers, the grace period, :meth:`on_timeout`.

With a clock and a house that has timers (:class:`~tawla.match.house.HouseRules`), in
seconds of the injected clock:

* waiting for a roll: ``step_time`` if the house has one, else ``turn_time``, from the start
  of the turn;
* moving: ``turn_time`` from the roll, and ``step_time`` from the roll, the last step or the
  last undo, whichever runs out first;
* answering a double or a resignation offer: ``step_time``, else ``turn_time``; while a
  resignation offer is pending the mover's clocks are paused and resume with the time left;
* coin tables with a ``grace_period``: a player reported by ``disconnect`` who is not back
  (``reconnect``) within the grace period forfeits the match.
"""

from __future__ import annotations

import numpy as np

from ..errors import InvalidAction, quote
from ..rules.match_play import Phase
from .base import MatchBase, action, finite

__all__ = ["TimersMixin"]


class TimersMixin(MatchBase):
    """Deadlines and their expiry (RULES.md §1.9, house timers)."""

    def _set_timers(self, kind, t):
        """Start the timers of a phase waiting for ``kind`` (``"roll"``, ``"move"``,
        ``"offer"``) at time t (no clock: none); paused timers are kept."""
        self._turn_clock = self._turn_clock.start(kind, t, self.house)

    def _restart_step_timer(self, t):
        """A step or an undo at time t starts the step clock again."""
        self._turn_clock = self._turn_clock.step_restarted(t, self.house)

    @property
    def deadline(self):
        """The time (seconds of the clock) at which the server should call
        :meth:`on_timeout`, or None."""
        d = self._turn_clock.deadline
        ds = ([] if d is None else [d]) + self._grace_deadlines()
        return min(ds) if ds else None

    def _grace_deadlines(self):
        g = self.house.grace_period
        if self._phase == Phase.OVER or g is None or not self.house.coin_table or self._created is None:
            return []
        return [a + g for a in self._away if a is not None]

    @action
    def on_timeout(self, now):
        """The server's call once ``now >= deadline``: handle the earliest expired deadline.

        Waiting for a roll: the dice are rolled. Moving: the turn is completed by the timeout
        policy with a legal maximal move that keeps the steps made. A pending double is
        dropped; a pending resignation offer is rejected; an absent player past the grace
        period forfeits the match. Call again while :attr:`deadline` is still ``<= now``.

        Parameters
        ----------
        now : float
            Seconds, on the match's clock.

        Raises
        ------
        tawla.errors.InvalidAction
            ``now`` not a finite number, no deadline, or ``now`` is before it; a policy that
            chose no candidate.
        """
        if isinstance(now, np.generic):
            now = now.item()
        if isinstance(now, bool) or not isinstance(now, (int, float)) or not finite(now):
            raise InvalidAction(f"now must be a finite number of seconds, not {quote(now)}")
        if self._phase == Phase.OVER:
            raise InvalidAction("the match is over")
        dl = self.deadline
        if dl is None or now < dl:
            raise InvalidAction(f"no deadline has passed (deadline {dl}, now {now})")
        g = self.house.grace_period
        for p in (0, 1):
            a = self._away[p]
            if self._grace_deadlines() and a is not None and a + g == dl:
                self._emit(now, "timeout", player=p, action="forfeit")
                self._forfeit(p, now)
                return
        if self._phase == Phase.ROLL:
            ev = self._emit(now, "timeout", player=self._turn, action="roll")
            self._do_roll(self._turn, now, ev)
        elif self._phase == Phase.MOVE:
            ev = self._emit(now, "timeout", player=self._turn, action="complete")
            self._auto_complete(now, ev)
        elif self._phase == Phase.DOUBLE:
            self._emit(now, "timeout", player=1 - self._doubler, action="drop")
            self._do_drop(now)
        elif self._phase == Phase.RESIGN:
            self._emit(now, "timeout", player=1 - self._offer["player"], action="reject")
            self._do_reject(now)
        else:  # pragma: no cover - every phase with a timer is handled above
            raise InvalidAction(f"nothing to time out in the {self._phase} phase")
