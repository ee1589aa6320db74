"""The :class:`Match` class: a whole match as a state machine, assembled from its parts.

Each part is a mixin of its own module: the shared state, transactions and queries
(:mod:`~tawla.match.base`), the timers (:mod:`~tawla.match.timers`), games and their ends
(:mod:`~tawla.match.games`), turns (:mod:`~tawla.match.turn_play`), the cube and resignations
(:mod:`~tawla.match.cube`), the table (:mod:`~tawla.match.table`), the JSON record and
replay (:mod:`~tawla.match.document`) and the ``.mat`` export (:mod:`~tawla.match.mat_export`).
"""

from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

from ..errors import ConfigError, InvalidAction, quote
from ..rules import RulesetLike
from .house import HouseRules, get_house
from .mat_export import MatExportMixin
from .document import dice_state_json, make_rng
from .fair_dice import FairDice
from .snapshot import SnapshotMixin
from .table import TableMixin

__all__ = ["Match"]


class Match(SnapshotMixin, TableMixin, MatExportMixin):
    """The whole life of a match (or money session) between players 0 and 1.

    Parameters
    ----------
    ruleset : str or Ruleset
        ``backgammon``, ``adi``, ``mahbusa``, ``tawla31``, ``tawla31-saharat`` (or an alias);
        the house's ``ruleset_options`` are applied on top.
    house : str or HouseRules
        ``federation``, ``saharat``, ``international`` or a profile from :func:`tawla.get_house`.
    length : int, optional
        Points to win; None: the house's default for the ruleset; 0: a money session (houses
        with ``money``).
    players : (str, str)
        Names of player 0 and player 1 (used in records and ``.mat`` exports).
    rng : int or numpy.random.Generator
        Where the dice come from (required). A Generator is used, and advanced, in place.
    clock : callable, optional
        ``clock() -> float`` seconds; read once per action to stamp events and set deadlines.
        A time that is not a finite number makes the action raise InvalidAction.
        Without a clock, events carry ``t: null`` and there are no timers.
    timeout_policy : callable, optional
        ``policy(position, dice, played_steps, candidates) -> Move`` for :meth:`on_timeout`;
        default :func:`~tawla.match.bot_policy` of the ruleset (the ``ply0`` bot). Not part
        of the JSON.

    The engine of the turn searches (compiled or reference, :func:`tawla.native.resolve_engine`
    with ``TAWLA_ENGINE``) is chosen when the match is made, loaded or replayed; both give
    the same results.

    Raises
    ------
    tawla.errors.ConfigError
        Unknown house, a match length the house does not allow, a coin table with
        ``length=0``, players that are not names (a str, or names that are not str), or an
        ``rng`` that is neither a Generator nor an int seed >= 0.
    tawla.errors.UnsupportedRuleset
        Unknown ruleset, or a ruleset the house does not offer (a ConfigError too).
    tawla.errors.InvalidAction
        Not two names, or a clock time (``clock()``) that is not a finite number.
    tawla.errors.TawlaError
        No ``rng``.
    """

    def __init__(self, ruleset: RulesetLike, house: str | HouseRules = "international", length: int | None = None,
                 players: Sequence[str] = ("Player 1", "Player 2"), *, rng: int | np.random.Generator | FairDice | None = None,
                 clock: Callable[[], float] | None = None, timeout_policy: Callable | None = None) -> None:
        h = get_house(house)
        r = h.ruleset(ruleset)
        length = h.check_length(r.name, length)
        if length == 0 and h.coin_table:
            raise ConfigError("a coin table plays a match (one payment at the end), not a money session")
        try:
            names = () if isinstance(players, str) else tuple(players)
        except TypeError:
            names = ()
        if not names or not all(isinstance(p, str) for p in names):
            raise ConfigError(f"players are two names (str), not {quote(players)}")
        players = names
        if len(players) != 2:
            raise InvalidAction(f"a match has two players, not {len(players)}")
        self._init_fields(r, h, length, players, make_rng(rng), clock, timeout_policy)
        self._rng_initial = dice_state_json(self._rng)
        t = self._now()
        self._created = t
        self._new_game(t)
