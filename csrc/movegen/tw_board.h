/*
 * Board geometry of packed rows: the two numberings, the flip to the other seat, pin bits,
 * occupancy masks, and the validation of a row.
 *
 * A packed row (tawla/layout.py, 56 bytes) is seen from its mover: bytes 0..25 the mover's
 * checkers (0 off, 1..24 points, 25 bar), bytes 26..51 the opponent's checkers indexed by the
 * mover's points (26 off, 51 bar), bytes 52..54 the pin bits (bit p-1: the mover's checker on
 * p is pinned, Mahbusa), byte 55 reserved (0).
 */
#ifndef TW_BOARD_H
#define TW_BOARD_H

#include "tw_params.h"

#if defined(__SSE2__) || defined(_M_X64)
#include <emmintrin.h>
#define TW_HAVE_SSE2 1
#endif

/* Where things go when a row is seen from the other seat. */
typedef struct {
    int same;
    int pins;            /* pin stacks exist (contact == pin) */
    uint8_t me_to[26];   /* index in the flipped row of the mover's checkers on p (0 off, 25 bar) */
    uint8_t opp_to[26];  /* index in the flipped row of the opponent's checkers on mover's p */
    uint8_t q[26];       /* opponent's numbering of mover's point p (1..24) */
} tw_geo;

void tw_geo_init(tw_geo *g, int same, int pins);

/* 0 when the row is a valid position (tawla.rules.validation.validate_row), else a reason code */
int tw_validate(const tw_params *P, const uint8_t *b);
const char *tw_invalid_reason(int code);
/* first invalid row of n (row stride TW_W) and its reason, or -1 */
long tw_validate_rows(const tw_params *P, const uint8_t *rows, long n, int *reason);

/* side 0 (mover) or 1 (opponent) of row b in that side's own numbering, into own[26] */
void tw_own(const tw_geo *g, const uint8_t *b, int side, uint8_t *own);

/* opponent's numbering of a mover's point p in 1..24 (self-inverse, RULES.md 1.1) */
TW_INLINE int tw_opp_point(int p, int same) { return same ? (p + 11) % 24 + 1 : 25 - p; }
/* tw_own of both sides as int[26] each (0 off, 1..24 own points, 25 bar), for the evaluators;
   same: the same-direction geometry */
TW_INLINE void tw_sides(const uint8_t *row, int same, int *me, int *opp) {
    int p, q;
    for (p = 0; p < 26; p++) me[p] = row[p];
    opp[0] = row[26];
    opp[25] = row[51];
    for (q = 1; q <= 24; q++) opp[q] = row[26 + tw_opp_point(q, same)];
}

/* a mask of mover points (bits 1..24) in the opponent's numbering (bits 1..24) */
TW_INLINE uint32_t tw_map_mask(uint32_t m, int same) {
    uint32_t r = 0; int p;
    if (same) return ((m >> 12) & 0x1FFEu) | ((m & 0x1FFEu) << 12);
    for (p = 1; p <= 24; p++) if (m >> p & 1u) r |= 1u << (25 - p);
    return r;
}

static const uint8_t TW_BITREV8[256] = {
#define R2(n) n, n + 2 * 64, n + 1 * 64, n + 3 * 64
#define R4(n) R2(n), R2(n + 2 * 16), R2(n + 1 * 16), R2(n + 3 * 16)
#define R6(n) R4(n), R4(n + 2 * 4), R4(n + 1 * 4), R4(n + 3 * 4)
    R6(0), R6(2), R6(1), R6(3)
#undef R2
#undef R4
#undef R6
};

/* pin bits (24-bit, bit p-1 = point p) in the opponent's numbering */
TW_INLINE uint32_t tw_map_pins(uint32_t bits, int same) {
    if (same) return ((bits >> 12) & 0xFFFu) | ((bits & 0xFFFu) << 12);
    /* opposite: point p -> 25 - p, i.e. bit p-1 -> bit 24-p: reverse 24 bits */
    return ((uint32_t)TW_BITREV8[bits & 0xFF] << 16) | ((uint32_t)TW_BITREV8[(bits >> 8) & 0xFF] << 8)
           | (uint32_t)TW_BITREV8[(bits >> 16) & 0xFF];
}

TW_INLINE uint32_t tw_pinbits(const uint8_t *b) { return (uint32_t)b[52] | (uint32_t)b[53] << 8 | (uint32_t)b[54] << 16; }
TW_INLINE void tw_set_pinbits(uint8_t *b, uint32_t bits) {
    b[52] = (uint8_t)bits; b[53] = (uint8_t)(bits >> 8); b[54] = (uint8_t)(bits >> 16);
}

/* bits p (1..24) where b[base + p] == v (base 0 mover, 26 opponent; v 0 or 1) */
TW_INLINE uint32_t tw_eq_mask24(const uint8_t *b, int base, int v) {
#ifdef TW_HAVE_SSE2
    /* two overlapping 16-byte loads */
    __m128i x = _mm_loadu_si128((const __m128i *)(b + base + 1));
    __m128i y = _mm_loadu_si128((const __m128i *)(b + base + 9));
    __m128i k = _mm_set1_epi8((char)v);
    uint32_t mx = (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(x, k));
    uint32_t my = (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(y, k));
    return ((mx | my << 8) & 0xFFFFFFu) << 1;
#else
    uint32_t m = 0; int p;
    for (p = 1; p <= 24; p++) if (b[base + p] == v) m |= 1u << p;
    return m;
#endif
}

/* mover occupancy: bits 1..25 */
TW_INLINE uint32_t tw_me_mask(const uint8_t *b) {
    return (~tw_eq_mask24(b, 0, 0) & TW_BITS_1_24) | (b[25] ? 1u << 25 : 0u);
}

/* The row seen from the other seat (what tawla.core.geometry.flip_row computes). */
TW_INLINE void tw_flip(const tw_geo *g, const uint8_t *src, uint8_t *dst) {
    uint32_t me = 0, op = 0, bits, pinned_opp;
    int p;
    memset(dst, 0, TW_W);
    dst[0] = src[26]; dst[25] = src[51]; dst[26] = src[0]; dst[51] = src[25];
    if (!g->same) {
        /* q = 25 - p: reverse the 24 bytes of each side */
        uint64_t a = tw_load64(src + 1), b = tw_load64(src + 9), c = tw_load64(src + 17);
        uint64_t x = tw_load64(src + 27), y = tw_load64(src + 35), z = tw_load64(src + 43);
        tw_store64(dst + 27, tw_bswap64(c)); tw_store64(dst + 35, tw_bswap64(b)); tw_store64(dst + 43, tw_bswap64(a));
        tw_store64(dst + 1, tw_bswap64(z)); tw_store64(dst + 9, tw_bswap64(y)); tw_store64(dst + 17, tw_bswap64(x));
    } else {
        /* q = p + 12 (p <= 12), p - 12 (p > 12) */
        memcpy(dst + 13, src + 27, 12); memcpy(dst + 1, src + 39, 12);
        memcpy(dst + 26 + 13, src + 1, 12); memcpy(dst + 26 + 1, src + 13, 12);
    }
    if (!g->pins) return;
    bits = tw_pinbits(src);
    /* pin stacks where the opponent is pinned become the new mover's pins */
    for (p = 1; p <= 24; p++) {
        if (src[p]) me |= 1u << (p - 1);
        if (src[26 + p]) op |= 1u << (p - 1);
    }
    pinned_opp = me & op & ~bits;
    if (pinned_opp) tw_set_pinbits(dst, tw_map_pins(pinned_opp, g->same));
    else { dst[52] = dst[53] = dst[54] = 0; }
}

#endif /* TW_BOARD_H */
