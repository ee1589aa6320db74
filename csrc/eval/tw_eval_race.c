/*
 * The race model (tawla.evaluation.race.race_eval): each side's distribution of
 * the rolls it needs, from the one-sided bear-off database for its home checkers, shifted by
 * a discretised normal for the pips of its checkers still outside; the win and gammon chances
 * from the two distributions, exact from the two-sided database when both sides have at most
 * six checkers, all home; tawla31's expected points from the same distributions
 * (tw_t31_equity). tw_race_sides takes both sides in their own numbering, tw_race_row a row of
 * any geometry.
 */
#include <math.h>
#include "tw_eval.h"

#define L TW_EVAL_L

/* The distributions of the sides with checkers outside their home last computed in this
   thread (the siblings of a move share the side that did not move), two entries. */
typedef struct {
    int key[26];
    const double *one;
    double a[L], f[L];
} tw_dist_memo;
static TW_THREAD tw_dist_memo tw_dists_seen[2];
static TW_THREAD int tw_dists_next;

/* all-off (d_all) and first-off (d_first) roll distributions of one side */
static void tw_side_dists(const int *S, const tw_race_tables *tb, double *d_all, double *d_first) {
    int home[6];
    int k, t, idx = 0, c = 0, outside = 0;
    double shift = 0.0, var, sd, prev, cur, tot_a, tot_f, w;
    double ker[L], base_a[L], base_f[L];
    for (k = 0; k < 6; k++) home[k] = S[k + 1];
    for (k = 7; k < 26; k++) {
        outside += S[k];
        shift += S[k] * (k - 6);
    }
    home[5] += outside;
    shift /= TW_MU;
    for (k = 0; k < 6; k++) {
        c += home[k];
        idx += TW_BINOM[c + k][k + 1];
    }
    if (shift <= 0) {  /* every checker home: the database's distributions as they are */
        for (k = 0; k < tb->n2; k++) {
            d_all[k] = tb->one[idx * tb->s0 + k];
            d_first[k] = tb->one[idx * tb->s0 + tb->s1 + k];
        }
        for (; k < L; k++) { d_all[k] = 0.0; d_first[k] = 0.0; }
        return;
    }
    for (k = 0; k < 2; k++) {
        tw_dist_memo *m = &tw_dists_seen[k];
        if (m->one == tb->one && memcmp(m->key, S, sizeof(m->key)) == 0) {
            memcpy(d_all, m->a, sizeof(m->a));
            memcpy(d_first, m->f, sizeof(m->f));
            return;
        }
    }
    for (k = 0; k < L; k++) { base_a[k] = 0.0; base_f[k] = 0.0; }
    for (k = 0; k < tb->n2; k++) {
        base_a[k] = tb->one[idx * tb->s0 + k];
        base_f[k] = tb->one[idx * tb->s0 + tb->s1 + k];
    }
    var = TW_VAR_PER_PIP * TW_MU * shift + 0.05;
    sd = sqrt(var);
    prev = 0.0;
    for (t = 0; t < L; t++) {
        if (t + 0.5 - shift > 8.0 * sd) {
            ker[t] = 1.0 - prev;
            prev = 1.0;
            continue;
        }
        cur = tw_phi((t + 0.5 - shift) / sd);
        ker[t] = cur - prev;
        prev = cur;
    }
    ker[L - 1] += 1.0 - prev;
    for (k = 0; k < L; k++) { d_all[k] = 0.0; d_first[k] = 0.0; }
    for (t = 0; t < L; t++) {
        int end = t + 33 < L ? t + 33 : L;  /* the table has 33 entries */
        w = ker[t];
        if (w < 1e-14) continue;
        for (k = t; k < end; k++) {
            d_all[k] += w * base_a[k - t];
            d_first[k] += w * base_f[k - t];
        }
    }
    tot_a = 0.0;
    tot_f = 0.0;
    for (k = 0; k < L; k++) { tot_a += d_all[k]; tot_f += d_first[k]; }
    d_all[L - 1] += 1.0 - tot_a;
    d_first[L - 1] += 1.0 - tot_f;
    {
        tw_dist_memo *m = &tw_dists_seen[tw_dists_next];
        tw_dists_next ^= 1;
        memcpy(m->key, S, sizeof(m->key));
        m->one = tb->one;
        memcpy(m->a, d_all, sizeof(m->a));
        memcpy(m->f, d_first, sizeof(m->f));
    }
}

void tw_race_sides(const tw_params *P, const int *me, const int *opp, const tw_race_tables *tb, double *o) {
    int i, n, cm = 0, co = 0, outm = 0, outo = 0, ia = 0, ib = 0, c;
    double pm_a[L], pm_f[L], po_a[L], po_f[L];
    double so_a, so_f, sm_f_next, win = 0.0, wg = 0.0, lg = 0.0;
    tw_side_dists(me, tb, pm_a, pm_f);
    tw_side_dists(opp, tb, po_a, po_f);
    /* suffix sums, walking down */
    so_a = 0.0;
    so_f = 0.0;
    sm_f_next = 0.0;
    for (n = L - 1; n >= 0; n--) {
        so_a += po_a[n];
        so_f += po_f[n];
        win += pm_a[n] * so_a;
        wg += pm_a[n] * so_f;
        lg += po_a[n] * sm_f_next;  /* P(my first-off needs > n rolls) */
        sm_f_next += pm_f[n];
    }
    if (opp[0] != 0) wg = 0.0;
    if (me[0] != 0) lg = 0.0;
    for (i = 7; i < 26; i++) { outm += me[i]; outo += opp[i]; }
    for (i = 1; i < 7; i++) { cm += me[i]; co += opp[i]; }
    if (outm == 0 && outo == 0 && cm <= 6 && co <= 6) {
        c = 0;
        for (i = 0; i < 6; i++) { c += me[i + 1]; ia += TW_BINOM[c + i][i + 1]; }
        c = 0;
        for (i = 0; i < 6; i++) { c += opp[i + 1]; ib += TW_BINOM[c + i][i + 1]; }
        win = tb->two[ia * 924 + ib];
    }
    if (wg > win) wg = win;
    if (lg > 1.0 - win) lg = 1.0 - win;
    o[0] = P->scoring == TW_SCORE_CHECKERS_LEFT ? tw_t31_equity(pm_a, pm_f, po_a, po_f, me, opp, L) : 2 * win - 1 + wg - lg;
    o[1] = win;
    o[2] = wg;
    o[3] = 0.0;
    o[4] = lg;
    o[5] = 0.0;
}

void tw_race_row(const tw_params *P, const uint8_t *row, const tw_race_tables *tb, double *o) {
    int me[26], opp[26];
    tw_sides(row, P->same, me, opp);
    tw_race_sides(P, me, opp, tb, o);
}
