"""Types of the compiled parameter block (``csrc/cython/_params.pyx``)."""

from typing import Mapping

KIND_NAMES: tuple[str, ...]
C_CODES: dict[str, dict[str, int]]

class Params:
    def __init__(self, fields: Mapping[str, object]) -> None: ...
    @property
    def fields(self) -> dict[str, object]: ...
