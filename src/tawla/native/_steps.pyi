"""Types of the compiled step helpers (``csrc/cython/_steps.pyx``); the docstrings there say the rest."""

from typing import Iterable, Sequence

from ..core.steps import Step

def step_tuples(steps: Iterable[Step]) -> tuple[tuple[int, int, int], ...]: ...
def format_steps(steps: Sequence[Step]) -> str: ...
