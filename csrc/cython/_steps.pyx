# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Steps in C: a move's text (:func:`format_steps`) and the tuples a match's event log keeps
(:func:`step_tuples`).
"""

from libc.stdint cimport uint32_t
from libc.stdio cimport snprintf
from libc.string cimport memcpy

cdef extern from "Python.h":
    void PyObject_GC_UnTrack(object o)

from tawla.core.steps import format_steps as _format_steps_py


cdef object untracked(object t):
    """``t``, a tuple of ints (or of such tuples), no longer followed by the cycle collector,
    which cannot find a cycle through it (CPython untracks such tuples itself when it first
    scans them)."""
    PyObject_GC_UnTrack(t)
    return t


cdef list _HOP_CACHE = [None] * (26 * 26 * 7)


# --- move text ------------------------------------------------------------------------------------
def format_steps(steps):
    """:func:`tawla.core.steps.format_steps` (the same text), compiled for up to 8 steps.

    Parameters
    ----------
    steps : sequence of Step
        Single steps in play order, each with its own hit flag.

    Returns
    -------
    str
    """
    cdef int pts[8][9]
    cdef int npts[8]
    cdef uint32_t hits[8]
    cdef int order[8]
    cdef int npath = 0, i, j, k, p, t, a, b, hit
    cdef tuple st
    if not isinstance(steps, (tuple, list)):
        steps = tuple(steps)
    if len(steps) > 8:
        return _format_steps_py(steps)
    for s in steps:
        if not isinstance(s, tuple) or len(<tuple> s) != 4:
            return _format_steps_py(steps)
        st = <tuple> s  # a Step: indexed as a tuple (a subclass's generic item lookup is slow)
        p, t, hit = st[0], st[1], st[3]
        if not (0 <= p <= 25 and 0 <= t <= 25):
            return _format_steps_py(steps)
        for k in range(npath):  # one checker's consecutive steps join its path
            if pts[k][npts[k] - 1] == p and p != 0:
                pts[k][npts[k]] = t
                npts[k] += 1
                if hit:
                    hits[k] |= (<uint32_t> 1) << t
                break
        else:
            pts[npath][0] = p
            pts[npath][1] = t
            npts[npath] = 2
            hits[npath] = ((<uint32_t> 1) << t) if hit else 0
            npath += 1
    # kept points: the start, each intermediate point hit, the end
    for k in range(npath):
        j = 1
        for i in range(1, npts[k] - 1):
            if hits[k] >> pts[k][i] & 1:
                pts[k][j] = pts[k][i]
                j += 1
        pts[k][j] = pts[k][npts[k] - 1]
        npts[k] = j + 1
    # highest start first, then highest end (stable)
    for k in range(npath):
        order[k] = k
        i = k
        while i > 0:
            a, b = order[i - 1], order[i]
            if pts[a][0] > pts[b][0] or (pts[a][0] == pts[b][0] and pts[a][npts[a] - 1] >= pts[b][npts[b] - 1]):
                break
            order[i - 1], order[i] = b, a
            i -= 1
    # identical paths counted; the one shown is the first with a hit; written into one buffer
    cdef char buf[512]
    cdef int pos = 0, last = -1, shown = -1, count = 0, same, star, starred = 0
    for i in range(npath + 1):
        k = order[i] if i < npath else -1
        if k >= 0:
            star = 0
            for j in range(1, npts[k]):
                if hits[k] >> pts[k][j] & 1:
                    star = 1
                    break
            same = last >= 0 and npts[k] == npts[last]
            if same:
                for j in range(npts[k]):
                    if pts[k][j] != pts[last][j]:
                        same = 0
                        break
            if same:
                count += 1
                if star and not starred:
                    shown, starred = k, 1
                continue
        if shown >= 0:  # write the finished group
            if pos:
                buf[pos] = 32  # " "
                pos += 1
            pos = _write_path(buf, pos, pts[shown], npts[shown], hits[shown])
            if count > 1:
                pos += snprintf(buf + pos, 16, "(%d)", count)
        if k >= 0:
            last, shown, count, starred = k, k, 1, star
    return buf[:pos].decode("ascii")


cdef int _write_path(char *buf, int pos, const int *pts, int n, uint32_t hits) noexcept:
    """Write one path (``13/7*/4``) at buf[pos]; returns the new end (at most 45 characters)."""
    cdef int i, p
    for i in range(n):
        p = pts[i]
        if i:
            buf[pos] = 47  # "/"
            pos += 1
        if p == 25:
            memcpy(buf + pos, b"bar", 3)
            pos += 3
        elif p == 0:
            memcpy(buf + pos, b"off", 3)
            pos += 3
        else:
            if p >= 10:
                buf[pos] = 48 + p // 10
                pos += 1
            buf[pos] = 48 + p % 10
            pos += 1
        if i and hits >> p & 1:
            buf[pos] = 42  # "*"
            pos += 1
    return pos


def step_tuples(steps):
    """``((from_point, to_point, die), ...)`` of a sequence of single :class:`tawla.Step`, as
    a match's event log keeps a move's steps: tuples of ints that the cycle collector does
    not follow, one shared tuple per distinct hop."""
    cdef bint shared = 1
    cdef int key
    out = []
    for s in steps:
        st = <tuple> s if isinstance(s, tuple) else tuple(s)
        a, t, d = st[0], st[1], st[2]
        if (type(a) is int and type(t) is int and type(d) is int
                and 0 <= a <= 25 and 0 <= t <= 25 and 1 <= d <= 6):
            key = (<int> a * 26 + <int> t) * 7 + <int> d
            hop = _HOP_CACHE[key]
            if hop is None:
                hop = untracked((a, t, d))
                _HOP_CACHE[key] = hop
        else:
            hop = (a, t, d)
            shared = 0
        out.append(hop)
    res = tuple(out)
    return untracked(res) if shared else res
