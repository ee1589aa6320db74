/*
 * Turns step by step (tw_turn.c): canonical step sequences, legal next steps, final positions.
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

/* a one-checker path: from p to t with the dice d[0..n-1] in the order used; hm the points
   where it hits or pins (bit i: point i) */
typedef struct { uint8_t p, t, n, hit; uint8_t d[4]; uint32_t hm; } tw_path;
#define TW_MAX_STEPS 32  /* legal next single steps: two dice x at most 15 from-points */
#define TW_MAX_PATHS 64  /* combined steps: at most 30 (non-doubles) or 45 (doubles) */

typedef struct {
    tw_ctx c;          /* rules, the facts of the turn's first row, dice, visited set, finals */
    tw_set memo;       /* best_length per (state, dice left) */
    tw_state s;        /* the board after the hops played */
    int nh, nl;        /* dice left: of the high die, of the low one (a double: nh of four) */
    int used;          /* dice used by the hops played */
    int target;        /* M of 1.4 for the whole turn (0: pass or game over) */
    int high_only;     /* only one die can be played: the first step takes the larger if it can */
    int ended;         /* a hop ended the game */
    int over;          /* the game was over before the turn */
} tw_turn;

int tw_turn_init(tw_turn *T, const tw_params *P);
void tw_turn_free(tw_turn *T);
/* start the turn of row (mover's seat) with d1-d2 under P; returns 0 on OOM */
int tw_turn_begin(tw_turn *T, const tw_params *P, const uint8_t *row, int d1, int d2);
/* play the hop a -> b (0 off) with die d: 0 played, 1 not a legal next step, 2 the game is
   already over this turn, 3 no step is legal in this turn (a pass, or the game was over) */
int tw_turn_play(tw_turn *T, int a, int b, int d);
/* the legal next single steps (out[TW_MAX_STEPS]); returns how many */
int tw_turn_singles(tw_turn *T, tw_step *out);
/* singles as tw_turn_singles, and the one-checker combined steps (combined[TW_MAX_PATHS],
   *nc of them) in tawla.turn.legal_steps' order; returns the number of singles */
int tw_turn_steps(tw_turn *T, tw_step *singles, tw_path *combined, int *nc);
/* every legal final row reachable from the hops played, with its first continuation, into
   T->c.rec (steps[0..nsteps-1]); a pass gives the row itself; returns 0 on OOM */
int tw_turn_finals(tw_turn *T);

#endif /* TW_TURN_H */
