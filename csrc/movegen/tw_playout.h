/*
 * Random playouts (tw_playout.c).
 */
#ifndef TW_PLAYOUT_H
#define TW_PLAYOUT_H

#include "tw_params.h"

/* n_games games; per game the turns played, the winner (0 = the player who moved first, 1 =
   the other, -1 draw or unfinished), the kind (TW_K_*) and the points. Returns 0 on OOM. */
int tw_playout(const tw_params *P, long n_games, uint64_t seed, long max_turns,
               int32_t *length, int8_t *winner, int8_t *kind, int16_t *points);

#endif /* TW_PLAYOUT_H */
