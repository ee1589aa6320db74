"""Supervised rounds on search targets: the positions of the network's own self-play, each
valued by a 1-ply (or pruned 2-ply) search on the network (the 21 rolls, the best move for
each), and the network fitted to those values by stochastic gradient descent; then again with
the new network.

A round's network at 0 ply approximates the previous network at the search's depth, so each
round moves the 0-ply player toward the deeper one. Everything is seeded: the same configuration and starting
network give the same weights (the targets are computed in parallel threads, each on its own
slice of the positions, and do not depend on how they are split).
"""

from __future__ import annotations

import hashlib
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np

from .. import native
from ..errors import ConfigError, InvalidArgument
from ..evaluation.net import NetEvaluator
from ..rules import get_ruleset
from .duel import duel, evaluator_player
from .td import _save_atomic, chunk_seed, map_chunks, race_tables

__all__ = ["SuperviseConfig", "supervise", "search_targets"]

#: Positions per compiled call of the target search (and per thread task).
TARGET_CHUNK = 4096


@dataclass
class SuperviseConfig:
    """What a run of supervised rounds is: everything that decides its result.

    Attributes
    ----------
    ruleset : str
    rounds : int
        Rounds in all (each: new positions, their targets, the fit).
    positions : int
        Positions per round (pre-roll positions of greedy self-play games, the opening left out).
    explore : float
        Probability, every self-play move, of a random legal move instead (more varied positions).
    epochs : int
        Passes of gradient descent over a round's positions.
    alpha : float
        Step size of the first epoch of a round.
    alpha_decay : float
        Factor of the step size from one epoch to the next, in (0, 1].
    holdout : int
        Positions of each round kept out of the fit, to measure the fit's error on.
    seed : int
        Seed of the self-play dice and of the order of the positions in each epoch.
    max_turns : int
        Turns after which a self-play game is cut.
    race_cutoff : bool
        Backgammon, adi: a child without contact is valued by the race model (as
        :func:`tawla.evaluation.evaluate_rows` routes races), and the self-play games stop
        there, so the positions all have contact. Ignored for the other rulesets.
    eval_pairs : int
        Duplicate-dice game pairs against the heuristic 0-ply after each round (0: none).
    depth : int
        Plies of the search that makes the targets: 1, or 2 (the ``prune`` children best at 0
        ply, each searched 1 ply deeper; about 10 times the cost a position per child kept).
    prune : int
        Children kept per roll at depth 2 (1..8).
    trials : int
        0: search targets (``depth``). Otherwise truncated-rollout targets: each position
        played out ``trials`` times by the network's greedy moves (the first roll stratified
        over the 36), for ``horizon`` moves, the outputs after the last move averaged.
    horizon : int
        Moves of a rollout (0: until the game ends or the race model takes over).
    """

    ruleset: str
    rounds: int = 3
    positions: int = 200_000
    explore: float = 0.1
    epochs: int = 10
    alpha: float = 0.1
    alpha_decay: float = 0.85
    holdout: int = 5000
    seed: int = 1
    max_turns: int = 10_000
    race_cutoff: bool = True
    eval_pairs: int = 500
    depth: int = 1
    prune: int = 2
    trials: int = 0
    horizon: int = 8
    extra: dict = field(default_factory=dict)

    def check(self) -> None:
        """Raises :class:`tawla.errors.InvalidArgument` for values out of range."""
        get_ruleset(self.ruleset)
        if self.rounds < 0 or self.positions < 1 or self.epochs < 1 or self.max_turns < 1 or self.eval_pairs < 0:
            raise InvalidArgument("rounds >= 0, positions >= 1, epochs >= 1, max_turns >= 1 and "
                                  "eval_pairs >= 0 are required")
        if not 0 <= self.holdout < self.positions:
            raise InvalidArgument(f"holdout must be in [0, positions), not {self.holdout}")
        if self.depth not in (1, 2) or not 1 <= self.prune <= 8:
            raise InvalidArgument(f"depth must be 1 or 2 and prune 1..8, not {self.depth}, {self.prune}")
        if self.trials < 0 or self.horizon < 0:
            raise InvalidArgument(f"trials and horizon must be >= 0, not {self.trials}, {self.horizon}")
        if not 0.0 <= self.explore <= 1.0:
            raise InvalidArgument(f"explore must be in [0, 1], not {self.explore}")
        if not (0.0 < self.alpha <= 10.0 and 0.0 < self.alpha_decay <= 1.0):
            raise InvalidArgument(f"need 0 < alpha <= 10 and 0 < alpha_decay <= 1, not "
                                  f"{self.alpha}, {self.alpha_decay}")


def search_targets(net: NetEvaluator, rows: np.ndarray, *, depth: int = 1, prune: int = 2,
                   race_cutoff: bool = True, threads: int = 1, trials: int = 0, horizon: int = 8,
                   seed: int = 0) -> np.ndarray:
    """The search targets of pre-roll rows: float32[N, 5], the network's output layout.

    Depth 1: for each of the 21 rolls the outputs after the network's greedy move (game ends
    exact; with ``race_cutoff`` in backgammon and adi, children without contact by the race
    model, or the ruleset's shipped race network beyond the databases), for the row's mover,
    averaged with the rolls' probabilities (1/36 a double, 2/36 the others). Depth 2: for each roll the ``prune`` children best at 0 ply, each valued by
    the depth-1 search from its mover's seat, the best of them for the row's mover. With
    ``trials`` > 0, truncated rollouts instead (``depth`` and ``prune`` unused): each row
    played out ``trials`` times by the network's greedy moves for ``horizon`` moves (0: to the
    game's end or the race model), the first roll of trial j the ordered roll j mod 36, the
    later ones random from ``seed`` and the row's index; the outputs after the last move for
    the row's mover, averaged.

    Parameters
    ----------
    net : NetEvaluator
    rows : uint8[N, 56]
        Packed positions before the roll (mover's seat), none of them a finished game.
    depth : int
        1 or 2.
    prune : int
        Children kept per roll at depth 2 (1..8).
    threads : int
        Threads to compute them in (the compiled search runs without the GIL; the targets do
        not depend on it).
    trials, horizon, seed : int
        The rollouts' (``trials`` 0: search targets).

    Raises
    ------
    tawla.errors.ConfigError
        No compiled engine.
    tawla.errors.InvalidArgument
        A depth other than 1 or 2, ``prune`` outside 1..8, ``trials`` or ``horizon`` < 0.
    tawla.errors.InvalidPosition
        A row that is not a position of the ruleset, or a finished game.
    """
    if not native.available("net"):
        raise ConfigError("the search targets need the compiled engine (tawla.native, part 'net')")
    if depth not in (1, 2):
        raise InvalidArgument(f"depth must be 1 or 2, not {depth}")
    if trials < 0 or horizon < 0:
        raise InvalidArgument(f"trials and horizon must be >= 0, not {trials}, {horizon}")
    r = net.ruleset
    one, two, race = race_tables(r, race_cutoff)
    rows = np.ascontiguousarray(rows, dtype=np.uint8)
    chunk_size = TARGET_CHUNK if depth == 1 and not trials else TARGET_CHUNK // 16

    def one_chunk(first: int) -> np.ndarray:
        chunk = rows[first:first + chunk_size]
        if trials:
            return native.net_rollout_targets(chunk, r, net.w1, net.b1, net.w2, net.b2, trials, horizon, seed, first,
                                              one, two, race)
        if depth == 2:
            return native.net_ply2_targets(chunk, r, net.w1, net.b1, net.w2, net.b2, prune, one, two, race)
        return native.net_ply1_targets(chunk, r, net.w1, net.b1, net.w2, net.b2, one, two, race)

    return map_chunks(one_chunk, list(range(0, len(rows), chunk_size)) or [0], threads)


def supervise(cfg: SuperviseConfig, start: NetEvaluator, checkpoint: str | os.PathLike | None = None, *,
              resume: bool = True, threads: int = 1,
              progress: Callable[[int, int, dict], None] | None = None) -> NetEvaluator:
    """Run (or resume) supervised rounds from the network ``start``.

    Parameters
    ----------
    cfg : SuperviseConfig
    start : NetEvaluator
        The network of the first round (not changed: the rounds work on a copy).
    checkpoint : path, optional
        Written after every round (atomically); with ``resume`` and an existing file made by
        the same configuration from the same start, the run continues from it.
    threads : int
        Threads for the 1-ply targets (the result does not depend on it).
    progress : callable, optional
        ``progress(done, total, info)`` after every round; ``info`` is the round's record.

    Returns
    -------
    NetEvaluator
        ``meta`` is the start's, with ``lineage`` (the commands that made the start, oldest
        first), ``earlier_rounds`` (the records of the start's own supervised rounds) and
        ``supervised``: the configuration, the starting network's SHA-256
        (``start``) and a record per round done (``rounds``: positions, ``mse_before`` and
        ``mse_after`` on the held-out positions, ``seconds`` (CPU of the calling thread plus
        the wall time of the target search), the duel against the heuristic 0-ply).

    Raises
    ------
    tawla.errors.ConfigError
        No compiled engine, a network of another ruleset, or a checkpoint of another run.
    tawla.errors.InvalidArgument
        A configuration out of range.
    """
    cfg.check()
    if not native.available("net"):
        raise ConfigError("training needs the compiled engine (tawla.native, part 'net')")
    r = get_ruleset(cfg.ruleset)
    if start.ruleset != r:
        raise ConfigError(f"the starting network is for {start.ruleset.name}, not {r.name}")
    conf = {k: v for k, v in vars(cfg).items() if k != "extra"}
    same = [k for k in conf if k != "rounds"]  # a run may be resumed with more rounds
    start_sha = hashlib.sha256(start.to_bytes()).hexdigest()
    net = None
    if checkpoint is not None and resume and Path(checkpoint).exists():
        net = NetEvaluator.load(checkpoint)
        sup = net.meta.get("supervised") or {}
        old = sup.get("config") or {}
        defaults = vars(SuperviseConfig(ruleset=cfg.ruleset))  # fields newer than the file
        if any(old.get(k, defaults[k]) != conf[k] for k in same) or sup.get("start") != start_sha:
            raise ConfigError(f"checkpoint {checkpoint} was made by another run: {sup.get('config')}")
        net.meta.update(cfg.extra)  # the command: the one that runs the rounds to the end
    if net is None:
        net = NetEvaluator.from_bytes(start.to_bytes())
        lineage = [*start.meta.get("lineage", []), start.meta.get("command")]
        earlier = [*start.meta.get("earlier_rounds", []), *(start.meta.get("supervised") or {}).get("rounds", [])]
        net.meta = {**start.meta, **cfg.extra, "lineage": lineage, "earlier_rounds": earlier,
                    "supervised": {"config": conf, "start": start_sha, "rounds": []}}
    one, two, _race = race_tables(r, cfg.race_cutoff)
    opponent = evaluator_player(r)
    net.meta["supervised"]["config"] = conf
    records = net.meta["supervised"]["rounds"]
    while len(records) < cfg.rounds:
        k = len(records)
        t0, w0 = time.process_time(), time.perf_counter()
        rows = native.net_positions(r, net.w1, net.b1, net.w2, net.b2, 100 * cfg.positions,
                                    chunk_seed(cfg.seed, 2 * k), cfg.positions, cfg.explore, cfg.max_turns, one, two)
        t1 = time.perf_counter()
        targets = search_targets(net, rows, depth=cfg.depth, prune=cfg.prune, race_cutoff=cfg.race_cutoff,
                                 threads=threads, trials=cfg.trials, horizon=cfg.horizon,
                                 seed=chunk_seed(cfg.seed, 2 * k + 1) ^ 0x5EED)  # not the fit order's seed
        search_wall = time.perf_counter() - t1
        fit, held = rows[cfg.holdout:], rows[:cfg.holdout]
        before = _mse(net, held, targets[:cfg.holdout])
        order_rng = np.random.default_rng(chunk_seed(cfg.seed, 2 * k + 1))
        alpha, train_mse = cfg.alpha, []
        for _ in range(cfg.epochs):
            order = order_rng.permutation(len(fit)).astype(np.int64)
            train_mse.append(native.net_fit(r, net.w1, net.b1, net.w2, net.b2, fit, targets[cfg.holdout:], order,
                                            alpha))
            alpha *= cfg.alpha_decay
        rec = {"round": k + 1, "positions": int(len(rows)),
               "mse_before": before, "mse_after": _mse(net, held, targets[:cfg.holdout]),
               "train_mse": [round(float(m), 8) for m in train_mse],
               "seconds": round(time.process_time() - t0 + search_wall, 1),
               "wall": round(time.perf_counter() - w0, 1)}
        if cfg.eval_pairs:
            res = duel(r, evaluator_player(r, net), opponent, cfg.eval_pairs, seed=cfg.seed,
                       max_plies=min(cfg.max_turns, 3000))
            rec["vs_heuristic"] = [round(res.mean, 4), round(res.ci95, 4)]
        records.append(rec)
        if checkpoint is not None:
            _save_atomic(net, checkpoint)
        if progress is not None:
            progress(len(records), cfg.rounds, rec)
    return net


def _mse(net: NetEvaluator, rows: np.ndarray, targets: np.ndarray) -> float | None:
    if len(rows) == 0 or not native.available("net"):
        return None
    out = native.net_outputs(rows, net.ruleset, net.w1, net.b1, net.w2, net.b2)
    return round(float(((out - targets) ** 2).mean()), 8)

