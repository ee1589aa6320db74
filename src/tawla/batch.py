"""The batch calls for bots and bulk work: every child of many rows, random playouts.

Rows are packed positions (``uint8[N, PACKED_WIDTH]``, :mod:`tawla.core.layout`), each
seen from its player to move; the ruleset travels beside them. Every call takes
``engine="fast"`` or ``"reference"`` (default :func:`default_engine`: the fast one unless
``TAWLA_ENGINE=reference`` or it is not built) and gives the same result on both.

:func:`playout` plays games from the starting position of a ruleset: the opening roll of
RULES.md §1.6, then each turn a uniformly random choice among the *distinct* positions the
roll allows (a pass when there is none), until the game ends (§1.7, §1.8).
:func:`random_positions` returns the positions met in such games (the workload of the
differential tests and of the speed table's variant workloads, ``bench/``).
"""

from __future__ import annotations

import operator
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from . import native
from .core.dice import ROLL_WEIGHTS, ROLLS, DiceLike, check_dice
from .core.layout import PACKED_WIDTH
from .core.moves import Move
from .core.results import KINDS
from .errors import InvalidArgument, InvalidPosition, quote
from .native import default_engine
from .position import Position, positions_to_array
from .rules import Ruleset, RulesetLike, get_ruleset
from .rules.validation import check_dice_array, check_rows_array, validate_rows

__all__ = ["ROLLS", "ROLL_WEIGHTS", "legal_moves", "pass_move", "expand", "expand_all_rolls",
           "default_engine", "fast_available", "PlayoutResult", "playout", "random_positions",
           "KINDS"]


def fast_available() -> bool:
    """True when the compiled fast engine is built (and not hidden by ``TAWLA_NO_NATIVE``)."""
    return native.available()


def _position(position) -> None:
    if not isinstance(position, Position):
        raise InvalidPosition(f"expected a tawla.Position, not {type(position).__name__}")


def legal_moves(position: Position, dice: DiceLike, *, engine: str | None = None) -> list[Move]:
    """The legal moves of ``position`` for ``dice`` (:meth:`tawla.Position.legal_moves`) on
    the chosen engine.

    Raises
    ------
    tawla.errors.InvalidDice, tawla.errors.ConfigError
    tawla.errors.InvalidPosition
        Not a Position.
    """
    _position(position)
    return native.legal_moves(position.row, check_dice(dice), position.ruleset, engine)


def pass_move(position: Position, dice: DiceLike) -> Move:
    """The empty move of a turn that passes (only valid when no legal move exists)."""
    _position(position)
    return Move.passing(position.row, check_dice(dice), position.ruleset)

def expand(positions: npt.ArrayLike, dice: npt.ArrayLike, *, ruleset: RulesetLike,
           engine: str | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Every child of every row: all distinct positions reachable by a legal move.

    Parameters
    ----------
    positions : uint8[N, PACKED_WIDTH]
        Each row seen from its player to move (:mod:`tawla.core.layout`).
    dice : uint8[N, 2]
        The roll for each row.
    ruleset : Ruleset or str
    engine : {"fast", "reference"}, optional
        Default :func:`default_engine` (the fast one unless ``TAWLA_ENGINE=reference``).

    Returns
    -------
    children : uint8[M, PACKED_WIDTH]
        Each child seen from the next player's seat (what :meth:`Position.play` returns).
        A row whose turn passes yields one child, itself flipped; a row whose game is
        over yields none.
    parent : int64[M]
        The row each child came from, in row order.

    Raises
    ------
    tawla.errors.InvalidId, tawla.errors.InvalidDice, tawla.errors.InvalidPosition
    tawla.errors.ConfigError
        An unknown engine.
    """
    r = get_ruleset(ruleset)
    arr = check_rows_array(positions)
    d = check_dice_array(dice, arr.shape[0])
    engine = native.resolve_engine(engine)
    native.validate_rows(arr, r)
    return native.expand(arr, d, r, engine)


def expand_all_rolls(positions: npt.ArrayLike, *, ruleset: RulesetLike,
                     engine: str | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`expand` for all 21 rolls of every row at once (the inner loop of a 1-ply search).

    ``positions`` and ``engine`` as for :func:`expand`.

    Returns
    -------
    children : uint8[M, PACKED_WIDTH]
    parent : int64[M]
        Source row of each child.
    roll : int64[M]
        Index into :data:`ROLLS` of each child's roll; children are ordered by row, then roll.
    """
    r = get_ruleset(ruleset)
    arr = check_rows_array(positions)
    engine = native.resolve_engine(engine)
    native.validate_rows(arr, r)
    return native.expand_all_rolls(arr, r, engine)


@dataclass(frozen=True)
class PlayoutResult:
    """Per-game outcomes of :func:`playout` (arrays of length ``n_games``).

    Attributes
    ----------
    ruleset : Ruleset
    length : int32[n_games]
        Turns played, passes included (the opening turn is turn 1).
    winner : int8[n_games]
        0 = the player who moved first (the opening-roll winner), 1 = the other, -1 = draw.
    kind : int8[n_games]
        Index into :data:`KINDS`.
    points : int16[n_games]
        Points the winner scores (RULES.md §1.8, cube at 1); 0 for a draw.
    seed : int
    engine : str
    """

    ruleset: Ruleset
    length: np.ndarray
    winner: np.ndarray
    kind: np.ndarray
    points: np.ndarray
    seed: int
    engine: str

    @property
    def n_games(self) -> int:
        return int(self.length.shape[0])

    def kind_counts(self) -> dict[str, int]:
        """``{kind name: number of games}`` for the kinds that occurred."""
        vals, counts = np.unique(self.kind, return_counts=True)
        return {KINDS[int(v)]: int(c) for v, c in zip(vals, counts)}

    def summary(self) -> dict[str, Any]:
        """Mean length, first-player win rate (draws count half), draw rate, mean points."""
        n = max(self.n_games, 1)
        first = float(np.sum(self.winner == 0) + 0.5 * np.sum(self.winner == -1)) / n
        return {
            "games": self.n_games,
            "mean_length": float(self.length.mean()) if self.n_games else 0.0,
            "first_player_score": first,
            "draw_rate": float(np.sum(self.winner == -1)) / n,
            "mean_points": float(self.points.mean()) if self.n_games else 0.0,
            "kinds": self.kind_counts(),
        }


_INT32_MAX = 2**31 - 1
"""The largest game count and turn cap :func:`playout` takes (its lengths are int32)."""


def _whole(value, name: str, lo, hi) -> int:
    """``value`` as an int in ``lo..hi`` (None: unbounded), else InvalidArgument."""
    try:
        v = operator.index(value)
    except TypeError:
        raise InvalidArgument(f"{name} must be a whole number, not {quote(value)}") from None
    if (lo is not None and v < lo) or (hi is not None and v > hi):
        bounds = f"in {lo}..{hi}" if hi is not None else f">= {lo}"
        raise InvalidArgument(f"{name} must be {bounds}, not {quote(v)}")
    return v


def playout(ruleset: RulesetLike, n_games: int, seed: int = 0, *, engine: str | None = None,
            max_turns: int = 100_000) -> PlayoutResult:
    """Play ``n_games`` random games and return their lengths, winners, kinds and points.

    Parameters
    ----------
    ruleset : Ruleset or str
    n_games : int
    seed : int
        Equal seeds give equal games (per engine; the two engines use different generators).
    engine : {"fast", "reference"}, optional
        Default :func:`default_engine` (fast unless ``TAWLA_ENGINE=reference``).
    max_turns : int
        Safety cap per game (a game cut there is ``unfinished``, winner -1).

    Returns
    -------
    PlayoutResult

    Raises
    ------
    tawla.errors.InvalidArgument
        ``n_games`` or ``max_turns`` not a whole number in 0..2**31 - 1, or ``seed`` not a
        whole number.
    """
    r = get_ruleset(ruleset)
    n_games = _whole(n_games, "n_games", 0, _INT32_MAX)
    max_turns = _whole(max_turns, "max_turns", 0, _INT32_MAX)
    seed = _whole(seed, "seed", None, None)
    used, length, winner, kind, points = native.playout(r, n_games, seed, max_turns, engine)
    return PlayoutResult(r, length, winner, kind, points, int(seed), used)


def random_positions(ruleset: RulesetLike, n_positions: int, seed: int = 0, *, parallel_games: int = 64,
                     include_start: bool = False, include_over: bool = False) -> np.ndarray:
    """Positions met in random games (uniform over the distinct legal children), fast engine.

    ``parallel_games`` games advance in lockstep, one batched :func:`tawla.expand` per turn;
    a finished game restarts from the starting position. Each row is a position *before*
    a roll, seen from the player to move; games over are included only on request.

    Parameters
    ----------
    ruleset : Ruleset or str
    n_positions : int
    seed : int
    parallel_games : int
    include_start : bool
        Whether the starting positions themselves are collected.
    include_over : bool
        Whether the final positions of the games (game over, including frozen draws) are
        collected too.

    Returns
    -------
    uint8[n_positions, PACKED_WIDTH]

    Raises
    ------
    tawla.errors.InvalidArgument
        ``n_positions`` or ``parallel_games`` not a whole number in 0..2**31 - 1, or ``seed``
        not a whole number >= 0.
    """
    r = get_ruleset(ruleset)
    n_positions = _whole(n_positions, "n_positions", 0, _INT32_MAX)
    parallel_games = _whole(parallel_games, "parallel_games", 0, _INT32_MAX)
    rng = np.random.default_rng(_whole(seed, "seed", 0, None))
    start = positions_to_array([r.initial_position()])
    k = max(1, min(int(parallel_games), int(n_positions)))
    cur = np.repeat(start, k, axis=0)
    fresh = np.ones(k, bool)
    out, have = [], 0
    while have < n_positions:
        dice = rng.integers(1, 7, size=(k, 2), dtype=np.uint8)
        children, parent = native.expand(cur, dice, r)  # rows of the games themselves: valid
        counts = np.bincount(parent, minlength=k)
        live = counts > 0  # a game over yields no child
        take = cur[(live | include_over) & (include_start | ~fresh)]
        if len(take):
            out.append(take)
            have += len(take)
        nxt = np.repeat(start, k, axis=0)
        if len(children):
            offsets = np.concatenate(([0], np.cumsum(counts)[:-1]))
            pick = offsets + (rng.random(k) * np.maximum(counts, 1)).astype(np.int64)
            nxt[live] = children[pick[live]]
        cur, fresh = nxt, ~live
    return np.concatenate(out)[:n_positions] if out else np.zeros((0, start.shape[1]), np.uint8)
