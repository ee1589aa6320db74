/*
 * TD(0) self-play training of a neural evaluator (tw_net.h) on the move generator: every move
 * the greedy choice of the network (the child it values best, game ends valued exactly), and
 * the position before the roll moved toward the value after the move. With race tables
 * (opposite geometry), a child with no contact left is valued by the race model (tw_eval.h)
 * and the game stops there: the network learns contact positions only.
 */
#include "tw_net.h"
#include "tw_eval.h"
#include "tw_expand.h"
#include "tw_result.h"
#include "tw_rng.h"

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

int tw_net_train(const tw_params *P, tw_net *n, long n_games, uint64_t seed, float alpha,
                 long max_turns, const tw_race_tables *race, int32_t *length, int8_t *winner,
                 int16_t *points) {
    tw_ctx c;
    tw_rng rng;
    uint8_t row[64], init[64];
    int idx[TW_NET_NI], cidx[TW_NET_NI];
    float val[TW_NET_NI], cval[TW_NET_NI];
    float h[TW_NET_MAXH], hc[TW_NET_MAXH], o[TW_NET_NO], oc[TW_NET_NO], best_o[TW_NET_NO], t[TW_NET_NO];
    double ro[6];
    long g;
    int k;
    if (!tw_ctx_init(&c, P)) return 0;
    tw_rng_seed(&rng, seed);
    tw_start_row(P, init);
    for (g = 0; g < n_games; g++) {
        int d1, d2, mover = 0, m;
        long turns = 0;
        tw_result res = {0, -1, TW_K_UNFINISHED, 0};
        memcpy(row, init, 64);
        tw_opening_dice(P, &rng, &d1, &d2);  /* the starter is "player 0" */
        for (;;) {
            tw_state root;
            int frozen = -1;
            size_t nch, i, best = 0;
            int best_race = 0;
            double best_v = -1e300;
            tw_result best_res = {0, -1, TW_K_UNFINISHED, 0};
            if (turns >= max_turns) { res.over = 0; break; }
            m = tw_net_inputs(P, row, idx, val);
            tw_net_forward(n, idx, val, m, h, o);
            c.nout = 0;
            tw_rowinfo_init(P, &c.ri, row);
            tw_state_from_row(&root, row);
            nch = tw_expand_row(&c, row, &root, d1, d2, &frozen);
            if (c.oom) { tw_ctx_free(&c); tw_out_free(&c); return 0; }
            turns++;
            if (nch == 0) {  /* frozen before the move: a draw */
                res.over = 1; res.winner = -1; res.kind = TW_K_DRAW; res.points = 0;
                tw_outcome(P, res, t);
                tw_net_backprop(n, idx, val, m, h, o, t, alpha);
                break;
            }
            for (i = 0; i < nch; i++) {
                const uint8_t *ch = c.out + i * TW_W;
                double v;
                int is_race = 0;
                tw_result r = {0, -1, TW_K_UNFINISHED, 0};
                if (tw_over_cheap(P, &c.geo, ch)) r = tw_game_result(P, &c.geo, ch, 1);
                if (r.over) v = tw_outcome_points(r);
                else if (race && tw_no_contact_opposite(ch)) {  /* the race model's value: no network */
                    tw_race_row(ch, race, ro);
                    if (P->scoring != TW_SCORE_CUBE) { ro[3] = ro[5] = 0.0; }
                    for (k = 0; k < TW_NET_NO; k++) oc[k] = (float)ro[k + 1];
                    v = -tw_net_equity(P, oc);
                    is_race = 1;
                } else {
                    int cm = tw_net_inputs(P, ch, cidx, cval);
                    tw_net_forward(n, cidx, cval, cm, hc, oc);
                    v = -tw_net_equity(P, oc);
                }
                if (v > best_v) {
                    best_v = v; best = i; best_res = r; best_race = is_race;
                    if (!r.over) memcpy(best_o, oc, sizeof(best_o));
                }
            }
            memcpy(row, c.out + best * TW_W, TW_W);
            if (!best_res.over && P->can_freeze) best_res = tw_game_result(P, &c.geo, row, 0);
            if (best_res.over) tw_outcome(P, best_res, t);
            else {  /* the child's outputs are the opponent's: swap the sides */
                t[0] = 1.0f - best_o[0];
                t[1] = best_o[3]; t[2] = best_o[4]; t[3] = best_o[1]; t[4] = best_o[2];
            }
            tw_net_backprop(n, idx, val, m, h, o, t, alpha);
            mover ^= 1;
            if (best_res.over) { res = best_res; break; }
            if (best_race) { res.over = 0; break; }  /* the race model takes over: a cut game */
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
