"""TD(0) self-play training of a :class:`~tawla.evaluation.net.NetEvaluator`, in chunks of games run
by the compiled trainer (``csrc/train/tw_net_train.c``), with checkpoints and a learning curve.

Each chunk of ``chunk`` games has its own dice seed (from the run's seed and the chunk's
number) and step size (``alpha`` decaying geometrically to ``alpha_end`` over the run), so a run
resumed from its checkpoint continues exactly as if it had not stopped. Every ``eval_every``
games the network plays ``eval_pairs`` pairs of duplicate-dice games at 0 ply against the
ruleset's heuristic evaluator (:data:`tawla.evaluation.CONTACT_MODELS`), and the learning curve
(games, points a game, 95% half-width) goes into the checkpoint's ``meta``.
"""

from __future__ import annotations

import hashlib
import os
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np

from .. import native
from ..errors import ConfigError, InvalidArgument
from ..core.geometry import OPPOSITE
from ..evaluation.bearoff import eval_tables
from ..evaluation.net import NetEvaluator, shipped_race_net
from ..evaluation.routing import races_by_network
from ..rules import HIT, get_ruleset
from .duel import duel, evaluator_player

__all__ = ["TrainConfig", "train", "chunk_seed", "plot_curve"]


@dataclass
class TrainConfig:
    """What a training run is: everything that decides its result.

    Attributes
    ----------
    ruleset : str
    games : int
        Self-play games in all.
    hidden : int
        Hidden units (1..512).
    seed : int
        Seed of the initial weights and of every chunk's dice.
    alpha, alpha_end : float
        Step size at the start and at the end (geometric decay per chunk).
    chunk : int
        Games per compiled call (and per checkpoint).
    eval_every : int
        Games between strength measurements (0: none).
    eval_pairs : int
        Duplicate-dice game pairs per measurement.
    max_turns : int
        Turns after which a self-play game is cut (no update for its last position).
    race_cutoff : bool
        In the hitting games (backgammon, adi), value a child with no contact left by the race
        model of :mod:`tawla.evaluation.race` and end the game there, as
        :func:`tawla.evaluation.evaluate_rows` routes races at play: the network learns contact
        positions only. Ignored for the other rulesets.
    """

    ruleset: str
    games: int = 100_000
    hidden: int = 80
    seed: int = 1
    alpha: float = 0.1
    alpha_end: float = 0.02
    chunk: int = 2000
    eval_every: int = 20_000
    eval_pairs: int = 500
    max_turns: int = 10_000
    race_cutoff: bool = False
    extra: dict = field(default_factory=dict)

    def check(self) -> None:
        """Raises :class:`tawla.errors.InvalidArgument` for values out of range."""
        get_ruleset(self.ruleset)
        if self.games < 0 or self.chunk < 1 or self.eval_every < 0 or self.eval_pairs < 1 or self.max_turns < 1:
            raise InvalidArgument("games >= 0, chunk >= 1, eval_every >= 0, eval_pairs >= 1 and max_turns >= 1 "
                                  "are required")
        if not 1 <= self.hidden <= 512:
            raise InvalidArgument(f"hidden must be 1..512, not {self.hidden}")
        if not (0 < self.alpha_end <= self.alpha <= 10):
            raise InvalidArgument(f"need 0 < alpha_end <= alpha <= 10, not {self.alpha_end}, {self.alpha}")


def race_tables(ruleset, race_cutoff: bool) -> tuple:
    """The race evaluation as the compiled trainers take it, ``(one, two, race_net)``: the race
    model's tables and the ruleset's shipped race network's weights (or None), where the race
    cut-off applies (``race_cutoff`` and a hitting, opposite-direction ruleset: backgammon,
    adi), else ``(None, None, None)``: a trained network is then valued in races as the
    ``net`` levels value it."""
    r = get_ruleset(ruleset)
    if race_cutoff and r.contact == HIT and r.geometry == OPPOSITE:
        one, _, _, two = eval_tables()
        race = shipped_race_net(r) if races_by_network(r) else None
        return one, two, None if race is None else race.weights
    return None, None, None


def chunk_seed(seed: int, k: int) -> int:
    """The dice seed of chunk ``k`` of a run seeded ``seed`` (64-bit)."""
    return int(np.random.SeedSequence([seed, k]).generate_state(1, np.uint64)[0])


def map_chunks(work: Callable[[int], np.ndarray], starts: list[int], threads: int) -> np.ndarray:
    """``work(start)`` for each chunk start, on ``threads`` threads (the compiled searches run
    without the GIL), the results concatenated in the order of ``starts``."""
    if threads <= 1:
        return np.concatenate([work(s) for s in starts])
    with ThreadPoolExecutor(threads) as ex:
        return np.concatenate(list(ex.map(work, starts)))


def _alpha(cfg: TrainConfig, done: int) -> float:
    frac = min(done / cfg.games, 1.0) if cfg.games else 1.0
    return float(cfg.alpha * (cfg.alpha_end / cfg.alpha) ** frac)


def train(cfg: TrainConfig, checkpoint: str | os.PathLike | None = None, *, resume: bool = True,
          progress: Callable[[int, int, dict], None] | None = None,
          start: NetEvaluator | None = None) -> NetEvaluator:
    """Run (or resume) a training run.

    Parameters
    ----------
    cfg : TrainConfig
    checkpoint : path, optional
        Written after every chunk (atomically: a temporary file, then a rename). With
        ``resume`` and an existing file of the same configuration, the run continues from it.
    progress : callable, optional
        ``progress(done, total, info)`` after every chunk; ``info`` has ``games_per_s`` and the
        last strength measurement (``curve``).
    start : NetEvaluator, optional
        Continue training this network (not changed: the run works on a copy) instead of new
        random weights; its hidden units must be ``cfg.hidden``. ``meta["start"]`` records its
        SHA-256, games and configuration, and a checkpoint resumes only from the same start.

    Returns
    -------
    NetEvaluator
        ``meta`` holds the configuration, ``games`` done, ``curve`` ([games, points, ci95] rows)
        and ``seconds`` of training.

    Raises
    ------
    tawla.errors.ConfigError
        No compiled trainer (``TAWLA_NO_NATIVE`` or no C compiler at install), a checkpoint
        of another configuration or start, or a start of another ruleset or size.
    tawla.errors.InvalidArgument
        A configuration out of range.
    """
    cfg.check()
    if not native.available("net"):
        raise ConfigError("training needs the compiled engine (tawla.native, part 'net')")
    r = get_ruleset(cfg.ruleset)
    conf = {k: v for k, v in vars(cfg).items() if k != "extra"}
    origin = None
    if start is not None:
        if start.ruleset != r or start.hidden != cfg.hidden:
            raise ConfigError(f"the starting network is {start.ruleset.name} with {start.hidden} hidden units, "
                              f"not {r.name} with {cfg.hidden}")
        origin = {"sha256": hashlib.sha256(start.to_bytes()).hexdigest(), "games": start.meta.get("games"),
                  "config": start.meta.get("config")}
    net = None
    if checkpoint is not None and resume and Path(checkpoint).exists():
        net = NetEvaluator.load(checkpoint)
        defaults = {k: v for k, v in vars(TrainConfig(ruleset=cfg.ruleset)).items() if k != "extra"}
        if {**defaults, **(net.meta.get("config") or {})} != conf:  # fields newer than the file: defaults
            raise ConfigError(f"checkpoint {checkpoint} was made by another configuration: {net.meta.get('config')}")
        if net.meta.get("start") != origin:
            raise ConfigError(f"checkpoint {checkpoint} was trained from another start: {net.meta.get('start')}")
    if net is None:
        if start is None:
            net = NetEvaluator.initial(r, cfg.hidden, cfg.seed)
        else:
            net = NetEvaluator.from_bytes(start.to_bytes())
            net.meta = {"start": origin, "lineage": [*start.meta.get("lineage", []), start.meta.get("command")]}
        net.meta.update({"config": conf, "games": 0, "curve": [], "seconds": 0.0, **cfg.extra})
    opponent = evaluator_player(r)
    race = race_tables(r, cfg.race_cutoff)
    done = int(net.meta["games"])
    while done < cfg.games:
        n = min(cfg.chunk, cfg.games - done)
        t0 = time.process_time()
        native.net_train(r, net.w1, net.b1, net.w2, net.b2, n, chunk_seed(cfg.seed, done // cfg.chunk),
                         _alpha(cfg, done), cfg.max_turns, race[0], race[1], race[2])
        dt = time.process_time() - t0
        done += n
        net.meta["games"] = done
        net.meta["seconds"] = float(net.meta["seconds"]) + dt
        if cfg.eval_every and (done % cfg.eval_every < n or done == cfg.games):
            res = duel(r, evaluator_player(r, net), opponent, cfg.eval_pairs, seed=cfg.seed,
                       max_plies=min(cfg.max_turns, 3000))
            net.meta["curve"].append([done, round(res.mean, 4), round(res.ci95, 4)])
        if checkpoint is not None:
            _save_atomic(net, checkpoint)
        if progress is not None:
            progress(done, cfg.games, {"games_per_s": n / dt if dt > 0 else 0.0, "curve": net.meta["curve"]})
    return net


def _save_atomic(net: NetEvaluator, path) -> None:
    path = Path(path)
    tmp = path.with_name(path.name + ".tmp")
    net.save(tmp)
    os.replace(tmp, path)


def plot_curve(net: NetEvaluator, path) -> None:
    """The learning curve of ``net.meta`` as a PNG (matplotlib, the ``train`` extra).

    Raises
    ------
    tawla.errors.ConfigError
        matplotlib is not installed, or the network has no curve.
    """
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise ConfigError("the learning curve needs matplotlib: pip install 'tawla-engine[train]'") from None
    curve = np.asarray(net.meta.get("curve") or [], dtype=float)
    if curve.size == 0:
        raise ConfigError("the network has no learning curve (eval_every was 0)")
    fig, ax = plt.subplots(figsize=(6, 3.5), dpi=100)
    ax.errorbar(curve[:, 0], curve[:, 1], yerr=curve[:, 2], marker="o", capsize=3)
    ax.axhline(0.0, color="grey", lw=0.8)
    ax.set_xlabel("self-play games")
    ax.set_ylabel("points a game vs the heuristic 0-ply")
    ax.set_title(f"{net.ruleset.name}: {net.hidden} hidden units")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
