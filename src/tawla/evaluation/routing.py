"""Which evaluator handles a row, and the entry point :func:`evaluate`.

In order:

1. **Game over** (RULES.md §1.8, §4.4, §5.6; frozen positions, §1.7, are not looked for):
   the exact result of the engine's one game-end function (:func:`tawla.native.game_results`),
   from the mover's seat.
2. **Race** (no contact, :func:`tawla.evaluation.is_race`; in tawla31 also no opponent
   checker in the mover's home and none of the mover's in the opponent's, §5.5): the race
   model (:mod:`tawla.evaluation.race`), exact from the two-sided database where both
   sides are home with at most 6 checkers each. With a trained network as the contact model
   and a race network shipped for the ruleset (:func:`tawla.evaluation.net.shipped_race_net`),
   the races in which a checker of either side is still outside its home board go to the race
   network instead (:func:`race_network`): the database's one-sided distributions with the
   outside checkers shifted onto the 6-point miss what those checkers' places decide.
3. **Contact**: the ruleset's model in :data:`CONTACT_MODELS`, an
   :class:`~tawla.evaluation.Evaluator` (a trained network drops in with
   :func:`set_contact_model`).

When the compiled evaluators are built and a ruleset's contact model is a
:class:`~tawla.evaluation.LinearContact` (any weights of its feature layout), a ruleset
whose game-over and race rules the compiled pass implements (opposite directions, 1/2(/3)
scoring, neither of tawla31's §5.5 and §5.6) is evaluated in one compiled pass
(:func:`tawla.native.eval_bg`), which equals the three steps above in numpy
(:func:`evaluate_np`); a trained network there likewise (:func:`tawla.native.net_eval`).
Every other ruleset and model has steps 1 and 2 in one compiled pass
(:func:`tawla.native.eval_ends`) and the contact rows given to the model, the same values as
:func:`evaluate_np`.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import numpy.typing as npt

from .. import native
from ..core.geometry import OPPOSITE
from ..core.results import ResultKind
from ..errors import ConfigError
from ..rules import get_ruleset, HIT, RulesetLike, Scoring
from .bearoff import eval_tables
from .board_views import check_rows, race_mask, sides
from .linear import LinearContact
from .net import NetEvaluator, shipped_race_net
from .nohit import nohit_contact
from .protocol import Evaluator, equity_from_probs
from .race import race_eval

__all__ = ["evaluate", "evaluate_rows", "evaluate_np", "CONTACT_MODELS", "set_contact_model"]

_BG_LINEAR = LinearContact()

CONTACT_MODELS: dict = {
    "backgammon": _BG_LINEAR, "adi": _BG_LINEAR, "mahbusa": nohit_contact, "tawla31": nohit_contact,
    "tawla31-saharat": nohit_contact,
}
"""The contact model of each ruleset name, an :class:`~tawla.evaluation.Evaluator`:
backgammon and adi share one :class:`~tawla.evaluation.LinearContact` (the shipped
weights), the no-hit games use :func:`tawla.evaluation.nohit.nohit_contact`."""


def set_contact_model(ruleset, model) -> None:
    """Replace the contact evaluator of a ruleset (for example with a trained network).

    Parameters
    ----------
    ruleset : Ruleset or str
        The model serves every ruleset of that name (options included).
    model : Evaluator
        ``model(rows uint8[N, 56], ruleset) -> float[N, 6]`` with the columns of
        :data:`~tawla.evaluation.COLUMNS`.

    Raises
    ------
    tawla.errors.UnsupportedRuleset
        Unknown ruleset.
    tawla.errors.ConfigError
        ``model`` is not callable.
    """
    r = get_ruleset(ruleset)
    if not isinstance(model, Evaluator):
        raise ConfigError(f"a contact model must be callable as model(rows, ruleset), not {type(model).__name__}")
    CONTACT_MODELS[r.name] = model


def evaluate(positions: npt.ArrayLike, ruleset: RulesetLike) -> np.ndarray:
    """Evaluate a batch of positions for the side to move with the ruleset's contact model of
    :data:`CONTACT_MODELS`: the ``ply0`` level. ``tawla.evaluate``
    (:func:`tawla.bots.levels.evaluate`) takes every level and defaults to the trained network.

    Parameters
    ----------
    positions : uint8[N, 56]
        Packed rows (:mod:`tawla.core.layout`), each seen from its side to move; one row
        of 56 is a batch of one.
    ruleset : Ruleset or str

    Returns
    -------
    float32[N, 6]
        The columns of :data:`~tawla.evaluation.COLUMNS`: cubeless equity in the ruleset's
        scoring (points), then the win, win_gammon, win_backgammon, lose_gammon and
        lose_backgammon probabilities.

    Raises
    ------
    tawla.errors.InvalidId
        ``positions`` of another shape or dtype.
    tawla.errors.InvalidPosition
        A row that is not a position of the ruleset (checked before any model reads it).
    tawla.errors.UnsupportedRuleset
        Unknown ruleset.
    tawla.errors.ConfigError
        A contact model that returns another shape.
    """
    return evaluate_rows(positions, ruleset).astype(np.float32)


def _compiled_pass(model, r) -> bool:
    """Whether :func:`tawla.native.eval_bg` evaluates rows of ``r`` with ``model``."""
    return isinstance(model, LinearContact) and model.compiled and _bg_routing(r)


def _bg_routing(r) -> bool:
    """Whether the compiled one-pass routing of backgammon and adi (game end, race model, then
    the contact model) applies to ``r``: opposite directions, 1/2(/3) scoring, neither §5.5 nor §5.6."""
    return (r.geometry == OPPOSITE and r.scoring in (Scoring.CUBE, Scoring.MARS) and not r.quadrant_lock_win
            and not r.bearoff_no_opponent_in_home)


def _compiled_net_pass(model, r) -> bool:
    """Whether :func:`tawla.native.net_eval` evaluates rows of ``r`` with ``model``: a network of
    ``r``'s name on the rulesets of :func:`_compiled_pass`."""
    return (isinstance(model, NetEvaluator) and native.available("net") and model.ruleset.name == r.name
            and r.contact == HIT and _bg_routing(r))


def race_network(model, r) -> NetEvaluator | None:
    """The network of the races beyond the bear-off databases where ``model`` (a contact model)
    is a trained network of ``r``'s name: the ruleset's shipped race network, or None (the race
    model then values every race)."""
    if isinstance(model, NetEvaluator) and model.ruleset.name == r.name and races_by_network(r):
        return shipped_race_net(r)
    return None


def races_by_network(r) -> bool:
    """Whether a race network may value ``r``'s races beyond the databases: the hitting,
    opposite-direction rulesets with 1/2(/3) scoring (backgammon, adi), whose races the
    compiled routing and :func:`race_caps` know."""
    return r.contact == HIT and _bg_routing(r)


def _race_weights(model, r) -> tuple | None:
    net = race_network(model, r)
    return None if net is None else net.weights


def race_caps(rows: np.ndarray, cols: np.ndarray, r) -> np.ndarray:
    """``cols`` (float64[N, 6], a race network's columns of race ``rows``) less what those races
    can no longer bring, as the compiled ``tw_net_race_beyond`` does (opposite directions and
    1/2/3 scoring only; checkers only move on): no gammon once the loser has borne off a
    checker, no backgammon without a loser's checker in the winner's home board; the equity
    again from the rest."""
    if r.geometry != OPPOSITE or r.scoring == Scoring.CHECKERS_LEFT:
        return cols
    cols = cols.copy()
    rows = np.asarray(rows)
    my_off, opp_off = rows[:, 0] > 0, rows[:, 26] > 0
    opp_in_my_home = rows[:, 27:33].sum(1) > 0
    mine_in_opp_home = rows[:, 19:26].sum(1) > 0
    cols[opp_off, 2] = 0.0
    cols[opp_off | ~opp_in_my_home, 3] = 0.0
    cols[my_off, 4] = 0.0
    cols[my_off | ~mine_in_opp_home, 5] = 0.0
    cols[:, 0] = 2.0 * cols[:, 1] - 1.0 + cols[:, 2] - cols[:, 4] + cols[:, 3] - cols[:, 5]
    return cols


def beyond_databases(me: np.ndarray, opp: np.ndarray) -> np.ndarray:
    """``bool[N]``: a checker of either side outside its home board (or on the bar), sides in
    their own numbering (int[N, 26]); the races :func:`race_network` values."""
    return (me[:, 7:26].sum(1) > 0) | (opp[:, 7:26].sum(1) > 0)


def compiled_net_choice(model, r) -> Callable[[bytes, tuple[int, int], Any], Any] | None:
    """The 0-ply move choice with ``model`` in one compiled pass, where :func:`evaluate_rows`
    would value the children by ``net_eval_bg`` (:func:`_compiled_net_pass`); else None.

    The callable ``choose(row, dice, ruleset)`` takes a valid position's row (bytes, mover's
    seat), a checked roll and the ruleset the Move keeps, and returns the
    :class:`tawla.Move` of :func:`tawla.native.legal_sequences`' order whose child, seen from
    the opponent, :func:`evaluate_rows` gives the lowest equity (the first of equals), or None
    when the game is over or the turn passes.
    """
    if not _compiled_net_pass(model, r):
        return None
    chooser: list = []  # made at the first call, which loads the race tables

    def choose(row: bytes, dice: tuple[int, int], ruleset) -> Any:
        if not chooser:
            one, _, _, two = eval_tables()
            chooser.append(native.net_chooser(r, model.w1, model.b1, model.w2, model.b2, one, two,
                                              _race_weights(model, r)).choose)
        return chooser[0](row, dice, ruleset)

    return choose


def evaluate_rows(rows: npt.ArrayLike, r, *, checked: bool = True, contact: Evaluator | None = None) -> np.ndarray:
    """:func:`evaluate` in float64 (the search's entry).

    Parameters
    ----------
    rows : uint8[N, 56]
    r : Ruleset or str
    checked : bool
        False for rows the engine made (:func:`tawla.expand`'s children, a Position's row),
        which are then read without validation; ``r`` must then be a Ruleset.
    contact : Evaluator, optional
        The contact model to use instead of the ruleset's in :data:`CONTACT_MODELS` (for
        example a :class:`~tawla.evaluation.net.NetEvaluator`); game ends and races are routed as
        always.

    Returns
    -------
    float64[N, 6]

    Raises
    ------
    tawla.errors.InvalidId, tawla.errors.InvalidPosition, tawla.errors.UnsupportedRuleset
        As for :func:`evaluate`, when ``checked``.
    """
    if checked:
        r = get_ruleset(r)
        rows = np.ascontiguousarray(check_rows(rows))
        native.validate_rows(rows, r)
    rows = np.asarray(rows)
    model: Any = CONTACT_MODELS[r.name] if contact is None else contact
    if len(rows) and _compiled_pass(model, r):
        one, _, _, two = eval_tables()
        out, _kind = native.eval_bg(np.ascontiguousarray(rows), model.weights, r, one, two)
        return out
    if len(rows) and _compiled_net_pass(model, r):
        one, _, _, two = eval_tables()
        return native.net_eval(np.ascontiguousarray(rows, dtype=np.uint8), r, model.w1, model.b1, model.w2, model.b2,
                               one, two, _race_weights(model, r))
    if len(rows) and native.available("eval"):
        return _evaluate_ends_compiled(rows, r, model)
    return evaluate_np(rows, r, model)


def _evaluate_ends_compiled(rows: np.ndarray, r, model) -> np.ndarray:
    """:func:`evaluate_np` with its game-over and race steps in one compiled pass
    (:func:`tawla.native.eval_ends`); the contact rows go to ``model`` as there."""
    one, _, _, two = eval_tables()
    out, kind = native.eval_ends(np.ascontiguousarray(rows, dtype=np.uint8), r, one, two)
    race = kind == native.EVAL_ENDS["race"]
    if r.scoring != Scoring.CHECKERS_LEFT and race.any():
        out[race, 0] = equity_from_probs(out[race, 1:], r)
    if race.any() and race_network(model, r) is not None:
        me, opp, _ = sides(rows, r)
        _race_network_into(out, race, rows, me, opp, r, model)
    _contact_into(out, kind == native.EVAL_ENDS["contact"], rows, r, model)
    return out


def _race_network_into(out: np.ndarray, race: np.ndarray, rows: np.ndarray, me: np.ndarray, opp: np.ndarray, r,
                       model) -> None:
    """The race network's values (:func:`race_network`, capped by :func:`race_caps`) of the
    ``race`` rows beyond the databases into ``out``; nothing where ``model`` has none."""
    net = race_network(model, r)
    beyond = race & beyond_databases(me, opp)
    if net is not None and beyond.any():
        out[beyond] = race_caps(rows[beyond], net(rows[beyond], r), r)


def _contact_into(out: np.ndarray, rest: np.ndarray, rows: np.ndarray, r, model) -> None:
    """The contact model's values of ``rows[rest]`` into ``out[rest]``.

    Raises
    ------
    tawla.errors.ConfigError
        A contact model that returns another shape.
    """
    if not rest.any():
        return
    got = np.asarray(model(rows[rest], r), dtype=np.float64)
    if got.shape != (int(rest.sum()), 6):
        raise ConfigError(f"the contact model of {r.name} returned shape {got.shape}, "
                          f"not ({int(rest.sum())}, 6)")
    out[rest] = got


def race_rows(me, opp, om, r, done) -> np.ndarray:
    """``bool[N]``: the rows the race model values (step 2 of the module docstring): no
    contact, not over (``done``), and in tawla31 no opponent checker in the mover's home and
    none of the mover's in the opponent's (§5.5); ``me``, ``opp``, ``om`` of
    :func:`tawla.evaluation.board_views.sides`."""
    race = race_mask(me, opp, om, r) & ~done
    if r.bearoff_no_opponent_in_home:
        race &= (om[:, 1:7].sum(1) == 0) & (me[:, 19:25].sum(1) == 0)
    return race


def evaluate_np(rows: np.ndarray, r, model=None) -> np.ndarray:
    """The routing of :func:`evaluate_rows` step by step in numpy, the contact rows given to
    ``model`` (default the ruleset's, :data:`CONTACT_MODELS`). ``rows`` (uint8[N, 56]) are valid
    positions of ``r``, not validated here.

    Returns
    -------
    float64[N, 6]

    Raises
    ------
    tawla.errors.ConfigError
        A contact model that returns another shape.
    """
    model = CONTACT_MODELS[r.name] if model is None else model
    n = len(rows)
    out = np.zeros((n, 6), dtype=np.float64)
    if n == 0:
        return out
    me, opp, om = sides(rows, r)
    done, winner, points, kind = native.game_results(rows, r, frozen_test=False, checked=False)
    race = race_rows(me, opp, om, r, done)
    lost = done & (winner == 1)
    out[lost, 0] = -points[lost]
    out[lost, 4] = me[lost, 0] == 0
    out[lost, 5] = kind[lost] == ResultKind.BACKGAMMON
    won = done & (winner == 0)  # not reachable from expand (the winner's turn never comes)
    out[won, 0] = points[won]
    out[won, 1] = 1
    out[won, 2] = opp[won, 0] == 0
    out[won, 3] = kind[won] == ResultKind.BACKGAMMON
    if race.any():
        out[race] = race_eval(me[race], opp[race], r)
        _race_network_into(out, race, rows, me, opp, r, model)
    _contact_into(out, ~(done | race), rows, r, model)
    return out
