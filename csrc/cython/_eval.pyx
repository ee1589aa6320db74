# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""C versions of tawla.evaluation's models: the backgammon linear contact model, the race model
and the no-hit games' effective-pip model (``csrc/eval``).

Each equals its numpy version in tawla.evaluation (same features, same order; tests check it);
the numpy versions are the reference and the ones the fitting script uses. Every function
returns ``float64[N, 6]``: equity, win, win gammon, win backgammon, lose gammon, lose
backgammon.
"""

import numpy as np
cimport numpy as cnp

from tawla_engine cimport *
from tawla.native._params cimport Params
from tawla.native._race cimport race_view

from tawla.errors import InvalidArgument, InvalidPosition

cnp.import_array()
tw_eval_init()


def n_features():
    """The number of features of the linear contact model."""
    return TW_NF


def features_bg(const cnp.uint8_t[:, ::1] rows):
    """The feature matrix (float64[N, NF]) of backgammon-geometry rows."""
    cdef Py_ssize_t i, n = rows.shape[0]
    _check_rows(rows)
    out = np.zeros((n, TW_NF), dtype=np.float64)
    cdef double[:, ::1] o = out
    with nogil:
        for i in range(n):
            tw_features(&rows[i, 0], &o[i, 0])
    return out


cdef _check_rows(const cnp.uint8_t[:, ::1] rows):
    if rows.shape[1] != TW_W:
        raise InvalidPosition(f"rows must be uint8[N, {TW_W}], not [N, {rows.shape[1]}]")


cdef _check_weights(const double[:, ::1] W):
    if W.shape[0] != 5 or W.shape[1] != TW_NF:
        raise InvalidArgument(f"weights must be float64[5, {TW_NF}], not [{W.shape[0]}, {W.shape[1]}]")


def linear_bg(const cnp.uint8_t[:, ::1] rows, const double[:, ::1] W, Params params):
    """float64[N, 6]: equity, win, wg, wbg, lg, lbg of the linear model (conditional outputs;
    backgammons under the cube's scoring only)."""
    cdef Py_ssize_t i, n = rows.shape[0]
    _check_rows(rows)
    cdef long ldw = W.strides[0] // sizeof(double)
    _check_weights(W)
    out = np.zeros((n, 6), dtype=np.float64)
    cdef double[:, ::1] o = out
    with nogil:
        for i in range(n):
            tw_linear_row(&params.p, &rows[i, 0], &W[0, 0], ldw, &o[i, 0])
    return out


def race_rows(const cnp.uint8_t[:, ::1] rows, Params params, const double[:, :, ::1] one, const double[::1] two):
    """float64[N, 6]: the race model of rows with no contact (every geometry)."""
    cdef Py_ssize_t i, n = rows.shape[0]
    _check_rows(rows)
    cdef tw_race_tables t = race_view(one, two)
    out = np.zeros((n, 6), dtype=np.float64)
    cdef double[:, ::1] o = out
    with nogil:
        for i in range(n):
            tw_race_row(&params.p, &rows[i, 0], &t, &o[i, 0])
    return out


def race_sides(const int[:, ::1] me, const int[:, ::1] opp, Params params, const double[:, :, ::1] one,
               const double[::1] two):
    """float64[N, 6]: the race model of two sides with no contact (int32[N, 26] each, in their own
    numbering, every geometry); under checkers-left scoring column 0 is tawla31's expected points."""
    cdef Py_ssize_t i, j, n = me.shape[0]
    cdef int sm, so
    if me.shape[1] != 26 or opp.shape[1] != 26 or opp.shape[0] != n:
        raise InvalidArgument("race_sides: me and opp must be int32[N, 26] of one length")
    for i in range(n):  # the bear-off tables index at most 15 checkers a side
        sm = 0
        so = 0
        for j in range(26):
            if me[i, j] < 0 or opp[i, j] < 0:
                raise InvalidPosition("race_sides: a negative count of checkers")
            sm += me[i, j]
            so += opp[i, j]
        if sm > 15 or so > 15:
            raise InvalidPosition("race_sides: more than 15 checkers on a side")
    cdef tw_race_tables t = race_view(one, two)
    out = np.zeros((n, 6), dtype=np.float64)
    cdef double[:, ::1] o = out
    with nogil:
        for i in range(n):
            tw_race_sides(&params.p, &me[i, 0], &opp[i, 0], &t, &o[i, 0])
    return out


def eval_ends(const cnp.uint8_t[:, ::1] rows, Params params, const double[:, :, ::1] one, const double[::1] two,
              W=None):
    """The rows no contact model sees, for every ruleset (``tw_eval_ends``): ``(out float64[N, 6],
    kind uint8[N])`` with kind 1 for a lost game, 2 a won one, 3 a race, 4 a draw (``out`` holds
    their evaluation) and 0 a contact row (``out`` 0; with the linear model's weights ``W``,
    float64[5, NF], its value: the one-pass evaluation of backgammon and adi)."""
    cdef Py_ssize_t i, n = rows.shape[0]
    cdef const double[:, ::1] w
    cdef long ldw = 0
    cdef const double *wp = NULL
    _check_rows(rows)
    if W is not None:
        w = W
        _check_weights(w)
        ldw = w.strides[0] // sizeof(double)
        wp = &w[0, 0]
    cdef tw_geo g
    tw_geo_init(&g, params.p.same, params.p.contact == TW_PIN)
    cdef tw_race_tables t = race_view(one, two)
    out = np.zeros((n, 6), dtype=np.float64)
    kind_np = np.zeros(n, dtype=np.uint8)
    cdef double[:, ::1] o = out
    cdef cnp.uint8_t[::1] kind = kind_np
    with nogil:
        for i in range(n):
            if wp == NULL:
                kind[i] = tw_eval_ends(&params.p, &g, &rows[i, 0], &t, &o[i, 0])
            else:
                kind[i] = tw_eval_bg_row(&params.p, &g, &rows[i, 0], wp, ldw, &t, &o[i, 0])
    return out, kind_np


def nohit_contact(const cnp.uint8_t[:, ::1] rows, Params params):
    """float64[N, 6]: the effective-pip contact model of the no-hit games."""
    cdef Py_ssize_t i, n = rows.shape[0]
    _check_rows(rows)
    out = np.zeros((n, 6), dtype=np.float64)
    cdef double[:, ::1] o = out
    with nogil:
        for i in range(n):
            tw_nohit_row(&params.p, &rows[i, 0], &o[i, 0])
    return out
