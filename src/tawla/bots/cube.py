"""Cube decisions from cubeless probabilities: the quick money rule of :class:`CubeAction`,
the money-game cubeful equities of :class:`MoneyCube` (Janowski's model) and the cube
efficiency of a position (:func:`cube_efficiency`); match play is :class:`tawla.met.MatchCube`."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import InvalidArgument, quote
from ..evaluation.board_views import is_race, pip_counts, sides
from ..formats.gnubg import MatchState
from ..met import CubeDecision, MatchCube, MatchEquityTable, ScoreState
from ..met.cube import relative_owner
from ..rules import get_ruleset

__all__ = ["CONTACT_EFFICIENCY", "BEAROFF_EFFICIENCY", "GNUBG_EFFICIENCY", "GNUBG_PACKAGE_EFFICIENCY", "CubeAction",
           "CubeEfficiency", "MoneyCube", "cube_decision", "cube_efficiency", "decision_fields", "score_state"]


def score_state(state: MatchState) -> ScoreState | None:
    """The match of a gnubg Match ID (:class:`tawla.formats.gnubg.MatchState`) from the seat of
    its player on roll; None for a money game (length 0).

    Raises
    ------
    tawla.errors.InvalidArgument
        A state the match model cannot hold (a match longer than :data:`tawla.met.MAX_AWAY`
        points, a cube turned in the Crawford game, a centred cube above 1).
    """
    if not isinstance(state, MatchState):
        raise InvalidArgument(f"match_state must be a MatchState, not {type(state).__name__}")
    if not state.match_length:
        return None
    return ScoreState.of_seat(state.match_length, state.score, state.player_on_roll, state.cube_value,
                              state.cube_owner, state.crawford)


@dataclass(frozen=True)
class CubeEfficiency:
    """Janowski's cube efficiency ``x`` by GNU Backgammon's position classes: ``contact``
    (crashed boards alike); in a race ``race_base + race_per_pip * pips`` (the side on roll's
    pip count) within ``[race_min, race_max]``; ``bearoff`` when both sides are home."""

    contact: float = 0.68
    race_base: float = 0.55
    race_per_pip: float = 0.00125
    race_min: float = 0.6
    race_max: float = 0.7
    bearoff: float = 0.6


GNUBG_EFFICIENCY = CubeEfficiency()
"""GNU Backgammon's values (its ``eval.c``, version 1.07 and its analyses of real matches:
0-ply cube actions equal to 99.7% on them, ``bench/MATCH.md``): the default."""

GNUBG_PACKAGE_EFFICIENCY = CubeEfficiency(0.76, 0.6, 0.0025, 0.6, 0.8, 0.6)
"""The values of the ``gnubg`` 1.1.0a16 package from PyPI (fitted to its cubeful 0-ply move
scores, which they reproduce to 1e-5)."""

# kept for callers of the earlier constant names
CONTACT_EFFICIENCY = GNUBG_EFFICIENCY.contact
BEAROFF_EFFICIENCY = GNUBG_EFFICIENCY.bearoff


def cube_efficiency(rows, ruleset, params: CubeEfficiency = GNUBG_EFFICIENCY) -> np.ndarray:
    """``float64[N]``: the cube efficiency of each position by its class (:class:`CubeEfficiency`).

    Parameters
    ----------
    rows : uint8[N, 56] or bytes
    ruleset : Ruleset or str
    params : CubeEfficiency
        Default :data:`GNUBG_EFFICIENCY`.

    Raises
    ------
    tawla.errors.InvalidId, tawla.errors.UnsupportedRuleset
    """
    r = get_ruleset(ruleset)
    a = np.frombuffer(rows, dtype=np.uint8).reshape(1, -1) if isinstance(rows, bytes) else np.asarray(rows)
    race = is_race(a, r)
    me, opp, _ = sides(a.astype(np.uint8), r)
    home = (me[:, 7:26].sum(1) == 0) & (opp[:, 7:26].sum(1) == 0)
    pips = pip_counts(a, r)[:, 0]
    in_race = np.clip(params.race_base + params.race_per_pip * pips, params.race_min, params.race_max)
    x = np.where(race, in_race, params.contact)
    return np.where(race & home, params.bearoff, x)


@dataclass(frozen=True)
class CubeAction:
    """A money-game cube decision for the side on roll (before it rolls).

    Attributes
    ----------
    double : bool
        Whether the side on roll should double now (False when it may not).
    take : bool
        Whether the opponent should take a double now.
    too_good : bool
        The position is good enough to play on for a gammon rather than cash.
    win, win_gammon, lose_gammon : float
        Cubeless probabilities (pre-roll, one roll of lookahead) for the side on roll.
    equity : float
        Cubeless equity per unit of cube for the side on roll.
    """

    double: bool
    take: bool
    too_good: bool
    win: float
    win_gammon: float
    lose_gammon: float
    equity: float

    @classmethod
    def from_probabilities(cls, probs, may_double: bool = True, efficiency: float = 0.68) -> "CubeAction":
        """The money-game decision of :meth:`Bot.cube_action` for given cubeless pre-roll
        probabilities (so that another evaluator's, GNU Backgammon's for instance, can be
        put through the same model).

        Parameters
        ----------
        probs : float[6] or float[5]
            The columns of :data:`tawla.evaluation.COLUMNS` (equity, win, win_gammon,
            win_backgammon, lose_gammon, lose_backgammon) for the side on roll; five values
            are gnubg's order (win, win_gammon, win_backgammon, lose_gammon,
            lose_backgammon) and the equity is computed from them.
        may_double : bool
            False when the side on roll may not double (the opponent owns the cube).
        efficiency : float
            Cube efficiency ``x`` of the Janowski model.

        Raises
        ------
        tawla.errors.InvalidArgument
            Not 5 or 6 numbers, probabilities that are not finite or not within [0, 1], or
            an efficiency outside [0, 1].
        """
        try:
            p = np.asarray(probs, dtype=np.float64)
        except (TypeError, ValueError, OverflowError) as e:
            raise InvalidArgument(f"probs must be 5 or 6 numbers: {e}") from None
        if not isinstance(efficiency, (int, float, np.integer, np.floating)) or not 0.0 <= efficiency <= 1.0:
            raise InvalidArgument(f"efficiency must be within [0, 1], not {quote(efficiency)}")
        if p.shape == (5,):
            w, wg, wbg, lg, lbg = p
            p = np.array([2 * w - 1 + wg + wbg - lg - lbg, w, wg, wbg, lg, lbg])
        if p.shape != (6,):
            raise InvalidArgument(f"probs must have 5 or 6 values, not shape {p.shape}")
        if not np.isfinite(p).all() or (p[1:] < -1e-6).any() or (p[1:] > 1 + 1e-6).any():
            raise InvalidArgument(f"probabilities must be finite and within [0, 1], not {p[1:].tolist()}")
        win = float(np.clip(p[1], 1e-6, 1 - 1e-6))
        W = (p[1] + p[2] + p[3]) / win
        Lv = ((1 - win) + p[4] + p[5]) / (1 - win)
        tp = (W - 0.5) / (Lv + W + 0.5 * efficiency)  # taker: its wins are our losses
        take = (1 - win) >= tp
        in_window = win >= 1 - tp - 0.1
        too_good = (not take) and p[0] > 1.0 + 1e-6  # playing on beats cashing: gammons
        double = bool(may_double and in_window and not too_good)
        return cls(double, bool(take), bool(too_good), win, float(p[2]), float(p[4]), float(p[0]))


_EPS = 1e-6


def _win_values(p: np.ndarray) -> tuple:
    """(win chance, average points of a win W, average points of a loss L) per unit of cube."""
    win = float(np.clip(p[1], _EPS, 1 - _EPS))
    return win, 1.0 + (p[2] + p[3]) / win, 1.0 + (p[4] + p[5]) / (1 - win)


def _cubeful(win: float, W: float, L: float, state: str, x: float, jacoby: bool) -> float:
    """Janowski's cubeful equity per unit of cube for the side on roll: ``(1 - x)`` times the
    dead-cube equity plus ``x`` times the fully live one, the live one a broken line through
    the take point ``TP = (L - 1/2) / (W + L + 1/2)`` and the cash point
    ``CP = (L + 1) / (W + L + 1/2)``.

    ``state`` is ``"centred"``, ``"own"`` (the side on roll owns the cube) or ``"opp"``. With
    ``jacoby`` (a centred cube in a money session, RULES.md §2.4) gammons count single while
    nobody doubles: the dead-cube equity is ``2 win - 1`` and the live one is flat at -1 below
    TP and +1 above CP.
    """
    tp, cp = (L - 0.5) / (W + L + 0.5), (L + 1.0) / (W + L + 0.5)
    dead = 2 * win - 1 if jacoby else win * W - (1 - win) * L
    if state == "own":
        live = -L + (1 + L) * win / cp if win < cp else 1 + (W - 1) * (win - cp) / (1 - cp)
    elif state == "opp":
        live = -L + (L - 1) * win / tp if win < tp else -1 + (W + 1) * (win - tp) / (1 - tp)
    elif win < tp:
        live = -1.0 if jacoby else -L + (L - 1) * win / tp
    elif win < cp:
        live = -1 + 2 * (win - tp) / (cp - tp)
    else:
        live = 1.0 if jacoby else 1 + (W - 1) * (win - cp) / (1 - cp)
    return (1 - x) * dead + x * live


@dataclass(frozen=True)
class MoneyCube(CubeDecision):
    """The cubeful equities of a money-game cube decision (Janowski's model) for the side on
    roll, before it rolls, in points per unit of the cube before the decision (EMG: a cash
    of the current cube is 1).

    Attributes
    ----------
    no_double : float
        Not doubling (the cube as it is: centred or owned by the side on roll).
    double_take : float
        Doubling and the opponent taking (2 x the equity with the opponent owning a cube of
        twice the value; with beavers, the opponent beavers when that equity is below 0 and
        it is doubled again).
    double_pass : float
        Doubling and the opponent passing: 1.
    may_double : bool
        Whether the side on roll may double (False: the opponent owns the cube; then
        :attr:`optimal` is :attr:`no_double`).
    """

    @classmethod
    def from_probabilities(cls, probs, owner: int = 0, *, jacoby: bool = False, beaver: bool = False,
                           efficiency: float = 0.68) -> "MoneyCube":
        """The model on cubeless pre-roll probabilities, those of :meth:`CubeAction.from_probabilities`.

        Parameters
        ----------
        probs : float[6] or float[5]
            As :meth:`CubeAction.from_probabilities`.
        owner : int
            0 centred, 1 the side on roll owns the cube, -1 the opponent does.
        jacoby : bool
            The Jacoby rule of a money session (RULES.md §2.4): gammons count single while the
            cube is centred at 1 (only with ``owner`` 0).
        beaver : bool
            The opponent may beaver a double (not in RULES.md §2.3; a record's ``Beaver`` header).
        efficiency : float
            Cube efficiency ``x`` in [0, 1].

        Raises
        ------
        tawla.errors.InvalidArgument
            As :meth:`CubeAction.from_probabilities`, or an owner not -1, 0 or 1.
        """
        if isinstance(owner, bool) or owner not in (-1, 0, 1):
            raise InvalidArgument(f"owner must be -1, 0 or 1, not {quote(owner)}")
        action = CubeAction.from_probabilities(probs, owner >= 0, efficiency)  # checks the input
        p = np.array([action.equity, *np.asarray(probs, dtype=np.float64)[-5:]])
        win, W, L = _win_values(p)
        state = {0: "centred", 1: "own", -1: "opp"}[owner]
        nd = _cubeful(win, W, L, state, efficiency, jacoby and owner == 0)
        dt = 2 * _cubeful(win, W, L, "opp", efficiency, False)
        if beaver and dt < 0:
            dt *= 2
        return cls(float(nd), float(dt), 1.0, owner >= 0)


def cube_decision(probs, row: bytes, ruleset, state: MatchState,
                  met: MatchEquityTable | None = None) -> CubeDecision:
    """The cube decision of the side on roll of ``row`` on its cubeless pre-roll probabilities:
    :class:`tawla.met.MatchCube` at the score of a match, :class:`MoneyCube` (with the state's
    Jacoby rule) in a money game; the efficiency of the position's class (:func:`cube_efficiency`).

    Raises
    ------
    tawla.errors.InvalidArgument
        Bad probabilities, or a state the match model cannot hold (:func:`score_state`).
    """
    x = float(cube_efficiency(row, ruleset)[0])
    s = score_state(state)
    if s is None:
        owner = relative_owner(state.cube_owner, state.player_on_roll)
        return MoneyCube.from_probabilities(probs, owner, jacoby=state.jacoby and owner == 0, efficiency=x)
    return MatchCube.from_probabilities(probs, s, x, met)


_ACTIONS = ("no_double", "double_take", "double_pass")


def decision_fields(d, probs) -> dict:
    """The JSON fields of a decision ``d`` (a :class:`MoneyCube` or :class:`tawla.met.MatchCube`)
    on the cubeless columns ``probs`` (float[6]): the five probabilities, the cubeless equity,
    whether the side on roll may double, the proper action, the three equities (EMG; in a
    match also ``*_mwc``; None for the actions it cannot take) and the optimal one."""
    out = {"probabilities": [round(float(v), 6) for v in probs[1:]], "cubeless_equity": round(float(probs[0]), 6),
           "may_double": d.may_double, "proper": d.proper}
    for k in _ACTIONS:
        usable = d.may_double or k == "no_double"  # no double is the only action of a dead or owned cube
        out[k] = round(float(getattr(d, k)), 6) if usable else None
        if isinstance(d, MatchCube):
            out[k + "_mwc"] = round(float(getattr(d, k + "_mwc")), 6) if usable else None
    out["optimal"] = round(float(d.optimal), 6)
    if isinstance(d, MatchCube):
        out["optimal_mwc"] = round(float(d.optimal_mwc), 6)
    return out
