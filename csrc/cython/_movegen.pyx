# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Move generation in C for batches: validation, the children of rows (one roll each, or all 21),
game results and random playouts (``csrc/movegen``).

One generator for every ruleset, parameterised by :class:`tawla.native._params.Params` (the
ruleset's one parameter block). This module validates inputs, releases the GIL around the loops
and hands the results to numpy without a Python object per child.

Rows are packed positions (``uint8[56]``, :mod:`tawla.core.layout`), seen from the player
to move.
"""

import numpy as np
cimport numpy as cnp
from libc.stdint cimport uint8_t, int8_t, int16_t, int32_t, int64_t, uint64_t
from libc.stdlib cimport malloc, free
from cpython.pycapsule cimport PyCapsule_New, PyCapsule_GetPointer, PyCapsule_Destructor

from tawla_engine cimport *
from tawla.native._params cimport Params, validate_batch, row_over

from tawla.errors import InvalidArgument, InvalidDice, InvalidId


cnp.import_array()


# --- numpy arrays that own a big buffer (tw_big_resize) -----------------------------------------
# Output buffers of dropped results go back to the C cache (tw_cache_give) and are reused by the
# next call (tw_cache_take). All cache operations run with the GIL held.
cdef struct _Owned:
    void *ptr
    size_t nbytes


def _clear_buffer_cache():
    """Unmap the cached output buffers (tests and memory-conscious callers)."""
    tw_cache_clear()


cdef void _capsule_free(object cap) noexcept:
    cdef _Owned *o = <_Owned *> PyCapsule_GetPointer(cap, NULL)
    tw_cache_give(o.ptr, o.nbytes)
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


def validate_rows(const uint8_t[:, ::1] positions, Params params):
    """Check every row of ``uint8[N, 56]`` against the ruleset (the C twin of
    :func:`tawla.rules.validation.validate_rows`).

    Raises
    ------
    tawla.errors.InvalidId
        Rows of another width.
    tawla.errors.InvalidPosition
        The first row that is not a position of the ruleset, by index.
    """
    validate_batch(params, positions)


cdef void _adopt_cached(tw_ctx *c, tw_vec64 *par, tw_vec64 *rol, size_t rows) noexcept:
    """Give the children buffer and the index vectors cached buffers for ``rows`` rows."""
    cdef void *buf
    cdef size_t nb
    tw_cache_take(&buf, &nb, rows * 56)
    tw_out_adopt(c, buf, nb)
    tw_cache_take(&buf, &nb, rows * 8)
    tw_vec64_adopt(par, buf, nb)
    if rol != NULL:
        tw_cache_take(&buf, &nb, rows * 8)
        tw_vec64_adopt(rol, buf, nb)


# --- batch expansion ----------------------------------------------------------------------------
def expand(const uint8_t[:, ::1] positions, const uint8_t[:, ::1] dice, Params params, bint checked=True):
    """Every distinct child of every row (see :func:`tawla.expand`).

    Parameters
    ----------
    positions : uint8[N, 56], C-contiguous
        Packed rows, each seen from its player to move.
    dice : uint8[N, 2], C-contiguous
        The roll of each row, values 1..6.
    params : Params
    checked : bool
        False for rows and dice the caller has validated (the engine's own children, or
        :func:`tawla.expand` after its checks): only the shapes are checked then.

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
    cdef long n = positions.shape[0], bad = -1
    cdef tw_ctx c
    cdef tw_vec64 par
    cdef size_t k
    cdef int ok = 1
    if dice.shape[0] != n or dice.shape[1] != 2:
        raise InvalidDice(f"dice must have shape ({n}, 2), not {tuple(dice.shape)[:2]}")
    if positions.shape[1] != 56:
        raise InvalidId(f"positions must have shape (N, 56), not {tuple(positions.shape)[:2]}")
    if checked:
        validate_batch(params, positions)
    if n and checked:
        with nogil:
            bad = tw_check_dice(&dice[0, 0], n)
    if bad >= 0:
        raise InvalidDice(f"row {bad}: dice must be in 1..6, not ({dice[bad, 0]}, {dice[bad, 1]})")
    if not tw_ctx_init(&c, &params.p):
        raise MemoryError()
    k = _initial_rows(48 * n)
    _adopt_cached(&c, &par, NULL, k)
    with nogil:
        ok = tw_out_reserve_total(&c, k) and tw_vec64_reserve(&par, k)
        if ok and n:
            ok = tw_expand_rows(&c, &positions[0, 0], &dice[0, 0], n, &par)
        if ok:
            tw_out_trim(&c)
            tw_vec64_trim(&par)
    tw_ctx_free(&c)
    if not ok:
        tw_out_free(&c)
        tw_vec64_free(&par)
        raise MemoryError()
    return (_own_array(c.out, c.outbytes, 2, c.nout, 56, cnp.NPY_UINT8),
            _own_array(par.p, par.bytes, 1, c.nout, 0, cnp.NPY_INT64))


def expand_all_rolls(const uint8_t[:, ::1] positions, Params params, bint checked=True):
    """:func:`expand` for all 21 rolls of every row (rolls in ``tawla.ROLLS`` order).

    Parameters
    ----------
    positions : uint8[N, 56], C-contiguous
    params : Params
    checked : bool
        False for rows the caller has validated: only the width is checked then.

    Returns
    -------
    children : uint8[M, 56]
    parent : int64[M]
        Source row of each child.
    roll : int64[M]
        Index 0..20 into ``tawla.ROLLS`` of each child's roll; children are ordered by
        row, then roll.
    """
    cdef long n = positions.shape[0]
    cdef tw_ctx c
    cdef tw_vec64 par, rol
    cdef size_t k
    cdef int ok = 1
    if positions.shape[1] != 56:
        raise InvalidId(f"positions must have shape (N, 56), not {tuple(positions.shape)[:2]}")
    if checked:
        validate_batch(params, positions)
    if not tw_ctx_init(&c, &params.p):
        raise MemoryError()
    k = _initial_rows(21 * 32 * n)
    _adopt_cached(&c, &par, &rol, k)
    with nogil:
        ok = tw_out_reserve_total(&c, k) and tw_vec64_reserve(&par, k) and tw_vec64_reserve(&rol, k)
        if ok and n:
            ok = tw_expand_rows_all_rolls(&c, &positions[0, 0], n, &par, &rol)
        if ok:
            tw_out_trim(&c)
            tw_vec64_trim(&par)
            tw_vec64_trim(&rol)
    tw_ctx_free(&c)
    if not ok:
        tw_out_free(&c)
        tw_vec64_free(&par)
        tw_vec64_free(&rol)
        raise MemoryError()
    return (_own_array(c.out, c.outbytes, 2, c.nout, 56, cnp.NPY_UINT8),
            _own_array(par.p, par.bytes, 1, c.nout, 0, cnp.NPY_INT64),
            _own_array(rol.p, rol.bytes, 1, c.nout, 0, cnp.NPY_INT64))


# --- results and playouts ------------------------------------------------------------------------
def is_over(bytes row, Params params):
    """Whether the game of a row is over (``Position.result() is not None``): 15 checkers off,
    quadrant lock, mother rule or a frozen position. The row is not validated."""
    if len(row) != 56:
        raise InvalidId("a packed row has 56 bytes")
    return row_over(<const uint8_t *> row, params)


def is_frozen_row(bytes row, Params params):
    """Whether a row is frozen (RULES.md §1.7): for every die 1..6 neither side has a legal
    single step (``tw_is_frozen``); False where the ruleset cannot freeze or a side has borne
    off all 15. The row is not validated.

    Raises
    ------
    tawla.errors.InvalidId
        ``row`` is not 56 bytes.
    """
    cdef tw_geo g
    if len(row) != 56:
        raise InvalidId("a packed row has 56 bytes")
    tw_geo_init(&g, params.p.same, params.p.contact == TW_PIN)
    return tw_is_frozen(&params.p, &g, <const uint8_t *> row) != 0


def game_results(const uint8_t[:, ::1] positions, Params params, bint frozen_test=True, bint checked=True):
    """The result of every row, relative to its player to move (``game_result``); without the
    frozen test (RULES.md 1.7) when ``frozen_test`` is false. The rows are validated first when
    ``checked`` (else only their width: rows the engine made or the caller checked).

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
    if checked:
        validate_batch(params, positions)
    elif positions.shape[1] != TW_W:
        raise InvalidId(f"positions must have shape (N, 56), not {tuple(positions.shape)[:2]}")
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
            res = tw_game_result(&params.p, &c.geo, &positions[i, 0], not frozen_test)
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
        raise InvalidArgument(f"n_games must be >= 0, not {n_games}")
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


# --- end of a turn --------------------------------------------------------------------------------
def next_turn_row(bytes after, Params params):
    """The row a move reached, seen from the next mover's seat, and whether the game is over.

    Parameters
    ----------
    after : bytes
        A packed row (56 bytes) after a move, the mover's seat; not validated.
    params : Params

    Returns
    -------
    (bytes, bool)
        The flipped row (``tawla.core.geometry.flip_row``) and ``is_over`` of it.
    """
    cdef tw_geo g
    cdef unsigned char out[56]
    if len(after) != 56:
        raise InvalidId("a packed row has 56 bytes")
    tw_geo_init(&g, params.p.same, 1)  # pin bits are carried over whatever the ruleset
    tw_flip(&g, <const uint8_t *> after, out)
    return out[:56], row_over(out, params)
