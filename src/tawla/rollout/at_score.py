"""Rollouts at a match score.

Backgammon with cube decisions (``cubeful``, the default): every trial makes its cube
decisions at the score (the match model of ``csrc/rollout/tw_cube_match.c``, GNU Backgammon's)
and ends in the chance of winning the match after its game; a position is rolled out twice on
the same dice, not doubling and doubled (the opponent owning the cube at twice its value), so
that its cube decision compares the two rolled-out chances with the table's for a pass; each
play is rolled out with the opponent free to double at once. Cubeless (``cubeful`` off, and in
the Tawla rulesets) the score is applied to what the trials measured, as a 0-ply evaluation
applies it to a network's probabilities (:mod:`tawla.bots.score`): in backgammon each play is
valued by the match-winning chance it leaves with the opponent's cube action at the score, and
a position by its cube decision at the score (:class:`tawla.met.MatchCube`); in the Tawla
rulesets scored by mars by the chance of each result times the ruleset's table (exact: the
chance is linear in the results' chances). Tawla 31's outputs (the chances of winning and of
the 15-point results, the expected points) do not give the spread of the points between, so
its trials play to their games' ends (no truncation, no bear-off database stop, no luck
adjustment). In every Tawla ruleset each trial is worth the table's chance after its points
(:func:`trials_of_points`), with its standard error; one that stops (Adi, Mahbusa) the table
on its outputs. A play that ends the game is worth its exact result at the score.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from ..bots.cube import cube_decision
from ..bots.score import match_score, mwc_on_roll, play_values_at_score, play_values_by_mars
from ..errors import InvalidArgument
from ..formats.gnubg import MatchState
from ..met import MatchCube, MatchEquityTable, ScoreState, default_met, variant_met
from ..met.cube import mwc_to_emg
from .run import MatchTrials
from .settings import RolloutSettings
from .stats import RolloutResult

__all__ = ["AtScore", "rollout_score", "by_points", "whole_games", "trials_of_points", "points_value", "exact_mwc", "columns_of", "play_values", "position_value", "trials_of_position",
           "trials_of_plays", "cubeful_result", "cubeful_position"]


@dataclass(frozen=True)
class AtScore:
    """The match a rollout is valued in: the state as given and its score
    (:func:`tawla.bots.score.match_score`), with the table."""

    state: MatchState
    score: ScoreState | tuple[int, int]
    met: MatchEquityTable | None = None

    @property
    def table(self) -> MatchEquityTable:
        return self.met if self.met is not None else default_met()

    def describe(self) -> str:
        """``"7-point match, 5-away 2-away, cube 2"`` (the side on roll first)."""
        s = self.state
        me = s.player_on_roll
        text = f"{s.match_length}-point match, {s.match_length - s.score[me]}-away {s.match_length - s.score[1 - me]}-away"
        if isinstance(self.score, ScoreState):
            text += f", cube {self.score.cube}" + (", Crawford game" if s.crawford else "")
        return text

    def to_json(self) -> dict:
        s = self.state
        me = s.player_on_roll
        out = {"length": s.match_length, "score": [s.score[me], s.score[1 - me]]}
        if isinstance(self.score, ScoreState):
            out.update(cube=self.score.cube, owner={1: "on-roll", -1: "opponent"}.get(self.score.owner, "centre"),
                       crawford=bool(s.crawford))
        return out


def rollout_score(state: MatchState | None, ruleset, met: MatchEquityTable | None = None) -> AtScore | None:
    """The match of a rollout, or None (no state or a money game).

    Raises
    ------
    tawla.errors.InvalidArgument
        Not a MatchState, or a state the match model cannot hold.
    """
    score = match_score(state, ruleset)
    if score is None:
        return None
    assert state is not None
    return AtScore(state, score, met)


def by_points(ruleset) -> bool:
    """Whether a ruleset's match rollouts value each trial by its points at the score: the
    Tawla rulesets (no cube)."""
    return not ruleset.cube


def whole_games(s: RolloutSettings) -> RolloutSettings:
    """The settings of a Tawla 31 rollout at a score: every trial played to its game's end, so
    no bear-off database stop and no luck adjustment (both value a position by outputs that do
    not give the points' spread).

    Raises
    ------
    tawla.errors.InvalidArgument
        A truncated rollout.
    """
    if s.truncate:
        raise InvalidArgument("a Tawla 31 rollout at a match score plays every trial to the end of its game: "
                              f"truncation ({s.truncate} plies) is refused")
    return dataclasses.replace(s, variance_reduction=False, bearoff=False)


def trials_of_points(m: AtScore, ruleset, count: int, after_play: bool) -> MatchTrials:
    """``count`` rows' trials valued by their points at the score (a match without a cube):
    the position's side on roll to move, or (``after_play``) its opponent."""
    assert not isinstance(m.score, ScoreState)
    away, opp_away = m.score
    if after_play:
        away, opp_away = opp_away, away
    return MatchTrials(variant_met(ruleset.name), away, opp_away, False, ((0, 0),) * count)


def points_value(res: RolloutResult) -> tuple[RolloutResult, float, float]:
    """A rollout of :func:`trials_of_points` as the result without a cubeful column, its
    value at the score (``2 MWC - 1``) and that value's standard error."""
    assert res.cubeful_equity is not None and res.cubeful_equity_se is not None
    return (dataclasses.replace(res, cubeful_equity=None, cubeful_equity_se=None), res.cubeful_equity,
            res.cubeful_equity_se)


def columns_of(probabilities, equity: float) -> np.ndarray:
    """``float64[6]``: a rollout's five probabilities and cubeless equity as the columns of
    :data:`tawla.evaluation.COLUMNS`, the probabilities made consistent first: the luck
    adjustment can carry a mean a little outside [0, 1] or a backgammon chance past its
    gammon's; each is held within what contains it (``0 <= bg <= gammon <= win <= 1``, the
    same for the losses)."""
    p = np.asarray(probabilities, dtype=np.float64)
    win = float(np.clip(p[0], 0.0, 1.0))
    wg = float(np.clip(p[1], 0.0, win))
    lg = float(np.clip(p[3], 0.0, 1.0 - win))
    return np.array([equity, win, wg, float(np.clip(p[2], 0.0, wg)), lg, float(np.clip(p[4], 0.0, lg))])


def _opponents(cols: np.ndarray) -> np.ndarray:
    """Columns (float64[N, 6]) of the player who made a play as the opponent's."""
    return np.column_stack([-cols[:, 0], 1 - cols[:, 1], cols[:, 4], cols[:, 5], cols[:, 2], cols[:, 3]])


def play_values(m: AtScore, children: np.ndarray, cols: np.ndarray, exact_points: list,
                ruleset) -> tuple[np.ndarray, np.ndarray]:
    """The value at the score of each play (EMG in backgammon, ``2 MWC - 1`` in a Tawla
    ruleset) and its match-winning chance, for the player who made it.

    Parameters
    ----------
    children : uint8[N, 56]
        The positions after the plays (the opponent on roll).
    cols : float64[N, 6]
        The rolled-out columns of each play, for the player who made it.
    exact_points : list of int or None
        The points a play that ends the game wins (cube 1), else None.
    """
    opp = _opponents(np.asarray(cols, dtype=np.float64))
    if isinstance(m.score, ScoreState):
        value, mwc = play_values_at_score(children, opp, ruleset, m.score, m.met)
        t = m.met if m.met is not None else default_met()
        for i, pts in enumerate(exact_points):
            if pts is not None:
                mwc[i] = m.score.me(pts * m.score.cube, 0, t)
                value[i] = mwc_to_emg(mwc[i], m.score, t)
        return value, mwc
    value = play_values_by_mars(opp, ruleset, *m.score)
    for i, pts in enumerate(exact_points):
        if pts is not None:
            value[i] = 2 * exact_mwc(m, ruleset, pts) - 1
    return value, (value + 1) / 2


def exact_mwc(m: AtScore, ruleset, points: int) -> float:
    """In a Tawla ruleset's match: the match-winning chance of the side on roll after a play
    that wins the game by ``points``."""
    assert not isinstance(m.score, ScoreState)
    return float(variant_met(ruleset.name).after(*m.score, points, 0, False))


def position_value(m: AtScore, row: bytes, cols: np.ndarray, ruleset) -> tuple[MatchCube | None, float]:
    """The cube decision at the score of the side on roll (backgammon; None elsewhere) on the
    rolled-out columns, and its match-winning chance (the proper action's)."""
    if isinstance(m.score, ScoreState):
        d = cube_decision(cols, row, ruleset, m.state, m.met)
        assert isinstance(d, MatchCube)
        return d, d.optimal_mwc
    return None, float(mwc_on_roll(np.asarray(cols, dtype=np.float64)[None], ruleset, *m.score)[0])


def trials_of_position(m: AtScore) -> MatchTrials:
    """The cube decisions of a backgammon position's rollout at the score: the row not doubled
    (the cube as it is) and, where the side on roll may double, the same row doubled."""
    sc = m.score
    assert isinstance(sc, ScoreState)
    cubes = [(sc.cube, sc.owner)]
    if sc.may_double:
        cubes.append((2 * sc.cube, -1))
    return MatchTrials(m.table, sc.away, sc.opp_away, sc.crawford, tuple(cubes))


def trials_of_plays(m: AtScore, count: int) -> MatchTrials:
    """The cube decisions of ``count`` plays' rollouts at the score: the rows after the plays
    (the opponent on roll, the cube as it is)."""
    sc = m.score
    assert isinstance(sc, ScoreState)
    return MatchTrials(m.table, sc.opp_away, sc.away, sc.crawford, ((sc.cube, -sc.owner),) * count)


def cubeful_result(m: AtScore, res: RolloutResult, state: ScoreState | None = None) -> tuple[RolloutResult, float]:
    """A rollout's result with cube decisions at the score (its cubeful value 2 MWC - 1) as
    GNU Backgammon prints one: the cubeful equity (and its error) in EMG at ``state`` (the
    rollout's score by default); and the match-winning chance."""
    s = state if state is not None else m.score
    assert isinstance(s, ScoreState) and res.cubeful_equity is not None and res.cubeful_equity_se is not None
    t = m.table
    mwc = (res.cubeful_equity + 1) / 2
    scale = 1.0 / (s.me(s.cube, 0, t) - s.me(0, s.cube, t))  # d EMG / d (2 MWC - 1)
    return (dataclasses.replace(res, cubeful_equity=float(mwc_to_emg(mwc, s, t)),
                                cubeful_equity_se=res.cubeful_equity_se * scale), mwc)


def cubeful_position(m: AtScore, not_doubled: RolloutResult, doubled: RolloutResult | None) -> MatchCube:
    """The cube decision from a position's rollouts not doubled and doubled
    (:func:`trials_of_position`; ``doubled`` None where the side on roll may not double)."""
    sc = m.score
    assert isinstance(sc, ScoreState)
    t = m.table
    nd = cubeful_result(m, not_doubled)[1]
    if doubled is None:
        return MatchCube(mwc_to_emg(nd, sc, t), mwc_to_emg(nd, sc, t), mwc_to_emg(nd, sc, t), False, nd, nd, nd, sc)
    dt, dp = cubeful_result(m, doubled)[1], sc.me(sc.cube, 0, t)
    return MatchCube(mwc_to_emg(nd, sc, t), mwc_to_emg(dt, sc, t), mwc_to_emg(dp, sc, t), True, nd, dt, dp, sc)
