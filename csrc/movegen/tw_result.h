/*
 * The end of a game (tw_result.c).
 */
#ifndef TW_RESULT_H
#define TW_RESULT_H

#include "tw_step.h"

int tw_is_frozen(const tw_params *P, const tw_geo *g, const uint8_t *row);
tw_result tw_game_result(const tw_params *P, const tw_geo *g, const uint8_t *b, int no_freeze_check);
/* game over without the frozen test (the cheap part of the result) */
int tw_over_cheap(const tw_params *P, const tw_geo *g, const uint8_t *b);

#endif /* TW_RESULT_H */
