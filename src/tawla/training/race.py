"""Race networks: the network of the races beyond the bear-off databases, fitted to rollouts.

A race beyond the databases is a position with no contact in which a checker of either side is
still outside its home board (:func:`tawla.evaluation.routing.beyond_databases`): the race
model moves such checkers onto the 6-point with a pip shift, so plays with the same outside
pip total get the same value, and it predicts no backgammons. A race network has the contact
network's inputs (:mod:`tawla.evaluation.net`: every checker on its own point, the pip counts
among the hand features) and is fitted to rollouts of such races.

One round (:func:`race_round`):

1. **Positions** (:func:`race_positions`): the races of the contact network's own self-play
   games with random plays mixed in (``explore``), not cut at the first race, deduplicated,
   each a race beyond the databases and not over, in a seeded random order.
2. **Targets** (:func:`race_targets`): each position rolled out ``trials`` times by the
   compiled trial loop, net0's choices (the races beyond the databases by ``race_net``, the
   previous round's network, or by the race model in the first round), variance reduction
   (the luck of every roll taken out), duplicate dice and the first two rolls stratified,
   each trial to the end of the game or until both sides are home (the databases' value); the
   five outputs' means and standard errors.
3. **Fit** (:func:`fit_race_net`): a fresh network fitted by stochastic gradient descent on
   all but ``holdout`` positions, the squared error on those held out reported.

The data are kept in a compact ``.npz`` (:func:`save_race_data`): the packed rows, the means
and standard errors of the five outputs (float32), and the command, seed and settings.
"""

from __future__ import annotations

import json
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

from .. import native
from ..errors import ConfigError, InvalidArgument
from ..evaluation.board_views import sides
from ..evaluation.bearoff import eval_tables
from ..evaluation.net import NetEvaluator
from ..evaluation.routing import beyond_databases, race_rows
from ..rules import get_ruleset, RulesetLike
from .td import chunk_seed

__all__ = ["race_positions", "race_targets", "fit_race_net", "save_race_data", "load_race_data", "race_round"]

#: Positions per call of the compiled trial loop (and per thread task).
ROLLOUT_CHUNK = 512


def _needs_native() -> None:
    if not native.available("net"):
        raise ConfigError("race networks need the compiled engine (tawla.native, part 'net')")


def race_positions(net: NetEvaluator, count: int, seed: int, explore: float = 0.15,
                   max_turns: int = 2000) -> np.ndarray:
    """``uint8[M, 56]``, M <= count: distinct races beyond the bear-off databases from the
    self-play of ``net`` (a share ``explore`` of its plays random), in a seeded random order.

    Raises
    ------
    tawla.errors.ConfigError
        No compiled engine.
    tawla.errors.InvalidArgument
        ``count`` < 1 or ``explore`` outside [0, 1].
    """
    _needs_native()
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
    if threads <= 1:
        parts = [chunk(s) for s in starts]
    else:
        with ThreadPoolExecutor(threads) as ex:
            parts = list(ex.map(chunk, starts))
    v = np.concatenate(parts) if parts else np.zeros((0, trials, 6))
    mean = v.mean(1)
    mean[:, :5] = np.clip(mean[:, :5], 0.0, 1.0)
    se = v.std(1, ddof=1) / np.sqrt(trials)
    return mean.astype(np.float32), se.astype(np.float32)


def fit_race_net(rows: np.ndarray, targets: np.ndarray, ruleset: RulesetLike, hidden: int = 64, epochs: int = 40,
                 alpha: float = 0.2, decay: float = 0.93, holdout: int = 2000, seed: int = 1) -> NetEvaluator:
    """A fresh race network fitted to ``targets`` (float32[N, 5]) of ``rows`` (module docstring,
    step 3). Its ``meta`` holds the settings and, per epoch, the squared error on the fitted
    rows and on the ``holdout`` first ones (kept out of the fit).

    Raises
    ------
    tawla.errors.ConfigError
        No compiled engine.
    tawla.errors.InvalidArgument
        Shapes that do not match, or ``holdout`` not below the number of rows.
    """
    _needs_native()
    r = get_ruleset(ruleset)
    rows = np.ascontiguousarray(rows, dtype=np.uint8)
    targets = np.ascontiguousarray(targets, dtype=np.float32)
    if targets.shape != (len(rows), 5) or not 0 <= holdout < len(rows):
        raise InvalidArgument(f"need targets float32[N, 5] for N rows and 0 <= holdout < N, not {targets.shape}, "
                              f"{len(rows)} rows, holdout {holdout}")
    net = NetEvaluator.initial(r, hidden=hidden, seed=seed)
    fit_rows, fit_t = rows[holdout:], targets[holdout:]
    rng = np.random.default_rng(seed)
    curve = []
    t0 = time.process_time()
    a = alpha
    for _ in range(epochs):
        order = rng.permutation(len(fit_rows)).astype(np.int64)
        train = native.net_fit(r, net.w1, net.b1, net.w2, net.b2, fit_rows, fit_t, order, a)
        held = _mse(net, rows[:holdout], targets[:holdout])
        curve.append([round(float(train), 8), held])
        a *= decay
    net.meta = {"kind": "race", "hidden": hidden, "positions": int(len(rows)), "holdout": holdout,
                "epochs": epochs, "alpha": alpha, "decay": decay, "init_seed": seed, "games": 0,
                "fit_curve": curve, "fit_seconds": round(time.process_time() - t0, 1)}
    return net


def _mse(net: NetEvaluator, rows: np.ndarray, targets: np.ndarray) -> float | None:
    if len(rows) == 0:
        return None
    out = native.net_outputs(rows, net.ruleset, net.w1, net.b1, net.w2, net.b2)
    return round(float(((out - targets) ** 2).mean()), 8)


def save_race_data(path, rows: np.ndarray, mean: np.ndarray, se: np.ndarray, meta: dict) -> None:
    """Write a round's data: ``rows`` uint8[N, 56], ``mean`` and ``se`` float32[N, 6] (the five
    outputs and the cubeless equity, :func:`race_targets`), ``meta``
    (JSON: the command, seeds, trials, ruleset)."""
    np.savez_compressed(path, rows=np.ascontiguousarray(rows, dtype=np.uint8), mean=mean.astype(np.float32),
                        se=se.astype(np.float32), meta=np.frombuffer(json.dumps(meta).encode(), np.uint8))


def load_race_data(path) -> tuple[np.ndarray, np.ndarray, np.ndarray, dict]:
    """``(rows, mean, se, meta)`` of :func:`save_race_data`'s file.

    Raises
    ------
    tawla.errors.ConfigError
        Unreadable, or not such a file.
    """
    try:
        with np.load(Path(path), allow_pickle=False) as z:
            meta = json.loads(bytes(z["meta"]).decode())
            rows, mean, se = z["rows"], z["mean"], z["se"]
    except (OSError, ValueError, KeyError, EOFError, UnicodeDecodeError) as e:
        raise ConfigError(f"not a race data file: {path}: {e}") from None
    if rows.ndim != 2 or rows.shape[1] != 56 or mean.shape != (len(rows), 6) or se.shape != mean.shape:
        raise ConfigError(f"not a race data file: {path}: shapes {rows.shape}, {mean.shape}, {se.shape}")
    return rows, mean, se, meta


def race_round(contact: NetEvaluator, positions: int, trials: int, seed: int, *, race_net: NetEvaluator | None = None,
               hidden: int = 64, epochs: int = 40, alpha: float = 0.2, decay: float = 0.93, holdout: int = 2000,
               explore: float = 0.15, threads: int = 1, data=None, command: str = "") -> NetEvaluator:
    """One round (module docstring): positions, their rollout targets (kept in ``data`` when
    given; a ``data`` file that exists is read instead of rolling out again), the fit.

    Returns
    -------
    NetEvaluator
        ``meta``: the fit's (:func:`fit_race_net`), the data's settings and its mean standard
        error of the equity, and ``command``.
    """
    r = contact.ruleset
    t0 = time.process_time()
    if data is not None and Path(data).exists():
        rows, mean, se, meta = load_race_data(data)
    else:
        rows = race_positions(contact, positions, seed, explore=explore)
        mean, se = race_targets(rows, contact, trials, chunk_seed(seed, 1), race_net=race_net, threads=threads)
        meta = {"ruleset": r.name, "positions": int(len(rows)), "trials": trials, "seed": seed, "explore": explore,
                "player": "net0" + ("" if race_net is None else " with the race network " +
                                    str(race_net.meta.get("command", "given"))),
                "command": command, "cpu_seconds": round(time.process_time() - t0, 1)}
        if data is not None:
            save_race_data(data, rows, mean, se, meta)
    net = fit_race_net(rows, mean[:, :5], r, hidden=hidden, epochs=epochs, alpha=alpha, decay=decay,
                       holdout=min(holdout, len(rows) - 1), seed=seed)
    net.meta.update({"command": command, "data": {k: v for k, v in meta.items() if k != "command"},
                     "mean_se_equity": round(float(se[:, 5].mean()), 5)})
    return net
