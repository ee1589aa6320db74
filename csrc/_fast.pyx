# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The fast engine: move generation, batch expansion and random playouts in C.

One generator for every ruleset, parameterised by :class:`Params` (the ruleset as a
small C struct, built by ``tawla.engine._params``). The C core is ``tawla_fast.h``;
this module validates inputs, releases the GIL around the loops and hands the
results to numpy without a Python object per child.

Rows are packed positions (``uint8[56]``, :mod:`tawla.layout`), seen from the player
to move.
"""

import numpy as np
cimport numpy as cnp
from libc.stdint cimport uint8_t, int8_t, int16_t, int32_t, int64_t, uint64_t
from libc.stdlib cimport malloc, realloc, free
from libc.string cimport memcpy
from cpython.pycapsule cimport PyCapsule_New, PyCapsule_GetPointer, PyCapsule_Destructor

from tawla.errors import InvalidDice, InvalidId, InvalidPosition, UnsupportedRuleset
from tawla.core.steps import Step

cnp.import_array()

cdef extern from "tawla_fast.h" nogil:
    ctypedef struct tw_params:
        int contact
        int has_bar
        int same
        int start_lock
        int bearoff_no_pinned
        int bearoff_no_opp_home
        int quadrant_lock_win
        int wall_rule
        int mother_plakoto
        int can_freeze
        int scoring
        int bar_bg_double
        int opening_reroll
        uint8_t start[26]

    ctypedef struct tw_geo:
        pass

    ctypedef struct tw_step:
        uint8_t p, t, d, hit

    ctypedef struct tw_rec:
        uint8_t row[56]
        uint8_t nsteps, ended, first_die
        tw_step steps[4]

    ctypedef struct tw_state:
        uint8_t b[64]

    ctypedef struct tw_rowinfo:
        pass

    ctypedef struct tw_ctx:
        const tw_params *P
        tw_geo geo
        tw_rowinfo ri
        uint8_t *out
        size_t nout, capout, outbytes
        int oom
        tw_rec *rec
        size_t nrec

    ctypedef struct tw_result:
        int over, winner, kind, points

    ctypedef struct tw_vec64:
        int64_t *p
        size_t n, cap, bytes

    int tw_vec64_reserve(tw_vec64 *v, size_t need)
    void tw_vec64_adopt(tw_vec64 *v, void *p, size_t nbytes)
    void tw_vec64_free(tw_vec64 *v)
    int tw_out_grow(tw_ctx *c, size_t need)
    int tw_out_reserve_rows "tw_out_reserve_total"(tw_ctx *c, size_t rows)
    void tw_out_adopt(tw_ctx *c, void *p, size_t nbytes)
    void tw_out_free(tw_ctx *c)
    void tw_out_trim(tw_ctx *c)
    void tw_vec64_trim(tw_vec64 *v)
    void tw_big_free(void *p, size_t nbytes)
    void *tw_big_resize(void *p, size_t old, size_t n)

    int tw_ctx_init(tw_ctx *c, const tw_params *P)
    void tw_geo_init(tw_geo *g, int same, int pins)
    void tw_ctx_free(tw_ctx *c)
    int tw_validate(const tw_params *P, const uint8_t *b)
    const char *tw_invalid_reason(int code)
    void tw_rowinfo_init(const tw_params *P, tw_rowinfo *ri, const uint8_t *b)
    void tw_state_from_row(tw_state *s, const uint8_t *row)
    size_t tw_expand_row(tw_ctx *c, const uint8_t *row, const tw_state *root, int d1, int d2, int *frozen_state)
    int tw_over_cheap(const tw_params *P, const tw_geo *g, const uint8_t *b)
    tw_result tw_game_result(const tw_params *P, const tw_geo *g, const uint8_t *b, int no_freeze_check)
    int tw_sequences(tw_ctx *c, const uint8_t *row, int d1, int d2)
    int tw_playout(const tw_params *P, long n_games, uint64_t seed, long max_turns,
                   int32_t *length, int8_t *winner, int8_t *kind, int16_t *points)


KIND_NAMES = ("single", "gammon", "backgammon", "quadrant_lock", "mother", "draw", "unfinished")
"""Names of the result-kind codes returned by :func:`playout` (index = code)."""

CONTACT_CODES = {"hit": 0, "pin": 1, "block": 2}
SCORING_CODES = {"cube": 0, "mars": 1, "checkers_left": 2}


cdef class Params:
    """A ruleset as the C struct the generator reads (RULES.md section 7, the flag table).

    Build it with ``tawla.engine._params(ruleset)``; every field is an int.

    Parameters
    ----------
    contact : int
        0 hit (2.1), 1 pin (4.2), 2 block (5.2 / 6.2).
    has_bar : int
        1 for the hitting games.
    same : int
        Geometry: 1 same direction (T31S, 1.1), 0 opposite.
    start_lock : int
        0, or the release zone ``1..start_lock`` of the runner lock (5.3 / 6.3).
    bearoff_no_pinned, bearoff_no_opponent_in_home : int
        Extra bear-off conditions (4.3, 5.5).
    quadrant_lock_win, wall_rule, mother_plakoto : int
        5.6, 6.5, 4.4 (option).
    can_freeze : int
        1 when frozen positions are draws (1.7, the no-hit games).
    scoring : int
        0 cube (1/2/3), 1 mars (1/2), 2 checkers left (15 - loser's off) (1.8).
    bar_backgammon_counts_double, opening_reroll : int
        2.2 option D14, 1.6.
    start : sequence of (point, count)
        The starting checkers of each side in its own numbering (1.2).
    """

    cdef tw_params p
    cdef readonly dict fields

    def __init__(self, *, int contact, int has_bar, int same, int start_lock, int bearoff_no_pinned,
                 int bearoff_no_opponent_in_home, int quadrant_lock_win, int wall_rule,
                 int mother_plakoto, int can_freeze, int scoring, int bar_backgammon_counts_double=0,
                 int opening_reroll=0, start=()):
        cdef int i
        if contact not in (0, 1, 2) or scoring not in (0, 1, 2) or not 0 <= start_lock <= 24:
            raise UnsupportedRuleset("bad fast-engine parameters")
        self.p.contact = contact
        self.p.has_bar = has_bar
        self.p.same = same
        self.p.start_lock = start_lock
        self.p.bearoff_no_pinned = bearoff_no_pinned
        self.p.bearoff_no_opp_home = bearoff_no_opponent_in_home
        self.p.quadrant_lock_win = quadrant_lock_win
        self.p.wall_rule = wall_rule
        self.p.mother_plakoto = mother_plakoto
        self.p.can_freeze = can_freeze
        self.p.scoring = scoring
        self.p.bar_bg_double = bar_backgammon_counts_double
        self.p.opening_reroll = opening_reroll
        for i in range(26):
            self.p.start[i] = 0
        for pt, n in start:
            if not 1 <= pt <= 24 or not 0 <= n <= 15:
                raise UnsupportedRuleset(f"bad start point {pt}: {n}")
            self.p.start[pt] += n
        self.fields = dict(contact=contact, has_bar=has_bar, same=same, start_lock=start_lock,
                           bearoff_no_pinned=bearoff_no_pinned,
                           bearoff_no_opponent_in_home=bearoff_no_opponent_in_home,
                           quadrant_lock_win=quadrant_lock_win, wall_rule=wall_rule,
                           mother_plakoto=mother_plakoto, can_freeze=can_freeze, scoring=scoring,
                           bar_backgammon_counts_double=bar_backgammon_counts_double,
                           opening_reroll=opening_reroll, start=tuple(start))

    def __repr__(self):
        return "Params(" + ", ".join(f"{k}={v!r}" for k, v in self.fields.items()) + ")"

    def __reduce__(self):
        return (_make_params, (self.fields,))


def _make_params(fields):
    return Params(**fields)


# --- numpy arrays that own a big buffer (tw_big_resize) -----------------------------------------
# Output buffers of dropped results are kept (a few, up to _CACHE_LIMIT bytes) and reused by the
# next call: their pages are already mapped, so a search loop that expands batch after batch
# pays no page faults. All cache operations run with the GIL held.
cdef struct _Owned:
    void *ptr
    size_t nbytes

DEF _CACHE_SLOTS = 6
cdef void *_cache_ptr[_CACHE_SLOTS]
cdef size_t _cache_bytes[_CACHE_SLOTS]
cdef size_t _CACHE_LIMIT = (<size_t> 1) << 30


cdef void _cache_take(void **ptr, size_t *nbytes, size_t want) noexcept:
    """Pop a cached buffer into (ptr, nbytes): the smallest of at least ``want`` bytes, else
    the largest; (NULL, 0) when the cache is empty."""
    cdef int i, best = -1, big = -1
    for i in range(_CACHE_SLOTS):
        if _cache_ptr[i] == NULL:
            continue
        if _cache_bytes[i] >= want and (best < 0 or _cache_bytes[i] < _cache_bytes[best]):
            best = i
        if big < 0 or _cache_bytes[i] > _cache_bytes[big]:
            big = i
    if best < 0:
        best = big
    if best < 0:
        ptr[0] = NULL
        nbytes[0] = 0
        return
    ptr[0] = _cache_ptr[best]
    nbytes[0] = _cache_bytes[best]
    _cache_ptr[best] = NULL
    _cache_bytes[best] = 0


cdef void _cache_give(void *ptr, size_t nbytes) noexcept:
    cdef int i, free_slot = -1
    cdef size_t total = nbytes
    for i in range(_CACHE_SLOTS):
        if _cache_ptr[i] == NULL:
            free_slot = i
        else:
            total += _cache_bytes[i]
    if free_slot >= 0 and total <= _CACHE_LIMIT and nbytes >= 4096:
        _cache_ptr[free_slot] = ptr
        _cache_bytes[free_slot] = nbytes
    else:
        tw_big_free(ptr, nbytes)


def _clear_buffer_cache():
    """Unmap the cached output buffers (tests and memory-conscious callers)."""
    cdef int i
    for i in range(_CACHE_SLOTS):
        if _cache_ptr[i] != NULL:
            tw_big_free(_cache_ptr[i], _cache_bytes[i])
            _cache_ptr[i] = NULL
            _cache_bytes[i] = 0


cdef void _capsule_free(object cap) noexcept:
    cdef _Owned *o = <_Owned *> PyCapsule_GetPointer(cap, NULL)
    _cache_give(o.ptr, o.nbytes)
    free(o)


cdef object _own_array(void *ptr, size_t nbytes, int nd, cnp.npy_intp d0, cnp.npy_intp d1, int typenum):
    """A numpy array over ``ptr`` (from tw_big_resize) that frees it when collected."""
    cdef cnp.npy_intp dims[2]
    cdef cnp.ndarray arr
    cdef _Owned *o
    if ptr == NULL:
        ptr = tw_big_resize(NULL, 0, 64)
        nbytes = 64
        if ptr == NULL:
            raise MemoryError()
    o = <_Owned *> malloc(sizeof(_Owned))
    if o == NULL:
        tw_big_free(ptr, nbytes)
        raise MemoryError()
    o.ptr = ptr
    o.nbytes = nbytes
    dims[0] = d0
    dims[1] = d1
    arr = cnp.PyArray_SimpleNewFromData(nd, dims, typenum, ptr)
    cnp.set_array_base(arr, PyCapsule_New(o, NULL, <PyCapsule_Destructor>_capsule_free))
    return arr


cdef inline size_t _initial_rows(size_t guess) noexcept nogil:
    """Rows to reserve up front (address space only on Linux; the buffers grow past it)."""
    cdef size_t cap = (<size_t> 1) << 22
    return (guess if guess < cap else cap) + 64


cdef int _check_rows(const tw_params *P, const uint8_t[:, ::1] arr, int *reason) noexcept nogil:
    cdef Py_ssize_t i
    cdef int r
    for i in range(arr.shape[0]):
        r = tw_validate(P, &arr[i, 0])
        if r:
            reason[0] = r
            return <int> i
    return -1


cdef Py_ssize_t _check_dice(const uint8_t[:, ::1] dice) noexcept nogil:
    cdef Py_ssize_t i
    for i in range(dice.shape[0]):
        if dice[i, 0] - 1 > 5 or dice[i, 1] - 1 > 5 or dice[i, 0] == 0 or dice[i, 1] == 0:
            return i
    return -1


cdef _validate_batch(Params params, const uint8_t[:, ::1] arr):
    cdef int reason = 0, bad
    if arr.shape[1] != 56:
        raise InvalidId(f"positions must have shape (N, 56), not {tuple(arr.shape)[:2]}")
    with nogil:
        bad = _check_rows(&params.p, arr, &reason)
    if bad >= 0:
        raise InvalidPosition(f"row {bad}: {tw_invalid_reason(reason).decode()}")


# --- batch expansion ----------------------------------------------------------------------------
def expand(const uint8_t[:, ::1] positions, const uint8_t[:, ::1] dice, Params params):
    """Every distinct child of every row (see :func:`tawla.expand`).

    Parameters
    ----------
    positions : uint8[N, 56], C-contiguous
        Packed rows, each seen from its player to move.
    dice : uint8[N, 2], C-contiguous
        The roll of each row, values 1..6.
    params : Params

    Returns
    -------
    children : uint8[M, 56]
        The distinct positions reachable by a legal move, each flipped to the next
        player's seat; a passing row yields itself flipped; a finished game (including a
        frozen position) yields nothing.
    parent : int64[M]
        The row of each child (non-decreasing).

    Raises
    ------
    tawla.errors.InvalidPosition, tawla.errors.InvalidDice, tawla.errors.InvalidId
    """
    cdef Py_ssize_t n = positions.shape[0], i
    cdef tw_ctx c
    cdef tw_state root
    cdef tw_vec64 par
    cdef size_t k, cnt, nb
    cdef void *buf
    cdef int frozen, oom = 0
    cdef const tw_params *P = &params.p
    if dice.shape[0] != n or dice.shape[1] != 2:
        raise InvalidDice(f"dice must have shape ({n}, 2), not {tuple(dice.shape)[:2]}")
    _validate_batch(params, positions)
    with nogil:
        i = _check_dice(dice)
    if i >= 0:
        raise InvalidDice(f"row {i}: dice must be in 1..6, not ({dice[i, 0]}, {dice[i, 1]})")
    if not tw_ctx_init(&c, P):
        raise MemoryError()
    k = _initial_rows(48 * n)
    _cache_take(&buf, &nb, k * 56)
    tw_out_adopt(&c, buf, nb)
    _cache_take(&buf, &nb, k * 8)
    tw_vec64_adopt(&par, buf, nb)
    with nogil:
        if not tw_out_reserve_rows(&c, k) or not tw_vec64_reserve(&par, k):
            oom = 1
        for i in range(n):
            if oom:
                break
            tw_rowinfo_init(P, &c.ri, &positions[i, 0])
            if tw_over_cheap(P, &c.geo, &positions[i, 0]):
                continue
            tw_state_from_row(&root, &positions[i, 0])
            frozen = -1
            cnt = tw_expand_row(&c, &positions[i, 0], &root, dice[i, 0], dice[i, 1], &frozen)
            if c.oom or not tw_vec64_reserve(&par, c.nout):
                oom = 1
                break
            for k in range(c.nout - cnt, c.nout):
                par.p[k] = i
        par.n = c.nout
        if not oom:
            tw_out_trim(&c)
            tw_vec64_trim(&par)
    tw_ctx_free(&c)
    if oom:
        tw_out_free(&c)
        tw_vec64_free(&par)
        raise MemoryError()
    return (_own_array(c.out, c.outbytes, 2, c.nout, 56, cnp.NPY_UINT8),
            _own_array(par.p, par.bytes, 1, par.n, 0, cnp.NPY_INT64))


def expand_all_rolls(const uint8_t[:, ::1] positions, Params params):
    """:func:`expand` for all 21 rolls of every row (rolls in ``tawla.ROLLS`` order).

    Parameters
    ----------
    positions : uint8[N, 56], C-contiguous
    params : Params

    Returns
    -------
    children : uint8[M, 56]
    parent : int64[M]
        Source row of each child.
    roll : int64[M]
        Index 0..20 into ``tawla.ROLLS`` of each child's roll; children are ordered by
        row, then roll.
    """
    cdef Py_ssize_t n = positions.shape[0], i
    cdef tw_ctx c
    cdef tw_state root
    cdef tw_vec64 par, rol
    cdef size_t k, cnt, nb
    cdef void *buf
    cdef int frozen, oom = 0, a, b, ri
    cdef const tw_params *P = &params.p
    _validate_batch(params, positions)
    if not tw_ctx_init(&c, P):
        raise MemoryError()
    k = _initial_rows(21 * 32 * n)
    _cache_take(&buf, &nb, k * 56)
    tw_out_adopt(&c, buf, nb)
    _cache_take(&buf, &nb, k * 8)
    tw_vec64_adopt(&par, buf, nb)
    _cache_take(&buf, &nb, k * 8)
    tw_vec64_adopt(&rol, buf, nb)
    with nogil:
        if (not tw_out_reserve_rows(&c, k) or not tw_vec64_reserve(&par, k)
                or not tw_vec64_reserve(&rol, k)):
            oom = 1
        for i in range(n):
            if oom:
                break
            tw_rowinfo_init(P, &c.ri, &positions[i, 0])
            if tw_over_cheap(P, &c.geo, &positions[i, 0]):
                continue
            tw_state_from_row(&root, &positions[i, 0])
            frozen = -1
            ri = 0
            for a in range(1, 7):
                for b in range(a, 7):
                    cnt = tw_expand_row(&c, &positions[i, 0], &root, a, b, &frozen)
                    if c.oom or not tw_vec64_reserve(&par, c.nout) or not tw_vec64_reserve(&rol, c.nout):
                        oom = 1
                        break
                    for k in range(c.nout - cnt, c.nout):
                        par.p[k] = i
                        rol.p[k] = ri
                    ri += 1
                    if frozen == 1:
                        break
                if oom or frozen == 1:
                    break
        par.n = rol.n = c.nout
        if not oom:
            tw_out_trim(&c)
            tw_vec64_trim(&par)
            tw_vec64_trim(&rol)
    tw_ctx_free(&c)
    if oom:
        tw_out_free(&c)
        tw_vec64_free(&par)
        tw_vec64_free(&rol)
        raise MemoryError()
    return (_own_array(c.out, c.outbytes, 2, c.nout, 56, cnp.NPY_UINT8),
            _own_array(par.p, par.bytes, 1, par.n, 0, cnp.NPY_INT64),
            _own_array(rol.p, rol.bytes, 1, rol.n, 0, cnp.NPY_INT64))


# --- canonical sequences for Position.legal_moves ---------------------------------------------
cdef tw_ctx _seq_ctx
cdef bint _seq_ready = 0

cdef list _STEP_CACHE = [None] * (26 * 26 * 7 * 2)


cdef object _step(int p, int t, int d, int hit):
    cdef int key = ((p * 26 + t) * 7 + d) * 2 + hit
    s = _STEP_CACHE[key]
    if s is None:
        s = Step(p, t, d, bool(hit))
        _STEP_CACHE[key] = s
    return s


cdef inline int _dice_counted(const tw_rec *r, int n_dice) noexcept:
    """RULES.md 1.4 ``len'`` (D17): a sequence that ends the game with mover checkers still on
    the board counts every die; any other, the last checker borne off included, its steps."""
    return n_dice if r.ended and r.row[0] < 15 else r.nsteps


def legal_sequences(bytes row, dice, Params params):
    """The legal moves of one position, exactly as the reference path of ``legal_moves``.

    Parameters
    ----------
    row : bytes
        A packed row (56 bytes), mover's seat; not checked for game over.
    dice : (int, int)
        The roll, values 1..6.
    params : Params

    Returns
    -------
    list of (steps, after, ended)
        One entry per distinct resulting position, in the reference engine's order:
        ``steps`` is the canonical path (a tuple of :class:`tawla.Step`; the first kept
        sequence found trying dice high to low and from-points high to low), ``after``
        the row after the move (mover's seat, bytes), ``ended`` whether it ends the game.
        Empty when the turn passes.
    """
    cdef tw_ctx *c = &_seq_ctx
    cdef int d1, d2, ok, best = 0, hi, high_only = 0, nd, eff, j
    cdef size_t i
    cdef tw_rec *r
    global _seq_ready
    if len(row) != 56:
        raise InvalidId("a packed row has 56 bytes")
    d1, d2 = dice
    if not (1 <= d1 <= 6 and 1 <= d2 <= 6):
        raise InvalidDice(f"dice must be in 1..6, not {dice!r}")
    cdef const uint8_t *src = row
    # one context, reused under the GIL (a single position is too small to release it)
    if not _seq_ready:
        if not tw_ctx_init(c, &params.p):
            raise MemoryError()
        _seq_ready = 1
    c.P = &params.p
    c.oom = 0
    ok = tw_sequences(c, src, d1, d2)
    if not ok:
        tw_ctx_free(c)
        _seq_ready = 0
        raise MemoryError()
    nd = 4 if d1 == d2 else 2
    hi = d1 if d1 > d2 else d2
    out = []
    try:
        for i in range(c.nrec):
            eff = _dice_counted(&c.rec[i], nd)
            if eff > best:
                best = eff
        if best == 0:
            return out
        if best == 1 and d1 != d2:
            for i in range(c.nrec):
                if _dice_counted(&c.rec[i], nd) == 1 and c.rec[i].first_die == hi:
                    high_only = 1
        seen = set()
        for i in range(c.nrec):
            r = &c.rec[i]
            eff = _dice_counted(r, nd)
            if eff != best:
                continue
            if high_only and r.first_die != hi:
                continue
            after = (<char *> r.row)[:56]
            if after in seen:
                continue
            seen.add(after)
            steps = []
            for j in range(r.nsteps):
                steps.append(_step(r.steps[j].p, r.steps[j].t, r.steps[j].d, r.steps[j].hit))
            steps = tuple(steps)
            out.append((steps, after, bool(r.ended)))
        return out
    finally:
        c.P = NULL


# --- results and playouts ------------------------------------------------------------------------
def is_over(bytes row, Params params):
    """Whether the game of a row is over (``Position.result() is not None``): 15 checkers off,
    quadrant lock, mother rule or a frozen position. The row is not validated."""
    cdef tw_geo g
    if len(row) != 56:
        raise InvalidId("a packed row has 56 bytes")
    tw_geo_init(&g, params.p.same, params.p.contact == 1)
    return bool(tw_game_result(&params.p, &g, <const uint8_t *> row, 0).over)


def game_results(const uint8_t[:, ::1] positions, Params params):
    """The result of every row, relative to its player to move (``game_result``).

    Returns
    -------
    over : bool[N]
    winner : int8[N]
        0 the row's player to move, 1 the opponent, -1 draw or game not over.
    kind : int8[N]
        Index into :data:`KIND_NAMES`, -1 while the game goes on.
    points : int16[N]
        Points for the winner (cube 1), 0 for a draw.
    """
    cdef Py_ssize_t n = positions.shape[0], i
    cdef tw_ctx c
    cdef tw_result res
    _validate_batch(params, positions)
    over = np.zeros(n, dtype=np.bool_)
    winner = np.full(n, -1, dtype=np.int8)
    kind = np.full(n, -1, dtype=np.int8)
    points = np.zeros(n, dtype=np.int16)
    cdef cnp.npy_bool[::1] o = over
    cdef int8_t[::1] w = winner
    cdef int8_t[::1] k = kind
    cdef int16_t[::1] pt = points
    if not tw_ctx_init(&c, &params.p):
        raise MemoryError()
    with nogil:
        for i in range(n):
            res = tw_game_result(&params.p, &c.geo, &positions[i, 0], 0)
            if res.over:
                o[i] = 1
                w[i] = res.winner
                k[i] = res.kind
                pt[i] = res.points
    tw_ctx_free(&c)
    return over, winner, kind, points


def playout(Params params, long n_games, unsigned long long seed, long max_turns=100000):
    """Random games from the starting position, uniform over the distinct legal children.

    Parameters
    ----------
    params : Params
    n_games : int
    seed : int
        Seed of the generator (xoshiro256**); equal seeds give equal games.
    max_turns : int
        Safety cap per game; a game cut there gets kind ``unfinished``.

    Returns
    -------
    length : int32[n_games]
        Turns played (passes included), opening turn first.
    winner : int8[n_games]
        0 the player who moved first (the opening-roll winner), 1 the other, -1 draw.
    kind : int8[n_games]
        Index into :data:`KIND_NAMES`.
    points : int16[n_games]
        Points the winner scores (cube 1); 0 for a draw.
    """
    cdef int ok
    if n_games < 0:
        raise ValueError("n_games must be >= 0")
    length = np.zeros(n_games, dtype=np.int32)
    winner = np.zeros(n_games, dtype=np.int8)
    kind = np.zeros(n_games, dtype=np.int8)
    points = np.zeros(n_games, dtype=np.int16)
    cdef int32_t[::1] L = length
    cdef int8_t[::1] W = winner
    cdef int8_t[::1] K = kind
    cdef int16_t[::1] S = points
    if n_games == 0:
        return length, winner, kind, points
    with nogil:
        ok = tw_playout(&params.p, n_games, seed, max_turns, &L[0], &W[0], &K[0], &S[0])
    if not ok:
        raise MemoryError()
    return length, winner, kind, points
