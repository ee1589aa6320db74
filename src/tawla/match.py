"""The server engine: a whole match as a state machine (RULES.md §1.3, §1.6-§1.9, §2.3-§2.4, §7).

A :class:`Match` deals the dice, takes the players' actions one at a time, plays forced
moves, passes blocked turns, runs the turn timers, handles the doubling cube (Crawford,
Jacoby, Holland), resignations, forfeits and coin-table payouts, and keeps an append-only
event log from which the whole state can be rebuilt byte for byte.

It never reads the wall clock or global randomness: dice come from ``rng`` (an int seed or a
``numpy.random.Generator``, whose state is part of the JSON), time from the injected
``clock``; :attr:`Match.deadline` tells the server when to call :meth:`Match.on_timeout`.

Phases
------
``"roll"``
    :attr:`Match.turn` must roll; before rolling he may :meth:`~Match.double` (where the cube
    is in play). Either player may :meth:`~Match.resign`.
``"move"``
    :attr:`Match.turn` has dice (:attr:`Match.dice_left`) and plays them step by step
    (:meth:`~Match.step`, :meth:`~Match.undo`, then :meth:`~Match.confirm`) or all at once
    (:meth:`~Match.play`). A forced move (exactly one legal result) and a pass never reach this
    phase: the engine plays them by itself. A step that ends the game (the 15th checker off,
    the tawla31 quadrant lock) ends it at once.
``"double"``
    A double by :attr:`Match.turn` awaits the other player's :meth:`~Match.take` or
    :meth:`~Match.drop`.
``"resign"``
    A resignation offer awaits the other player's :meth:`~Match.accept_resignation` or
    :meth:`~Match.reject_resignation`; a rejection returns to the phase the offer was made in
    (steps already made are kept).
``"over"``
    The match is over (:attr:`Match.winner`, :attr:`Match.end_reason`, :attr:`Match.payout`).

Games start by themselves: the opening roll (§1.6: each player throws one die, ties are
thrown again; the higher die plays the two dice shown, or rolls both dice again where the
ruleset has ``opening_reroll``, as tawla31 does) is thrown by the engine as soon as a game
starts; with ``previous_winner_starts`` the winner of the previous game (not a draw) simply
has the first roll. A frozen position (§1.7) is a draw that adds nothing and is replayed
(D21). The match ends as soon as a score reaches or passes the length; a money session
(``length=0``) ends only when a player leaves.

Timers
------
With a clock and a house that has timers (:class:`~tawla.HouseRules`):

* waiting for a roll: ``step_time`` if the house has one, else ``turn_time``, from the start
  of the turn;
* moving: ``turn_time`` from the roll, and ``step_time`` from the roll, the last step or the
  last undo, whichever runs out first;
* answering a double or a resignation offer: ``step_time``, else ``turn_time``; while a
  resignation offer is pending the mover's clocks are paused and resume with the time left;
* coin tables with a ``grace_period``: a player reported by :meth:`~Match.disconnect` who is
  not back (:meth:`~Match.reconnect`) within the grace period forfeits the match.

:meth:`Match.on_timeout` handles the earliest deadline that has passed: a roll is thrown, a
pending double is dropped, a pending resignation offer is rejected, and a move in progress is
completed with a legal maximal move that keeps the steps already made, chosen by the timeout
policy. The default policy, :func:`bot_policy`, is the ``ply0`` :class:`tawla.Bot` of the
match's ruleset: of the legal moves that extend the steps already made, the one the evaluator
rates best (deterministic; tens of microseconds). :func:`first_legal_policy` (the first such
move in the engine's canonical order) and any callable ``policy(position, dice,
played_steps, candidates) -> Move`` can be plugged in. Whatever the policy, the move it chose
is recorded in the log, so a replay reproduces it.

JSON and the event log
----------------------
Schema (version 1)::

    {"format": "tawla-match", "version": 1,
     "config": {"ruleset", "ruleset_options", "house" (HouseRules.to_dict()), "length",
                "players", "rng" (initial bit-generator state), "created" (clock time or null)},
     "state":  {"phase", "turn", "score", "game", "board" (Position.id() at the start of the turn,
                seen from "turn"), "dice", "played" ([from, to, [dice], hit] per step), "cube",
                "owner", "turns" (turns played this game), "doubler", "offer", "resume",
                "crawford_game", "crawford_done", "last_winner", "timers" ({"roll"|"turn"|"step"|
                "offer": deadline}), "paused", "away", "winner", "end", "payout", "games"
                (finished games), "rng" (current bit-generator state)},
     "events": [{"type", "t", ...}, ...]}


:meth:`Match.to_json` is one line of canonical JSON (sorted keys, no spaces) with three parts:
``config`` (ruleset and options, house profile, length, players, the rng's initial state and
the creation time), ``state`` (everything else, including the rng's current state) and
``events`` (the append-only log). :meth:`Match.from_json` restores a match from it and
:meth:`Match.replay` rebuilds one from ``config`` and the input events alone; both give the
same JSON, byte for byte. Input events (``roll``, ``step``, ``undo``, ``confirm``, ``play``,
``double``, ``take``, ``drop``, ``resign``, ``accept_resignation``, ``reject_resignation``,
``leave``, ``disconnect``, ``reconnect``, ``timeout``) are what the players and the server
did, each with its time ``t``; the engine's own events (``game_start``, ``opening``,
``turn``, ``game_end``, ``match_end``) follow the action that caused them. Rejected actions
are not logged.
"""

from __future__ import annotations

import copy
import functools
import json
from typing import Callable

import numpy as np

from .errors import (AmbiguousMove, FormatError, IllegalMove, InvalidAction, NotYourTurn,
                     TawlaError)
from . import turn as _moves
from .bots.policies import bot_policy, first_legal_policy
from .core.moves import Move
from .core.steps import Step, format_steps
from .formats.matfile import DOUBLE, DROP, ROLL, TAKE, WIN, Action, Game, MatchRecord, write_match
from .house import HouseRules, get_house
from .native import flip_row
from .notation import parse_move
from .position import Position
from .reference import engine as ref
from .reference.scoring import opening_roll
from .rules import Ruleset, get_ruleset
from .rules.match_play import crawford_game, jacoby_points

__all__ = ["Match", "bot_policy", "first_legal_policy", "PHASES", "INPUT_EVENTS"]

PHASES = ("roll", "move", "double", "resign", "over")
"""The phases of a match (see the module documentation)."""

INPUT_EVENTS = ("roll", "step", "undo", "confirm", "play", "double", "take", "drop", "resign",
                "accept_resignation", "reject_resignation", "leave", "disconnect", "reconnect",
                "timeout")
"""Event types that record an action of a player or of the server; :meth:`Match.replay`
feeds these back. The other event types are the engine's own."""

RESIGN_KINDS = ("single", "gammon", "backgammon")
FORMAT = "tawla-match"
VERSION = 1


def _action(fn):
    """Apply an action whole or not at all: on any exception the state is restored."""

    @functools.wraps(fn)
    def wrapper(self, *args, **kwargs):
        saved = self._save()
        try:
            return fn(self, *args, **kwargs)
        except BaseException:
            self._restore(saved)
            raise

    return wrapper


def _check_player(player) -> int:
    if isinstance(player, bool) or not isinstance(player, (int, np.integer)) or player not in (0, 1):
        raise InvalidAction(f"a player is 0 or 1, not {player!r}")
    return int(player)


def _hops(step: Step):
    """A (possibly combined) step as single hops (from, to, die)."""
    out, p = [], step.from_point
    dice = step.dice
    for i, d in enumerate(dice):
        q = p - d
        if q < 1:
            q = 0
        out.append((p, q, d))
        p = q
    return out


def _rng_state_to_json(obj):
    if isinstance(obj, dict):
        return {k: _rng_state_to_json(v) for k, v in obj.items()}
    if isinstance(obj, np.ndarray):
        return {"ndarray": str(obj.dtype), "data": obj.tolist()}
    if isinstance(obj, np.integer):
        return int(obj)
    return obj


def _rng_state_from_json(obj):
    if isinstance(obj, dict):
        if set(obj) == {"ndarray", "data"}:
            return np.asarray(obj["data"], dtype=obj["ndarray"])
        return {k: _rng_state_from_json(v) for k, v in obj.items()}
    return obj


def _make_rng(rng) -> np.random.Generator:
    if isinstance(rng, np.random.Generator):
        return rng
    if isinstance(rng, (int, np.integer)) and not isinstance(rng, bool):
        return np.random.default_rng(int(rng))
    raise TawlaError("rng must be an int seed or a numpy.random.Generator (the engine never "
                     f"reads global randomness), not {rng!r}")


def _rng_from_state(state) -> np.random.Generator:
    try:
        bitgen = getattr(np.random, state["bit_generator"])()
        bitgen.state = _rng_state_from_json(state)
    except (AttributeError, KeyError, TypeError, ValueError) as e:
        raise FormatError(f"cannot restore the random generator: {e}") from None
    return np.random.Generator(bitgen)


class Match:
    """The whole life of a match (or money session) between players 0 and 1.

    Parameters
    ----------
    ruleset : str or Ruleset
        ``backgammon``, ``adi``, ``mahbusa``, ``tawla31``, ``tawla31-saharat`` (or an alias);
        the house's ``ruleset_options`` are applied on top.
    house : str or HouseRules
        ``federation``, ``saharat``, ``international`` or a profile from :func:`tawla.get_house`.
    length : int, optional
        Points to win; None: the house's default for the ruleset; 0: a money session (houses
        with ``money``).
    players : (str, str)
        Names of player 0 and player 1 (used in records and ``.mat`` exports).
    rng : int or numpy.random.Generator
        Where the dice come from (required). A Generator is used, and advanced, in place.
    clock : callable, optional
        ``clock() -> float`` seconds; read once per action to stamp events and set deadlines.
        Without a clock, events carry ``t: null`` and there are no timers.
    timeout_policy : callable, optional
        ``policy(position, dice, played_steps, candidates) -> Move`` for :meth:`on_timeout`;
        default :func:`bot_policy` of the ruleset (the ``ply0`` bot). Not part of the JSON.

    Raises
    ------
    tawla.errors.UnsupportedRuleset
        Unknown ruleset or house, or a ruleset the house does not offer.
    tawla.errors.InvalidAction
        A match length the house does not allow, or a coin table with ``length=0``.
    tawla.errors.TawlaError
        No ``rng``.
    """

    def __init__(self, ruleset, house="international", length=None, players=("Player 1", "Player 2"),
                 *, rng=None, clock: Callable | None = None, timeout_policy: Callable | None = None):
        h = get_house(house)
        r = h.ruleset(ruleset)
        length = h.check_length(r.name, length)
        if length == 0 and h.coin_table:
            raise InvalidAction("a coin table plays a match (one payment at the end), not a money session")
        players = tuple(str(p) for p in players)
        if len(players) != 2:
            raise InvalidAction(f"a match has two players, not {len(players)}")
        self._init_fields(r, h, length, players, _make_rng(rng), clock, timeout_policy)
        self._rng_initial = _rng_state_to_json(self._rng.bit_generator.state)
        t = self._now()
        self._created = t
        self._new_game(t)

    def _init_fields(self, r, h, length, players, rng, clock, policy):
        self.ruleset: Ruleset = r
        self.house: HouseRules = h
        self.length: int = length
        self.players: tuple = players
        self._rng = rng
        self._clock = clock
        self._policy = policy or bot_policy(r)
        self._replay_after = None
        self._created = None
        self._rng_initial = None
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
        self._phase = "roll"
        self._turn = 0
        self._start: Position | None = None
        self._dice = None
        self._played = []
        self._cube = 1
        self._owner = None
        self._turns = [0, 0]
        self._doubler = None
        self._offer = None
        self._resume = None
        self._timers = {}
        self._paused = None
        self._events = []

    # ------------------------------------------------------------------ transactions
    def _save(self):
        d = {}
        for k, v in self.__dict__.items():
            if k == "_events":
                continue
            d[k] = v.copy() if isinstance(v, (list, dict)) else v
        return d, len(self._events), self._rng.bit_generator.state

    def _restore(self, saved):
        d, n, rng_state = saved
        events = self._events
        del events[n:]
        self.__dict__.clear()
        self.__dict__.update(d)
        self._events = events
        self._rng.bit_generator.state = rng_state

    def _now(self):
        if self._clock is None:
            return None
        t = self._clock()
        if isinstance(t, np.generic):
            t = t.item()
        if isinstance(t, bool) or not isinstance(t, (int, float)):
            raise TawlaError(f"clock() must return a number of seconds, not {t!r}")
        return t

    def _emit(self, t, type_, **fields):
        ev = {"type": type_, "t": t}
        ev.update(fields)
        self._events.append(ev)
        return ev

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
    def to_act(self):
        """The player expected to act now: :attr:`turn`, the player who must answer a double
        or a resignation offer, or None when the match is over."""
        if self._phase == "over":
            return None
        if self._phase == "double":
            return 1 - self._doubler
        if self._phase == "resign":
            return 1 - self._offer["player"]
        return self._turn

    @property
    def dice(self):
        """The roll of the turn in progress, as thrown (None before the roll)."""
        return self._dice

    @property
    def dice_left(self) -> tuple:
        """The dice not used yet this turn, high first (a double gives four); () outside a move."""
        if self._dice is None:
            return ()
        rest = list(ref.expand_dice(self._dice))
        for st in self._played:
            for d in st.dice:
                rest.remove(d)
        return tuple(rest)

    @property
    def played_steps(self) -> tuple:
        """The steps made so far this turn (as accepted by :meth:`step`)."""
        return tuple(self._played)

    @property
    def position(self) -> Position:
        """The board seen from the seat of :attr:`turn`, with the steps made this turn applied."""
        if self._played:
            return Position(self._board_state().to_row(), self.ruleset)
        return self._start

    @property
    def turn_start_position(self) -> Position:
        """The board at the start of the current turn, seen from :attr:`turn`."""
        return self._start

    def legal_steps(self) -> list:
        """The steps :attr:`turn` may make next (:func:`tawla.legal_steps`); [] outside a move."""
        if self._phase != "move":
            return []
        return _moves.legal_steps(self._start, self._dice, self._played)

    def legal_moves(self) -> list:
        """The legal moves that extend the steps made this turn; [] outside a move."""
        if self._phase != "move":
            return []
        legal = self._start.legal_moves(self._dice)
        if not self._played:
            return legal
        finals = self._completions()
        return [m for m in legal if m.after in finals]

    @property
    def score(self) -> tuple:
        """Points of (player 0, player 1)."""
        return tuple(self._score)

    @property
    def cube_value(self) -> int:
        """The cube value of the game in progress (1 where no cube is used)."""
        return self._cube

    @property
    def cube_owner(self):
        """None while the cube is centred, else the player who owns it."""
        return self._owner

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
    def winner(self):
        """None until the match is over; then 0 or 1 (a money session: the player ahead, or
        None when the session ends level)."""
        return self._winner

    @property
    def end_reason(self):
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
    def games(self) -> list:
        """The finished games: dicts with ``game``, ``score`` (before), ``winner`` (None for a
        draw), ``kind``, ``points``, ``reason`` and ``cube``."""
        return copy.deepcopy(self._games)

    @property
    def events(self) -> list:
        """A copy of the event log (see the module documentation)."""
        return copy.deepcopy(self._events)

    @property
    def away(self) -> tuple:
        """For each player, the time he was reported disconnected, or None."""
        return tuple(self._away)

    @property
    def offer(self):
        """The pending resignation offer ``{"player", "kind", "points"}``, else None."""
        return copy.deepcopy(self._offer)

    @property
    def turns_played(self) -> tuple:
        """Turns completed in this game by each player (passes included; Holland, D15)."""
        return tuple(self._turns)

    @property
    def deadline(self):
        """The time at which the server should call :meth:`on_timeout`, or None."""
        ds = list(self._timers.values()) + self._grace_deadlines()
        return min(ds) if ds else None

    def _grace_deadlines(self):
        g = self.house.grace_period
        if self._phase == "over" or g is None or not self.house.coin_table or self._created is None:
            return []
        return [a + g for a in self._away if a is not None]

    def can_double(self, player) -> bool:
        """Whether ``player`` may double now."""
        try:
            player = _check_player(player)
        except InvalidAction:
            return False
        return self._double_refusal(player) is None

    # ------------------------------------------------------------------ board helpers
    def _board_state(self):
        s = ref.State.from_row(self._start.row)
        for st in self._played:
            for a, b, _d in _hops(st):
                s = ref.apply_step(self.ruleset, s, a, b)
        return s

    def _single_steps(self, steps):
        """The hops of ``steps`` from the turn start, as single Steps with their hits."""
        r = self.ruleset
        s = ref.State.from_row(self._start.row)
        out = []
        for st in steps:
            for a, b, d in _hops(st):
                hit = b != 0 and r.contact in ("hit", "pin") and s.opp[b] == 1 and s.me[b] == 0
                out.append(Step(a, b, d, hit))
                s = ref.apply_step(r, s, a, b)
        return out

    def _completions(self) -> dict:
        """Final rows reachable from the steps made, with a continuation: {row: [Step, ...]}."""
        r = self.ruleset
        start = ref.State.from_row(self._start.row)
        start_dice = ref.expand_dice(self._dice)
        target = ref.best_length(r, start, start_dice)
        s = self._board_state()
        used = sum(len(st.dice) for st in self._played)
        if ref.game_ended(r, s):
            return {s.to_row(): []}
        out, seen = {}, set()

        def rec(state, remaining, path):
            key = (state.key(), remaining)
            if key in seen:
                return
            seen.add(key)
            extended = False
            for step, n, rest in ref.next_steps(r, state, remaining):
                extended = True
                if ref.game_ended(r, n):
                    if ref.dice_counted(True, n.me[0], used + len(path) + 1, len(start_dice)) >= target:
                        out.setdefault(n.to_row(), path + [step])
                else:
                    rec(n, rest, path + [step])
            if not extended and used + len(path) == target:
                out.setdefault(state.to_row(), path)

        rec(s, self.dice_left, [])
        return out

    # ------------------------------------------------------------------ game flow
    def _set_timers(self, kind, t):
        """Start the timers of a phase at time t (no clock: none)."""
        self._timers = {}
        if t is None:
            return
        h = self.house
        if kind == "roll":
            limit = h.step_time or h.turn_time
            if limit:
                self._timers["roll"] = t + limit
        elif kind == "move":
            if h.turn_time:
                self._timers["turn"] = t + h.turn_time
            if h.step_time:
                self._timers["step"] = t + h.step_time
        elif kind == "offer":
            limit = h.step_time or h.turn_time
            if limit:
                self._timers["offer"] = t + limit

    def _new_game(self, t):
        self._game_no += 1
        self._cube, self._owner, self._doubler = 1, None, None
        self._turns = [0, 0]
        self._offer = self._resume = self._paused = None
        self._dice, self._played = None, []
        L, sc = self.length, self._score
        self._crawford_game = (self.cube_in_play and self.house.crawford
                               and crawford_game(L, sc, self._crawford_done))
        self._start = self.ruleset.initial_position()
        self._emit(t, "game_start", game=self._game_no, score=list(sc), crawford=self._crawford_game)
        if self.ruleset.previous_winner_starts and self._last_winner is not None:
            self._turn = self._last_winner
            self._phase = "roll"
            self._set_timers("roll", t)
            return
        while True:
            d0, d1 = self._throw(), self._throw()
            o = opening_roll(self.ruleset, d0, d1)
            self._emit(t, "opening", dice=[d0, d1], starter=o.starter)
            if o.starter is not None:
                break
        self._turn = o.starter
        if o.reroll:
            self._phase = "roll"
            self._set_timers("roll", t)
        else:
            self._begin_move(o.dice, t)

    def _throw(self) -> int:
        return int(self._rng.integers(1, 7))

    def _begin_move(self, dice, t):
        """Dice are on the board: pass, play a forced move, or wait for the mover."""
        self._dice = tuple(dice)
        self._played = []
        legal = self._start.legal_moves(self._dice)
        if not legal:
            self._finish_turn(self._start.row, [], "pass", t)
        elif len(legal) == 1:
            self._finish_turn(legal[0].after, legal[0].steps, "forced", t)
        else:
            self._phase = "move"
            self._set_timers("move", t)

    def _finish_turn(self, after_row, single_steps, how, t):
        p = self._turn
        self._emit(t, "turn", player=p, dice=list(self._dice), move=format_steps(single_steps), how=how)
        self._turns[p] += 1
        nxt = Position(flip_row(after_row, self.ruleset), self.ruleset)
        res = nxt.result(self._cube)
        self._dice, self._played = None, []
        if res is not None:
            self._start = nxt
            self._turn = 1 - p
            if res.winner is None:
                self._end_game(None, "draw", 0, "frozen", t)
            else:
                winner = (1 - p) if res.winner == 0 else p
                reason = {"quadrant_lock": "quadrant_lock", "mother": "mother"}.get(res.kind, "bear_off")
                self._end_game(winner, res.kind, self._jacoby(res.kind, res.points), reason, t)
            return
        self._start = nxt
        self._turn = 1 - p
        self._phase = "roll"
        self._set_timers("roll", t)

    def _jacoby(self, kind, points):
        """§2.4 Jacoby (D19): money sessions only, gammons count single while the cube is at 1."""
        return jacoby_points(kind, points, self._cube, money=self.length == 0,
                             jacoby=self.house.jacoby and self.cube_in_play)

    def _end_game(self, winner, kind, points, reason, t):
        self._emit(t, "game_end", game=self._game_no, winner=winner, kind=kind, points=points,
                   reason=reason, cube=self._cube)
        self._games.append({"game": self._game_no, "score": list(self._score), "winner": winner,
                            "kind": kind, "points": points, "reason": reason, "cube": self._cube})
        if winner is not None:
            self._score[winner] += points
            if self._crawford_game:
                self._crawford_done = True
        self._last_winner = winner
        self._offer = self._resume = self._paused = self._doubler = None
        self._dice, self._played = None, []
        if self.length > 0 and winner is not None and self._score[winner] >= self.length:
            self._end_match(winner, "score", t)
        else:
            self._new_game(t)

    def _end_match(self, winner, reason, t):
        self._phase = "over"
        self._winner = winner
        self._end = reason
        self._timers = {}
        self._paused = None
        self._crawford_game = False
        if self.house.coin_table and winner is not None:
            pot = 2 * self.house.stake
            fee = pot * self.house.fee_percent // 100
            self._payout = {"winner": winner, "pot": pot, "fee": fee, "prize": pot - fee}
        self._emit(t, "match_end", winner=winner, reason=reason, score=list(self._score),
                   payout=copy.deepcopy(self._payout))

    def _resign_points(self, player, kind):
        r = self.ruleset
        if kind not in RESIGN_KINDS:
            raise InvalidAction(f"a resignation is one of {', '.join(RESIGN_KINDS)}, not {kind!r}")
        if r.scoring == "checkers_left":  # §5.7: 15 minus the resigner's checkers off
            off = self._start.row[0] if player == self._turn else self._start.row[26]
            return 15 - off
        if r.scoring == "mars":
            if kind == "backgammon":
                raise InvalidAction(f"{r.name} has no backgammon: resign a single game or a mars (gammon)")
            return {"single": 1, "gammon": 2}[kind]
        base = {"single": 1, "gammon": 2, "backgammon": 3}[kind]
        return self._jacoby(kind, base * self._cube)

    def _double_refusal(self, player):
        """None when ``player`` may double now, else the exception to raise."""
        if self._phase == "over":
            return InvalidAction("the match is over")
        if player != self._turn:
            return NotYourTurn(f"player {player} may not double: it is player {self._turn}'s turn")
        if self._phase != "roll":
            return InvalidAction(f"a double is offered before rolling, not in the {self._phase} phase")
        if not self.cube_in_play:
            return InvalidAction(f"no doubling cube in {self.ruleset.name} at the {self.house.name} house")
        if self._crawford_game:
            return InvalidAction("no doubling in the Crawford game")
        if self._owner not in (None, player):
            return InvalidAction(f"player {1 - player} owns the cube")
        if (self.house.holland and self.is_post_crawford and self.length > 0
                and self._score[player] < self.length - 1 and min(self._turns) < 2):
            return InvalidAction("Holland rule: the trailer may double only after both players "
                                 "have played two turns of this game")
        return None

    def _require_turn(self, player, phase, what):
        player = _check_player(player)
        if self._phase == "over":
            raise InvalidAction("the match is over")
        if player != self._turn:
            raise NotYourTurn(f"player {player} may not {what}: it is player {self._turn}'s turn")
        if self._phase != phase:
            raise InvalidAction(f"cannot {what} in the {self._phase} phase")
        return player

    # ------------------------------------------------------------------ actions
    @_action
    def roll(self, player):
        """Roll the dice for the turn (phase ``roll``).

        A pass or a forced move is then played by itself (see :attr:`phase`).

        Raises
        ------
        tawla.errors.NotYourTurn, tawla.errors.InvalidAction
        """
        player = self._require_turn(player, "roll", "roll")
        t = self._now()
        self._do_roll(player, t, "roll")

    def _do_roll(self, player, t, via):
        dice = (self._throw(), self._throw())
        if via == "roll":
            self._emit(t, "roll", player=player, dice=list(dice))
        else:
            via["dice"] = list(dice)
        self._begin_move(dice, t)

    @_action
    def step(self, player, from_point, to_point, dice=None):
        """Make one lit step (phase ``move``): a checker from ``from_point`` to ``to_point``.

        Parameters
        ----------
        player : int
        from_point, to_point : int
            In the mover's numbering: 1..24, 25 = bar, 0 = off. A one-checker combined step
            (two or more dice) is allowed, as :meth:`legal_steps` lists it.
        dice : int or tuple of int, optional
            The die (or dice, in order) to use; needed only where several paths reach
            ``to_point`` with different results.

        Raises
        ------
        tawla.errors.NotYourTurn, tawla.errors.InvalidAction
        tawla.errors.IllegalMove
            Not a legal next step; ``.legal`` lists the legal ones.
        tawla.errors.AmbiguousMove
            Several paths with different dice or hits; ``.legal`` lists them.
        """
        player = self._require_turn(player, "move", "move")
        for v in (from_point, to_point):
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or not 0 <= v <= 25:
                raise IllegalMove(f"a point is an integer 0..25, not {v!r}", text=str(v))
        want = None
        if dice is not None:
            want = (dice,) if isinstance(dice, (int, np.integer)) else tuple(dice)
            if not want or any(isinstance(d, bool) or not isinstance(d, (int, np.integer)) for d in want):
                raise IllegalMove(f"dice must be a die or a tuple of dice, not {dice!r}", text=str(dice))
            want = tuple(int(d) for d in want)
        legal = _moves.legal_steps(self._start, self._dice, self._played)
        cands = [s for s in legal if s.from_point == from_point and s.to_point == to_point
                 and (want is None or s.dice == want)]
        if not cands:
            text = f"{from_point}/{to_point}" + (f" with {want}" if want else "")
            raise IllegalMove(f"{text} is not a legal step now; legal: "
                              f"{', '.join(f'{s} {s.dice}' for s in legal) or '(none)'}",
                              text=text, legal=legal)
        outcomes = {}
        for c in cands:
            self._played.append(c)
            b = self._board_state()
            # a step that ends the game voids the dice left: only the board counts
            key = (b.to_row(), None if ref.game_ended(self.ruleset, b) else self.dice_left)
            self._played.pop()
            outcomes.setdefault(key, c)
        if len(outcomes) > 1:
            raise AmbiguousMove(f"{from_point}/{to_point} can be played "
                                f"{' or '.join(f'{s} with {s.dice}' for s in outcomes.values())}; "
                                "give the dice", text=f"{from_point}/{to_point}",
                                legal=list(outcomes.values()))
        chosen = cands[0]
        t = self._now()
        self._played.append(chosen)
        self._emit(t, "step", player=player, **{"from": chosen.from_point}, to=chosen.to_point,
                   dice=list(chosen.dice), hit=chosen.hit)
        s = self._board_state()
        if ref.game_ended(self.ruleset, s):
            self._finish_turn(s.to_row(), self._single_steps(self._played), "steps", t)
        elif self.house.step_time and t is not None:
            self._timers["step"] = t + self.house.step_time

    @_action
    def undo(self, player):
        """Take back the last step of this turn (phase ``move``).

        Raises
        ------
        tawla.errors.NotYourTurn, tawla.errors.InvalidAction
        """
        player = self._require_turn(player, "move", "undo")
        if not self._played:
            raise InvalidAction("no step to undo")
        t = self._now()
        self._played.pop()
        self._emit(t, "undo", player=player)
        if self.house.step_time and t is not None:
            self._timers["step"] = t + self.house.step_time

    @_action
    def confirm(self, player):
        """End the turn once its steps make a complete legal move (phase ``move``).

        Raises
        ------
        tawla.errors.NotYourTurn, tawla.errors.InvalidAction
            Steps remain to be played.
        """
        player = self._require_turn(player, "move", "confirm")
        if not self._played:
            raise InvalidAction("no step made yet: play the dice first")
        left = _moves.legal_steps(self._start, self._dice, self._played)
        if left:
            raise InvalidAction(f"the turn is not complete: legal next steps "
                                f"{', '.join(map(str, left[:8]))}")
        t = self._now()
        self._emit(t, "confirm", player=player)
        self._finish_turn(self._board_state().to_row(), self._single_steps(self._played), "steps", t)

    @_action
    def play(self, player, move):
        """Play a whole move and end the turn (phase ``move``, before any step).

        Parameters
        ----------
        player : int
        move : tawla.Move or str
            A move of :meth:`legal_moves`, or its notation (:func:`tawla.parse_move`).

        Raises
        ------
        tawla.errors.NotYourTurn, tawla.errors.InvalidAction
        tawla.errors.IllegalMove, tawla.errors.AmbiguousMove
        """
        player = self._require_turn(player, "move", "play")
        if self._played:
            raise InvalidAction("play() takes a whole move before any step; undo the steps, or "
                                "continue step by step")
        if isinstance(move, str):
            m = parse_move(move, self._start, self._dice)
        elif isinstance(move, Move):
            legal = self._start.legal_moves(self._dice)
            if (move not in legal or sorted(move.dice) != sorted(self._dice)):
                raise IllegalMove(f"{move} is not a legal move of this turn", text=str(move), legal=legal)
            m = legal[legal.index(move)]
        else:
            raise IllegalMove(f"play() takes a Move or move text, not {type(move).__name__}",
                              text=str(move))
        t = self._now()
        self._emit(t, "play", player=player, move=str(m),
                   steps=[[s.from_point, s.to_point, s.die] for s in m.steps])
        self._finish_turn(m.after, m.steps, "play", t)

    @_action
    def double(self, player):
        """Offer a double (phase ``roll``, before rolling).

        Refused in the Crawford game, when the opponent owns the cube, where the ruleset or
        house has no cube, and under the Holland rule (post-Crawford, the trailer, before both
        players have played two turns).

        Raises
        ------
        tawla.errors.NotYourTurn, tawla.errors.InvalidAction
        """
        player = _check_player(player)
        err = self._double_refusal(player)
        if err is not None:
            raise err
        t = self._now()
        self._doubler = player
        self._phase = "double"
        self._set_timers("offer", t)
        self._emit(t, "double", player=player, value=2 * self._cube)

    def _check_answer(self, player, phase, what, owner):
        player = _check_player(player)
        if self._phase == "over":
            raise InvalidAction("the match is over")
        if self._phase != phase:
            raise InvalidAction(f"no {'double' if phase == 'double' else 'resignation'} is pending")
        if player == owner:
            raise NotYourTurn(f"player {player} may not {what} his own "
                              f"{'double' if phase == 'double' else 'resignation'}")
        return player

    @_action
    def take(self, player):
        """Take the pending double: the cube doubles and ``player`` owns it.

        Raises
        ------
        tawla.errors.NotYourTurn
            Taking one's own double.
        tawla.errors.InvalidAction
            No double pending.
        """
        player = self._check_answer(player, "double", "take", self._doubler)
        t = self._now()
        self._emit(t, "take", player=player, value=2 * self._cube)
        self._do_take(player, t)

    def _do_take(self, player, t):
        self._cube *= 2
        self._owner = player
        self._doubler = None
        self._phase = "roll"
        self._set_timers("roll", t)

    @_action
    def drop(self, player):
        """Drop the pending double: the doubler wins the cube value before the double (§2.3).

        Raises
        ------
        tawla.errors.NotYourTurn, tawla.errors.InvalidAction
        """
        player = self._check_answer(player, "double", "drop", self._doubler)
        t = self._now()
        self._emit(t, "drop", player=player)
        self._do_drop(t)

    def _do_drop(self, t):
        self._end_game(self._doubler, "single", self._cube, "drop", t)

    @_action
    def resign(self, player, kind="single"):
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
        player = _check_player(player)
        if self._phase not in ("roll", "move"):
            raise InvalidAction(f"cannot resign in the {self._phase} phase")
        points = self._resign_points(player, kind)
        t = self._now()
        self._offer = {"player": player, "kind": kind, "points": points}
        self._resume = self._phase
        self._paused = ({k: v - t for k, v in self._timers.items()} if t is not None else None)
        self._phase = "resign"
        self._set_timers("offer", t)
        self._emit(t, "resign", player=player, kind=kind, points=points)

    @_action
    def accept_resignation(self, player):
        """Accept the pending resignation: the game ends for the points offered.

        Raises
        ------
        tawla.errors.NotYourTurn
            Accepting one's own resignation.
        tawla.errors.InvalidAction
            No resignation pending.
        """
        player = self._check_answer(player, "resign", "accept", (self._offer or {}).get("player"))
        t = self._now()
        self._emit(t, "accept_resignation", player=player)
        o = self._offer
        self._end_game(1 - o["player"], o["kind"], o["points"], "resign", t)

    @_action
    def reject_resignation(self, player):
        """Reject the pending resignation: play goes on where it was.

        Raises
        ------
        tawla.errors.NotYourTurn, tawla.errors.InvalidAction
        """
        player = self._check_answer(player, "resign", "reject", (self._offer or {}).get("player"))
        t = self._now()
        self._emit(t, "reject_resignation", player=player)
        self._do_reject(t)

    def _do_reject(self, t):
        self._phase = self._resume
        self._timers = ({k: t + v for k, v in self._paused.items()}
                        if self._paused is not None and t is not None else {})
        self._offer = self._resume = self._paused = None

    @_action
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
        player = _check_player(player)
        if self._phase == "over":
            raise InvalidAction("the match is over")
        t = self._now()
        self._emit(t, "leave", player=player)
        self._forfeit(player, t)

    def _forfeit(self, player, t):
        if self.length > 0:
            self._emit(t, "game_end", game=self._game_no, winner=1 - player, kind="forfeit",
                       points=0, reason="forfeit", cube=self._cube)
            self._end_match(1 - player, "forfeit", t)
            return
        if sum(self._turns) > 0 or self._cube > 1:
            kind = {"cube": "backgammon", "mars": "gammon"}.get(self.ruleset.scoring, "single")
            pts = self._resign_points(player, kind)
            w = 1 - player
            self._emit(t, "game_end", game=self._game_no, winner=w, kind=kind, points=pts,
                       reason="forfeit", cube=self._cube)
            self._games.append({"game": self._game_no, "score": list(self._score), "winner": w,
                                "kind": kind, "points": pts, "reason": "forfeit", "cube": self._cube})
            self._score[w] += pts
        a, b = self._score
        self._end_match(None if a == b else (0 if a > b else 1), "session_end", t)

    @_action
    def disconnect(self, player):
        """The server reports ``player`` gone (not an action of his). On a coin table with a
        grace period he forfeits the match unless he is back (:meth:`reconnect`) in time.

        Raises
        ------
        tawla.errors.InvalidAction
            Already reported, or the match is over.
        """
        player = _check_player(player)
        if self._phase == "over":
            raise InvalidAction("the match is over")
        if self._away[player] is not None:
            raise InvalidAction(f"player {player} is already away")
        t = self._now()
        self._away[player] = t if t is not None else 0
        self._emit(t, "disconnect", player=player)

    @_action
    def reconnect(self, player):
        """The server reports ``player`` back.

        Raises
        ------
        tawla.errors.InvalidAction
            He was not away, or the match is over.
        """
        player = _check_player(player)
        if self._phase == "over":
            raise InvalidAction("the match is over")
        if self._away[player] is None:
            raise InvalidAction(f"player {player} is not away")
        t = self._now()
        self._away[player] = None
        self._emit(t, "reconnect", player=player)

    @_action
    def on_timeout(self, now):
        """The server's call once ``now >= deadline``: handle the earliest expired deadline.

        Waiting for a roll: the dice are rolled. Moving: the turn is completed by the timeout
        policy with a legal maximal move that keeps the steps made. A pending double is
        dropped; a pending resignation offer is rejected; an absent player past the grace
        period forfeits the match. Call again while :attr:`deadline` is still ``<= now``.

        Raises
        ------
        tawla.errors.InvalidAction
            No deadline, or ``now`` is before it.
        """
        if isinstance(now, np.generic):
            now = now.item()
        if isinstance(now, bool) or not isinstance(now, (int, float)):
            raise InvalidAction(f"now must be a number of seconds, not {now!r}")
        if self._phase == "over":
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
        if self._phase == "roll":
            ev = self._emit(now, "timeout", player=self._turn, action="roll")
            self._do_roll(self._turn, now, ev)
        elif self._phase == "move":
            ev = self._emit(now, "timeout", player=self._turn, action="complete")
            self._auto_complete(now, ev)
        elif self._phase == "double":
            self._emit(now, "timeout", player=1 - self._doubler, action="drop")
            self._do_drop(now)
        elif self._phase == "resign":
            self._emit(now, "timeout", player=1 - self._offer["player"], action="reject")
            self._do_reject(now)
        else:  # pragma: no cover - every phase with a timer is handled above
            raise InvalidAction(f"nothing to time out in the {self._phase} phase")

    def _auto_complete(self, t, ev):
        finals = self._completions()
        legal = self._start.legal_moves(self._dice)
        cands = [m for m in legal if m.after in finals]
        if not cands:  # pragma: no cover - the steps made always extend to a legal move
            raise InvalidAction("internal error: no legal completion of the steps made")
        if self._replay_after is not None:
            want = self._replay_after
            chosen = next((m for m in cands if Position(m.after, self.ruleset).id() == want), None)
            if chosen is None:
                raise FormatError(f"the recorded timeout move {want} is not a legal completion")
        else:
            chosen = self._policy(self._start, self._dice, tuple(self._played), list(cands))
            if chosen not in cands:
                raise InvalidAction(f"the timeout policy chose {chosen!r}, not one of the candidates")
            chosen = cands[cands.index(chosen)]
        ev["after"] = Position(chosen.after, self.ruleset).id()
        steps = self._single_steps(self._played) + self._single_steps_from(finals[chosen.after])
        self._finish_turn(chosen.after, steps, "timeout", t)

    def _single_steps_from(self, continuation):
        """Continuation steps (already single, from the current board) as Steps with hits."""
        return [Step(s.from_point, s.to_point, s.die, s.hit) for s in continuation]

    # ------------------------------------------------------------------ JSON
    def _config(self) -> dict:
        return {
            "ruleset": self.ruleset.name,
            "ruleset_options": dict(self.ruleset.options),
            "house": self.house.to_dict(),
            "length": self.length,
            "players": list(self.players),
            "rng": self._rng_initial,
            "created": self._created,
        }

    def _state(self) -> dict:
        return {
            "phase": self._phase,
            "turn": self._turn,
            "score": list(self._score),
            "game": self._game_no,
            "board": self._start.id() if self._start is not None else None,
            "dice": list(self._dice) if self._dice is not None else None,
            "played": [[s.from_point, s.to_point, list(s.dice), s.hit] for s in self._played],
            "cube": self._cube,
            "owner": self._owner,
            "turns": list(self._turns),
            "doubler": self._doubler,
            "offer": copy.deepcopy(self._offer),
            "resume": self._resume,
            "crawford_game": self._crawford_game,
            "crawford_done": self._crawford_done,
            "last_winner": self._last_winner,
            "timers": dict(self._timers),
            "paused": dict(self._paused) if self._paused is not None else None,
            "away": list(self._away),
            "winner": self._winner,
            "end": self._end,
            "payout": copy.deepcopy(self._payout),
            "games": copy.deepcopy(self._games),
            "rng": _rng_state_to_json(self._rng.bit_generator.state),
        }

    def to_dict(self) -> dict:
        """The JSON document as a dict: ``format``, ``version``, ``config``, ``state``, ``events``."""
        return {"format": FORMAT, "version": VERSION, "config": self._config(),
                "state": self._state(), "events": copy.deepcopy(self._events)}

    def to_json(self) -> str:
        """The whole match as one line of canonical JSON (see the module documentation)."""
        return json.dumps({"format": FORMAT, "version": VERSION, "config": self._config(),
                           "state": self._state(), "events": self._events},
                          sort_keys=True, separators=(",", ":"))

    @staticmethod
    def _load(data):
        if isinstance(data, (str, bytes, bytearray)):
            try:
                data = json.loads(data)
            except ValueError as e:
                raise FormatError(f"not JSON: {e}") from None
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise FormatError(f"not a {FORMAT} document")
        if data.get("version") != VERSION:
            raise FormatError(f"unsupported {FORMAT} version {data.get('version')!r}")
        return data

    @classmethod
    def _from_config(cls, cfg, rng, clock, timeout_policy):
        m = cls.__new__(cls)
        try:
            h = HouseRules.from_dict(cfg["house"])
            r = get_ruleset(cfg["ruleset"], **cfg["ruleset_options"])
            m._init_fields(r, h, int(cfg["length"]), tuple(cfg["players"]), rng, clock, timeout_policy)
            m._rng_initial = cfg["rng"]
            m._created = cfg["created"]
        except (KeyError, TypeError) as e:
            raise FormatError(f"bad config: {e!r}") from None
        return m

    @classmethod
    def from_json(cls, data, *, clock=None, timeout_policy=None) -> "Match":
        """Restore a match from :meth:`to_json` (or :meth:`to_dict`) output.

        Parameters
        ----------
        data : str or dict
        clock, timeout_policy
            As for :class:`Match` (not part of the JSON).

        Raises
        ------
        tawla.errors.FormatError
        """
        data = cls._load(data)
        if not isinstance(data, str):
            data = copy.deepcopy(data)
        try:
            cfg, st = data["config"], data["state"]
            m = cls._from_config(cfg, _rng_from_state(st["rng"]), clock, timeout_policy)
            r = m.ruleset
            m._phase = st["phase"]
            if m._phase not in PHASES:
                raise FormatError(f"unknown phase {m._phase!r}")
            m._turn = int(st["turn"])
            m._score = [int(x) for x in st["score"]]
            m._game_no = int(st["game"])
            m._start = Position.from_id(st["board"], r) if st["board"] is not None else None
            m._dice = tuple(st["dice"]) if st["dice"] is not None else None
            m._played = [Step(a, b, (d[0] if len(d) == 1 else tuple(d)), bool(h))
                         for a, b, d, h in st["played"]]
            m._cube = int(st["cube"])
            m._owner = st["owner"]
            m._turns = [int(x) for x in st["turns"]]
            m._doubler = st["doubler"]
            m._offer = st["offer"]
            m._resume = st["resume"]
            m._crawford_game = bool(st["crawford_game"])
            m._crawford_done = bool(st["crawford_done"])
            m._last_winner = st["last_winner"]
            m._timers = dict(st["timers"])
            m._paused = dict(st["paused"]) if st["paused"] is not None else None
            m._away = list(st["away"])
            m._winner = st["winner"]
            m._end = st["end"]
            m._payout = st["payout"]
            m._games = st["games"]
            m._events = data["events"]
            if m._turn not in (0, 1) or m._cube < 1 or not isinstance(m._events, list):
                raise FormatError("bad turn, cube or event log")
            if m._phase == "move":
                if m._dice is None:
                    raise FormatError("a move phase without dice")
                _moves.legal_steps(m._start, m._dice, m._played)  # the steps made must be legal
        except (KeyError, TypeError, ValueError) as e:
            if isinstance(e, FormatError):
                raise
            raise FormatError(f"bad match state: {e}") from None
        return m

    @classmethod
    def replay(cls, data, *, clock=None, timeout_policy=None) -> "Match":
        """Rebuild a match from its ``config`` and the input events of its log alone.

        Every input event is applied again with its recorded time; the result has the same
        :meth:`to_json` as the match that wrote the log. Timeouts that completed a move replay
        the recorded move, whatever the policy.

        Parameters
        ----------
        data : str or dict
            :meth:`to_json` output (its ``state`` is ignored).
        clock, timeout_policy
            Used for play after the replay.

        Raises
        ------
        tawla.errors.FormatError
            A log that does not replay (an action the rules refuse, a different outcome).
        """
        data = cls._load(data)
        cfg, events = data["config"], data["events"]
        box = {"t": cfg["created"]}
        m = cls._from_config(cfg, _rng_from_state(cfg["rng"]), (lambda: box["t"]), timeout_policy)
        if cfg["created"] is None:
            m._clock = None
        m._new_game(cfg["created"])
        for i, ev in enumerate(events):
            typ = ev.get("type")
            if typ not in INPUT_EVENTS:
                continue
            box["t"] = ev.get("t")
            p = ev.get("player")
            try:
                if typ == "timeout":
                    m._replay_after = ev.get("after")
                    try:
                        m.on_timeout(ev["t"])
                    finally:
                        m._replay_after = None
                elif typ == "step":
                    m.step(p, ev["from"], ev["to"], dice=tuple(ev["dice"]))
                elif typ == "play":
                    m._replay_play(p, ev["steps"])
                elif typ == "resign":
                    m.resign(p, ev["kind"])
                else:
                    getattr(m, typ)(p)
            except TawlaError as e:
                raise FormatError(f"event {i} ({typ}) does not replay: {e}") from None
        if m._events != events:
            n = next((i for i, (a, b) in enumerate(zip(m._events, events)) if a != b),
                     min(len(m._events), len(events)))
            raise FormatError(f"the replayed log differs from the recorded one at event {n}")
        m._clock = clock
        return m

    def _replay_play(self, player, steps):
        s = ref.State.from_row(self._start.row) if self._start is not None else None
        if s is None or self._dice is None:
            raise InvalidAction("no move to replay here")
        for a, b, _d in steps:
            s = ref.apply_step(self.ruleset, s, a, b)
        row = s.to_row()
        m = next((x for x in self._start.legal_moves(self._dice) if x.after == row), None)
        if m is None:
            raise IllegalMove(f"recorded move {steps} is not legal")
        self.play(player, m)

    # ------------------------------------------------------------------ .mat export
    def to_match_record(self):
        """The match as a :class:`tawla.formats.matfile.MatchRecord` (the ``.mat`` data model).

        Each turn is a ``roll`` action (a pass has an empty play), cube actions are
        ``double``/``take``/``drop``, and each won game ends with a ``win`` action for its
        points (``"and the match"`` on the last one). A drawn game (frozen, replayed) has no
        ``win`` action; the game cut short by a forfeit neither. Points are in each player's
        own numbering, as in every ``.mat`` file.
        """
        variation = "Backgammon" if self.ruleset.name == "backgammon" else self.ruleset.name
        headers = {"Player 1": self.players[0], "Player 2": self.players[1],
                   "Variation": variation}
        if self.ruleset.options:
            headers["Ruleset options"] = json.dumps(dict(self.ruleset.options), sort_keys=True)
        if self._end == "forfeit":
            headers["Termination"] = f"forfeit by {self.players[1 - self._winner]}"
        rec = MatchRecord(path=None, headers=headers, match_length=self.length,
                          players=self.players, variation=variation)
        game = None
        last_game_end = max((i for i, e in enumerate(self._events) if e["type"] == "game_end"
                             and e["reason"] != "forfeit" and e["winner"] is not None), default=None)
        for i, ev in enumerate(self._events):
            typ = ev["type"]
            if typ == "game_start":
                game = Game(number=ev["game"], score=tuple(ev["score"]), players=self.players)
                rec.games.append(game)
            elif typ == "turn":
                game.actions.append(Action(ev["player"], ROLL, dice=tuple(ev["dice"]), play=ev["move"]))
            elif typ == "double":
                game.actions.append(Action(ev["player"], DOUBLE, value=ev["value"]))
            elif typ == "take":
                game.actions.append(Action(ev["player"], TAKE))
            elif typ == "drop" or (typ == "timeout" and ev.get("action") == "drop"):
                game.actions.append(Action(ev["player"], DROP))
            elif typ == "game_end" and ev["winner"] is not None and ev["reason"] != "forfeit":
                pts = ev["points"]
                raw = f"Wins {pts} point{'s' if pts != 1 else ''}"
                if i == last_game_end and self._end == "score":
                    raw += " and the match"
                game.actions.append(Action(ev["winner"], WIN, value=pts, raw=raw))
                game.winner, game.points = ev["winner"], pts
                game.resigned = ev["reason"] == "resign"
        return rec

    def to_mat(self) -> str:
        """The match as Jellyfish ``.mat`` text, through :func:`tawla.formats.matfile.write_match`."""
        return write_match(self.to_match_record())

    def __repr__(self):
        return (f"<Match {self.ruleset.name} at {self.house.name}, "
                f"{'money session' if self.length == 0 else f'{self.length} points'}, "
                f"game {self._game_no}, score {self._score[0]}-{self._score[1]}, {self._phase}>")
