"""Types of the compiled network training (``csrc/cython/_net_train.pyx``); the docstrings there say the rest."""

import numpy as np

from ._params import Params

def net_train(params: Params, w1: np.ndarray, b1: np.ndarray, w2: np.ndarray, b2: np.ndarray, n_games: int,
              seed: int, alpha: float, max_turns: int = ..., race_one: np.ndarray | None = ...,
              race_two: np.ndarray | None = ..., race_net: tuple | None = ...) -> tuple[np.ndarray, np.ndarray, np.ndarray]: ...
def net_positions(params: Params, w1: np.ndarray, b1: np.ndarray, w2: np.ndarray, b2: np.ndarray,
                  n_games: int, seed: int, cap: int, explore: float = ..., max_turns: int = ...,
                  race_one: np.ndarray | None = ..., race_two: np.ndarray | None = ..., race_net: tuple | None = ...) -> np.ndarray: ...
def net_ply1_targets(positions: np.ndarray, params: Params, w1: np.ndarray, b1: np.ndarray, w2: np.ndarray,
                     b2: np.ndarray, race_one: np.ndarray | None = ..., race_two: np.ndarray | None = ..., race_net: tuple | None = ...,
                     checked: bool = ...) -> np.ndarray: ...
def net_ply2_targets(positions: np.ndarray, params: Params, w1: np.ndarray, b1: np.ndarray, w2: np.ndarray,
                     b2: np.ndarray, prune: int = ..., race_one: np.ndarray | None = ...,
                     race_two: np.ndarray | None = ..., race_net: tuple | None = ..., checked: bool = ...) -> np.ndarray: ...
def net_rollout_targets(positions: np.ndarray, params: Params, w1: np.ndarray, b1: np.ndarray, w2: np.ndarray,
                        b2: np.ndarray, trials: int, horizon: int, seed: int, first: int = ...,
                        race_one: np.ndarray | None = ..., race_two: np.ndarray | None = ..., race_net: tuple | None = ...,
                        checked: bool = ...) -> np.ndarray: ...
def net_fit(params: Params, w1: np.ndarray, b1: np.ndarray, w2: np.ndarray, b2: np.ndarray,
            positions: np.ndarray, targets: np.ndarray, order: np.ndarray, alpha: float) -> float: ...
