/*
 * Turns step by step (tw_turn.c): canonical step sequences.
 */
#ifndef TW_TURN_H
#define TW_TURN_H

#include "tw_step.h"

/* The reference's legal_turns search from row with dice d1-d2, every leaf in c->rec in the
   reference's order (c->P set by the caller). Returns 0 on OOM. */
int tw_sequences(tw_ctx *c, const uint8_t *row, int d1, int d2);
/* keep in c->rec the sequences the maximum-dice rule keeps (1.4, D17, the high die), in
   order; returns how many (0: the turn passes) */
size_t tw_sequences_keep(tw_ctx *c);

#endif /* TW_TURN_H */
