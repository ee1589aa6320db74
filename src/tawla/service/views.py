"""What the service computes without a room: positions read from IDs, legal moves, evaluations,
a bot's play; and the JSON views of a match (the engine's JSON without its random generator).
"""

from __future__ import annotations

import dataclasses
import functools
import json
import threading
from typing import Any, Sequence

from ..bots import Bot
from ..bots.cube import decision_fields
from ..bots.levels import DEFAULT_LEVEL, check_level, describe, evaluate
from ..bots.policies import CUBE_LEVELS, cube_analysis
from ..errors import InvalidArgument, InvalidDice, InvalidId, TawlaError, UnsupportedRuleset, quote
from ..formats.gnubg import MatchState
from ..match import Match
from ..match.fair_dice import SCHEME as FAIR_SCHEME
from ..position import Position
from ..rules import get_ruleset
from ..rules.match_play import Phase
from ..analysis.positions import parse_position

__all__ = ["load_position", "moves_of", "evaluation_of", "best_of", "cube_of", "public_match", "position_view",
           "legal_views", "bot_for"]

EVAL_COLUMNS = ("equity", "win", "win_gammon", "win_backgammon", "lose_gammon", "lose_backgammon")
"""The columns of :func:`tawla.evaluate`, as the keys of ``/v1/evaluate``'s answer."""


def load_position(text: str, ruleset: str | None) -> Position:
    """A position from a gnubg Position ID, an XGID or a tawla ID: :func:`tawla.analysis.positions.parse_position`.

    Raises
    ------
    tawla.errors.InvalidId, tawla.errors.InvalidPosition, tawla.errors.UnsupportedRuleset
        As :func:`~tawla.analysis.positions.parse_position` does.
    """
    return parse_position(text, ruleset)


def _dice(dice: Sequence[int]) -> tuple[int, int]:
    if len(dice) != 2 or not all(type(d) is int and 1 <= d <= 6 for d in dice):
        raise InvalidDice(f"dice are two integers 1..6, not {quote(list(dice))}")
    return dice[0], dice[1]


def _ids(pos: Position) -> dict[str, Any]:
    try:
        gnubg = pos.gnubg_id()
    except TawlaError:  # a board that no gnubg ID describes
        gnubg = None
    return {"id": pos.id(), "gnubg_id": gnubg}


def moves_of(ruleset: str | None, position: str, dice: Sequence[int]) -> dict[str, Any]:
    """``/v1/moves``: the legal moves of a position for a roll.

    Returns
    -------
    dict
        ``{"ruleset", "position" (its tawla ID), "dice", "moves": [{"move", "after", "ended"}]}``;
        ``after`` is the tawla ID of the board the mover leaves (still seen from his seat).

    Raises
    ------
    tawla.errors.InvalidId, tawla.errors.InvalidPosition, tawla.errors.UnsupportedRuleset,
    tawla.errors.InvalidDice
    """
    pos = load_position(position, ruleset)
    d = _dice(dice)
    moves = pos.legal_moves(d)
    return {"ruleset": pos.ruleset.name, "position": pos.id(), "dice": list(d),
            "moves": [{"move": str(m), "after": Position(m.after, pos.ruleset).id(), "ended": bool(m.ended)}
                      for m in moves]}


_BOTS: dict[tuple[str, str], Bot] = {}
_BOTS_LOCK = threading.Lock()


def bot_for(ruleset: Any, level: str) -> Bot:
    """A :class:`tawla.Bot` of ``ruleset`` at ``level``, one per thread and pair (bots keep a
    random generator, which is not shared between threads).

    Raises
    ------
    tawla.errors.ConfigError
        An unknown level (one of :attr:`tawla.Bot.LEVELS`).
    tawla.errors.UnsupportedRuleset
        An unknown ruleset.
    """
    r = get_ruleset(ruleset)
    key = (repr(r), level, threading.get_ident())
    with _BOTS_LOCK:
        bot = _BOTS.get(key)  # type: ignore[arg-type]
    if bot is None:
        bot = Bot(r, level)
        with _BOTS_LOCK:
            _BOTS[key] = bot  # type: ignore[index]
    return bot


def evaluation_of(ruleset: str | None, position: str, dice: Sequence[int] | None, level: str | None) -> dict[str, Any]:
    """``/v1/evaluate``: the figures of the side on roll at ``level`` (default ``net0``, the
    trained network; :func:`tawla.evaluate`), and with ``dice`` every legal move ranked by the
    bot of that level.

    Returns
    -------
    dict
        ``{"ruleset", "position", "level", "evaluator", "evaluation": {"equity", "win", ...}}``
        and, with dice, ``"dice"`` and ``"moves": [{"move", "equity", "ply"}]`` best first.
        Equity in points of the ruleset's scoring, probabilities in 0..1; ``evaluator`` says
        in words what valued them (:func:`tawla.bots.levels.describe`).

    Raises
    ------
    tawla.errors.InvalidId, tawla.errors.InvalidPosition, tawla.errors.UnsupportedRuleset,
    tawla.errors.InvalidDice
    tawla.errors.ConfigError
        A level not of :data:`tawla.bots.levels.LEVELS`.
    """
    lv = check_level(DEFAULT_LEVEL if level is None else level)
    pos = load_position(position, ruleset)
    ev = evaluate(pos.to_array(), pos.ruleset, lv)[0]
    out: dict[str, Any] = {"ruleset": pos.ruleset.name, "position": pos.id(), "level": lv,
                           "evaluator": describe(lv, pos.ruleset),
                           "evaluation": {k: float(v) for k, v in zip(EVAL_COLUMNS, ev)}}
    if dice is not None:
        d = _dice(dice)
        ranked = bot_for(pos.ruleset, lv).hint(pos, d)
        out["dice"] = list(d)
        out["moves"] = [{"move": str(r.move), "equity": float(r.value), "ply": int(r.ply)} for r in ranked]
    return out


def best_of(ruleset: str | None, position: str, dice: Sequence[int], level: str | None) -> dict[str, Any]:
    """``/v1/best``: the play of the bot of ``level`` (default ``net0``, the trained network).

    Returns
    -------
    dict
        ``{"ruleset", "position", "dice", "level", "evaluator", "move" ("" for a pass), "after"}``.

    Raises
    ------
    tawla.errors.InvalidId, tawla.errors.InvalidPosition, tawla.errors.UnsupportedRuleset,
    tawla.errors.InvalidDice
    tawla.errors.ConfigError
        A level not of :data:`tawla.bots.levels.LEVELS`.
    tawla.errors.InvalidAction
        The game of the position is over.
    """
    lv = check_level(DEFAULT_LEVEL if level is None else level)
    pos = load_position(position, ruleset)
    d = _dice(dice)
    m = bot_for(pos.ruleset, lv).choose(pos, d)
    return {"ruleset": pos.ruleset.name, "position": pos.id(), "dice": list(d), "level": lv,
            "evaluator": describe(lv, pos.ruleset), "move": "" if m.is_pass else str(m),
            "after": Position(m.after, pos.ruleset).id()}


def cube_of(ruleset: str | None, position: str, length: int | None, score: Sequence[int] | None, cube: int | None,
            owner: str | None, crawford: bool, level: str | None) -> dict[str, Any]:
    """``/v1/cube``: the cube decision of the side on roll (:func:`tawla.bots.cube.cube_decision`),
    money or at a match score; an XGID position brings its own match context, the fields
    given override it (``score``: the side on roll first; ``owner``: ``centre``, ``on-roll``
    or ``opponent``; ``level``: ``net0``, the position's probabilities, or ``net1``, one roll
    ahead, at a match score by the cubeful 1-ply search: :func:`tawla.bots.policies.cube_analysis`).

    Returns
    -------
    dict
        ``{"ruleset", "position", "match_id", "xgid", "level", "match_length"}`` and the fields
        of :func:`tawla.bots.cube.decision_fields`.

    Raises
    ------
    tawla.errors.InvalidId, tawla.errors.InvalidPosition, tawla.errors.UnsupportedRuleset
        A bad position, or a ruleset without a cube.
    tawla.errors.InvalidArgument
        A level other than net0 and net1, an owner not one of the three, a score that is
        not two numbers below the length, a cube that is not a power of two, or a state the
        match model cannot hold.
    """
    pos = load_position(position, ruleset)
    r = pos.ruleset
    if not r.cube:
        raise UnsupportedRuleset(f"{r.name} has no doubling cube")
    lv = level or "net0"
    if lv not in CUBE_LEVELS:  # refused before anything else, as it always was
        raise InvalidArgument(f"level must be net0 or net1, not {quote(lv)}")
    text = position.strip()
    base = MatchState.from_xgid(text) if text.upper().startswith("XGID=") else MatchState(jacoby=False)
    me = base.player_on_roll
    fields: dict[str, Any] = {}
    if owner is not None:
        if owner not in ("centre", "on-roll", "opponent"):
            raise InvalidArgument(f"owner must be centre, on-roll or opponent, not {quote(owner)}")
        fields["cube_owner"] = None if owner == "centre" else (me if owner == "on-roll" else 1 - me)
    if score is not None:
        fields["score"] = (int(score[0]), int(score[1])) if me == 0 else (int(score[1]), int(score[0]))
    if length is not None:
        fields["match_length"] = length
        fields["jacoby"] = False
    if cube is not None:
        fields["cube_value"] = cube
    if crawford:
        fields["crawford"] = True
    try:
        state = dataclasses.replace(base, **fields)
    except InvalidId as e:
        raise InvalidArgument(str(e)) from None
    if state.match_length and max(state.score) >= state.match_length:
        raise InvalidArgument(f"the score {list(state.score)} is not below the match length {state.match_length}")
    probs, d = cube_analysis(pos, state, lv)
    return {"ruleset": r.name, "position": pos.gnubg_id(), "match_id": state.match_id(), "xgid": pos.xgid(state),
            "level": lv, "evaluator": describe(lv, r), "match_length": state.match_length,
            **decision_fields(d, probs)}


def public_match(match_json: str) -> dict[str, Any]:
    """The engine's JSON of a match (:meth:`tawla.Match.to_json`) as a client may see it: a
    numpy generator's states (``config.rng``, ``state.rng``) removed; fair dice
    (:class:`tawla.FairDice`) kept without their seed until the match is over, then whole, so
    that the document of a finished match verifies (:func:`tawla.verify_dice`)."""
    doc = json.loads(match_json)
    over = doc["state"].get("phase") == Phase.OVER
    for part in (doc["config"], doc["state"]):
        rng = part.get("rng")
        if not (isinstance(rng, dict) and rng.get("scheme") == FAIR_SCHEME):
            part.pop("rng", None)
        elif not over:
            rng.pop("seed", None)
    return doc


def position_view(m: Match) -> dict[str, Any]:
    """The board of the turn in progress (steps made applied), seen from :attr:`Match.turn`:
    ``{"id" (tawla ID), "gnubg_id" (or None), "seat", "start_id" (the turn's start)}``."""
    out = _ids(m.position)
    out["seat"] = m.turn
    out["start_id"] = m.turn_start_position.id()
    return out


def legal_views(m: Match) -> tuple[list[str], list[dict[str, Any]]]:
    """``(legal_moves, legal_steps)`` of the turn in progress: move texts (the whole move from
    the start of the turn), and steps as ``{"from", "to", "dice", "hit"}``."""
    if m.phase != Phase.MOVE:
        return [], []
    moves = [str(x) for x in m.legal_moves()]
    steps = [{"from": s.from_point, "to": s.to_point, "dice": list(s.dice), "hit": bool(s.hit)}
             for s in m.legal_steps()]
    return moves, steps


@functools.lru_cache(maxsize=None)
def levels() -> tuple[str, ...]:
    """The bot levels a room accepts (:attr:`tawla.Bot.LEVELS`)."""
    return tuple(Bot.LEVELS)
