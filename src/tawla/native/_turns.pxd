# What other Cython modules of the package use of csrc/cython/_turns.pyx: the one-position search
# and the Move values of its results (the network's move chooser in _net).

from tawla_engine cimport tw_rec
from tawla.native._params cimport Params


cdef Py_ssize_t search(bytes row, dice, Params params) except -1
cdef const tw_rec *seq_rec(Py_ssize_t i) noexcept
cdef object move_of(const tw_rec *r, bytes row, tuple dice, ruleset)
