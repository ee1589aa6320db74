# Included by _fast.pyx: the neural evaluators of csrc/tw_net.h — their inputs, their outputs
# over batches of rows and the one-pass backgammon evaluation — for tawla.evaluation.net
# (their training: _fast_net_train.pxi).

tw_eval_init()  # the shot tables of the hand features (this module's copy of the engine)
tw_net_init()  # the table of the logistic function

NET_INPUTS = TW_NET_NI
"""The number of inputs of a neural evaluator (csrc/tw_net.h gives their layout)."""
NET_OUTPUTS = TW_NET_NO
NET_MAX_HIDDEN = TW_NET_MAXH


cdef tw_net _net_view(const float[:, ::1] w1, const float[::1] b1, const float[:, ::1] w2,
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
    cdef tw_net net = _net_view(w1, b1, w2, b2)
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
    cdef tw_net net = _net_view(w1, b1, w2, b2)
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
                const float[:, ::1] w2, const float[::1] b2, const double[:, :, ::1] one, const double[::1] two):
    """Backgammon / adi rows in one pass (float64[N, 6], the evaluation columns): a finished game
    its exact result (``tw_eval_ends``), a race the race model (tables as ``native.fast_eval.race_bg`` takes
    them), contact the network. The rows are read unchecked (the engine made them).

    Raises
    ------
    InvalidArgument
        Weights of other shapes, or a same-direction ruleset.
    """
    cdef tw_net net = _net_view(w1, b1, w2, b2)
    cdef Py_ssize_t n = positions.shape[0]
    cdef tw_race_tables t
    if params.p.same:
        raise InvalidArgument("the one-pass evaluation serves opposite-direction games only")
    if positions.shape[1] != TW_W:
        raise InvalidPosition(f"rows must be uint8[N, {TW_W}], not [N, {positions.shape[1]}]")
    t.one = &one[0, 0, 0]
    t.s0 = one.strides[0] // sizeof(double)
    t.s1 = one.strides[1] // sizeof(double)
    t.n2 = one.shape[2]
    t.two = &two[0]
    out = np.zeros((n, 6), dtype=np.float64)
    cdef double[:, ::1] c = out
    if n:
        with nogil:
            tw_net_eval_bg(&params.p, &net, &positions[0, 0], n, &t, &c[0, 0])
    return out
