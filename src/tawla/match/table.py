"""The table around a match: players leaving, disconnecting and coming back (RULES.md §1.9).

Leaving a match forfeits it (coin tables pay the other player); leaving a money session
ends it, the game in progress lost first. On a coin table with a ``grace_period`` a
player the server reports gone forfeits the match unless he is back in time (the deadline
is handled by ``on_timeout``).
"""

from __future__ import annotations

from ..errors import InvalidAction, quote
from ..rules import Scoring
from ..rules.match_play import Phase
from .base import action, check_player, finite
from .cube import CubeMixin

__all__ = ["TableMixin"]


class TableMixin(CubeMixin):
    """Leave, forfeit, disconnect and reconnect."""

    @action
    def leave(self, player):
        """``player`` leaves the table.

        In a match, he forfeits the whole match: the other player wins it (coin tables pay
        out). In a money session, the session ends; a game in progress (a turn played or the
        cube turned) is first lost by the leaver as if he had resigned the most he can
        (backgammon, mars, or 15 minus his checkers off in tawla31).

        Raises
        ------
        tawla.errors.InvalidAction
            The match is already over.
        """
        player = check_player(player)
        if self._phase == Phase.OVER:
            raise InvalidAction("the match is over")
        t = self._now()
        self._emit(t, "leave", player=player)
        self._forfeit(player, t)

    def _forfeit(self, player, t):
        if self.length > 0:
            self._emit(t, "game_end", game=self._game_no, winner=1 - player, kind="forfeit",
                       points=0, reason="forfeit", cube=self._cube.value)
            self._end_match(1 - player, "forfeit", t)
            return
        if sum(self._turns) > 0 or self._cube.value > 1:
            kind = {Scoring.CUBE: "backgammon", Scoring.MARS: "gammon"}.get(self.ruleset.scoring, "single")
            pts = self._resign_points(player, kind)
            w = 1 - player
            self._emit(t, "game_end", game=self._game_no, winner=w, kind=kind, points=pts,
                       reason="forfeit", cube=self._cube.value)
            self._games.append({"game": self._game_no, "score": list(self._score), "winner": w,
                                "kind": kind, "points": pts, "reason": "forfeit", "cube": self._cube.value})
            score = list(self._score)
            score[w] += pts
            self._score = score
        a, b = self._score
        self._end_match(None if a == b else (0 if a > b else 1), "session_end", t)

    @action
    def disconnect(self, player):
        """The server reports ``player`` gone (not an action of his). On a coin table with a
        grace period he forfeits the match unless he is back (:meth:`reconnect`) in time.

        Raises
        ------
        tawla.errors.InvalidAction
            Already reported, or the match is over.
        """
        player = check_player(player)
        if self._phase == Phase.OVER:
            raise InvalidAction("the match is over")
        if self._away[player] is not None:
            raise InvalidAction(f"player {player} is already away")
        t = self._now()
        away = list(self._away)
        away[player] = t if t is not None else 0
        self._away = away
        if not all(finite(d) for d in self._grace_deadlines()):
            raise InvalidAction(f"the grace period from {quote(t)} ends past the range of a float")
        self._emit(t, "disconnect", player=player)

    @action
    def reconnect(self, player):
        """The server reports ``player`` back.

        Raises
        ------
        tawla.errors.InvalidAction
            He was not away, or the match is over.
        """
        player = check_player(player)
        if self._phase == Phase.OVER:
            raise InvalidAction("the match is over")
        if self._away[player] is None:
            raise InvalidAction(f"player {player} is not away")
        t = self._now()
        away = list(self._away)
        away[player] = None
        self._away = away
        self._emit(t, "reconnect", player=player)
