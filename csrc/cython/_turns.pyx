# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""One position at a time in C: the legal moves of a roll (``tw_sequences``) as
:class:`tawla.Move` values, and step-by-step play of a turn (RULES.md 1.3, ``tw_turn``). The
search context is shared by the calls of this module (and, through ``_turns.pxd``, by the
network's move chooser in ``_net``), under the GIL.
"""

import operator

from libc.stdint cimport uint8_t, uint64_t
from libc.stdlib cimport malloc, free

from libc.stdint cimport uint32_t
from libc.string cimport memcmp, memcpy, memset
from cpython.ref cimport Py_INCREF
from cpython.tuple cimport PyTuple_New, PyTuple_SET_ITEM

from tawla_engine cimport *
from tawla.native._params cimport Params

from tawla.core.moves import Move
from tawla.core.steps import Step
from tawla.errors import IllegalMove, InvalidDice, InvalidId, UnsupportedRuleset

cdef extern from *:
    """
    static PyObject *tw_alloc(PyObject *cls) {
        return ((PyTypeObject *) cls)->tp_alloc((PyTypeObject *) cls, 0);
    }
    #include <structmember.h>
    /* The offset of a __slots__ member in its instances. */
    static Py_ssize_t tw_member_offset(PyObject *desc) {
        return ((PyMemberDescrObject *) desc)->d_member->offset;
    }
    /* Fill the still empty slot at ``off`` of a just allocated instance. */
    static inline void tw_put(PyObject *obj, Py_ssize_t off, PyObject *val) {
        Py_INCREF(val);
        *(PyObject **) ((char *) obj + off) = val;
    }
    """
    object tw_alloc(object cls)
    Py_ssize_t tw_member_offset(object desc)
    void tw_put(object obj, Py_ssize_t off, object val)


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


cdef dict _COMB_CACHE = {}


cdef object _comb(const tw_path *c):
    """A combined step as a :class:`tawla.Step` (one object per distinct step)."""
    cdef long key = c.p | (c.t << 5) | (c.n << 10) | (c.hit << 13)
    cdef int j
    for j in range(c.n):
        key |= (<long> c.d[j]) << (14 + 3 * j)
    s = _COMB_CACHE.get(key)
    if s is None:
        s = Step(c.p, c.t, tuple([c.d[j] for j in range(c.n)]), bool(c.hit))
        _COMB_CACHE[key] = s
    return s


cdef tuple _steps_of(const tw_rec *r):
    cdef tuple out = PyTuple_New(r.nsteps)
    cdef int j
    for j in range(r.nsteps):
        s = _step(r.steps[j].p, r.steps[j].t, r.steps[j].d, r.steps[j].hit)
        Py_INCREF(s)
        PyTuple_SET_ITEM(out, j, s)
    return out


cdef _dice(dice):
    """A roll as two ints in 1..6 (tawla.errors.InvalidDice otherwise)."""
    try:
        d1, d2 = dice
        d1, d2 = operator.index(d1), operator.index(d2)
    except (TypeError, ValueError):
        raise InvalidDice(f"dice must be a pair of integers in 1..6, not {dice!r}") from None
    if not (1 <= d1 <= 6 and 1 <= d2 <= 6):
        raise InvalidDice(f"dice must be in 1..6, not {dice!r}")
    return d1, d2


cdef object _memo_row = None  # the last search: row, params and dice, and its count
cdef object _memo_params = None
cdef int _memo_d1 = 0, _memo_d2 = 0
cdef Py_ssize_t _memo_n = 0


cdef Py_ssize_t search(bytes row, dice, Params params) except -1:
    """Search ``row`` with ``dice`` into the shared context: ``c.rec[0..n)`` the kept sequences,
    one per distinct result; returns n. The last search is kept, so that asking again for
    the same row, dice and params (the count of a roll, then its moves) searches nothing."""
    global _seq_ready, _memo_row, _memo_params, _memo_d1, _memo_d2, _memo_n
    cdef tw_ctx *c = &_seq_ctx
    cdef int d1, d2
    cdef Py_ssize_t n
    if len(row) != 56:
        raise InvalidId("a packed row has 56 bytes")
    d1, d2 = _dice(dice)
    if (_memo_row is not None and params is _memo_params and d1 == _memo_d1 and d2 == _memo_d2
            and row == _memo_row):
        return _memo_n
    _memo_row = None
    # one context, reused under the GIL (a single position is too small to release it)
    if not _seq_ready:
        if not tw_ctx_init(c, &params.p):
            raise MemoryError()
        _seq_ready = 1
    c.P = &params.p
    c.oom = 0
    try:
        if not tw_sequences(c, <const uint8_t *> row, d1, d2):
            tw_ctx_free(c)
            _seq_ready = 0
            raise MemoryError()
        n = <Py_ssize_t> _distinct(c, tw_sequences_keep(c))
    finally:
        c.P = NULL
    _memo_row, _memo_params, _memo_d1, _memo_d2, _memo_n = row, params, d1, d2, n
    return n


cdef list _kept(bytes row, dice, Params params, ruleset):
    """The kept sequences of a row, one per distinct result: ``(steps, after, ended)``, or
    :class:`tawla.Move` objects of ``dice`` and ``ruleset`` when ``ruleset`` is given."""
    cdef Py_ssize_t i, n = search(row, dice, params)
    cdef tw_rec *r
    out = []
    for i in range(n):
        r = &_seq_ctx.rec[i]
        after = (<char *> r.row)[:56]
        if ruleset is None:
            out.append((_steps_of(r), after, bool(r.ended)))
            continue
        # a Move without its __init__: its empty slots filled directly (the class is immutable)
        m = tw_alloc(Move)
        tw_put(m, _O_STEPS, _steps_of(r))
        tw_put(m, _O_DICE, dice)
        tw_put(m, _O_ENDED, True if r.ended else False)
        tw_put(m, _O_SOURCE, row)
        tw_put(m, _O_AFTER, after)
        tw_put(m, _O_RULESET, ruleset)
        out.append(m)
    return out


cdef uint32_t *_slots = NULL  # the open-addressing table of _distinct (rec index + 1; 0 free)
cdef size_t _nslots = 0


cdef size_t _distinct(tw_ctx *c, size_t n) except? 0:
    """Keep in c.rec[0..] the first rec of each distinct row, in order; returns how many."""
    global _slots, _nslots
    cdef size_t cap = 64, i, j, kept = 0
    cdef uint64_t h, w, prime = 1099511628211ULL
    cdef uint32_t *grown
    cdef int k
    while cap < 2 * n:
        cap *= 2
    if cap > _nslots:
        grown = <uint32_t *> malloc(cap * sizeof(uint32_t))
        if grown == NULL:
            raise MemoryError()
        free(_slots)
        _slots, _nslots = grown, cap
    memset(_slots, 0, cap * sizeof(uint32_t))
    for i in range(n):
        h = 1469598103934665603ULL
        for k in range(7):
            memcpy(&w, &c.rec[i].row[8 * k], 8)
            h = (h ^ w) * prime
            h ^= h >> 29
        j = h & (cap - 1)
        while _slots[j] and memcmp(c.rec[_slots[j] - 1].row, c.rec[i].row, 56) != 0:
            j = (j + 1) & (cap - 1)
        if _slots[j]:
            continue
        if kept != i:
            c.rec[kept] = c.rec[i]
        kept += 1
        _slots[j] = <uint32_t> kept
    return kept


_M_STEPS, _M_DICE, _M_ENDED, _M_SOURCE, _M_AFTER, _M_RULESET = [
    Move.__dict__[k] for k in ("steps", "dice", "ended", "source", "after", "ruleset")]
assert all(type(d).__name__ == "member_descriptor"
           for d in (_M_STEPS, _M_DICE, _M_ENDED, _M_SOURCE, _M_AFTER, _M_RULESET))
cdef Py_ssize_t _O_STEPS = tw_member_offset(_M_STEPS), _O_DICE = tw_member_offset(_M_DICE)
cdef Py_ssize_t _O_ENDED = tw_member_offset(_M_ENDED), _O_SOURCE = tw_member_offset(_M_SOURCE)
cdef Py_ssize_t _O_AFTER = tw_member_offset(_M_AFTER), _O_RULESET = tw_member_offset(_M_RULESET)
assert all(0 < o <= Move.__basicsize__ - sizeof(void *)
           for o in (_O_STEPS, _O_DICE, _O_ENDED, _O_SOURCE, _O_AFTER, _O_RULESET))


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
    return _kept(row, dice, params, None)


def count_moves(bytes row, dice, Params params):
    """How many legal moves (distinct results) :func:`legal_sequences` finds; the search is kept
    for a following :func:`legal_moves` or :func:`legal_sequences` of the same row and dice."""
    return search(row, dice, params)


def legal_moves(bytes row, tuple dice, Params params, ruleset):
    """:func:`legal_sequences` as :class:`tawla.Move` objects (``Move(steps, dice, ended, row,
    after, ruleset)``, built here without a Python call per move); ``dice`` the roll as the
    moves keep it."""
    if ruleset is None:
        raise UnsupportedRuleset("legal_moves needs the ruleset of the moves")
    return _kept(row, dice, params, ruleset)


# --- step-by-step play (RULES.md 1.3) -----------------------------------------------------------
cdef tw_turn _turn
cdef bint _turn_ready = 0


cdef str _pt(int p):
    return "bar" if p == 25 else "off" if p == 0 else str(p)


cdef tw_turn *_play(bytes start_row, dice, played_hops, Params params) except NULL:
    """The turn of ``start_row`` with ``dice`` after ``played_hops``, checked hop by hop."""
    global _turn_ready
    cdef int d1, d2, a, b, d, rc, n, i
    cdef tw_step legal[TW_MAX_STEPS]
    if len(start_row) != 56:
        raise InvalidId("a packed row has 56 bytes")
    d1, d2 = _dice(dice)
    if not _turn_ready:
        if not tw_turn_init(&_turn, &params.p):
            raise MemoryError()
        _turn_ready = 1
    if not tw_turn_begin(&_turn, &params.p, <const uint8_t *> start_row, d1, d2):
        tw_turn_free(&_turn)
        _turn_ready = 0
        raise MemoryError()
    for hop in played_hops:
        try:
            if len(hop) not in (3, 4):
                raise TypeError
            a, b, d = hop[0], hop[1], hop[2]
        except (TypeError, OverflowError):
            raise IllegalMove(f"a played hop is (from_point, to_point, die), not {hop!r}", text=str(hop)) from None
        rc = tw_turn_play(&_turn, a, b, d)
        if rc == 1:
            n = tw_turn_singles(&_turn, legal)
            raise IllegalMove(f"step {_pt(a)}/{_pt(b)} with a {d} is not legal now", text=f"{a}/{b}",
                              legal=[_step(legal[i].p, legal[i].t, legal[i].d, legal[i].hit) for i in range(n)])
        if rc == 2:
            raise IllegalMove("the game is already over this turn", text=str(hop))
        if rc == 3:
            why = "the game is over" if _turn.over else "the turn passes"
            raise IllegalMove(f"no step is legal: {why}", text=str(hop))
    return &_turn


def turn_steps(bytes start_row, dice, played_hops, Params params):
    """The legal next steps of a partial turn (``tawla.legal_steps``, RULES.md 1.3).

    Parameters
    ----------
    start_row : bytes
        The packed row at the start of the turn (56 bytes, mover's seat).
    dice : (int, int)
    played_hops : sequence of (from_point, to_point, die)
        The single hops already made this turn, in order (25 the bar, 0 off).
    params : Params

    Returns
    -------
    singles : list of tawla.Step
        The legal next single steps, dice high to low, from-points high to low.
    combined : list of tawla.Step
        One checker's combined steps, ``die`` the tuple of dice in the order used, ``hit``
        whether any part hits or pins; in ``legal_steps``' order.
    ended : bool
        Whether the game ended during the hops played.

    Raises
    ------
    tawla.errors.IllegalMove
        A played hop that was not a legal next step (or came after the game ended).
    tawla.errors.InvalidDice, tawla.errors.InvalidId
    """
    cdef tw_turn *T = _play(start_row, dice, played_hops, params)
    cdef tw_step singles[TW_MAX_STEPS]
    cdef tw_path comb[TW_MAX_PATHS]
    cdef int ns, nc, i
    ns = tw_turn_steps(T, singles, comb, &nc)
    return ([_step(singles[i].p, singles[i].t, singles[i].d, singles[i].hit) for i in range(ns)],
            [_comb(&comb[i]) for i in range(nc)],
            bool(T.ended))


def turn_finals(bytes start_row, dice, played_hops, Params params):
    """Every legal final position reachable from a partial turn (``Match._completions``,
    restricted to the legal moves), with a continuation.

    Parameters are those of :func:`turn_steps` (the hops are checked the same way).

    Returns
    -------
    list of (after, continuation)
        ``after`` the final row (bytes, mover's seat), ``continuation`` the hops that reach it
        from the hops played (a tuple of single :class:`tawla.Step`; the first found trying
        dice high to low and from-points high to low). A pass gives the start row with no
        hops, a game that ended during the hops its row; a game over before the turn, [].
    """
    global _turn_ready
    cdef tw_turn *T = _play(start_row, dice, played_hops, params)
    cdef size_t i
    if not tw_turn_finals(T):
        tw_turn_free(&_turn)
        _turn_ready = 0
        raise MemoryError()
    return [((<char *> T.c.rec[i].row)[:56], _steps_of(&T.c.rec[i])) for i in range(T.c.nrec)]


def turn_lit(bytes start_row, dice, played_hops, Params params):
    """:func:`turn_steps` as the match keeps it: ``(steps, ended)``, ``steps`` one tuple of the
    single then the combined steps.

    Raises
    ------
    tawla.errors.IllegalMove
        As :func:`turn_steps`.
    """
    return _lit_of(_play(start_row, dice, played_hops, params))


cdef tuple _lit_of(tw_turn *T):
    """``(steps, ended)`` of a turn after its hops, as :func:`turn_lit` returns them."""
    cdef tw_step singles[TW_MAX_STEPS]
    cdef tw_path comb[TW_MAX_PATHS]
    cdef int ns, nc, i
    ns = tw_turn_steps(T, singles, comb, &nc)
    cdef tuple out = PyTuple_New(ns + nc)
    for i in range(ns + nc):
        s = _step(singles[i].p, singles[i].t, singles[i].d, singles[i].hit) if i < ns else _comb(&comb[i - ns])
        Py_INCREF(s)
        PyTuple_SET_ITEM(out, i, s)
    return out, True if T.ended else False


def turn_step(bytes start_row, dice, tuple played_hops, tuple lit, int from_point, int to_point, want,
              Params params):
    """One step of a turn as the match makes it: the only lit step from ``from_point`` to
    ``to_point`` (with the die ``want``: None for any, an int for a single step, the tuple of
    dice of a combined one), the hops after it and what is lit then.

    Parameters
    ----------
    start_row : bytes
        The packed row at the start of the turn (56 bytes, mover's seat).
    dice : (int, int)
    played_hops : tuple of (from_point, to_point, die)
        The single hops already made this turn.
    lit : tuple of tawla.Step
        The steps lit after ``played_hops`` (:func:`turn_lit`).
    from_point, to_point : int
    want : None, int or tuple of int
        A tuple of one die is that die; anything else (a list, numpy integers) gives None.
    params : Params

    Returns
    -------
    (Step, tuple, (tuple, bool)) or None
        The step, the single hops after it and :func:`turn_lit` of them; None when no lit
        step or more than one matches (the caller then reports or resolves it).

    Raises
    ------
    tawla.errors.IllegalMove
        A played hop that was not a legal next step.
    """
    cdef tuple st, chosen = None
    cdef int p, q, i
    cdef long x, y
    cdef bint any_die = want is None, want_int = type(want) is int
    cdef long w = 0
    if type(want) is tuple:
        if not want:
            return None
        for x in <tuple> want:
            if type(x) is not int:
                return None
        if len(<tuple> want) == 1:
            want = (<tuple> want)[0]
            want_int = 1
    elif not any_die and not want_int:
        return None
    if want_int:
        w = want
    for s in lit:
        st = <tuple> s
        x, y = st[0], st[1]
        if x != from_point or y != to_point:
            continue
        d = st[2]
        if not any_die:
            if type(d) is int:
                x = d
                if not want_int or x != w:
                    continue
            elif want_int or d != want:
                continue
        if chosen is not None:
            return None
        chosen = st
    if chosen is None:
        return None
    d = chosen[2]
    if type(d) is int:
        hops = played_hops + ((from_point, to_point, d),)
    else:
        p = from_point
        new = []
        for i in range(len(<tuple> d)):
            q = (<tuple> d)[i]
            q = p - q
            if q < 1:
                q = 0
            new.append((p, q, (<tuple> d)[i]))
            p = q
        hops = played_hops + tuple(new)
    return chosen, hops, _lit_of(_play(start_row, dice, hops, params))


def play_hops(bytes row, played_hops, Params params):
    """The row after single hops ``(from, to, die)`` and the hops as single :class:`tawla.Step`
    values with their hits, as ``tawla.reference.turn.after_hops`` finds them (no legality
    check); None for a pinning ruleset, whose pins the reference keeps.

    Raises
    ------
    ValueError
        A hop off the board, or from a point without a checker.
    """
    cdef uint8_t b[56]
    cdef int a, t, d, hit, hitting = params.p.contact == TW_HIT
    if params.p.contact == TW_PIN:
        return None
    if len(row) != 56:
        raise InvalidId("a packed row has 56 bytes")
    memcpy(b, <const char *> row, 56)
    steps = []
    for hop in played_hops:
        a, t, d = hop[0], hop[1], hop[2]
        if not (1 <= a <= 25 and 0 <= t <= 24 and 1 <= d <= 6) or b[a] == 0:
            raise IllegalMove(f"not a hop of this row: {hop!r}", text=str(hop)[:80])
        b[a] -= 1
        hit = hitting and t != 0 and b[26 + t] == 1 and b[t] == 0
        if hit:
            b[26 + t] = 0
            b[51] += 1
        b[t] += 1
        steps.append(_step(a, t, d, hit))
    return (<char *> b)[:56], tuple(steps)


# --- what the network's move chooser (_net.NetChooser) reads of the last search -------------------
cdef const tw_rec *seq_rec(Py_ssize_t i) noexcept:
    """The i-th kept sequence of the last :func:`search`."""
    return &_seq_ctx.rec[i]


cdef object move_of(const tw_rec *r, bytes row, tuple dice, ruleset):
    """A :class:`tawla.Move` of a kept sequence, as :func:`legal_moves` builds it."""
    m = tw_alloc(Move)
    tw_put(m, _O_STEPS, _steps_of(r))
    tw_put(m, _O_DICE, dice)
    tw_put(m, _O_ENDED, True if r.ended else False)
    tw_put(m, _O_SOURCE, row)
    tw_put(m, _O_AFTER, (<char *> r.row)[:56])
    tw_put(m, _O_RULESET, ruleset)
    return m
