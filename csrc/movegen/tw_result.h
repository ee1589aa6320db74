/*
 * The end of a game (tw_result.c).
 */
#ifndef TW_RESULT_H
#define TW_RESULT_H

#include "tw_step.h"

int tw_is_frozen(const tw_params *P, const tw_geo *g, const uint8_t *row);
/* Whether tw_game_result without the frozen test can find the game of row b over: false only
   while no side has borne off 15 in a ruleset that ends games by nothing else (the hitting
   games), so that callers on a hot path skip the call. */
TW_INLINE int tw_may_be_over(const tw_params *P, const uint8_t *b) {
    return b[0] == 15 || b[26] == 15 || P->quadrant_lock_win || P->mother_plakoto;
}
tw_result tw_game_result(const tw_params *P, const tw_geo *g, const uint8_t *b, int no_freeze_check);
/* game over without the frozen test (the cheap part of the result) */
int tw_over_cheap(const tw_params *P, const tw_geo *g, const uint8_t *b);

#endif /* TW_RESULT_H */
