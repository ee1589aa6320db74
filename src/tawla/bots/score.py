"""Checker play at a match score: each play valued by the match-winning chance it leaves,
as GNU Backgammon's cubeful evaluation values it — the opponent, on roll after the play,
takes its best cube action at the score (:class:`tawla.met.MatchCube`) on the cubeless
probabilities of the position it faces; the mover's chance is the rest, shown as normalised
equity (EMG) of the mover's cube."""

from __future__ import annotations

import numpy as np

from ..errors import InvalidArgument
from ..formats.gnubg import MatchState
from ..met import MatchCube, MatchEquityTable, ScoreState, default_met
from ..met.cube import mwc_to_emg
from ..rules import get_ruleset
from .cube import CubeEfficiency, GNUBG_EFFICIENCY, cube_efficiency, score_state

__all__ = ["match_score", "play_values_at_score"]


def match_score(match_state: MatchState | None, ruleset) -> ScoreState | None:
    """The score a play is judged at: None for no state, a money game or a ruleset without a
    cube (their plays are valued cubeless).

    Raises
    ------
    tawla.errors.InvalidArgument
        Not a MatchState, or one the match model cannot hold.
    """
    if match_state is None:
        return None
    if not isinstance(match_state, MatchState):
        raise InvalidArgument(f"match_state must be a MatchState, not {type(match_state).__name__}")
    if not get_ruleset(ruleset).cube:
        return None
    return score_state(match_state)


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
    x = cube_efficiency(children, ruleset, efficiency)
    opp = state.flipped()
    mwc = np.empty(len(children))
    for i, (p, xi) in enumerate(zip(np.asarray(probs, dtype=np.float64), x)):
        mwc[i] = 1.0 - MatchCube.from_probabilities(p, opp, float(xi), t).optimal_mwc
    emg = np.array([mwc_to_emg(m, state, t) for m in mwc])
    return emg, mwc
