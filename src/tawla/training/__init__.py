"""Training of the neural evaluators by self-play (:mod:`.td`), and strength between players
with duplicate dice (:mod:`.duel`)."""

from .duel import DuelResult, duel, evaluator_player

__all__ = ["duel", "DuelResult", "evaluator_player"]
