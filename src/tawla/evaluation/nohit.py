"""The contact model of the no-hit games (mahbusa, tawla31, tawla31-saharat): effective pips.

Each side's pips are increased by pip-equivalent penalties for what slows it down, and
normal distributions of rolls (:mod:`tawla.evaluation.rolls`) turn the two effective
counts into winning and mars chances:

- mahbusa (RULES.md §4): a pinned checker costs 12 pips plus the pips it still has to
  travel (it cannot move until released), a pinned mother (own 24 point) 40 more; a blot
  the opponent can reach next roll (within 12 pips) costs half its chance of being pinned
  times that price; points (2+ checkers) that the opponent still has to cross count
  against it: 2 pips each (first 18 points of its path) plus the square of the length of
  each run of them.
- tawla31 (§5): the runner lock (no checker home, none off, §5.3) costs 8 pips; every
  opponent checker in one's home (no bear-off, §5.5) 3 pips; each point held (one checker
  is enough) ahead of the opponent's checkers blocks it, as in mahbusa; holding k of the
  opponent's home points while it has none there costs the opponent
  ``[0, 0, 2, 6, 16, 40][k]`` pips (the quadrant lock, §5.6, wins 15).
- tawla31-saharat (§6): the start lock (no checker on own 1..12, none off, §6.3) costs 8
  pips; points ahead of the opponent's checkers block it as in tawla31 (the wall rule
  caps runs at five).

tawla31's equity uses the expected number of the loser's checkers left
(:func:`tawla.evaluation.rolls.t31_equity`). Not modelled: draws (frozen positions) and
the mahbusa ``mother_rule="plakoto"`` instant win.

:func:`nohit_contact` runs the compiled twin (:func:`tawla.native.nohit_contact`)
when it is built; :func:`nohit_contact_np` is the numpy reference.
"""

from __future__ import annotations

import numpy as np

from .. import native
from ..rules import PIN, get_ruleset
from .board_views import LOGMISS, POINT_MAP, check_rows, sides
from .rolls import MU, VAR_PER_PIP, combine, normal_rolls, race_columns, t31_margins

__all__ = ["nohit_contact", "nohit_contact_np", "nohit_margins_np"]


def _runs_ahead(blocks, ahead):
    """Sum over maximal runs of blocked points that some opponent checker still has to
    cross: len^2. ``blocks``/``ahead`` bool [n, 24] along the opponent's path order."""
    n = blocks.shape[0]
    run = np.zeros(n)
    tot = np.zeros(n)
    for i in range(blocks.shape[1]):
        b = blocks[:, i] & ahead[:, i]
        run = np.where(b, run + 1, 0)
        # add the increment of len^2 as the run grows: (k+1)^2 - k^2 = 2k + 1
        tot += np.where(b, 2 * run - 1, 0)
    return tot


def _path_blocks(S, O, r):
    """(blocked, ahead): along O's path (O's points 24 -> 1), whether S holds the point and
    whether some O checker is still behind it (so must cross it)."""
    q = np.arange(24, 0, -1)  # O's points in travel order
    sp = POINT_MAP[r.geometry][q]
    held = S[:, sp] >= (2 if r.contact == "pin" else 1)
    # O checkers behind point q (farther from home): O's points > q
    cnt = np.cumsum(O[:, 24:0:-1], axis=1)  # O checkers on points 24..q
    ahead = np.concatenate([np.zeros((len(S), 1), bool), cnt[:, :-1] > 0], axis=1)
    return held, ahead


def _nohit_penalty(me, opp, om, rows, r):
    """Pip-equivalent penalties (me, opp) for the no-hit games."""
    n = len(me)
    pen_m = np.zeros(n)
    pen_o = np.zeros(n)
    for S, O, pen_s, pen_o_side in ((me, opp, pen_m, pen_o), (opp, me, pen_o, pen_m)):
        held, ahead = _path_blocks(S, O, r)
        # S's points that O still has to cross slow O down; runs of them quadratically
        pen_o_side += 2.0 * (held & ahead)[:, :18].sum(1) + 1.0 * _runs_ahead(held, ahead)
        if r.start_lock:
            locked = (S[:, 1:r.start_lock + 1].sum(1) == 0) & (S[:, 0] == 0)
            pen_s += 8.0 * locked
    if r.contact == PIN:  # pinned checkers and blots that may be pinned (§4)
        bits = rows[:, 52].astype(np.int64) | rows[:, 53].astype(np.int64) << 8 | rows[:, 54].astype(np.int64) << 16
        p = np.arange(1, 25)
        my_pinned = (bits[:, None] >> (p - 1)) & 1 == 1
        both = (me[:, 1:25] > 0) & (om[:, 1:25] > 0)
        opp_pinned_at_my = both & ~my_pinned  # on my point p
        pen_m += (my_pinned * (12 + p)).sum(1) + 40 * my_pinned[:, 23]
        # opponent pinned checker on my point p is on its point 25 - p
        pen_o += (opp_pinned_at_my * (12 + (25 - p))).sum(1) + 40 * opp_pinned_at_my[:, 0]
        # my blots reachable by the opponent next roll (opponent at my x < p moving up)
        for S_on_mine, O_on_mine, pen, flip in ((me[:, 1:25], om[:, 1:25], pen_m, False),
                                                (om[:, 1:25], me[:, 1:25], pen_o, True)):
            blot = (S_on_mine == 1) & ~((S_on_mine > 0) & (O_on_mine > 0))
            shooters = O_on_mine > 0
            lm = np.zeros((n, 24))
            for d in range(1, 13):
                if flip:  # opponent moves down in my numbering; its blot at x is hit from x + d
                    lm[:, :24 - d] += shooters[:, d:] * LOGMISS[d]
                else:
                    lm[:, d:] += shooters[:, :24 - d] * LOGMISS[d]
            ph = np.where(blot, 1 - np.exp(lm), 0)
            own_p = (25 - p) if flip else p
            pen += 0.5 * (ph * (12 + own_p + 40 * (own_p == 24))).sum(1)
    if r.bearoff_no_opponent_in_home:  # opponent checkers in my home stop my bear-off (§5.5)
        pen_m += 3.0 * om[:, 1:7].sum(1)
        pen_o += 3.0 * me[:, 19:25].sum(1)
    if r.quadrant_lock_win:  # quadrant lock threat: my points held on my 19..24 while the opponent has none there
        qp = np.array([0, 0, 2, 6, 16, 40], dtype=np.float64)
        for S, O, pen in ((me, opp, pen_o), (opp, me, pen_m)):
            k = (S[:, 19:25] > 0).sum(1)
            free = O[:, 1:7].sum(1) == 0  # O's home = S's 19..24
            pen += np.where(free, qp[np.minimum(k, 5)], 0)
    return pen_m, pen_o


def _first_off_pips(S):
    """Pips to bring every checker of S home, then one off (the rolls to a first checker off)."""
    out = np.maximum(S[:, 7:26] * (np.arange(7, 26) - 6), 0).sum(1).astype(np.float64)
    lowest = np.where(S[:, 1:7].sum(1) > 0, np.argmax(S[:, 1:7] > 0, axis=1) + 1, 6)
    return out + lowest + 4.0


def nohit_contact(rows, ruleset) -> np.ndarray:
    """The no-hit contact model, an :class:`~tawla.evaluation.Evaluator` (compiled when built).

    Parameters
    ----------
    rows : uint8[N, 56]
        Rows of mahbusa, tawla31 or tawla31-saharat with contact.
    ruleset : Ruleset or str

    Returns
    -------
    float64[N, 6]
        The columns of :data:`~tawla.evaluation.COLUMNS` (no backgammons).

    Raises
    ------
    tawla.errors.InvalidId
        Rows of another shape or dtype (nothing is cast).
    """
    r = get_ruleset(ruleset)
    rows = np.ascontiguousarray(check_rows(rows))
    if native.available("eval"):
        return native.nohit_contact(rows, r)
    return nohit_contact_np(rows, r)


def nohit_contact_np(rows, ruleset) -> np.ndarray:
    """:func:`nohit_contact` in numpy (the reference of the compiled twin)."""
    r = get_ruleset(ruleset)
    win, wg, lg, parts, me, opp = _nohit_race(rows, r)
    return race_columns(win, wg, lg, parts, me, opp, r)


def nohit_margins_np(rows, ruleset) -> np.ndarray:
    """tawla31's distribution of the result for the side to move (RULES.md §5.7) by the no-hit
    contact model (:func:`tawla.evaluation.rolls.t31_margins`, float64[N, 31])."""
    _, _, _, parts, me, opp = _nohit_race(rows, get_ruleset(ruleset))
    return t31_margins(parts, me, opp)


def _nohit_race(rows, r):
    """The model's race between the effective pip counts: :func:`tawla.evaluation.rolls.combine`'s
    results, then both sides (:func:`tawla.evaluation.board_views.sides`)."""
    me, opp, om = sides(rows, r)
    w = np.arange(26)
    pm = (me * w).sum(1).astype(np.float64)
    po = (opp * w).sum(1).astype(np.float64)
    pen_m, pen_o = _nohit_penalty(me, opp, om, rows, r)
    em, eo = pm + pen_m, po + pen_o
    fm = _first_off_pips(me) + pen_m * 0.7
    fo = _first_off_pips(opp) + pen_o * 0.7
    rm, ro, rfm, rfo = em / MU, eo / MU, fm / MU, fo / MU
    extra = 0.5  # wastage / contact noise, rolls^2
    pm_all = normal_rolls(rm, VAR_PER_PIP * em + extra)
    po_all = normal_rolls(ro, VAR_PER_PIP * eo + extra)
    pm_first = normal_rolls(rfm, VAR_PER_PIP * fm + extra)
    po_first = normal_rolls(rfo, VAR_PER_PIP * fo + extra)
    win, wg, lg, parts = combine(pm_all, pm_first, po_all, po_first, me[:, 0] == 0, opp[:, 0] == 0)
    return win, wg, lg, parts, me, opp
