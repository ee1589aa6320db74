/*
 * Random playouts (tawla.playout): games from the starting position, each move uniform over
 * the distinct legal children, with the random numbers of tw_rng.h.
 */
#include "tw_playout.h"
#include "tw_expand.h"
#include "tw_result.h"
#include "tw_rng.h"

/* ------------------------------------------------------------------------------------------ */
/* Random playouts. Per game: turns played, winner (0 = the player who moved first, 1 = the   */
/* other, -1 draw), kind (TW_K_*), points. Returns 0 on OOM.                                   */
int tw_playout(const tw_params *P, long n_games, uint64_t seed, long max_turns,
                      int32_t *length, int8_t *winner, int8_t *kind, int16_t *points) {
    tw_ctx c;
    tw_rng rng;
    uint8_t row[64], init[64];
    long g;
    if (!tw_ctx_init(&c, P)) return 0;
    tw_rng_seed(&rng, seed);
    tw_start_row(P, init);
    for (g = 0; g < n_games; g++) {
        int d1, d2, mover = 0;
        long turns = 0;
        tw_result res = {0, -1, TW_K_UNFINISHED, 0};
        memcpy(row, init, 64);
        tw_opening_dice(P, &rng, &d1, &d2);  /* the starter is "player 0" */
        for (;;) {
            tw_state root;
            int frozen = -1;
            size_t nch;
            if (turns >= max_turns) { res.over = 0; break; }
            c.nout = 0;
            tw_rowinfo_init(P, &c.ri, row);
            tw_state_from_row(&root, row);
            nch = tw_expand_row(&c, row, &root, d1, d2, &frozen);
            if (c.oom) { tw_ctx_free(&c); tw_out_free(&c); return 0; }
            turns++;
            if (nch == 0) {  /* frozen before the move (cannot happen from a live position) */
                res.over = 1; res.winner = -1; res.kind = TW_K_DRAW; res.points = 0;
                break;
            }
            memcpy(row, c.out + (size_t)tw_below(&rng, (uint32_t)nch) * TW_W, TW_W);
            mover ^= 1;
            res = tw_game_result(P, &c.geo, row, 0);
            if (res.over) break;
            d1 = 1 + (int)tw_below(&rng, 6); d2 = 1 + (int)tw_below(&rng, 6);
        }
        length[g] = (int32_t)turns;
        if (!res.over) { winner[g] = -1; kind[g] = TW_K_UNFINISHED; points[g] = 0; }
        else {
            /* res.winner is relative to the row's mover, who is player `mover` */
            winner[g] = (int8_t)(res.winner < 0 ? -1 : (res.winner == 0 ? mover : mover ^ 1));
            kind[g] = (int8_t)res.kind; points[g] = (int16_t)res.points;
        }
    }
    tw_ctx_free(&c);
    tw_out_free(&c);
    return 1;
}
