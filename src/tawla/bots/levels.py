"""The evaluator levels, one set for every entry point: :func:`evaluate` (``tawla.evaluate``),
``tawla evaluate`` and ``tawla moves``, ``/v1/evaluate``, ``/v1/best``, and the bots of a room.

A level is a family and a depth:

==========  ======================================================================
``net0``    the ruleset's trained network (:func:`tawla.evaluation.net.shipped_net`) in
            contact, exact game ends and the race model: the default everywhere
``net1``    the same, one roll ahead (every roll, its best play at 0 ply, averaged)
``net2``    two rolls ahead
``ply0``    the hand-made contact model (:data:`tawla.evaluation.CONTACT_MODELS`), with the
            same game ends and race model
``ply1``    ``ply0`` one roll ahead;  ``ply2``: two
==========  ======================================================================

:class:`tawla.Bot` plays at the same levels (and ``random``); a bot of level ``L`` chooses the
play whose position, valued at ``L``'s family, is best for it (``net2``: searched two plies).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from .. import native
from ..errors import ConfigError
from ..evaluation import CONTACT_MODELS, evaluate_rows
from ..evaluation.board_views import check_rows
from ..evaluation.net import manifest, shipped_net
from ..evaluation.routing import race_network
from ..rules import get_ruleset, RulesetLike
from .lookahead import preroll_columns

__all__ = ["LEVELS", "DEFAULT_LEVEL", "check_level", "contact_model", "describe", "evaluate"]

LEVELS = ("net0", "net1", "net2", "ply0", "ply1", "ply2")
"""The evaluator levels, the default first."""
DEFAULT_LEVEL = "net0"
"""The level of every entry point that is given none."""


def check_level(level: object) -> str:
    """``level`` if it is one of :data:`LEVELS`.

    Raises
    ------
    tawla.errors.ConfigError
        Anything else (``random`` is a bot's level, not an evaluator's).
    """
    if not isinstance(level, str) or level not in LEVELS:
        raise ConfigError(f"level must be one of {', '.join(LEVELS)}, not {level!r}")
    return level


def contact_model(level: str, ruleset: RulesetLike):
    """The contact model of ``level``'s family for ``ruleset``: its shipped network (``net``
    levels) or its hand-made model (``ply`` levels).

    Raises
    ------
    tawla.errors.ConfigError
        An unknown level, or a ``net`` level where no network is shipped for the ruleset.
    """
    r = get_ruleset(ruleset)
    if check_level(level).startswith("ply"):
        return CONTACT_MODELS[r.name]
    net = shipped_net(r)
    if net is None:
        raise ConfigError(f"no trained network is shipped for {r.name}: level {level!r} needs one (tawla train)")
    return net


def describe(level: str, ruleset: RulesetLike) -> str:
    """What ``level`` evaluates ``ruleset`` with, in a line, for answers that name their
    evaluator: the family (with the network's file and the first 12 hex digits of its
    SHA-256), what values the races (the race network's file too, where the level uses one),
    and the depth.

    Raises
    ------
    tawla.errors.ConfigError
        As for :func:`contact_model`.
    """
    r = get_ruleset(ruleset)
    model = contact_model(level, r)
    races = "the race model"
    if level.startswith("net"):
        entry = manifest()[r.name]
        family = f"the {r.name} network ({entry['file']}, sha256 {entry['sha256'][:12]})"
        if race_network(model, r) is not None:
            race = entry["race"]
            races = (f"the bear-off databases and the race network ({race['file']}, sha256 "
                     f"{race['sha256'][:12]}) beyond them")
    else:
        family = f"the hand-made {r.name} contact model"
    return f"{level}: {family} in contact, {races} in races, exact game ends; {level[-1]} ply"


def evaluate(positions: npt.ArrayLike, ruleset: RulesetLike, level: str = DEFAULT_LEVEL) -> np.ndarray:
    """Evaluate a batch of positions for the side to move, at an evaluator level.

    Parameters
    ----------
    positions : uint8[N, 56]
        Packed rows (:mod:`tawla.core.layout`), each seen from its side to move, before it
        rolls; one row of 56 is a batch of one.
    ruleset : Ruleset or str
    level : str
        One of :data:`LEVELS` (default ``net0``, the trained network; ``ply0`` the hand-made
        model; ``net1``/``net2`` and ``ply1``/``ply2`` one and two rolls ahead).

    Returns
    -------
    float32[N, 6]
        The columns of :data:`~tawla.evaluation.COLUMNS`: cubeless equity in the ruleset's
        scoring (points), then the win, win_gammon, win_backgammon, lose_gammon and
        lose_backgammon probabilities (unconditional; the gammon columns include backgammons).

    Raises
    ------
    tawla.errors.InvalidId
        ``positions`` of another shape or dtype.
    tawla.errors.InvalidPosition
        A row that is not a position of the ruleset (checked before any model reads it).
    tawla.errors.UnsupportedRuleset
        Unknown ruleset.
    tawla.errors.ConfigError
        An unknown level, or a ``net`` level for a ruleset with no shipped network.
    """
    r = get_ruleset(ruleset)
    model = contact_model(level, r)
    rows = np.ascontiguousarray(check_rows(positions))
    native.validate_rows(rows, r)
    depth = int(level[-1])
    if depth == 0:
        return evaluate_rows(rows, r, checked=False, contact=model).astype(np.float32)
    cols = preroll_columns(rows, r, lambda x: evaluate_rows(x, r, checked=False, contact=model), depth)
    return np.asarray(cols, dtype=np.float32)
