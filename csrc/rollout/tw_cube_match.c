/*
 * The match cube model (tw_cube.h): cubeful match-winning chances at a score from cubeless
 * probabilities, GNU Backgammon's 0-ply model as tawla.met.cube writes it (its Python twin;
 * tests compare the two): Janowski's interpolation between the dead cube and a live cube whose
 * cash points come from the match equity table, cube level by cube level.
 */
#include <math.h>
#include "tw_cube.h"

#define TW_MET_TOO_CLOSE 1e-7

double tw_met_after(const tw_met *t, int away, int opp_away, int won, int lost, int post) {
    int a = away - won, b = opp_away - lost;
    if (a <= 0) return 1.0;
    if (b <= 0) return 0.0;
    if (a > TW_MET_MAX) a = TW_MET_MAX;
    if (b > TW_MET_MAX) b = TW_MET_MAX;
    if (post) return a == 1 ? 1.0 - t->post[b - 1] : t->post[a - 1];
    return t->pre[(a - 1) * TW_MET_MAX + b - 1];
}

double tw_score_me(const tw_met *t, const tw_score *s, int won, int lost) {
    return tw_met_after(t, s->away, s->opp_away, won, lost, s->away == 1 || s->opp_away == 1);
}

int tw_score_may_double(const tw_score *s) {
    int post = !s->crawford && (s->away == 1 || s->opp_away == 1);
    if (s->crawford || s->owner == TW_CUBE_OPP || s->cube >= s->away) return 0;
    return !(post && s->away == 1);
}

/* Whether the model values the cube at all (tawla.met.ScoreState.cube_alive). */
static int tw_cube_alive(const tw_score *s) {
    if (s->crawford || (s->away == 2 && s->opp_away == 2)) return 0;
    return s->cube < s->away || s->cube < s->opp_away;
}

/* The probabilities of p[5] held within [0, 1]. */
static void tw_clip5(const double *p, double *q) {
    int k;
    for (k = 0; k < 5; k++) q[k] = p[k] < 0.0 ? 0.0 : (p[k] > 1.0 ? 1.0 : p[k]);
}

/* (gammon, backgammon) shares of the wins, then of the losses. */
static void tw_ratios(const double *p, double *g0, double *b0, double *g1, double *b1) {
    double w = p[0];
    if (w > 0) { *g0 = (p[1] - p[2]) / w; *b0 = p[2] / w; } else *g0 = *b0 = 0.0;
    if (w < 1) { *g1 = (p[3] - p[4]) / (1 - w); *b1 = p[4] / (1 - w); } else *g1 = *b1 = 0.0;
}

static double tw_cubeless(const tw_met *t, const double *p, const tw_score *s) {
    int c = s->cube;
    double win = tw_score_me(t, s, c, 0), lose = tw_score_me(t, s, 0, c);
    double centre = (win + lose) / 2, half = win - centre, gw = 0, gl = 0, bw = 0, bl = 0;
    if (!(fabs(half) <= TW_MET_TOO_CLOSE)) {
        gw = (tw_score_me(t, s, 2 * c, 0) - centre) / half - 1;
        gl = (centre - tw_score_me(t, s, 0, 2 * c)) / half - 1;
        bw = (tw_score_me(t, s, 3 * c, 0) - centre) / half - (gw + 1);
        bl = (centre - tw_score_me(t, s, 0, 3 * c)) / half - (gl + 1);
        if (gw < 0) gw = 0.0;
        if (gl < 0) gl = 0.0;
        if (bw < 0) bw = 0.0;
        if (bl < 0) bl = 0.0;
    }
    return 2 * p[0] - 1 + p[1] * gw - p[3] * gl + p[2] * bw - p[4] * bl;
}

static double tw_emg_to_mwc(const tw_met *t, double emg, const tw_score *s) {
    double win = tw_score_me(t, s, s->cube, 0), lose = tw_score_me(t, s, 0, s->cube);
    return (emg * (win - lose) + (win + lose)) / 2;
}

/* MWC of player k (0 the side on roll) after a game that moved won / lost points. */
static double tw_me_k(const tw_met *t, const tw_score *s, int k, int won, int lost) {
    return k == 0 ? tw_score_me(t, s, won, lost) : 1.0 - tw_score_me(t, s, lost, won);
}

/* The live-cube cash points of the side on roll (*cp) and of the opponent (*opp_cp). */
static void tw_cash_points(const tw_met *t, const double *p, const tw_score *s, double *cp, double *opp_cp) {
    double gam[2], bg[2], live[2][8];
    int aw[2] = {s->away, s->opp_away}, top = s->cube, levels = 0, v, n, k;
    tw_ratios(p, &gam[0], &bg[0], &gam[1], &bg[1]);
    while (aw[0] - 1 >= 2 * top && aw[1] - 1 >= 2 * top) { top *= 2; levels++; }
    v = top;
    for (n = levels; n >= 0; n--) {
        for (k = 0; k < 2; k++) {
            int o = 1 - k;
            double single = 1 - gam[k] - bg[k], gammon = gam[k], backgammon = bg[k];
            if (aw[0] - 1 < 2 * v || aw[1] - 1 < 2 * v) {  /* the doubled cube is dead */
                int q = (aw[k] - 1 < 2 * v && 2 * v <= aw[o] - 1) ? 2 * v : v;
                double taken_lost = (1 - gam[o] - bg[o]) * tw_me_k(t, s, k, 0, 2 * q) + gam[o] * tw_me_k(t, s, k, 0, 4 * q)
                                    + bg[o] * tw_me_k(t, s, k, 0, 6 * q);
                double passed = tw_me_k(t, s, k, v, 0);
                double taken_won = single * tw_me_k(t, s, k, 2 * q, 0) + gammon * tw_me_k(t, s, k, 4 * q, 0)
                                   + backgammon * tw_me_k(t, s, k, 6 * q, 0);
                live[k][n] = (taken_lost - passed) / (taken_lost - taken_won);
            } else {
                double redoubled_passed = tw_me_k(t, s, k, 0, 2 * v), passed = tw_me_k(t, s, k, v, 0);
                double taken_won = single * tw_me_k(t, s, k, 2 * v, 0) + gammon * tw_me_k(t, s, k, 4 * v, 0)
                                   + backgammon * tw_me_k(t, s, k, 6 * v, 0);
                live[k][n] = 1 - live[o][n + 1] * (passed - taken_won) / (redoubled_passed - taken_won);
            }
        }
        v /= 2;
    }
    *cp = live[0][0];
    *opp_cp = live[1][0];
}

/* The MWC of the side on roll with the cube as it is, p the five clipped probabilities. */
static double tw_cubeful_mwc(const tw_met *t, const double *p, const tw_score *s, double x) {
    double dead = tw_emg_to_mwc(t, tw_cubeless(t, p, s), s), g0, b0, g1, b1, w = p[0], live;
    double cash, opp_cash, lose_all, win_all, cp_me, cp_opp, tg = 0, opp_tg = 0;
    int c = s->cube, has_tg = s->owner >= 0, has_opp_tg = s->owner <= 0;
    if (!tw_cube_alive(s)) return dead;
    tw_ratios(p, &g0, &b0, &g1, &b1);
    cash = tw_score_me(t, s, c, 0);
    opp_cash = tw_score_me(t, s, 0, c);
    lose_all = (1 - g1 - b1) * opp_cash + g1 * tw_score_me(t, s, 0, 2 * c) + b1 * tw_score_me(t, s, 0, 3 * c);
    win_all = (1 - g0 - b0) * cash + g0 * tw_score_me(t, s, 2 * c, 0) + b0 * tw_score_me(t, s, 3 * c, 0);
    tw_cash_points(t, p, s, &cp_me, &cp_opp);
    if (has_opp_tg) opp_tg = 1 - cp_opp;  /* below it the opponent cashes */
    if (has_tg) tg = cp_me;               /* above it the side on roll cashes */
    if (has_opp_tg && w <= opp_tg)
        live = opp_tg > 0 ? lose_all + (opp_cash - lose_all) * w / opp_tg : lose_all;
    else if (has_tg && w >= tg)
        live = tg < 1 ? cash + (win_all - cash) * (w - tg) / (1 - tg) : win_all;
    else if (has_opp_tg && has_tg)
        live = opp_cash + (cash - opp_cash) * (w - opp_tg) / (tg - opp_tg);
    else if (has_tg)
        live = tg > 0 ? lose_all + (cash - lose_all) * w / tg : lose_all;
    else
        live = opp_cash + (win_all - opp_cash) * (w - opp_tg) / (1 - opp_tg);
    return dead * (1 - x) + live * x;
}

double tw_match_cubeless(const tw_met *t, const double *p, const tw_score *s) {
    double q[5];
    tw_clip5(p, q);
    return tw_emg_to_mwc(t, tw_cubeless(t, q, s), s);
}

int tw_cube_match(const tw_met *t, const double *p, const tw_score *s, double x, double *nd, double *dt,
                  double *dp, double *mwc) {
    double q[5], a, b, c, doubled;
    int d;
    tw_clip5(p, q);
    a = tw_cubeful_mwc(t, q, s, x);
    if (tw_score_may_double(s)) {
        tw_score ds = *s;
        ds.cube = 2 * s->cube;
        ds.owner = TW_CUBE_OPP;
        ds.crawford = 0;
        b = tw_cubeful_mwc(t, q, &ds, x);
        c = tw_score_me(t, s, s->cube, 0);
        doubled = b < c ? b : c;
        if (doubled >= a) d = b <= c ? TW_CUBE_TAKE : TW_CUBE_PASS;
        else d = TW_CUBE_NO_DOUBLE;
    } else {
        b = c = a;
        doubled = a;
        d = TW_CUBE_NO_DOUBLE;
    }
    if (nd) *nd = a;
    if (dt) *dt = b;
    if (dp) *dp = c;
    if (mwc) *mwc = d == TW_CUBE_NO_DOUBLE ? a : doubled;
    return d;
}
