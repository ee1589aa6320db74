"""Static evaluation of packed positions for every ruleset.

``evaluate(positions, ruleset)`` (the ``ply0`` level of :mod:`tawla.bots.levels`; the public
``tawla.evaluate`` takes every level and defaults to the trained network, ``net0``) returns
``float32[N, 6]`` for the side to move in each row, with the columns of :data:`COLUMNS` (cubeless equity in the ruleset's scoring, then
win, win_gammon, win_backgammon, lose_gammon and lose_backgammon probabilities). Draws
(frozen positions, RULES.md §1.7) are not predicted, nor the doubling cube (see
:meth:`tawla.Bot.cube_action`).

Every evaluator follows one contract, :class:`Evaluator`: ``evaluator(rows uint8[N, 56],
ruleset) -> float[N, 6]``. :func:`evaluate` routes each row (:mod:`.routing`): a finished
game gets its exact result, a race the race model on the bear-off databases
(:mod:`.race`, :mod:`.bearoff`), contact the ruleset's model in :data:`CONTACT_MODELS`
(replace one with :func:`set_contact_model`):

* backgammon, adi: :class:`LinearContact` (:mod:`.linear`) over :func:`bg_features`
  (:mod:`.features`), its weights a data file installed with the package;
* mahbusa, tawla31, tawla31-saharat: the effective-pip model of the no-hit games
  (:mod:`.nohit`).

Compiled twins (:mod:`tawla.native`: the linear model, the race model, the no-hit model and
the networks, a fraction of a microsecond to a few microseconds a position; the bear-off
builders) are used when they are built (``native.available(...)``) and not
hidden by ``TAWLA_NO_NATIVE=1``; the numpy code here is the reference they are tested
against, and without them every function works on it alone, only slower.
``TAWLA_ENGINE=reference`` selects the move-generation engine and leaves the evaluators
as they are.
"""

from . import bearoff
from .board_views import is_race, is_terminal, pip_counts
from .features import N_BG_FEATURES, bg_features
from .linear import LinearContact
from .protocol import COLUMNS, Evaluator, equity_from_probs
from .routing import CONTACT_MODELS, evaluate, evaluate_rows, set_contact_model

__all__ = ["evaluate", "evaluate_rows", "COLUMNS", "Evaluator", "is_race", "is_terminal", "pip_counts",
           "equity_from_probs", "set_contact_model", "CONTACT_MODELS", "LinearContact", "bg_features",
           "N_BG_FEATURES", "bearoff"]
