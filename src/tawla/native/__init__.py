"""The one door to the compiled core: every layer reaches compiled code only through here.

As pyzmq's backend module: the compiled modules are loaded once, at import
(:mod:`.backend`), and :data:`__all__` is the one list of the calls this package provides.

* Move generation, turns, results, playouts and dice (:mod:`.movegen`) have the same contract
  on both engines, the compiled one and the pure-Python reference engine
  (:mod:`tawla.reference`, the oracle the compiled one is diffed against, and its fallback);
  a call's ``engine=`` chooses, else :func:`default_engine`.
* Evaluators, networks, their training, the bear-off builders and the rollout trial loop
  (:mod:`.evaluators`) are the
  compiled calls only: each layer above keeps its numpy twin and picks it when
  :func:`available` says that part is not built.

``TAWLA_NO_NATIVE=1`` hides the compiled modules (as on a machine without a compiler);
``TAWLA_ENGINE=reference`` makes the reference engine the default. Both are read at import.
"""

from __future__ import annotations

from .backend import available, default_engine, resolve_engine
from .evaluators import (EVAL_ENDS, ROLLOUT_VALUES, build_one_sided, build_two_sided, eval_bg, eval_ends, features_bg, linear_bg, n_features,
                         net_chooser, net_columns, net_eval, net_fit, net_inputs, net_outputs, net_ply1_targets,
                         net_ply2_targets, net_positions, net_rollout_targets, net_sizes, net_train, nohit_contact,
                         race_rows, race_sides, rollout_trials, cube_money, cube_match)
from .movegen import (count_moves, expand, expand_all_rolls, flip_row, flip_rows, format_steps, game_result,
                      game_results, is_frozen, is_over, legal_moves, legal_sequences, next_turn_row, play_hops, playout,
                      rng_restore, step_tuples, throw_dice, throw_dice_saving, turn_engine, turn_finals, turn_lit,
                      turn_step, turn_steps, validate_rows)

__all__ = [
    # which engine
    "available", "default_engine", "resolve_engine",
    # rows, moves, turns, results, playouts, dice (both engines)
    "flip_row", "flip_rows", "validate_rows", "is_over", "is_frozen", "game_result", "game_results", "next_turn_row",
    "legal_sequences", "legal_moves", "count_moves", "expand", "expand_all_rolls", "playout", "turn_engine",
    "turn_steps", "turn_lit", "turn_step", "turn_finals", "play_hops", "throw_dice", "throw_dice_saving",
    "rng_restore", "step_tuples", "format_steps",
    # evaluators (compiled only)
    "EVAL_ENDS", "n_features", "features_bg", "linear_bg", "race_rows", "race_sides", "eval_ends", "eval_bg", "nohit_contact",
    # networks and their training (compiled only)
    "net_sizes", "net_inputs", "net_outputs", "net_columns", "net_eval", "net_chooser", "net_train",
    "net_positions", "net_ply1_targets", "net_ply2_targets", "net_rollout_targets", "net_fit",
    # bear-off databases (compiled only)
    "build_one_sided", "build_two_sided",
    # the rollout trial loop and the cube models it calls (compiled only)
    "ROLLOUT_VALUES", "rollout_trials", "cube_money", "cube_match",
]
