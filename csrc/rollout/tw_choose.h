/*
 * The 0-ply move choice of every C loop that plays games (tw_choose.c): the children of a
 * pre-roll row for a roll, each valued by one evaluator (game ends exactly, races by the race
 * model, contact by a network or a heuristic model: the routing of tawla.evaluation.evaluate),
 * and the best of them for the mover. The rollout trial loop (tw_rollout.c) and network
 * training (tw_net_train.c) both choose through it.
 *
 * Values come as the six evaluation columns (equity in the ruleset's points, win, win gammon,
 * win backgammon, lose gammon, lose backgammon) and as the five outputs of tw_net.h's layout
 * (what a network learns; tawla31: win, win 15, expected points won / 15, lose 15, expected
 * points lost / 15), both for the side to move in the row valued.
 */
#ifndef TW_CHOOSE_H
#define TW_CHOOSE_H

#include "tw_params.h"
#include "tw_step.h"
#include "tw_eval.h"
#include "tw_net.h"
#include "tw_rng.h"

/* contact models */
#define TW_CONTACT_NET 0     /* a network (tw_net.h) */
#define TW_CONTACT_LINEAR 1  /* the linear model (tw_linear_row; backgammon geometry) */
#define TW_CONTACT_NOHIT 2   /* the no-hit games' model (tw_nohit_row) */

/* An evaluator: its contact model, the race tables (NULL: no race model, races are valued by
   the contact model as contact) and the depth of the choice: ply 0, or ply 1 (the prune best
   children at 0 ply within margin points of the best, each valued by the opponent's best 0-ply
   reply to each of the 21 rolls, averaged). */
typedef struct {
    int contact;
    const tw_net *net;             /* TW_CONTACT_NET */
    const double *W; long ldw;     /* TW_CONTACT_LINEAR: weights [5][TW_NF], row stride ldw */
    const tw_race_tables *race;
    int ply;                       /* 0 or 1 */
    int prune;                     /* ply 1: children searched, 1 .. TW_CHOOSE_MAXPRUNE */
    double margin;                 /* ply 1: points behind the best a searched child may be */
} tw_evaluator;

#define TW_CHOOSE_MAXPRUNE 16

/* A row's value for its side to move. kind: TW_END_* of tw_eval_ends (TW_END_CONTACT: the
   contact model's). */
typedef struct {
    double col[6];
    float out[TW_NET_NO];
    int kind;
} tw_value;

/* The scratch of the choice (children's values), grown as needed, and of the replies of a
   1-ply choice (made at its first use). */
struct tw_choose_inner;
typedef struct {
    tw_value *v;
    const uint8_t **ptr;
    long *at;
    float *o;
    long cap;
    struct tw_choose_inner *inner;
} tw_choose_ws;

void tw_choose_ws_init(tw_choose_ws *w);
void tw_choose_ws_free(tw_choose_ws *w);  /* the inner scratch too */

/* The values of n rows (mover's seat) into v[n]; 0 on OOM. g: the ruleset's geometry. v may be
   w->v only when w already holds n (tw_choose grows it first). */
int tw_value_rows(const tw_params *P, const tw_evaluator *E, const tw_geo *g, tw_choose_ws *w,
                  const uint8_t *rows, long n, tw_value *v);

/* The five outputs of a finished game (res relative to the row's mover) for the side that
   moved last, into t; returns the points it wins (negative: loses; a draw 0). */
double tw_outcome(const tw_params *P, tw_result res, float *t);

/* The outputs o for one side as the outputs t for the other (win and loss, gammons and
   backgammons swapped). */
void tw_swap_sides(const float *o, float *t);

/* What tw_choose found. */
#define TW_CHOSE_PLAY 0    /* the game goes on: child is the opponent's pre-roll row */
#define TW_CHOSE_OVER 1    /* the move ends the game (res) */
#define TW_CHOSE_FROZEN 2  /* no legal child: the game is a draw (RULES.md 1.7) */
#define TW_CHOSE_OOM (-1)

/* The children of a pre-roll row for dice (d1, d2) (c->out, c->nout), each valued; the best
   for the mover (its equity column, the value of the opponent's seat, lowest; of equals the
   child whose row is first in byte order, so that the choice does not depend on the order of
   expansion; at ply 1, the best by the 1-ply value, of equals the first in byte order): its row
   into child[TW_W], its 0-ply value (for the opponent, on roll in it) into *cv, the game's
   result after the move into *res. With explore > 0, a uniformly random child instead with
   that probability (rng read then only). Returns TW_CHOSE_*. */
int tw_choose(const tw_params *P, const tw_evaluator *E, tw_ctx *c, tw_choose_ws *w,
              const uint8_t *row, int d1, int d2, float explore, tw_rng *rng,
              uint8_t *child, tw_value *cv, tw_result *res);

/* The children of a pre-roll row for dice (d1, d2) into c->out; how many, or -1 on OOM. */
long tw_children(const tw_params *P, tw_ctx *c, const uint8_t *row, int d1, int d2);

#endif /* TW_CHOOSE_H */
