"""Bots: search levels over the evaluator (:class:`Bot`), money-game cube decisions
(:class:`CubeAction`), timeout policies for servers and self-play records."""

from .cube import CubeAction, MoneyCube
from .policies import bot_policy, first_legal_policy
from .search import Bot, RankedMove

__all__ = ["Bot", "CubeAction", "MoneyCube", "RankedMove", "bot_policy", "first_legal_policy"]
