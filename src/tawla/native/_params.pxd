# The ruleset as the C engine reads it, declared once for every Cython module of the package
# (csrc/cython/_params.pyx implements it; the others cimport it from here).

from libc.stdint cimport uint8_t

from tawla_engine cimport tw_params


cdef class Params:
    cdef tw_params p


cdef validate_batch(Params params, const uint8_t[:, ::1] arr)
cdef bint row_over(const uint8_t *row, Params params)
