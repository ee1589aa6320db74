"""Timeout policies: how a server completes a turn its player did not finish in time.

A policy is ``policy(position, dice, played_steps, candidates) -> Move``: ``candidates``
are the legal moves of ``position.legal_moves(dice)`` (canonical order) that extend
``played_steps``, never empty; the policy returns one of them.
"""

from __future__ import annotations

from typing import Callable

from ..core.moves import Move
from ..evaluation.net import shipped_net
from .search import Bot

__all__ = ["bot_policy", "first_legal_policy"]


def bot_policy(ruleset, level: str | None = None) -> Callable:
    """The default timeout policy of a match of ``ruleset``: :meth:`tawla.Bot.timeout_policy`
    of ``Bot(ruleset, level)``, the candidate the bot values most. ``level`` defaults to
    ``net0`` where a trained network is shipped for the ruleset, else ``ply0``. Deterministic
    for every level but ``random``."""
    if level is None:
        level = "net0" if shipped_net(ruleset) is not None else "ply0"
    return Bot(ruleset, level).timeout_policy()


def first_legal_policy(position, dice, played_steps, candidates) -> Move:
    """A timeout policy that plays the first candidate.

    ``candidates`` are the legal moves of ``position.legal_moves(dice)`` (canonical order)
    that extend ``played_steps``; the first one is chosen. Deterministic.

    Parameters
    ----------
    position : tawla.Position
        The position at the start of the turn, seen from the mover.
    dice : (int, int)
    played_steps : tuple of tawla.Step
        The steps already made this turn (single or combined).
    candidates : list of tawla.Move
        Never empty.
    """
    return candidates[0]
