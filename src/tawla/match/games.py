"""Games within a match: the opening roll, the end of a turn, of a game and of the match.

Games start by themselves: the opening roll (RULES.md §1.6: each player throws one die,
ties are thrown again; the higher die plays the two dice shown, or rolls both dice again
where the ruleset has ``opening_reroll``, as tawla31 does) is thrown by the engine as soon
as a game starts; with ``previous_winner_starts`` the winner of the previous game (not a
draw) simply has the first roll. A frozen position (§1.7) is a draw that adds nothing and
is replayed (D21). The match ends as soon as a score reaches or passes the length
(§2.4); a money session (``length=0``) ends only when a player leaves. Coin tables pay
the winner the pot less the house fee.
"""

from __future__ import annotations

from ..errors import InvalidAction, quote
from ..native import format_steps, game_result, next_turn_row
from ..position import position_of
from ..rules.match_play import Phase, crawford_game, jacoby_points
from ..rules.opening import opening_roll
from .cube_state import CENTRED
from .timers import TimersMixin

__all__ = ["GamesMixin"]

_REASONS = {"quadrant_lock": "quadrant_lock", "mother": "mother"}


class GamesMixin(TimersMixin):
    """Starting and ending turns, games and the match (RULES.md §1.6-§1.8, §2.4)."""

    def _new_game(self, t):
        self._game_no += 1
        self._cube, self._doubler = CENTRED, None
        self._turns = [0, 0]
        self._offer = self._resume = None
        self._turn_clock = self._turn_clock.stopped()
        self._dice, self._played = None, ()
        self._clear_turn()
        L, sc = self.length, self._score
        self._crawford_game = (self.cube_in_play and self.house.crawford
                               and crawford_game(L, sc, self._crawford_done))
        self._start = self.ruleset.initial_position()
        self._emit(t, "game_start", game=self._game_no, score=tuple(sc), crawford=self._crawford_game)
        if self.ruleset.previous_winner_starts and self._last_winner is not None:
            self._turn = self._last_winner
            self._phase = Phase.ROLL
            self._set_timers("roll", t)
            return
        while True:
            d0, d1 = self._throw_dice()
            o = opening_roll(self.ruleset, d0, d1)
            self._emit(t, "opening", dice=(d0, d1), starter=o.starter)
            if o.starter is not None:
                break
        self._turn = o.starter
        if o.reroll:
            self._phase = Phase.ROLL
            self._set_timers("roll", t)
        else:
            self._begin_move(o.dice, t)

    def _finish_turn(self, after_row, single_steps, how, t, text=None):
        """End the turn of :attr:`turn` with the board ``after_row`` (his seat) reached by
        ``single_steps`` (single Steps with their hits; ``text`` their notation when known):
        log it, then end the game or pass the dice."""
        p = self._turn
        r = self.ruleset
        if text is None:
            text = format_steps(single_steps)
        self._events.append({"type": "turn", "t": t, "player": p, "dice": self._dice, "move": text,
                             "how": how})
        turns = list(self._turns)
        turns[p] += 1
        self._turns = turns
        cube = self._cube.value
        if cube & (cube - 1):
            raise InvalidAction(f"the cube value is a power of two >= 1, not {quote(cube)}")
        row, over = next_turn_row(after_row, r)
        res = game_result(row, r, cube) if over else None
        self._dice, self._played = None, ()
        self._clear_turn()
        self._start = position_of(row, r)
        self._turn = 1 - p
        if res is not None:
            if res.winner is None:
                self._end_game(None, "draw", 0, "frozen", t)
            else:
                winner = (1 - p) if res.winner == 0 else p
                reason = _REASONS.get(res.kind, "bear_off")
                self._end_game(winner, res.kind, self._jacoby(res.kind, res.points), reason, t)
            return
        self._phase = Phase.ROLL
        if t is not None or self._turn_clock.running:
            self._set_timers("roll", t)

    def _jacoby(self, kind, points):
        """§2.4 Jacoby (D19): money sessions only, gammons count single while the cube is at 1."""
        return jacoby_points(kind, points, self._cube.value, money=self.length == 0,
                             jacoby=self.house.jacoby and self.cube_in_play)

    def _end_game(self, winner, kind, points, reason, t):
        self._emit(t, "game_end", game=self._game_no, winner=winner, kind=kind, points=points,
                   reason=reason, cube=self._cube.value)
        self._games.append({"game": self._game_no, "score": list(self._score), "winner": winner,
                            "kind": kind, "points": points, "reason": reason, "cube": self._cube.value})
        if winner is not None:
            score = list(self._score)
            score[winner] += points
            self._score = score
            if self._crawford_game:
                self._crawford_done = True
        self._last_winner = winner
        self._offer = self._resume = self._doubler = None
        self._turn_clock = self._turn_clock.stopped()
        self._dice, self._played = None, ()
        self._clear_turn()
        if self.length > 0 and winner is not None and self._score[winner] >= self.length:
            self._end_match(winner, "score", t)
        else:
            self._new_game(t)

    def _end_match(self, winner, reason, t):
        self._phase = Phase.OVER
        self._winner = winner
        self._end = reason
        self._turn_clock = self._turn_clock.stopped()
        self._crawford_game = False
        if self.house.coin_table and winner is not None:
            pot = 2 * self.house.stake
            fee = pot * self.house.fee_percent // 100
            self._payout = {"winner": winner, "pot": pot, "fee": fee, "prize": pot - fee}
        self._emit(t, "match_end", winner=winner, reason=reason, score=tuple(self._score),
                   payout=dict(self._payout) if self._payout is not None else None)
