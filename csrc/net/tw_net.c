/*
 * The neural evaluators' arithmetic (tw_net.h): a sparse first layer (each nonzero input adds
 * its row of weights, contiguous), sigmoid hidden units, sigmoid outputs; batches of rows with
 * the hidden units and outputs of TW_NET_LANES rows side by side; the outputs as evaluation
 * columns; one TD gradient step.
 *
 * On x86 the first layer runs in AVX registers and the batches' hidden and output layers in
 * AVX2 when the processor has them (chosen at tw_net_init; the wheel's baseline stays SSE2):
 * every variant makes the same products and sums in the same order, without fused
 * multiply-adds, so all give the same bits.
 */
#include <math.h>
#include <stdlib.h>
#include "tw_net.h"
#include "tw_board.h"  /* TW_HAVE_SSE2 and its header */

#if TW_HAVE_SSE2 && (defined(__GNUC__) || defined(__clang__)) && (defined(__x86_64__) || defined(__i386__))
#include <immintrin.h>
#define TW_NET_X86 1
#else
#define TW_NET_X86 0
#endif

/* The logistic function from a table on [-TW_SIG_RANGE, TW_SIG_RANGE], TW_SIG_STEPS entries a
   unit, linearly interpolated (error < 1e-6): tw_net_init fills it, tawla.evaluation.net builds
   the same table. */
#define TW_NET_BLOCK 16
#define TW_SIG_RANGE 16
#define TW_SIG_STEPS 128
#define TW_SIG_N (2 * TW_SIG_RANGE * TW_SIG_STEPS + 2)
#define TW_NET_LANES 8
static float TW_SIG[TW_SIG_N];
static float TW_SIG_PAIRS[2 * TW_SIG_N];  /* TW_SIG[j], TW_SIG[j + 1] - TW_SIG[j] (0 for the last) */

typedef void (*tw_first_layer_fn)(const tw_net *, const float *, const int *, const float *, int, float *);
static void tw_first_layer(const tw_net *n, const float *start, const int *idx, const float *val, int m,
                           float *acc);
#if TW_NET_X86
static void tw_first_layer_avx(const tw_net *n, const float *start, const int *idx, const float *val, int m,
                               float *acc);
#endif
static tw_first_layer_fn tw_net_first_layer = tw_first_layer;
static int tw_net_avx2 = 0;

void tw_net_init(void) {
    int i;
    for (i = 0; i < TW_SIG_N; i++) {
        double x = -TW_SIG_RANGE + (double)i / TW_SIG_STEPS;
        TW_SIG[i] = (float)(1.0 / (1.0 + exp(-x)));
    }
    for (i = 0; i < TW_SIG_N; i++) {
        TW_SIG_PAIRS[2 * i] = TW_SIG[i];
        TW_SIG_PAIRS[2 * i + 1] = i + 1 < TW_SIG_N ? TW_SIG[i + 1] - TW_SIG[i] : 0.0f;
    }
#if TW_NET_X86
    __builtin_cpu_init();
    if (getenv("TAWLA_NET_NO_AVX") == NULL) {
        if (__builtin_cpu_supports("avx")) tw_net_first_layer = tw_first_layer_avx;
        tw_net_avx2 = __builtin_cpu_supports("avx2");
    }
#endif
}

TW_INLINE float tw_sigmoid(float z) {
    float t;
    int j;
    t = (z + (float)TW_SIG_RANGE) * (float)TW_SIG_STEPS;  /* branch-free clamp to the table */
    t = t < 0.0f ? 0.0f : t;
    t = t > (float)(TW_SIG_N - 2) ? (float)(TW_SIG_N - 2) : t;
    j = (int)t;
    t -= (float)j;
    return TW_SIG[j] + t * (TW_SIG[j + 1] - TW_SIG[j]);
}

/* The first layer's hidden units jb .. nh-1 (those past the last whole register block), one by
   one in the order of the inputs. */
static inline void tw_first_layer_rest(const tw_net *n, const float *start, const int *idx, const float *val,
                                       int m, int jb, float *acc) {
    int nh = n->nh, i, j;
    for (j = jb; j < nh; j++) acc[j] = start[j];
    for (i = 0; i < m && jb < nh; i++) {
        const float *w = n->w1 + (size_t)idx[i] * (size_t)nh;
        float v = val[i];
        for (j = jb; j < nh; j++) acc[j] += v * w[j];
    }
}

/* The first layer of one row from start[nh] (b1, or the sums of the row's first inputs):
   acc[j] = start[j] + sum over i (in order) of val[i] * w1[idx[i]][j], a product then a sum per
   term (v * w == w exactly when v is 1); the hidden units in blocks of TW_NET_BLOCK held in
   registers across all the nonzero inputs. */
static void tw_first_layer(const tw_net *n, const float *start, const int *idx, const float *val, int m,
                           float *acc) {
    int nh = n->nh, i, jb;
    for (jb = 0; jb + TW_NET_BLOCK <= nh; jb += TW_NET_BLOCK) {
#if TW_HAVE_SSE2
        __m128 a0 = _mm_loadu_ps(start + jb), a1 = _mm_loadu_ps(start + jb + 4);
        __m128 a2 = _mm_loadu_ps(start + jb + 8), a3 = _mm_loadu_ps(start + jb + 12);
        for (i = 0; i < m; i++) {
            const float *w = n->w1 + (size_t)idx[i] * (size_t)nh + jb;
            __m128 v = _mm_set1_ps(val[i]);
            a0 = _mm_add_ps(a0, _mm_mul_ps(v, _mm_loadu_ps(w)));
            a1 = _mm_add_ps(a1, _mm_mul_ps(v, _mm_loadu_ps(w + 4)));
            a2 = _mm_add_ps(a2, _mm_mul_ps(v, _mm_loadu_ps(w + 8)));
            a3 = _mm_add_ps(a3, _mm_mul_ps(v, _mm_loadu_ps(w + 12)));
        }
        _mm_storeu_ps(acc + jb, a0); _mm_storeu_ps(acc + jb + 4, a1);
        _mm_storeu_ps(acc + jb + 8, a2); _mm_storeu_ps(acc + jb + 12, a3);
#else
        float a[TW_NET_BLOCK];
        int j;
        for (j = 0; j < TW_NET_BLOCK; j++) a[j] = start[jb + j];
        for (i = 0; i < m; i++) {
            const float *w = n->w1 + (size_t)idx[i] * (size_t)nh + jb;
            float v = val[i];
            for (j = 0; j < TW_NET_BLOCK; j++) a[j] += v * w[j];
        }
        for (j = 0; j < TW_NET_BLOCK; j++) acc[jb + j] = a[j];
#endif
    }
    tw_first_layer_rest(n, start, idx, val, m, jb, acc);
}

/* tw_first_layer in 8-wide AVX registers, 64 hidden units a pass, then 8, then one by one. */
#if TW_NET_X86
__attribute__((target("avx"))) static void tw_first_layer_avx(const tw_net *n, const float *start,
                                                               const int *idx, const float *val, int m,
                                                               float *acc) {
    int nh = n->nh, i, jb, q;
    for (jb = 0; jb + 64 <= nh; jb += 64) {
        __m256 a[8];
        for (q = 0; q < 8; q++) a[q] = _mm256_loadu_ps(start + jb + 8 * q);
        for (i = 0; i < m; i++) {
            const float *w = n->w1 + (size_t)idx[i] * (size_t)nh + jb;
            __m256 v = _mm256_set1_ps(val[i]);
            for (q = 0; q < 8; q++) a[q] = _mm256_add_ps(a[q], _mm256_mul_ps(v, _mm256_loadu_ps(w + 8 * q)));
        }
        for (q = 0; q < 8; q++) _mm256_storeu_ps(acc + jb + 8 * q, a[q]);
    }
    for (; jb + 8 <= nh; jb += 8) {
        __m256 a = _mm256_loadu_ps(start + jb);
        for (i = 0; i < m; i++)
            a = _mm256_add_ps(a, _mm256_mul_ps(_mm256_set1_ps(val[i]),
                                               _mm256_loadu_ps(n->w1 + (size_t)idx[i] * (size_t)nh + jb)));
        _mm256_storeu_ps(acc + jb, a);
    }
    tw_first_layer_rest(n, start, idx, val, m, jb, acc);
}

/* tw_sigmoid of 8 values (the same clamp, truncation and interpolation; each entry and its
   difference to the next read as one pair of TW_SIG_PAIRS). */
__attribute__((target("avx2"))) static inline __m256 tw_sigmoid8(__m256 z) {
    __m256 t = _mm256_mul_ps(_mm256_add_ps(z, _mm256_set1_ps((float)TW_SIG_RANGE)),
                             _mm256_set1_ps((float)TW_SIG_STEPS));
    __m256i j;
    __m128 a0, a1, a2, a3;
    __m256 lo, hi;
    int ji[8];
    t = _mm256_max_ps(t, _mm256_setzero_ps());
    t = _mm256_min_ps(t, _mm256_set1_ps((float)(TW_SIG_N - 2)));
    j = _mm256_cvttps_epi32(t);
    t = _mm256_sub_ps(t, _mm256_cvtepi32_ps(j));
    _mm256_storeu_si256((__m256i *)ji, j);
#define TW_PAIRS(a, b) _mm_loadh_pi(_mm_loadl_pi(_mm_setzero_ps(), (const __m64 *)(TW_SIG_PAIRS + 2 * ji[a])), \
                                    (const __m64 *)(TW_SIG_PAIRS + 2 * ji[b]))
    a0 = TW_PAIRS(0, 1); a1 = TW_PAIRS(2, 3); a2 = TW_PAIRS(4, 5); a3 = TW_PAIRS(6, 7);
#undef TW_PAIRS
    lo = _mm256_insertf128_ps(_mm256_castps128_ps256(a0), a2, 1);  /* s0 d0 s1 d1 | s4 d4 s5 d5 */
    hi = _mm256_insertf128_ps(_mm256_castps128_ps256(a1), a3, 1);  /* s2 d2 s3 d3 | s6 d6 s7 d7 */
    return _mm256_add_ps(_mm256_shuffle_ps(lo, hi, _MM_SHUFFLE(2, 0, 2, 0)),
                         _mm256_mul_ps(t, _mm256_shuffle_ps(lo, hi, _MM_SHUFFLE(3, 1, 3, 1))));
}

/* Hidden units and outputs o[l][TW_NET_NO] of the first layers acc[l] of TW_NET_LANES rows (the
   first nl of them kept): the hidden units transposed to hT[j][l], so that each output's sum
   over j runs for the eight rows in one register, in the order of j. */
__attribute__((target("avx2"))) static void tw_tail_avx2(const tw_net *n, float (*acc)[TW_NET_MAXH],
                                                         int nl, float *o) {
    float hT[TW_NET_MAXH * TW_NET_LANES], zs[TW_NET_LANES];
    int nh = n->nh, j, k, l;
    __m256 z[TW_NET_NO];
    for (j = 0; j + 8 <= nh; j += 8) {
        __m256 r[8], t[8], u[8];
        for (l = 0; l < 8; l++) r[l] = tw_sigmoid8(_mm256_loadu_ps(acc[l] + j));
        for (l = 0; l < 8; l += 2) {
            t[l] = _mm256_unpacklo_ps(r[l], r[l + 1]);
            t[l + 1] = _mm256_unpackhi_ps(r[l], r[l + 1]);
        }
        for (l = 0; l < 8; l += 4) {
            u[l] = _mm256_shuffle_ps(t[l], t[l + 2], _MM_SHUFFLE(1, 0, 1, 0));
            u[l + 1] = _mm256_shuffle_ps(t[l], t[l + 2], _MM_SHUFFLE(3, 2, 3, 2));
            u[l + 2] = _mm256_shuffle_ps(t[l + 1], t[l + 3], _MM_SHUFFLE(1, 0, 1, 0));
            u[l + 3] = _mm256_shuffle_ps(t[l + 1], t[l + 3], _MM_SHUFFLE(3, 2, 3, 2));
        }
        for (l = 0; l < 4; l++) {
            _mm256_storeu_ps(hT + (size_t)(j + l) * 8, _mm256_permute2f128_ps(u[l], u[l + 4], 0x20));
            _mm256_storeu_ps(hT + (size_t)(j + l + 4) * 8, _mm256_permute2f128_ps(u[l], u[l + 4], 0x31));
        }
    }
    for (; j < nh; j++)
        for (l = 0; l < 8; l++) hT[(size_t)j * 8 + l] = tw_sigmoid(acc[l][j]);
    for (k = 0; k < TW_NET_NO; k++) z[k] = _mm256_set1_ps(n->b2[k]);
    for (j = 0; j < nh; j++) {
        __m256 h = _mm256_loadu_ps(hT + (size_t)j * 8);
        for (k = 0; k < TW_NET_NO; k++)
            z[k] = _mm256_add_ps(z[k], _mm256_mul_ps(_mm256_set1_ps(n->w2[(size_t)k * (size_t)nh + j]), h));
    }
    for (k = 0; k < TW_NET_NO; k++) {
        _mm256_storeu_ps(zs, tw_sigmoid8(z[k]));
        for (l = 0; l < nl; l++) o[l * TW_NET_NO + k] = zs[l];
    }
}
#endif

/* The hidden units and outputs of one first layer acc (tw_net_forward's last steps). */
static void tw_tail(const tw_net *n, const float *acc, float *h, float *o) {
    int nh = n->nh, j, k;
    float z[TW_NET_NO];
    const float *w2 = n->w2;
    for (j = 0; j < nh; j++) h[j] = tw_sigmoid(acc[j]);
    /* five sums side by side (independent chains, not one serial reduction) */
    for (k = 0; k < TW_NET_NO; k++) z[k] = n->b2[k];
    for (j = 0; j < nh; j++) {
        float hj = h[j];
        for (k = 0; k < TW_NET_NO; k++) z[k] += w2[(size_t)k * (size_t)nh + j] * hj;
    }
    for (k = 0; k < TW_NET_NO; k++) o[k] = tw_sigmoid(z[k]);
}

void tw_net_forward(const tw_net *n, const int *idx, const float *val, int m, float *h, float *o) {
    float acc[TW_NET_MAXH];
    tw_net_first_layer(n, n->b1, idx, val, m, acc);
    tw_tail(n, acc, h, o);
}

/* The first layer's sums after the mover's point, bar and off inputs (the first k) of rows
   already seen, the last two that differed there: the rows with the same first inputs
   (siblings, whether they hit or not) start from them, the same sums done once. */
typedef struct {
    int k;  /* -1 while there is none */
    int idx[TW_NET_SIDE];
    float val[TW_NET_SIDE];
    float acc[TW_NET_MAXH];
} tw_net_start;

typedef struct {
    tw_net_start s[2];
    int last;  /* the one used last */
} tw_net_prefix;

static void tw_prefix_init(tw_net_prefix *pre) { pre->s[0].k = pre->s[1].k = -1; pre->last = 0; }

TW_INLINE int tw_prefix_is(const tw_net_start *s, const int *idx, const float *val, int k) {
    return k == s->k && memcmp(idx, s->idx, (size_t)k * sizeof(int)) == 0
           && memcmp(val, s->val, (size_t)k * sizeof(float)) == 0;
}

/* The sums after the first k inputs of a row (computed unless seen among the last two). */
static const float *tw_prefix(const tw_net *n, tw_net_prefix *pre, const int *idx, const float *val, int k) {
    tw_net_start *s = &pre->s[pre->last];
    if (tw_prefix_is(s, idx, val, k)) return s->acc;
    pre->last ^= 1;
    s = &pre->s[pre->last];
    if (tw_prefix_is(s, idx, val, k)) return s->acc;
    tw_net_first_layer(n, n->b1, idx, val, k, s->acc);
    s->k = k;
    memcpy(s->idx, idx, (size_t)k * sizeof(int));
    memcpy(s->val, val, (size_t)k * sizeof(float));
    return s->acc;
}

/* Outputs o[l][TW_NET_NO] of rows[l], l < nl <= TW_NET_LANES. */
static void tw_net_lanes(const tw_params *P, const tw_net *n, const uint8_t *const *rows, int nl, float *o,
                         tw_net_prefix *pre) {
    float acc[TW_NET_LANES][TW_NET_MAXH], h[TW_NET_MAXH];
    int idx[TW_NET_NI], l, m, k;
    float val[TW_NET_NI];
    for (l = 0; l < nl; l++) {
        m = tw_net_inputs_raw(P, rows[l], idx, val, &k);
        tw_net_first_layer(n, tw_prefix(n, pre, idx, val, k), idx + k, val + k, m - k, acc[l]);
    }
#if TW_NET_X86
    if (tw_net_avx2) {
        for (; l < TW_NET_LANES; l++) memset(acc[l], 0, (size_t)n->nh * sizeof(float));
        tw_tail_avx2(n, acc, nl, o);
        return;
    }
#endif
    for (l = 0; l < nl; l++) tw_tail(n, acc[l], h, o + l * TW_NET_NO);
}

void tw_net_rows_at(const tw_params *P, const tw_net *n, const uint8_t *const *rows, long count, float *o) {
    tw_net_prefix pre;
    long i;
    tw_prefix_init(&pre);
    for (i = 0; i < count; i += TW_NET_LANES) {
        int nl = count - i < TW_NET_LANES ? (int)(count - i) : TW_NET_LANES;
        tw_net_lanes(P, n, rows + i, nl, o + (size_t)i * TW_NET_NO, &pre);
    }
}

void tw_net_rows(const tw_params *P, const tw_net *n, const uint8_t *rows, long count, float *o) {
    const uint8_t *lane[TW_NET_LANES];
    tw_net_prefix pre;
    long i;
    int l;
    tw_prefix_init(&pre);
    for (i = 0; i < count; i += TW_NET_LANES) {
        int nl = count - i < TW_NET_LANES ? (int)(count - i) : TW_NET_LANES;
        for (l = 0; l < nl; l++) lane[l] = rows + (size_t)(i + l) * TW_W;
        tw_net_lanes(P, n, lane, nl, o + (size_t)i * TW_NET_NO, &pre);
    }
}

void tw_net_eval_bg(const tw_params *P, const tw_net *n, const uint8_t *rows, long count,
                    const tw_race_tables *t, double *out) {
    const uint8_t *lane[TW_NET_LANES];
    long at[TW_NET_LANES], i;
    float o[TW_NET_LANES * TW_NET_NO];
    tw_net_prefix pre;
    tw_geo g;
    int nl = 0, l;
    tw_prefix_init(&pre);
    tw_geo_init(&g, P->same, P->contact == TW_PIN);
    for (i = 0; i <= count; i++) {
        if (i < count) {
            const uint8_t *row = rows + (size_t)i * TW_W;
            if (tw_eval_ends(P, &g, row, t, out + (size_t)i * 6) != TW_END_CONTACT) continue;
            lane[nl] = row;
            at[nl++] = i;
        }
        if (nl == TW_NET_LANES || (i == count && nl > 0)) {
            tw_net_lanes(P, n, lane, nl, o, &pre);
            for (l = 0; l < nl; l++) tw_net_columns(P, o + l * TW_NET_NO, out + (size_t)at[l] * 6);
            nl = 0;
        }
    }
}

void tw_net_race_beyond(const void *ctx, const tw_params *P, const uint8_t *row, double *o) {
    float h[TW_NET_MAXH], out[TW_NET_NO];
    int p, opp_in_my_home = 0, mine_in_opp_home = 0;
    tw_net_row(P, (const tw_net *)ctx, row, h, out);
    tw_net_columns(P, out, o);
    if (P->same || P->scoring == TW_SCORE_CHECKERS_LEFT) return;
    /* What a race can no longer bring: no gammon once the loser has borne off, no backgammon
       unless the loser still has a checker in the winner's home board (checkers only move on). */
    for (p = 1; p <= 6; p++) opp_in_my_home += row[26 + p];
    for (p = 19; p <= 25; p++) mine_in_opp_home += row[p];
    if (row[26]) o[2] = 0.0;
    if (row[26] || !opp_in_my_home) o[3] = 0.0;
    if (row[0]) o[4] = 0.0;
    if (row[0] || !mine_in_opp_home) o[5] = 0.0;
    o[0] = 2.0 * o[1] - 1.0 + o[2] - o[4] + o[3] - o[5];
}

void tw_net_row(const tw_params *P, const tw_net *n, const uint8_t *row, float *h, float *o) {
    int idx[TW_NET_NI];
    float val[TW_NET_NI];
    int m = tw_net_inputs(P, row, idx, val);
    tw_net_forward(n, idx, val, m, h, o);
}

void tw_net_columns(const tw_params *P, const float *o, double *out) {
    double win = o[0], wg = o[1], wbg = o[2], lg = o[3], lbg = o[4];
    if (wg > win) wg = win;
    if (lg > 1.0 - win) lg = 1.0 - win;
    if (P->scoring == TW_SCORE_CHECKERS_LEFT) {
        out[0] = 15.0 * (wbg - lbg);
        wbg = lbg = 0.0;
    } else {
        if (P->scoring != TW_SCORE_CUBE) { wbg = lbg = 0.0; }
        if (wbg > wg) wbg = wg;
        if (lbg > lg) lbg = lg;
        out[0] = 2.0 * win - 1.0 + wg - lg + wbg - lbg;
    }
    out[1] = win; out[2] = wg; out[3] = wbg; out[4] = lg; out[5] = lbg;
}

double tw_net_equity(const tw_params *P, const float *o) {
    if (P->scoring == TW_SCORE_CHECKERS_LEFT) return 15.0 * ((double)o[2] - (double)o[4]);
    if (P->scoring == TW_SCORE_CUBE)
        return 2.0 * o[0] - 1.0 + (double)o[1] - o[3] + (double)o[2] - o[4];
    return 2.0 * o[0] - 1.0 + (double)o[1] - o[3];
}

void tw_net_backprop(tw_net *n, const int *idx, const float *val, int m, const float *h,
                     const float *o, const float *t, float alpha) {
    int nh = n->nh, i, j, k;
    float dk[TW_NET_NO], dh[TW_NET_MAXH];
    for (k = 0; k < TW_NET_NO; k++) dk[k] = (t[k] - o[k]) * o[k] * (1.0f - o[k]);
    for (j = 0; j < nh; j++) dh[j] = 0.0f;
    for (k = 0; k < TW_NET_NO; k++) {
        float *w = n->w2 + (size_t)k * (size_t)nh, d = dk[k], ad = alpha * dk[k];
        for (j = 0; j < nh; j++) { dh[j] += d * w[j]; w[j] += ad * h[j]; }
        n->b2[k] += ad;
    }
    for (j = 0; j < nh; j++) dh[j] *= alpha * h[j] * (1.0f - h[j]);
    for (j = 0; j < nh; j++) n->b1[j] += dh[j];
    for (i = 0; i < m; i++) {
        float *w = n->w1 + (size_t)idx[i] * (size_t)nh, v = val[i];
        for (j = 0; j < nh; j++) w[j] += v * dh[j];
    }
}
