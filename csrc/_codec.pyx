# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Packed-row codec in C: flipping a row to the other seat, single rows and batches.

Row layout: see tawla/layout.py (56 bytes: mover counts, opponent counts on the
mover's points, 24 pin bits).
"""

import numpy as np
cimport numpy as cnp
from libc.string cimport memset

cnp.import_array()

DEF W = 56


cdef inline int opp_point(int p, bint same) noexcept nogil:
    if same:
        return (p + 11) % 24 + 1
    return 25 - p


cdef void flip_into(const unsigned char* src, unsigned char* dst, bint same) noexcept nogil:
    cdef int p, q
    cdef unsigned int bits = src[52] | (src[53] << 8) | (src[54] << 16)
    cdef unsigned int nbits = 0
    memset(dst, 0, W)
    dst[0] = src[26]
    dst[25] = src[51]
    dst[26] = src[0]
    dst[51] = src[25]
    for p in range(1, 25):
        q = opp_point(p, same)
        dst[q] = src[26 + p]
        dst[26 + q] = src[p]
        if src[p] and src[26 + p] and not ((bits >> (p - 1)) & 1):
            nbits |= 1u << (q - 1)
    dst[52] = nbits & 0xFF
    dst[53] = (nbits >> 8) & 0xFF
    dst[54] = (nbits >> 16) & 0xFF


def flip_row(bytes row, bint same):
    """The row seen from the other seat (bytes of length 56)."""
    cdef unsigned char out[W]
    if len(row) != W:
        raise ValueError("row must have 56 bytes")
    flip_into(<const unsigned char*> row, out, same)
    return bytes(out[:W])


def flip_rows(cnp.uint8_t[:, ::1] rows, bint same):
    """Flip every row of a uint8[N, 56] array; returns a new array."""
    cdef Py_ssize_t i, n = rows.shape[0]
    out = np.empty((n, W), dtype=np.uint8)
    cdef cnp.uint8_t[:, ::1] o = out
    with nogil:
        for i in range(n):
            flip_into(&rows[i, 0], &o[i, 0], same)
    return out
