/*
 * Training of a neural evaluator (tw_net.h) on the move generator: the greedy move of the
 * network (the child it values best, game ends valued exactly), TD(0) self-play, the positions
 * of self-play games, 1- and 2-ply search targets, truncated-rollout targets and their
 * supervised fitting. With race tables
 * (opposite geometry), a child with no contact left is valued by the race model (tw_eval.h):
 * the network learns contact positions only.
 */
#include "tw_net.h"
#include "tw_eval.h"
#include "tw_result.h"
#include "tw_rng.h"
#include "tw_choose.h"
#include "tw_rollout.h"
#include "tw_train.h"

#include <stdlib.h>

/* The network with race tables (NULL: none) as a chooser's evaluator. */
static tw_evaluator tw_net_evaluator(const tw_net *n, const tw_race_tables *race) {
    tw_evaluator e;
    memset(&e, 0, sizeof(e));
    e.contact = TW_CONTACT_NET;
    e.net = n;
    e.race = race;
    return e;
}

/* The greedy move of the pre-roll row for dice (d1, d2) (tw_choose; with probability explore
   a uniformly random child): the chosen child into child[TW_W], the outputs after the move for
   the row's mover into t[TW_NET_NO], the game's result after it into *res. Returns
   TW_GREEDY_PLAY, _OVER (the move ends the game), _RACE (with race tables: the child is a race,
   valued by the race model), _FROZEN (no legal child: a draw, t its outputs) or _OOM. */
enum { TW_GREEDY_PLAY, TW_GREEDY_OVER, TW_GREEDY_RACE, TW_GREEDY_FROZEN, TW_GREEDY_OOM };

static int tw_net_greedy(const tw_params *P, const tw_evaluator *E, tw_ctx *c, tw_choose_ws *w,
                         const uint8_t *row, int d1, int d2, float explore, tw_rng *rng,
                         uint8_t *child, float *t, tw_result *res) {
    tw_value cv;
    int kind = tw_choose(P, E, c, w, row, d1, d2, explore, rng, child, &cv, res);
    if (kind == TW_CHOSE_OOM) return TW_GREEDY_OOM;
    if (kind != TW_CHOSE_PLAY) {
        tw_outcome(P, *res, t);
        return kind == TW_CHOSE_FROZEN ? TW_GREEDY_FROZEN : TW_GREEDY_OVER;
    }
    tw_swap_sides(cv.out, t);  /* the child's outputs are the opponent's */
    return cv.kind == TW_END_RACE ? TW_GREEDY_RACE : TW_GREEDY_PLAY;
}

int tw_net_train(const tw_params *P, tw_net *n, long n_games, uint64_t seed, float alpha,
                 long max_turns, const tw_race_tables *race, int32_t *length, int8_t *winner,
                 int16_t *points) {
    tw_ctx c;
    tw_choose_ws w;
    tw_rng rng;
    tw_evaluator E = tw_net_evaluator(n, race);
    uint8_t row[64], init[64], child[64];
    int idx[TW_NET_NI];
    float val[TW_NET_NI], h[TW_NET_MAXH], o[TW_NET_NO], t[TW_NET_NO];
    long g;
    int ok = 1;
    if (!tw_ctx_init(&c, P)) return 0;
    tw_choose_ws_init(&w);
    tw_rng_seed(&rng, seed);
    tw_start_row(P, init);
    memset(child, 0, sizeof(child));
    for (g = 0; g < n_games && ok; g++) {
        int d1, d2, mover = 0, m, kind;
        long turns = 0;
        tw_result res = {0, -1, TW_K_UNFINISHED, 0};
        memcpy(row, init, 64);
        tw_opening_dice(P, &rng, &d1, &d2);  /* the starter is "player 0" */
        for (;;) {
            if (turns >= max_turns) { res.over = 0; break; }
            m = tw_net_inputs(P, row, idx, val);
            tw_net_forward(n, idx, val, m, h, o);
            kind = tw_net_greedy(P, &E, &c, &w, row, d1, d2, 0.0f, &rng, child, t, &res);
            if (kind == TW_GREEDY_OOM) { ok = 0; break; }
            turns++;
            tw_net_backprop(n, idx, val, m, h, o, t, alpha);
            if (kind == TW_GREEDY_FROZEN) break;
            memcpy(row, child, TW_W);
            mover ^= 1;
            if (kind == TW_GREEDY_OVER) break;
            if (kind == TW_GREEDY_RACE) { res.over = 0; break; }  /* the race model takes over */
            d1 = 1 + (int)tw_below(&rng, 6); d2 = 1 + (int)tw_below(&rng, 6);
        }
        if (length) length[g] = (int32_t)turns;
        if (winner) winner[g] = (int8_t)(!res.over || res.winner < 0 ? -1 : (res.winner == 0 ? mover : mover ^ 1));
        if (points) points[g] = (int16_t)(res.over ? res.points : 0);
    }
    tw_choose_ws_free(&w);
    tw_ctx_free(&c);
    tw_out_free(&c);
    return ok;
}

long tw_net_positions(const tw_params *P, const tw_net *n, long n_games, uint64_t seed,
                      float explore, long max_turns, const tw_race_tables *race, uint8_t *rows,
                      long cap) {
    tw_ctx c;
    tw_choose_ws w;
    tw_rng rng;
    tw_evaluator E = tw_net_evaluator(n, race);
    uint8_t row[64], init[64], child[64];
    float t[TW_NET_NO];
    long g, count = 0;
    if (!tw_ctx_init(&c, P)) return -1;
    tw_choose_ws_init(&w);
    tw_rng_seed(&rng, seed);
    tw_start_row(P, init);
    memset(child, 0, sizeof(child));
    for (g = 0; g < n_games && count < cap && count >= 0; g++) {
        int d1, d2, kind;
        long turns = 0;
        tw_result res;
        memcpy(row, init, 64);
        tw_opening_dice(P, &rng, &d1, &d2);
        while (turns < max_turns && count < cap) {
            if (turns > 0) memcpy(rows + (size_t)count++ * TW_W, row, TW_W);  /* before the roll */
            kind = tw_net_greedy(P, &E, &c, &w, row, d1, d2, explore, &rng, child, t, &res);
            if (kind == TW_GREEDY_OOM) { count = -1; break; }
            turns++;
            if (kind != TW_GREEDY_PLAY) break;
            memcpy(row, child, TW_W);
            d1 = 1 + (int)tw_below(&rng, 6); d2 = 1 + (int)tw_below(&rng, 6);
        }
    }
    tw_choose_ws_free(&w);
    tw_ctx_free(&c);
    tw_out_free(&c);
    return count;
}

/* The 1-ply outputs of a pre-roll row for its mover into out[TW_NET_NO] (the greedy move's
   outputs for each of the 21 rolls, weighted); returns 0 on OOM. */
static int tw_net_ply1_row(const tw_params *P, const tw_evaluator *E, tw_ctx *c, tw_choose_ws *w,
                           const uint8_t *row, float *out) {
    uint8_t child[64];
    float t[TW_NET_NO];
    double acc[TW_NET_NO] = {0};
    tw_result res;
    int d1, d2, k;
    for (d1 = 1; d1 <= 6; d1++) {
        for (d2 = d1; d2 <= 6; d2++) {
            double wr = d1 == d2 ? 1.0 / 36.0 : 2.0 / 36.0;
            if (tw_net_greedy(P, E, c, w, row, d1, d2, 0.0f, NULL, child, t, &res) == TW_GREEDY_OOM) return 0;
            for (k = 0; k < TW_NET_NO; k++) acc[k] += wr * t[k];
        }
    }
    for (k = 0; k < TW_NET_NO; k++) out[k] = (float)acc[k];
    return 1;
}

int tw_net_ply1_targets(const tw_params *P, const tw_net *n, const tw_race_tables *race,
                        const uint8_t *rows, long count, float *targets) {
    tw_ctx c;
    tw_choose_ws w;
    tw_evaluator E = tw_net_evaluator(n, race);
    long i;
    int ok = 1;
    if (!tw_ctx_init(&c, P)) return 0;
    tw_choose_ws_init(&w);
    for (i = 0; i < count && ok; i++)
        ok = tw_net_ply1_row(P, &E, &c, &w, rows + (size_t)i * TW_W, targets + (size_t)i * TW_NET_NO);
    tw_choose_ws_free(&w);
    tw_ctx_free(&c);
    tw_out_free(&c);
    return ok;
}

#define TW_PLY2_MAXK 8

/* The outputs t (for the mover) and the value of a child valued at 0 ply as v (for the child's
   mover), the freeze check done where the ruleset has one; *over: a finished game. */
static double tw_net_child0(const tw_params *P, const tw_geo *geo, const uint8_t *ch, const tw_value *v,
                            float *t, int *over) {
    tw_result r;
    *over = v->kind != TW_END_CONTACT && v->kind != TW_END_RACE;
    if (*over || P->can_freeze) {
        r = tw_game_result(P, geo, ch, !P->can_freeze);
        if (r.over) { *over = 1; return tw_outcome(P, r, t); }
    }
    tw_swap_sides(v->out, t);
    return -v->col[0];
}

int tw_net_ply2_targets(const tw_params *P, const tw_net *n, const tw_race_tables *race,
                        const uint8_t *rows, long count, int prune, float *targets) {
    tw_ctx c, c2;
    tw_choose_ws w, w2;
    tw_evaluator E = tw_net_evaluator(n, race);
    tw_value *vals = NULL;
    uint8_t kids[TW_PLY2_MAXK][64];
    float t[TW_NET_NO], tk[TW_PLY2_MAXK][TW_NET_NO], inner[TW_NET_NO];
    double vk[TW_PLY2_MAXK];
    int overk[TW_PLY2_MAXK];
    long i, capv = 0;
    int d1, d2, k, j, over, ok = 1;
    if (prune < 1) prune = 1;
    if (prune > TW_PLY2_MAXK) prune = TW_PLY2_MAXK;
    if (!tw_ctx_init(&c, P)) return 0;
    if (!tw_ctx_init(&c2, P)) { tw_ctx_free(&c); return 0; }
    tw_choose_ws_init(&w);
    tw_choose_ws_init(&w2);
    memset(kids, 0, sizeof(kids));
    for (i = 0; i < count && ok; i++) {
        const uint8_t *row = rows + (size_t)i * TW_W;
        double acc[TW_NET_NO] = {0};
        for (d1 = 1; d1 <= 6 && ok; d1++) {
            for (d2 = d1; d2 <= 6 && ok; d2++) {
                double wr = d1 == d2 ? 1.0 / 36.0 : 2.0 / 36.0, best_v = -1e300;
                int nk = 0, best = 0;
                long nch = tw_children(P, &c, row, d1, d2), ci;
                if (nch < 0) { ok = 0; break; }
                if (nch == 0) {  /* frozen before the move: a draw */
                    tw_result res = {1, -1, TW_K_DRAW, 0};
                    tw_outcome(P, res, t);
                    for (k = 0; k < TW_NET_NO; k++) acc[k] += wr * t[k];
                    continue;
                }
                if (nch > capv) {
                    free(vals);
                    capv = 2 * nch;
                    vals = malloc((size_t)capv * sizeof(*vals));
                    if (!vals) { ok = 0; break; }
                }
                if (!tw_value_rows(P, &E, &c.geo, &w, c.out, nch, vals)) { ok = 0; break; }
                /* the prune best children at 0 ply (the first of equal values first) */
                for (ci = 0; ci < nch; ci++) {
                    const uint8_t *ch = c.out + (size_t)ci * TW_W;
                    double v = tw_net_child0(P, &c.geo, ch, &vals[ci], t, &over);
                    int pos;
                    if (nk < prune) pos = nk++;
                    else if (v > vk[prune - 1]) pos = prune - 1;
                    else continue;
                    for (; pos > 0 && vk[pos - 1] < v; pos--) {
                        vk[pos] = vk[pos - 1]; overk[pos] = overk[pos - 1];
                        memcpy(tk[pos], tk[pos - 1], sizeof(tk[pos])); memcpy(kids[pos], kids[pos - 1], TW_W);
                    }
                    vk[pos] = v; overk[pos] = over || vals[ci].kind == TW_END_RACE;
                    memcpy(tk[pos], t, sizeof(t)); memcpy(kids[pos], ch, TW_W);
                }
                /* each valued by a 1-ply search from its mover's seat (game ends, races: as they are) */
                for (j = 0; j < nk; j++) {
                    if (!overk[j]) {
                        if (!tw_net_ply1_row(P, &E, &c2, &w2, kids[j], inner)) { ok = 0; break; }
                        tw_swap_sides(inner, tk[j]);
                        vk[j] = tw_net_equity(P, tk[j]);
                    }
                    if (vk[j] > best_v) { best_v = vk[j]; best = j; }
                }
                for (k = 0; k < TW_NET_NO; k++) acc[k] += wr * tk[best][k];
            }
        }
        for (k = 0; k < TW_NET_NO; k++) targets[i * TW_NET_NO + k] = (float)acc[k];
    }
    free(vals);
    tw_choose_ws_free(&w); tw_choose_ws_free(&w2);
    tw_ctx_free(&c); tw_out_free(&c);
    tw_ctx_free(&c2); tw_out_free(&c2);
    return ok;
}

int tw_net_rollout_targets(const tw_params *P, const tw_net *n, const tw_race_tables *race,
                           const uint8_t *rows, long count, long first, int trials, int horizon,
                           uint64_t seed, float *targets) {
    tw_evaluator E = tw_net_evaluator(n, race);
    tw_ro_settings S;
    double *out;
    long i;
    int j, k;
    if (trials < 1) trials = 1;
    out = malloc((size_t)trials * TW_RO_NV * sizeof(double));
    if (!out) return 0;
    memset(&S, 0, sizeof(S));
    S.truncate = horizon;
    S.stop_race = race != NULL;  /* the network learns contact positions only */
    S.stratify = 1;              /* trial j's first roll: the ordered roll j mod 36 */
    for (i = 0; i < count; i++) {
        /* the dice of row first + i depend on nothing else: the same whatever the chunks */
        S.seed = seed ^ (0xD1B54A32D192ED03ULL * (uint64_t)(first + i + 1));
        if (!tw_rollout(P, &E, &S, rows + (size_t)i * TW_W, 1, 0, trials, out, NULL, NULL)) { free(out); return 0; }
        for (k = 0; k < TW_NET_NO; k++) {
            double acc = 0.0;
            for (j = 0; j < trials; j++) acc += out[(size_t)j * TW_RO_NV + k];
            targets[i * TW_NET_NO + k] = (float)(acc / trials);
        }
    }
    free(out);
    return 1;
}

double tw_net_fit(const tw_params *P, tw_net *n, const uint8_t *rows, const float *targets,
                  const int64_t *order, long count, float alpha) {
    int idx[TW_NET_NI], m, k;
    float val[TW_NET_NI], h[TW_NET_MAXH], o[TW_NET_NO];
    double sse = 0.0;
    long i;
    for (i = 0; i < count; i++) {
        long j = (long)order[i];
        const float *t = targets + (size_t)j * TW_NET_NO;
        m = tw_net_inputs(P, rows + (size_t)j * TW_W, idx, val);
        tw_net_forward(n, idx, val, m, h, o);
        for (k = 0; k < TW_NET_NO; k++) sse += ((double)t[k] - o[k]) * ((double)t[k] - o[k]);
        tw_net_backprop(n, idx, val, m, h, o, t, alpha);
    }
    return count ? sse / (double)(count * TW_NET_NO) : 0.0;
}
