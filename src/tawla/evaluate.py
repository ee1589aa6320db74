"""Static evaluation of packed positions for every ruleset.

``evaluate(positions, ruleset)`` returns ``float32[N, 6]`` for the side to move in each
row (:mod:`tawla.layout`), with the columns of :data:`COLUMNS`:

====  ===================  ==========================================================
col   name                 meaning (cubeless, the side to move's point of view)
====  ===================  ==========================================================
0     ``equity``           expected points in the ruleset's own scoring: 1/2/3 for
                           backgammon (money, cube 1, no Jacoby), 1/2 (mars) for adi,
                           mahbusa and tawla31-saharat, 15 minus the loser's checkers
                           off for tawla31
1     ``win``              probability of winning
2     ``win_gammon``       probability of winning a gammon / mars (the loser bore off
                           none; in tawla31 that is the 15-point win)
3     ``win_backgammon``   probability of a backgammon win (backgammon only, else 0)
4     ``lose_gammon``      probability of losing a gammon / mars
5     ``lose_backgammon``  probability of losing a backgammon (backgammon only)
====  ===================  ==========================================================

The gammon and backgammon columns include the better results (``win_gammon`` >=
``win_backgammon``). Draws (frozen positions, RULES.md §1.7) are not predicted.

Which evaluator handles a row, in order:

1. **Game over** (the opponent has borne off 15, or in tawla31 occupies all of its own
   19..24, §5.6): the exact result, from the loser's seat.
2. **Two-sided bear-off database**: no contact, both sides home with at most 6 checkers
   each: exact winning chances (:func:`tawla.bearoff.two_sided`).
3. **Race model**: no contact (:func:`is_race`). Each side's distribution of rolls to
   finish (and to bear off its first checker, for gammons) comes from the one-sided
   database; checkers still outside home are moved onto the 6 point and their remaining
   pips are added as a shift of ``pips / (49/6)`` rolls, spread by a normal kernel of
   variance ``0.0339 * pips`` (the variance of the pips rolled per turn, 18.47, over
   the cube of the mean, 8.17). This is the effective-pip-count idea: the database's
   expected rolls times 8.17 is each side's effective pip count. The side to move wins
   when it needs no more rolls than the other side.
4. **Contact**: a model per ruleset (:data:`CONTACT_MODELS`), each a callable
   ``model(rows, ruleset) -> float32[N, 6]`` (the same columns), so a trained network
   drops in with :func:`set_contact_model`:

   * ``backgammon``, ``adi``: a linear evaluator (:class:`LinearContact`) over
     hand-chosen features of both sides (pubeval-style point encodings, pips, men on
     the bar against the opponent's home board, home-board points, the longest prime,
     anchors, back checkers, the chance that each side's blots are hit next roll and
     the pips that costs, stacking, checkers off) with one logistic output each for
     win, gammon, backgammon, lost gammon and lost backgammon. Weights were fitted by
     logistic regression to the outcomes of 20,000 pubeval-vs-pubeval games (the test
     oracle ``gnubg_nn`` only played the games; nothing of it is stored or imported),
     then refitted once to a 0.7/0.3 mix of their own 1-ply values and those outcomes
     (``bench/bench_strength.py fit`` and ``distill``).
   * ``mahbusa``, ``tawla31``, ``tawla31-saharat`` (no hitting): an *effective pip*
     race. Each side's pips are increased by pip-equivalent penalties for what slows
     it down, and the race model of step 3 (normal distributions of rolls) turns the
     two effective counts into winning and mars chances:

     - mahbusa: a pinned checker costs 12 pips plus the pips it still has to travel
       (it cannot move until released), a pinned mother (own 24 point) 40 more; a blot
       the opponent can reach next roll (within 12 pips) costs half its chance of being
       pinned times that price; points (2+ checkers) that the opponent still has to cross
       count against it: 2 pips each (first 18 points of its path) plus the square of
       the length of each run of them.
     - tawla31: the runner lock (no checker home, none off) costs 8 pips; every opponent
       checker in one's home (no bear-off, §5.5) 3 pips; each point held (one checker
       is enough) ahead of the opponent's checkers blocks it, as in mahbusa;
       holding k of the opponent's home points while it has none there costs the
       opponent ``[0, 0, 2, 6, 16, 40][k]`` pips (the quadrant lock, §5.6, wins 15).
     - tawla31-saharat: the start lock (no checker on own 1..12, none off) costs 8 pips;
       points ahead of the opponent's checkers block it as in tawla31 (the wall rule
       caps runs at five).

     In tawla31 the blocking term is the same as mahbusa's with single checkers.

     tawla31's equity uses the expected number of the loser's checkers left.

Gammons in backgammon, adi, mahbusa and tawla31-saharat are the same event (the loser
bore off none); only backgammon adds the backgammon (x3) column. Not modelled: draws
(frozen positions), the mahbusa ``mother_rule="plakoto"`` instant win, and the doubling
cube (the values are cubeless; see :meth:`tawla.Bot.cube_action`).

Speed: the linear model, the race model of backgammon/adi and the no-hit contact model
also exist in C (``tawla.native._evaluate_c``, about 0.5-2 microseconds per position); the
numpy code here is the reference they are tested against (equal within 1e-5), and the
fallback when the extension is not built.
"""

from __future__ import annotations

import math

import numpy as np

from .bearoff import _index, _tables_for_eval
from .core.geometry import OPPOSITE
from .core.layout import PACKED_WIDTH
from .native import fast_eval as _ceval
from .rules import get_ruleset

__all__ = ["evaluate", "COLUMNS", "is_race", "is_terminal", "equity_from_probs",
           "set_contact_model", "CONTACT_MODELS", "LinearContact", "pip_counts"]

COLUMNS = ("equity", "win", "win_gammon", "win_backgammon", "lose_gammon", "lose_backgammon")

MU = 49.0 / 6.0  # mean pips per roll
VAR_PER_PIP = 18.472222 / MU ** 3  # variance of the number of rolls, per pip to travel
L = 64  # roll-distribution length used by the race model

# same-geometry map (self-inverse): point p of one side is point _SAME[p] of the other
_SAME = np.array([0] + [(p + 11) % 24 + 1 for p in range(1, 25)] + [25])


# --- board views ------------------------------------------------------------------------------
def _sides(rows: np.ndarray, r):
    """(me, opp, om): int32 [N, 26] own-coordinate views (0 off, 1..24, 25 bar) and the
    opponent on the mover's points (om[:, p], p = 1..24; om[:, 0] off, om[:, 25] bar)."""
    a = rows.astype(np.int32)
    me = a[:, 0:26]
    om = a[:, 26:52]
    if r.geometry == OPPOSITE:
        opp = np.concatenate([om[:, :1], om[:, 24:0:-1], om[:, 25:26]], axis=1)
    else:
        opp = om[:, _SAME]
    return me, opp, om


def pip_counts(positions, ruleset) -> np.ndarray:
    """``int32[N, 2]``: pips of (side to move, opponent), each in its own numbering (bar = 25)."""
    r = get_ruleset(ruleset)
    me, opp, _ = _sides(_check(positions), r)
    w = np.arange(26, dtype=np.int32)
    return np.stack([me @ w, opp @ w], axis=1)


def _check(positions) -> np.ndarray:
    a = np.asarray(positions)
    if a.ndim == 1:
        a = a[None]
    if a.ndim != 2 or a.shape[1] != PACKED_WIDTH or a.dtype != np.uint8:
        raise ValueError(f"positions must be uint8[N, {PACKED_WIDTH}], got {a.dtype}{list(a.shape)}")
    return a


def is_race(positions, ruleset) -> np.ndarray:
    """``bool[N]``: no contact — the two sides can never meet again.

    Opposite-direction games: every checker of the side to move (bar included) is below
    every opponent checker, in the mover's numbering. tawla31-saharat (same direction):
    both sides have all their checkers on their own points 1..12 (past each other).
    """
    r = get_ruleset(ruleset)
    rows = _check(positions)
    me, opp, om = _sides(rows, r)
    return _race_mask(me, opp, om, r)


def _race_mask(me, opp, om, r):
    if r.geometry == OPPOSITE:
        occ_me = me[:, 1:26] > 0  # p = 1..25
        my_max = np.where(occ_me.any(1), 25 - np.argmax(occ_me[:, ::-1], axis=1), 0)
        occ_op = np.concatenate([om[:, 25:26] > 0, om[:, 1:25] > 0], axis=1)  # x = 0..24
        op_min = np.where(occ_op.any(1), np.argmax(occ_op, axis=1), 99)
        return my_max < op_min
    return (me[:, 13:26].sum(1) == 0) & (opp[:, 13:26].sum(1) == 0)


def _terminal(me, opp, r):
    """(lost mask, points lost, gammon mask, backgammon mask) for the side to move."""
    lost = opp[:, 0] == 15
    if r.quadrant_lock_win:
        lost |= (opp[:, 19:25] > 0).all(axis=1)
    none_off = me[:, 0] == 0
    if r.scoring == "checkers_left":
        pts = 15 - me[:, 0]
        bg = np.zeros_like(lost)
    elif r.scoring == "cube":
        back = (me[:, 19:25].sum(1) > 0)
        if r.bar_backgammon_counts_double:
            bg = none_off & back
        else:
            bg = none_off & (back | (me[:, 25] > 0))
        pts = 1 + none_off + bg
    else:
        bg = np.zeros_like(lost)
        pts = 1 + none_off
    return lost, pts, none_off, bg


def is_terminal(positions, ruleset) -> np.ndarray:
    """``bool[N]``: the game is over and the side to move has lost (the opponent just won)."""
    r = get_ruleset(ruleset)
    me, opp, _ = _sides(_check(positions), r)
    return _terminal(me, opp, r)[0]


def equity_from_probs(p: np.ndarray, ruleset) -> np.ndarray:
    """Cubeless equity from ``[N, 5]`` probabilities (win, wg, wbg, lg, lbg) for rulesets
    scored 1/2(/3); tawla31's equity needs the checkers left and comes from its model."""
    r = get_ruleset(ruleset)
    p = np.asarray(p, dtype=np.float64)
    e = 2 * p[:, 0] - 1 + p[:, 1] - p[:, 3]
    if r.scoring == "cube":
        e = e + p[:, 2] - p[:, 4]
    return e


# --- normal approximation helpers -------------------------------------------------------------
def _erf(x):
    # Abramowitz-Stegun 7.1.26, |error| < 1.5e-7
    s = np.sign(x)
    x = np.abs(x)
    t = 1.0 / (1.0 + 0.3275911 * x)
    y = 1.0 - (((((1.061405429 * t - 1.453152027) * t) + 1.421413741) * t - 0.284496736) * t
               + 0.254829592) * t * np.exp(-x * x)
    return s * y


def _phi(x):
    return 0.5 * (1.0 + _erf(x / math.sqrt(2.0)))


def _normal_rolls(mean, var, lo=1):
    """Discretised normal distributions over 0..L-1 rolls, mass below ``lo`` moved to ``lo``."""
    k = np.arange(L, dtype=np.float64)
    sd = np.sqrt(np.maximum(var, 1e-6))[:, None]
    m = np.asarray(mean, dtype=np.float64)[:, None]
    cdf = _phi((k + 0.5 - m) / sd)
    d = np.diff(np.concatenate([np.zeros((len(cdf), 1)), cdf], axis=1), axis=1)
    d[:, L - 1] += 1 - cdf[:, L - 1]
    lo = np.broadcast_to(np.asarray(lo), (len(d),))
    for v in np.unique(lo):
        sel = lo == v
        if v > 0:
            d[sel, v] += d[sel, :v].sum(1)
            d[sel, :v] = 0
    return d


def _shift(dist, shift_rolls):
    """Convolve each distribution with a normal kernel of mean ``shift`` and variance
    ``VAR_PER_PIP * MU * shift`` (rolls spent bringing checkers home)."""
    out = dist.copy()
    sel = shift_rolls > 0
    if not sel.any():
        return out
    s = shift_rolls[sel]
    ker = _normal_rolls(s, VAR_PER_PIP * MU * s + 0.05, lo=0)  # [n, L]
    d = dist[sel]
    res = np.zeros_like(d)
    for t in range(L):
        w = ker[:, t:t + 1]
        if not w.any():
            continue
        res[:, t:] += w * d[:, :L - t]
    res[:, L - 1] += 1 - res.sum(1)
    out[sel] = res
    return out


def _combine(pm_all, pm_first, po_all, po_first, me_off0, opp_off0):
    """Race probabilities from roll distributions (side to move rolls first)."""
    so_all = np.cumsum(po_all[:, ::-1], axis=1)[:, ::-1]  # P(N_o >= n)
    so_first = np.cumsum(po_first[:, ::-1], axis=1)[:, ::-1]
    sm_all = np.cumsum(pm_all[:, ::-1], axis=1)[:, ::-1]
    sm_first = np.cumsum(pm_first[:, ::-1], axis=1)[:, ::-1]
    win = (pm_all * so_all).sum(1)
    wg = np.where(opp_off0, (pm_all * so_first).sum(1), 0.0)
    # I lose gammon if the opponent finishes on its m-th roll and I need > m rolls to get one off
    sm_first_next = np.concatenate([sm_first[:, 1:], np.zeros((len(sm_first), 1))], axis=1)
    lg = np.where(me_off0, (po_all * sm_first_next).sum(1), 0.0)
    return win, np.minimum(wg, win), np.minimum(lg, 1 - win), (pm_all, so_all, so_first,
                                                                po_all, sm_all, sm_first_next)


def _t31_equity(win, parts, me, opp):
    """tawla31: expected points from the race distributions and a linear model of the
    loser's checkers left (15 when it has none off; else its checkers on board, falling
    linearly to 1 over its expected rolls)."""
    pm_all, so_all, so_first, po_all, sm_all, sm_first_next = parts
    # the 15-point result needs the loser to have none off
    so_first = np.where((opp[:, 0] == 0)[:, None], so_first, 0.0)
    sm_first_next = np.where((me[:, 0] == 0)[:, None], sm_first_next, 0.0)
    k = np.arange(L, dtype=np.float64)
    cm = 15 - me[:, 0]
    co = 15 - opp[:, 0]
    rm = np.maximum((pm_all * k).sum(1), 1e-9)
    ro = np.maximum((po_all * k).sum(1), 1e-9)
    rem_o = np.clip(co[:, None] * (1 - (k[None] - 1) / ro[:, None]), 1, 15)  # after n-1 rolls
    rem_m = np.clip(cm[:, None] * (1 - k[None] / rm[:, None]), 1, 15)  # after m rolls
    ew = (pm_all * (so_first * 15 + (so_all - so_first) * rem_o)).sum(1)
    el = (po_all * (sm_first_next * 15 + (np.concatenate(
        [sm_all[:, 1:], np.zeros((len(sm_all), 1))], axis=1) - sm_first_next) * rem_m)).sum(1)
    return ew - el


def _side_dists(side, tables):
    """All-off and first-off roll distributions [n, L] for sides with no contact."""
    one = tables[0]
    home = side[:, 1:7].copy()
    outside = side[:, 7:26]
    pts = np.arange(7, 26)
    home[:, 5] += outside.sum(1)
    shift = (outside * (pts - 6)).sum(1) / MU
    idx = _index(home)
    d_all = np.zeros((len(side), L))
    d_first = np.zeros((len(side), L))
    d_all[:, :one.shape[2]] = one[idx, 0, :]
    d_first[:, :one.shape[2]] = one[idx, 1, :]
    return _shift(d_all, shift), _shift(d_first, shift)


def _race_eval(me, opp, r):
    tables = _tables_for_eval()
    pm_all, pm_first = _side_dists(me, tables)
    po_all, po_first = _side_dists(opp, tables)
    win, wg, lg, parts = _combine(pm_all, pm_first, po_all, po_first, me[:, 0] == 0, opp[:, 0] == 0)
    # exact two-sided database where both sides are home with at most 6 checkers
    small = ((me[:, 7:26].sum(1) == 0) & (opp[:, 7:26].sum(1) == 0)
             & (me[:, 1:7].sum(1) <= 6) & (opp[:, 1:7].sum(1) <= 6))
    if small.any():
        two = tables[3]
        win = win.copy()
        win[small] = two[_index(me[small, 1:7]) * 924 + _index(opp[small, 1:7])]
    out = np.zeros((len(me), 6))
    out[:, 1] = win
    if r.scoring == "checkers_left":
        out[:, 2] = wg
        out[:, 4] = lg
        out[:, 0] = _t31_equity(win, parts, me, opp)
    else:
        out[:, 2] = wg
        out[:, 4] = lg
        out[:, 0] = equity_from_probs(out[:, 1:], r)
    return out


# --- contact: backgammon / adi linear model ---------------------------------------------------
# number of the 36 rolls that move a checker exactly d pips (blocking ignored)
_SHOTS = np.zeros(26)
for _d, _n in {1: 11, 2: 12, 3: 14, 4: 15, 5: 15, 6: 17, 7: 6, 8: 6, 9: 5, 10: 3, 11: 2, 12: 3,
               15: 1, 16: 1, 18: 1, 20: 1, 24: 1}.items():
    _SHOTS[_d] = _n / 36.0
_LOGMISS = np.log(1 - np.minimum(_SHOTS, 0.999))


def _hand_features(S, O):
    """Hand-chosen features of side S (own coords) against O (own coords). [n, 14]."""
    n = len(S)
    Sf = S.astype(np.float64)
    made = S[:, 1:25] >= 2  # p = 1..24
    # O in S's coordinates: x = 25 - q for q in 1..24, bar -> x = 0
    Ox = np.concatenate([O[:, 25:26], O[:, 24:0:-1]], axis=1)  # x = 0..24
    shooters = Ox > 0
    blots = S[:, 1:25] == 1  # p = 1..24
    # log P(blot at p not hit) = sum_d shooters[p - d] * log(1 - shots(d))
    lm = np.zeros((n, 24))
    for d in range(1, 25):
        if _SHOTS[d] == 0:
            continue
        # blot at p (index p-1) needs a shooter at x = p - d >= 0
        lm[:, d - 1:] += shooters[:, :25 - d] * _LOGMISS[d]
    phit = np.where(blots, 1 - np.exp(lm), 0.0)
    p_any = 1 - np.exp((np.log(np.maximum(1 - phit, 1e-9))).sum(1))
    lost_pips = (phit * (25 - np.arange(1, 25))).sum(1) / 25.0
    pips = (Sf * np.arange(26)).sum(1)
    o_home = (O[:, 1:7] >= 2).sum(1)
    bar = Sf[:, 25]
    # longest run of made points on 1..12, and on 1..24
    run = np.zeros(n)
    best = np.zeros(n)
    for p in range(12):
        run = np.where(made[:, p], run + 1, 0)
        best = np.maximum(best, run)
    anchors = made[:, 18:24].sum(1)
    back = Sf[:, 19:26].sum(1)
    stack = np.maximum(Sf[:, 1:25] - 3, 0).sum(1)
    home_made = made[:, 0:6].sum(1)
    f = np.stack([
        pips / 100.0, bar, bar * (o_home / 6.0) ** 2, home_made, made[:, 6].astype(float),
        best, best ** 2 / 6.0, anchors, back / 5.0, p_any, lost_pips, stack / 5.0,
        Sf[:, 0] / 15.0, (o_home == 6) * bar,
    ], axis=1)
    return f


def _raw_features(S):
    Sf = S[:, 1:25].astype(np.float64)
    return np.concatenate([
        (Sf == 1), (Sf == 2), (Sf == 3), np.maximum(Sf - 3, 0) / 2.0,
        Sf.sum(1, keepdims=True) * 0 + S[:, 25:26] / 2.0, S[:, 0:1] / 15.0,
    ], axis=1)


def bg_features(me, opp) -> np.ndarray:
    """The linear model's inputs: [raw(me), hand(me), raw(opp), hand(opp), 1]."""
    return np.concatenate([_raw_features(me), _hand_features(me, opp), _raw_features(opp),
                           _hand_features(opp, me), np.ones((len(me), 1))], axis=1)


N_BG_FEATURES = 2 * (98 + 14) + 1


class LinearContact:
    """Logistic outputs (win, wg, wbg, lg, lbg) of a linear function of :func:`bg_features`.

    ``weights`` is ``float[5, N_BG_FEATURES]``; the conditional form is used: gammon
    outputs are P(gammon | win) etc., so the probabilities are consistent by construction.
    """

    def __init__(self, weights):
        self.weights = np.ascontiguousarray(weights, dtype=np.float64)

    def __call__(self, rows, ruleset):
        r = get_ruleset(ruleset)
        if _ceval is not None and r.geometry == OPPOSITE and self.weights.shape[1] == N_BG_FEATURES:
            return _ceval.linear_bg(np.ascontiguousarray(rows, dtype=np.uint8),
                                    np.ascontiguousarray(self.weights), r.scoring == "cube")
        me, opp, _ = _sides(rows, r)
        x = bg_features(me, opp)
        z = x @ self.weights.T
        s = 1 / (1 + np.exp(-np.clip(z, -30, 30)))
        win = s[:, 0]
        wg = win * s[:, 1]
        wbg = wg * s[:, 2]
        lg = (1 - win) * s[:, 3]
        lbg = lg * s[:, 4]
        out = np.zeros((len(rows), 6))
        out[:, 1], out[:, 2], out[:, 4] = win, wg, lg
        if r.scoring == "cube":
            out[:, 3], out[:, 5] = wbg, lbg
        out[:, 0] = equity_from_probs(out[:, 1:], r)
        return out


def _default_bg_weights():
    return np.asarray(_BG_WEIGHTS, dtype=np.float64).reshape(5, N_BG_FEATURES)


# --- contact: no-hit games (effective pips) ---------------------------------------------------
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
    if r.geometry == OPPOSITE:
        sp = 25 - q
    else:
        sp = _SAME[q]
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
    if r.name == "mahbusa":
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
                    lm[:, :24 - d] += shooters[:, d:] * _LOGMISS[d]
                else:
                    lm[:, d:] += shooters[:, :24 - d] * _LOGMISS[d]
            ph = np.where(blot, 1 - np.exp(lm), 0)
            own_p = (25 - p) if flip else p
            pen += 0.5 * (ph * (12 + own_p + 40 * (own_p == 24))).sum(1)
    if r.name == "tawla31":
        # opponent checkers in my home stop my bear-off (§5.5)
        pen_m += 3.0 * om[:, 1:7].sum(1)
        pen_o += 3.0 * me[:, 19:25].sum(1)
        # quadrant lock threat: my points held on my 19..24 while the opponent has none there
        qp = np.array([0, 0, 2, 6, 16, 40], dtype=np.float64)
        for S, O, pen in ((me, opp, pen_o), (opp, me, pen_m)):
            k = (S[:, 19:25] > 0).sum(1)
            free = O[:, 1:7].sum(1) == 0  # O's home = S's 19..24
            pen += np.where(free, qp[np.minimum(k, 5)], 0)
    return pen_m, pen_o


def _nohit_contact(rows, ruleset):
    """The no-hit contact model (C when built; :func:`_nohit_contact_np` is the reference)."""
    r = get_ruleset(ruleset)
    if _ceval is not None:
        return _ceval.nohit_contact(np.ascontiguousarray(rows, dtype=np.uint8), r.geometry != OPPOSITE,
                                    r.contact == "pin", int(r.start_lock), r.name == "mahbusa",
                                    r.name == "tawla31", r.scoring == "checkers_left")
    return _nohit_contact_np(rows, r)


def _nohit_contact_np(rows, ruleset):
    r = get_ruleset(ruleset)
    me, opp, om = _sides(rows, r)
    w = np.arange(26)
    pm = (me * w).sum(1).astype(np.float64)
    po = (opp * w).sum(1).astype(np.float64)
    pen_m, pen_o = _nohit_penalty(me, opp, om, rows, r)
    em, eo = pm + pen_m, po + pen_o
    # pips to bring every checker home, then one off: rolls to the first checker off
    def first(S):
        out = np.maximum(S[:, 7:26] * (np.arange(7, 26) - 6), 0).sum(1).astype(np.float64)
        lowest = np.where(S[:, 1:7].sum(1) > 0, np.argmax(S[:, 1:7] > 0, axis=1) + 1, 6)
        return out + lowest + 4.0

    fm = first(me) + pen_m * 0.7
    fo = first(opp) + pen_o * 0.7
    rm, ro, rfm, rfo = em / MU, eo / MU, fm / MU, fo / MU
    extra = 0.5  # wastage / contact noise, rolls^2
    pm_all = _normal_rolls(rm, VAR_PER_PIP * em + extra)
    po_all = _normal_rolls(ro, VAR_PER_PIP * eo + extra)
    pm_first = _normal_rolls(rfm, VAR_PER_PIP * fm + extra)
    po_first = _normal_rolls(rfo, VAR_PER_PIP * fo + extra)
    win, wg, lg, parts = _combine(pm_all, pm_first, po_all, po_first, me[:, 0] == 0, opp[:, 0] == 0)
    out = np.zeros((len(rows), 6))
    out[:, 1], out[:, 2], out[:, 4] = win, wg, lg
    if r.scoring == "checkers_left":
        out[:, 0] = _t31_equity(win, parts, me, opp)
    else:
        out[:, 0] = equity_from_probs(out[:, 1:], r)
    return out


# --- registry ---------------------------------------------------------------------------------
CONTACT_MODELS: dict = {}
"""Contact model per ruleset name: ``model(rows uint8[N, 56], ruleset) -> float[N, 6]``."""

_bg_model = None


def _bg(rows, ruleset):
    global _bg_model
    if _bg_model is None:
        _bg_model = LinearContact(_default_bg_weights())
    return _bg_model(rows, ruleset)


CONTACT_MODELS.update({
    "backgammon": _bg, "adi": _bg, "mahbusa": _nohit_contact, "tawla31": _nohit_contact,
    "tawla31-saharat": _nohit_contact,
})


def set_contact_model(ruleset, model) -> None:
    """Replace the contact evaluator of a ruleset (for example with a trained network).

    ``model(rows, ruleset) -> float[N, 6]`` with the columns of :data:`COLUMNS`.
    """
    CONTACT_MODELS[get_ruleset(ruleset).name] = model


# --- entry point ------------------------------------------------------------------------------
def evaluate(positions, ruleset) -> np.ndarray:
    """Evaluate a batch of positions for the side to move.

    Parameters
    ----------
    positions : uint8[N, 56]
        Packed rows (:mod:`tawla.layout`), each seen from its side to move.
    ruleset : Ruleset or str

    Returns
    -------
    float32[N, 6]
        The columns of :data:`COLUMNS`: cubeless equity in the ruleset's scoring, then
        win, win_gammon, win_backgammon, lose_gammon, lose_backgammon probabilities.
    """
    r = get_ruleset(ruleset)
    rows = _check(positions)
    return _evaluate(rows, r).astype(np.float32)


def _evaluate(rows, r) -> np.ndarray:
    """:func:`evaluate` without the argument checks, in float64 (the search's entry)."""
    n = len(rows)
    out = np.zeros((n, 6), dtype=np.float64)
    if n == 0:
        return out
    if _ceval is not None and CONTACT_MODELS.get(r.name) is _bg and r.geometry == OPPOSITE:
        global _bg_model
        if _bg_model is None:
            _bg_model = LinearContact(_default_bg_weights())
        one, _, _, two = _tables_for_eval()
        out, _race = _ceval.eval_bg(np.ascontiguousarray(rows), _bg_model.weights,
                                    r.scoring == "cube", r.bar_backgammon_counts_double, one, two)
        return out
    me, opp, om = _sides(rows, r)
    lost, pts, g, bg = _terminal(me, opp, r)
    done = lost.copy()
    if lost.any():
        out[lost, 0] = -pts[lost]
        out[lost, 4] = g[lost]
        out[lost, 5] = bg[lost]
    won = (me[:, 0] == 15) & ~done
    if won.any():  # not reachable from expand (the winner's turn never comes), kept for safety
        out[won, 0] = 1
        out[won, 1] = 1
        done |= won
    race = _race_mask(me, opp, om, r) & ~done
    if r.bearoff_no_opponent_in_home:
        race &= (om[:, 1:7].sum(1) == 0) & (me[:, 19:25].sum(1) == 0)
    if race.any():
        out[race] = _race_eval(me[race], opp[race], r)
    rest = ~(done | race)
    if rest.any():
        out[rest] = CONTACT_MODELS[r.name](rows[rest], r)
    return out


# --- fitted weights (bench/bench_strength.py fit rewrites this block) ---------------------------
# BEGIN WEIGHTS
_BG_WEIGHTS = [-0.11571, -0.06453, -0.01115, 0.04077, 0.06877, 0.04096, 0.03496, 0.00569, 0.00061, -0.04139, -0.06513, -0.05983, -0.04771, -0.11707, -0.13399, -0.13428, -0.12299, -0.15593, -0.07757, -0.05918, -0.09646, -0.15521, -0.18655, -0.25527, -0.10534, -0.08092, -0.02981, 0.04659, 0.11093, 0.11035, 0.01545, 0.00217, -0.02393, -0.06055, -0.12515, -0.16159, -0.07473, -0.16897, -0.2388, -0.25876, -0.19264, -0.29152, 0.13673, 0.25396, 0.12179, 0.03711, -0.07981, -0.15855, -0.11993, -0.13346, -0.0405, 0.04664, 0.13953, 0.11146, 0.00346, -0.03254, -0.03109, -0.15684, -0.21098, -0.32129, -0.1148, -0.12207, -0.1652, -0.31965, -0.21507, -0.39193, 0.09457, 0.22653, 0.05105, -0.01631, -0.10707, -0.33496, 0.01319, -0.08579, 0.08175, 0.19082, 0.34563, 0.09301, -0.04413, -0.03323, -0.07173, -0.05555, 0.01186, 0.0, -0.16062, -0.03316, 0.01673, -0.06017, -0.18665, -0.37465, 0.04777, 0.26716, -0.08233, -0.10517, -0.22959, -0.45075, -0.11088, 1.89465, -0.24614, -0.22175, -0.54076, 0.09862, 0.03194, -0.12283, 0.18287, -0.32048, -0.68609, -0.06166, -0.02024, -0.36223, 1.89465, 0.08863, 0.15597, 0.11745, 0.06495, 0.03135, 0.01076, 0.09356, -0.0039, 0.00583, 0.0086, 0.06029, 0.07669, 0.08168, 0.08678, 0.14716, 0.16017, 0.1729, 0.17372, 0.19641, 0.09075, 0.06295, 0.09094, 0.12035, 0.14394, 0.22169, 0.11528, 0.08153, 0.02705, -0.0496, -0.12921, -0.14217, -0.03704, 0.00716, 0.02722, 0.06547, 0.12642, 0.19423, 0.0691, 0.17336, 0.23447, 0.26442, 0.17565, 0.25949, -0.13986, -0.27477, -0.12154, -0.04419, 0.08993, 0.17635, 0.11622, 0.13544, 0.0498, -0.03151, -0.14074, -0.1292, -0.00426, 0.05506, 0.05399, 0.17852, 0.28478, 0.53128, 0.11556, 0.19466, 0.18017, 0.33287, 0.21542, 0.41539, 0.06807, -0.23193, -0.03958, 0.0031, 0.07821, 0.32, -0.00488, 0.09429, -0.07301, -0.17494, -0.32284, -0.09127, 0.0659, 0.083, 0.10611, 0.07909, -0.01812, 0.0, 0.20156, 0.02879, 0.02681, 0.05243, 0.13363, 0.27553, -0.04177, -0.20809, 0.08409, 0.05475, 0.19843, 0.3851, 0.11909, -1.83598, 0.29684, 0.23817, 0.44782, -0.07393, -0.01334, 0.17509, -0.24374, 0.31546, 0.63485, 0.1587, 0.2971, 0.37384, -1.83598, -0.11517, -0.09879, 0.03321, 0.05587, 0.09013, 0.10187, 0.17259, 0.11846, 0.0308, 0.03192, 0.00613, 0.00795, -0.00554, -0.03349, -0.01079, -0.05486, -0.03626, -0.03303, -0.08363, -0.07541, 0.06733, -0.02588, 0.01146, -0.02938, -0.01057, -0.01535, -0.10078, -0.09027, -0.02088, -0.04822, -0.04422, -0.00318, 0.02404, 0.0029, -0.05538, -0.02886, -0.03573, 0.00908, -0.05487, -0.12613, -0.11631, -0.00331, -0.0991, 0.02628, 0.26487, 0.01903, -0.02625, -0.0736, 0.01169, -0.06493, -0.15444, -0.08409, 0.01505, -0.01808, 0.02562, 0.03791, 0.01635, -0.0272, -0.11258, -0.0345, -0.0865, 0.02514, -0.07183, -0.27022, 0.04704, 0.03598, -0.22607, 0.1077, 0.14058, 0.00919, -0.06163, -0.19774, 0.03879, -0.12954, -0.16362, -0.03751, 0.04814, 0.01501, 0.06686, 0.06919, -0.11186, -0.10385, -0.02697, 0.08768, -0.09068, 0.0, -0.11445, -0.01678, -0.15781, -0.05201, -0.16964, 0.26246, -0.00572, 0.41933, 0.50446, -0.15983, -0.01471, -0.53673, -0.03923, 1.37827, -0.60997, -0.07846, -0.1857, 0.18601, -0.06187, 0.04817, -0.03646, 0.07096, 0.08296, -0.08256, 0.02919, -0.11561, 1.37827, -0.35749, 0.34013, 0.23411, 0.17893, 0.0794, 0.07211, 0.12317, 0.00642, -0.00794, 0.06789, 0.02405, 0.06369, 0.06822, 0.08738, 0.08528, 0.06856, 0.06326, 0.11718, 0.04234, 0.28652, -0.08278, -0.0761, -0.09121, -0.01946, -0.048, 0.07182, -0.00625, -0.03601, -0.1171, -0.24002, -0.26713, -0.11714, 0.0985, 0.1665, 0.08627, 0.15559, 0.14736, 0.15864, 0.3091, 0.16158, 0.22025, 0.13823, 0.20943, 0.16571, -0.135, -0.17933, -0.0239, 0.07131, 0.12446, 0.22783, 0.14412, 0.04547, -0.02262, -0.13358, -0.18374, -0.03585, 0.2093, 0.22341, 0.08997, 0.22302, 0.23223, 0.10727, 0.0316, -0.14841, -0.03264, -0.05283, 0.17252, -0.13415, -0.10621, -0.2399, -0.11733, 0.09218, 0.31619, 0.22524, 0.08623, 0.11339, -0.05808, -0.5798, -0.0967, 0.12663, 0.34261, 0.35731, -0.1088, -0.0378, 0.0, 0.11112, -0.0208, 0.09766, -0.01769, -0.32867, 0.32684, 0.0171, -0.05563, -0.18662, 0.06266, 0.35728, 0.23055, 0.02796, -3.82418, 3.22483, 0.05592, 0.56326, 0.26452, 0.20828, 0.28828, -0.32963, -0.05486, 0.13755, 0.23, 0.79075, 0.38562, -3.82418, -0.10133, -6.37784, -0.14469, -0.03758, 0.04299, 0.00345, -0.06312, 0.01037, -0.06062, 0.02931, -0.04898, -0.05543, -0.04072, -0.08034, 0.01581, 0.02158, -0.02815, -0.00513, -0.05324, 0.01053, 0.00555, 0.0186, 0.03403, 0.0194, 0.1557, 0.1498, -0.27161, -0.06712, 0.06099, 0.07288, 0.08385, 0.12967, 0.24487, -0.09126, -0.11143, -0.11819, -0.06687, 0.02168, -0.08588, 0.10506, 0.02913, 0.00796, 0.09169, 0.14635, -0.19541, -0.03886, 0.01305, -0.01296, 0.10548, 0.12144, -0.31733, -0.13283, 0.0052, 0.03555, 0.09013, 0.13427, 0.08136, -0.13789, -0.09736, -0.02935, -0.09672, -0.05144, -0.09351, -0.10254, -0.22436, 0.22904, 0.18356, 0.22604, -0.02302, 0.05564, -0.02404, 0.00837, -0.23985, 0.32927, -0.64685, -0.19789, -0.10679, 0.18229, 0.18721, 0.16806, -0.42819, -0.08337, -0.13184, -0.08499, -0.01897, 0.0, -0.08528, 0.00046, 0.00233, 0.00091, 0.09117, 0.79493, 0.00038, 0.18349, 0.17688, -0.43196, -0.22193, 0.2304, -0.01559, 1.27536, -0.29488, -0.03117, 0.29553, -0.11615, -0.25413, -0.01451, -0.03876, 0.08932, 0.10033, -0.0835, 0.00289, -0.16783, 1.27536, 0.13856, 0.19924, 0.16401, 0.20995, 0.20788, -0.01317, 0.19409, 0.03695, 0.00295, 0.09792, 0.18619, 0.10125, 0.08617, 0.02359, 0.01692, 0.12775, 0.17569, 0.22675, 0.10957, -0.0761, -0.08418, -0.01788, -0.0861, 0.04219, -0.00014, -0.05335, 0.01595, -0.08534, -0.13782, -0.24163, -0.13629, 0.25687, 0.00904, 0.10775, 0.25051, 0.0066, -0.07363, -0.08338, -0.07098, -0.34448, 0.09495, -0.25814, -0.4281, -0.17528, -0.89637, -0.68039, -0.55437, -0.31826, -0.22846, 0.09063, 0.06568, -0.03214, -0.22342, -0.25801, -0.19297, 0.31184, -0.0985, -0.06544, 0.06176, 0.4901, -0.08681, -0.02118, 0.74305, -0.05711, -0.61839, -0.26137, -0.51482, -0.43501, -0.97415, -0.61528, -0.5499, -0.06131, 0.21369, -0.02669, -0.03087, 0.00198, -0.05392, 0.25303, -0.04053, -0.52726, 0.03238, -0.38219, -0.00309, -0.0068, 0.0, 0.1915, -0.00691, -0.02392, -0.03132, 0.13675, 0.15699, 0.0328, -1.03613, -0.72039, -0.13513, 0.66492, 0.95397, 0.06876, 0.0226, 0.69758, 0.13753, 0.52323, -0.00318, -0.28184, 0.05181, -0.0326, 0.50606, 0.76135, 0.27542, 0.55904, -0.24033, 0.0226, -0.03218, -3.18429, 0.30726, 0.19022, 0.13146, 0.03589, 0.03711, 0.0433, -0.00813, -0.03147, 0.06184, 0.00711, 0.05072, 0.05867, 0.07775, 0.05582, 0.06234, 0.05667, 0.10362, 0.07108, 0.3237, -0.03595, -0.05482, -0.05399, 0.02908, 0.02286, 0.06407, -0.00029, -0.03793, -0.10692, -0.22122, -0.23028, -0.09832, 0.09012, 0.1498, 0.08161, 0.13965, 0.13633, 0.15545, 0.28617, 0.14348, 0.19606, 0.13762, 0.2307, 0.28175, -0.07707, -0.14341, 0.00556, 0.10267, 0.14319, 0.18741, 0.12632, 0.04163, -0.02811, -0.137, -0.16632, -0.02037, 0.17413, 0.18028, 0.11, 0.2327, 0.18098, 0.1221, 0.0412, -0.09754, 0.05127, 0.02058, 0.20277, 0.07291, -0.07467, -0.20089, -0.07524, 0.1123, 0.30823, 0.21488, 0.08447, 0.1054, -0.06303, -0.5851, -0.09601, 0.13264, 0.27604, 0.29819, -0.11576, -0.04326, 0.0, 0.1097, -0.0179, 0.00236, -0.03985, -0.34236, 0.41588, 0.04394, -0.04911, -0.18117, 0.083, 0.37201, 0.31859, 0.03234, -3.94559, 3.07947, 0.06469, 0.59348, 0.23989, 0.177, 0.24607, -0.28382, -0.07397, 0.18709, 0.05822, 0.40067, 0.36941, -3.94559, -0.06516, 0.00011, 0.01732, 0.01789, 0.06794, 0.0919, 0.11473, 0.0155, 0.04617, 0.02529, 0.01493, -0.00841, -0.02779, -0.0082, -0.05056, -0.03358, -0.02284, -0.06795, -0.06817, 0.15214, -0.0142, 0.01192, -0.02246, -0.01235, -0.01213, -0.09069, -0.11195, -0.03977, -0.06981, -0.06891, 0.01481, 0.0795, -0.00728, -0.07656, -0.04365, -0.03264, 0.05115, -0.057, -0.12966, -0.1211, -0.009, -0.07481, 0.03348, 0.36911, 0.01889, -0.02665, -0.08209, 0.01884, -0.08099, -0.16251, -0.10321, -0.00391, -0.05253, 0.01082, 0.042, 0.05871, -0.04692, -0.14402, -0.03422, -0.11152, 0.15295, -0.07574, -0.30022, 0.04658, 0.12231, -0.28928, 0.15564, 0.09952, -0.00757, -0.12307, -0.23506, 0.03085, -0.11983, -0.15102, -0.05545, 0.0389, -0.00631, 0.03062, 0.0803, -0.08863, -0.13334, 0.02107, 0.09383, -0.09205, 0.0, -0.14309, -0.02049, -0.15007, -0.05708, -0.16745, 0.26735, -0.00621, 0.4458, 0.58926, -0.17686, -0.02656, -0.62712, -0.04983, 1.35205, -0.51574, -0.09967, -0.13389, 0.18971, -0.12973, 0.06227, -0.03538, 0.09027, 0.09071, -0.07212, -0.05669, -0.13385, 1.35205, -0.2734, -6.3732, 0.1541, 0.13046, 0.11099, 0.20035, -0.00235, 0.26412, 0.03755, 0.04913, 0.10408, 0.17772, 0.09468, 0.08066, -0.00581, -0.00542, 0.09109, 0.14626, 0.0884, 0.05398, -0.21908, -0.13252, -0.00529, -0.06445, 0.05569, -0.00075, -0.09119, -0.00892, -0.11407, -0.16728, -0.24636, -0.13627, 0.26898, 0.03769, 0.13837, 0.23784, 0.03648, 0.00752, -0.0461, -0.06709, -0.20266, 0.00895, -0.20721, -0.37059, -0.45759, -0.83334, -0.55272, -0.45018, -0.26715, -0.18224, 0.07263, 0.01071, -0.03337, -0.2158, -0.23265, -0.16907, 0.3456, -0.03086, -0.00095, 0.10393, 0.44892, -0.18386, -0.00274, 0.24074, 0.02805, -0.39518, -0.25628, -0.45349, -0.28764, -0.82385, -0.48339, -0.44549, -0.0242, 0.21915, -0.02351, -0.01339, -0.03002, -0.06641, 0.19286, -0.03621, -0.481, 0.10339, -0.3162, 0.01862, -0.0079, 0.0, 0.21953, 0.00011, -0.00233, -0.06966, 0.12022, 0.19282, -0.06752, -1.09715, -0.65519, -0.04956, 0.70209, 0.97439, 0.04053, 0.07228, 0.63173, 0.08105, 0.65377, 0.06127, -0.25156, 0.01997, -0.01002, 0.49596, 0.71197, 0.19466, 0.21857, -0.1568, 0.07228, -0.03085, -0.14626, -0.12203, 0.10801, 0.07177, 1e-05, -0.00384, -0.06948, 0.04438, -0.0437, -0.03839, -0.06242, -0.06735, -0.01677, 0.0037, -0.01811, -0.02896, -0.10303, -0.01778, 0.06809, -0.0297, -0.0132, 0.0371, 0.12206, 0.12508, -0.30249, -0.10093, 0.08162, 0.10898, 0.10461, 0.09319, 0.35001, -0.11553, -0.1435, -0.14713, -0.0913, 0.02343, -0.12536, 0.10624, 0.05603, -0.01682, 0.0651, 0.13241, -0.16266, 0.00231, 0.04049, 0.00022, 0.18988, 0.1312, -0.34757, -0.14902, 0.03318, 0.02118, 0.10042, 0.09913, 0.04036, -0.16735, -0.0448, -0.0247, 0.01822, -0.09254, -0.12948, -0.09597, -0.39854, 0.17293, 0.2595, 0.10361, -0.06155, 0.10514, -0.05319, 0.09193, -0.34815, 0.38668, -0.54821, -0.188, -0.07903, 0.22841, 0.17968, 0.1599, -0.45883, -0.1073, -0.1406, -0.07698, -0.02123, 0.0, -0.19601, 0.00024, -0.00929, -0.00087, 0.05932, 0.75192, 0.00017, 0.14565, 0.26716, -0.60939, -0.1875, 0.28609, -0.03493, 1.04545, -0.11497, -0.06985, 0.64685, -0.12823, -0.31693, -0.03782, -0.03312, 0.05868, 0.0037, 0.01127, -0.05598, -0.21788, 1.04545, 0.0942, -3.34406]
# END WEIGHTS
