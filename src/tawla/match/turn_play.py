"""A turn in a match: the roll, step-by-step play (RULES.md §1.3), whole moves, timeouts.

The mover plays his dice step by step (:meth:`~TurnsMixin.step`, :meth:`~TurnsMixin.undo`,
then :meth:`~TurnsMixin.confirm`) or all at once (:meth:`~TurnsMixin.play`). A forced move
(exactly one legal result) and a pass never reach the ``move`` phase: the engine plays them
by itself. A step that ends the game (the 15th checker off, the tawla31 quadrant lock) ends
it at once. A turn allows :data:`MAX_UNDOS` undos, so that its part of the event log stays
within a fixed bound whatever a client sends.

What a turn lights up comes from :func:`tawla.native.turn_steps` and what it can still
reach from :func:`tawla.native.turn_finals` (the compiled engine where it has them). The
turn keeps, besides the steps made, their single hops, the lit steps after each prefix of
them (so that :meth:`~TurnsMixin.legal_steps`, the next step, an undo and the confirmation
search nothing again), and the roll's legal sequences; none of this is part of the JSON.
"""

from __future__ import annotations

import numpy as np

from .. import native
from ..bots.policies import bot_policy
from ..core.dice import expand_dice
from ..core.moves import Move
from ..core.steps import Step
from ..errors import AmbiguousMove, FormatError, IllegalMove, InvalidAction, InvalidDice, TawlaError, quote
from ..notation import parse_move
from ..position import Position
from ..rules.match_play import Phase
from .base import action
from .games import GamesMixin

__all__ = ["TurnsMixin", "step_hops", "MAX_UNDOS"]

MAX_UNDOS = 32
"""The most undos a turn allows: past them the mover plays on and confirms, so that a
turn's steps and undos, and so its part of the event log, stay within a fixed bound
(logs written before the bound replay whole)."""


def step_hops(step: Step) -> tuple:
    """A lit (possibly combined) step as single hops ``(from, to, die)``."""
    p = step.from_point
    die = step.die
    if not isinstance(die, tuple):
        return ((p, step.to_point, die),)
    out = []
    for d in die:
        q = p - d
        if q < 1:
            q = 0
        out.append((p, q, d))
        p = q
    return tuple(out)


def _is_int(v) -> bool:
    return type(v) is int or (not isinstance(v, bool) and isinstance(v, (int, np.integer)))


class TurnsMixin(GamesMixin):
    """Rolling and moving (RULES.md §1.3-§1.5)."""

    # ------------------------------------------------------------------ derived turn state
    # (the dice of a turn are checked once: thrown by the match, or by from_json)
    def _lit(self) -> tuple:
        """``(steps, ended)`` after the steps made: the lit steps (a tuple of Step) and
        whether the game ended; computed once per prefix of the turn."""
        k = len(self._played)
        lits = self._lits
        if len(lits) > k and lits[k] is not None:
            return lits[k]
        lit = self._lit_after(self._hops)
        self._lits = lits[:k] + (None,) * (k - len(lits)) + (lit,)
        return lit

    def _lit_after(self, hops) -> tuple:
        return native.turn_lit(self._start.row, self._dice, hops, self.ruleset, self._engine)

    def _legal_moves(self) -> list:
        """The roll's legal moves as :class:`~tawla.Move` objects (:func:`tawla.native.legal_moves`,
        searched once per turn)."""
        if self._moves is None:
            self._moves = native.legal_moves(self._start.row, self._dice, self.ruleset, self._engine)
        return self._moves

    def _move_for(self, move):
        """The legal move of this roll equal to ``move`` (same start, same result), or None."""
        moves = self._legal_moves()
        for m in moves:  # most often one of :meth:`legal_moves` itself
            if m is move:
                return m
        if self._move_by_after is None:
            self._move_by_after = {m.after: m for m in self._legal_moves()}
        m = self._move_by_after.get(move.after)
        if m is None or m != move:
            return None
        return m

    def _board_and_steps(self) -> tuple:
        """``(row, steps)``: the board after the steps made (mover's seat) and their hops
        as single Steps with their hits (a tuple)."""
        return native.play_hops(self._start.row, self._hops, self.ruleset, self._engine)

    # ------------------------------------------------------------------ queries
    @property
    def dice(self) -> tuple[int, int] | None:
        """The roll of the turn in progress, as thrown (None before the roll)."""
        return self._dice

    @property
    def dice_left(self) -> tuple[int, ...]:
        """The dice not used yet this turn, high first (a double gives four); () outside a move."""
        if self._dice is None:
            return ()
        rest = list(expand_dice(self._dice))
        for hop in self._hops:
            rest.remove(hop[2])
        return tuple(rest)

    @property
    def played_steps(self) -> tuple[Step, ...]:
        """The steps made so far this turn (as accepted by :meth:`step`)."""
        return tuple(self._played)

    @property
    def position(self) -> Position:
        """The board seen from the seat of :attr:`turn`, with the steps made this turn applied."""
        if self._played:
            return Position(self._board_and_steps()[0], self.ruleset)
        return self._start

    @property
    def turn_start_position(self) -> Position:
        """The board at the start of the current turn, seen from :attr:`turn`."""
        return self._start

    def legal_steps(self) -> list[Step]:
        """The steps :attr:`turn` may make next (:func:`tawla.legal_steps`); [] outside a move.

        Returns
        -------
        list[tawla.Step]
            Single steps (dice high to low, points high to low), then one-checker combined
            steps (``die`` the tuple of dice in the order used).
        """
        if self._phase != Phase.MOVE:
            return []
        return list(self._lit()[0])

    def legal_moves(self) -> list[Move]:
        """The legal moves that extend the steps made this turn; [] outside a move.

        Returns
        -------
        list[tawla.Move]
            In the canonical order of :meth:`tawla.Position.legal_moves`.
        """
        if self._phase != Phase.MOVE:
            return []
        moves = self._legal_moves()
        if not self._played:
            return list(moves)
        finals = {row for row, _hops in self._finals()}
        return [m for m in moves if m.after in finals]

    def _finals(self) -> list:
        """:func:`tawla.native.turn_finals` of the steps made (kept until the next step or undo)."""
        kept = self._kept_finals
        if kept is not None and kept[0] == self._hops:
            return kept[1]
        finals = native.turn_finals(self._start.row, self._dice, self._hops, self.ruleset, self._engine)
        self._kept_finals = (self._hops, finals)
        return finals

    # ------------------------------------------------------------------ actions
    @action
    def roll(self, player: int) -> None:
        """Roll the dice for the turn (phase ``roll``).

        A pass or a forced move is then played by itself (see :attr:`phase`).

        Raises
        ------
        tawla.errors.NotYourTurn, tawla.errors.InvalidAction
        """
        if type(player) is not int or player != self._turn or self._phase != Phase.ROLL:
            player = self._require_turn(player, "roll", "roll")
        t = self._now() if self._clock is not None else None
        self._do_roll(player, t, "roll")

    def _do_roll(self, player, t, via):
        dice = self._throw_dice()
        if via == "roll":
            self._events.append({"type": "roll", "t": t, "player": player, "dice": dice})
        else:
            via["dice"] = dice
        self._begin_move(dice, t)

    def _begin_move(self, dice, t):
        """Dice are on the board: pass, play a forced move, or wait for the mover."""
        self._dice = tuple(dice)
        self._played = ()
        self._undos = 0
        self._clear_turn()
        n = native.count_moves(self._start.row, self._dice, self.ruleset, self._engine)
        if n is None:  # no count without the moves
            n = len(self._legal_moves())
        if n == 0:
            self._finish_turn(self._start.row, [], "pass", t)
        elif n == 1:
            m = self._legal_moves()[0]
            self._finish_turn(m.after, m.steps, "forced", t)
        else:
            self._phase = Phase.MOVE
            if t is not None or self._turn_clock.running:
                self._set_timers("move", t)

    @action
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
        tawla.errors.InvalidDice
            A die outside 1..6 in ``dice``.
        """
        if type(player) is not int or player != self._turn or self._phase != Phase.MOVE:
            player = self._require_turn(player, "move", "move")
        legal = self._lit()[0]
        got = None
        if (type(from_point) is int and type(to_point) is int and 0 <= from_point <= 25 and 0 <= to_point <= 25
                and (dice is None or (type(dice) is int and 1 <= dice <= 6)
                     or (type(dice) is tuple and all(type(d) is int and 1 <= d <= 6 for d in dice)))):
            got = native.turn_step(self._start.row, self._dice, self._hops, legal, from_point, to_point,
                                   dice, self.ruleset, self._engine)
        chosen, hops, lit = got if got is not None else self._choose_step(from_point, to_point, dice, legal)
        a, b, die, hit = chosen
        t = self._now() if self._clock is not None else None
        k = len(self._played)
        self._played = self._played + (chosen,)
        self._hops = hops
        self._lits = self._lits[:k + 1] + (lit,)
        self._events.append({"type": "step", "t": t, "player": player, "from": a, "to": b,
                             "dice": (die,) if type(die) is int else tuple(die), "hit": hit})
        if lit[1]:  # the step ended the game
            self._finish_turn(*self._board_and_steps(), "steps", t)
        elif t is not None:
            self._restart_step_timer(t)

    def _choose_step(self, from_point, to_point, dice, legal) -> tuple:
        """:meth:`step`'s checks and choice: ``(step, hops after it, lit after it)``.

        Raises
        ------
        tawla.errors.IllegalMove, tawla.errors.AmbiguousMove
        """
        for v in (from_point, to_point):
            if not _is_int(v) or not 0 <= v <= 25:
                raise IllegalMove(f"a point is an integer 0..25, not {quote(v)}", text=quote(v))
        if dice is None:
            want = None
            cands = [s for s in legal if s[0] == from_point and s[1] == to_point]
        else:
            try:
                want = (dice,) if _is_int(dice) else tuple(dice)
            except TypeError:  # neither a die nor a sequence of dice
                want = ()
            if not want or not all(map(_is_int, want)):
                raise IllegalMove(f"dice must be a die or a tuple of dice, not {quote(dice)}", text=quote(dice))
            if not all(1 <= d <= 6 for d in want):
                raise InvalidDice(f"a die is 1..6, not {quote(dice)}")
            want = tuple(map(int, want))
            # Step.die is an int for a single step, the tuple of dice for a combined one
            die = want[0] if len(want) == 1 else want
            cands = [s for s in legal if s[0] == from_point and s[1] == to_point and s[2] == die]
            if not cands and len(want) > 1:
                cands = self._other_order(from_point, to_point, want, legal)
        if not cands:
            text = f"{from_point}/{to_point}" + (f" with {want}" if want else "")
            raise IllegalMove(f"{text} is not a legal step now; legal: "
                              f"{', '.join(f'{s} {s.dice}' for s in legal) or '(none)'}",
                              text=text, legal=list(legal))
        if len(cands) > 1:
            self._check_unambiguous(from_point, to_point, cands)
        chosen = cands[0]
        a, b, die, hit = chosen
        if not (type(hit) is bool and type(a) is int and type(b) is int
                and (type(die) is int or type(die) is tuple)):  # plain JSON types for the log
            die = tuple(int(d) for d in die) if isinstance(die, tuple) else int(die)
            chosen = Step(int(a), int(b), die, bool(hit))
        hops = self._hops + (((chosen[0], chosen[1], die),) if type(die) is int else step_hops(chosen))
        return chosen, hops, self._lit_after(hops)

    def _other_order(self, from_point, to_point, want, legal) -> list:
        """The combined step with the dice ``want`` when :meth:`legal_steps` lists it in
        another order of its dice (the same board after it, the same dice left): that step
        with the order asked for, as ``[Step]``; [] when ``want``'s order is not a legal path
        or reaches another board."""
        others = [s for s in legal if s[0] == from_point and s[1] == to_point and type(s[2]) is tuple
                  and sorted(s[2]) == sorted(want)]
        if not others:
            return []
        hops = self._hops + step_hops(Step(from_point, to_point, want, False))
        try:
            self._lit_after(hops)  # the order asked for is a legal path
        except IllegalMove:
            return []
        r, row, engine = self.ruleset, self._start.row, self._engine
        after = native.play_hops(row, hops, r, engine)[0]
        same = [s for s in others if native.play_hops(row, self._hops + step_hops(s), r, engine)[0] == after]
        return [Step(from_point, to_point, want, same[0].hit)] if same else []

    def _check_unambiguous(self, from_point, to_point, cands):
        """Several lit steps go from ``from_point`` to ``to_point``: they must all lead to the
        same board with the same dice left (a step that ends the game voids the dice left).

        Raises
        ------
        tawla.errors.AmbiguousMove
        """
        r, engine = self.ruleset, self._engine
        row = self._board_and_steps()[0]
        left = self.dice_left
        outcomes = {}
        for c in cands:
            hs = step_hops(c)
            after = native.play_hops(row, hs, r, engine)[0]
            ended = self._lit_after(self._hops + hs)[1]
            rest = list(left)
            for d in c.dice:
                rest.remove(d)
            outcomes.setdefault((after, None if ended else tuple(rest)), c)
        if len(outcomes) > 1:
            raise AmbiguousMove(f"{from_point}/{to_point} can be played "
                                f"{' or '.join(f'{s} with {s.dice}' for s in outcomes.values())}; "
                                "give the dice", text=f"{from_point}/{to_point}",
                                legal=list(outcomes.values()))

    @action
    def undo(self, player: int) -> None:
        """Take back the last step of this turn (phase ``move``).

        Raises
        ------
        tawla.errors.NotYourTurn, tawla.errors.InvalidAction
            Not the mover's turn, no step made, or the turn's :data:`MAX_UNDOS` undos used.
        """
        if type(player) is not int or player != self._turn or self._phase != Phase.MOVE:
            player = self._require_turn(player, "move", "undo")
        if not self._played:
            raise InvalidAction("no step to undo")
        if self._undos >= MAX_UNDOS and not self._replaying:
            raise InvalidAction(f"this turn has had its {MAX_UNDOS} undos: play on and confirm")
        t = self._now() if self._clock is not None else None
        last = self._played[-1]
        k = len(self._played)
        self._played = self._played[:-1]
        self._hops = self._hops[:len(self._hops) - len(last.dice)]
        self._lits = self._lits[:k]
        self._undos += 1
        self._emit(t, "undo", player=player)
        self._restart_step_timer(t)

    @action
    def confirm(self, player):
        """End the turn once its steps make a complete legal move (phase ``move``).

        Raises
        ------
        tawla.errors.NotYourTurn, tawla.errors.InvalidAction
            Steps remain to be played.
        """
        if type(player) is not int or player != self._turn or self._phase != Phase.MOVE:
            player = self._require_turn(player, "move", "confirm")
        if not self._played:
            raise InvalidAction("no step made yet: play the dice first")
        left = self._lit()[0]
        if left:
            raise InvalidAction(f"the turn is not complete: legal next steps "
                                f"{', '.join(map(str, left[:8]))}")
        t = self._now() if self._clock is not None else None
        self._events.append({"type": "confirm", "t": t, "player": player})
        self._finish_turn(*self._board_and_steps(), "steps", t)

    @action
    def play(self, player: int, move: Move | str) -> None:
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
        if type(player) is not int or player != self._turn or self._phase != Phase.MOVE:
            player = self._require_turn(player, "move", "play")
        if self._played:
            raise InvalidAction("play() takes a whole move before any step; undo the steps, or "
                                "continue step by step")
        if isinstance(move, str):
            m = parse_move(move, self._start, self._dice)
        elif isinstance(move, Move):
            m = self._move_for(move)
            if m is None or (m is not move and sorted(move.dice) != sorted(self._dice)):
                raise IllegalMove(f"{move} is not a legal move of this turn", text=str(move),
                                  legal=list(self._legal_moves()))
        else:
            raise IllegalMove(f"play() takes a Move or move text, not {type(move).__name__}",
                              text=str(move))
        t = self._now() if self._clock is not None else None
        text = native.format_steps(m.steps)  # str(m)
        self._events.append({"type": "play", "t": t, "player": player, "move": text,
                             "steps": native.step_tuples(m.steps)})
        self._finish_turn(m.after, m.steps, "play", t, text)

    def _replay_play(self, player, steps):
        """:meth:`play` of a logged ``play`` event: the legal move its single steps reach."""
        if self._start is None or self._dice is None:
            raise InvalidAction("no move to replay here")
        after = native.play_hops(self._start.row, [(a, b, d) for a, b, d in steps], self.ruleset, self._engine)[0]
        m = next((x for x in self._legal_moves() if x.after == after), None)
        if m is None:
            raise IllegalMove(f"recorded move {steps} is not legal")
        self.play(player, m)

    # ------------------------------------------------------------------ timeout completion
    def _timeout_policy(self):
        if self._policy is None:  # the default bot policy, built on the first timeout that needs it
            self._policy = bot_policy(self.ruleset)
        return self._policy

    def _auto_complete(self, t, ev):
        finals = dict(self._finals())
        cands = [m for m in self._legal_moves() if m.after in finals]
        if not cands:  # pragma: no cover - the steps made always extend to a legal move
            raise InvalidAction("internal error: no legal completion of the steps made")
        r = self.ruleset
        if self._replay_after is not None:
            want = self._replay_after
            try:  # an ID of the match's ruleset (or one written before IDs named theirs)
                row = Position.from_id(want, r).row
            except TawlaError:
                row = None
            chosen = next((m for m in cands if m.after == row), None)
            if chosen is None:
                raise FormatError(f"the recorded timeout move {want} is not a legal completion")
        else:
            chosen = self._timeout_policy()(self._start, self._dice, tuple(self._played), list(cands))
            if chosen not in cands:
                raise InvalidAction(f"the timeout policy chose {quote(chosen)}, not one of the candidates")
            chosen = cands[cands.index(chosen)]
        ev["after"] = self._replay_after if self._replay_after is not None else Position(chosen.after, r).id()
        steps = [*self._board_and_steps()[1], *(Step(*h) for h in finals[chosen.after])]
        self._finish_turn(chosen.after, steps, "timeout", t)
