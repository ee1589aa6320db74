"""Types of the compiled neural evaluators (``csrc/cython/_net.pyx``); the docstrings there say the rest."""

import numpy as np

from ..core.moves import Move
from ._params import Params

NET_INPUTS: int
NET_OUTPUTS: int
NET_MAX_HIDDEN: int
def net_inputs(positions: np.ndarray, params: Params, checked: bool = ...) -> np.ndarray: ...
def net_outputs(positions: np.ndarray, params: Params, w1: np.ndarray, b1: np.ndarray, w2: np.ndarray,
                b2: np.ndarray, checked: bool = ...) -> np.ndarray: ...
def net_columns(positions: np.ndarray, params: Params, w1: np.ndarray, b1: np.ndarray, w2: np.ndarray,
                b2: np.ndarray, checked: bool = ...) -> np.ndarray: ...
def net_eval_bg(positions: np.ndarray, params: Params, w1: np.ndarray, b1: np.ndarray, w2: np.ndarray,
                b2: np.ndarray, one: np.ndarray, two: np.ndarray, race_net: tuple | None = ...) -> np.ndarray: ...
class NetChooser:
    def __init__(self, params: Params, w1: np.ndarray, b1: np.ndarray, w2: np.ndarray, b2: np.ndarray,
                 one: np.ndarray, two: np.ndarray, race_net: tuple | None = ...) -> None: ...
    def choose(self, row: bytes, dice: tuple[int, int], ruleset: object) -> Move | None: ...
