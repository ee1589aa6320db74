# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Packed-row codec in C: flipping a row to the other seat, single rows and batches.

Row layout: see tawla/layout.py (56 bytes: mover counts, opponent counts on the
mover's points, 24 pin bits). The flip is the engine's (``tw_flip``, csrc/movegen/tw_board.h).
"""

import numpy as np
cimport numpy as cnp
from libc.stdint cimport uint8_t

from tawla_engine cimport tw_geo, tw_geo_init, tw_flip

from tawla.errors import InvalidPosition

cnp.import_array()

DEF W = 56


def flip_row(bytes row, bint same):
    """The row seen from the other seat (bytes of length 56)."""
    cdef unsigned char out[W]
    cdef tw_geo g
    if len(row) != W:
        raise InvalidPosition(f"a row has {W} bytes, not {len(row)}")
    tw_geo_init(&g, same, 1)  # pin bits are carried over whatever the ruleset
    tw_flip(&g, <const uint8_t *> row, out)
    return bytes(out[:W])


def flip_rows(const cnp.uint8_t[:, ::1] rows, bint same):
    """Flip every row of a uint8[N, 56] array; returns a new array."""
    cdef Py_ssize_t i, n = rows.shape[0]
    cdef tw_geo g
    if rows.shape[1] != W:
        raise InvalidPosition(f"rows must be uint8[N, {W}], not [N, {rows.shape[1]}]")
    out = np.empty((n, W), dtype=np.uint8)
    cdef cnp.uint8_t[:, ::1] o = out
    tw_geo_init(&g, same, 1)
    with nogil:
        for i in range(n):
            tw_flip(&g, &rows[i, 0], &o[i, 0])
    return out
