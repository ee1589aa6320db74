"""Game end, scoring and frozen positions (reference engine), on rows.

RULES.md §1.7 (frozen positions), §1.8 and §2.2 / §3 / §4.4-4.5 / §5.6-5.7 / §6.6
(scoring). The opening roll (§1.6) is :mod:`tawla.rules.opening`.
"""

from __future__ import annotations

from ..core.geometry import flip_row, own_coords
from ..core.layout import ME_OFF, OPP_OFF
from ..core.results import BASE_POINTS, GameResult
from ..rules import Ruleset, Scoring
from . import engine as ref

__all__ = ["game_result", "is_frozen"]


def _winner_points(r: Ruleset, lose, lose_home_or_bar: bool, cube: int):
    """(kind, points) for a side that bore off all 15 (§1.8)."""
    if r.scoring == Scoring.CHECKERS_LEFT:  # §5.7
        return ("gammon" if lose[0] == 0 else "single"), 15 - lose[0]
    if lose[0]:
        kind = "single"
    elif r.scoring == Scoring.CUBE and lose_home_or_bar:
        kind = "backgammon"
    else:
        kind = "gammon"
    return kind, BASE_POINTS[kind] * (cube if r.scoring == Scoring.CUBE else 1)


def game_result(r: Ruleset, row: bytes, cube: int = 1, *, frozen_test: bool = True):
    """The :class:`~tawla.core.results.GameResult` of a row, or None while the game goes on.

    Parameters
    ----------
    r : Ruleset
    row : bytes
        A valid packed row, mover's seat.
    cube : int
        The cube value (backgammon scoring only).
    frozen_test : bool
        False to leave out the frozen test (§1.7).

    Returns
    -------
    GameResult or None
        The winner relative to the row: 0 = the side on roll there, 1 = the opponent.
    """
    me, opp = own_coords(row, r.geometry)
    for who, win, lose in ((0, me, opp), (1, opp, me)):
        if win[0] == 15:
            # §2.2: backgammon when the loser still has a checker on the bar or in the
            # winner's home (the loser's own 19..24); with the D14 option only the home counts.
            in_home = any(lose[q] for q in range(19, 25))
            on_bar = lose[25] > 0 and not r.bar_backgammon_counts_double
            kind, pts = _winner_points(r, lose, in_home or on_bar, cube)
            return GameResult(who, kind, pts)
    if r.quadrant_lock_win:  # §5.6: all six of one's own 19..24
        for who, side, other in ((0, me, opp), (1, opp, me)):
            if all(side[q] for q in range(19, 25)):
                return GameResult(who, "quadrant_lock", 15 - other[0])
    if r.mother_rule == "plakoto":  # §4.4
        s = ref.State.from_row(row)
        x24 = r.opponent_point(24)
        mp_me = ref.mother_pinned(s.me, s.pinned_me, 24)
        mp_opp = ref.mother_pinned(s.opp, s.pinned_opp, x24)
        if mp_me and mp_opp:
            return GameResult(None, "draw", 0)
        if mp_opp and s.me[24] == 0:
            return GameResult(0, "mother", 2)
        if mp_me and s.opp[x24] == 0:
            return GameResult(1, "mother", 2)
    if frozen_test and r.can_freeze and is_frozen(r, row):
        return GameResult(None, "draw", 0)
    return None


def _side_can_step(r: Ruleset, s) -> bool:
    for d in range(1, 7):
        for p, t, _hit in ref.single_steps(r, s, d):
            n = ref.apply_step(r, s, p, t)
            if not r.wall_rule or ref.walls_ok(r, n):
                return True
    return False


def is_frozen(r: Ruleset, row: bytes) -> bool:
    """§1.7: for every die value 1..6, neither side has a legal single step.

    Both sides are probed whatever the turn, with locks, pins, bear-off conditions and
    the wall rule applied. The hitting games never freeze (False).
    """
    if not r.can_freeze:
        return False
    if row[ME_OFF] == 15 or row[OPP_OFF] == 15:
        return False
    return not (_side_can_step(r, ref.State.from_row(row))
                or _side_can_step(r, ref.State.from_row(flip_row(row, r.geometry))))
