/*
 * Expansion of rows into their children (tw_expand.c): one (row, roll), and batches.
 */
#ifndef TW_EXPAND_H
#define TW_EXPAND_H

#include "tw_step.h"

size_t tw_expand_row(tw_ctx *c, const uint8_t *row, const tw_state *root, int d1, int d2, int *frozen_state);
long tw_check_dice(const uint8_t *dice, long n);  /* first row of uint8[n, 2] not in 1..6, or -1 */
int tw_expand_rows(tw_ctx *c, const uint8_t *rows, const uint8_t *dice, long n, tw_vec64 *par);
int tw_expand_rows_all_rolls(tw_ctx *c, const uint8_t *rows, long n, tw_vec64 *par, tw_vec64 *rol);

#endif /* TW_EXPAND_H */
