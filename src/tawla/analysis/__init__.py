"""The main job: replay real match records through the engine and analyse every decision.

Each recorded play is matched to exactly one legal move by the position it leads to
(:mod:`tawla.analysis.replay`, with the hit rule of the notation); the cube, the Crawford
game (derived from the score), resignations and recorded scores are followed and checked.
For each checker play the report gives: forced or not, the number of legal moves, the pip
counts, and the rank and equity loss of the played move under an evaluator
(:mod:`tawla.analysis.evaluators`); the cube decisions are judged by the cube model (money,
or at the match score) on the same evaluator's probabilities (:mod:`tawla.analysis.cube`). Files are found and read by :mod:`tawla.analysis.files`
(game by game, so that memory grows with the plays and not with the text), and shown by
:mod:`tawla.analysis.report`. Many files are cut into chunks analysed from their contents
(:mod:`tawla.analysis.chunks`), on a local process pool (:mod:`tawla.analysis.parallel`) or
on a Dask cluster (:mod:`tawla.analysis.dask_run`, the optional ``dask`` extra, imported by
nothing here), with the reports of a run on one process. Files of positions are evaluated
in chunks the same ways (:mod:`tawla.analysis.positions`, :mod:`tawla.analysis.position_output`).
"""

import warnings

from .evaluators import EngineEvaluator, EquityEvaluator, HeuristicEvaluator, default_evaluator
from .chunks import analyze_chunk
from .files import (MAX_RECORD_BYTES, analyze_contents, analyze_file, analyze_paths, collect_files, open_contents,
                    open_record, read_record)
from .parallel import analyze_parallel
from .replay import analyze_games, analyze_record, marks_all_hits, replay_game, ruleset_for_variation
from .report_data import Decision, GameReport, MatchReport, Plays

__all__ = ["EquityEvaluator", "HeuristicEvaluator", "EngineEvaluator", "default_evaluator", "Decision", "Plays",
           "GameReport", "MatchReport", "replay_game", "analyze_record", "analyze_games", "analyze_file",
           "analyze_paths", "collect_files", "read_record", "open_record", "ruleset_for_variation",
           "marks_all_hits", "MAX_RECORD_BYTES", "open_contents", "analyze_contents", "analyze_chunk",
           "analyze_parallel"]


def __getattr__(name: str):
    """``Evaluator``, this module's old name of :class:`EquityEvaluator` (float64[N]
    equities; not :class:`tawla.evaluation.Evaluator`, float[N, 6] probabilities): still
    given, with a DeprecationWarning."""
    if name == "Evaluator":
        warnings.warn("the analysis's Evaluator is now EquityEvaluator", DeprecationWarning,
                      stacklevel=2)
        return EquityEvaluator
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
