"""Types of the compiled rollout trial loop (``csrc/cython/_rollout.pyx``); the docstrings there say the rest."""

from typing import Any

import numpy as np

from ._params import Params

CONTACT: dict[str, int]
NV: int

def cube_money(probs: np.ndarray, owner: int, efficiency: float = ..., jacoby: bool = ...,
               beaver: bool = ...) -> tuple[np.ndarray, np.ndarray, np.ndarray]: ...
def cube_match(probs: np.ndarray, pre: np.ndarray, post: np.ndarray, away: int, opp_away: int, cube: int = ...,
               owner: int = ..., crawford: bool = ..., efficiency: float | np.ndarray = ...) -> tuple[np.ndarray, np.ndarray]: ...
def rollout(positions: np.ndarray, params: Params, contact: str, *, w1: Any = ..., b1: Any = ..., w2: Any = ...,
            b2: Any = ..., W: Any = ..., race_one: np.ndarray | None = ..., race_two: np.ndarray | None = ...,
            race_net: tuple | None = ...,
            first: int = ..., trials: int = ..., truncate: int = ..., vr: bool = ..., stop_bearoff: bool = ...,
            stop_race: bool = ..., stratify: int = ..., rot: tuple[int, int] = ..., cubeful: bool = ...,
            efficiency: float = ..., jacoby: bool = ..., beaver: bool = ..., owner: int = ..., decide_first: bool = ...,
            match: tuple | None = ..., efficiency_by_class: tuple | None = ..., seed: int = ...,
            ply: int = ..., prune: int = ..., margin: float = ..., raw: bool = ..., checked: bool = ...) -> tuple[Any, ...]: ...
