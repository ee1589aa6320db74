/*
 * The C engine behind the compiled modules of tawla.native (csrc/cython): one header for the
 * Cython declarations of tawla_engine.pxd.
 *
 * One move generator serves every ruleset, parameterised by tw_params, the ruleset's one
 * parameter block: contact rule (hit / pin / block), bar, geometry, start lock, extra bear-off
 * conditions, quadrant lock, wall rule, plakoto mother rule, scoring. Its single steps are those
 * of the rules (src/tawla/rules/steps.py, RULES.md section 8): the same steps in the same order
 * (dice high to low, from-points high to low), the same post-step checks, the same maximum-dice
 * rule (section 1.4). Everything here is plain C, uses no Python API and runs without the GIL.
 *
 * movegen/  move generation, results, playouts
 *   tw_params.h    the ruleset as data, result kinds, compiler helpers
 *   tw_board.h/c   geometry of packed rows: numberings, flip, pin bits, validation
 *   tw_memory.h/c  big buffers and their cache, int64 vectors, the hash set
 *   tw_step.h/c    single-step generation: state, row facts, search context, children buffer
 *   tw_expand.h/c  every child of a (row, roll), and batches of them
 *   tw_turn.h/c    canonical step sequences, step-by-step play, the finals of a partial turn
 *   tw_result.h/c  game results and the frozen test: the one game-end function
 *   tw_playout.h/c random games
 *   tw_rng.h       random numbers of the C loops
 * eval/     evaluators (tw_eval.h)
 *   tw_eval_tables.c  the shared tables and the contact test
 *   tw_eval_contact.c the linear contact model of backgammon / adi
 *   tw_eval_race.c    the race model
 *   tw_eval_nohit.c   the no-hit games' effective-pip model
 *   tw_eval_ends.c    finished games and races before any contact model, the one-pass evaluation
 * net/      neural evaluators (tw_net.h): inputs, inference, one gradient step
 * rollout/  playing games out
 *   tw_choose.h/c  the 0-ply move choice by one evaluator (game ends, race model, contact model)
 *   tw_cube.h/c    cube models: the cubeful equities of a cube decision (money: Janowski)
 *   tw_rollout.h/c the rollout trial loop: dice, luck adjustment, truncation, bear-off stops, cube
 * train/    network training on the move generator (tw_train.h): TD(0) self-play, positions,
 *           search and rollout targets, supervised fitting
 *
 * A unit calls only units above it in this list, never one below (eval/ and net/ call movegen/,
 * net/ calls eval/, rollout/ calls all three, train/ calls rollout/; within eval/, ends calls
 * race, contact and tables; race and contact call tables): no two units call each other
 * (tests/test_native_door.py checks it).
 */
#ifndef TAWLA_ENGINE_H
#define TAWLA_ENGINE_H

#include "tw_params.h"
#include "tw_board.h"
#include "tw_memory.h"
#include "tw_step.h"
#include "tw_expand.h"
#include "tw_turn.h"
#include "tw_result.h"
#include "tw_playout.h"
#include "tw_eval.h"
#include "tw_net.h"
#include "tw_choose.h"
#include "tw_cube.h"
#include "tw_rollout.h"
#include "tw_train.h"

#endif /* TAWLA_ENGINE_H */
