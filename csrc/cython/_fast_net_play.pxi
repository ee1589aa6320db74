# Included by _fast.pyx after _fast_turns.pxi and _fast_net.pxi: a network's 0-ply move choice
# in one compiled pass (the legal moves' results, their evaluation, the best of them), for
# tawla.bots.search.


cdef object _move_of(const tw_rec *r, bytes row, tuple dice, ruleset):
    """A :class:`tawla.Move` of a kept sequence, as :func:`legal_moves` builds it."""
    m = tw_alloc(Move)
    tw_put(m, _O_STEPS, _steps_of(r))
    tw_put(m, _O_DICE, dice)
    tw_put(m, _O_ENDED, True if r.ended else False)
    tw_put(m, _O_SOURCE, row)
    tw_put(m, _O_AFTER, (<char *> r.row)[:56])
    tw_put(m, _O_RULESET, ruleset)
    return m


cdef class NetChooser:
    """The 0-ply choice of backgammon / adi positions with a network as their contact model.

    Each legal move of :func:`legal_sequences` (their order) gives its result seen from the
    opponent; these are valued as :func:`net_eval_bg` values them, and :meth:`choose` returns
    the move whose result's equity is lowest for the opponent (the first such in that order).

    Parameters
    ----------
    params : Params
    w1, b1, w2, b2 : float32 arrays
        The network, shapes as :func:`net_outputs` takes them (kept, not copied).
    one, two : float64 arrays
        The race model's tables, as for :func:`net_eval_bg` (kept, not copied).

    Raises
    ------
    InvalidArgument
        Weights of other shapes, or a same-direction ruleset.
    """

    cdef Params params
    cdef tw_net net
    cdef tw_race_tables t
    cdef object keep

    def __init__(self, Params params, const float[:, ::1] w1, const float[::1] b1, const float[:, ::1] w2,
                 const float[::1] b2, const double[:, :, ::1] one,
                 const double[::1] two):
        if params.p.same:
            raise InvalidArgument("the one-pass evaluation serves opposite-direction games only")
        self.net = _net_view(w1, b1, w2, b2)
        self.t.one = &one[0, 0, 0]
        self.t.s0 = one.strides[0] // sizeof(double)
        self.t.s1 = one.strides[1] // sizeof(double)
        self.t.n2 = one.shape[2]
        self.t.two = &two[0]
        self.params = params
        self.keep = (w1, b1, w2, b2, one, two)  # the buffers the pointers above read

    def choose(self, bytes row, tuple dice, ruleset):
        """The chosen :class:`tawla.Move` of ``row`` (bytes, 56, mover's seat: a valid position of
        the ruleset) for ``dice`` (a checked roll, kept as the Move's ``dice``; ``ruleset`` its
        ruleset), or None when the game is over or the turn passes."""
        cdef Py_ssize_t i, best = 0, n
        cdef tw_geo g
        cdef uint8_t *kids
        cdef double *ev
        cdef double v, top
        if len(row) != 56:
            raise InvalidId("a packed row has 56 bytes")
        if row_over(<const uint8_t *> row, self.params):
            return None
        n = _search(row, dice, self.params)
        if n == 0:
            return None
        if n > 1:
            kids = <uint8_t *> malloc(<size_t> n * (TW_W + 6 * sizeof(double)))
            if kids == NULL:
                raise MemoryError()
            ev = <double *> (kids + <size_t> n * TW_W)  # TW_W is a multiple of 8: aligned
            tw_geo_init(&g, self.params.p.same, 1)  # as native.flip_rows
            for i in range(n):
                tw_flip(&g, _seq_ctx.rec[i].row, kids + i * TW_W)
            tw_net_eval_bg(&self.params.p, &self.net, kids, n, &self.t, ev)
            top = -ev[0]
            for i in range(1, n):
                v = -ev[6 * i]
                if v > top:
                    top, best = v, i
            free(kids)
        return _move_of(&_seq_ctx.rec[best], row, dice, ruleset)
