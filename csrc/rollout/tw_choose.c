/*
 * The 0-ply move choice (tw_choose.h): children valued by one evaluator, the best for the
 * mover, ties broken by the rows' byte order.
 */
#include <stdlib.h>
#include "tw_choose.h"
#include "tw_expand.h"
#include "tw_result.h"

/* The replies' own expansion and scratch (the children of the choice stay in the outer ones). */
struct tw_choose_inner {
    tw_ctx c;
    tw_choose_ws w;
};

void tw_choose_ws_init(tw_choose_ws *w) { memset(w, 0, sizeof(*w)); }

static void tw_choose_ws_release(tw_choose_ws *w) {
    free(w->v); free(w->ptr); free(w->at); free(w->o);
    w->v = NULL; w->ptr = NULL; w->at = NULL; w->o = NULL;
    w->cap = 0;
}

void tw_choose_ws_free(tw_choose_ws *w) {
    tw_choose_ws_release(w);
    if (w->inner) {
        tw_choose_ws_free(&w->inner->w);
        tw_ctx_free(&w->inner->c);
        tw_out_free(&w->inner->c);
        free(w->inner);
    }
    memset(w, 0, sizeof(*w));
}

static int tw_choose_ws_grow(tw_choose_ws *w, long n) {
    long cap = w->cap ? w->cap : 64;
    if (n <= w->cap) return 1;
    while (cap < n) cap *= 2;
    tw_choose_ws_release(w);
    w->v = malloc((size_t)cap * sizeof(*w->v));
    w->ptr = malloc((size_t)cap * sizeof(*w->ptr));
    w->at = malloc((size_t)cap * sizeof(*w->at));
    w->o = malloc((size_t)cap * TW_NET_NO * sizeof(float));
    if (!w->v || !w->ptr || !w->at || !w->o) { tw_choose_ws_free(w); return 0; }
    w->cap = cap;
    return 1;
}

void tw_swap_sides(const float *o, float *t) {
    float u[TW_NET_NO];
    u[0] = 1.0f - o[0];
    u[1] = o[3]; u[2] = o[4]; u[3] = o[1]; u[4] = o[2];
    memcpy(t, u, sizeof(u));
}

double tw_outcome(const tw_params *P, tw_result res, float *t) {
    int k, mover_won = res.winner == 1, pts = res.points;
    for (k = 0; k < TW_NET_NO; k++) t[k] = 0.0f;
    if (res.winner < 0) { t[0] = 0.5f; return 0.0; }
    t[0] = mover_won ? 1.0f : 0.0f;
    k = mover_won ? 1 : 3;  /* the winner's gammon output */
    if (P->scoring == TW_SCORE_CHECKERS_LEFT) {
        t[k] = pts == 15 ? 1.0f : 0.0f;
        t[k + 1] = (float)pts / 15.0f;
    } else {
        t[k] = pts >= 2 ? 1.0f : 0.0f;
        t[k + 1] = P->scoring == TW_SCORE_CUBE && pts >= 3 ? 1.0f : 0.0f;
    }
    return mover_won ? pts : -pts;
}

/* The outputs of tw_net.h's layout from the six columns: the columns' probabilities, and under
   checkers-left scoring the equity split into points won and lost. */
static void tw_out_of_cols(const tw_params *P, const double *col, float *o) {
    if (P->scoring == TW_SCORE_CHECKERS_LEFT) {
        o[0] = (float)col[1]; o[1] = (float)col[2]; o[3] = (float)col[4];
        o[2] = (float)(col[0] > 0 ? col[0] / 15.0 : 0.0);
        o[4] = (float)(col[0] < 0 ? -col[0] / 15.0 : 0.0);
    } else {
        int k;
        for (k = 0; k < TW_NET_NO; k++) o[k] = (float)col[k + 1];
    }
}

/* A network's outputs as a value: the columns of tw_net_columns and its outputs clipped the
   same way (gammons within wins, losses within 1 - win). */
static void tw_net_value(const tw_params *P, const float *o, tw_value *v) {
    tw_net_columns(P, o, v->col);
    if (P->scoring == TW_SCORE_CHECKERS_LEFT) {
        memcpy(v->out, o, TW_NET_NO * sizeof(float));
        if (v->out[1] > v->out[0]) v->out[1] = v->out[0];
        if (v->out[3] > 1.0f - v->out[0]) v->out[3] = 1.0f - v->out[0];
    } else {
        tw_out_of_cols(P, v->col, v->out);
    }
}

int tw_value_rows(const tw_params *P, const tw_evaluator *E, const tw_geo *g, tw_choose_ws *w,
                  const uint8_t *rows, long n, tw_value *v) {
    long i, m = 0;
    if (!tw_choose_ws_grow(w, n)) return 0;  /* before any value is written: v may be w->v */
    for (i = 0; i < n; i++) {
        const uint8_t *row = rows + (size_t)i * TW_W;
        v[i].kind = tw_eval_ends(P, g, row, E->race, v[i].col);
        if (v[i].kind == TW_END_DRAW) {
            tw_result draw = {1, -1, TW_K_DRAW, 0};
            tw_outcome(P, draw, v[i].out);
            continue;
        }
        if (v[i].kind != TW_END_CONTACT) { tw_out_of_cols(P, v[i].col, v[i].out); continue; }
        if (E->contact == TW_CONTACT_LINEAR) tw_linear_row(P, row, E->W, E->ldw, v[i].col);
        else if (E->contact == TW_CONTACT_NOHIT) tw_nohit_row(P, row, v[i].col);
        else {
            w->ptr[m] = row;
            w->at[m++] = i;
            continue;
        }
        tw_out_of_cols(P, v[i].col, v[i].out);
    }
    if (m) {
        tw_net_rows_at(P, E->net, w->ptr, m, w->o);
        for (i = 0; i < m; i++) tw_net_value(P, w->o + (size_t)i * TW_NET_NO, &v[w->at[i]]);
    }
    return 1;
}

long tw_children(const tw_params *P, tw_ctx *c, const uint8_t *row, int d1, int d2) {
    tw_state root;
    int frozen = -1;
    size_t nch;
    c->nout = 0;
    tw_rowinfo_init(P, &c->ri, row);
    tw_state_from_row(&root, row);
    nch = tw_expand_row(c, row, &root, d1, d2, &frozen);
    return c->oom ? -1 : (long)nch;
}

/* Whether child i comes before child j at 0 ply (lower equity for the opponent; of equals the
   first row in byte order). */
static int tw_before(const tw_ctx *c, const tw_value *v, long i, long j) {
    double d = v[i].col[0] - v[j].col[0];
    return d < 0 || (d == 0 && memcmp(c->out + (size_t)i * TW_W, c->out + (size_t)j * TW_W, TW_W) < 0);
}

/* The 1-ply choice among the nch children in c->out valued at 0 ply in w->v: the index of the
   best, or -1 on OOM. */
static long tw_choose_ply1(const tw_params *P, const tw_evaluator *E, tw_ctx *c, tw_choose_ws *w, long nch) {
    long top[TW_CHOOSE_MAXPRUNE], i, best = -1;
    int nt = 0, k, d1, d2, prune = E->prune < 1 ? 1 : (E->prune > TW_CHOOSE_MAXPRUNE ? TW_CHOOSE_MAXPRUNE : E->prune);
    double best_v = 0.0;
    tw_evaluator E0 = *E;
    tw_value *v = w->v;
    E0.ply = 0;
    if (!w->inner) {  /* the replies' expansion and scratch, made once */
        w->inner = malloc(sizeof(*w->inner));
        if (!w->inner) return -1;
        if (!tw_ctx_init(&w->inner->c, P)) { free(w->inner); w->inner = NULL; return -1; }
        tw_choose_ws_init(&w->inner->w);
    }
    for (i = 0; i < nch; i++) {  /* the prune best at 0 ply, in order */
        if (nt == prune && !tw_before(c, v, i, top[nt - 1])) continue;
        k = nt < prune ? nt++ : nt - 1;
        for (; k > 0 && tw_before(c, v, i, top[k - 1]); k--) top[k] = top[k - 1];
        top[k] = i;
    }
    for (k = 0; k < nt; k++) {
        long j = top[k];
        double val;
        const uint8_t *ch = c->out + (size_t)j * TW_W;
        if (v[top[0]].col[0] - v[j].col[0] < -E->margin) break;  /* more than margin behind the best */
        if (v[j].kind != TW_END_CONTACT && v[j].kind != TW_END_RACE) {
            val = -v[j].col[0];  /* a finished game: its points */
        } else {  /* the opponent's best 0-ply reply to each roll, for the opponent, averaged */
            double acc = 0.0;
            uint8_t reply[64];
            tw_value rv;
            tw_result res;
            float t[TW_NET_NO];
            for (d1 = 1; d1 <= 6; d1++) {
                for (d2 = d1; d2 <= 6; d2++) {
                    double wr = d1 == d2 ? 1.0 / 36.0 : 2.0 / 36.0;
                    int kind = tw_choose(P, &E0, &w->inner->c, &w->inner->w, ch, d1, d2, 0.0f, NULL, reply, &rv, &res);
                    if (kind == TW_CHOSE_OOM) return -1;
                    acc += wr * (kind == TW_CHOSE_PLAY ? -rv.col[0] : tw_outcome(P, res, t));
                }
            }
            val = -acc;
        }
        if (best < 0 || val > best_v
            || (val == best_v && memcmp(ch, c->out + (size_t)best * TW_W, TW_W) < 0)) {
            best = j;
            best_v = val;
        }
    }
    return best;
}

int tw_choose(const tw_params *P, const tw_evaluator *E, tw_ctx *c, tw_choose_ws *w,
              const uint8_t *row, int d1, int d2, float explore, tw_rng *rng,
              uint8_t *child, tw_value *cv, tw_result *res) {
    tw_value *v;
    tw_result none = {0, -1, TW_K_UNFINISHED, 0};
    long nch = tw_children(P, c, row, d1, d2), i, best = 0;
    if (nch < 0) return TW_CHOSE_OOM;
    if (nch == 0) {  /* frozen before the move: a draw */
        res->over = 1; res->winner = -1; res->kind = TW_K_DRAW; res->points = 0;
        return TW_CHOSE_FROZEN;
    }
    if (explore > 0.0f && tw_uniform(rng) < explore) {
        best = (long)tw_below(rng, (uint32_t)nch);
        if (!tw_value_rows(P, E, &c->geo, w, c->out + (size_t)best * TW_W, 1, cv)) return TW_CHOSE_OOM;
    } else {
        if (!tw_choose_ws_grow(w, nch)) return TW_CHOSE_OOM;
        v = w->v;
        if (!tw_value_rows(P, E, &c->geo, w, c->out, nch, v)) return TW_CHOSE_OOM;
        for (i = 1; i < nch; i++) {
            double d = v[i].col[0] - v[best].col[0];
            if (d < 0 || (d == 0 && memcmp(c->out + (size_t)i * TW_W, c->out + (size_t)best * TW_W, TW_W) < 0))
                best = i;
        }
        if (E->ply >= 1 && nch > 1) {
            best = tw_choose_ply1(P, E, c, w, nch);
            if (best < 0) return TW_CHOSE_OOM;
        }
        *cv = w->v[best];
    }
    memcpy(child, c->out + (size_t)best * TW_W, TW_W);
    *res = none;
    if (cv->kind == TW_END_LOST || cv->kind == TW_END_WON || cv->kind == TW_END_DRAW)
        *res = tw_game_result(P, &c->geo, child, 1);
    else if (P->can_freeze)
        *res = tw_game_result(P, &c->geo, child, 0);
    return res->over ? TW_CHOSE_OVER : TW_CHOSE_PLAY;
}
