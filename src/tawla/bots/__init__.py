"""Bots: the evaluator levels (:mod:`.levels`, :func:`evaluate`), search levels over them
(:class:`Bot`), money-game cube decisions (:class:`CubeAction`), timeout policies for servers
and self-play records."""

from .cube import CubeAction, MoneyCube
from .levels import evaluate
from .policies import bot_policy, first_legal_policy
from .search import Bot, RankedMove

__all__ = ["Bot", "CubeAction", "MoneyCube", "RankedMove", "bot_policy", "evaluate", "first_legal_policy"]
