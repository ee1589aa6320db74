"""The compiled evaluators, networks, network training and bear-off builders.

Only the compiled calls are here: each layer above keeps its own numpy twin and picks it when
:func:`tawla.native.available` says the part (``"eval"``, ``"net"``, ``"bearoff"``) is not
built. Every call takes the :class:`~tawla.rules.Ruleset` and hands the compiled code its one
parameter block (:func:`tawla.native.backend.params`). Rows are packed rows ``uint8[N, 56]``
(C-contiguous, mover's seat) the caller has validated; the six evaluation columns are those of
:data:`tawla.evaluation.COLUMNS`. A network is its four float32 arrays ``w1 [H, NET_INPUTS]``,
``b1 [H]``, ``w2 [NET_OUTPUTS, H]``, ``b2 [NET_OUTPUTS]``; the race model's tables are ``one``
(float64[n, 2, L], the one-sided bear-off distributions) and ``two`` (float64[924 * 924]).

Every function raises :class:`tawla.errors.ConfigError` without the compiled modules, and
:class:`tawla.errors.InvalidArgument` / :class:`tawla.errors.InvalidPosition` for arrays of
other shapes, as the compiled modules check before they read.
"""

from __future__ import annotations

import numpy as np

from ..rules import Ruleset
from .backend import compiled, params

__all__ = ["EVAL_ENDS", "n_features", "features_bg", "linear_bg", "race_rows", "race_sides", "eval_ends", "eval_bg",
           "nohit_contact", "net_sizes", "net_inputs", "net_outputs", "net_columns", "net_eval",
           "net_chooser", "net_train", "net_positions", "net_ply1_targets", "net_ply2_targets",
           "net_rollout_targets", "net_fit", "build_one_sided", "build_two_sided", "rollout_trials",
           "cube_money", "cube_match", "ROLLOUT_VALUES"]


EVAL_ENDS = {"contact": 0, "lost": 1, "won": 2, "race": 3, "draw": 4}
"""The codes of :func:`eval_ends`' ``kind`` (``TW_END_*`` of ``csrc/eval/tw_eval.h``; a test checks
that they agree)."""


def n_features() -> int:
    """The number of features of the linear contact model of backgammon and adi."""
    return compiled("_eval").n_features()


def features_bg(rows: np.ndarray) -> np.ndarray:
    """float64[N, n_features()]: the linear model's features of backgammon-geometry rows."""
    return compiled("_eval").features_bg(rows)


def linear_bg(rows: np.ndarray, weights: np.ndarray, r: Ruleset) -> np.ndarray:
    """float64[N, 6]: the linear contact model of backgammon-geometry rows (``weights``
    float64[5, n_features()]; backgammons under the cube's scoring only)."""
    return compiled("_eval").linear_bg(rows, weights, params(r))


def race_rows(rows: np.ndarray, r: Ruleset, one: np.ndarray, two: np.ndarray) -> np.ndarray:
    """float64[N, 6]: the race model of rows with no contact (column 0 as :func:`race_sides`)."""
    return compiled("_eval").race_rows(rows, params(r), one, two)


def race_sides(me: np.ndarray, opp: np.ndarray, r: Ruleset, one: np.ndarray, two: np.ndarray) -> np.ndarray:
    """float64[N, 6]: the race model of two sides (int32[N, 26] each, in their own numbering);
    column 0 is tawla31's expected points under checkers-left scoring (RULES.md §5.7), else
    2 win - 1 + win gammon - lose gammon."""
    return compiled("_eval").race_sides(me, opp, params(r), one, two)


def eval_ends(rows: np.ndarray, r: Ruleset, one: np.ndarray, two: np.ndarray) -> tuple:
    """The rows no contact model sees: ``(out float64[N, 6], kind uint8[N])``, ``kind`` a code of
    :data:`EVAL_ENDS`: lost, won, race or draw (``out`` their values; the game ends from the
    engine's one game-result function without the frozen test), or contact (``out`` zero)."""
    return compiled("_eval").eval_ends(rows, params(r), one, two)


def eval_bg(rows: np.ndarray, weights: np.ndarray, r: Ruleset, one: np.ndarray, two: np.ndarray) -> tuple:
    """:func:`eval_ends`, then the linear contact model on the contact rows, in one pass:
    ``(out float64[N, 6], kind uint8[N])``."""
    return compiled("_eval").eval_ends(rows, params(r), one, two, weights)


def nohit_contact(rows: np.ndarray, r: Ruleset) -> np.ndarray:
    """float64[N, 6]: the effective-pip contact model of the no-hit games."""
    return compiled("_eval").nohit_contact(rows, params(r))


def net_sizes() -> tuple[int, int, int]:
    """``(inputs, outputs, most hidden units)`` of the compiled networks."""
    fast = compiled("_net")
    return fast.NET_INPUTS, fast.NET_OUTPUTS, fast.NET_MAX_HIDDEN


def net_inputs(rows: np.ndarray, r: Ruleset, checked: bool = False) -> np.ndarray:
    """float32[N, inputs]: the network inputs of rows (validated first when ``checked``)."""
    return compiled("_net").net_inputs(rows, params(r), checked)


def net_outputs(rows: np.ndarray, r: Ruleset, w1, b1, w2, b2, checked: bool = False) -> np.ndarray:
    """float32[N, outputs]: a network's raw (sigmoid) outputs."""
    return compiled("_net").net_outputs(rows, params(r), w1, b1, w2, b2, checked)


def net_columns(rows: np.ndarray, r: Ruleset, w1, b1, w2, b2, checked: bool = False) -> np.ndarray:
    """float64[N, 6]: a network's outputs as the evaluation columns of ``r``'s scoring."""
    return compiled("_net").net_columns(rows, params(r), w1, b1, w2, b2, checked)


def net_eval(rows: np.ndarray, r: Ruleset, w1, b1, w2, b2, one: np.ndarray, two: np.ndarray,
             race_net: tuple | None = None) -> np.ndarray:
    """float64[N, 6] in one pass: a finished game or a race as :func:`eval_ends` values it (with
    ``race_net``, ``(w1, b1, w2, b2)``, the races with a checker outside a home board by that
    network), the contact rows by the network."""
    return compiled("_net").net_eval_bg(rows, params(r), w1, b1, w2, b2, one, two, race_net)


def net_chooser(r: Ruleset, w1, b1, w2, b2, one: np.ndarray, two: np.ndarray, race_net: tuple | None = None):
    """A compiled 0-ply move chooser: ``chooser.choose(row, dice, ruleset)`` returns the legal
    move whose result :func:`net_eval` values best for the mover, or None (game over, no move).
    The arrays are kept, not copied."""
    return compiled("_net").NetChooser(params(r), w1, b1, w2, b2, one, two, race_net)


def net_train(r: Ruleset, w1, b1, w2, b2, n_games: int, seed: int, alpha: float, max_turns: int,
              race_one=None, race_two=None, race_net=None) -> tuple:
    """TD(0) self-play of ``n_games`` games, the weights updated in place: ``(length int32[n],
    winner int8[n], points int16[n])``."""
    return compiled("_net_train").net_train(params(r), w1, b1, w2, b2, n_games, seed, alpha, max_turns, race_one,
                                       race_two, race_net)


def net_positions(r: Ruleset, w1, b1, w2, b2, n_games: int, seed: int, cap: int, explore: float, max_turns: int,
                  race_one=None, race_two=None, race_net=None) -> np.ndarray:
    """uint8[M, 56], M <= cap: positions of the network's own games (a share ``explore`` of
    plays random)."""
    return compiled("_net_train").net_positions(params(r), w1, b1, w2, b2, n_games, seed, cap, explore, max_turns,
                                           race_one, race_two, race_net)


def net_ply1_targets(rows: np.ndarray, r: Ruleset, w1, b1, w2, b2, race_one=None, race_two=None,
                     race_net=None) -> np.ndarray:
    """float32[N, outputs]: each row's 1-ply search value with the network (training targets;
    ``race_net``, ``(w1, b1, w2, b2)``: the races beyond the bear-off databases by that network)."""
    return compiled("_net_train").net_ply1_targets(rows, params(r), w1, b1, w2, b2, race_one, race_two, race_net)


def net_ply2_targets(rows: np.ndarray, r: Ruleset, w1, b1, w2, b2, prune: int, race_one=None,
                     race_two=None, race_net=None) -> np.ndarray:
    """float32[N, outputs]: each row's pruned 2-ply search value (``prune`` moves kept a roll)."""
    return compiled("_net_train").net_ply2_targets(rows, params(r), w1, b1, w2, b2, prune, race_one, race_two,
                                                   race_net)


def net_rollout_targets(rows: np.ndarray, r: Ruleset, w1, b1, w2, b2, trials: int, horizon: int, seed: int,
                        first: int = 0, race_one=None, race_two=None, race_net=None) -> np.ndarray:
    """float32[N, outputs]: truncated 0-ply rollouts of ``trials`` games of ``horizon`` turns per
    row (row ``i`` seeded as trial stream ``first + i`` of ``seed``)."""
    return compiled("_net_train").net_rollout_targets(rows, params(r), w1, b1, w2, b2, trials, horizon, seed, first,
                                                 race_one, race_two, race_net)


def net_fit(r: Ruleset, w1, b1, w2, b2, rows: np.ndarray, targets: np.ndarray, order: np.ndarray,
            alpha: float) -> float:
    """One pass of gradient descent on ``targets`` (float32[N, outputs]) in ``order`` (int64[N]),
    the weights updated in place; the mean squared error before each step."""
    return compiled("_net_train").net_fit(params(r), w1, b1, w2, b2, rows, targets, order, alpha)


ROLLOUT_VALUES = 7
"""Numbers per trial of :func:`rollout_trials`: five outputs (win, win gammon, win backgammon,
lose gammon, lose backgammon; tawla31: win, win 15, points won / 15, lose 15, points lost / 15),
cubeless equity, cubeful equity."""


def rollout_trials(rows: np.ndarray, r: Ruleset, contact: str, **settings) -> tuple:
    """Trials of pre-roll rows by the compiled trial loop (``csrc/rollout/tw_rollout.h``): for
    each row, trials ``first .. first + trials - 1``, every row on the same dice. ``contact``
    and ``settings`` (the evaluator's weights and race tables; ``first``, ``trials``,
    ``truncate``, ``vr``, ``stop_bearoff``, ``stop_race``, ``stratify``, ``rot``, ``cubeful``,
    ``efficiency``, ``jacoby``, ``beaver``, ``owner``, ``seed``, ``raw``) as
    ``tawla.native._rollout.rollout`` documents them.

    Returns
    -------
    (float64[N, trials, ROLLOUT_VALUES], [raw values,] int32[N, trials])
        The trials' values for each row's side to move (luck-adjusted with ``vr``), the
        unadjusted ones with ``raw``, and the moves each trial played.
    """
    return compiled("_rollout").rollout(rows, params(r), contact, **settings)


def cube_money(probs: np.ndarray, owner: int, efficiency: float = 0.68, jacoby: bool = False,
               beaver: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The compiled money cube model (Janowski) of pre-roll columns float64[N, 6]: no double and
    double/take equities per unit of cube, and the decision codes (0 no double, 1 take, 2 beaver,
    3 pass); :class:`tawla.bots.cube.MoneyCube` is its Python twin."""
    return compiled("_rollout").cube_money(probs, owner, efficiency, jacoby, beaver)


def cube_match(probs: np.ndarray, met, away: int, opp_away: int, cube: int = 1, owner: int = 0,
               crawford: bool = False, efficiency: float | np.ndarray = 0.68) -> tuple[np.ndarray, np.ndarray]:
    """The compiled match cube model of pre-roll columns float64[N, 6] at one score (the
    efficiency one number or float64[N], one a row), ``met`` a
    :class:`tawla.met.MatchEquityTable`: float64[N, 4] (the chances of winning the match not
    doubling, doubling and the opponent taking or passing, and of the right decision) and the
    decision codes (0 no double, 1 take, 3 pass); :class:`tawla.met.MatchCube` is its twin."""
    return compiled("_rollout").cube_match(probs, met.pre, met.post, away, opp_away, cube, owner, crawford,
                                           efficiency)


def build_one_sided(checkers: int) -> tuple[np.ndarray, np.ndarray]:
    """The one-sided bear-off database of up to ``checkers`` checkers on the six home points."""
    return compiled("_bearoff").build_one_sided(checkers)


def build_two_sided(checkers: int) -> np.ndarray:
    """The two-sided bear-off database (win chances) of up to ``checkers`` checkers a side."""
    return compiled("_bearoff").build_two_sided(checkers)
