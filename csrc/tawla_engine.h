/*
 * The C engine behind tawla._fast, tawla._codec and tawla._evaluate_c: one header for the
 * Cython declarations of tawla_engine.pxd.
 *
 * One move generator serves every ruleset, parameterised by tw_params: contact rule (hit / pin
 * / block), bar, geometry, start lock, extra bear-off conditions, quadrant lock, wall rule,
 * plakoto mother rule. Its single steps are those of the reference engine
 * (src/tawla/reference/engine.py, RULES.md section 8): the same steps in the same order (dice
 * high to low, from-points high to low), the same post-step checks, the same maximum-dice rule
 * (section 1.4). Everything here is plain C, uses no Python API and runs without the GIL.
 *
 *   tw_params.h   the ruleset as data, result kinds, compiler helpers
 *   tw_board.h/c  geometry of packed rows: numberings, flip, pin bits, validation
 *   tw_memory.h/c big buffers and their cache, int64 vectors, the hash set
 *   tw_step.h/c   single-step generation: state, row facts, search context, children buffer
 *   tw_expand.h/c every child of a (row, roll), and batches of them
 *   tw_turn.h/c   canonical step sequences, step-by-step play, the finals of a partial turn
 *   tw_result.h/c game results and the frozen test
 *   tw_playout.h/c random games
 *   tw_eval.h, tw_eval_*.c  evaluators: linear contact, race, no-hit models
 *   tw_net.h, tw_net*.c     neural evaluators: inputs, inference, TD(0) self-play training
 *   tw_rng.h      random numbers of the C loops
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

#endif /* TAWLA_ENGINE_H */
