/*
 * tawla fast engine: the C core behind tawla._fast (csrc/_fast.pyx).
 *
 * One move generator for every ruleset, parameterised by the ruleset's fields
 * (tw_params): contact rule (hit / pin / block), bar, geometry, start lock, extra
 * bear-off conditions, quadrant lock, wall rule, plakoto mother rule. Single steps are
 * those of the reference engine (src/tawla/reference/engine.py, RULES.md section 8): the
 * same steps in the same order (dice high to low, from-points high to low), the same
 * post-step checks, the same maximum-dice rule (section 1.4).
 *
 * Representation
 * --------------
 * A state is the packed 56-byte row of tawla/layout.py (mover's seat) plus
 *   mm      : bit p set when the mover has a checker on point p (1..24) or the bar (25);
 *   k0, k1  : (hashed search only) an exact 128-bit key of the state *within one turn*.
 *             Only the mover's checkers and the opponent blots he hits change during a
 *             turn, so k0 = 4-bit counts of points 1..16, k1 = counts of points 17..25
 *             (bits 0..35) | hit mask of points 1..24 (bits 36..59) | "dice left" code.
 * Legal steps for a die are computed as bit masks (tw_candidates / tw_legal_mask).
 *
 * Three searches produce the children of a (row, roll):
 *   tw_nd_fast    non-doubles, every ruleset: both dice orders, duplicates recognised from
 *                 the legal-step masks (no hashing);
 *   tw_dbl_fast   doubles where the rules allow it for this row: non-increasing from-points,
 *                 every final position exactly once (no hashing);
 *   tw_dfs_expand the reference's search with a generation-stamped open-addressing hash set
 *                 of (state, dice left) keys; used for the other doubles, and for every row
 *                 where no move uses all the dice (short moves, the high-die rule, passes,
 *                 frozen positions).
 * tw_sequences is the reference's search step for step (canonical steps of legal_moves).
 * Children are written flipped (next player's seat) by patching the parent's flipped row.
 *
 * Everything here is plain C, uses no Python API and is called without the GIL.
 */
#ifndef TAWLA_FAST_H
#define TAWLA_FAST_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1  /* mremap */
#endif

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#if defined(__linux__)
#include <sys/mman.h>
#define TW_HAVE_MMAP 1
#endif

#define TW_W 56
#define TW_HIT 0
#define TW_PIN 1
#define TW_BLOCK 2

#define TW_SCORE_CUBE 0
#define TW_SCORE_MARS 1
#define TW_SCORE_CHECKERS_LEFT 2

/* result kinds (tawla.playout.KINDS) */
#define TW_K_SINGLE 0
#define TW_K_GAMMON 1
#define TW_K_BACKGAMMON 2
#define TW_K_QUADRANT 3
#define TW_K_MOTHER 4
#define TW_K_DRAW 5
#define TW_K_UNFINISHED 6

/* ------------------------------------------------------------------------------------------ */
/* The ruleset as data (built by tawla.engine._params from a Ruleset).                         */
typedef struct {
    int contact;              /* TW_HIT, TW_PIN or TW_BLOCK (RULES.md 2.1, 4.2, 5.2) */
    int has_bar;              /* hitting games: a bar exists */
    int same;                 /* geometry: 1 = same direction (T31S), 0 = opposite */
    int start_lock;           /* 0, or the runner lock's release zone 1..start_lock (5.3, 6.3) */
    int bearoff_no_pinned;    /* 4.3 */
    int bearoff_no_opp_home;  /* 5.5 */
    int quadrant_lock_win;    /* 5.6 */
    int wall_rule;            /* 6.5 */
    int mother_plakoto;       /* 4.4 option */
    int can_freeze;           /* 1.7: frozen positions are draws (no-hit games) */
    int scoring;              /* TW_SCORE_* (1.8) */
    int bar_bg_double;        /* 2.2 option D14 */
    int opening_reroll;       /* 1.6 */
    uint8_t start[26];        /* starting checkers per own point (1.2) */
} tw_params;

/* ------------------------------------------------------------------------------------------ */
/* Small helpers                                                                               */

#if defined(__GNUC__) || defined(__clang__)
#define TW_INLINE static inline __attribute__((always_inline))
#define TW_LIKELY(x) __builtin_expect(!!(x), 1)
#define TW_UNLIKELY(x) __builtin_expect(!!(x), 0)
TW_INLINE int tw_hibit(uint32_t x) { return 31 - __builtin_clz(x); }
TW_INLINE uint64_t tw_bswap64(uint64_t x) { return __builtin_bswap64(x); }
#else
#define TW_INLINE static inline
#define TW_LIKELY(x) (x)
#define TW_UNLIKELY(x) (x)
TW_INLINE int tw_hibit(uint32_t x) { int i = 31; while (!(x >> i)) i--; return i; }
TW_INLINE uint64_t tw_bswap64(uint64_t x) {
    uint64_t r = 0; int i;
    for (i = 0; i < 8; i++) { r = (r << 8) | (x & 0xFF); x >>= 8; }
    return r;
}
#endif

TW_INLINE uint64_t tw_load64(const uint8_t *p) { uint64_t x; memcpy(&x, p, 8); return x; }
TW_INLINE void tw_store64(uint8_t *p, uint64_t x) { memcpy(p, &x, 8); }

/* opponent's numbering of a mover's point p in 1..24 (self-inverse, 1.1) */
TW_INLINE int tw_opp_point(int p, int same) { return same ? (p + 11) % 24 + 1 : 25 - p; }

#define TW_BITS_1_24 0x1FFFFFEu  /* bits 1..24 */
#define TW_BITS_7_25 0x3FFFF80u  /* bits 7..25 */
#define TW_BITS_19_24 0x1F80000u /* bits 19..24 */

/* nibble deltas of the key, per point 0..25 (0 = off, not in the key) */
static uint64_t TW_NIB0[26], TW_NIB1[26], TW_HITB[26];
static int tw_tables_ready = 0;

static void tw_init_tables(void) {
    int p;
    if (tw_tables_ready) return;
    for (p = 0; p < 26; p++) {
        TW_NIB0[p] = (p >= 1 && p <= 16) ? (uint64_t)1 << (4 * (p - 1)) : 0;
        TW_NIB1[p] = (p >= 17 && p <= 25) ? (uint64_t)1 << (4 * (p - 17)) : 0;
        TW_HITB[p] = (p >= 1 && p <= 24) ? (uint64_t)1 << (36 + p - 1) : 0;
    }
    tw_tables_ready = 1;
}

/* ------------------------------------------------------------------------------------------ */
/* Big output buffers. On Linux: anonymous mappings with transparent huge pages (a batch of   */
/* a million children is tens of MB; 4 KiB page faults would cost more than generating them),  */
/* grown and shrunk by mremap without copying. Elsewhere: malloc/realloc.                      */
static void *tw_big_resize(void *p, size_t old, size_t n) {
#ifdef TW_HAVE_MMAP
    void *q;
    if (n == 0) n = 64;
    if (!p) {
        q = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    } else {
        if (old == n) return p;
        q = mremap(p, old, n, MREMAP_MAYMOVE);
    }
    if (q == MAP_FAILED) return NULL;
    return q;
#else
    (void)old;
    return realloc(p, n ? n : 64);
#endif
}
static void tw_big_free(void *p, size_t bytes) {
    if (!p) return;
#ifdef TW_HAVE_MMAP
    munmap(p, bytes ? bytes : 64);
#else
    (void)bytes;
    free(p);
#endif
}

/* ------------------------------------------------------------------------------------------ */
/* Geometry: where things go when a row is seen from the other seat.                          */
typedef struct {
    int same;
    int pins;            /* pin stacks exist (contact == pin) */
    uint8_t me_to[26];   /* index in the flipped row of the mover's checkers on p (0 off, 25 bar) */
    uint8_t opp_to[26];  /* index in the flipped row of the opponent's checkers on mover's p */
    uint8_t q[26];       /* opponent's numbering of mover's point p (1..24) */
} tw_geo;

static void tw_geo_init(tw_geo *g, int same, int pins) {
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

/* map a mask of mover points (bits 1..24) to the opponent's numbering (bits 1..24) */
static uint32_t tw_map_mask_slow(uint32_t m, int same) {
    uint32_t r = 0; int p;
    for (p = 1; p <= 24; p++) if (m >> p & 1u) r |= 1u << tw_opp_point(p, same);
    return r;
}
TW_INLINE uint32_t tw_map_mask(uint32_t m, int same) {
    if (same) return ((m >> 12) & 0x1FFEu) | ((m & 0x1FFEu) << 12);
    return tw_map_mask_slow(m, same);
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

/* pin bits (24-bit, bit p-1 = point p) mapped to the opponent's numbering */
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

/* mask of points 1..25 (bits) where side block `base` (0 = mover, 26 = opponent) has checkers */
static uint32_t tw_occ(const uint8_t *b, int base) {
    uint32_t m = 0; int p;
    for (p = 1; p <= 25; p++) if (b[base + p]) m |= 1u << p;
    return m;
}

#if defined(__SSE2__) || defined(_M_X64)
#include <emmintrin.h>
/* bits p (1..24) where b[base + p] == v (v = 0 or 1), from two overlapping 16-byte loads */
TW_INLINE uint32_t tw_eq_mask24(const uint8_t *b, int base, int v) {
    __m128i x = _mm_loadu_si128((const __m128i *)(b + base + 1));
    __m128i y = _mm_loadu_si128((const __m128i *)(b + base + 9));
    __m128i k = _mm_set1_epi8((char)v);
    uint32_t mx = (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(x, k));
    uint32_t my = (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(y, k));
    return ((mx | my << 8) & 0xFFFFFFu) << 1;
}
#else
TW_INLINE uint32_t tw_eq_mask24(const uint8_t *b, int base, int v) {
    uint32_t m = 0; int p;
    for (p = 1; p <= 24; p++) if (b[base + p] == v) m |= 1u << p;
    return m;
}
#endif
/* mover occupancy: bits 1..25 */
TW_INLINE uint32_t tw_me_mask(const uint8_t *b) {
    return (~tw_eq_mask24(b, 0, 0) & TW_BITS_1_24) | (b[25] ? 1u << 25 : 0u);
}

/* The row seen from the other seat (the codec's flip, tawla/_codec.pyx). */
static void tw_flip(const tw_geo *g, const uint8_t *src, uint8_t *dst) {
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

/* ------------------------------------------------------------------------------------------ */
/* Validation (tawla.position._validate), once per row of a batch.                             */
/* Returns 0 when valid, else a reason code (see tw_invalid_reason).                           */
static int tw_validate(const tw_params *P, const uint8_t *b) {
    int s0 = 0, s1 = 0, p;
    uint32_t bits = tw_pinbits(b) << 1, me, op, both;
#if defined(__SSE2__) || defined(_M_X64)
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

static const char *tw_invalid_reason(int code) {
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

/* ------------------------------------------------------------------------------------------ */
/* The hash set of 128-bit keys (open addressing, linear probing, generation stamps).         */
typedef struct { uint64_t k0, k1; uint32_t gen, pad; } tw_slot;
typedef struct {
    tw_slot *slots;
    uint32_t cap, mask, count, gen;
    int shift;
    int oom;
} tw_set;

static int tw_set_init(tw_set *h, int logcap) {
    h->cap = 1u << logcap; h->mask = h->cap - 1; h->shift = 64 - logcap;
    h->count = 0; h->gen = 1; h->oom = 0;
    h->slots = (tw_slot *)calloc(h->cap, sizeof(tw_slot));
    return h->slots != NULL;
}
static void tw_set_free(tw_set *h) { free(h->slots); h->slots = NULL; }

TW_INLINE uint32_t tw_hash(const tw_set *h, uint64_t k0, uint64_t k1) {
    uint64_t x = k0 * 0x9E3779B97F4A7C15ULL ^ (k1 + (k1 >> 29)) * 0xC2B2AE3D27D4EB4FULL;
    x ^= x >> 32;
    x *= 0xD6E8FEB86659FD93ULL;
    return (uint32_t)(x >> h->shift);
}

static void tw_set_clear(tw_set *h) {
    h->count = 0;
    if (++h->gen == 0) {  /* wrapped: really clear */
        memset(h->slots, 0, (size_t)h->cap * sizeof(tw_slot));
        h->gen = 1;
    }
}

static void tw_set_grow(tw_set *h) {
    tw_slot *old = h->slots;
    uint32_t oldcap = h->cap, i, gen = h->gen;
    tw_slot *ns = (tw_slot *)calloc((size_t)oldcap * 2, sizeof(tw_slot));
    if (!ns) { h->oom = 1; return; }
    h->slots = ns; h->cap = oldcap * 2; h->mask = h->cap - 1; h->shift -= 1;
    /* keep gen: new slots are 0, i.e. empty while gen != 0 */
    for (i = 0; i < oldcap; i++) {
        if (old[i].gen == gen) {
            uint32_t j = tw_hash(h, old[i].k0, old[i].k1);
            while (ns[j].gen == gen) j = (j + 1) & h->mask;
            ns[j] = old[i];
        }
    }
    free(old);
}

/* 1 when (k0, k1) was not in the set (and is now), else 0 */
TW_INLINE int tw_set_insert(tw_set *h, uint64_t k0, uint64_t k1) {
    uint32_t i = tw_hash(h, k0, k1);
    for (;;) {
        tw_slot *e = &h->slots[i];
        if (e->gen != h->gen) {
            e->k0 = k0; e->k1 = k1; e->gen = h->gen;
            if (TW_UNLIKELY(++h->count * 2 > h->cap)) tw_set_grow(h);
            return 1;
        }
        if (e->k0 == k0 && e->k1 == k1) return 0;
        i = (i + 1) & h->mask;
    }
}

/* ------------------------------------------------------------------------------------------ */
/* State and per-row context                                                                   */
typedef struct {
    uint8_t b[64];   /* the packed row (bytes 56..63 zero) */
    uint32_t mm;     /* mover occupancy, bits 1..25 */
    uint32_t pad;
    uint64_t k0, k1; /* exact key within the turn (without the dice-left code) */
} tw_state;

typedef struct {
    uint32_t land;       /* HIT/BLOCK: landable points (bits 1..24), fixed during the turn */
    uint32_t opp_zero;   /* PIN: points without opponent checkers */
    uint32_t opp_one;    /* PIN: points with exactly one opponent checker */
    uint32_t pinned_me;  /* points (bits 1..24) where the mover's checker is pinned */
    uint32_t wall_bad;   /* wall rule: window starts (bit q-1) that would make an illegal wall */
    int bear_extra;      /* 4.3: no pinned checker of the mover (fixed during the turn) */
    int wall_ok_always;  /* opponent has borne off: every wall is legal */
    int wall_live;       /* an illegal wall can arise within 4 steps from this row */
    int x24;             /* opponent's own point 24 in the mover's numbering */
} tw_rowinfo;

typedef struct { uint8_t p, t, d, hit; } tw_step;

/* a recorded sequence (legal_sequences mode) or a short leaf (expand mode) */
typedef struct {
    uint8_t row[TW_W];
    uint8_t nsteps, ended, first_die, pad;
    tw_step steps[4];
} tw_rec;

typedef struct {
    const tw_params *P;
    tw_geo geo;
    tw_rowinfo ri;
    int dv[2];        /* distinct dice, high first (dv[1] = 0 for a double) */
    int ndice;        /* 2 or 4 */
    tw_set set;
    /* expand output: children rows (flipped), appended */
    uint8_t *out; size_t nout, capout, outbytes;
    int oom;
    int full;         /* a full-length (or game-ending) sequence was found for this row/roll */
    int canon;        /* the hash-free paths are exact for these rules (tw_canon_ok) */
    const uint8_t *root_row;  /* the row being expanded */
    /* records: legal_sequences mode (all leaves) or expand mode (short leaves) */
    tw_rec *rec; size_t nrec, caprec;
    int short_best;
    tw_step path[4];
} tw_ctx;

static int tw_canon_ok(const tw_params *P);

static int tw_ctx_init(tw_ctx *c, const tw_params *P) {
    tw_init_tables();
    memset(c, 0, sizeof(*c));
    c->P = P;
    tw_geo_init(&c->geo, P->same, P->contact == TW_PIN);
    c->canon = tw_canon_ok(P);
    if (!tw_set_init(&c->set, 10)) return 0;
    return 1;
}
static void tw_ctx_free(tw_ctx *c) {
    tw_set_free(&c->set);
    free(c->rec); c->rec = NULL;
    /* c->out is owned by the caller (tw_out_shrink / tw_out_free) */
}

/* the state of a row (the key is computed by tw_state_key when the hashed search needs it) */
static void tw_state_from_row(tw_state *s, const uint8_t *row) {
    memcpy(s->b, row, TW_W);
    memset(s->b + TW_W, 0, 64 - TW_W);
    s->mm = tw_me_mask(row);
    s->pad = 0;
    s->k0 = s->k1 = 0;
}

TW_INLINE int tw_popcount(uint32_t x) {
#if defined(__GNUC__) || defined(__clang__)
    return __builtin_popcount(x);
#else
    int n = 0; while (x) { x &= x - 1; n++; } return n;
#endif
}

/* 6.5: can an illegal wall arise within `steps` steps? (conservative: a window of six of the
   opponent's points starting at or below his lowest checker, none of them held by him, with at
   most `steps` of them not yet held by the mover) */
static int tw_wall_possible(const tw_params *P, const tw_rowinfo *ri, uint32_t mm, uint32_t opp_occ, int steps) {
    uint32_t o = tw_map_mask(mm & TW_BITS_1_24, P->same) >> 1;   /* bit q-1 */
    uint32_t oq = tw_map_mask(opp_occ & TW_BITS_1_24, P->same) >> 1;
    int st;
    for (st = 0; st + 6 <= 24; st++) {
        uint32_t w = 0x3Fu << st;
        if (!(ri->wall_bad >> st & 1u)) continue;
        if (w & oq) continue;
        if (tw_popcount(w & ~o) <= steps) return 1;
    }
    return 0;
}

static void tw_rowinfo_init(const tw_params *P, tw_rowinfo *ri, const uint8_t *b) {
    uint32_t opp_occ = ~tw_eq_mask24(b, 26, 0) & TW_BITS_1_24;
    uint32_t opp_one = tw_eq_mask24(b, 26, 1);
    uint32_t opp_ge2 = opp_occ & ~opp_one;
    uint32_t opp_q = P->wall_rule ? tw_map_mask(opp_occ, P->same) : 0;
    ri->pinned_me = tw_pinbits(b) << 1;
    ri->opp_zero = ~opp_occ & TW_BITS_1_24;
    ri->opp_one = opp_one;
    if (P->contact == TW_HIT) ri->land = ~opp_ge2 & TW_BITS_1_24;
    else if (P->contact == TW_BLOCK) ri->land = ~opp_occ & TW_BITS_1_24;
    else ri->land = 0;
    ri->bear_extra = 1;
    if (P->bearoff_no_pinned && ri->pinned_me) ri->bear_extra = 0;
    ri->x24 = tw_opp_point(24, P->same);
    /* wall rule, 6.5: a wall starting at opponent point b is illegal unless an opponent
       checker stands on a point q < b, or the opponent has borne off */
    ri->wall_ok_always = b[26] > 0;
    if (P->wall_rule) {
        int lowest = 25;
        if (opp_q) { int q = 1; while (!(opp_q >> q & 1u)) q++; lowest = q; }
        /* window starts q = 1..lowest are illegal: bits 0..lowest-1 */
        ri->wall_bad = lowest >= 24 ? 0xFFFFFFu : ((1u << lowest) - 1u);
        ri->wall_live = !ri->wall_ok_always && tw_wall_possible(P, ri, tw_me_mask(b), opp_occ, 4);
    } else {
        ri->wall_bad = 0;
        ri->wall_live = 0;
    }
}

/* wall rule on the mover occupancy mm after a step: 1 = fine */
TW_INLINE int tw_walls_ok(const tw_ctx *c, uint32_t mm) {
    uint32_t o, m6;
    if (!c->ri.wall_live) return 1;
    o = tw_map_mask(mm & TW_BITS_1_24, c->P->same) >> 1;  /* bit q-1 */
    m6 = o & (o >> 1) & (o >> 2) & (o >> 3) & (o >> 4) & (o >> 5);
    return (m6 & c->ri.wall_bad) == 0;
}

/* The from-points (bits) that have a legal single step with die d (RULES.md 8). */
TW_INLINE uint32_t tw_candidates(const tw_ctx *c, const tw_state *s, int d) {
    const tw_params *P = c->P;
    uint32_t src, land, res;
    if (s->b[25]) {
        src = 1u << 25;  /* 2.1: enter from the bar first */
    } else {
        src = s->mm & TW_BITS_1_24 & ~c->ri.pinned_me;
        if (P->start_lock && s->b[0] == 0 && !(s->mm & ((2u << P->start_lock) - 2u)) && s->b[24] < 15)
            src &= ~(1u << 24);  /* 5.3 / 6.3 runner lock */
    }
    if (P->contact == TW_PIN)
        land = (c->ri.opp_zero | (s->mm & ~c->ri.pinned_me) | (c->ri.opp_one & ~s->mm)) & TW_BITS_1_24;
    else
        land = c->ri.land;
    res = src & (land << d);
    /* 1.5 bearing off */
    if (!(s->mm & TW_BITS_7_25) && c->ri.bear_extra && s->mm
        && !(P->bearoff_no_opp_home && (tw_load64(s->b + 26) & 0x00FFFFFFFFFFFF00ULL))) {
        int h = tw_hibit(s->mm);
        if (h >= d) res |= src & (1u << d);  /* exact */
        else res |= src & (1u << h);         /* the highest checker, die larger */
    }
    return res;
}

/* Apply the step from p with die d to s, into n. Returns the hit flag (hit or pin). */
TW_INLINE int tw_apply(const tw_ctx *c, const tw_state *s, tw_state *n, int p, int t) {
    int hit = 0;
    *n = *s;
    if (--n->b[p] == 0) n->mm &= ~(1u << p);
    n->k0 -= TW_NIB0[p]; n->k1 -= TW_NIB1[p];
    if (t <= 0) {
        n->b[0]++;
    } else {
        if (c->P->contact != TW_BLOCK && n->b[26 + t] == 1 && n->b[t] == 0) {
            hit = 1;
            if (c->P->contact == TW_HIT) { n->b[26 + t] = 0; n->b[51]++; n->k1 |= TW_HITB[t]; }
        }
        n->b[t]++; n->mm |= 1u << t;
        n->k0 += TW_NIB0[t]; n->k1 += TW_NIB1[t];
    }
    return hit;
}

/* Did the step just made end the game (15th off, 5.6 quadrant lock, 4.4 mother rule)? */
TW_INLINE int tw_ended(const tw_ctx *c, const tw_state *n) {
    const tw_params *P = c->P;
    if (n->b[0] == 15) return 1;
    if (P->quadrant_lock_win && (n->mm & TW_BITS_19_24) == TW_BITS_19_24) return 1;
    if (P->mother_plakoto) {
        int x = c->ri.x24;
        int mp_x = n->b[26 + x] == 1 && n->b[x] > 0 && !(c->ri.pinned_me >> x & 1u);
        int mp_y = n->b[24] == 1 && (c->ri.pinned_me >> 24 & 1u);
        if (mp_x && (mp_y || n->b[24] == 0)) return 1;
    }
    return 0;
}

/* ------------------------------------------------------------------------------------------ */
/* Output (expand mode)                                                                        */
/* The children buffer: c->out (c->outbytes bytes mapped, c->capout rows usable; 64 bytes of */
/* slack for 64-byte stores). */
static int tw_out_grow(tw_ctx *c, size_t need) {
    size_t cap = c->capout ? c->capout : 4096, nbytes;
    uint8_t *nb;
    while (cap < need) cap *= 2;
    nbytes = cap * TW_W + 64;
    nb = (uint8_t *)tw_big_resize(c->out, c->outbytes, nbytes);
    if (!nb) { c->oom = 1; return 0; }
    c->out = nb; c->capout = cap; c->outbytes = nbytes;
    return 1;
}
TW_INLINE int tw_out_reserve(tw_ctx *c, size_t more) {
    if (TW_LIKELY(c->nout + more <= c->capout)) return 1;
    return tw_out_grow(c, c->nout + more);
}
/* make room for `rows` rows in all */
static int tw_out_reserve_total(tw_ctx *c, size_t rows) {
    return rows <= c->capout ? 1 : tw_out_grow(c, rows);
}
/* adopt a buffer of nbytes (e.g. from a cache) as the children buffer */
static void tw_out_adopt(tw_ctx *c, void *p, size_t nbytes) {
    c->out = (uint8_t *)p; c->outbytes = nbytes;
    c->capout = nbytes >= 64 + TW_W ? (nbytes - 64) / TW_W : 0;
}
/* give back most of a buffer that is mostly unused (keeps a result from pinning a big one) */
static void tw_out_trim(tw_ctx *c) {
    size_t need = c->nout * TW_W + 64;
    uint8_t *nb;
    if (!c->out || c->outbytes < ((size_t)1 << 20) || c->outbytes / 4 < need) return;
    nb = (uint8_t *)tw_big_resize(c->out, c->outbytes, 2 * need);
    if (!nb) return;
    c->out = nb; c->outbytes = 2 * need; c->capout = (2 * need - 64) / TW_W;
}
static void tw_out_free(tw_ctx *c) {
    tw_big_free(c->out, c->outbytes);
    c->out = NULL; c->capout = 0; c->nout = 0; c->outbytes = 0;
}

/* growable int64 vector in a big buffer (parent / roll indices) */
typedef struct { int64_t *p; size_t n, cap, bytes; } tw_vec64;
static int tw_vec64_grow(tw_vec64 *v, size_t need) {
    size_t cap = v->cap ? v->cap : 4096;
    int64_t *nb;
    while (cap < need) cap *= 2;
    nb = (int64_t *)tw_big_resize(v->p, v->bytes, cap * 8);
    if (!nb) return 0;
    v->p = nb; v->cap = cap; v->bytes = cap * 8;
    return 1;
}
TW_INLINE int tw_vec64_reserve(tw_vec64 *v, size_t need) {
    return TW_LIKELY(need <= v->cap) ? 1 : tw_vec64_grow(v, need);
}
static void tw_vec64_adopt(tw_vec64 *v, void *p, size_t nbytes) {
    v->p = (int64_t *)p; v->bytes = nbytes; v->cap = nbytes / 8; v->n = 0;
}
static void tw_vec64_trim(tw_vec64 *v) {
    size_t need = v->n * 8 + 64;
    int64_t *nb;
    if (!v->p || v->bytes < ((size_t)1 << 20) || v->bytes / 4 < need) return;
    nb = (int64_t *)tw_big_resize(v->p, v->bytes, 2 * need);
    if (!nb) return;
    v->p = nb; v->bytes = 2 * need; v->cap = v->bytes / 8;
}
static void tw_vec64_free(tw_vec64 *v) {
    tw_big_free(v->p, v->bytes);
    v->p = NULL; v->n = v->cap = v->bytes = 0;
}

static int tw_rec_reserve(tw_ctx *c) {
    if (c->nrec < c->caprec) return 1;
    {
        size_t cap = c->caprec ? c->caprec * 2 : 64;
        tw_rec *nr = (tw_rec *)realloc(c->rec, cap * sizeof(tw_rec));
        if (!nr) { c->oom = 1; return 0; }
        c->rec = nr; c->caprec = cap;
    }
    return 1;
}

/* emit the child `row` (mover's seat), flipped */
static void tw_emit_row(tw_ctx *c, const uint8_t *row) {
    if (!tw_out_reserve(c, 1)) return;
    tw_flip(&c->geo, row, c->out + c->nout * TW_W);
    c->nout++;
}

/* ------------------------------------------------------------------------------------------ */
/* Expand mode: the distinct final positions of the kept sequences (1.4)                      */

#define TW_CODE(x) ((uint64_t)(x) << 60)
#define TW_CODE_SHORT 8  /* short leaves: code 8 + number of steps */

static void tw_short_leaf(tw_ctx *c, const tw_state *s, int nsteps, int first_die) {
    tw_rec *r;
    if (c->full || nsteps < c->short_best) return;
    if (!tw_set_insert(&c->set, s->k0, s->k1 | TW_CODE(TW_CODE_SHORT + nsteps))) return;
    if (!tw_rec_reserve(c)) return;
    c->short_best = nsteps;
    r = &c->rec[c->nrec++];
    memcpy(r->row, s->b, TW_W);
    r->nsteps = (uint8_t)nsteps; r->first_die = (uint8_t)first_die; r->ended = 0;
}

static void tw_dfs_expand(tw_ctx *c, const tw_state *s, int nh, int nl, int nsteps, int first_die) {
    int ext = 0, k;
    for (k = 0; k < 2; k++) {
        int cnt = k ? nl : nh, d, nh2, nl2;
        uint32_t cand;
        if (!cnt) continue;
        d = c->dv[k];
        cand = tw_candidates(c, s, d);
        if (!cand) continue;
        nh2 = nh - (k == 0); nl2 = nl - (k == 1);
        if (nh2 + nl2 == 0) {
            /* the last die: children straight from the parent, keys computed incrementally */
            uint8_t fs[64];
            int have_flip = 0;
            const tw_geo *g = &c->geo;
            const int contact = c->P->contact;
            while (cand) {
                int p = tw_hibit(cand), t = p - d, hit;
                uint64_t k0, k1;
                cand &= ~(1u << p);
                if (t < 0) t = 0;
                if (c->P->wall_rule) {
                    uint32_t nm = s->mm;
                    if (s->b[p] == 1) nm &= ~(1u << p);
                    if (t) nm |= 1u << t;
                    if (!tw_walls_ok(c, nm)) continue;
                }
                ext = 1;
                hit = t && contact != TW_BLOCK && s->b[26 + t] == 1 && s->b[t] == 0;
                k0 = s->k0 - TW_NIB0[p] + TW_NIB0[t];
                k1 = s->k1 - TW_NIB1[p] + TW_NIB1[t];
                if (hit && contact == TW_HIT) k1 |= TW_HITB[t];
                if (!tw_set_insert(&c->set, k0, k1)) continue;
                c->full = 1;
                if (TW_UNLIKELY(!tw_out_reserve(c, 1))) return;
                if (!have_flip) { tw_flip(g, s->b, fs); have_flip = 1; }
                {
                    uint8_t *o = c->out + c->nout * TW_W;
                    memcpy(o, fs, 64);  /* (the buffer has 64 bytes of slack) */
                    o[g->me_to[p]]--;
                    o[g->me_to[t]]++;
                    if (hit) {
                        if (contact == TW_HIT) { o[g->opp_to[t]] = 0; o[25]++; }
                        else {  /* pin: the new mover's checker on q(t) is now pinned */
                            uint32_t bits = tw_pinbits(o) | 1u << (g->q[t] - 1);
                            tw_set_pinbits(o, bits);
                        }
                    }
                    if (contact == TW_PIN && s->b[p] == 1 && p <= 24 && s->b[26 + p] && !(c->ri.pinned_me >> p & 1u)) {
                        /* the last pinner left p: the opponent's checker there is free */
                        uint32_t bits = tw_pinbits(o) & ~(1u << (g->q[p] - 1));
                        tw_set_pinbits(o, bits);
                    }
                    c->nout++;
                }
            }
        } else {
            uint64_t code = TW_CODE(c->ndice == 4 ? nh2 : (nh2 | nl2 << 1));
            int fd = nsteps ? first_die : d;
            while (cand) {
                int p = tw_hibit(cand), t = p - d;
                tw_state n;
                cand &= ~(1u << p);
                if (t < 0) t = 0;
                tw_apply(c, s, &n, p, t);
                if (c->P->wall_rule && !tw_walls_ok(c, n.mm)) continue;
                ext = 1;
                if (!tw_set_insert(&c->set, n.k0, n.k1 | code)) continue;
                if (tw_ended(c, &n)) {
                    /* D17: a sequence that ends the game with mover checkers on the board counts
                       as complete; one that bears off the last checker counts the dice it used */
                    if (n.b[0] == 15) tw_short_leaf(c, &n, nsteps + 1, fd);
                    else if (tw_set_insert(&c->set, n.k0, n.k1)) { c->full = 1; tw_emit_row(c, n.b); }
                } else {
                    tw_dfs_expand(c, &n, nh2, nl2, nsteps + 1, fd);
                }
                if (TW_UNLIKELY(c->oom)) return;
            }
        }
    }
    if (!ext) tw_short_leaf(c, s, nsteps, first_die);
}


/* ------------------------------------------------------------------------------------------ */
/* Hash-free paths for the rules where they are exact (tw_canon_ok).                          */
/*                                                                                             */
/* Doubles: every legal sequence of steps with one die value can be reordered so that its     */
/* from-points never increase, and the reordered sequence is legal and reaches the same        */
/* position (swap two adjacent steps s1 from p1 < p2 from s2: s1 cannot have enabled s2 -     */
/* it lands below p2, and it cannot change the landing, bar or bear-off status s2 sees). So   */
/* generating only non-increasing from-points finds every final position, and each exactly    */
/* once (a multiset of from-points determines the position). This needs rules whose legality  */
/* depends only on what the swap argument covers: it fails with a start lock, a post-step    */
/* check (wall rule), a mid-turn game end other than the 15th checker off (quadrant lock,     */
/* mother rule), or the opponent-in-home bear-off condition in a hitting game.                 */
/*                                                                                             */
/* Non-doubles {a > b}, every ruleset: A-sequences (a first) and B-sequences (b first) are    */
/* generated from the exact legal-step masks (post-step checks included); a sequence is       */
/* skipped when it reaches the same position as one generated before: the same two steps in  */
/* the other order, the same single checker moved through either intermediate point (unless  */
/* a blot hit on the way tells them apart) or relayed by a second checker, or two bear-offs   */
/* with the roles of the dice swapped (see tw_nd_fast). Which sequences are legal is read     */
/* from the masks, so the rules only enter through tw_legal_mask and tw_ended. Positions with */
/* 15 checkers off go through the hash set.                                                    */
/* Doubles, where tw_canon_doubles_row allows: non-increasing from-points, no hashing.         */
/* If no complete sequence exists the row falls back to the full search (tw_dfs_expand).      */

static int tw_canon_ok(const tw_params *P) {
#ifdef TW_NO_CANON
    if (P) return 0;
#endif
    return !(P->bearoff_no_opp_home && P->contact == TW_HIT);
}


/* Whether the doubles of this row can use the non-increasing order (see above): the rules
   that break the swap argument cannot act during this turn. The start lock is released for
   good once released; the quadrant lock needs every empty point of 19..24 filled (at most 4
   steps, none held by the opponent); the mother rule needs the opponent's mother alone on
   its start point; an illegal wall needs a window of six points, none held by the opponent,
   with at most 4 of them still empty. */
static int tw_canon_doubles_row(const tw_params *P, const tw_rowinfo *ri, const tw_state *s) {
    uint32_t opp_occ = ~ri->opp_zero & TW_BITS_1_24;
    if (P->start_lock && s->b[0] == 0 && !(s->mm & ((2u << P->start_lock) - 2u))) return 0;
    if (P->quadrant_lock_win && !(opp_occ & TW_BITS_19_24)
        && tw_popcount(TW_BITS_19_24 & ~s->mm) <= 4) return 0;
    if (P->mother_plakoto && s->b[26 + ri->x24] == 1) return 0;
    if (P->wall_rule && ri->wall_live) return 0;
    return 1;
}

/* the flipped row after a step: patch the flipped row `o` of the state s before the step */
TW_INLINE void tw_fpatch(const tw_ctx *c, uint8_t *o, const tw_state *s, int p, int t, int hit) {
    const tw_geo *g = &c->geo;
    const int contact = c->P->contact;
    o[g->me_to[p]]--;
    o[g->me_to[t]]++;
    if (hit) {
        if (contact == TW_HIT) { o[g->opp_to[t]] = 0; o[25]++; }
        else tw_set_pinbits(o, tw_pinbits(o) | 1u << (g->q[t] - 1));
    }
    if (contact == TW_PIN && p <= 24 && s->b[p] == 1 && s->b[26 + p] && !(c->ri.pinned_me >> p & 1u))
        tw_set_pinbits(o, tw_pinbits(o) & ~(1u << (g->q[p] - 1)));  /* last pinner left p */
}

TW_INLINE int tw_hit_at(const tw_ctx *c, const tw_state *s, int t) {
    return t >= 1 && c->P->contact != TW_BLOCK && s->b[26 + t] == 1 && s->b[t] == 0;
}

/* a node of the hash-free search: the state and its row seen from the other seat */
typedef struct { tw_state s; uint8_t f[64]; } tw_node;

/* tw_apply without the key (the hash-free paths need it only for rows with 15 off) */
TW_INLINE int tw_apply_nokey(const tw_ctx *c, const tw_state *s, tw_state *n, int p, int t) {
    int hit = 0;
    memcpy(n->b, s->b, 64);
    n->mm = s->mm;
    if (--n->b[p] == 0) n->mm &= ~(1u << p);
    if (t <= 0) {
        n->b[0]++;
    } else {
        if (c->P->contact != TW_BLOCK && n->b[26 + t] == 1 && n->b[t] == 0) {
            hit = 1;
            if (c->P->contact == TW_HIT) { n->b[26 + t] = 0; n->b[51]++; }
        }
        n->b[t]++; n->mm |= 1u << t;
    }
    return hit;
}

/* the exact key of a state computed from its row (tw_state_from_row) */
static void tw_state_key(tw_state *s, const uint8_t *root) {
    int p;
    s->k0 = s->k1 = 0;
    for (p = 1; p <= 25; p++) { s->k0 += TW_NIB0[p] * s->b[p]; s->k1 += TW_NIB1[p] * s->b[p]; }
    if (root) for (p = 1; p <= 24; p++) if (root[26 + p] == 1 && s->b[26 + p] == 0) s->k1 |= TW_HITB[p];
}

TW_INLINE void tw_node_step(const tw_ctx *c, const tw_node *from, tw_node *to, int p, int t) {
    int hit = tw_apply_nokey(c, &from->s, &to->s, p, t);
    memcpy(to->f, from->f, 64);
    tw_fpatch(c, to->f, &from->s, p, t, hit);
}

/* emit the child "node + one step"; a child with all 15 off goes through the hash set */
TW_INLINE void tw_emit_step(tw_ctx *c, const tw_node *n, int p, int t) {
    int hit = tw_hit_at(c, &n->s, t);
    uint8_t *o;
    if (TW_UNLIKELY(t == 0 && n->s.b[0] == 14)) {
        tw_state e;
        tw_apply_nokey(c, &n->s, &e, p, t);
        tw_state_key(&e, c->root_row);
        if (!tw_set_insert(&c->set, e.k0, e.k1)) { c->full = 1; return; }
    }
    if (TW_UNLIKELY(!tw_out_reserve(c, 1))) return;
    o = c->out + c->nout * TW_W;
    memcpy(o, n->f, 64);
    tw_fpatch(c, o, &n->s, p, t, hit);
    c->nout++;
    c->full = 1;
}

TW_INLINE void tw_emit_node_ended(tw_ctx *c, const tw_node *n) {
    tw_state e = n->s;
    tw_state_key(&e, c->root_row);
    if (!tw_set_insert(&c->set, e.k0, e.k1)) { c->full = 1; return; }
    if (TW_UNLIKELY(!tw_out_reserve(c, 1))) return;
    memcpy(c->out + c->nout * TW_W, n->f, 64);
    c->nout++;
    c->full = 1;
}

/* doubles: non-increasing from-points; `left` steps to go, from-points <= maxp */
static void tw_dbl_fast(tw_ctx *c, const tw_node *n, int left, int maxp) {
    const int d = c->dv[0];
    uint32_t cand = tw_candidates(c, &n->s, d) & ((2u << maxp) - 1u);
    if (left == 1) {
        while (cand) {
            int p = tw_hibit(cand), t = p - d;
            cand &= ~(1u << p);
            tw_emit_step(c, n, p, t < 0 ? 0 : t);
        }
        return;
    }
    while (cand) {
        int p = tw_hibit(cand), t = p - d;
        tw_node m;
        cand &= ~(1u << p);
        if (t < 0) t = 0;
        tw_node_step(c, n, &m, p, t);
        if (m.s.b[0] == 15) tw_emit_node_ended(c, &m);
        else tw_dbl_fast(c, &m, left - 1, p);
        if (TW_UNLIKELY(c->oom)) return;
    }
}

/* tw_candidates with the post-step check (wall rule, 6.5) applied: the from-points of the
   legal single steps with die d */
TW_INLINE uint32_t tw_legal_mask(const tw_ctx *c, const tw_state *s, int d) {
    uint32_t cand = tw_candidates(c, s, d), res, m;
    if (!c->P->wall_rule || !cand || !c->ri.wall_live) return cand;
    res = cand;
    m = cand;
    while (m) {
        int p = tw_hibit(m), t = p - d;
        uint32_t nm = s->mm;
        m &= ~(1u << p);
        if (s->b[p] == 1) nm &= ~(1u << p);
        if (t > 0) nm |= 1u << t;
        if (!tw_walls_ok(c, nm)) res &= ~(1u << p);
    }
    return res;
}

static void tw_nd_fast(tw_ctx *c, const tw_node *root) {
    const int a = c->dv[0], b = c->dv[1];
    const tw_state *S = &root->s;
    const uint32_t candA = tw_legal_mask(c, S, a), candB = tw_legal_mask(c, S, b);
    uint32_t cand;
    uint32_t afterB[26];  /* A-branch: b-candidates after a@p (read only where candA has p) */
    uint32_t afterA[26];  /* B-branch: a-candidates after b@q (read only where candB has q) */
    const int blot_ok = c->P->contact != TW_HIT;
    /* One checker r moving r -> r-a-b ("single move of r") has four realisations:
         YA(r)  a@r, b@(r-a)        via r-a (hits a blot there, if any)
         YB(r)  b@r, a@(r-b)        via r-b (hits a blot there, if any)
         RA(r)  a@(r-b), b@r        relay: another checker on r-b moves on, r's lands on r-b
         RB(r)  b@(r-a), a@r        relay the other way round
       All "clean" ones (no blot hit on the way) reach the same position; a blot hit
       makes YA / YB unique. The first realisation in generation order is emitted. */
#define TW_CLEAN_A(r) (blot_ok || S->b[26 + (r) - a] != 1)
#define TW_CLEAN_B(r) (blot_ok || S->b[26 + (r) - b] != 1)
#define TW_YA_CLEAN(r) ((r) - a >= 1 && (candA >> (r) & 1u) && (afterB[r] >> ((r) - a) & 1u) && TW_CLEAN_A(r))
#define TW_RA(r) ((r) - b >= 1 && (candA >> ((r) - b) & 1u) && (afterB[(r) - b] >> (r) & 1u))
#define TW_YB_CLEAN(r) ((r) - b >= 1 && (candB >> (r) & 1u) && (afterA[r] >> ((r) - b) & 1u) && TW_CLEAN_B(r))
    /* A: a first. Generation order: p high to low, so r = q > p was done before. */
    cand = candA;
    while (cand) {
        int p = tw_hibit(cand), t = p - a;
        uint32_t cb;
        tw_node m;
        cand &= ~(1u << p);
        if (t < 0) t = 0;
        tw_node_step(c, root, &m, p, t);
        if (tw_ended(c, &m.s)) { afterB[p] = 0; tw_emit_node_ended(c, &m); continue; }
        cb = afterB[p] = tw_legal_mask(c, &m.s, b);
        while (cb) {
            int q = tw_hibit(cb), u = q - b;
            cb &= ~(1u << q);
            if (u == p && TW_YA_CLEAN(q)) continue;  /* RA(q) after YA(q) */
            tw_emit_step(c, &m, q, u < 0 ? 0 : u);
        }
        if (TW_UNLIKELY(c->oom)) return;
    }
    /* B: b first, skipping what an A-sequence (or an earlier B one) already reached */
    cand = candB;
    while (cand) {
        int q = tw_hibit(cand), u = q - b;
        uint32_t ca;
        tw_node m;
        cand &= ~(1u << q);
        if (u < 0) u = 0;
        tw_node_step(c, root, &m, q, u);
        if (tw_ended(c, &m.s)) { afterA[q] = 0; tw_emit_node_ended(c, &m); continue; }
        ca = afterA[q] = tw_legal_mask(c, &m.s, a);
        while (ca) {
            int p = tw_hibit(ca), t = p - a;
            ca &= ~(1u << p);
            if (t < 0) t = 0;
            if (u >= 1 && p == u) {                  /* YB(q) */
                if (TW_CLEAN_B(q) && (TW_YA_CLEAN(q) || TW_RA(q))) continue;
            } else if (t >= 1 && t == q) {           /* RB(p) */
                if (TW_YA_CLEAN(p) || TW_RA(p) || TW_YB_CLEAN(p)) continue;
            } else {                                 /* two checkers */
                if ((candA >> p & 1u) && (afterB[p] >> q & 1u)) continue;  /* a@p, b@q */
                if (p <= b && q <= b && (candA >> q & 1u) && (afterB[q] >> p & 1u)) continue;
            }
            tw_emit_step(c, &m, p, t);
        }
        if (TW_UNLIKELY(c->oom)) return;
    }
#undef TW_CLEAN_A
#undef TW_CLEAN_B
#undef TW_YA_CLEAN
#undef TW_RA
#undef TW_YB_CLEAN
}

/* One side can make a single step with some die (1.7 frozen test, for the mover of row). */
static int tw_side_can_step(const tw_params *P, const uint8_t *row) {
    tw_ctx c;
    tw_state s, n;
    int d;
    memset(&c, 0, sizeof(c));
    c.P = P;
    tw_init_tables();
    tw_rowinfo_init(P, &c.ri, row);
    tw_state_from_row(&s, row);
    for (d = 1; d <= 6; d++) {
        uint32_t cand = tw_candidates(&c, &s, d);
        if (!cand) continue;
        if (!P->wall_rule) return 1;
        while (cand) {
            int p = tw_hibit(cand), t = p - d;
            cand &= ~(1u << p);
            if (t < 0) t = 0;
            tw_apply(&c, &s, &n, p, t);
            if (tw_walls_ok(&c, n.mm)) return 1;
        }
    }
    return 0;
}

static int tw_is_frozen(const tw_params *P, const tw_geo *g, const uint8_t *row) {
    uint8_t f[64];
    if (!P->can_freeze) return 0;
    if (row[0] == 15 || row[26] == 15) return 0;
    if (tw_side_can_step(P, row)) return 0;
    tw_flip(g, row, f);
    return !tw_side_can_step(P, f);
}

/* ------------------------------------------------------------------------------------------ */
/* Game result of a row (tawla.reference.scoring.game_result), relative to the row's mover.   */
typedef struct { int over, winner, kind, points; } tw_result;  /* winner: 0 mover, 1 opponent, -1 draw */

/* the side `w` (block base 0 or 26) of row b in its own numbering, into own[26] */
static void tw_own(const tw_geo *g, const uint8_t *b, int side, uint8_t *own) {
    int p;
    if (side == 0) { memcpy(own, b, 26); return; }
    own[0] = b[26]; own[25] = b[51];
    for (p = 1; p <= 24; p++) own[g->q[p]] = b[26 + p];
}

static tw_result tw_game_result(const tw_params *P, const tw_geo *g, const uint8_t *b, int no_freeze_check) {
    tw_result r = {0, -1, -1, 0};
    uint8_t me[26], op[26];
    int who;
    if (b[0] != 15 && b[26] != 15 && !P->quadrant_lock_win && !P->mother_plakoto
        && (no_freeze_check || !P->can_freeze))
        return r;  /* the hitting games: only the 15th checker off ends a game */
    tw_own(g, b, 0, me); tw_own(g, b, 1, op);
    for (who = 0; who < 2; who++) {
        const uint8_t *win = who ? op : me, *lose = who ? me : op;
        if (win[0] == 15) {
            int q, in_home = 0, kind, base;
            for (q = 19; q <= 24; q++) if (lose[q]) in_home = 1;
            if (lose[25] > 0 && !P->bar_bg_double) in_home = 1;
            r.over = 1; r.winner = who;
            if (P->scoring == TW_SCORE_CHECKERS_LEFT) {
                r.kind = lose[0] == 0 ? TW_K_GAMMON : TW_K_SINGLE;
                r.points = 15 - lose[0];
                return r;
            }
            if (lose[0]) kind = TW_K_SINGLE;
            else if (P->scoring == TW_SCORE_CUBE && in_home) kind = TW_K_BACKGAMMON;
            else kind = TW_K_GAMMON;
            base = kind == TW_K_SINGLE ? 1 : kind == TW_K_GAMMON ? 2 : 3;
            r.kind = kind; r.points = base;
            return r;
        }
    }
    if (P->quadrant_lock_win) {
        for (who = 0; who < 2; who++) {
            const uint8_t *side = who ? op : me, *other = who ? me : op;
            int q, all = 1;
            for (q = 19; q <= 24; q++) if (!side[q]) all = 0;
            if (all) { r.over = 1; r.winner = who; r.kind = TW_K_QUADRANT; r.points = 15 - other[0]; return r; }
        }
    }
    if (P->mother_plakoto) {
        uint32_t pins = tw_pinbits(b) << 1;
        int x = tw_opp_point(24, P->same);
        int mp_me = b[24] == 1 && (pins >> 24 & 1u);
        int mp_opp = b[26 + x] == 1 && b[x] > 0 && !(pins >> x & 1u);
        if (mp_me && mp_opp) { r.over = 1; r.winner = -1; r.kind = TW_K_DRAW; r.points = 0; return r; }
        if (mp_opp && b[24] == 0) { r.over = 1; r.winner = 0; r.kind = TW_K_MOTHER; r.points = 2; return r; }
        if (mp_me && b[26 + x] == 0) { r.over = 1; r.winner = 1; r.kind = TW_K_MOTHER; r.points = 2; return r; }
    }
    if (!no_freeze_check && P->can_freeze && tw_is_frozen(P, g, b)) {
        r.over = 1; r.winner = -1; r.kind = TW_K_DRAW; r.points = 0;
    }
    return r;
}

/* Game over without the frozen test (cheap part of game_result). */
static int tw_over_cheap(const tw_params *P, const tw_geo *g, const uint8_t *b) {
    if (b[0] == 15 || b[26] == 15) return 1;
    if (!P->quadrant_lock_win && !P->mother_plakoto) return 0;
    return tw_game_result(P, g, b, 1).over;
}

/* ------------------------------------------------------------------------------------------ */
/* Expand one row for one roll. Appends its children (flipped) to c->out.                     */
/* `over_checked`: the caller already knows the game is not over (cheap part).                 */
/* frozen_state: in/out cache of the frozen test for this row (-1 unknown, 0 no, 1 frozen).   */
/* Returns the number of children appended.                                                    */
static size_t tw_expand_row(tw_ctx *c, const uint8_t *row, const tw_state *root, int d1, int d2, int *frozen_state) {
    size_t start = c->nout;
    int hi = d1 > d2 ? d1 : d2, lo = d1 > d2 ? d2 : d1;
    tw_set_clear(&c->set);
    c->nrec = 0; c->short_best = 0; c->full = 0;
    c->root_row = row;
    /* the hash-free paths count only complete sequences: not for a row whose last checker
       can come off before every die is used (D17: such a sequence counts the dice it used) */
    if (15 - root->b[0] >= (hi == lo ? 4 : 2)
        && (hi != lo || (c->canon && tw_canon_doubles_row(c->P, &c->ri, root)))) {
        /* the hash-free paths: non-doubles for every ruleset, doubles where the rules allow */
        tw_node rn;
        rn.s = *root;
        tw_flip(&c->geo, root->b, rn.f);
        if (hi == lo) { c->dv[0] = hi; c->dv[1] = 0; c->ndice = 4; tw_dbl_fast(c, &rn, 4, 25); }
        else { c->dv[0] = hi; c->dv[1] = lo; c->ndice = 2; tw_nd_fast(c, &rn); }
        if (c->oom) return 0;
        if (c->full) return c->nout - start;
        /* no complete sequence: the full search sorts out short moves and passes */
        c->nout = start;
        tw_set_clear(&c->set);
    }
    {
        tw_state r0 = *root;
        tw_state_key(&r0, NULL);
        if (hi == lo) { c->dv[0] = hi; c->dv[1] = 0; c->ndice = 4; tw_dfs_expand(c, &r0, 4, 0, 0, 0); }
        else { c->dv[0] = hi; c->dv[1] = lo; c->ndice = 2; tw_dfs_expand(c, &r0, 1, 1, 0, 0); }
    }
    if (c->oom) return 0;
    if (!c->full) {
        /* only sequences shorter than the dice: keep the longest (1.4) */
        size_t i;
        int best = 0, high_only = 0;
        for (i = 0; i < c->nrec; i++) if (c->rec[i].nsteps > best) best = c->rec[i].nsteps;
        if (best == 0) {
            /* the turn passes, unless the position is frozen (a draw: no child) */
            if (c->P->can_freeze) {
                if (*frozen_state < 0) *frozen_state = tw_is_frozen(c->P, &c->geo, row);
                if (*frozen_state) return 0;
            }
            tw_emit_row(c, row);
            return c->nout - start;
        }
        if (best == 1 && hi != lo)
            for (i = 0; i < c->nrec; i++)
                if (c->rec[i].nsteps == 1 && c->rec[i].first_die == hi) high_only = 1;
        for (i = 0; i < c->nrec; i++) {
            tw_rec *r = &c->rec[i];
            if (r->nsteps != best) continue;
            if (high_only && r->first_die != hi) continue;
            tw_emit_row(c, r->row);
        }
    }
    return c->nout - start;
}

/* ------------------------------------------------------------------------------------------ */
/* legal_sequences mode: the reference DFS, step for step, recording every leaf.              */
static void tw_record(tw_ctx *c, const tw_state *s, int nsteps, int ended) {
    tw_rec *r;
    if (!tw_rec_reserve(c)) return;
    r = &c->rec[c->nrec++];
    memcpy(r->row, s->b, TW_W);
    r->nsteps = (uint8_t)nsteps; r->ended = (uint8_t)ended;
    r->first_die = nsteps ? c->path[0].d : 0;
    memcpy(r->steps, c->path, sizeof(c->path));
}

static void tw_dfs_seq(tw_ctx *c, const tw_state *s, int nh, int nl, int nsteps) {
    int ext = 0, k;
    for (k = 0; k < 2; k++) {
        int cnt = k ? nl : nh, d, nh2, nl2;
        uint32_t cand;
        uint64_t code;
        if (!cnt) continue;
        d = c->dv[k];
        cand = tw_candidates(c, s, d);
        nh2 = nh - (k == 0); nl2 = nl - (k == 1);
        code = TW_CODE(c->ndice == 4 ? nh2 : (nh2 | nl2 << 1));
        while (cand) {
            int p = tw_hibit(cand), t = p - d, hit;
            tw_state n;
            cand &= ~(1u << p);
            if (t < 0) t = 0;
            hit = tw_apply(c, s, &n, p, t);
            if (c->P->wall_rule && !tw_walls_ok(c, n.mm)) continue;
            ext = 1;
            if (!tw_set_insert(&c->set, n.k0, n.k1 | code)) continue;
            c->path[nsteps].p = (uint8_t)p; c->path[nsteps].t = (uint8_t)t;
            c->path[nsteps].d = (uint8_t)d; c->path[nsteps].hit = (uint8_t)hit;
            if (tw_ended(c, &n)) tw_record(c, &n, nsteps + 1, 1);
            else tw_dfs_seq(c, &n, nh2, nl2, nsteps + 1);
            if (TW_UNLIKELY(c->oom)) return;
        }
    }
    if (!ext) tw_record(c, s, nsteps, 0);
}

/* Runs the reference DFS; leaves in c->rec (in the reference's order). Returns 0 on OOM. */
static int tw_sequences(tw_ctx *c, const uint8_t *row, int d1, int d2) {
    tw_state root;
    int hi = d1 > d2 ? d1 : d2, lo = d1 > d2 ? d2 : d1;
    tw_rowinfo_init(c->P, &c->ri, row);
    tw_state_from_row(&root, row);
    tw_state_key(&root, NULL);
    tw_set_clear(&c->set);
    c->nrec = 0;
    memset(c->path, 0, sizeof(c->path));
    if (hi == lo) { c->dv[0] = hi; c->dv[1] = 0; c->ndice = 4; tw_dfs_seq(c, &root, 4, 0, 0); }
    else { c->dv[0] = hi; c->dv[1] = lo; c->ndice = 2; tw_dfs_seq(c, &root, 1, 1, 0); }
    return !c->oom;
}

/* ------------------------------------------------------------------------------------------ */
/* Random numbers: xoshiro256** seeded by splitmix64                                           */
typedef struct { uint64_t s[4]; } tw_rng;

static uint64_t tw_splitmix(uint64_t *x) {
    uint64_t z = (*x += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}
static void tw_rng_seed(tw_rng *r, uint64_t seed) {
    int i;
    for (i = 0; i < 4; i++) r->s[i] = tw_splitmix(&seed);
}
TW_INLINE uint64_t tw_rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
TW_INLINE uint64_t tw_next(tw_rng *r) {
    uint64_t *s = r->s;
    uint64_t res = tw_rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
    s[2] ^= s[0]; s[3] ^= s[1]; s[1] ^= s[2]; s[0] ^= s[3]; s[2] ^= t; s[3] = tw_rotl(s[3], 45);
    return res;
}
/* uniform integer in [0, n), unbiased (Lemire) */
static uint32_t tw_below(tw_rng *r, uint32_t n) {
    uint64_t m = (uint64_t)(uint32_t)(tw_next(r) >> 32) * n;
    uint32_t l = (uint32_t)m;
    if (l < n) {
        uint32_t th = (uint32_t)(-n) % n;
        while (l < th) { m = (uint64_t)(uint32_t)(tw_next(r) >> 32) * n; l = (uint32_t)m; }
    }
    return (uint32_t)(m >> 32);
}

/* ------------------------------------------------------------------------------------------ */
/* Random playouts. Per game: turns played, winner (0 = the player who moved first, 1 = the   */
/* other, -1 draw), kind (TW_K_*), points. Returns 0 on OOM.                                   */
static int tw_playout(const tw_params *P, long n_games, uint64_t seed, long max_turns,
                      int32_t *length, int8_t *winner, int8_t *kind, int16_t *points) {
    tw_ctx c;
    tw_rng rng;
    uint8_t row[64], init[64];
    long g;
    int p;
    if (!tw_ctx_init(&c, P)) return 0;
    tw_rng_seed(&rng, seed);
    memset(init, 0, sizeof(init));
    for (p = 1; p <= 24; p++) {
        if (P->start[p]) {
            init[p] += P->start[p];
            init[26 + tw_opp_point(p, P->same)] += P->start[p];
        }
    }
    for (g = 0; g < n_games; g++) {
        int d1, d2, mover = 0;
        long turns = 0;
        tw_result res = {0, -1, TW_K_UNFINISHED, 0};
        memcpy(row, init, 64);
        /* 1.6: opening roll; the starter is "player 0" */
        do { d1 = 1 + (int)tw_below(&rng, 6); d2 = 1 + (int)tw_below(&rng, 6); } while (d1 == d2);
        if (P->opening_reroll) { d1 = 1 + (int)tw_below(&rng, 6); d2 = 1 + (int)tw_below(&rng, 6); }
        for (;;) {
            tw_state root;
            int frozen = -1;
            size_t nch;
            if (turns >= max_turns) { res.over = 0; break; }
            c.nout = 0;
            tw_rowinfo_init(P, &c.ri, row);
            tw_state_from_row(&root, row);
            nch = tw_expand_row(&c, row, &root, d1, d2, &frozen);
            if (c.oom) { tw_ctx_free(&c); tw_out_free(&c); return 0; }
            turns++;
            if (nch == 0) {  /* frozen before the move (cannot happen from a live position) */
                res.over = 1; res.winner = -1; res.kind = TW_K_DRAW; res.points = 0;
                break;
            }
            memcpy(row, c.out + (size_t)tw_below(&rng, (uint32_t)nch) * TW_W, TW_W);
            mover ^= 1;
            res = tw_game_result(P, &c.geo, row, 0);
            if (res.over) break;
            d1 = 1 + (int)tw_below(&rng, 6); d2 = 1 + (int)tw_below(&rng, 6);
        }
        length[g] = (int32_t)turns;
        if (!res.over) { winner[g] = -1; kind[g] = TW_K_UNFINISHED; points[g] = 0; }
        else {
            /* res.winner is relative to the row's mover, who is player `mover` */
            winner[g] = (int8_t)(res.winner < 0 ? -1 : (res.winner == 0 ? mover : mover ^ 1));
            kind[g] = (int8_t)res.kind; points[g] = (int16_t)res.points;
        }
    }
    tw_ctx_free(&c);
    tw_out_free(&c);
    return 1;
}

#endif /* TAWLA_FAST_H */
