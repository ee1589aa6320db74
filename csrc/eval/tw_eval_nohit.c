/*
 * The effective-pip contact model of the no-hit games (tawla.evaluation.nohit.nohit_contact_np): each
 * side's pips plus penalties (points blocked on its path, the start lock, pinned checkers and
 * blots that may be pinned, the opponent in one's home and quadrant-lock threats) give normal
 * roll distributions for "all off" and "first off"; the win and mars chances come from those,
 * and for Tawla 31's checkers-left scoring the expected points.
 */
#include <math.h>
#include "tw_eval.h"

#define L TW_EVAL_L

/* Discretised normal over 0..L-1 with the mass below 1 moved to 1; returns hi, one past the
   last non-zero bin. Only the bins within 8 standard deviations of the mean are computed (the
   mass outside is below 1e-15): the rest are 0 below and the remainder goes to the first bin
   above. */
static int tw_normal_rolls(double mean, double var, double *d) {
    double sd, inv, prev = 0.0, cur, lim;
    int k, j, k0, hi = L;
    if (var < 1e-6) var = 1e-6;
    sd = sqrt(var);
    inv = 1.0 / sd;
    lim = 8.0 * sd;
    k0 = (int)(mean - lim - 0.5);
    if (k0 < 0) k0 = 0;
    if (k0 > L - 1) k0 = L - 1;
    for (k = 0; k < k0; k++) d[k] = 0.0;
    for (k = k0; k < L; k++) {
        if (k + 0.5 - mean > lim) {  /* the rest of the mass is below 1e-15 */
            d[k] = 1.0 - prev;
            prev = 1.0;
            hi = k + 1;
            for (j = hi; j < L; j++) d[j] = 0.0;
            break;
        }
        cur = tw_phi((k + 0.5 - mean) * inv);
        d[k] = cur - prev;
        prev = cur;
    }
    d[L - 1] += 1.0 - prev;
    d[1] += d[0];
    d[0] = 0.0;
    if (d[L - 1] != 0.0) hi = L;
    return hi > 2 ? hi : 2;
}

static int tw_imax(int a, int b) { return a > b ? a : b; }

/* penalty for the side moving against S's points: runs of S's blocks ahead of O's checkers */
static void tw_path_pen(const int *S, const int *O, int same, int need, double *pen_other) {
    int i, q, sp, cnt = 0, run = 0, ahead, b;
    double tot = 0.0, cnt18 = 0.0;
    for (i = 0; i < 24; i++) {
        q = 24 - i;
        sp = tw_opp_point(q, same);
        ahead = cnt > 0;
        b = S[sp] >= need && ahead;
        if (b) {
            run += 1;
            tot += 2 * run - 1;
            if (i < 18) cnt18 += 1;
        } else {
            run = 0;
        }
        cnt += O[q];
    }
    pen_other[0] += 2.0 * cnt18 + tot;
}

double tw_t31_equity(const double *pm_a, const double *pm_f, const double *po_a, const double *po_f,
                            const int *me, const int *opp, int hi) {
    int k;
    double rm = 0.0, ro = 0.0, cm = 15 - me[0], co = 15 - opp[0];
    double so_a[L], so_f[L], sm_a[L + 1], sm_f[L + 1];
    double ew = 0.0, el = 0.0, rem, inv_ro, inv_rm;
    for (k = 0; k < hi; k++) { rm += pm_a[k] * k; ro += po_a[k] * k; }
    if (rm < 1e-9) rm = 1e-9;
    if (ro < 1e-9) ro = 1e-9;
    inv_rm = 1.0 / rm;
    inv_ro = 1.0 / ro;
    so_a[hi - 1] = po_a[hi - 1];
    so_f[hi - 1] = po_f[hi - 1];
    for (k = hi - 2; k >= 0; k--) { so_a[k] = so_a[k + 1] + po_a[k]; so_f[k] = so_f[k + 1] + po_f[k]; }
    sm_a[hi] = 0.0;
    sm_f[hi] = 0.0;
    for (k = hi - 1; k >= 0; k--) { sm_a[k] = sm_a[k + 1] + pm_a[k]; sm_f[k] = sm_f[k + 1] + pm_f[k]; }
    for (k = 0; k < hi; k++) {
        if (opp[0] != 0) so_f[k] = 0.0;
        if (me[0] != 0) sm_f[k + 1] = 0.0;
    }
    for (k = 0; k < hi; k++) {
        rem = co * (1.0 - (k - 1) * inv_ro);
        rem = rem < 1.0 ? 1.0 : (rem > 15.0 ? 15.0 : rem);
        ew += pm_a[k] * (so_f[k] * 15.0 + (so_a[k] - so_f[k]) * rem);
        rem = cm * (1.0 - k * inv_rm);
        rem = rem < 1.0 ? 1.0 : (rem > 15.0 ? 15.0 : rem);
        el += po_a[k] * (sm_f[k + 1] * 15.0 + (sm_a[k + 1] - sm_f[k + 1]) * rem);
    }
    return ew - el;
}

/* pips to the first checker off */
static double tw_first_pips(const int *S) {
    int p, lowest = 6;
    double out = 0.0;
    for (p = 7; p < 26; p++) out += S[p] * (p - 6);
    for (p = 1; p < 7; p++) if (S[p] > 0) { lowest = p; break; }
    return out + lowest + 4.0;
}

/* mahbusa: pinned checkers and blots that may be pinned */
static void tw_pin_penalties(const uint8_t *row, const int *me, const int *om, double *pen_m, double *pen_o) {
    unsigned int bits = row[52] | (row[53] << 8) | (row[54] << 16);
    int p, d, kk;
    for (p = 1; p <= 24; p++) {
        int mine_pinned = (bits >> (p - 1)) & 1, both = me[p] > 0 && om[p] > 0;
        if (mine_pinned) *pen_m += 12 + p + (p == 24 ? 40 : 0);
        else if (both) *pen_o += 12 + (25 - p) + (p == 1 ? 40 : 0);
    }
    for (kk = 0; kk < 2; kk++) {
        int flip = kk == 1;
        for (p = 1; p <= 24; p++) {
            int blot;
            double lm = 0.0, ph, own;
            if (flip) blot = om[p] == 1 && !(om[p] > 0 && me[p] > 0);
            else blot = me[p] == 1 && !(me[p] > 0 && om[p] > 0);
            if (!blot) continue;
            for (d = 1; d < 13; d++) {
                if (flip) { if (p + d <= 24 && me[p + d] > 0) lm += TW_LOGMISS[d]; }
                else if (p - d >= 1 && om[p - d] > 0) lm += TW_LOGMISS[d];
            }
            ph = 1.0 - exp(lm);
            own = flip ? 25 - p : p;
            if (flip) *pen_o += 0.5 * ph * (12 + own + (own == 24 ? 40 : 0));
            else *pen_m += 0.5 * ph * (12 + own + (own == 24 ? 40 : 0));
        }
    }
}

/* RULES.md 5.5: every checker of the opponent in one's home holds up one's bear-off */
static void tw_home_penalties(const int *me, const int *om, double *pen_m, double *pen_o) {
    int p, k = 0;
    for (p = 1; p < 7; p++) k += om[p];
    *pen_m += 3.0 * k;
    k = 0;
    for (p = 19; p < 25; p++) k += me[p];
    *pen_o += 3.0 * k;
}

/* RULES.md 5.6: the threat of a quadrant lock, k of the opponent's home points held while it
   has none there */
static void tw_quadrant_penalties(const int *me, const int *opp, double *pen_m, double *pen_o) {
    static const double QP[6] = {0, 0, 2, 6, 16, 40};
    int p, k = 0;
    for (p = 19; p < 25; p++) if (me[p] > 0) k += 1;
    if (opp[1] + opp[2] + opp[3] + opp[4] + opp[5] + opp[6] == 0) *pen_o += QP[k < 5 ? k : 5];
    k = 0;
    for (p = 19; p < 25; p++) if (opp[p] > 0) k += 1;
    if (me[1] + me[2] + me[3] + me[4] + me[5] + me[6] == 0) *pen_m += QP[k < 5 ? k : 5];
}

void tw_nohit_row(const tw_params *P, const uint8_t *row, double *o) {
    int me[26], opp[26], om[26];
    int p, k, hi, need = P->contact == TW_PIN ? 2 : 1;
    double pen_m = 0.0, pen_o = 0.0, em, eo, fm, fo, pm = 0.0, po = 0.0;
    double pm_a[L], pm_f[L], po_a[L], po_f[L];
    double so_a = 0.0, so_f = 0.0, sm_f_next = 0.0, win = 0.0, wg = 0.0, lg = 0.0;
    tw_sides(row, P->same, me, opp);
    for (p = 0; p < 26; p++) om[p] = row[26 + p];
    tw_path_pen(me, opp, P->same, need, &pen_o);
    tw_path_pen(opp, me, P->same, need, &pen_m);
    if (P->start_lock) {
        k = 0;
        for (p = 1; p <= P->start_lock; p++) k += me[p];
        if (k == 0 && me[0] == 0) pen_m += 8.0;
        k = 0;
        for (p = 1; p <= P->start_lock; p++) k += opp[p];
        if (k == 0 && opp[0] == 0) pen_o += 8.0;
    }
    if (P->contact == TW_PIN) tw_pin_penalties(row, me, om, &pen_m, &pen_o);
    if (P->bearoff_no_opponent_in_home) tw_home_penalties(me, om, &pen_m, &pen_o);
    if (P->quadrant_lock_win) tw_quadrant_penalties(me, opp, &pen_m, &pen_o);
    for (p = 0; p < 26; p++) { pm += me[p] * p; po += opp[p] * p; }
    em = pm + pen_m;
    eo = po + pen_o;
    fm = tw_first_pips(me) + pen_m * 0.7;
    fo = tw_first_pips(opp) + pen_o * 0.7;
    hi = tw_normal_rolls(em / TW_MU, TW_VAR_PER_PIP * em + 0.5, pm_a);
    hi = tw_imax(hi, tw_normal_rolls(eo / TW_MU, TW_VAR_PER_PIP * eo + 0.5, po_a));
    hi = tw_imax(hi, tw_normal_rolls(fm / TW_MU, TW_VAR_PER_PIP * fm + 0.5, pm_f));
    hi = tw_imax(hi, tw_normal_rolls(fo / TW_MU, TW_VAR_PER_PIP * fo + 0.5, po_f));
    for (k = hi - 1; k >= 0; k--) {
        so_a += po_a[k];
        so_f += po_f[k];
        win += pm_a[k] * so_a;
        wg += pm_a[k] * so_f;
        lg += po_a[k] * sm_f_next;
        sm_f_next += pm_f[k];
    }
    if (opp[0] != 0) wg = 0.0;
    if (me[0] != 0) lg = 0.0;
    if (wg > win) wg = win;
    if (lg > 1.0 - win) lg = 1.0 - win;
    o[1] = win;
    o[2] = wg;
    o[3] = 0.0;
    o[4] = lg;
    o[5] = 0.0;
    o[0] = P->scoring == TW_SCORE_CHECKERS_LEFT ? tw_t31_equity(pm_a, pm_f, po_a, po_f, me, opp, hi) : 2 * win - 1 + wg - lg;
}
