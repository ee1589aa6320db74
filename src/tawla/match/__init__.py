"""The server engine: a whole match as a state machine (RULES.md §1.3, §1.6-§1.9, §2.3-§2.4, §7).

A :class:`Match` deals the dice, takes the players' actions one at a time, plays forced
moves, passes blocked turns, runs the turn timers, handles the doubling cube (Crawford,
Jacoby, Holland), resignations, forfeits and coin-table payouts, and keeps an append-only
event log from which the whole state can be rebuilt byte for byte.

It never reads the wall clock or global randomness: dice come from ``rng`` (an int seed or a
``numpy.random.Generator``, whose state is part of the JSON), time from the injected
``clock``; :attr:`Match.deadline` tells the server when to call :meth:`Match.on_timeout`.

Parts
-----
:class:`Match` (:mod:`~tawla.match.state_machine`) is assembled from mixins, one module
each: the shared state, transactions and queries (:mod:`~tawla.match.base`), the timers
(:mod:`~tawla.match.timers`), games and their ends (:mod:`~tawla.match.games`), turns and
step-by-step play (:mod:`~tawla.match.turn_play`), the cube and resignations
(:mod:`~tawla.match.cube`), the table: leaving, disconnects (:mod:`~tawla.match.table`),
the JSON record and replay (:mod:`~tawla.match.document`) and the ``.mat`` and ``.sgf``
export (:mod:`~tawla.match.mat_export`). Its state holds values that are never changed,
only replaced: the turn clock (:class:`~tawla.match.clock.TurnClock`, its timers' deadlines
and the paused ones), the cube (:class:`~tawla.match.cube_state.Cube`) and the phase
(:class:`Phase`, a ``str`` enum: saved JSON and comparisons with ``"roll"``, ``"over"``, ...
are as before). House profiles are :mod:`~tawla.match.house`.

Phases
------
``"roll"``
    :attr:`Match.turn` must roll; before rolling he may :meth:`~Match.double` (where the cube
    is in play). Either player may :meth:`~Match.resign`.
``"move"``
    :attr:`Match.turn` has dice (:attr:`Match.dice_left`) and plays them step by step
    (:meth:`~Match.step`, :meth:`~Match.undo`, at most
    :data:`~tawla.match.turn_play.MAX_UNDOS` undos a turn, then :meth:`~Match.confirm`) or all at
    once (:meth:`~Match.play`). A forced move (exactly one legal result) and a pass never reach this
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
policy. The default policy, :func:`bot_policy`, is the ``net0`` (where a network is shipped, else ``ply0``) :class:`tawla.Bot` of the
match's ruleset: of the legal moves that extend the steps already made, the one the evaluator
rates best (deterministic; tens of microseconds). :func:`first_legal_policy` (the first such
move in the engine's canonical order) and any callable ``policy(position, dice,
played_steps, candidates) -> Move`` can be plugged in. Whatever the policy, the move it chose
is recorded in the log, so a replay reproduces it.

JSON and the event log
----------------------
The schema (version 1) is documented in :mod:`tawla.match.document`.


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
are not logged. :attr:`Match.event_count` and :meth:`Match.events_since` follow the log as it
grows at the cost of the new events only (:attr:`Match.events` copies all of it).
"""

from ..bots.policies import bot_policy, first_legal_policy
from ..rules.match_play import Phase
from .base import INPUT_EVENTS, PHASES
from .house import HOUSE_NAMES, HouseRules, get_house
from .dice_verify import DiceVerification, verify_dice
from .document import _rng_state_to_json
from .fair_dice import FairDice
from .state_machine import Match

__all__ = ["Match", "bot_policy", "first_legal_policy", "Phase", "PHASES", "INPUT_EVENTS", "HouseRules",
           "get_house", "HOUSE_NAMES", "_rng_state_to_json", "FairDice", "verify_dice", "DiceVerification"]
