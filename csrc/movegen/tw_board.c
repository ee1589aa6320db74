/*
 * Board geometry tables, one side in its own numbering, and the validation of packed rows
 * (the checks of tawla.rules.validation.validate_row, once per row of a batch).
 */
#include "tw_board.h"

void tw_geo_init(tw_geo *g, int same, int pins) {
    int p;
    g->same = same;
    g->pins = pins;
    for (p = 0; p < 26; p++) {
        int q = (p >= 1 && p <= 24) ? tw_opp_point(p, same) : p;
        g->q[p] = (uint8_t)q;
        g->me_to[p] = (uint8_t)(p == 0 ? 26 : p == 25 ? 51 : 26 + q);
        g->opp_to[p] = (uint8_t)(p == 0 ? 0 : p == 25 ? 25 : q);
    }
}

void tw_own(const tw_geo *g, const uint8_t *b, int side, uint8_t *own) {
    int p;
    if (side == 0) { memcpy(own, b, 26); return; }
    own[0] = b[26]; own[25] = b[51];
    for (p = 1; p <= 24; p++) own[g->q[p]] = b[26 + p];
}

int tw_validate(const tw_params *P, const uint8_t *b) {
    int s0 = 0, s1 = 0, p;
    uint32_t bits = tw_pinbits(b) << 1, me, op, both;
#ifdef TW_HAVE_SSE2
    {
        /* byte sums with psadbw: mover = bytes 0..25, opponent = bytes 26..51 */
        const __m128i z = _mm_setzero_si128();
        __m128i v0 = _mm_loadu_si128((const __m128i *)b), v1 = _mm_loadu_si128((const __m128i *)(b + 16));
        __m128i v2 = _mm_loadu_si128((const __m128i *)(b + 32)), v3 = _mm_loadu_si128((const __m128i *)(b + 40));
        const __m128i lo10 = _mm_set_epi8(0, 0, 0, 0, 0, 0, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1);
        const __m128i mid4 = _mm_set_epi8(0, 0, 0, 0, -1, -1, -1, -1, 0, 0, 0, 0, 0, 0, 0, 0);
        __m128i a = _mm_add_epi64(_mm_sad_epu8(v0, z), _mm_sad_epu8(_mm_and_si128(v1, lo10), z));
        __m128i c = _mm_add_epi64(_mm_sad_epu8(_mm_andnot_si128(lo10, v1), z), _mm_sad_epu8(v2, z));
        c = _mm_add_epi64(c, _mm_sad_epu8(_mm_and_si128(v3, mid4), z));
        s0 = _mm_cvtsi128_si32(a) + _mm_cvtsi128_si32(_mm_unpackhi_epi64(a, a));
        s1 = _mm_cvtsi128_si32(c) + _mm_cvtsi128_si32(_mm_unpackhi_epi64(c, c));
    }
#else
    for (p = 0; p < 26; p++) { s0 += b[p]; s1 += b[26 + p]; }
#endif
    if (s0 != 15) return 1;
    if (s1 != 15) return 2;
    if (b[55]) return 3;
    if (!P->has_bar && (b[25] || b[51])) return 4;
    if (b[0] == 15 && b[26] == 15) return 5;
    me = ~tw_eq_mask24(b, 0, 0) & TW_BITS_1_24;
    op = ~tw_eq_mask24(b, 26, 0) & TW_BITS_1_24;
    both = me & op;
    if (bits & ~both) return 6;
    if (!both) return 0;
    if (P->contact != TW_PIN) return 7;
    while (both) {
        p = tw_hibit(both);
        both &= ~(1u << p);
        if (((bits >> p & 1u) ? b[p] : b[26 + p]) != 1) return 8;
    }
    return 0;
}

long tw_validate_rows(const tw_params *P, const uint8_t *rows, long n, int *reason) {
    long i;
    for (i = 0; i < n; i++) {
        int r = tw_validate(P, rows + (size_t)i * TW_W);
        if (r) { *reason = r; return i; }
    }
    return -1;
}

const char *tw_invalid_reason(int code) {
    switch (code) {
    case 1: return "the side on roll does not have 15 checkers";
    case 2: return "the opponent does not have 15 checkers";
    case 3: return "reserved byte 55 is not zero";
    case 4: return "checkers on the bar in a ruleset without a bar";
    case 5: return "both sides have borne off all their checkers";
    case 6: return "a pin bit marks a point that is not a pin stack";
    case 7: return "a point holds checkers of both sides";
    case 8: return "a pin stack does not have exactly one pinned checker";
    }
    return "invalid position";
}
