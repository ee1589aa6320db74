"""What a bot does at a table: timeout policies (how a server completes a turn its player did
not finish in time) and :func:`bot_action`, a bot's decision in every phase of a match —
doubling, taking or dropping, accepting or rejecting a resignation, at the match's score.

A timeout policy is ``policy(position, dice, played_steps, candidates) -> Move``:
``candidates`` are the legal moves of ``position.legal_moves(dice)`` (canonical order) that
extend ``played_steps``, never empty; the policy returns one of them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from ..core.moves import Move
from ..errors import InvalidAction, InvalidArgument, quote
from ..evaluation import evaluate_rows
from ..evaluation.net import shipped_net
from ..formats.gnubg import MatchState
from ..met import CubeDecision, MatchCube, default_met, variant_met
from ..rules import Scoring
from ..rules.match_play import Phase
from .cube import cube_decision, score_state
from .score import match_score, mwc_on_roll, preroll_distribution
from .search import Bot

__all__ = ["CUBE_LEVELS", "MatchView", "bot_action", "bot_policy", "cube_analysis", "cube_probabilities",
           "first_legal_policy",
           "match_state_of"]

CUBE_LEVELS = ("net0", "net1")
"""The levels of a cube analysis (:func:`cube_probabilities`)."""


def cube_analysis(position, state: MatchState, level: str = "net0", met=None) -> tuple[np.ndarray, CubeDecision]:
    """A cube analysis of ``position`` (backgammon, pre-roll) in ``state``: the cubeless columns
    of :func:`cube_probabilities` and the decision on them (:func:`tawla.bots.cube.cube_decision`),
    at a match score at ``net1`` by the cubeful 1-ply search instead
    (:meth:`tawla.Bot.cube_action`, :mod:`tawla.bots.cubeful`), as ``tawla analyze --level
    net1`` decides.

    Raises
    ------
    tawla.errors.InvalidArgument
        A level other than those of :data:`CUBE_LEVELS`, a state the model cannot hold.
    """
    probs = cube_probabilities(position, level)
    if level == "net1" and score_state(state) is not None:
        d = Bot(position.ruleset, "net1").cube_action(position, match_state=state, met=met)
        assert isinstance(d, CubeDecision)  # with a match state: a decision, never the quick rule
        return probs, d
    return probs, cube_decision(probs, position.row, position.ruleset, state, met)


def cube_probabilities(position, level: str = "net0") -> np.ndarray:
    """``float64[6]``: the cubeless pre-roll columns (:data:`tawla.evaluation.COLUMNS`) a cube
    analysis of ``position`` uses: ``net0`` the shipped network's evaluation of the position
    (0 ply, as ``tawla analyze`` and GNU Backgammon's 0-ply cube analysis), ``net1`` the
    average over the 21 rolls of the best play's (:meth:`Bot.preroll` of ``net0``).

    Raises
    ------
    tawla.errors.InvalidArgument
        A level other than those of :data:`CUBE_LEVELS`.
    """
    if level not in CUBE_LEVELS:
        raise InvalidArgument(f"level must be net0 or net1, not {quote(level)}")
    r = position.ruleset
    if level == "net1":
        return Bot(r, "net0").preroll(position)
    return np.asarray(evaluate_rows(position.to_array()[None], r, contact=shipped_net(r)), dtype=np.float64)[0]


@dataclass(frozen=True)
class MatchView:
    """What :func:`bot_action` reads of a :class:`tawla.Match`, copied at one moment (so that a
    server can decide off its event loop while the match goes on)."""

    phase: str
    turn: int
    position: Any
    turn_start_position: Any
    dice: tuple[int, int] | None
    cube_in_play: bool
    may_double: bool
    offer: dict | None
    length: int
    score: tuple[int, int]
    cube_value: int
    cube_owner: int | None
    is_crawford: bool
    jacoby: bool
    ruleset: Any

    @classmethod
    def of(cls, match) -> "MatchView":
        """The view of ``match`` now."""
        return cls(match.phase, match.turn, match.position, match.turn_start_position, match.dice,
                   bool(match.cube_in_play), bool(match.can_double(match.turn)), match.offer, match.length,
                   tuple(match.score), match.cube_value, match.cube_owner, bool(match.is_crawford),
                   bool(getattr(match.house, "jacoby", False)), match.ruleset)

    def can_double(self, player: int) -> bool:
        """Whether the player on roll may double (the only player this view knows of)."""
        return self.may_double and player == self.turn


def match_state_of(match, on_roll: int | None = None) -> MatchState:
    """The gnubg Match ID fields of a :class:`tawla.Match` in progress, ``on_roll`` (default
    :attr:`~tawla.Match.turn`) as the player on roll: cube, owner, score, length, Crawford."""
    me = match.turn if on_roll is None else on_roll
    money = match.length == 0
    return MatchState(cube_value=match.cube_value, cube_owner=match.cube_owner, player_on_roll=me,
                      crawford=bool(match.is_crawford and not money), game_state=1, turn=me,
                      match_length=match.length, score=tuple(match.score),
                      jacoby=bool(money and (match.jacoby if isinstance(match, MatchView)
                                             else getattr(match.house, "jacoby", False))))


def bot_action(bot: Bot, match) -> tuple[str, Move | None]:
    """The action of ``bot`` for :attr:`match.to_act <tawla.Match.to_act>` in the match's phase
    (``match`` a :class:`tawla.Match` or its :class:`MatchView`).

    * ``roll``: ``("double", None)`` where it may double and the cube model says so at the
      score (:meth:`Bot.cube_action` with the match state), else ``("roll", None)``;
    * ``double``: ``("take", None)`` or ``("drop", None)`` by the same model from the doubler's
      seat;
    * ``resign``: ``("accept", None)`` when the points offered are worth at least playing on
      (match-winning chance in a match, points in a money game or session), else
      ``("reject", None)``;
    * ``move``: ``("move", the move)`` chosen at the score (:meth:`Bot.choose`).

    Raises
    ------
    tawla.errors.InvalidAction
        The match is over.
    """
    phase = match.phase
    if phase == Phase.OVER:
        raise InvalidAction("the match is over")
    cube = match.cube_in_play
    state = match_state_of(match) if cube or match.length else None
    if phase == Phase.MOVE:
        position, dice = match.turn_start_position, match.dice
        return "move", bot.choose(position, dice, match_state=state)
    if phase == Phase.ROLL:
        if cube and match.can_double(match.turn):
            if bot.cube_action(match.position, match_state=state).double:
                return "double", None
        return "roll", None
    if phase == Phase.DOUBLE:
        decision = bot.cube_action(match.position, match_state=state)  # from the doubler's seat
        return ("take" if decision.take else "drop"), None
    return ("accept" if _resignation_pays(bot, match, state) else "reject"), None


def _resignation_pays(bot: Bot, match, state: MatchState | None) -> bool:
    """Whether the pending offer gives the answering player at least what playing on is worth."""
    offer = match.offer
    answering = 1 - offer["player"]
    mine = answering == match.turn  # the position is seen from the player whose turn it is
    score = match_score(state, bot.ruleset)
    if isinstance(score, tuple):  # a Tawla match: match-winning chances from its table
        on_roll = _tawla_mwc(bot, match.position, *score)
        away, opp_away = score if mine else score[::-1]
        return (variant_met(bot.ruleset.name).after(away, opp_away, offer["points"], 0, False)
                >= (on_roll if mine else 1 - on_roll) - 1e-12)
    if state is not None and match.cube_in_play:
        d = bot.cube_action(match.position, match_state=state)
        assert isinstance(d, CubeDecision)  # with a match state: the equities
        if isinstance(d, MatchCube) and d.state is not None:
            seat = d.state if mine else d.state.flipped()  # the match from the answering player's seat
            play_on = d.optimal_mwc if mine else 1 - d.optimal_mwc
            return seat.me(offer["points"], 0, default_met()) >= play_on - 1e-12
        value = d.optimal * match.cube_value
    else:
        value = float(bot.preroll(match.position)[0]) * match.cube_value
    play_on = value if mine else -value
    return offer["points"] >= play_on - 1e-12


def _tawla_mwc(bot: Bot, position, away: int, opp_away: int) -> float:
    """The match-winning chance of the side on roll of ``position`` (not over) before it rolls,
    ``away`` against ``opp_away`` in a match of a Tawla ruleset, on the bot's pre-roll
    evaluation (:func:`tawla.bots.score.mwc_on_roll`)."""
    r = bot.ruleset
    if r.scoring == Scoring.CHECKERS_LEFT:
        values = preroll_distribution(position.to_array()[None], r, bot.contact)
    else:
        values = bot.preroll(position)[None]
    return float(mwc_on_roll(values, r, away, opp_away)[0])


def bot_policy(ruleset, level: str | None = None) -> Callable:
    """The default timeout policy of a match of ``ruleset``: :meth:`tawla.Bot.timeout_policy`
    of ``Bot(ruleset, level)``, the candidate the bot values most. ``level`` defaults to
    ``net0`` where a trained network is shipped for the ruleset, else ``ply0``. Deterministic
    for every level but ``random``."""
    if level is None:
        level = "net0" if shipped_net(ruleset) is not None else "ply0"
    return Bot(ruleset, level).timeout_policy()


def first_legal_policy(position, dice, played_steps, candidates) -> Move:
    """A timeout policy that plays the first candidate.

    ``candidates`` are the legal moves of ``position.legal_moves(dice)`` (canonical order)
    that extend ``played_steps``; the first one is chosen. Deterministic.

    Parameters
    ----------
    position : tawla.Position
        The position at the start of the turn, seen from the mover.
    dice : (int, int)
    played_steps : tuple of tawla.Step
        The steps already made this turn (single or combined).
    candidates : list of tawla.Move
        Never empty.
    """
    return candidates[0]
