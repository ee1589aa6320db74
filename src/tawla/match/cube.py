"""The doubling cube and resignations (RULES.md §2.3, §2.4, §5.7).

``double`` is offered by :attr:`~tawla.match.Match.turn` before rolling (where the cube is
in play) and awaits the other player's ``take`` or ``drop``. A resignation offer (either
player, phases ``roll`` and ``move``) awaits the other player's ``accept_resignation`` or
``reject_resignation``; a rejection returns to the phase the offer was made in (steps
already made are kept).
"""

from __future__ import annotations

from ..core.results import BASE_POINTS
from ..errors import InvalidAction, NotYourTurn, quote
from ..rules import Scoring
from ..rules.match_play import Phase
from .base import RESIGN_KINDS, action, check_player
from .games import GamesMixin

__all__ = ["CubeMixin"]


class CubeMixin(GamesMixin):
    """Doubles (Crawford, Jacoby, Holland) and resignation offers."""

    def can_double(self, player: int) -> bool:
        """Whether ``player`` may double now."""
        try:
            player = check_player(player)
        except InvalidAction:
            return False
        return self._double_refusal(player) is None

    def _double_refusal(self, player):
        """None when ``player`` may double now, else the exception to raise."""
        if self._phase == Phase.OVER:
            return InvalidAction("the match is over")
        if player != self._turn:
            return NotYourTurn(f"player {player} may not double: it is player {self._turn}'s turn")
        if self._phase != Phase.ROLL:
            return InvalidAction(f"a double is offered before rolling, not in the {self._phase} phase")
        if not self.cube_in_play:
            return InvalidAction(f"no doubling cube in {self.ruleset.name} at the {self.house.name} house")
        if self._crawford_game:
            return InvalidAction("no doubling in the Crawford game")
        if not self._cube.may_double(player):
            return InvalidAction(f"player {1 - player} owns the cube")
        if (self.house.holland and self.is_post_crawford and self.length > 0
                and self._score[player] < self.length - 1 and min(self._turns) < 2):
            return InvalidAction("Holland rule: the trailer may double only after both players "
                                 "have played two turns of this game")
        return None

    def _resign_points(self, player, kind):
        """The points a resignation of ``kind`` by ``player`` concedes now.

        Raises
        ------
        tawla.errors.InvalidAction
            An unknown kind, or a backgammon where the ruleset scores mars.
        """
        r = self.ruleset
        if not isinstance(kind, str) or kind not in RESIGN_KINDS:
            raise InvalidAction(f"a resignation is one of {', '.join(RESIGN_KINDS)}, not {quote(kind)}")
        if r.scoring == Scoring.CHECKERS_LEFT:  # §5.7: 15 minus the resigner's checkers off
            off = self._start.row[0] if player == self._turn else self._start.row[26]
            return 15 - off
        if r.scoring == Scoring.MARS:
            if kind == "backgammon":
                raise InvalidAction(f"{r.name} has no backgammon: resign a single game or a mars (gammon)")
            return BASE_POINTS[kind]
        return self._jacoby(kind, BASE_POINTS[kind] * self._cube.value)

    def _check_answer(self, player, phase, what, owner):
        player = check_player(player)
        if self._phase == Phase.OVER:
            raise InvalidAction("the match is over")
        if self._phase != phase:
            raise InvalidAction(f"no {'double' if phase == 'double' else 'resignation'} is pending")
        if player == owner:
            raise NotYourTurn(f"player {player} may not {what} his own "
                              f"{'double' if phase == Phase.DOUBLE else 'resignation'}")
        return player

    # ------------------------------------------------------------------ the cube
    @action
    def double(self, player: int) -> None:
        """Offer a double (phase ``roll``, before rolling).

        Refused in the Crawford game, when the opponent owns the cube, where the ruleset or
        house has no cube, and under the Holland rule (post-Crawford, the trailer, before both
        players have played two turns).

        Raises
        ------
        tawla.errors.NotYourTurn, tawla.errors.InvalidAction
        """
        player = check_player(player)
        err = self._double_refusal(player)
        if err is not None:
            raise err
        t = self._now()
        self._doubler = player
        self._phase = Phase.DOUBLE
        self._set_timers("offer", t)
        self._emit(t, "double", player=player, value=self._cube.offered)

    @action
    def take(self, player: int) -> None:
        """Take the pending double: the cube doubles and ``player`` owns it.

        Raises
        ------
        tawla.errors.NotYourTurn
            Taking one's own double.
        tawla.errors.InvalidAction
            No double pending.
        """
        player = self._check_answer(player, Phase.DOUBLE, "take", self._doubler)
        t = self._now()
        self._emit(t, "take", player=player, value=self._cube.offered)
        self._cube = self._cube.taken_by(player)
        self._doubler = None
        self._phase = Phase.ROLL
        self._set_timers("roll", t)

    @action
    def drop(self, player: int) -> None:
        """Drop the pending double: the doubler wins the cube value before the double (§2.3).

        Raises
        ------
        tawla.errors.NotYourTurn, tawla.errors.InvalidAction
        """
        player = self._check_answer(player, Phase.DOUBLE, "drop", self._doubler)
        t = self._now()
        self._emit(t, "drop", player=player)
        self._do_drop(t)

    def _do_drop(self, t):
        self._end_game(self._doubler, "single", self._cube.value, "drop", t)

    # ------------------------------------------------------------------ resignations
    @action
    def resign(self, player: int, kind: str = "single") -> None:
        """Offer to resign the game (either player, phases ``roll`` and ``move``).

        Parameters
        ----------
        kind : {"single", "gammon", "backgammon"}
            What the resigner concedes: 1, 2 or 3 x cube (backgammon; Jacoby applies in money
            sessions), 1 or 2 (mars) in adi, mahbusa and tawla31-saharat (no backgammon); in
            tawla31 any kind concedes 15 minus the resigner's checkers off. The points are
            fixed when the offer is made, on the board at the start of the turn (steps not yet
            confirmed do not count).

        Raises
        ------
        tawla.errors.InvalidAction
            Another offer or a double is pending, the match is over, or a bad kind.
        """
        player = check_player(player)
        if self._phase not in (Phase.ROLL, Phase.MOVE):
            raise InvalidAction(f"cannot resign in the {self._phase} phase")
        points = self._resign_points(player, kind)
        t = self._now()
        self._offer = {"player": player, "kind": kind, "points": points}
        self._resume = self._phase
        self._turn_clock = self._turn_clock.paused_at(t)
        self._phase = Phase.RESIGN
        self._set_timers("offer", t)
        self._emit(t, "resign", player=player, kind=kind, points=points)

    @action
    def accept_resignation(self, player: int) -> None:
        """Accept the pending resignation: the game ends for the points offered.

        Raises
        ------
        tawla.errors.NotYourTurn
            Accepting one's own resignation.
        tawla.errors.InvalidAction
            No resignation pending.
        """
        player = self._check_answer(player, Phase.RESIGN, "accept", (self._offer or {}).get("player"))
        t = self._now()
        self._emit(t, "accept_resignation", player=player)
        o = self._offer
        self._end_game(1 - o["player"], o["kind"], o["points"], "resign", t)

    @action
    def reject_resignation(self, player: int) -> None:
        """Reject the pending resignation: play goes on where it was.

        Raises
        ------
        tawla.errors.NotYourTurn, tawla.errors.InvalidAction
        """
        player = self._check_answer(player, Phase.RESIGN, "reject", (self._offer or {}).get("player"))
        t = self._now()
        self._emit(t, "reject_resignation", player=player)
        self._do_reject(t)

    def _do_reject(self, t):
        self._phase = self._resume
        self._turn_clock = self._turn_clock.resumed_at(t)
        self._offer = self._resume = None
