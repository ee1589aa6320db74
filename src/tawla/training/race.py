"""Race networks: the network of the races beyond the bear-off databases.

A race beyond the databases is a position with no contact in which a checker of either side is
still outside its home board (:func:`tawla.evaluation.routing.beyond_databases`): the race
model moves such checkers onto the 6-point with a pip shift, so plays with the same outside
pip total get the same value, and it predicts no backgammons. A race network has the contact
network's inputs (:mod:`tawla.evaluation.net`: every checker on its own point, the pip counts
among the hand features).

It is trained by **value iteration from the databases** (:func:`train_race_net`):

1. **Positions** (:func:`race_positions`): the races of the contact network's own self-play
   games with random plays mixed in (``explore``), not cut at the first race, deduplicated,
   each a race beyond the databases and not over, in a seeded random order.
2. **Rounds**: each position's 1-ply value (for each of the 21 rolls the best play's child,
   valued by the databases where both sides are home and by the current race network
   beyond them; the first round by the race model) is its target, and the network is fitted
   to those targets by stochastic gradient descent (the first round from a seeded fresh
   network, later ones from the last). Every race ends in the databases within a few rolls,
   so the exact values there reach further back each round.

Rollout targets (:func:`race_targets`: variance-reduced trials of net0's play to the end or
until both sides are home) are the other way; measured against GNU Backgammon's rollouts
(``bench/bench_race.py``), their player's weakness in these races (the race model, or an
early race network, playing out the trials) biases them more than value iteration is off.
"""

from __future__ import annotations

import json
import time
import zipfile
from pathlib import Path

import numpy as np

from .. import native
from ..errors import ConfigError, InvalidArgument
from ..evaluation.board_views import sides
from ..evaluation.bearoff import eval_tables
from ..evaluation.net import NetEvaluator
from ..evaluation.routing import beyond_databases, race_rows, races_by_network
from .td import chunk_seed, map_chunks

__all__ = ["race_positions", "race_targets", "train_race_net", "save_race_positions", "load_race_positions"]

#: Positions per call of the compiled trial loop (and per thread task).
ROLLOUT_CHUNK = 512
#: Positions per call of the compiled 1-ply search (and per thread task).
TARGET_CHUNK = 4096


def _needs_native(r=None) -> None:
    if not native.available("net"):
        raise ConfigError("race networks need the compiled engine (tawla.native, part 'net')")
    if r is not None and not races_by_network(r):
        raise ConfigError(f"race networks serve backgammon and adi (hitting, opposite directions, 1/2/3 "
                          f"scoring), not {r.name}")


def race_positions(net: NetEvaluator, count: int, seed: int, explore: float = 0.15,
                   max_turns: int = 2000) -> np.ndarray:
    """``uint8[M, 56]``, M <= count: distinct races beyond the bear-off databases from the
    self-play of ``net`` (a share ``explore`` of its plays random), in a seeded random order.

    Raises
    ------
    tawla.errors.ConfigError
        No compiled engine, or a ruleset other than backgammon and adi.
    tawla.errors.InvalidArgument
        ``count`` < 1 or ``explore`` outside [0, 1].
    """
    _needs_native(net.ruleset)
    if count < 1 or not 0.0 <= explore <= 1.0:
        raise InvalidArgument(f"need count >= 1 and explore in [0, 1], not {count}, {explore}")
    r = net.ruleset
    found: list[np.ndarray] = []
    total, k = 0, 0
    while total < count and k < 64:
        rows = native.net_positions(r, net.w1, net.b1, net.w2, net.b2, 100 * count, chunk_seed(seed, k),
                                    12 * count, explore, max_turns, None, None)
        me, opp, om = sides(rows, r)
        done = native.game_results(rows, r, frozen_test=False, checked=False)[0]
        keep = race_rows(me, opp, om, r, done) & beyond_databases(me, opp)
        found.append(rows[keep])
        total = len(np.unique(np.concatenate(found), axis=0))
        k += 1
    rows = np.unique(np.concatenate(found), axis=0)
    rows = rows[np.random.default_rng(seed).permutation(len(rows))][:count]
    return np.ascontiguousarray(rows)


def race_targets(rows: np.ndarray, contact: NetEvaluator, trials: int, seed: int,
                 race_net: NetEvaluator | None = None, threads: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """The rollout targets of race rows: ``(mean float32[N, 6], se float32[N, 6])``, the five
    outputs of the side to move (the network's output layout) then its cubeless equity, over
    ``trials`` variance-reduced trials each (module docstring, step 2). The targets do not
    depend on ``threads``.

    Raises
    ------
    tawla.errors.ConfigError
        No compiled engine.
    tawla.errors.InvalidArgument
        ``trials`` < 2.
    tawla.errors.InvalidPosition
        A row that is not a position of the ruleset, or a finished game.
    """
    _needs_native()
    if trials < 2:
        raise InvalidArgument(f"trials must be at least 2, not {trials}")
    r = contact.ruleset
    one, _, _, two = eval_tables()
    rows = np.ascontiguousarray(rows, dtype=np.uint8)
    race = None if race_net is None else race_net.weights

    def chunk(first: int) -> np.ndarray:
        values = native.rollout_trials(rows[first:first + ROLLOUT_CHUNK], r, "net", w1=contact.w1, b1=contact.b1,
                                       w2=contact.w2, b2=contact.b2, race_one=one, race_two=two, race_net=race,
                                       trials=trials, vr=True, stop_bearoff=True, seed=chunk_seed(seed, first))[0]
        return values[:, :, :6]

    starts = list(range(0, len(rows), ROLLOUT_CHUNK))
    v = map_chunks(chunk, starts, threads) if starts else np.zeros((0, trials, 6))
    mean = v.mean(1)
    mean[:, :5] = np.clip(mean[:, :5], 0.0, 1.0)
    se = v.std(1, ddof=1) / np.sqrt(trials)
    return mean.astype(np.float32), se.astype(np.float32)


def train_race_net(contact: NetEvaluator, rows: np.ndarray, rounds: int = 20, hidden: int = 128,
                   first_epochs: int = 40, epochs: int = 12, alpha: float = 0.3, decay: float = 0.95,
                   holdout: int = 3000, seed: int = 1, threads: int = 1, start: NetEvaluator | None = None,
                   progress=None) -> NetEvaluator:
    """A race network trained by value iteration from the databases on ``rows`` (module
    docstring), ``contact`` valuing the contact children (none arise in a race) and making the
    1-ply choices.

    Parameters
    ----------
    contact : NetEvaluator
    rows : uint8[N, 56]
        Races beyond the databases (:func:`race_positions`); the first ``holdout`` are kept out
        of the fit and measure it.
    rounds, first_epochs, epochs : int
        Rounds; passes of gradient descent in the first round and in each later one.
    alpha, decay : float
        Step size of a round's first pass (the first round's; a later round starts at a third
        of it) and its factor per pass.
    start : NetEvaluator, optional
        A race network to start from instead of the race model and a fresh network.
    progress : callable, optional
        ``progress(round, rounds, record)`` after each round.

    Returns
    -------
    NetEvaluator
        ``meta``: ``kind`` ``race``, the settings, and per round the held-out squared error
        of the network against the round's targets before and after the fit, and the seconds.

    Raises
    ------
    tawla.errors.ConfigError
        No compiled engine, a ruleset other than backgammon and adi, or a ``start`` of another
        ruleset.
    tawla.errors.InvalidArgument
        ``holdout`` not below the number of rows, or counts below 1.
    """
    _needs_native(contact.ruleset)
    r = contact.ruleset
    rows = np.ascontiguousarray(rows, dtype=np.uint8)
    if not 0 <= holdout < len(rows) or min(rounds, hidden, first_epochs, epochs) < 1:
        raise InvalidArgument(f"need 0 <= holdout < {len(rows)} rows and rounds, hidden, epochs >= 1")
    if start is not None and start.ruleset != r:
        raise ConfigError(f"the starting race network is for {start.ruleset.name}, not {r.name}")
    one, _, _, two = eval_tables()
    net = None if start is None else NetEvaluator.from_bytes(start.to_bytes())
    rng = np.random.default_rng(seed)
    records = []
    for k in range(rounds):
        t0, w0 = time.process_time(), time.perf_counter()
        race = None if net is None else net.weights

        def chunk(first: int, race=race) -> np.ndarray:
            return native.net_ply1_targets(rows[first:first + TARGET_CHUNK], r, contact.w1, contact.b1, contact.w2,
                                           contact.b2, one, two, race)

        targets = map_chunks(chunk, list(range(0, len(rows), TARGET_CHUNK)), threads)
        if net is None:
            net = NetEvaluator.initial(r, hidden=hidden, seed=seed)
        before = _mse(net, rows[:holdout], targets[:holdout]) if k or start is not None else None
        a = alpha if k == 0 and start is None else alpha / 3
        for _ in range(first_epochs if k == 0 and start is None else epochs):
            order = rng.permutation(len(rows) - holdout).astype(np.int64)
            native.net_fit(r, net.w1, net.b1, net.w2, net.b2, rows[holdout:], targets[holdout:], order, a)
            a *= decay
        rec = {"round": k + 1, "mse_before": before, "mse_after": _mse(net, rows[:holdout], targets[:holdout]),
               "seconds": round(time.process_time() - t0, 1), "wall": round(time.perf_counter() - w0, 1)}
        records.append(rec)
        if progress is not None:
            progress(k + 1, rounds, rec)
    assert net is not None
    net.meta = {"kind": "race", "hidden": net.hidden, "positions": int(len(rows)), "holdout": holdout,
                "rounds": records, "first_epochs": first_epochs, "epochs": epochs, "alpha": alpha, "decay": decay,
                "seed": seed, "games": 0, "method": "value iteration from the bear-off databases (1-ply targets)"}
    return net


def _mse(net: NetEvaluator, rows: np.ndarray, targets: np.ndarray) -> float | None:
    if len(rows) == 0:
        return None
    out = native.net_outputs(rows, net.ruleset, net.w1, net.b1, net.w2, net.b2)
    return round(float(((out - targets) ** 2).mean()), 8)


def save_race_positions(path, rows: np.ndarray, meta: dict) -> None:
    """Write training positions (``rows`` uint8[N, 56]) and ``meta`` (JSON: the command, seed,
    ruleset), compressed."""
    np.savez_compressed(path, rows=np.ascontiguousarray(rows, dtype=np.uint8),
                        meta=np.frombuffer(json.dumps(meta).encode(), np.uint8))


def load_race_positions(path) -> tuple[np.ndarray, dict]:
    """``(rows, meta)`` of :func:`save_race_positions`'s file.

    Raises
    ------
    tawla.errors.ConfigError
        Unreadable, or not such a file.
    """
    try:
        with np.load(Path(path), allow_pickle=False) as z:
            meta = json.loads(bytes(z["meta"]).decode())
            rows = z["rows"]
    except (OSError, ValueError, KeyError, EOFError, UnicodeDecodeError, zipfile.BadZipFile) as e:
        raise ConfigError(f"not a race positions file: {path}: {e}") from None
    if rows.ndim != 2 or rows.shape[1] != 56 or rows.dtype != np.uint8:
        raise ConfigError(f"not a race positions file: {path}: rows of shape {rows.shape}, {rows.dtype}")
    return rows, meta
