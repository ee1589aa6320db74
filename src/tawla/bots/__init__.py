"""Bots: search levels over the evaluator (:class:`Bot`), money-game cube decisions
(:class:`CubeAction`), timeout policies for servers and self-play records."""

from .cube import CubeAction
from .policies import bot_policy, first_legal_policy
from .search import Bot, RankedMove

__all__ = ["Bot", "CubeAction", "RankedMove", "bot_policy", "first_legal_policy"]
