/*
 * The rollout trial loop (tw_rollout.c): pre-roll rows played out by the 0-ply choice of one
 * evaluator (tw_choose.h), trial by trial, on dice that depend on the seed and the trial's
 * number alone, with luck adjustment, truncation, the bear-off databases' values and the
 * decisions of a cube model (tw_cube.h) inside every trial. tawla.rollout drives it and
 * network training takes its truncated-rollout targets from it.
 *
 * Per row and trial, TW_RO_NV numbers for the row's side to move: the five outputs of
 * tw_net.h's layout (the game's outcome, or the evaluator's value where the trial stopped),
 * the cubeless equity in the ruleset's points and, with a cube model, the cubeful value: for
 * money the equity in units of the cube given (the trial's points times the cube's value at
 * its end; a pass ends it), in a match 2 MWC - 1 (MWC the chance of winning the match after
 * the game, or after the pass); a trial that stops is valued by the cube model (not doubling
 * where the trial starts with no decision). A match without a cube (the Tawla rulesets) makes
 * no decisions: a trial is worth the table's chance after its game's points, one that stops
 * the table's chance on its outputs read as win, gammon and backgammon chances (exact where
 * the points of a game are 1, 2 or 3; Tawla 31's trials must play to the game's end). With luck adjustment each roll's luck (the value,
 * at 0 ply, after the best play for it at 0 ply less the mean of that over the 21 rolls,
 * whatever the evaluator's ply) is subtracted along the trial: from the five outputs and the
 * cubeless equity as it is; from money's cubeful equity the cubeless luck times the cube's
 * value then; from a match's the same difference of the match model's values (the
 * opponent's cube decision after each roll, or the game's result at the score).
 *
 * Dice: trial t's first roll is the ordered roll (t + rot[0]) mod 36 (1 + r / 6, 1 + r % 6)
 * and, with stratify 2, its second roll (t / 36 + rot[1]) mod 36: every block of 36 (1,296)
 * trials from a multiple of it meets each first roll (pair of rolls) once. Later rolls are
 * uniform draws of a xoshiro256** stream seeded from splitmix64 of seed + t (tw_ro_stream):
 * the same for every row, so the rows of one call (a decision's candidates) share dice.
 */
#ifndef TW_ROLLOUT_H
#define TW_ROLLOUT_H

#include "tw_choose.h"
#include "tw_cube.h"

#define TW_RO_NV 7  /* five outputs, cubeless equity, cubeful equity */
#define TW_RO_MAX_PLIES 10000

typedef struct {
    long truncate;        /* plies per trial, then the evaluator's value (0: none) */
    int vr;               /* luck adjustment */
    int stop_bearoff;     /* stop in a race with every checker home: the race model's value (the
                             bear-off databases: exact in the two-sided one's range) */
    int stop_race;        /* stop at the first race (the evaluator's race model) */
    int stratify;         /* rolls stratified: 0, 1 (the first) or 2 (the first two) */
    int rot[2];           /* their rotations, 0 .. 35 */
    int cubeful;          /* cube decisions by the model (TW_SCORE_CUBE only) */
    tw_cube_model cube;   /* money play's model; its efficiency is the match model's too */
    int by_class;         /* the efficiency by the class of the position decided at (eff),
                             else cube.efficiency everywhere */
    tw_cube_efficiency eff;
    int owner;            /* the cube at the start, from the row's side to move (TW_CUBE_*) */
    int decide_first;     /* a cube decision before the first roll too (rows after a play: the
                             opponent may double at once); else none before it */
    int match;            /* cube decisions at a match score (tw_cube_match), not money play's */
    tw_met met;           /* the match's table */
    int away[2];          /* points the rows' side to move, and its opponent, still need */
    int cube_value;       /* the match's cube at the start (1 when centred) */
    int crawford;         /* the rows' game is the Crawford game */
    int no_cube;          /* a match without a cube: no decisions (needs match) */
    uint64_t seed;
} tw_ro_settings;

/* The stream of later rolls of trial t. */
void tw_ro_stream(uint64_t seed, long t, tw_rng *rng);

/* Trials first .. first + n - 1 of each of count pre-roll rows (mover's seat, games not over):
   out[(i * n + j) * TW_RO_NV + k] adjusted (as the settings say), raw the same unadjusted (may
   be NULL), plies[i * n + j] the moves played (may be NULL). Returns 0 on OOM. */
int tw_rollout(const tw_params *P, const tw_evaluator *E, const tw_ro_settings *S,
               const uint8_t *rows, long count, long first, long n, double *out, double *raw,
               int32_t *plies);

#endif /* TW_ROLLOUT_H */
