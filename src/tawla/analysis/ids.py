"""The IDs of the positions of an analysis, built from the columns of
:class:`~tawla.analysis.report_data.Plays` when a report is written.

A play of backgammon or Adi gets the GNU Backgammon Position ID and Match ID and the eXtreme
Gammon XGID of the position before it (from the side on roll, with the score, the cube, the
Crawford game and the dice); a play of the other rulesets gets its :meth:`tawla.Position.id`.
The record's player 1 (left column) is gnubg's player 0 and XG's bottom player.
"""

from __future__ import annotations

from ..errors import TawlaError
from ..formats.gnubg import MatchState
from ..position import Position

__all__ = ["match_state", "decision_ids"]


def match_state(plays, i: int, *, score=(0, 0), match_length: int = 0, crawford: bool = False,
                jacoby: bool = True) -> MatchState:
    """The gnubg match state at the i-th play of ``plays`` (the dice rolled, the player on roll).

    Raises
    ------
    tawla.errors.InvalidId
        A score the Match ID cannot hold (above the match length).
    """
    player = plays.player(i)
    d = plays[i]
    cube, owner = plays.cube(i)
    return MatchState(cube_value=cube, cube_owner=owner, player_on_roll=player, crawford=bool(crawford and match_length),
                      game_state=1, turn=player, dice=d.dice, match_length=match_length, score=tuple(score),
                      jacoby=jacoby)


def decision_ids(plays, i: int, ruleset, *, score=(0, 0), match_length: int = 0, crawford: bool = False,
                 jacoby: bool = True) -> dict:
    """The IDs of the position before the i-th play.

    Parameters
    ----------
    plays : Plays
    i : int
    ruleset : Ruleset
    score, match_length, crawford, jacoby
        The game's score before it (record players 1 and 2), the match length (0: money),
        whether it is the Crawford game, and the Jacoby rule (money sessions).

    Returns
    -------
    dict
        ``position_id``, ``match_id`` and ``xgid`` for backgammon boards (``match_id`` and
        ``xgid`` None where the recorded score cannot be written in them), ``tawla_id`` for the
        other rulesets; empty where the play was stored without its board.
    """
    tid = plays.tawla_id(i, ruleset)
    if tid is None:
        return {}
    if not ruleset.has_bar:
        return {"tawla_id": tid}
    pos = Position.from_id(tid, ruleset)
    ids = {"position_id": pos.gnubg_id(), "match_id": None, "xgid": None}
    try:
        state = match_state(plays, i, score=score, match_length=match_length, crawford=crawford, jacoby=jacoby)
        ids["match_id"] = state.match_id()
        ids["xgid"] = pos.xgid(state)
    except TawlaError:
        pass  # a score at or above the match length: the board's ID alone
    return ids
