"""Cube analysis: every turn where the player on roll could double, put through the cube
model — money sessions :class:`tawla.bots.MoneyCube`, matches :class:`tawla.met.MatchCube` at
the game's score (both Janowski's cubeful equities, GNU Backgammon's 0-ply model, with the
cube efficiency of the position's class, :func:`tawla.bots.cube.cube_efficiency`) — on the
cubeless pre-roll probabilities of the evaluator that ranks the checker plays.

A turn is a cube decision (RULES.md §2.3) when the game has a cube, it is not the game's
first roll (the opening roll is both players' dice), and the cube is centred or owned by the
player on roll; in a match, not the Crawford game and not where the cube is dead (a cube at
or past both players' match points, or a post-Crawford leader). The record's double (or its
absence) and the answer to a double are judged against the model, each error in points per
unit of the cube before the decision (EMG, in a match GNU Backgammon's normalised equity; x
1000 = mEMG, the unit of the checker errors' rates; a loss below :data:`MIN_ERROR` is no
error; match errors also carry ``error_mwc``, the match-winning chance lost):

* ``missed_double``: no double where doubling was right, ``optimal - no_double``;
* ``wrong_double``: a double where not doubling was right (too early, or too good to double:
  playing on for the gammon), ``no_double - min(double_take, double_pass)``;
* ``wrong_take``: a take of a pass, ``double_take - double_pass`` (from the taker's seat);
* ``wrong_drop``: a pass of a take, ``double_pass - double_take``.

As in GNU Backgammon, a decision is *close* when it was acted on (a double, a take, a drop),
when it is a missed double, or when doubling is within :data:`CLOSE` of not doubling; the cube
error rate is the cube error per close decision, and the overall rate is the checker and cube
errors together per unforced checker play and close cube decision (:func:`player_totals`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..bots.cube import MoneyCube, cube_efficiency
from ..core.layout import PACKED_WIDTH
from ..formats.gnubg import MatchState
from ..met import MAX_AWAY, CubeDecision, MatchCube, MatchEquityTable, ScoreState, default_met
from ..position import Position
from .evaluators import EquityEvaluator

__all__ = ["CLOSE", "MIN_ERROR", "KINDS", "CubeTracker", "player_totals"]

CLOSE = 0.16
"""Points per unit of cube: a turn whose best double is within this of not doubling is a close
cube decision (GNU Backgammon's threshold)."""

MIN_ERROR = 0.001
"""Points per unit of cube: a smaller loss is not a cube error (the cubeless probabilities of a
won or lost race leave doubling and not doubling that far apart: a cash gains nothing there)."""

KINDS = ("missed_double", "wrong_double", "wrong_take", "wrong_drop")
"""The kinds of cube error, in the order the reports list them."""


@dataclass
class _Turn:
    player: int
    move_number: int | None
    line: int | None
    row: bytes
    cube: int
    owner: int | None
    double: int | None = None  # index of the double in the game's cube_decisions
    answer: int | None = None  # index of the take or drop


class CubeTracker:
    """Collects the cube decisions of one game as it is replayed and judges them at its end
    (one batch for the evaluator).

    Parameters
    ----------
    ruleset : Ruleset
    match_length : int
        0 for a money session, else the match's length (at most :data:`tawla.met.MAX_AWAY`;
        a longer one turns the tracker off).
    evaluator : tawla.analysis.EquityEvaluator or None
        None turns it off.
    jacoby, beaver : bool
        The session's Jacoby rule (RULES.md §2.4) and whether the taker may beaver (the
        record's ``Beaver`` header; RULES.md §2.3 has none). Money sessions only.
    score : (int, int)
        The record players' scores before the game (matches).
    crawford : bool
        This game is the Crawford game.
    met : MatchEquityTable, optional
        The match equity table (default Kazaross-XG2).
    """

    def __init__(self, ruleset, match_length: int, evaluator, jacoby: bool = True, beaver: bool = False,
                 score: tuple[int, int] = (0, 0), crawford: bool = False, met: MatchEquityTable | None = None):
        self.ruleset, self.evaluator = ruleset, evaluator
        self.match_length, self.crawford = match_length, crawford
        self.score: tuple[int, int] = (int(score[0]), int(score[1]))
        self.met = met if met is not None else (default_met() if match_length else None)
        fits = not match_length or (match_length <= MAX_AWAY and max(self.score) < match_length)
        self.on = evaluator is not None and bool(ruleset.cube) and fits and not crawford
        self.jacoby, self.beaver = jacoby and not match_length, beaver and not match_length
        self.turns: list[_Turn] = []
        self._open: _Turn | None = None  # a double waiting for the doubler's roll or an answer

    @staticmethod
    def _may(player: int, owner: int | None) -> bool:
        return owner is None or owner == player

    def roll(self, player: int, act, row: bytes, cube: int, owner: int | None, first: bool) -> None:
        """A roll of ``player`` (``first``: the game's opening roll): a turn without a double
        unless this turn's double was recorded."""
        if self._open is not None and self._open.player == player:
            self._open = None  # the double was this turn's cube decision
            return
        self._open = None
        if self.on and not first and self._may(player, owner):
            self.turns.append(_Turn(player, act.move_number, act.line, bytes(row), cube, owner))

    def double(self, player: int, act, row: bytes | None, cube: int, owner: int | None, index: int) -> None:
        """A double of ``player``, the ``index``-th entry of the game's cube decisions."""
        self._open = None
        if self.on and row is not None and self._may(player, owner):
            self._open = _Turn(player, act.move_number, act.line, bytes(row), cube, owner, double=index)
            self.turns.append(self._open)

    def answer(self, index: int) -> None:
        """The take or drop of the open double, the ``index``-th entry of the cube decisions."""
        if self._open is not None:
            self._open.answer = index

    def finish(self, rep) -> None:
        """Judge the turns into ``rep`` (a GameReport): ``cube_errors``, ``cube_counts`` and the
        model's numbers on the analysed entries of ``cube_decisions``."""
        if not self.on:
            return
        rep.cube_counts = {"decisions": [0, 0], "close": [0, 0]}
        if not self.turns:
            return
        rows = np.frombuffer(b"".join(t.row for t in self.turns), dtype=np.uint8)
        rows = rows.reshape(len(self.turns), PACKED_WIDTH).copy()
        method = (getattr(self.evaluator, "cube_probabilities", None)  # a search: probabilities rolls ahead
                  or getattr(self.evaluator, "probabilities", None))  # a plain callable: its equity alone
        probs = method(rows, self.ruleset) if method is not None else EquityEvaluator.probabilities(
            self.evaluator, rows, self.ruleset)
        effs = cube_efficiency(rows, self.ruleset)
        for t, p, x in zip(self.turns, np.asarray(probs, dtype=np.float64), effs):
            self._judge(rep, t, p, float(x))

    def _state(self, t: _Turn) -> ScoreState | None:
        """The match score from the seat of the player on roll (None in a money session, or
        where the score cannot be: the tracker then leaves the turn out)."""
        if not self.match_length:
            return None
        return ScoreState.of_seat(self.match_length, self.score, t.player, t.cube, t.owner)

    def _models(self, t: _Turn, p, x: float) -> tuple[CubeDecision, CubeDecision]:
        """(the model without beavers, the model the session plays) for a turn."""
        state = self._state(t)
        if state is not None:
            search = getattr(self.evaluator, "match_cube", None)  # a search: cube decisions inside it
            at_score = (search(t.row, self.ruleset, state, self.met) if search is not None
                        else MatchCube.from_probabilities(p, state, x, self.met))
            return at_score, at_score
        rel = 0 if t.owner is None else 1
        plain = MoneyCube.from_probabilities(p, rel, jacoby=self.jacoby and t.cube == 1, efficiency=x)
        model = MoneyCube.from_probabilities(p, rel, jacoby=self.jacoby and t.cube == 1, beaver=True,
                                             efficiency=x) if self.beaver else plain
        return plain, model

    def _judge(self, rep, t: _Turn, p, x: float) -> None:
        try:
            plain, model = self._models(t, p, x)
        except ValueError:  # InvalidArgument: a cube or score the model cannot hold
            return
        if not model.may_double:  # a dead cube (match play): no decision to judge
            return
        numbers = {"proper": model.proper, "no_double": model.no_double, "double_take": model.double_take,
                   "double_pass": model.double_pass, "efficiency": x}
        if isinstance(model, MatchCube):
            numbers.update(no_double_mwc=model.no_double_mwc, double_take_mwc=model.double_take_mwc,
                           double_pass_mwc=model.double_pass_mwc)
        counts = rep.cube_counts
        counts["decisions"][t.player] += 1
        if t.double is None:
            error = model.optimal - model.no_double
            if error >= MIN_ERROR or model.doubled - model.no_double > -CLOSE:
                counts["close"][t.player] += 1
            rep.cube_judged.append(self._error(rep, "no_double", t.player, t, error if error >= MIN_ERROR else 0.0,
                                               numbers))
            if error >= MIN_ERROR:
                rep.cube_errors.append(self._error(rep, "missed_double", t.player, t, error, numbers))
            return
        counts["close"][t.player] += 1
        error = model.optimal - model.doubled
        error = error if error >= MIN_ERROR else 0.0
        rep.cube_decisions[t.double].update(numbers, error=error)
        rep.cube_judged.append(self._error(rep, "double", t.player, t, error, numbers))
        if error:
            rep.cube_errors.append(self._error(rep, "wrong_double", t.player, t, error, numbers))
        if t.answer is None:
            return
        taker = 1 - t.player
        counts["decisions"][taker] += 1
        counts["close"][taker] += 1
        took = rep.cube_decisions[t.answer]["kind"] == "take"
        # the record holds no beaver: a take is judged as a plain take
        error = plain.double_take - plain.double_pass if took else plain.double_pass - plain.double_take
        error = error if error >= MIN_ERROR else 0.0
        rep.cube_decisions[t.answer].update(numbers, double_take=plain.double_take, error=error)
        rep.cube_judged.append(self._error(rep, "take" if took else "drop", taker, t, error,
                                           dict(numbers, double_take=plain.double_take)))
        if error:
            kind = "wrong_take" if took else "wrong_drop"
            rep.cube_errors.append(self._error(rep, kind, taker, t, error, dict(numbers, double_take=plain.double_take)))

    def _error(self, rep, kind: str, player: int, t: _Turn, error: float, numbers: dict) -> dict:
        pos = Position(t.row, self.ruleset)
        out = {"kind": kind, "player": player, "move_number": t.move_number, "line": t.line, "cube": t.cube,
               "owner": t.owner, "board": pos.id(), "error": error, "error_memg": 1000 * error,
               "points": error * t.cube, **numbers}
        if "no_double_mwc" in numbers:
            nd, dt, dp = numbers["no_double_mwc"], numbers["double_take_mwc"], numbers["double_pass_mwc"]
            best = max(nd, min(dt, dp))
            out["error_mwc"] = {"missed_double": best - nd, "wrong_double": nd - min(dt, dp),
                                "wrong_take": dt - dp, "wrong_drop": dp - dt, "no_double": best - nd,
                                "double": best - min(dt, dp), "take": max(dt - dp, 0.0),
                                "drop": max(dp - dt, 0.0)}[kind]
        if self.ruleset.has_bar:
            answer = kind in ("wrong_take", "wrong_drop", "take", "drop")  # the taker's turn, with the double offered
            state = MatchState(cube_value=t.cube, cube_owner=t.owner, player_on_roll=t.player, game_state=1,
                               turn=player, double_offered=answer, match_length=self.match_length,
                               score=self.score, jacoby=self.jacoby)
            out.update(position_id=pos.gnubg_id(), match_id=state.match_id(), xgid=pos.xgid(state))
        return out


def _rate(total: float, n: int) -> float | None:
    return total / n if n else None


def player_totals(rep) -> list[dict]:
    """Per player of a report (a MatchReport): checker, cube and overall errors.

    Returns
    -------
    list of dict
        Two dicts (record players 1 and 2): ``name``; ``plays``, ``unforced``,
        ``checker_error`` (points) and ``checker_rate`` (points per unforced play);
        ``cube_decisions`` (turns where the player could double, and answers to doubles),
        ``close_cube`` (the close ones, module docstring), ``doubles``, ``takes``, ``drops``
        (the analysed ones); per kind of :data:`KINDS` its count and ``<kind>_error`` (points);
        ``cube_error`` (points), ``cube_rate`` (points per close cube decision); ``overall_error``
        (checker + cube, points) and ``overall_rate`` (points per unforced play and close
        cube decision). Rates are None with nothing to divide by; x 1000 they are mEMG.
        ``cube_analysed`` is whether any game of the report had its cube decisions analysed.
        In a match ``checker_error_mwc`` (the match-winning chance the unforced plays lost),
        ``unforced_mwc`` (the unforced plays valued at a score) and ``checker_rate_mwc`` (per
        such play); None (0 plays) where no play was valued at a score.
    """
    out = []
    analysed = any(g.cube_counts is not None for g in rep.games)
    for player in (0, 1):
        plays = sum(g.decisions.count(player) for g in rep.games)
        unforced = plays - sum(g.decisions.count_forced(player) for g in rep.games)
        checker = sum(g.decisions.loss_total(player, unforced=True) for g in rep.games)
        errors = [e for g in rep.games for e in g.cube_errors if e["player"] == player]
        acted = [c["kind"] for g in rep.games for c in g.cube_decisions if c["player"] == player and "proper" in c]
        decisions = sum(g.cube_counts["decisions"][player] for g in rep.games if g.cube_counts is not None)
        close = sum(g.cube_counts["close"][player] for g in rep.games if g.cube_counts is not None)
        cube = sum(e["error"] for e in errors)
        lost = [g.decisions.mwc_loss_total(player, unforced=True) for g in rep.games]
        mwc = sum(x for x in lost if x is not None) if any(x is not None for x in lost) else None
        at_score = sum(g.decisions.count_mwc(player, unforced=True) for g in rep.games)
        d = {"name": rep.player_name(player), "plays": plays, "unforced": unforced, "checker_error": checker,
             "checker_rate": _rate(checker, unforced), "checker_error_mwc": mwc, "unforced_mwc": at_score,
             "checker_rate_mwc": None if mwc is None else _rate(mwc, at_score), "cube_analysed": analysed, "cube_decisions": decisions,
             "close_cube": close, "doubles": acted.count("double"), "takes": acted.count("take"),
             "drops": acted.count("drop")}
        for kind in KINDS:
            d[kind + "s"] = sum(1 for e in errors if e["kind"] == kind)
            d[kind + "_error"] = sum(e["error"] for e in errors if e["kind"] == kind)
        d.update(cube_error=cube, cube_rate=_rate(cube, close), overall_error=checker + cube,
                 overall_rate=_rate(checker + cube, unforced + close))
        out.append(d)
    return out
