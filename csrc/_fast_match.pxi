# Included by _fast.pyx: what the match engine needs per action besides the searches, dice
# from the match's numpy generator and the notation of a move.

from libc.stdint cimport uint32_t
from libc.stdio cimport snprintf
from libc.string cimport memcpy

from tawla.core.steps import format_steps as _format_steps_py

cdef extern from "numpy/random/bitgen.h":
    ctypedef struct bitgen_t:
        void *state
        uint32_t (*next_uint32)(void *st) nogil


# --- dice -----------------------------------------------------------------------------------------
cdef inline uint32_t _die(bitgen_t *bg) noexcept nogil:
    """One die exactly as numpy's ``Generator.integers(1, 7)`` draws it: Lemire's bounded
    method over the generator's 32-bit outputs, for a range of 6 values."""
    cdef uint64_t m = (<uint64_t> bg.next_uint32(bg.state)) * 6
    cdef uint32_t leftover = <uint32_t> m
    if leftover < 6:
        while leftover < 4:  # (2**32 - 1 - 5) % 6, the rejection threshold
            m = (<uint64_t> bg.next_uint32(bg.state)) * 6
            leftover = <uint32_t> m
    return 1 + <uint32_t> (m >> 32)


def throw_dice(bit_generator):
    """Two dice from a numpy bit generator: the values, and the generator's state after
    them, of ``(int(g.integers(1, 7)), int(g.integers(1, 7)))`` for a ``numpy.random.Generator``
    ``g`` over ``bit_generator``.

    Returns
    -------
    (int, int)
    """
    cdef bitgen_t *bg = <bitgen_t *> PyCapsule_GetPointer(bit_generator.capsule, "BitGenerator")
    cdef uint32_t d1, d2
    with bit_generator.lock:
        d1 = _die(bg)
        d2 = _die(bg)
    return d1, d2


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
    cdef int npath = 0, i, j, k, p, t, a, b
    if not isinstance(steps, (tuple, list)):
        steps = tuple(steps)
    if len(steps) > 8:
        return _format_steps_py(steps)
    for s in steps:
        p, t = s[0], s[1]
        if not (0 <= p <= 25 and 0 <= t <= 25):
            return _format_steps_py(steps)
        for k in range(npath):  # one checker's consecutive steps join its path
            if pts[k][npts[k] - 1] == p and p != 0:
                pts[k][npts[k]] = t
                npts[k] += 1
                if s[3]:
                    hits[k] |= (<uint32_t> 1) << t
                break
        else:
            pts[npath][0] = p
            pts[npath][1] = t
            npts[npath] = 2
            hits[npath] = ((<uint32_t> 1) << t) if s[3] else 0
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
