# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The neural evaluators of ``csrc/net`` — their inputs, their outputs over batches of rows,
the one-pass evaluation (game ends, races, then the network) and the 0-ply move choice — for
tawla.evaluation.net (their training: ``_net_train``).
"""

import numpy as np
cimport numpy as cnp
from libc.stdint cimport uint8_t
from libc.stdlib cimport malloc, free

from tawla_engine cimport *
from tawla.native._params cimport Params, validate_batch, row_over
from tawla.native._race cimport race_view
from tawla.native._turns cimport search, seq_rec, move_of

from tawla.errors import InvalidArgument, InvalidId, InvalidPosition

cnp.import_array()

tw_eval_init()  # the shot tables of the hand features (this module's copy of the engine)
tw_net_init()  # the table of the logistic function

NET_INPUTS = TW_NET_NI
"""The number of inputs of a neural evaluator (``csrc/net/tw_net.h`` gives their layout)."""
NET_OUTPUTS = TW_NET_NO
NET_MAX_HIDDEN = TW_NET_MAXH


cdef tw_net net_view(const float[:, ::1] w1, const float[::1] b1, const float[:, ::1] w2,
                      const float[::1] b2) except *:
    cdef tw_net n
    cdef Py_ssize_t nh = w1.shape[1]
    if (w1.shape[0] != TW_NET_NI or not 1 <= nh <= TW_NET_MAXH or b1.shape[0] != nh
            or w2.shape[0] != TW_NET_NO or w2.shape[1] != nh or b2.shape[0] != TW_NET_NO):
        raise InvalidArgument(
            f"network weights must be float32 w1[{TW_NET_NI}, H], b1[H], w2[{TW_NET_NO}, H], "
            f"b2[{TW_NET_NO}] with 1 <= H <= {TW_NET_MAXH}; got w1[{w1.shape[0]}, {w1.shape[1]}], "
            f"b1[{b1.shape[0]}], w2[{w2.shape[0]}, {w2.shape[1]}], b2[{b2.shape[0]}]")
    n.nh = <int> nh
    n.w1 = <float *> &w1[0, 0]
    n.b1 = <float *> &b1[0]
    n.w2 = <float *> &w2[0, 0]
    n.b2 = <float *> &b2[0]
    return n


cdef int race_attach(tw_race_tables *t, tw_net *view, race_net) except -1:
    """With ``race_net`` (``(w1, b1, w2, b2)``, a network of this module's layout) not None: the
    races of ``t`` beyond the bear-off databases valued by it (``view``: the caller's struct for
    it; the caller keeps the arrays alive while ``t`` is used)."""
    if race_net is None:
        return 0
    w1, b1, w2, b2 = race_net
    view[0] = net_view(w1, b1, w2, b2)
    t.beyond = tw_net_race_beyond
    t.ctx = view
    return 0


def net_inputs(const uint8_t[:, ::1] positions, Params params, bint checked=True):
    """The inputs of packed rows (mover's seat), dense: float32[N, NET_INPUTS].

    Raises
    ------
    InvalidPosition
        A row that is not a position of the ruleset (when ``checked``).
    """
    cdef Py_ssize_t i, j, n = positions.shape[0]
    cdef int m
    cdef int idx[TW_NET_NI]
    cdef float val[TW_NET_NI]
    if checked:
        validate_batch(params, positions)
    out = np.zeros((n, TW_NET_NI), dtype=np.float32)
    cdef float[:, ::1] o = out
    with nogil:
        for i in range(n):
            m = tw_net_inputs(&params.p, &positions[i, 0], idx, val)
            for j in range(m):
                o[i, idx[j]] = val[j]
    return out


def net_outputs(const uint8_t[:, ::1] positions, Params params, const float[:, ::1] w1,
                const float[::1] b1, const float[:, ::1] w2, const float[::1] b2, bint checked=True):
    """The network's outputs (float32[N, NET_OUTPUTS], tw_net.h) for packed rows.

    Raises
    ------
    InvalidArgument
        Weights of other shapes.
    InvalidPosition
        A row that is not a position of the ruleset (when ``checked``).
    """
    cdef tw_net net = net_view(w1, b1, w2, b2)
    cdef Py_ssize_t n = positions.shape[0]
    if checked:
        validate_batch(params, positions)
    out = np.zeros((n, TW_NET_NO), dtype=np.float32)
    cdef float[:, ::1] o = out
    if n:
        with nogil:
            tw_net_rows(&params.p, &net, &positions[0, 0], n, &o[0, 0])
    return out


def net_columns(const uint8_t[:, ::1] positions, Params params, const float[:, ::1] w1,
                const float[::1] b1, const float[:, ::1] w2, const float[::1] b2, bint checked=True):
    """The six evaluation columns (float64[N, 6]: equity, win, win gammon, win backgammon,
    lose gammon, lose backgammon) the network gives packed rows, every row through the network.

    Raises
    ------
    InvalidArgument, InvalidPosition
        As for :func:`net_outputs`.
    """
    cdef tw_net net = net_view(w1, b1, w2, b2)
    cdef Py_ssize_t i, n = positions.shape[0]
    if checked:
        validate_batch(params, positions)
    out = np.zeros((n, 6), dtype=np.float64)
    cdef double[:, ::1] c = out
    if n == 0:
        return out
    cdef float[:, ::1] o = np.empty((n, TW_NET_NO), dtype=np.float32)
    with nogil:
        tw_net_rows(&params.p, &net, &positions[0, 0], n, &o[0, 0])
        for i in range(n):
            tw_net_columns(&params.p, &o[i, 0], &c[i, 0])
    return out


def net_eval_bg(const uint8_t[:, ::1] positions, Params params, const float[:, ::1] w1, const float[::1] b1,
                const float[:, ::1] w2, const float[::1] b2, const double[:, :, ::1] one, const double[::1] two,
                race_net=None):
    """Backgammon / adi rows in one pass (float64[N, 6], the evaluation columns): a finished game
    its exact result (``tw_eval_ends``), a race the race model (tables as ``tawla.native.race_rows`` takes
    them; with ``race_net``, ``(w1, b1, w2, b2)``, the races beyond the bear-off databases by that
    network), contact the network. The rows are read unchecked (the engine made them).

    Raises
    ------
    InvalidArgument
        Weights of other shapes, or a same-direction ruleset.
    """
    cdef tw_net net = net_view(w1, b1, w2, b2)
    cdef tw_net race
    cdef Py_ssize_t n = positions.shape[0]
    cdef tw_race_tables t
    if params.p.same:
        raise InvalidArgument("the one-pass evaluation serves opposite-direction games only")
    if positions.shape[1] != TW_W:
        raise InvalidPosition(f"rows must be uint8[N, {TW_W}], not [N, {positions.shape[1]}]")
    t = race_view(one, two)
    race_attach(&t, &race, race_net)
    out = np.zeros((n, 6), dtype=np.float64)
    cdef double[:, ::1] c = out
    if n:
        with nogil:
            tw_net_eval_bg(&params.p, &net, &positions[0, 0], n, &t, &c[0, 0])
    return out


# --- a network's 0-ply move choice in one compiled pass, for tawla.bots.search -----------------
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
    race_net : tuple, optional
        ``(w1, b1, w2, b2)``: the race network beyond the databases, as for :func:`net_eval_bg`
        (kept, not copied).

    Raises
    ------
    InvalidArgument
        Weights of other shapes, or a same-direction ruleset.
    """

    cdef Params params
    cdef tw_net net
    cdef tw_net race
    cdef tw_race_tables t
    cdef object keep

    def __init__(self, Params params, const float[:, ::1] w1, const float[::1] b1, const float[:, ::1] w2,
                 const float[::1] b2, const double[:, :, ::1] one,
                 const double[::1] two, race_net=None):
        if params.p.same:
            raise InvalidArgument("the one-pass evaluation serves opposite-direction games only")
        self.net = net_view(w1, b1, w2, b2)
        self.t = race_view(one, two)
        race_attach(&self.t, &self.race, race_net)
        self.params = params
        self.keep = (w1, b1, w2, b2, one, two, race_net)  # the buffers the pointers above read

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
        n = search(row, dice, self.params)
        if n == 0:
            return None
        if n > 1:
            kids = <uint8_t *> malloc(<size_t> n * (TW_W + 6 * sizeof(double)))
            if kids == NULL:
                raise MemoryError()
            ev = <double *> (kids + <size_t> n * TW_W)  # TW_W is a multiple of 8: aligned
            tw_geo_init(&g, self.params.p.same, 1)  # as native.flip_rows
            for i in range(n):
                tw_flip(&g, seq_rec(i).row, kids + i * TW_W)
            tw_net_eval_bg(&self.params.p, &self.net, kids, n, &self.t, ev)
            top = -ev[0]
            for i in range(1, n):
                v = -ev[6 * i]
                if v > top:
                    top, best = v, i
            free(kids)
        return move_of(seq_rec(best), row, dice, ruleset)
