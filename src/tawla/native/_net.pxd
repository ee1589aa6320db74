# What _net_train uses of csrc/cython/_net.pyx: a network's float32 arrays as the C struct.

from tawla_engine cimport tw_net, tw_race_tables


cdef tw_net net_view(const float[:, ::1] w1, const float[::1] b1, const float[:, ::1] w2,
                     const float[::1] b2) except *
cdef int race_attach(tw_race_tables *t, tw_net *view, race_net) except -1
