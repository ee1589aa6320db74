"""Checker play at a match score: each play valued by the match-winning chance it leaves.

Backgammon, as GNU Backgammon's cubeful evaluation values it: the opponent, on roll after the
play, takes its best cube action at the score (:class:`tawla.met.MatchCube`) on the cubeless
probabilities of the position it faces; the mover's chance is the rest, shown as normalised
equity (EMG) of the mover's cube. The Tawla rulesets scored by mars (a game is worth 1 or 2,
RULES.md §4.4): no cube, the chance of each result times the table of the ruleset
(:func:`tawla.met.variant_met`) after it, shown as ``2 MWC - 1``; Tawla 31 (1 to 15 points a
game, §5.7) likewise over the distribution of :func:`tawla.evaluation.points.t31_distribution`."""

from __future__ import annotations

import numpy as np

from ..errors import InvalidArgument, quote
from ..evaluation.points import MARGINS, flip_distribution, t31_distribution
from ..formats.gnubg import MatchState
from ..met import MAX_AWAY, MatchEquityTable, ScoreState, default_met, variant_met
from ..met.cube import mwc_to_emg
from ..rules import get_ruleset, Scoring
from .cube import CubeEfficiency, GNUBG_EFFICIENCY, score_state
from .cubeful import OPTIMAL, cubeful_play_values, model_mwc
from .lookahead import preroll_columns

__all__ = ["match_score", "away_score", "play_values", "play_values_at_score", "play_values_by_mars", "play_values_by_points",
           "preroll_distribution", "search_at_score", "top_within", "mwc_on_roll"]


def match_score(match_state: MatchState | None, ruleset) -> ScoreState | tuple[int, int] | None:
    """The score a play is judged at: a :class:`ScoreState` in a backgammon match, ``(away,
    opponent away)`` in a match of a Tawla ruleset (no cube), None for no state or a money
    game (its plays are valued by points).

    Raises
    ------
    tawla.errors.InvalidArgument
        Not a MatchState, or one the match model cannot hold (a Tawla match longer than
        :data:`tawla.met.MAX_AWAY` points too).
    """
    if match_state is None:
        return None
    if not isinstance(match_state, MatchState):
        raise InvalidArgument(f"match_state must be a MatchState, not {type(match_state).__name__}")
    r = get_ruleset(ruleset)
    if r.cube:
        return score_state(match_state)
    n = match_state.match_length
    if not n or r.scoring not in (Scoring.MARS, Scoring.CHECKERS_LEFT):
        return None
    if n > MAX_AWAY:
        raise InvalidArgument(f"a match is 1 to {MAX_AWAY} points, not {n}")
    me = match_state.player_on_roll
    return n - match_state.score[me], n - match_state.score[1 - me]


def away_score(away_counts, ruleset) -> tuple[int, int]:
    """The score of :func:`match_score` in a Tawla ruleset's match given as the mover's and its
    opponent's away counts, checked.

    Raises
    ------
    tawla.errors.InvalidArgument
        Not two whole numbers 1..:data:`tawla.met.MAX_AWAY`, or a ruleset whose matches are not
        played by such a score (one with a cube, or not scored by mars or checkers left).
    """
    r = get_ruleset(ruleset)
    ok = (not r.cube and r.scoring in (Scoring.MARS, Scoring.CHECKERS_LEFT) and isinstance(away_counts, tuple)
          and len(away_counts) == 2 and all(isinstance(a, (int, np.integer)) and not isinstance(a, bool)
                                            and 1 <= a <= MAX_AWAY for a in away_counts))
    if not ok:
        raise InvalidArgument(f"away counts 1..{MAX_AWAY} are a Tawla ruleset's match score, not "
                              f"{quote(away_counts)} in {r.name}")
    return int(away_counts[0]), int(away_counts[1])


def _mwc_after(ruleset, away: int, opp_away: int) -> np.ndarray:
    """``float64[31]``: the mover's match-winning chance after the opponent's game result
    ``m`` of :data:`~tawla.evaluation.points.MARGINS` (points it won, negative: lost), ``away``
    against ``opp_away`` in a match of a Tawla ruleset (its measured table, no Crawford rule;
    a draw is replayed)."""
    t = variant_met(get_ruleset(ruleset).name)
    return np.array([t.after(away, opp_away, max(-int(m), 0), max(int(m), 0), False) for m in MARGINS])


def play_values_by_mars(probs: np.ndarray, ruleset, away: int, opp_away: int) -> np.ndarray:
    """``float64[N]``: ``2 MWC - 1`` of the mover after each play, in a ruleset scored by
    mars: ``probs`` the opponent's columns (on roll after the play), a single game 1 point,
    a mars 2, the ruleset's measured table (:func:`tawla.met.variant_met`)."""
    p = np.asarray(probs, dtype=np.float64)
    w, wm, lm = p[:, 1], np.minimum(p[:, 2], p[:, 1]), np.minimum(p[:, 4], 1 - p[:, 1])
    mine = _mwc_after(ruleset, away, opp_away)
    mwc = (1 - w - lm) * mine[15 - 1] + lm * mine[15 - 2] + (w - wm) * mine[15 + 1] + wm * mine[15 + 2]
    return 2 * mwc - 1


def play_values_by_points(dist: np.ndarray, ruleset, away: int, opp_away: int) -> np.ndarray:
    """``float64[N]``: ``2 MWC - 1`` of the mover after each play in Tawla 31 (RULES.md §5.7):
    ``dist`` the opponent's distribution of the game's result (on roll after the play;
    :func:`tawla.evaluation.points.t31_distribution`), each result times the ruleset's measured
    table (:func:`tawla.met.variant_met`) after it."""
    return 2 * (np.asarray(dist, dtype=np.float64) @ _mwc_after(ruleset, away, opp_away)) - 1


def mwc_on_roll(values: np.ndarray, ruleset, away: int, opp_away: int) -> np.ndarray:
    """``float64[N]``: the match-winning chance of the side on roll, ``away`` against
    ``opp_away`` in a match of a Tawla ruleset, from its own evaluations before it rolls
    (columns of :data:`tawla.evaluation.COLUMNS`, or Tawla 31's distributions): the values of
    :func:`play_values` for the other side, whose opponent it is, turned round."""
    r = get_ruleset(ruleset)
    by = play_values_by_points if r.scoring == Scoring.CHECKERS_LEFT else play_values_by_mars
    return 1 - (by(values, r, opp_away, away) + 1) / 2


def preroll_distribution(rows: np.ndarray, r, contact=None, plies: int = 1) -> np.ndarray:
    """``float64[N, 31]``: :func:`tawla.evaluation.points.t31_distribution` of each row before
    its side on roll rolls, ``plies`` (1 or 2) rolls ahead: the average over the 21 rolls of
    the distribution after its best move by equity (:func:`tawla.bots.lookahead.preroll_columns`,
    as :meth:`tawla.Bot.preroll` averages the columns); a row with no move keeps its own.
    ``rows`` valid positions of ``r``, not validated here."""
    return preroll_columns(rows, r, lambda x: t31_distribution(x, r, contact), plies, flip=flip_distribution,
                           equity=lambda d: d @ MARGINS)


def play_values_at_score(children: np.ndarray, probs: np.ndarray, ruleset, state: ScoreState,
                         met: MatchEquityTable | None = None,
                         efficiency: CubeEfficiency = GNUBG_EFFICIENCY) -> tuple[np.ndarray, np.ndarray]:
    """The mover's value of each play at the score.

    Parameters
    ----------
    children : uint8[N, 56]
        The positions after the plays, seen from the opponent (on roll next).
    probs : float64[N, 6]
        Their cubeless pre-roll columns (:data:`tawla.evaluation.COLUMNS`) for the opponent.
    ruleset : Ruleset or str
    state : ScoreState
        The match from the mover's seat, before the play.
    met : MatchEquityTable, optional

    Returns
    -------
    emg : float64[N]
        Normalised equity of the mover's cube (+1: winning the cube's value).
    mwc : float64[N]
        The mover's match-winning chance.
    """
    t = met if met is not None else default_met()
    mwc = 1.0 - model_mwc(probs, children, ruleset, state.flipped(), t, efficiency)[:, OPTIMAL]
    return mwc_to_emg(mwc, state, t), mwc


def play_values(children: np.ndarray, probs: np.ndarray, ruleset, score: ScoreState | tuple[int, int],
                met: MatchEquityTable | None = None) -> np.ndarray:
    """``float64[N]``: the mover's value of each play at the ``score`` of :func:`match_score`:
    EMG in backgammon (:func:`play_values_at_score`), ``2 MWC - 1`` in a ruleset scored by
    mars (:func:`play_values_by_mars`) or in Tawla 31 (:func:`play_values_by_points`, ``probs``
    then the distributions of :func:`tawla.evaluation.points.t31_distribution`)."""
    if isinstance(score, tuple):
        if get_ruleset(ruleset).scoring == Scoring.CHECKERS_LEFT:
            return play_values_by_points(probs, ruleset, *score)
        return play_values_by_mars(probs, ruleset, *score)
    return play_values_at_score(children, probs, ruleset, score, met)[0]


def top_within(v: np.ndarray, limit: int, margin: float) -> np.ndarray:
    """Indices of the best ``limit`` values of ``v`` that lie within ``margin`` of the best."""
    order = np.argsort(-v, kind="stable")[:limit]
    return order[v[order] >= v[order[0]] - margin]


def search_at_score(children: np.ndarray, ruleset, score: ScoreState | tuple[int, int], depth: int, ahead,
                    prune: dict, met: MatchEquityTable | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The progressive search of :meth:`tawla.Bot.values` on the values at the score.

    Every child is valued at 0 ply (:func:`play_values` of ``ahead(children, 0)``); the best
    (``prune[0]``: at most so many, within so much of the best value) at 1 ply, and at
    ``depth`` 2 the best of those (``prune[1]``) at 2 ply: in backgammon by the opponent's
    cubeful evaluation at that depth (:func:`tawla.bots.cubeful.cubeful_play_values`: cube
    decisions after every roll), in the Tawla rulesets on ``ahead(rows, plies)``, the
    probabilities (or Tawla 31 distributions) ``plies`` rolls ahead.

    Returns
    -------
    value : float64[N]
        The mover's value of each child at the depth it reached.
    ply : int64[N]
        That depth.
    """
    ply = np.zeros(len(children), np.int64)
    if len(children) == 0:
        return np.zeros(0), ply
    value = play_values(children, ahead(children, 0), ruleset, score, met)
    keep = np.arange(len(children))
    for d in range(1, min(depth, 2) + 1):
        limit, margin = prune[d - 1]
        keep = keep[top_within(value[keep], limit, margin)]
        if isinstance(score, ScoreState):  # the opponent's cube decisions inside the search
            value[keep] = cubeful_play_values(children[keep], ruleset, score, lambda x: ahead(x, 0), d, met)[0]
        else:
            value[keep] = play_values(children[keep], ahead(children[keep], d), ruleset, score, met)
        ply[keep] = d
    return value, ply
