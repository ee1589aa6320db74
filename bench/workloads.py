"""The benchmark workloads: W1 (GNU Backgammon positions, ``bench/data/w1``) and W2 (positions
met in seeded random games of any ruleset), as packed rows.

Used by the speed table (``bench/speed_table.py``), the benchmarks in ``bench/`` and the
differential tests, so that all of them measure and check the same positions.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from tawla.batch import random_positions
from tawla.errors import ConfigError
from tawla.position import Position, positions_to_array

__all__ = ["w1_ids", "load_w1", "workload"]


def w1_ids(kind: str | None = None) -> list:
    """The GNU Backgammon Position IDs of workload W1 (``bench/data/w1``): 1000 ``"contact"`` then 1000 ``"race"`` positions (or one kind).

    Raises
    ------
    tawla.errors.ConfigError
        ``kind`` is not ``"contact"``, ``"race"`` or None.
    """
    folder = Path(__file__).resolve().parent / "data" / "w1"
    ids = []
    for k in ("contact", "race"):
        if kind in (None, k):
            text = (folder / f"bg_{k}_1000.pid").read_text(encoding="ascii")
            ids += [ln.strip() for ln in text.splitlines() if ln.strip()]
    if not ids:
        raise ConfigError(f"kind must be 'contact', 'race' or None, not {kind!r}")
    return ids


def load_w1(ruleset="backgammon") -> np.ndarray:
    """W1 positions: ``uint8[2000, 56]`` (contact then race) for a hitting ruleset."""
    return positions_to_array(Position.from_gnubg_id(pid, ruleset) for pid in w1_ids())


def workload(name: str, ruleset, n_positions: int = 2000, seed: int = 2024) -> np.ndarray:
    """The positions of a workload (``W1`` or ``W2``) for a ruleset: ``uint8[N, 56]``.

    W2 is ``n_positions`` positions met in seeded random games (:func:`tawla.batch.random_positions`).
    """
    if name.upper() == "W1":
        return load_w1(ruleset)
    return random_positions(ruleset, n_positions, seed=seed, parallel_games=16)
