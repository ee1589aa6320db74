"""The state every part of a :class:`~tawla.match.Match` shares, its transactions and queries.

A match's state lives in plain attributes of the object. Containers are never changed in
place: an action replaces a list, tuple or dict by a new one (the event log and the list of
finished games excepted, which only grow), so that :func:`action` can take a snapshot of the
whole state by copying the attribute dict, and put it back if the action fails.
"""

from __future__ import annotations

import copy
import functools
from typing import Any

import numpy as np

from ..errors import ConfigError, InvalidAction, InvalidArgument, NotYourTurn, quote
from ..native import resolve_engine, rng_restore, throw_dice, throw_dice_saving
from ..rules.match_play import Phase
from .clock import TurnClock, finite
from .cube_state import CENTRED
from .fair_dice import FairDice

__all__ = ["PHASES", "INPUT_EVENTS", "RESIGN_KINDS", "action", "check_player", "finite", "json_form", "log_form",
           "MatchBase"]

PHASES = tuple(Phase)
"""The phases of a match (see :mod:`tawla.match`)."""

INPUT_EVENTS = ("roll", "step", "undo", "confirm", "play", "double", "take", "drop", "resign",
                "accept_resignation", "reject_resignation", "leave", "disconnect", "reconnect",
                "timeout")
"""Event types that record an action of a player or of the server; :meth:`Match.replay`
feeds these back. The other event types are the engine's own."""

RESIGN_KINDS = ("single", "gammon", "backgammon")
"""What a resignation may concede."""


def action(fn):
    """Apply an action whole or not at all: on any exception the state is put back.

    The snapshot is a copy of the attribute dict (containers are replaced, never changed
    in place), the lengths of the event log and of the finished games, and the random
    generator's state, saved by :meth:`MatchBase._throw_dice` with the first dice of the
    action.
    """

    @functools.wraps(fn)
    def wrapper(self, *args, **kwargs):
        if self._in_action:  # an action called from another one: the outer one guards both
            return fn(self, *args, **kwargs)
        self._rng_saved = None
        self._in_action = True
        saved = self.__dict__.copy()
        n_events, n_games = len(self._events), len(self._games)
        try:
            return fn(self, *args, **kwargs)
        except BaseException:
            rng_state = self._rng_saved
            del saved["_events"][n_events:]
            del saved["_games"][n_games:]
            self.__dict__.clear()
            self.__dict__.update(saved)
            if rng_state is not None:
                if isinstance(self._rng, FairDice):
                    self._rng.n = rng_state
                else:
                    rng_restore(self._rng, rng_state)
            raise
        finally:
            self._in_action = False
            self._rng_saved = None

    return wrapper


def json_form(value):
    """``value`` with its tuples turned into lists, recursively (new containers): the JSON
    shape of a logged event. The log keeps an event's sequences (dice, steps, score) as
    tuples of ints, which the cycle collector stops following, so that a long log costs the
    collector nothing."""
    t = type(value)
    if t is tuple or t is list:
        return [json_form(v) for v in value]
    if t is dict:
        return {k: json_form(v) for k, v in value.items()}
    return value


def log_form(value):
    """The reverse of :func:`json_form`: lists turned into tuples, recursively (dicts kept)."""
    t = type(value)
    if t is list or t is tuple:
        return tuple(log_form(v) for v in value)
    if t is dict:
        return {k: log_form(v) for k, v in value.items()}
    return value


def check_player(player) -> int:
    """``player`` as 0 or 1.

    Raises
    ------
    tawla.errors.InvalidAction
        Anything but 0 or 1 (a bool included).
    """
    if type(player) is int and (player == 0 or player == 1):
        return player
    if isinstance(player, bool) or not isinstance(player, (int, np.integer)) or player not in (0, 1):
        raise InvalidAction(f"a player is 0 or 1, not {quote(player)}")
    return int(player)


class MatchBase:
    """The fields of a match, the clock, the event log and the read-only queries.

    The parts of :class:`~tawla.match.Match` (turns, cube and resignation, table events,
    timers, games, the JSON record, the ``.mat`` export) are mixins over this class.
    """

    def _init_fields(self, r, h, length, players, rng, clock, policy):
        self.ruleset = r
        self.house = h
        self._engine = resolve_engine(None)  # the engine of the turn searches, fixed per match
        self.length: int = length
        self.players: tuple = players
        self._rng = rng
        self._clock = clock
        self._policy = policy or None  # None: bot_policy(r), built when first needed
        self._replay_after = None
        self._replaying = False
        self._undos = 0
        self._created = None
        self._rng_initial = None
        self._in_action = False
        self._rng_saved = None
        # match
        self._score = [0, 0]
        self._game_no = 0
        self._games = []
        self._crawford_game = False
        self._crawford_done = False
        self._last_winner = None
        self._winner = None
        self._end = None
        self._payout = None
        self._away = [None, None]
        # game
        self._phase = Phase.ROLL
        self._turn = 0
        self._start = None
        self._dice = None
        self._played = ()
        self._cube = CENTRED
        self._turns = [0, 0]
        self._doubler = None
        self._offer = None
        self._resume = None
        self._turn_clock = TurnClock()
        self._events = []
        self._log_text = (0, "")
        self._clear_turn()

    def _clear_turn(self):
        """Forget what was derived from the turn in progress (see the turn mixin)."""
        self._hops = ()
        self._lits = ()
        self._moves = None
        self._move_by_after = None
        self._kept_finals = None

    # ------------------------------------------------------------------ clock, dice, log
    def _now(self):
        if self._clock is None:
            return None
        t = self._clock()
        if isinstance(t, np.generic):
            t = t.item()
        if isinstance(t, bool) or not isinstance(t, (int, float)):
            raise ConfigError(f"clock() must return a number of seconds, not {quote(t)}")
        if not finite(t):
            raise InvalidAction(f"clock() returned {quote(t)}, not a finite number of seconds")
        return t

    @property
    def fair_dice(self) -> dict | None:
        """The public state of the match's provably fair dice (:class:`FairDice`): ``scheme``,
        ``commitment``, ``client_seeds``, ``n`` (rolls made) and, once the match is over,
        ``seed``; None for dice from a numpy generator."""
        if not isinstance(self._rng, FairDice):
            return None
        return self._rng.public(reveal=self._phase == Phase.OVER)

    def _throw_dice(self) -> tuple:
        """Two dice from the match's generator (:func:`tawla.native.throw_dice`; its state
        saved once per action first)."""
        if isinstance(self._rng, FairDice):
            if self._rng_saved is None:
                self._rng_saved = self._rng.n
            return self._rng.throw()
        if self._rng_saved is None:
            dice, self._rng_saved = throw_dice_saving(self._rng)
            return dice
        return throw_dice(self._rng)

    def _emit(self, t, type_, **fields):
        ev = {"type": type_, "t": t}
        ev.update(fields)
        self._events.append(ev)
        return ev

    def _require_turn(self, player, phase, what):
        if type(player) is not int or (player != 0 and player != 1):
            player = check_player(player)
        if self._phase == Phase.OVER:
            raise InvalidAction("the match is over")
        if player != self._turn:
            raise NotYourTurn(f"player {player} may not {what}: it is player {self._turn}'s turn")
        if self._phase != phase:
            raise InvalidAction(f"cannot {what} in the {self._phase} phase")
        return player

    # ------------------------------------------------------------------ queries
    @property
    def phase(self) -> str:
        """``"roll"``, ``"move"``, ``"double"``, ``"resign"`` or ``"over"``."""
        return self._phase

    @property
    def turn(self) -> int:
        """The player whose turn it is (0 or 1); during a pending double, the doubler."""
        return self._turn

    @property
    def to_act(self) -> int | None:
        """The player expected to act now: :attr:`turn`, the player who must answer a double
        or a resignation offer, or None when the match is over."""
        if self._phase == Phase.OVER:
            return None
        if self._phase == Phase.DOUBLE:
            return 1 - self._doubler
        if self._phase == Phase.RESIGN:
            return 1 - self._offer["player"]
        return self._turn

    @property
    def score(self) -> tuple[int, int]:
        """Points of (player 0, player 1)."""
        return tuple(self._score)

    @property
    def cube_value(self) -> int:
        """The cube value of the game in progress (1 where no cube is used)."""
        return self._cube.value

    @property
    def cube_owner(self) -> int | None:
        """None while the cube is centred, else the player who owns it."""
        return self._cube.owner

    @property
    def cube_in_play(self) -> bool:
        """Whether this match uses the doubling cube (the ruleset has one and the house offers it)."""
        return self.ruleset.cube and self.house.cube

    @property
    def is_crawford(self) -> bool:
        """True during the Crawford game (§2.4): derived from the score, matches with a cube only."""
        return self._crawford_game

    @property
    def is_post_crawford(self) -> bool:
        """True in the games after the Crawford game."""
        return self._crawford_done and not self._crawford_game

    @property
    def winner(self) -> int | None:
        """None until the match is over; then 0 or 1 (a money session: the player ahead, or
        None when the session ends level)."""
        return self._winner

    @property
    def end_reason(self) -> str | None:
        """None until the match is over; then ``"score"``, ``"forfeit"`` (a player left or did
        not come back in time) or ``"session_end"`` (a player left a money session)."""
        return self._end

    @property
    def payout(self):
        """Coin tables, once the match is over: ``{"winner", "pot", "fee", "prize"}`` (integer
        coins: the pot is both stakes, the fee ``fee_percent`` of it rounded down, the prize the
        rest, paid to the winner once). None otherwise."""
        return copy.deepcopy(self._payout)

    @property
    def game_number(self) -> int:
        """1 for the first game; a drawn game's replay is a new game."""
        return self._game_no

    @property
    def games(self) -> list[dict[str, Any]]:
        """The finished games: dicts with ``game``, ``score`` (before), ``winner`` (None for a
        draw), ``kind``, ``points``, ``reason`` and ``cube``."""
        return copy.deepcopy(self._games)

    @property
    def events(self) -> list[dict[str, Any]]:
        """A copy of the event log (see :mod:`tawla.match`), in its JSON shape (lists).

        This copies the whole log; a server that follows the log as it grows reads
        :attr:`event_count` and :meth:`events_since` instead."""
        return [json_form(ev) for ev in self._events]

    @property
    def event_count(self) -> int:
        """The number of events in the log (it only grows)."""
        return len(self._events)

    def events_since(self, n: int) -> list[dict[str, Any]]:
        """A copy of the events from index ``n`` on (``events[n:]``), in their JSON shape; its
        cost is that of the new events only.

        Raises
        ------
        tawla.errors.InvalidArgument
            ``n`` not an int in ``0..event_count``.
        """
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or not 0 <= n <= len(self._events):
            raise InvalidArgument(f"an event index is an int 0..{len(self._events)}, not {quote(n)}")
        return [json_form(ev) for ev in self._events[int(n):]]

    def last_event(self, *types: str) -> dict[str, Any] | None:
        """A copy of the latest event of one of ``types`` (any type when none is given), or
        None; searched from the end of the log."""
        for ev in reversed(self._events):
            if not types or ev["type"] in types:
                return json_form(ev)
        return None

    @property
    def away(self) -> tuple:
        """For each player, the time he was reported disconnected, or None."""
        return tuple(self._away)

    @property
    def offer(self):
        """The pending resignation offer ``{"player", "kind", "points"}``, else None."""
        return copy.deepcopy(self._offer)

    @property
    def turns_played(self) -> tuple[int, int]:
        """Turns completed in this game by each player (passes included; Holland, D15)."""
        return tuple(self._turns)

    def __repr__(self):
        return (f"<Match {self.ruleset.name} at {self.house.name}, "
                f"{'money session' if self.length == 0 else f'{self.length} points'}, "
                f"game {self._game_no}, score {self._score[0]}-{self._score[1]}, {self._phase}>")
