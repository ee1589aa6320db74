/*
 * Random numbers for the C loops (random playouts, self-play training): xoshiro256** seeded by
 * splitmix64, and unbiased integers below n (Lemire's method).
 */
#ifndef TW_RNG_H
#define TW_RNG_H

#include "tw_params.h"
#include "tw_board.h"

typedef struct { uint64_t s[4]; } tw_rng;

TW_INLINE uint64_t tw_splitmix(uint64_t *x) {
    uint64_t z = (*x += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}
TW_INLINE void tw_rng_seed(tw_rng *r, uint64_t seed) {
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
static inline uint32_t tw_below(tw_rng *r, uint32_t n) {
    uint64_t m = (uint64_t)(uint32_t)(tw_next(r) >> 32) * n;
    uint32_t l = (uint32_t)m;
    if (l < n) {
        uint32_t th = (uint32_t)(-n) % n;
        while (l < th) { m = (uint64_t)(uint32_t)(tw_next(r) >> 32) * n; l = (uint32_t)m; }
    }
    return (uint32_t)(m >> 32);
}
/* uniform float in [0, 1) */
TW_INLINE float tw_uniform(tw_rng *r) { return (float)(tw_next(r) >> 40) * (1.0f / 16777216.0f); }

/* The starting position of a ruleset (RULES.md 1.2), mover's seat, into row[64]. */
TW_INLINE void tw_start_row(const tw_params *P, uint8_t *row) {
    int p;
    memset(row, 0, 64);
    for (p = 1; p <= 24; p++) {
        if (P->start[p]) {
            row[p] += P->start[p];
            row[26 + tw_opp_point(p, P->same)] += P->start[p];
        }
    }
}

/* The dice of the first move (RULES.md 1.6): the opening roll is thrown until the dice differ,
   and the starter plays them, or throws again where the ruleset says so. */
TW_INLINE void tw_opening_dice(const tw_params *P, tw_rng *r, int *d1, int *d2) {
    do { *d1 = 1 + (int)tw_below(r, 6); *d2 = 1 + (int)tw_below(r, 6); } while (*d1 == *d2);
    if (P->opening_reroll) { *d1 = 1 + (int)tw_below(r, 6); *d2 = 1 + (int)tw_below(r, 6); }
}

#endif /* TW_RNG_H */
