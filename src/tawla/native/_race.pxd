# The race model's tables as the C evaluators read them (tw_race_tables, csrc/eval/tw_eval.h): one
# view, compiled into each module that cimports it.

from tawla_engine cimport tw_race_tables


cdef inline tw_race_tables race_view(const double[:, :, ::1] one, const double[::1] two):
    """The tables ``one`` (float64[n, 2, L], the one-sided bear-off distributions) and ``two``
    (float64[924 * 924], the two-sided database) as the C evaluators read them (not copied: the
    caller keeps the arrays alive)."""
    cdef tw_race_tables t
    t.one = &one[0, 0, 0]
    t.s0 = one.strides[0] // sizeof(double)
    t.s1 = one.strides[1] // sizeof(double)
    t.n2 = one.shape[2]
    t.two = &two[0]
    t.beyond = NULL
    t.ctx = NULL
    return t
