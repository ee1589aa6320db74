/*
 * Neural evaluators (tw_net_inputs.c, tw_net.c): the inputs of a packed row,
 * a one-hidden-layer network in float32, its outputs as the six evaluation columns, and
 * one gradient step (its training on the move generator: csrc/train/tw_train.h).
 *
 * The inputs (TW_NET_NI floats, most of them 0) are, for each side in its own numbering
 * (the mover's block first, then the opponent's, TW_NET_SIDE each):
 *   [0, 96)    point p = 1..24, n checkers: [p-1] n == 1, [24+p-1] n == 2, [48+p-1] n == 3,
 *              [72+p-1] (n - 3) / 2 when n > 3 (0 .. 6)
 *   96         checkers on the bar / 2 (0 .. 7.5)         97  checkers off / 15 (0 .. 1)
 *   [98, 112)  the hand-made features of tw_eval_contact.c (pips / 100, bar, home points,
 *              primes, anchors, back checkers, shots; the two shot features only in the games
 *              where a blot can be hit or pinned)
 *   [112, 136) point p: the side's checker there is pinned (Mahbusa, RULES.md 4.2), 0 or 1
 *   136        the side's start lock holds (RULES.md 5.3, 6.3), 0 or 1
 * tawla.evaluation.net.net_inputs computes the same in numpy (tests compare the two).
 *
 * Outputs (TW_NET_NO sigmoids, for the side to move): backgammon, adi, mahbusa, Saharat: win,
 * win gammon (mars), win backgammon, lose gammon, lose backgammon (unconditional, the last two
 * of each kind trained to 0 where the ruleset does not score backgammons); tawla31 (RULES.md
 * 1.8: 15 points less the loser's checkers off): win, win 15, expected points won / 15, lose
 * 15, expected points lost / 15.
 */
#ifndef TW_NET_H
#define TW_NET_H

#include "tw_params.h"
#include "tw_eval.h"

#define TW_NET_SIDE 137
#define TW_NET_NI (2 * TW_NET_SIDE)
#define TW_NET_NO 5
#define TW_NET_MAXH 512

typedef struct {
    int nh;           /* hidden units, 1 .. TW_NET_MAXH */
    float *w1;        /* [TW_NET_NI][nh]: the weights of input i are w1[i * nh .. i * nh + nh) */
    float *b1;        /* [nh] */
    float *w2;        /* [TW_NET_NO][nh] */
    float *b2;        /* [TW_NET_NO] */
} tw_net;

/* Fill the table of the logistic function and choose the processor's variant of the
   arithmetic (once, before any other call; TAWLA_NET_NO_AVX set in the environment keeps the
   SSE2 / plain C one, which gives the same bits). */
void tw_net_init(void);

/* The nonzero inputs of a row (mover's seat): their indices into idx and values into val
   (each TW_NET_NI long at most); returns how many. */
int tw_net_inputs(const tw_params *P, const uint8_t *row, int *idx, float *val);
/* The same, and into raw how many of them are the mover's point, bar and off inputs (the first
   ones: rows with the same mover's checkers share them). */
int tw_net_inputs_raw(const tw_params *P, const uint8_t *row, int *idx, float *val, int *raw);

/* Hidden activations h[nh] and outputs o[TW_NET_NO] of the sparse inputs. */
void tw_net_forward(const tw_net *n, const int *idx, const float *val, int m, float *h, float *o);

/* The six evaluation columns (equity in the ruleset's points, win, win gammon, win backgammon,
   lose gammon, lose backgammon) of the outputs o, clipped to be consistent. */
void tw_net_columns(const tw_params *P, const float *o, double *out);

/* The equity (points) of outputs o for the side they are from. */
double tw_net_equity(const tw_params *P, const float *o);

/* Outputs of a row (mover's seat); h is scratch of nh floats. */
void tw_net_row(const tw_params *P, const tw_net *n, const uint8_t *row, float *h, float *o);

/* Outputs o[count][TW_NET_NO] of count rows (mover's seat, stride TW_W): what tw_net_row gives
   each, the hidden and output layers of eight rows at a time. */
void tw_net_rows(const tw_params *P, const tw_net *n, const uint8_t *rows, long count, float *o);
/* The same for rows given by pointers: o[i] the outputs of rows[i]. */
void tw_net_rows_at(const tw_params *P, const tw_net *n, const uint8_t *const *rows, long count, float *o);

/* Rows in one pass, out[count][6] the evaluation columns: a finished game or a race by
   tw_eval_ends, the contact rows by the network (as tw_net_row then tw_net_columns, eight at a
   time). */
void tw_net_eval_bg(const tw_params *P, const tw_net *n, const uint8_t *rows, long count,
                    const tw_race_tables *t, double *out);

/* A tw_race_beyond (csrc/eval/tw_eval.h): the network ctx (a const tw_net *) on a race row,
   its six evaluation columns into o, less what the race can no longer bring (opposite
   directions, 1/2/3 scoring: no gammon once the loser has borne off a checker, no backgammon
   without a loser's checker in the winner's home board; tawla.evaluation.routing.race_caps). */
void tw_net_race_beyond(const void *ctx, const tw_params *P, const uint8_t *row, double *o);

/* One gradient step of the squared error of outputs o toward target t: w += alpha * grad. */
void tw_net_backprop(tw_net *n, const int *idx, const float *val, int m, const float *h,
                     const float *o, const float *t, float alpha);

#endif /* TW_NET_H */
