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
#include "tw_expand.h"
#include "tw_result.h"
#include "tw_rng.h"

#include <stdlib.h>

/* The outputs of a finished game for the side that moved last (res: relative to the row's
   mover, the other side). */
static void tw_outcome(const tw_params *P, tw_result res, float *t) {
    int k, mover_won = res.winner == 1, pts = res.points;
    for (k = 0; k < TW_NET_NO; k++) t[k] = 0.0f;
    if (res.winner < 0) { t[0] = 0.5f; return; }
    t[0] = mover_won ? 1.0f : 0.0f;
    k = mover_won ? 1 : 3;  /* the winner's gammon output */
    if (P->scoring == TW_SCORE_CHECKERS_LEFT) {
        t[k] = pts == 15 ? 1.0f : 0.0f;
        t[k + 1] = (float)pts / 15.0f;
    } else {
        t[k] = pts >= 2 ? 1.0f : 0.0f;
        t[k + 1] = P->scoring == TW_SCORE_CUBE && pts >= 3 ? 1.0f : 0.0f;
    }
}

/* The points a finished game is worth to the side that moved last. */
static double tw_outcome_points(tw_result res) {
    if (res.winner < 0) return 0.0;
    return res.winner == 1 ? res.points : -res.points;
}

/* The outputs o for one side as the outputs t for the other (win and loss, gammons and
   backgammons swapped). */
static void tw_swap_sides(const float *o, float *t) {
    t[0] = 1.0f - o[0];
    t[1] = o[3]; t[2] = o[4]; t[3] = o[1]; t[4] = o[2];
}

/* The children of a pre-roll row for dice (d1, d2) into c->out; how many, or -1 on OOM. */
static long tw_net_expand(const tw_params *P, tw_ctx *c, const uint8_t *row, int d1, int d2) {
    tw_state root;
    int frozen = -1;
    size_t nch;
    c->nout = 0;
    tw_rowinfo_init(P, &c->ri, row);
    tw_state_from_row(&root, row);
    nch = tw_expand_row(c, row, &root, d1, d2, &frozen);
    return c->oom ? -1 : (long)nch;
}

/* A child's result (cheap game-over test, no freeze check) into *r; 1 for a finished game, 2
   when race tables are given and no contact is left (the race model's outputs for the child's
   own mover into o), 0 when the network has to value it (o untouched). */
static int tw_net_child_kind(const tw_params *P, const tw_geo *geo, const tw_race_tables *race,
                             const uint8_t *ch, float *o, tw_result *r) {
    double ro[6];
    int k;
    tw_result none = {0, -1, TW_K_UNFINISHED, 0};
    *r = none;
    if (tw_over_cheap(P, geo, ch)) *r = tw_game_result(P, geo, ch, 1);
    if (r->over) return 1;
    if (race && tw_no_contact_opposite(ch)) {  /* the race model's value: no network */
        tw_race_row(P, ch, race, ro);
        if (P->scoring != TW_SCORE_CUBE) { ro[3] = ro[5] = 0.0; }
        for (k = 0; k < TW_NET_NO; k++) o[k] = (float)ro[k + 1];
        return 2;
    }
    return 0;
}

/* tw_net_child_kind, and for kind 0 the network's outputs for the child's mover into o. */
static int tw_net_child(const tw_params *P, const tw_geo *geo, const tw_net *n, const tw_race_tables *race,
                        const uint8_t *ch, float *o, tw_result *r) {
    int idx[TW_NET_NI], m;
    float val[TW_NET_NI], h[TW_NET_MAXH];
    int kind = tw_net_child_kind(P, geo, race, ch, o, r);
    if (kind == 0) {
        m = tw_net_inputs(P, ch, idx, val);
        tw_net_forward(n, idx, val, m, h, o);
    }
    return kind;
}

/* The greedy move of the pre-roll row for dice (d1, d2) (with probability explore a uniformly
   random child instead; rng only read then): the chosen child into child[TW_W], the outputs
   after the move for the row's mover into t[TW_NET_NO], the game's result after it into *res.
   Returns TW_GREEDY_PLAY, _OVER (the move ends the game), _RACE (the child has no contact and
   the race model valued it), _FROZEN (no legal child: a draw, t its outputs) or _OOM. The
   children the network values are evaluated together (tw_net_rows_at: the same outputs as one
   at a time); of equal values the first child wins. */
enum { TW_GREEDY_PLAY, TW_GREEDY_OVER, TW_GREEDY_RACE, TW_GREEDY_FROZEN, TW_GREEDY_OOM };

#define TW_GREEDY_STACK 256

static int tw_net_greedy(const tw_params *P, tw_ctx *c, const tw_net *n, const tw_race_tables *race,
                         const uint8_t *row, int d1, int d2, float explore, tw_rng *rng,
                         uint8_t *child, float *t, tw_result *res) {
    float so[TW_GREEDY_STACK * TW_NET_NO], sq[TW_GREEDY_STACK * TW_NET_NO], *o = so, *q = sq;
    const uint8_t *sp[TW_GREEDY_STACK], **ptr = sp;
    long sat[TW_GREEDY_STACK], *at = sat;
    double sv[TW_GREEDY_STACK], *v = sv, best_v = -1e300;
    signed char sk[TW_GREEDY_STACK], *kinds = sk;
    void *heap = NULL;
    const float *bo;
    long nch = tw_net_expand(P, c, row, d1, d2), i, best = 0, m = 0;
    int bk;
    tw_result r, none = {0, -1, TW_K_UNFINISHED, 0};
    if (nch < 0) return TW_GREEDY_OOM;
    if (nch == 0) {  /* frozen before the move: a draw */
        res->over = 1; res->winner = -1; res->kind = TW_K_DRAW; res->points = 0;
        tw_outcome(P, *res, t);
        return TW_GREEDY_FROZEN;
    }
    if (explore > 0.0f && tw_uniform(rng) < explore) {  /* one random child, valued alone */
        best = (long)tw_below(rng, (uint32_t)nch);
        bk = tw_net_child(P, &c->geo, n, race, c->out + (size_t)best * TW_W, so, &r);
        bo = so;
    } else {
        if (nch > TW_GREEDY_STACK) {
            char *b = heap = malloc((size_t)nch * (2 * TW_NET_NO * sizeof(float) + sizeof(double) + sizeof(long)
                                                   + sizeof(*ptr) + 1));
            if (!heap) return TW_GREEDY_OOM;
            v = (double *)b; b += (size_t)nch * sizeof(double);
            at = (long *)b; b += (size_t)nch * sizeof(long);
            ptr = (const uint8_t **)b; b += (size_t)nch * sizeof(*ptr);
            o = (float *)b; b += (size_t)nch * TW_NET_NO * sizeof(float);
            q = (float *)b; b += (size_t)nch * TW_NET_NO * sizeof(float);
            kinds = (signed char *)b;
        }
        for (i = 0; i < nch; i++) {
            const uint8_t *ch = c->out + (size_t)i * TW_W;
            kinds[i] = (signed char)tw_net_child_kind(P, &c->geo, race, ch, o + (size_t)i * TW_NET_NO, &r);
            if (kinds[i] == 1) v[i] = tw_outcome_points(r);
            else if (kinds[i] == 2) v[i] = -tw_net_equity(P, o + (size_t)i * TW_NET_NO);
            else { ptr[m] = ch; at[m++] = i; }
        }
        tw_net_rows_at(P, n, ptr, m, q);
        for (i = 0; i < m; i++) {
            memcpy(o + (size_t)at[i] * TW_NET_NO, q + (size_t)i * TW_NET_NO, TW_NET_NO * sizeof(float));
            v[at[i]] = -tw_net_equity(P, q + (size_t)i * TW_NET_NO);
        }
        for (i = 0; i < nch; i++)
            if (v[i] > best_v) { best_v = v[i]; best = i; }
        bk = kinds[best];
        bo = o + (size_t)best * TW_NET_NO;
        r = none;
        if (bk == 1) tw_net_child_kind(P, &c->geo, race, c->out + (size_t)best * TW_W, q, &r);
    }
    memcpy(child, c->out + (size_t)best * TW_W, TW_W);
    if (bk != 1 && P->can_freeze) r = tw_game_result(P, &c->geo, child, 0);
    *res = r;
    if (r.over) tw_outcome(P, r, t);
    else tw_swap_sides(bo, t);  /* the child's outputs are the opponent's */
    free(heap);
    if (r.over) return TW_GREEDY_OVER;
    return bk == 2 ? TW_GREEDY_RACE : TW_GREEDY_PLAY;
}

int tw_net_train(const tw_params *P, tw_net *n, long n_games, uint64_t seed, float alpha,
                 long max_turns, const tw_race_tables *race, int32_t *length, int8_t *winner,
                 int16_t *points) {
    tw_ctx c;
    tw_rng rng;
    uint8_t row[64], init[64], child[64];
    int idx[TW_NET_NI];
    float val[TW_NET_NI], h[TW_NET_MAXH], o[TW_NET_NO], t[TW_NET_NO];
    long g;
    if (!tw_ctx_init(&c, P)) return 0;
    tw_rng_seed(&rng, seed);
    tw_start_row(P, init);
    memset(child, 0, sizeof(child));
    for (g = 0; g < n_games; g++) {
        int d1, d2, mover = 0, m, kind;
        long turns = 0;
        tw_result res = {0, -1, TW_K_UNFINISHED, 0};
        memcpy(row, init, 64);
        tw_opening_dice(P, &rng, &d1, &d2);  /* the starter is "player 0" */
        for (;;) {
            if (turns >= max_turns) { res.over = 0; break; }
            m = tw_net_inputs(P, row, idx, val);
            tw_net_forward(n, idx, val, m, h, o);
            kind = tw_net_greedy(P, &c, n, race, row, d1, d2, 0.0f, &rng, child, t, &res);
            if (kind == TW_GREEDY_OOM) { tw_ctx_free(&c); tw_out_free(&c); return 0; }
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
    tw_ctx_free(&c);
    tw_out_free(&c);
    return 1;
}

long tw_net_positions(const tw_params *P, const tw_net *n, long n_games, uint64_t seed,
                      float explore, long max_turns, const tw_race_tables *race, uint8_t *rows,
                      long cap) {
    tw_ctx c;
    tw_rng rng;
    uint8_t row[64], init[64], child[64];
    float t[TW_NET_NO];
    long g, count = 0;
    if (!tw_ctx_init(&c, P)) return -1;
    tw_rng_seed(&rng, seed);
    tw_start_row(P, init);
    memset(child, 0, sizeof(child));
    for (g = 0; g < n_games && count < cap; g++) {
        int d1, d2, kind;
        long turns = 0;
        tw_result res;
        memcpy(row, init, 64);
        tw_opening_dice(P, &rng, &d1, &d2);
        while (turns < max_turns && count < cap) {
            if (turns > 0) memcpy(rows + (size_t)count++ * TW_W, row, TW_W);  /* before the roll */
            kind = tw_net_greedy(P, &c, n, race, row, d1, d2, explore, &rng, child, t, &res);
            if (kind == TW_GREEDY_OOM) { tw_ctx_free(&c); tw_out_free(&c); return -1; }
            turns++;
            if (kind != TW_GREEDY_PLAY) break;
            memcpy(row, child, TW_W);
            d1 = 1 + (int)tw_below(&rng, 6); d2 = 1 + (int)tw_below(&rng, 6);
        }
    }
    tw_ctx_free(&c);
    tw_out_free(&c);
    return count;
}

/* The 1-ply outputs of a pre-roll row for its mover into out[TW_NET_NO] (the greedy move's
   outputs for each of the 21 rolls, weighted); returns 0 on OOM. */
static int tw_net_ply1_row(const tw_params *P, tw_ctx *c, const tw_net *n, const tw_race_tables *race,
                           const uint8_t *row, tw_rng *rng, float *out) {
    uint8_t child[64];
    float t[TW_NET_NO];
    double acc[TW_NET_NO] = {0};
    tw_result res;
    int d1, d2, k;
    for (d1 = 1; d1 <= 6; d1++) {
        for (d2 = d1; d2 <= 6; d2++) {
            double w = d1 == d2 ? 1.0 / 36.0 : 2.0 / 36.0;
            if (tw_net_greedy(P, c, n, race, row, d1, d2, 0.0f, rng, child, t, &res) == TW_GREEDY_OOM) return 0;
            for (k = 0; k < TW_NET_NO; k++) acc[k] += w * t[k];
        }
    }
    for (k = 0; k < TW_NET_NO; k++) out[k] = (float)acc[k];
    return 1;
}

int tw_net_ply1_targets(const tw_params *P, const tw_net *n, const tw_race_tables *race,
                        const uint8_t *rows, long count, float *targets) {
    tw_ctx c;
    tw_rng rng;  /* unread: the search explores nothing */
    long i;
    if (!tw_ctx_init(&c, P)) return 0;
    tw_rng_seed(&rng, 0);
    for (i = 0; i < count; i++) {
        if (!tw_net_ply1_row(P, &c, n, race, rows + (size_t)i * TW_W, &rng, targets + (size_t)i * TW_NET_NO)) {
            tw_ctx_free(&c); tw_out_free(&c); return 0;
        }
    }
    tw_ctx_free(&c);
    tw_out_free(&c);
    return 1;
}

/* The outputs, for the mover, of a child of the 0-ply pass (tw_net_child, and the freeze
   check where the ruleset has one) into t; its value for the mover returned; *kind: 1 game
   over, 2 race, 0 contact. */
static double tw_net_child0(const tw_params *P, const tw_geo *geo, const tw_net *n,
                            const tw_race_tables *race, const uint8_t *ch, float *t, int *kind) {
    float o[TW_NET_NO];
    tw_result r;
    *kind = tw_net_child(P, geo, n, race, ch, o, &r);
    if (*kind != 1 && P->can_freeze) {
        r = tw_game_result(P, geo, ch, 0);
        if (r.over) *kind = 1;
    }
    if (*kind == 1) { tw_outcome(P, r, t); return tw_outcome_points(r); }
    tw_swap_sides(o, t);
    return tw_net_equity(P, t);
}

#define TW_PLY2_MAXK 8

int tw_net_ply2_targets(const tw_params *P, const tw_net *n, const tw_race_tables *race,
                        const uint8_t *rows, long count, int prune, float *targets) {
    tw_ctx c, c2;
    tw_rng rng;
    uint8_t kids[TW_PLY2_MAXK][64];
    float t[TW_NET_NO], tk[TW_PLY2_MAXK][TW_NET_NO], inner[TW_NET_NO];
    double vk[TW_PLY2_MAXK];
    int kindk[TW_PLY2_MAXK];
    long i;
    int d1, d2, k, j, kind, ok = 1;
    if (prune < 1) prune = 1;
    if (prune > TW_PLY2_MAXK) prune = TW_PLY2_MAXK;
    if (!tw_ctx_init(&c, P)) return 0;
    if (!tw_ctx_init(&c2, P)) { tw_ctx_free(&c); return 0; }
    tw_rng_seed(&rng, 0);
    for (i = 0; i < count && ok; i++) {
        const uint8_t *row = rows + (size_t)i * TW_W;
        double acc[TW_NET_NO] = {0};
        for (d1 = 1; d1 <= 6 && ok; d1++) {
            for (d2 = d1; d2 <= 6 && ok; d2++) {
                double w = d1 == d2 ? 1.0 / 36.0 : 2.0 / 36.0, best_v = -1e300;
                int nk = 0, best = 0;
                long nch = tw_net_expand(P, &c, row, d1, d2), ci;
                if (nch < 0) { ok = 0; break; }
                if (nch == 0) {  /* frozen before the move: a draw */
                    tw_result res = {1, -1, TW_K_DRAW, 0};
                    tw_outcome(P, res, t);
                    for (k = 0; k < TW_NET_NO; k++) acc[k] += w * t[k];
                    continue;
                }
                /* the prune best children at 0 ply (the first of equal values first) */
                for (ci = 0; ci < nch; ci++) {
                    const uint8_t *ch = c.out + (size_t)ci * TW_W;
                    double v = tw_net_child0(P, &c.geo, n, race, ch, t, &kind);
                    int pos;
                    if (nk < prune) pos = nk++;
                    else if (v > vk[prune - 1]) pos = prune - 1;
                    else continue;
                    for (; pos > 0 && vk[pos - 1] < v; pos--) {
                        vk[pos] = vk[pos - 1]; kindk[pos] = kindk[pos - 1];
                        memcpy(tk[pos], tk[pos - 1], sizeof(tk[pos])); memcpy(kids[pos], kids[pos - 1], TW_W);
                    }
                    vk[pos] = v; kindk[pos] = kind;
                    memcpy(tk[pos], t, sizeof(t)); memcpy(kids[pos], ch, TW_W);
                }
                /* each valued by a 1-ply search from its mover's seat (game ends, races: as they are) */
                for (j = 0; j < nk; j++) {
                    if (kindk[j] == 0) {
                        if (!tw_net_ply1_row(P, &c2, n, race, kids[j], &rng, inner)) { ok = 0; break; }
                        tw_swap_sides(inner, tk[j]);
                        vk[j] = tw_net_equity(P, tk[j]);
                    }
                    if (vk[j] > best_v) { best_v = vk[j]; best = j; }
                }
                for (k = 0; k < TW_NET_NO; k++) acc[k] += w * tk[best][k];
            }
        }
        for (k = 0; k < TW_NET_NO; k++) targets[i * TW_NET_NO + k] = (float)acc[k];
    }
    tw_ctx_free(&c); tw_out_free(&c);
    tw_ctx_free(&c2); tw_out_free(&c2);
    return ok;
}

#define TW_ROLLOUT_MAX_PLIES 10000

int tw_net_rollout_targets(const tw_params *P, const tw_net *n, const tw_race_tables *race,
                           const uint8_t *rows, long count, long first, int trials, int horizon,
                           uint64_t seed, float *targets) {
    tw_ctx c;
    tw_rng rng;
    uint8_t cur[64], child[64];
    float t[TW_NET_NO], u[TW_NET_NO];
    tw_result res;
    long i;
    int trial, ply, k, last, kind = TW_GREEDY_PLAY;
    if (trials < 1) trials = 1;
    if (!tw_ctx_init(&c, P)) return 0;
    for (i = 0; i < count; i++) {
        double acc[TW_NET_NO] = {0};
        /* the dice of row first + i depend on nothing else: the same whatever the chunks */
        tw_rng_seed(&rng, seed ^ (0x9E3779B97F4A7C15ULL * (uint64_t)(first + i + 1)));
        for (trial = 0; trial < trials; trial++) {
            int d1 = 1 + (trial % 36) / 6, d2 = 1 + trial % 6, mover = 0;  /* first roll stratified */
            memcpy(cur, rows + (size_t)i * TW_W, TW_W);
            for (ply = 0; ply < (horizon > 0 ? horizon : TW_ROLLOUT_MAX_PLIES); ply++) {
                kind = tw_net_greedy(P, &c, n, race, cur, d1, d2, 0.0f, &rng, child, t, &res);
                if (kind == TW_GREEDY_OOM) { tw_ctx_free(&c); tw_out_free(&c); return 0; }
                if (kind != TW_GREEDY_PLAY) break;
                memcpy(cur, child, TW_W);
                mover ^= 1;
                if (horizon > 0 && ply + 1 == horizon) break;
                d1 = 1 + (int)tw_below(&rng, 6); d2 = 1 + (int)tw_below(&rng, 6);
            }
            /* t: the outputs after the last move for the side that made it (side 0: the row's
               mover); mover was passed on only after a move that left the game going */
            last = kind == TW_GREEDY_PLAY ? mover ^ 1 : mover;
            if (last == 1) tw_swap_sides(t, u);
            else memcpy(u, t, sizeof(u));
            for (k = 0; k < TW_NET_NO; k++) acc[k] += u[k];
        }
        for (k = 0; k < TW_NET_NO; k++) targets[i * TW_NET_NO + k] = (float)(acc[k] / trials);
    }
    tw_ctx_free(&c);
    tw_out_free(&c);
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
