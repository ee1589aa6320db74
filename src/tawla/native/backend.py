"""The compiled modules, loaded once: which engine runs by default, and each ruleset's parameter block.

The default engine is read once, at import: ``TAWLA_NO_NATIVE=1`` hides the compiled modules
(as on a machine without a compiler: everything then runs on the reference engine and
numpy); ``TAWLA_ENGINE=reference`` makes the reference engine the default of every call that
takes ``engine=`` (a call's own ``engine=`` still chooses, so that one process can diff the two
engines). The compiled interface is fixed at build time: :data:`COMPILED_API` lists what each
compiled module must provide, and a build that lacks any of it is refused here, at import
(:class:`tawla.errors.ConfigError`), rather than found out call by call.
"""

from __future__ import annotations

import functools
import importlib
import os
from types import ModuleType

from ..errors import ConfigError
from ..rules import Ruleset
from ..rules.params import native_params

__all__ = ["COMPILED_API", "PARTS", "available", "default_engine", "set_default_engine", "resolve_engine",
           "compiled", "params", "turn_params"]

COMPILED_API: dict[str, tuple[str, ...]] = {
    "_params": ("Params", "C_CODES", "KIND_NAMES"),
    "_codec": ("flip_row", "flip_rows"),
    "_movegen": ("validate_rows", "expand", "expand_all_rolls", "is_over", "is_frozen_row", "game_results", "playout",
                 "next_turn_row", "_clear_buffer_cache"),
    "_turns": ("legal_sequences", "count_moves", "legal_moves", "turn_steps", "turn_finals", "turn_lit",
               "turn_step", "play_hops"),
    "_dice": ("throw_dice", "throw_dice_saving", "rng_restore", "rng_snapshot_check"),
    "_steps": ("step_tuples", "format_steps"),
    "_eval": ("n_features", "features_bg", "linear_bg", "race_rows", "race_sides", "eval_ends",
              "nohit_contact"),
    "_net": ("NET_INPUTS", "NET_OUTPUTS", "NET_MAX_HIDDEN", "net_inputs", "net_outputs", "net_columns",
             "net_eval_bg", "NetChooser"),
    "_net_train": ("net_train", "net_positions", "net_ply1_targets", "net_ply2_targets", "net_rollout_targets",
                   "net_fit"),
    "_bearoff": ("build_one_sided", "build_two_sided"),
    "_rollout": ("CONTACT", "NV", "rollout", "cube_money", "cube_match"),
}
"""Each compiled module of this package (``csrc/cython``) and the names it must define."""

PARTS = {"engine": "_movegen", "eval": "_eval", "net": "_net", "bearoff": "_bearoff", "rollout": "_rollout"}
"""The parts :func:`available` answers for, and the compiled module of each."""


def _load() -> dict[str, ModuleType]:
    if os.environ.get("TAWLA_NO_NATIVE", "") not in ("", "0"):
        return {}
    try:
        mods = {name: importlib.import_module(f"{__package__}.{name}") for name in COMPILED_API}
    except ImportError:  # built without a compiler
        return {}
    missing = [f"{m}.{name}" for m, names in COMPILED_API.items() for name in names if not hasattr(mods[m], name)]
    if missing:
        raise ConfigError(f"the compiled modules of tawla.native are from another version (missing "
                          f"{', '.join(missing)}): rebuild the package (pip install .)")
    return mods


_MODULES = _load()
_DEFAULT = ("reference" if os.environ.get("TAWLA_ENGINE", "").lower() == "reference" or not _MODULES
            else "fast")


def compiled(name: str) -> ModuleType:
    """The compiled module ``name`` of :data:`COMPILED_API` (for the calls of this package only).

    Raises
    ------
    tawla.errors.ConfigError
        The compiled modules are not built or are hidden by ``TAWLA_NO_NATIVE``.
    """
    try:
        return _MODULES[name]
    except KeyError:
        raise ConfigError(f"this needs the compiled engine (tawla.native.{name}), which is not built "
                          "or is hidden by TAWLA_NO_NATIVE") from None


def available(part: str = "engine") -> bool:
    """Whether a compiled part is built and not hidden by ``TAWLA_NO_NATIVE``: ``"engine"`` (move
    generation, turns, results, playouts), ``"eval"`` (the evaluators), ``"net"`` (the networks
    and their training) or ``"bearoff"`` (the bear-off database builders). Without it, each
    layer uses its own twin (the reference engine, numpy).

    Raises
    ------
    tawla.errors.ConfigError
        An unknown part.
    """
    if part not in PARTS:
        raise ConfigError(f"part must be one of {', '.join(PARTS)}, not {part!r}")
    return PARTS[part] in _MODULES


def default_engine() -> str:
    """``"reference"`` when ``TAWLA_ENGINE=reference`` was set at import or the fast engine is not
    available, else ``"fast"``."""
    return _DEFAULT


def set_default_engine(engine: str) -> str:
    """Make ``engine`` (``"fast"`` or ``"reference"``) the default of this process, as
    ``TAWLA_ENGINE`` does at import (for tests that run both engines in one process); returns the
    default it replaces. ``"fast"`` without the compiled modules leaves ``"reference"``.

    Raises
    ------
    tawla.errors.ConfigError
        Anything but ``"fast"`` or ``"reference"``.
    """
    global _DEFAULT
    old = _DEFAULT
    _DEFAULT = resolve_engine(engine)
    return old


def resolve_engine(engine) -> str:
    """The engine a call runs on: ``engine`` if given (``"fast"`` falls back to the reference
    engine when the compiled one is not available), else :func:`default_engine`.

    Raises
    ------
    tawla.errors.ConfigError
        Anything but None, ``"fast"`` or ``"reference"``.
    """
    if engine is None:
        return _DEFAULT
    if engine not in ("fast", "reference"):
        raise ConfigError(f"engine must be 'fast' or 'reference', not {engine!r}")
    return "fast" if engine == "fast" and _MODULES else "reference"


@functools.lru_cache(maxsize=None)
def params(r: Ruleset):
    """The compiled parameter block of a ruleset (``Params``, cached), from :func:`native_params`.

    Raises
    ------
    tawla.errors.ConfigError
        Without the compiled modules.
    """
    return compiled("_params").Params(native_params(r))


_last_params: tuple[Ruleset | None, object] = (None, None)  # (ruleset, params) of the last one-row call


def turn_params(r: Ruleset):
    """:func:`params` of ``r``, without hashing the ruleset when it is the last one asked."""
    global _last_params
    last = _last_params
    if last[0] is r:
        return last[1]
    p = params(r)
    _last_params = (r, p)
    return p
