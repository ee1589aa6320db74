/*
 * The neural evaluators' arithmetic (tw_net.h): a sparse first layer (each nonzero input adds
 * its row of weights, contiguous, so the compiler vectorises it), sigmoid hidden units, sigmoid
 * outputs; the outputs as evaluation columns; one TD gradient step.
 */
#include <math.h>
#include "tw_net.h"
#include "tw_board.h"  /* TW_HAVE_SSE2 and its header */

/* The logistic function from a table on [-TW_SIG_RANGE, TW_SIG_RANGE], TW_SIG_STEPS entries a
   unit, linearly interpolated (error < 1e-6): tw_net_init fills it, tawla.evaluation.net builds
   the same table. */
#define TW_NET_BLOCK 16
#define TW_SIG_RANGE 16
#define TW_SIG_STEPS 128
#define TW_SIG_N (2 * TW_SIG_RANGE * TW_SIG_STEPS + 2)
static float TW_SIG[TW_SIG_N];

void tw_net_init(void) {
    int i;
    for (i = 0; i < TW_SIG_N; i++) {
        double x = -TW_SIG_RANGE + (double)i / TW_SIG_STEPS;
        TW_SIG[i] = (float)(1.0 / (1.0 + exp(-x)));
    }
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

void tw_net_forward(const tw_net *n, const int *idx, const float *val, int m, float *h, float *o) {
    int nh = n->nh, i, j, k, jb;
    float acc[TW_NET_MAXH];
    /* the first layer in blocks of TW_NET_BLOCK hidden units held in registers across all the
       nonzero inputs (each input adds v times its weights; v * w == w exactly when v is 1) */
    for (jb = 0; jb + TW_NET_BLOCK <= nh; jb += TW_NET_BLOCK) {
#if TW_HAVE_SSE2
        __m128 a0 = _mm_loadu_ps(n->b1 + jb), a1 = _mm_loadu_ps(n->b1 + jb + 4);
        __m128 a2 = _mm_loadu_ps(n->b1 + jb + 8), a3 = _mm_loadu_ps(n->b1 + jb + 12);
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
        for (j = 0; j < TW_NET_BLOCK; j++) a[j] = n->b1[jb + j];
        for (i = 0; i < m; i++) {
            const float *w = n->w1 + (size_t)idx[i] * (size_t)nh + jb;
            float v = val[i];
            for (j = 0; j < TW_NET_BLOCK; j++) a[j] += v * w[j];
        }
        for (j = 0; j < TW_NET_BLOCK; j++) acc[jb + j] = a[j];
#endif
    }
    for (j = jb; j < nh; j++) acc[j] = n->b1[j];
    if (jb < nh) {
        for (i = 0; i < m; i++) {
            const float *w = n->w1 + (size_t)idx[i] * (size_t)nh;
            float v = val[i];
            for (j = jb; j < nh; j++) acc[j] += v * w[j];
        }
    }
    for (j = 0; j < nh; j++) h[j] = tw_sigmoid(acc[j]);
    /* the outputs: five sums side by side (independent chains, not one serial reduction) */
    {
        float z[TW_NET_NO];
        const float *w2 = n->w2;
        for (k = 0; k < TW_NET_NO; k++) z[k] = n->b2[k];
        for (j = 0; j < nh; j++) {
            float hj = h[j];
            for (k = 0; k < TW_NET_NO; k++) z[k] += w2[(size_t)k * (size_t)nh + j] * hj;
        }
        for (k = 0; k < TW_NET_NO; k++) o[k] = tw_sigmoid(z[k]);
    }
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
