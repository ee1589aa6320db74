# What _dice uses of csrc/cython/_steps.pyx.

cdef object untracked(object t)
