/*
 * The rollout trial loop (tw_rollout.h).
 */
#include <stdlib.h>
#include "tw_rollout.h"
#include "tw_result.h"

void tw_ro_stream(uint64_t seed, long t, tw_rng *rng) {
    tw_rng_seed(rng, seed ^ (0x9E3779B97F4A7C15ULL * (uint64_t)(t + 1)));
}

/* Roll k (0 the first) of trial t. */
static void tw_ro_roll(const tw_ro_settings *S, long t, long k, tw_rng *rng, int *d1, int *d2) {
    int r;
    if (k == 0 && S->stratify >= 1) r = (int)((t + S->rot[0]) % 36);
    else if (k == 1 && S->stratify >= 2) r = (int)((t / 36 + S->rot[1]) % 36);
    else r = (int)tw_below(rng, 36);
    *d1 = 1 + r / 6;
    *d2 = 1 + r % 6;
}

/* A value seen from the other side. */
static void tw_ro_flip(const float *o, double eq, float *fo, double *feq) {
    tw_swap_sides(o, fo);
    *feq = -eq;
}

/* One move of the mover of row for (d1, d2): tw_choose, and the value after it for the
   mover (outputs mo, equity *meq). Returns TW_CHOSE_*. */
static int tw_ro_move(const tw_params *P, const tw_evaluator *E, tw_ctx *c, tw_choose_ws *w,
                      const uint8_t *row, int d1, int d2, uint8_t *child, tw_value *cv, tw_result *res,
                      float *mo, double *meq) {
    int kind = tw_choose(P, E, c, w, row, d1, d2, 0.0f, NULL, child, cv, res);
    if (kind == TW_CHOSE_OOM) return kind;
    if (kind == TW_CHOSE_PLAY) tw_ro_flip(cv->out, cv->col[0], mo, meq);
    else *meq = tw_outcome(P, *res, mo);
    return kind;
}

/* Whether every checker of both sides of a row is home (the one-sided database's range). */
static int tw_ro_all_home(const tw_params *P, const uint8_t *row) {
    int me[26], opp[26], p;
    tw_sides(row, P->same, me, opp);
    for (p = 7; p < 26; p++) if (me[p] || opp[p]) return 0;
    return 1;
}

/* Whether a trial stops at a row of value v: a finished game (only a root can be one), or a
   race where the settings stop. */
static int tw_ro_stops(const tw_params *P, const tw_ro_settings *S, const uint8_t *row, const tw_value *v) {
    if (v->kind == TW_END_CONTACT) return 0;
    if (v->kind != TW_END_RACE) return 1;
    return S->stop_race || (S->stop_bearoff && tw_ro_all_home(P, row));
}

/* The cube's owner seen from side (owner: the side that owns it, -1 centred). */
static int tw_ro_owner(int owner, int side) {
    return owner < 0 ? TW_CUBE_CENTRED : (owner == side ? TW_CUBE_OWN : TW_CUBE_OPP);
}

typedef struct {
    tw_ctx c;
    tw_choose_ws w;
} tw_ro_ws;

/* The match as side sees it with the cube at c times the starting one, owner (-1 centred). */
static void tw_ro_score(const tw_ro_settings *S, int side, double c, int owner, tw_score *sc) {
    sc->away = S->away[side];
    sc->opp_away = S->away[side ^ 1];
    sc->cube = S->cube_value * (int)c;
    sc->owner = tw_ro_owner(owner, side);
    sc->crawford = S->crawford;
}

/* The cube efficiency at a backgammon row, for its side on roll (tawla.bots.cube.cube_efficiency). */
static double tw_ro_efficiency(const tw_params *P, const tw_ro_settings *S, const uint8_t *row) {
    const tw_cube_efficiency *e = &S->eff;
    int me[26], opp[26], p, pips = 0;
    double x;
    if (!S->by_class) return S->cube.efficiency;
    if (!tw_no_contact_opposite(row)) return e->contact;
    if (tw_ro_all_home(P, row)) return e->bearoff;
    tw_sides(row, P->same, me, opp);
    for (p = 1; p < 26; p++) pips += p * me[p];
    x = e->race_base + e->race_per_pip * pips;
    return x < e->race_min ? e->race_min : (x > e->race_max ? e->race_max : x);
}

/* The cube decision of side, on roll at row with value rv: TW_CUBE_*, and the value of the
   decision for side into *v (money: per unit of the cube; a match: 2 MWC - 1); decide 0: not
   doubling, whatever the model would. */
static int tw_ro_decide(const tw_params *P, const tw_ro_settings *S, const uint8_t *row, const tw_value *rv,
                        int side, double c, int owner, int decide, double *v) {
    const double *col = rv->col;
    tw_cube_model m = S->cube;
    int d;
    m.efficiency = tw_ro_efficiency(P, S, row);
    if (S->match && S->no_cube) {
        tw_score sc;
        tw_ro_score(S, side, c, owner, &sc);
        *v = 2 * tw_match_cubeless(&S->met, col + 1, &sc) - 1;
        return TW_CUBE_NO_DOUBLE;
    }
    if (S->match) {
        tw_score sc;
        double nd, mwc;
        tw_ro_score(S, side, c, owner, &sc);
        d = tw_cube_match(&S->met, col + 1, &sc, m.efficiency, &nd, NULL, NULL, &mwc);
        if (!decide) { d = TW_CUBE_NO_DOUBLE; mwc = nd; }
        *v = 2 * mwc - 1;
        return d;
    }
    if (decide) return tw_cube_decide(&m, col, tw_ro_owner(owner, side), v);
    {
        double dt;
        tw_cube_equities(&m, col, tw_ro_owner(owner, side), v, &dt);
        return TW_CUBE_NO_DOUBLE;
    }
}

/* A match's 2 MWC - 1 for side after a game it won pts (< 0: lost) at the cube's c times the
   starting one. */
static double tw_ro_match_end(const tw_ro_settings *S, int side, double c, double pts) {
    tw_score sc;
    int won;
    tw_ro_score(S, side, c, -1, &sc);
    won = (int)(pts < 0 ? -pts : pts) * sc.cube;
    return 2 * (pts > 0 ? tw_score_me(&S->met, &sc, won, 0) : tw_score_me(&S->met, &sc, 0, won)) - 1;
}

/* A match's value (2 MWC - 1) for side after it moved: kind TW_CHOSE_PLAY the opponent's
   cube decision on cv, else the game's result meq at the score. */
static double tw_ro_match_after(const tw_params *P, const tw_ro_settings *S, int side, double c, int owner,
                                int kind, const uint8_t *child, const tw_value *cv, double meq) {
    double v;
    if (kind != TW_CHOSE_PLAY) return tw_ro_match_end(S, side, c, meq);
    tw_ro_decide(P, S, child, cv, side ^ 1, c, owner, 1, &v);
    return -v;
}

/* One trial of row (its value rv for its mover): the TW_RO_NV numbers into out and raw. */
static int tw_ro_trial(const tw_params *P, const tw_evaluator *E, const tw_ro_settings *S, tw_ro_ws *ws,
                       const uint8_t *row, const tw_value *rv, long t, double *out, double *raw, int32_t *plies) {
    tw_rng rng;
    uint8_t cur[64], child[64], keep[64];
    tw_value cv, cur_v = *rv, keep_v;
    tw_result res, keep_res;
    float fo[TW_NET_NO], mo[TW_NET_NO], keep_mo[TW_NET_NO], luck[TW_NET_NO] = {0};
    double meq, keep_eq, luck_eq = 0.0, luck_cf = 0.0, c = 1.0, cf = 0.0, eq, feq;
    tw_evaluator E0 = *E;  /* the luck is valued at 0 ply whatever the level */
    int side = 0, owner = S->owner == TW_CUBE_OWN ? 0 : (S->owner == TW_CUBE_OPP ? 1 : -1);
    int live = S->cubeful, kind = TW_CHOSE_PLAY, keep_kind = TW_CHOSE_PLAY, k, d1, d2, e1, e2, stop = 0;
    long ply;
    E0.ply = 0;
    tw_ro_stream(S->seed, t, &rng);
    memcpy(cur, row, TW_W);
    memset(cur + TW_W, 0, 64 - TW_W);
    memset(child, 0, sizeof(child));
    for (ply = 0;; ply++) {
        if ((S->truncate > 0 && ply == S->truncate) || ply == TW_RO_MAX_PLIES
            || (ply == 0 && tw_ro_stops(P, S, cur, &cur_v))) { stop = 1; break; }
        if (live && !S->no_cube && (ply > 0 || S->decide_first) && tw_ro_owner(owner, side) != TW_CUBE_OPP) {
            double v;  /* the side on roll's cube decision */
            int d = tw_ro_decide(P, S, cur, &cur_v, side, c, owner, 1, &v);
            if (d == TW_CUBE_PASS) {
                cf = S->match ? (side == 0 ? v : -v) : (side == 0 ? c : -c);
                live = 0;
            }
            else if (d == TW_CUBE_TAKE) { c *= 2; owner = side ^ 1; }
            else if (d == TW_CUBE_BEAVER) { c *= 4; owner = side; }
        }
        tw_ro_roll(S, t, ply, &rng, &d1, &d2);
        if (d1 > d2) { k = d1; d1 = d2; d2 = k; }  /* a roll is its two dice in any order */
        if (S->vr) {  /* the 21 rolls at 0 ply: their mean, and the roll thrown */
            double mean_eq = 0.0, mean[TW_NET_NO] = {0}, mean_m = 0.0, keep_m = 0.0;
            int by_match = live && S->match;
            for (e1 = 1; e1 <= 6; e1++) {
                for (e2 = e1; e2 <= 6; e2++) {
                    double wr = e1 == e2 ? 1.0 / 36.0 : 2.0 / 36.0, m = 0.0;
                    kind = tw_ro_move(P, &E0, &ws->c, &ws->w, cur, e1, e2, child, &cv, &res, mo, &meq);
                    if (kind == TW_CHOSE_OOM) return 0;
                    for (k = 0; k < TW_NET_NO; k++) mean[k] += wr * mo[k];
                    mean_eq += wr * meq;
                    if (by_match) {
                        m = tw_ro_match_after(P, S, side, c, owner, kind, child, &cv, meq);
                        mean_m += wr * m;
                    }
                    if (e1 == d1 && e2 == d2) {
                        memcpy(keep, child, TW_W); keep_v = cv; keep_res = res; keep_kind = kind;
                        memcpy(keep_mo, mo, sizeof(mo)); keep_eq = meq; keep_m = m;
                    }
                }
            }
            memcpy(child, keep, TW_W); cv = keep_v; res = keep_res; kind = keep_kind;
            memcpy(mo, keep_mo, sizeof(mo)); meq = keep_eq;
            for (k = 0; k < TW_NET_NO; k++) fo[k] = (float)(mo[k] - mean[k]);  /* the luck, mover's view */
            eq = meq - mean_eq;
            if (side == 1) {  /* the root's view of a difference: outputs swapped, win negated */
                float u[TW_NET_NO] = {-fo[0], fo[3], fo[4], fo[1], fo[2]};
                memcpy(fo, u, sizeof(u));
            }
            for (k = 0; k < TW_NET_NO; k++) luck[k] += fo[k];
            luck_eq += side == 0 ? eq : -eq;
            if (by_match) luck_cf += side == 0 ? keep_m - mean_m : mean_m - keep_m;
            else if (live) luck_cf += (side == 0 ? c : -c) * eq;
            if (E->ply >= 1) {  /* the play itself by the level's deeper choice */
                kind = tw_ro_move(P, E, &ws->c, &ws->w, cur, d1, d2, child, &cv, &res, mo, &meq);
                if (kind == TW_CHOSE_OOM) return 0;
            }
        } else {
            kind = tw_ro_move(P, E, &ws->c, &ws->w, cur, d1, d2, child, &cv, &res, mo, &meq);
            if (kind == TW_CHOSE_OOM) return 0;
        }
        if (kind != TW_CHOSE_PLAY) break;  /* the game is over: mo, meq for side */
        memcpy(cur, child, TW_W);
        side ^= 1;
        cur_v = cv;
        if (tw_ro_stops(P, S, cur, &cv)) {
            stop = 1;
            ply++;
            break;
        }
    }
    if (stop) {  /* valued where it stopped: cur_v for side, and the cube model's value */
        memcpy(mo, cur_v.out, sizeof(mo));
        meq = cur_v.col[0];
        if (live) {
            double ce;
            tw_ro_decide(P, S, cur, &cur_v, side, c, owner, ply > 0 || S->decide_first, &ce);
            cf = S->match ? (side == 0 ? ce : -ce) : (side == 0 ? c : -c) * ce;
        }
    } else {
        ply++;
        if (live && S->match) {  /* the game's result at the score */
            double v = tw_ro_match_end(S, side, c, meq);
            cf = side == 0 ? v : -v;
        } else if (live) {  /* the game's points for side (meq) at the cube's value */
            double pts = meq;
            if (S->cube.jacoby && owner < 0) pts = pts > 0 ? 1.0 : (pts < 0 ? -1.0 : 0.0);
            cf = (side == 0 ? c : -c) * pts;
        }
    }
    if (side == 1) { tw_ro_flip(mo, meq, fo, &feq); memcpy(mo, fo, sizeof(mo)); meq = feq; }
    for (k = 0; k < TW_NET_NO; k++) {
        if (raw) raw[k] = mo[k];
        out[k] = mo[k] - luck[k];
    }
    if (raw) { raw[5] = meq; raw[6] = S->cubeful ? cf : 0.0; }
    out[5] = meq - luck_eq;
    out[6] = S->cubeful ? cf - luck_cf : 0.0;
    if (plies) *plies = (int32_t)ply;
    return 1;
}

int tw_rollout(const tw_params *P, const tw_evaluator *E, const tw_ro_settings *S,
               const uint8_t *rows, long count, long first, long n, double *out, double *raw,
               int32_t *plies) {
    tw_ro_ws ws;
    tw_value rv;
    long i, j;
    int ok = 1;
    if (!tw_ctx_init(&ws.c, P)) return 0;
    tw_choose_ws_init(&ws.w);
    for (i = 0; i < count && ok; i++) {
        const uint8_t *row = rows + (size_t)i * TW_W;
        if (!tw_value_rows(P, E, &ws.c.geo, &ws.w, row, 1, &rv)) { ok = 0; break; }
        for (j = 0; j < n && ok; j++) {
            size_t at = (size_t)(i * n + j);
            ok = tw_ro_trial(P, E, S, &ws, row, &rv, first + j, out + at * TW_RO_NV,
                             raw ? raw + at * TW_RO_NV : NULL, plies ? plies + at : NULL);
        }
    }
    tw_choose_ws_free(&ws.w);
    tw_ctx_free(&ws.c);
    tw_out_free(&ws.c);
    return ok;
}
