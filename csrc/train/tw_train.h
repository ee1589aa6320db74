/*
 * Training of a neural evaluator (tw_net.h) on the move generator (tw_net_train.c): TD(0)
 * self-play, the positions of self-play games, 1- and 2-ply search targets and truncated-rollout
 * targets (the rollout trial loop's), all choosing moves by tw_choose.h, and supervised fitting.
 */
#ifndef TW_TRAIN_H
#define TW_TRAIN_H

#include "tw_net.h"

/* Self-play: n_games games from the starting position, every move the one whose child the
   network values best (greedy), each pre-roll position moved toward the outputs after the move
   (TD(0)) with step size alpha. With race tables (not NULL; opposite geometry), a child with
   no contact is valued by the race model and the game stops there (winner -1). Results per
   game into length / winner (0 the starter, 1 the other, -1 a draw or a cut game) / points,
   when not NULL. Returns 0 on OOM. */
int tw_net_train(const tw_params *P, tw_net *n, long n_games, uint64_t seed, float alpha,
                 long max_turns, const tw_race_tables *race, int32_t *length, int8_t *winner,
                 int16_t *points);

/* The positions before a roll met in n_games greedy self-play games (every move with
   probability explore a uniformly random child), the opening position left out; with race
   tables, games stop at the first child without contact, so every position has contact. Rows
   into rows[cap][TW_W]; returns how many (at most cap), or -1 on OOM. */
long tw_net_positions(const tw_params *P, const tw_net *n, long n_games, uint64_t seed,
                      float explore, long max_turns, const tw_race_tables *race, uint8_t *rows,
                      long cap);

/* The 1-ply search targets of pre-roll rows (mover's seat): for each of the 21 rolls the
   outputs after the network's greedy move, for the row's mover, averaged with the rolls'
   probabilities, into targets[count][TW_NET_NO]. Returns 0 on OOM. */
int tw_net_ply1_targets(const tw_params *P, const tw_net *n, const tw_race_tables *race,
                        const uint8_t *rows, long count, float *targets);

/* The 2-ply search targets of pre-roll rows: for each of the 21 rolls the prune (1 .. 8)
   children best at 0 ply, each valued by a 1-ply search from its mover's seat (game ends and,
   with race tables, children without contact as they are), the best of them for the row's
   mover; its outputs for the mover, averaged with the rolls' probabilities, into
   targets[count][TW_NET_NO]. Returns 0 on OOM. */
int tw_net_ply2_targets(const tw_params *P, const tw_net *n, const tw_race_tables *race,
                        const uint8_t *rows, long count, int prune, float *targets);

/* Truncated-rollout targets of pre-roll rows: each row played out trials times by the
   rollout trial loop (tw_rollout.h: the network's greedy moves, the first roll of trial j the
   ordered roll j mod 36, no luck adjustment, no cube) for horizon moves (0: until the game ends
   or, with race tables, the first race), the five outputs where each trial ended (the game's
   result, the race model's or the network's) for the row's mover averaged into
   targets[count][TW_NET_NO]. The dice of row i come from seed and first + i alone (rows may be
   split into chunks). With horizon 1 and 36 trials: the 1-ply targets. Returns 0 on OOM. */
int tw_net_rollout_targets(const tw_params *P, const tw_net *n, const tw_race_tables *race,
                           const uint8_t *rows, long count, long first, int trials, int horizon,
                           uint64_t seed, float *targets);

/* One epoch of stochastic gradient descent: rows[order[i]] toward targets[order[i]] for i in
   [0, count), step size alpha; returns the mean squared error of the outputs met (before each
   step). */
double tw_net_fit(const tw_params *P, tw_net *n, const uint8_t *rows, const float *targets,
                  const int64_t *order, long count, float alpha);

#endif /* TW_TRAIN_H */
