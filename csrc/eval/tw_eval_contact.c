/*
 * The linear contact model of backgammon / adi: 225 features (per side 98 point features and
 * 14 hand-made ones, then a bias), five logistic outputs combined into the six probabilities
 * and the equity; tawla.evaluation.features.bg_features and LinearContact compute the same in
 * numpy. The shot tables it reads are tw_eval_tables.c's.
 */
#include <math.h>
#include "tw_eval.h"
#include "tw_board.h"  /* TW_HAVE_SSE2, tw_map_pins */

/* The blots' hit chances already computed in this thread, by key (point << 24 | the shooters'
   bits that reach it; 0 free), direct-mapped: each value as its first computation gave it. */
#define TW_SHOT_CACHE_BITS 9
typedef struct {
    uint32_t key[1 << TW_SHOT_CACHE_BITS];
    double ph[1 << TW_SHOT_CACHE_BITS], term[1 << TW_SHOT_CACHE_BITS];
} tw_shot_memo;
static TW_THREAD tw_shot_memo tw_shots_seen;

static void tw_raw_features(const int *S, double *f) {
    int p, n;
    for (p = 1; p <= 24; p++) {
        n = S[p];
        f[p - 1] = n == 1 ? 1.0 : 0.0;
        f[24 + p - 1] = n == 2 ? 1.0 : 0.0;
        f[48 + p - 1] = n == 3 ? 1.0 : 0.0;
        f[72 + p - 1] = n > 3 ? (n - 3) / 2.0 : 0.0;
    }
    f[96] = S[25] / 2.0;
    f[97] = S[0] / 15.0;
}

/* Bits p (1..24) where A[p] > t (A: int[26]). */
TW_INLINE uint32_t tw_gt_mask(const int *A, int t) {
    uint32_t m = 0;
    int i;
#if TW_HAVE_SSE2
    __m128i k = _mm_set1_epi32(t);
    for (i = 0; i < 6; i++)
        m |= (uint32_t)_mm_movemask_ps(_mm_castsi128_ps(
                 _mm_cmpgt_epi32(_mm_loadu_si128((const __m128i *)(A + 1 + 4 * i)), k))) << (4 * i);
#else
    for (i = 0; i < 24; i++) m |= (uint32_t)(A[i + 1] > t) << i;
#endif
    return m << 1;
}

void tw_hand_features(const int *S, const int *O, double *f) {
    int p, x, s;
    uint32_t shooters = O[25] > 0, blots = 0, b, key, slot;
    double lm, ph, logsum = 0.0, lost = 0.0;
    tw_shot_memo *seen = NULL;
    int pips = 25 * S[25], stack = 0, o_home = 0, run = 0, best = 0, anchors = 0, back = S[25], home_made = 0;
    /* bit x: an opponent's checker x points from the far end (its point 25 - x; bit 0 its bar) */
    shooters |= tw_map_pins(tw_gt_mask(O, 0) >> 1, 0) << 1;
    blots = tw_gt_mask(S, 0) & ~tw_gt_mask(S, 1);
    for (p = 1; p <= 24; p++) {
        s = S[p];
        pips += s * p;
        stack += s > 3 ? s - 3 : 0;
    }
    /* each blot's chance of being hit, ph = 1 - prod (1 - shot chance) over the distances d
       (ascending) to the opponent's checkers behind it, and its term of the log-sum, looked up
       by the blot's point and the shooters that reach it; a blot no checker reaches adds 0 */
    if (blots) seen = &tw_shots_seen;
    while (blots) {
        p = tw_lobit(blots);
        blots &= blots - 1;
        b = shooters & TW_SHOT_FROM[p];
        if (!b) continue;
        key = (uint32_t)p << 24 | b;
        slot = (key * 2654435761u) >> (32 - TW_SHOT_CACHE_BITS);
        if (seen->key[slot] != key) {
            lm = 0.0;
            for (x = 0; b; b &= ~(1u << x)) {  /* nearest shooter first: d = p - x ascending */
                x = tw_hibit(b);
                lm += TW_LOGMISS[p - x];
            }
            ph = 1.0 - exp(lm);
            seen->key[slot] = key;
            seen->ph[slot] = ph;
            seen->term[slot] = 1.0 - ph > 1e-9 ? log(1.0 - ph) : log(1e-9);
        }
        logsum += seen->term[slot];
        lost += seen->ph[slot] * (25 - p);
    }
    for (p = 1; p <= 6; p++) {
        o_home += O[p] >= 2;
        home_made += S[p] >= 2;
    }
    for (p = 1; p <= 12; p++) {
        if (S[p] >= 2) {
            run += 1;
            if (run > best) best = run;
        } else {
            run = 0;
        }
    }
    for (p = 19; p <= 24; p++) {
        anchors += S[p] >= 2;
        back += S[p];
    }
    f[0] = pips / 100.0;
    f[1] = S[25];
    f[2] = S[25] * (o_home / 6.0) * (o_home / 6.0);
    f[3] = home_made;
    f[4] = S[7] >= 2 ? 1.0 : 0.0;
    f[5] = best;
    f[6] = best * best / 6.0;
    f[7] = anchors;
    f[8] = back / 5.0;
    f[9] = logsum == 0.0 ? 0.0 : 1.0 - exp(logsum);
    f[10] = lost / 25.0;
    f[11] = stack / 5.0;
    f[12] = S[0] / 15.0;
    f[13] = o_home == 6 ? S[25] : 0.0;
}

void tw_features(const uint8_t *row, double *f) {
    int me[26], opp[26];
    tw_sides(row, 0, me, opp);
    tw_raw_features(me, f);
    tw_hand_features(me, opp, f + TW_NRAW);
    tw_raw_features(opp, f + TW_NRAW + TW_NHAND);
    tw_hand_features(opp, me, f + 2 * TW_NRAW + TW_NHAND);
    f[TW_NF - 1] = 1.0;
}

void tw_linear_row(const tw_params *P, const uint8_t *row, const double *W, long ldw, double *o) {
    int k, j, m = 0;
    int nz[TW_NF];
    double f[TW_NF], s[5], z, win, wg, wbg, lg, lbg;
    tw_features(row, f);
    for (j = 0; j < TW_NF; j++) if (f[j] != 0.0) nz[m++] = j;
    for (k = 0; k < 5; k++) {
        z = 0.0;
        for (j = 0; j < m; j++) z += W[k * ldw + nz[j]] * f[nz[j]];
        if (z > 30) z = 30;
        else if (z < -30) z = -30;
        s[k] = 1.0 / (1.0 + exp(-z));
    }
    win = s[0];
    wg = win * s[1];
    wbg = wg * s[2];
    lg = (1 - win) * s[3];
    lbg = lg * s[4];
    if (P->scoring != TW_SCORE_CUBE) { wbg = 0.0; lbg = 0.0; }
    o[0] = 2 * win - 1 + wg - lg + wbg - lbg;
    o[1] = win;
    o[2] = wg;
    o[3] = wbg;
    o[4] = lg;
    o[5] = lbg;
}
