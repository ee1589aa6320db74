# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Dice from a match's numpy generator in C: two dice exactly as ``Generator.integers(1, 7)``
draws them, and a raw snapshot of numpy's PCG64 state for the match's all-or-nothing rollback.
"""

from libc.stdint cimport uint32_t, uint64_t
from libc.string cimport memcpy
from cpython.pycapsule cimport PyCapsule_GetPointer

from tawla.native._steps cimport untracked

from tawla.errors import InvalidArgument

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


cdef list _DICE_PAIRS = [untracked((a, b)) for a in range(1, 7) for b in range(1, 7)]
