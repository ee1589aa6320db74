# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The rollout trial loop of ``csrc/rollout`` (``tw_rollout.c``) and its cube models
(``tw_cube.c``), for tawla.rollout: blocks of trials of pre-roll rows in one call, the GIL
released.
"""

import numpy as np
cimport numpy as cnp
from libc.stdint cimport uint8_t, int32_t, uint64_t
from libc.string cimport memset

from tawla_engine cimport *
from tawla.native._params cimport Params, row_over, validate_batch
from tawla.native._net cimport net_view, race_attach
from tawla.native._race cimport race_view

from tawla.errors import InvalidArgument, InvalidPosition

cnp.import_array()
tw_eval_init()  # the shot tables of the hand features (this module's copy of the engine)
tw_net_init()  # the table of the logistic function

CONTACT = {"net": TW_CONTACT_NET, "linear": TW_CONTACT_LINEAR, "nohit": TW_CONTACT_NOHIT}
"""The contact models of the trial loop's evaluator, by name."""
NV = TW_RO_NV
"""Numbers per trial: five outputs, cubeless equity, cubeful equity."""


cdef tw_cube_model _money(double efficiency, bint jacoby, bint beaver) except *:
    cdef tw_cube_model m
    if not 0.0 <= efficiency <= 1.0:
        raise InvalidArgument(f"the cube efficiency must be within [0, 1], not {efficiency}")
    m.kind = TW_CUBE_MONEY
    m.efficiency = efficiency
    m.jacoby = jacoby
    m.beaver = beaver
    return m


def cube_money(const double[:, ::1] probs, int owner, double efficiency=0.68, bint jacoby=False,
               bint beaver=False):
    """The money model's cubeful equities (``tw_cube_equities``) of pre-roll columns.

    Parameters
    ----------
    probs : float64[N, 6]
        Equity, win, win gammon, win backgammon, lose gammon, lose backgammon of the side on roll.
    owner : int
        0 centred, 1 the side on roll owns the cube, -1 the opponent does.

    Returns
    -------
    (float64[N], float64[N], int8[N])
        No double, double/take (per unit of cube) and the decision (0 no double, 1 take,
        2 beaver, 3 pass).

    Raises
    ------
    InvalidArgument
        ``probs`` not of 6 columns, an owner not -1, 0 or 1, an efficiency outside [0, 1].
    """
    cdef tw_cube_model m = _money(efficiency, jacoby, beaver)
    cdef Py_ssize_t i, n = probs.shape[0]
    if probs.shape[1] != 6:
        raise InvalidArgument(f"probs must be float64[N, 6], not {probs.shape[1]} columns")
    if owner not in (-1, 0, 1):
        raise InvalidArgument(f"owner must be -1, 0 or 1, not {owner}")
    nd = np.zeros(n)
    dt = np.zeros(n)
    dec = np.zeros(n, dtype=np.int8)
    cdef double[::1] a = nd, b = dt
    cdef signed char[::1] d = dec
    for i in range(n):
        tw_cube_equities(&m, &probs[i, 0], owner, &a[i], &b[i])
        d[i] = tw_cube_decide(&m, &probs[i, 0], owner, NULL)
    return nd, dt, dec


cdef class _Match:
    """A match's table and score held for the trial loop (``tw_met``, ``tw_score``)."""
    cdef const double[:, ::1] pre
    cdef const double[::1] post
    cdef tw_met met
    cdef tw_score score

    def __init__(self, pre, post, int away, int opp_away, int cube=1, int owner=0, bint crawford=False):
        self.pre, self.post = pre, post
        if self.pre.shape[0] != TW_MET_MAX or self.pre.shape[1] != TW_MET_MAX or self.post.shape[0] != TW_MET_MAX:
            raise InvalidArgument(f"a table is float64[{TW_MET_MAX}, {TW_MET_MAX}] and float64[{TW_MET_MAX}]")
        if not (1 <= away <= TW_MET_MAX and 1 <= opp_away <= TW_MET_MAX):
            raise InvalidArgument(f"away counts must be within 1..{TW_MET_MAX}, not {away} and {opp_away}")
        if cube < 1 or cube & (cube - 1) or cube > 1 << 20 or owner not in (-1, 0, 1):
            raise InvalidArgument(f"need a cube that is a power of two and an owner -1..1, not {cube}, {owner}")
        self.met.pre, self.met.post = &self.pre[0, 0], &self.post[0]
        self.score.away, self.score.opp_away, self.score.cube = away, opp_away, cube
        self.score.owner, self.score.crawford = owner, crawford


def cube_match(const double[:, ::1] probs, pre, post, int away, int opp_away, int cube=1, int owner=0,
               bint crawford=False, efficiency=0.68):
    """The match model's decisions (``tw_cube_match``) of pre-roll columns at one score.

    Parameters
    ----------
    probs : float64[N, 6]
        Columns of the side on roll (equity first, unused).
    pre, post : float64[64, 64], float64[64]
        The table (:class:`tawla.met.MatchEquityTable`'s arrays).
    away, opp_away, cube, owner, crawford
        The score as :class:`tawla.met.ScoreState` holds it (not checked beyond the ranges).
    efficiency : float or float64[N]
        The cube efficiency, one for all rows or one a row.

    Returns
    -------
    (float64[N, 4], int8[N])
        The chances of winning the match not doubling, doubling and the opponent taking, or
        passing, and of the right decision; the decision (0 no double, 1 take, 3 pass).

    Raises
    ------
    InvalidArgument
        Arrays of other shapes, counts out of range, an efficiency outside [0, 1].
    """
    cdef _Match m = _Match(pre, post, away, opp_away, cube, owner, crawford)
    cdef Py_ssize_t i, n = probs.shape[0]
    if probs.shape[1] != 6:
        raise InvalidArgument(f"probs must be float64[N, 6], not {probs.shape[1]} columns")
    try:
        xa = np.asarray(efficiency, dtype=np.float64)
    except (TypeError, ValueError):
        raise InvalidArgument(f"the efficiency must be a number or float64[{n}], not {efficiency!r}") from None
    if xa.ndim > 1 or (xa.ndim == 1 and xa.shape[0] != n):
        raise InvalidArgument(f"the efficiency must be one number or one a row (float64[{n}]), not of shape {xa.shape}")
    xs = np.ascontiguousarray(np.broadcast_to(xa, (n,)))
    if not ((xs >= 0.0) & (xs <= 1.0)).all():
        raise InvalidArgument(f"the cube efficiency must be within [0, 1], not {efficiency}")
    cdef const double[::1] x = xs
    out = np.zeros((n, 4))
    dec = np.zeros(n, dtype=np.int8)
    cdef double[:, ::1] o = out
    cdef signed char[::1] d = dec
    for i in range(n):
        d[i] = tw_cube_match(&m.met, &probs[i, 1], &m.score, x[i], &o[i, 0], &o[i, 1], &o[i, 2], &o[i, 3])
    return out, dec


def rollout(const uint8_t[:, ::1] positions, Params params, str contact, *, w1=None, b1=None, w2=None,
            b2=None, W=None, race_one=None, race_two=None, race_net=None, long first=0, long trials=1, long truncate=0,
            bint vr=False, bint stop_bearoff=True, bint stop_race=False, int stratify=2, rot=(0, 0),
            bint cubeful=False, double efficiency=0.68, bint jacoby=False, bint beaver=False,
            int owner=0, bint decide_first=False, match=None, efficiency_by_class=None, unsigned long long seed=0,
            int ply=0, int prune=8,
            double margin=0.25, bint raw=False, bint checked=True):
    """Trials ``first .. first + trials - 1`` of each pre-roll row (``tw_rollout``): every row
    on the same dice.

    Parameters
    ----------
    positions : uint8[N, 56]
        Pre-roll rows (mover's seat), games not over (checked when ``checked``).
    params : Params
    contact : str
        The evaluator's contact model: ``"net"`` (``w1 b1 w2 b2``), ``"linear"`` (``W``,
        float64[5, NF]) or ``"nohit"``.
    race_one, race_two : arrays or None
        The race model's tables (None: no race model).
    race_net : tuple or None
        ``(w1, b1, w2, b2)``: a race network for the races beyond the bear-off databases (with
        the race model's tables only).
    truncate, vr, stop_bearoff, stop_race, stratify, rot, cubeful, owner, decide_first, seed
        The settings of ``tw_ro_settings`` (csrc/rollout/tw_rollout.h); ``efficiency``,
        ``jacoby``, ``beaver``: the money cube model's (``efficiency`` the match model's too).
    efficiency_by_class : tuple of 6 floats, optional
        The cube efficiency by the class of the position decided at (``tw_cube_efficiency``:
        contact, race base, race per pip, race minimum and maximum, bear-off; the fields of
        :class:`tawla.bots.cube.CubeEfficiency`), for both cube models; None: ``efficiency``
        everywhere.
    match : tuple, optional
        Cube decisions at a match score: ``(pre, post, away, opp_away, cube, crawford)``, the
        table's arrays and the score of the rows' side to move (the cube owned as ``owner``
        says); the cubeful value is then 2 MWC - 1. ``cube`` 0: a match without a cube (any
        ruleset; owner 0, no Crawford game): no decisions, each trial worth the table's
        chance after its game (``cubeful`` is implied).
    ply, prune, margin
        The depth of the trials' choice (``tw_evaluator``): 0, or 1 (the ``prune`` best at 0 ply
        within ``margin`` points, 1 .. 16 of them, searched one roll deeper).
    raw : bool
        Also return the trials' numbers before the luck adjustment.

    Returns
    -------
    values : float64[N, trials, NV]
    raw : float64[N, trials, NV]
        (only with ``raw``)
    plies : int32[N, trials]
        The moves each trial played.

    Raises
    ------
    InvalidArgument
        Weights of other shapes, a contact model not named above, negative counts, a
        ``stratify`` not 0..2, rotations not 0..35, an owner not -1..1, a cube in a ruleset
        without the cube's scoring.
    InvalidPosition
        A row that is not a position of the ruleset, or whose game is over.
    """
    cdef tw_evaluator E
    cdef tw_ro_settings S
    cdef tw_net net
    cdef tw_net race
    cdef tw_race_tables t
    cdef const double[:, ::1] Wv
    cdef const double[:, :, ::1] one
    cdef const double[::1] two
    cdef Py_ssize_t i, n = positions.shape[0]
    cdef int ok
    memset(&E, 0, sizeof(E))
    memset(&S, 0, sizeof(S))
    if contact not in CONTACT:
        raise InvalidArgument(f"contact must be one of {sorted(CONTACT)}, not {contact!r}")
    E.contact = CONTACT[contact]
    if E.contact == TW_CONTACT_NET:
        net = net_view(w1, b1, w2, b2)
        E.net = &net
    elif E.contact == TW_CONTACT_LINEAR:
        Wv = W
        if Wv.shape[0] != 5 or Wv.shape[1] < TW_NF:
            raise InvalidArgument(f"W must be float64[5, {TW_NF}]")
        E.W = &Wv[0, 0]
        E.ldw = Wv.strides[0] // sizeof(double)
    if race_one is not None:
        one, two = race_one, race_two
        t = race_view(one, two)
        race_attach(&t, &race, race_net)
        E.race = &t
    if ply not in (0, 1) or not 1 <= prune <= 16 or not margin >= 0.0:
        raise InvalidArgument(f"need ply 0 or 1, prune 1..16 and margin >= 0, not {ply}, {prune}, {margin}")
    E.ply, E.prune, E.margin = ply, prune, margin
    if trials < 0 or first < 0 or truncate < 0:
        raise InvalidArgument(f"need trials, first and truncate >= 0, not {trials}, {first}, {truncate}")
    if not 0 <= stratify <= 2 or len(rot) != 2 or not all(0 <= int(x) < 36 for x in rot):
        raise InvalidArgument(f"need stratify 0..2 and two rotations 0..35, not {stratify}, {rot}")
    if owner not in (-1, 0, 1):
        raise InvalidArgument(f"owner must be -1, 0 or 1, not {owner}")
    if cubeful and params.p.scoring != TW_SCORE_CUBE:
        raise InvalidArgument("cube decisions need the cube's scoring (backgammon)")
    if match is not None and (not isinstance(match, tuple) or len(match) != 6):
        raise InvalidArgument("match is (pre, post, away, opp_away, cube, crawford)")
    no_cube = match is not None and match[4] == 0
    S.truncate, S.vr, S.stop_bearoff, S.stop_race = truncate, vr, stop_bearoff, stop_race
    S.stratify, S.rot[0], S.rot[1] = stratify, int(rot[0]), int(rot[1])
    S.cubeful, S.owner, S.seed, S.decide_first = cubeful, owner, seed, decide_first
    S.cube = _money(efficiency, jacoby, beaver)
    if efficiency_by_class is not None:
        try:
            e = tuple(float(v) for v in efficiency_by_class)
        except (TypeError, ValueError):
            raise InvalidArgument(f"efficiency_by_class takes six numbers, not {efficiency_by_class!r}") from None
        if (len(e) != 6 or not all(np.isfinite(e)) or not all(0.0 <= v <= 1.0 for v in (e[0], e[3], e[4], e[5]))
                or not e[3] <= e[4]):
            raise InvalidArgument(f"efficiency_by_class takes six numbers (efficiencies within [0, 1]), not {e}")
        S.by_class = 1
        S.eff.contact, S.eff.race_base, S.eff.race_per_pip = e[0], e[1], e[2]
        S.eff.race_min, S.eff.race_max, S.eff.bearoff = e[3], e[4], e[5]
    cdef _Match held = None
    if match is not None:
        pre, post, away, opp_away, cube, crawford = match
        if no_cube and (owner != 0 or crawford):
            raise InvalidArgument("a match without a cube has no cube owner and no Crawford game")
        if not no_cube and params.p.scoring != TW_SCORE_CUBE:
            raise InvalidArgument("cube decisions need the cube's scoring (backgammon)")
        held = _Match(pre, post, away, opp_away, cube or 1, owner, crawford)
        if no_cube:
            S.no_cube, S.cubeful = 1, 1
        elif crawford and (cube != 1 or owner != 0 or (away == 1) == (opp_away == 1)):
            raise InvalidArgument("the Crawford game has one player 1 away and the cube centred at 1")
        elif (owner == 0) != (cube == 1):
            raise InvalidArgument(f"a cube of {cube} with owner {owner}: a centred cube is at 1, an owned one above")
        S.match, S.met, S.crawford = 1, held.met, crawford
        S.away[0], S.away[1], S.cube_value = away, opp_away, cube or 1
    if checked:
        validate_batch(params, positions)
        for i in range(n):
            if row_over(&positions[i, 0], params):
                raise InvalidPosition(f"row {i} is a finished game")
    out = np.zeros((n, trials, TW_RO_NV))
    raws = np.zeros((n, trials, TW_RO_NV)) if raw else None
    plies = np.zeros((n, trials), dtype=np.int32)
    cdef double[:, :, ::1] o = out
    cdef double[:, :, ::1] r
    cdef double *rp = NULL
    cdef int32_t[:, ::1] pl = plies
    if raw:
        r = raws
        if n and trials:
            rp = &r[0, 0, 0]
    if n and trials:
        with nogil:
            ok = tw_rollout(&params.p, &E, &S, &positions[0, 0], n, first, trials, &o[0, 0, 0], rp, &pl[0, 0])
        if not ok:
            raise MemoryError()
    return (out, raws, plies) if raw else (out, plies)
