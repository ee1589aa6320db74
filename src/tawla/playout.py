"""Random playouts: whole games with uniformly random legal moves, in C or in Python.

:func:`playout` plays ``n_games`` games from the starting position of a ruleset: the
opening roll of RULES.md §1.6, then each turn a uniformly random choice among the
*distinct* positions the roll allows (a pass when there is none), until the game ends
(§1.7, §1.8). The fast engine runs the whole loop in C (``tawla._fast.playout``) with no
Python object per move; ``engine="reference"`` runs the same procedure on the reference
engine (slow; used to check the statistics of the fast one).

:func:`random_positions` returns the positions met in such games, as packed rows (the
workload of the differential tests and of ``tawla bench``'s variant workloads).
"""

from __future__ import annotations

import random
from dataclasses import dataclass

import numpy as np

from .rules import get_ruleset

__all__ = ["PlayoutResult", "playout", "random_positions", "KINDS"]

KINDS = ("single", "gammon", "backgammon", "quadrant_lock", "mother", "draw", "unfinished")
"""Result kinds, indexed by :attr:`PlayoutResult.kind`: ``gammon`` is mars in the 1/2 games
and "the loser bore off none" in tawla31; ``draw`` is a frozen position (§1.7) or the
plakoto double mother pin (§4.4); ``unfinished`` a game cut at ``max_turns``."""


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

    ruleset: object
    length: np.ndarray
    winner: np.ndarray
    kind: np.ndarray
    points: np.ndarray
    seed: int
    engine: str

    @property
    def n_games(self) -> int:
        return int(self.length.shape[0])

    def kind_counts(self) -> dict:
        """``{kind name: number of games}`` for the kinds that occurred."""
        vals, counts = np.unique(self.kind, return_counts=True)
        return {KINDS[int(v)]: int(c) for v, c in zip(vals, counts)}

    def summary(self) -> dict:
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


def playout(ruleset, n_games: int, seed: int = 0, *, engine: str | None = None,
            max_turns: int = 100_000) -> PlayoutResult:
    """Play ``n_games`` random games and return their lengths, winners, kinds and points.

    Parameters
    ----------
    ruleset : Ruleset or str
    n_games : int
    seed : int
        Equal seeds give equal games (per engine; the two engines use different generators).
    engine : {"fast", "reference"}, optional
        Default :func:`tawla.engine.default_engine` (fast unless ``TAWLA_ENGINE=reference``).
    max_turns : int
        Safety cap per game (a game cut there is ``unfinished``, winner -1).

    Returns
    -------
    PlayoutResult
    """
    r = get_ruleset(ruleset)
    n_games = int(n_games)
    if n_games < 0:
        raise ValueError("n_games must be >= 0")
    from . import engine as eng

    engine = eng.default_engine() if engine is None else engine
    if engine == "fast" and eng._fast is not None:
        length, winner, kind, points = eng._fast.playout(eng._params(r), n_games, int(seed) & (2**64 - 1),
                                                         int(max_turns))
        return PlayoutResult(r, length, winner, kind, points, int(seed), "fast")
    if engine not in ("fast", "reference"):
        raise ValueError(f"engine must be 'fast' or 'reference', not {engine!r}")
    return _playout_reference(r, n_games, int(seed), int(max_turns))


_KIND_CODE = {k: i for i, k in enumerate(KINDS)}


def _playout_reference(r, n_games: int, seed: int, max_turns: int) -> PlayoutResult:
    """The same procedure on the reference engine (one Python object per move: slow)."""
    from .engine import legal_moves

    rng = random.Random(seed)
    length = np.zeros(n_games, np.int32)
    winner = np.zeros(n_games, np.int8)
    kind = np.zeros(n_games, np.int8)
    points = np.zeros(n_games, np.int16)
    for g in range(n_games):
        pos = r.initial_position()
        while True:  # §1.6 opening roll
            d0, d1 = rng.randint(1, 6), rng.randint(1, 6)
            if d0 != d1:
                break
        dice = (rng.randint(1, 6), rng.randint(1, 6)) if r.opening_reroll else (d0, d1)
        mover, turns, res = 0, 0, None
        while turns < max_turns:
            moves = legal_moves(pos, dice, engine="reference")
            pos = pos.play(moves[rng.randrange(len(moves))]) if moves else pos.flip()
            turns += 1
            mover ^= 1
            res = pos.result()
            if res is not None:
                break
            dice = (rng.randint(1, 6), rng.randint(1, 6))
        length[g] = turns
        if res is None:
            winner[g], kind[g], points[g] = -1, _KIND_CODE["unfinished"], 0
        else:
            winner[g] = -1 if res.winner is None else (mover if res.winner == 0 else mover ^ 1)
            kind[g] = _KIND_CODE[res.kind]
            points[g] = res.points
    return PlayoutResult(r, length, winner, kind, points, seed, "reference")


def random_positions(ruleset, n_positions: int, seed: int = 0, *, parallel_games: int = 64,
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
    """
    from .engine import expand
    from .position import positions_to_array

    r = get_ruleset(ruleset)
    rng = np.random.default_rng(seed)
    start = positions_to_array([r.initial_position()])
    k = max(1, min(int(parallel_games), int(n_positions)))
    cur = np.repeat(start, k, axis=0)
    fresh = np.ones(k, bool)
    out, have = [], 0
    while have < n_positions:
        dice = rng.integers(1, 7, size=(k, 2), dtype=np.uint8)
        children, parent = expand(cur, dice, ruleset=r)
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
