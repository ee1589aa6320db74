# Included by _fast.pyx: what the match engine needs per action besides the searches, dice
# from the match's numpy generator and the notation of a move.

from libc.stdint cimport uint32_t
from libc.stdio cimport snprintf
from libc.string cimport memcpy

cdef extern from "Python.h":
    void PyObject_GC_UnTrack(object o)

from tawla.core.steps import format_steps as _format_steps_py

cdef extern from "numpy/random/bitgen.h":
    ctypedef struct bitgen_t:
        void *state
        uint32_t (*next_uint32)(void *st) nogil


cdef extern from *:
    """
    /* numpy's PCG64 state (numpy/random/src/pcg64/pcg64.h): the 128-bit state and increment,
       and the buffered half of a 64-bit output. Read only for an exact numpy.random.PCG64,
       after the self-check of rng_snapshot_check. */
    typedef struct { uint64_t w[4]; } tw_pcg64_words;
    typedef struct { tw_pcg64_words *pcg_state; int has_uint32; uint32_t uinteger; } tw_pcg64_state;
    """
    ctypedef struct tw_pcg64_words:
        uint64_t w[4]
    ctypedef struct tw_pcg64_state:
        tw_pcg64_words *pcg_state
        int has_uint32
        uint32_t uinteger


from numpy.random import PCG64 as _PCG64

cdef bint _pcg64_raw = 0  # set by rng_snapshot_check once the layout is confirmed


cdef bytes _pcg64_save(bitgen_t *bg):
    cdef tw_pcg64_state *st = <tw_pcg64_state *> bg.state
    cdef unsigned char buf[40]
    memcpy(buf, st.pcg_state, 32)
    memcpy(buf + 32, &st.has_uint32, 4)
    memcpy(buf + 36, &st.uinteger, 4)
    return buf[:40]


cdef void _pcg64_load(bitgen_t *bg, const unsigned char *buf):
    cdef tw_pcg64_state *st = <tw_pcg64_state *> bg.state
    memcpy(st.pcg_state, buf, 32)
    memcpy(&st.has_uint32, buf + 32, 4)
    memcpy(&st.uinteger, buf + 36, 4)


def rng_restore(bit_generator, snapshot):
    """Put back the state saved by :func:`throw_dice_saving` of the same bit generator."""
    cdef bitgen_t *bg
    if type(snapshot) is bytes:
        if not (_pcg64_raw and type(bit_generator) is _PCG64 and len(<bytes> snapshot) == 40):
            raise InvalidArgument("a raw generator snapshot belongs to a numpy.random.PCG64")
        bg = <bitgen_t *> PyCapsule_GetPointer(bit_generator.capsule, "BitGenerator")
        with bit_generator.lock:
            _pcg64_load(bg, <const unsigned char *> (<bytes> snapshot))
    else:
        bit_generator.state = snapshot


def rng_snapshot_check():
    """Confirm that the raw PCG64 snapshot reads numpy's layout: a snapshot taken, outputs
    drawn (the buffered 32-bit half included), the snapshot put back, and the ``state`` dict
    compared with the one before; the raw path is used only if they agree. Returns whether
    it is used."""
    global _pcg64_raw
    cdef bitgen_t *bg
    _pcg64_raw = 0
    g = _PCG64(20260)
    g.random_raw(3)
    bg = <bitgen_t *> PyCapsule_GetPointer(g.capsule, "BitGenerator")
    bg.next_uint32(bg.state)  # leaves half an output buffered
    before = g.state
    raw = _pcg64_save(bg)
    for _ in range(5):
        bg.next_uint32(bg.state)
    _pcg64_load(bg, <const unsigned char *> raw)
    after = g.state
    _pcg64_raw = before == after and before["has_uint32"] == 1
    return bool(_pcg64_raw)


rng_snapshot_check()


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
    with bit_generator.lock:
        return _two_dice(bg)


def throw_dice_saving(bit_generator):
    """:func:`throw_dice`, and the state before the dice for :func:`rng_restore`:
    ``((d1, d2), snapshot)``. The snapshot is 40 bytes copied from an exact
    ``numpy.random.PCG64`` (once :func:`rng_snapshot_check` has confirmed its layout), else
    the generator's ``state`` dict."""
    cdef bitgen_t *bg
    if not (_pcg64_raw and type(bit_generator) is _PCG64):
        saved = bit_generator.state
        return throw_dice(bit_generator), saved
    bg = <bitgen_t *> PyCapsule_GetPointer(bit_generator.capsule, "BitGenerator")
    with bit_generator.lock:
        saved = _pcg64_save(bg)
        return _two_dice(bg), saved


cdef object _two_dice(bitgen_t *bg):
    """Two dice (:func:`_die`) as the shared ``(d1, d2)`` tuple; the caller holds the lock."""
    cdef uint32_t d1 = _die(bg)
    cdef uint32_t d2 = _die(bg)
    return _DICE_PAIRS[(d1 - 1) * 6 + d2 - 1]


cdef object _untracked(object t):
    """``t``, a tuple of ints (or of such tuples), no longer followed by the cycle collector,
    which cannot find a cycle through it (CPython untracks such tuples itself when it first
    scans them)."""
    PyObject_GC_UnTrack(t)
    return t


cdef list _DICE_PAIRS = [_untracked((a, b)) for a in range(1, 7) for b in range(1, 7)]
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


# --- end of a turn --------------------------------------------------------------------------------
def next_turn_row(bytes after, Params params):
    """The row a move reached, seen from the next mover's seat, and whether the game is over.

    Parameters
    ----------
    after : bytes
        A packed row (56 bytes) after a move, the mover's seat; not validated.
    params : Params

    Returns
    -------
    (bytes, bool)
        The flipped row (``tawla.core.geometry.flip_row``) and ``is_over`` of it.
    """
    cdef tw_geo g
    cdef unsigned char out[56]
    if len(after) != 56:
        raise InvalidId("a packed row has 56 bytes")
    tw_geo_init(&g, params.p.same, 1)  # pin bits are carried over whatever the ruleset
    tw_flip(&g, <const uint8_t *> after, out)
    return out[:56], row_over(out, params)


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
                hop = _untracked((a, t, d))
                _HOP_CACHE[key] = hop
        else:
            hop = (a, t, d)
            shared = 0
        out.append(hop)
    res = tuple(out)
    return _untracked(res) if shared else res
