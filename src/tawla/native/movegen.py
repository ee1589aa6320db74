"""Move generation, turns, results, playouts and dice on the engine a call chooses.

Each function has the same contract on both engines: the compiled one (``csrc/movegen``, through
the modules of :mod:`tawla.native.backend`) and the reference engine (:mod:`tawla.reference`),
which is also the fallback where the compiled modules are not built.

Rows are packed positions (``uint8[PACKED_WIDTH]``, :mod:`tawla.core.layout`), seen from the
player to move; the callers have validated them (:mod:`tawla.rules.validation`).
"""

from __future__ import annotations

import numpy as np

from ..core.dice import ROLLS
from ..core.geometry import SAME, flip_row as _flip_row_py
from ..core.moves import Move
from ..core.results import KINDS
from ..core.steps import Step, format_steps as _format_steps_py
from ..reference import batch as _ref_batch
from ..reference import scoring as _ref_scoring
from ..reference import turn as _ref_turn
from ..rules import Ruleset
from ..rules.validation import validate_rows as _validate_rows_py
from .backend import _MODULES, params, resolve_engine, turn_params

__all__ = ["flip_row", "flip_rows", "validate_rows", "is_over", "is_frozen", "game_results", "next_turn_row",
           "game_result", "legal_sequences", "legal_moves", "count_moves", "throw_dice", "throw_dice_saving",
           "rng_restore", "step_tuples", "format_steps", "expand", "expand_all_rolls", "playout", "turn_engine",
           "turn_steps", "turn_lit", "turn_step", "turn_finals", "play_hops"]

_movegen = _MODULES.get("_movegen")
_turns = _MODULES.get("_turns")
_dice = _MODULES.get("_dice")
_steps = _MODULES.get("_steps")
_codec = _MODULES.get("_codec")


def flip_row(row: bytes, r: Ruleset) -> bytes:
    """The row seen from the other seat (:func:`tawla.core.geometry.flip_row`)."""
    if _codec is not None:
        return _codec.flip_row(row, r.geometry == SAME)
    return _flip_row_py(row, r.geometry)


def flip_rows(rows: np.ndarray, r: Ruleset) -> np.ndarray:
    """Every row of ``uint8[N, PACKED_WIDTH]`` seen from the other seat (a new array)."""
    rows = np.ascontiguousarray(rows, dtype=np.uint8)
    if _codec is not None:
        return _codec.flip_rows(rows, r.geometry == SAME)
    out = np.empty_like(rows)
    for i in range(len(rows)):
        out[i] = np.frombuffer(_flip_row_py(rows[i].tobytes(), r.geometry), dtype=np.uint8)
    return out


def validate_rows(arr: np.ndarray, r: Ruleset) -> None:
    """Check every row of a C-contiguous ``uint8[N, 56]`` against ruleset ``r`` before
    compiled code reads it (the C validator where built, else
    :func:`tawla.rules.validation.validate_rows`).

    Raises
    ------
    tawla.errors.InvalidPosition
    """
    if _movegen is not None:
        _movegen.validate_rows(arr, params(r))
    else:
        _validate_rows_py(arr, r)


def is_over(row: bytes, r: Ruleset) -> bool:
    """Whether the game of a row is over (15 off, quadrant lock, mother rule, frozen)."""
    if _movegen is not None:
        return _movegen.is_over(row, turn_params(r))
    return _ref_scoring.game_result(r, row) is not None


def game_results(rows: np.ndarray, r: Ruleset, *, frozen_test: bool = True, checked: bool = True) -> tuple:
    """The engine's one game-end function on packed rows ``uint8[N, 56]``, one compiled call
    where built (RULES.md §1.7, §1.8, §2.2, §4.4, §5.6, §5.7).

    Parameters
    ----------
    frozen_test : bool
        False to leave out the frozen test (§1.7), the one costly part.
    checked : bool
        False for rows already validated (by the caller, or made by the engine).

    Returns
    -------
    over : bool[N]
    winner : int8[N]
        Relative to each row: 0 its side to move, 1 the other, -1 a draw or no result yet.
    points : int16[N]
        The points the winner scores (cube 1).
    kind : int8[N]
        A :class:`tawla.core.results.ResultKind` code, -1 while the game goes on.

    Raises
    ------
    tawla.errors.InvalidPosition
        A row that is not a position of ``r`` (when ``checked``).
    """
    if _movegen is not None:
        over, winner, kind, points = _movegen.game_results(np.ascontiguousarray(rows, dtype=np.uint8), turn_params(r),
                                                           frozen_test, checked)
        return over, winner, points, kind
    if checked:
        _validate_rows_py(rows, r)
    n = len(rows)
    over, winner, points = np.zeros(n, bool), np.full(n, -1, np.int8), np.zeros(n, np.int16)
    kind = np.full(n, -1, np.int8)
    for i in range(n):
        res = _ref_scoring.game_result(r, bytes(rows[i]), frozen_test=frozen_test)
        if res is not None:
            over[i] = True
            winner[i] = -1 if res.winner is None else res.winner
            points[i] = res.points
            kind[i] = KINDS.index(res.kind)
    return over, winner, points, kind


def next_turn_row(after: bytes, r: Ruleset) -> tuple:
    """``(row, over)``: the row ``after`` reached by a move (the mover's seat) seen from the
    other seat (:func:`flip_row`), and :func:`is_over` of it; one compiled call where built."""
    if _movegen is not None:
        return _movegen.next_turn_row(after, turn_params(r))
    row = flip_row(after, r)
    return row, is_over(row, r)


def game_result(row: bytes, r: Ruleset, cube: int = 1):
    """The :class:`~tawla.core.results.GameResult` of a row, or None while the game goes on."""
    if _movegen is not None and not _movegen.is_over(row, turn_params(r)):
        return None
    return _ref_scoring.game_result(r, row, cube)


def is_frozen(row: bytes, r: Ruleset) -> bool:
    """Whether a valid packed row (mover's seat) is frozen (RULES.md §1.7): for every die
    1..6 neither side has a legal single step; False for the rulesets that cannot freeze
    (compiled ``tw_is_frozen`` where built, else :func:`tawla.reference.scoring.is_frozen`)."""
    if _movegen is not None:
        return _movegen.is_frozen_row(row, turn_params(r))
    return _ref_scoring.is_frozen(r, row)


def legal_sequences(row: bytes, dice: tuple, r: Ruleset, engine=None) -> list:
    """The legal moves of a row as ``(steps, after, ended)`` per distinct resulting row, in
    the canonical order; [] when the turn passes or the game is over.

    ``dice`` is a checked roll; ``engine`` as for :func:`resolve_engine`.
    """
    if _movegen is not None and _turns is not None and resolve_engine(engine) == "fast":
        p = turn_params(r)
        if _movegen.is_over(row, p):
            return []
        return _turns.legal_sequences(row, dice, p)
    return _ref_batch.legal_sequences(r, row, dice)


def legal_moves(row: bytes, dice: tuple, r: Ruleset, engine=None) -> list:
    """:func:`legal_sequences` as :class:`~tawla.core.moves.Move` objects (built by the
    compiled engine where it can)."""
    if _movegen is not None and _turns is not None and resolve_engine(engine) == "fast":
        p = turn_params(r)
        if _movegen.is_over(row, p):
            return []
        return _turns.legal_moves(row, tuple(dice), p, r)
    return [Move(steps, dice, ended, row, after, r)
            for steps, after, ended in legal_sequences(row, dice, r, engine)]


def count_moves(row: bytes, dice: tuple, r: Ruleset, engine=None):
    """``len(legal_moves(row, dice, r, engine))`` without building the moves, on the compiled
    engine, which keeps the search for the :func:`legal_moves` of the same row and dice that
    may follow; None on the reference engine (build the moves instead)."""
    if _movegen is not None and _turns is not None and resolve_engine(engine) == "fast":
        p = turn_params(r)
        if _movegen.is_over(row, p):
            return 0
        return _turns.count_moves(row, dice, p)
    return None


def throw_dice(rng) -> tuple:
    """Two dice from a ``numpy.random.Generator``: the values, and the generator's state after
    them, of ``(int(rng.integers(1, 7)), int(rng.integers(1, 7)))``, drawn in one compiled
    call where the fast engine is built."""
    if _dice is not None:
        return _dice.throw_dice(rng.bit_generator)
    return int(rng.integers(1, 7)), int(rng.integers(1, 7))


def throw_dice_saving(rng) -> tuple:
    """``(dice, snapshot)``: :func:`throw_dice`, and the state of ``rng`` before the dice
    for :func:`rng_restore` (a raw copy in compiled code for numpy's PCG64 where the fast
    engine is built, else the ``bit_generator.state`` dict)."""
    if _dice is not None:
        return _dice.throw_dice_saving(rng.bit_generator)
    saved = rng.bit_generator.state
    return throw_dice(rng), saved


def rng_restore(rng, snapshot) -> None:
    """Put back the state of ``rng`` saved by :func:`throw_dice_saving`."""
    if _dice is not None:
        _dice.rng_restore(rng.bit_generator, snapshot)
    else:
        rng.bit_generator.state = snapshot


def step_tuples(steps) -> tuple:
    """``((from_point, to_point, die), ...)`` of a sequence of single Steps, as a match's
    event log keeps a move (compiled where the fast engine is built: tuples the cycle
    collector does not follow)."""
    if _steps is not None:
        return _steps.step_tuples(steps)
    return tuple((s[0], s[1], s[2]) for s in steps)


def format_steps(steps) -> str:
    """:func:`tawla.core.steps.format_steps` (the same text; compiled where the fast engine is
    built)."""
    if _steps is not None:
        return _steps.format_steps(steps)
    return _format_steps_py(steps)


def expand(arr: np.ndarray, dice: np.ndarray, r: Ruleset, engine=None):
    """Children and parents of every row (:func:`tawla.expand`) without validation: ``arr``
    (``uint8[N, 56]``) holds valid rows of ``r`` and ``dice`` (``uint8[N, 2]``) values in
    1..6, both C-contiguous (only the shapes are checked here)."""
    if _movegen is not None and resolve_engine(engine) == "fast":
        return _movegen.expand(arr, dice, params(r), False)
    return _ref_batch.expand(r, arr, dice)


def expand_all_rolls(arr: np.ndarray, r: Ruleset, engine=None):
    """Children, parents and roll indices for all 21 rolls (:func:`tawla.expand_all_rolls`)
    of valid rows ``uint8[N, 56]`` of ``r`` (not validated here)."""
    if _movegen is not None and resolve_engine(engine) == "fast":
        return _movegen.expand_all_rolls(arr, params(r), False)
    from_rolls = np.repeat(arr, 21, axis=0)
    children, par = _ref_batch.expand(r, from_rolls, np.tile(ROLLS, (arr.shape[0], 1)))
    return children, par // 21, par % 21


def playout(r: Ruleset, n_games: int, seed: int, max_turns: int, engine=None):
    """Random games: ``(engine used, length, winner, kind, points)`` (:func:`tawla.playout`)."""
    if _movegen is not None and resolve_engine(engine) == "fast":
        return ("fast",) + tuple(_movegen.playout(params(r), n_games, seed & (2**64 - 1), max_turns))
    return ("reference",) + tuple(_ref_batch.playout(r, n_games, seed, max_turns))


def turn_engine(engine=None) -> str:
    """The engine :func:`turn_steps` and :func:`turn_finals` run on: ``"fast"`` when the
    compiled module has them and ``engine`` (:func:`resolve_engine`) is the fast one, else
    ``"reference"``."""
    return "fast" if _turns is not None and resolve_engine(engine) == "fast" else "reference"


def turn_steps(row: bytes, dice: tuple, played_hops, r: Ruleset, engine=None) -> tuple:
    """What a board lights up during a turn (RULES.md §1.3):
    :func:`tawla.reference.turn.turn_steps` on the engine of :func:`turn_engine`.

    Parameters
    ----------
    row : bytes
        The packed row at the start of the turn, mover's seat.
    dice : (int, int)
        A checked roll.
    played_hops : tuple of (int, int, int)
        The single hops ``(from_point, to_point, die)`` made this turn.

    Returns
    -------
    (singles, combined, ended)
        ``(from, to, die, hit)`` single steps (dice high to low, from-points high to low),
        ``(from, to, (d1, d2, ...), hit)`` one-checker combined steps, and whether the game
        ended during the hops.

    Raises
    ------
    tawla.errors.IllegalMove
        A played hop that is not a legal next step.
    """
    if _turns is not None and resolve_engine(engine) == "fast":
        return _turns.turn_steps(row, dice, played_hops, turn_params(r))
    return _ref_turn.turn_steps(r, row, dice, played_hops)


def turn_lit(row: bytes, dice: tuple, played_hops, r: Ruleset, engine=None) -> tuple:
    """:func:`turn_steps` as one tuple: ``(steps, ended)``, ``steps`` the single then the
    combined steps as :class:`~tawla.core.steps.Step` values, ``ended`` a bool.

    Raises
    ------
    tawla.errors.IllegalMove
        A played hop that is not a legal next step.
    """
    if _turns is not None and resolve_engine(engine) == "fast":
        return _turns.turn_lit(row, dice, played_hops, turn_params(r))
    singles, combined, ended = turn_steps(row, dice, played_hops, r, engine)
    return tuple(x if type(x) is Step else Step._make(x) for x in (*singles, *combined)), bool(ended)


def turn_step(row: bytes, dice: tuple, played_hops: tuple, lit: tuple, from_point: int, to_point: int,
              want, r: Ruleset, engine=None):
    """One step of a turn in one compiled call: the only step of ``lit`` (:func:`turn_lit` of
    ``played_hops``) from ``from_point`` to ``to_point`` with the die ``want`` (None: any; an
    int for a single step, the tuple of dice of a combined one), the single hops after it and
    :func:`turn_lit` of those.

    Returns
    -------
    (Step, tuple, (tuple, bool)) or None
        None when no step or several match, or without the compiled engine: the caller then
        chooses the step itself.
    """
    if _turns is not None and resolve_engine(engine) == "fast":
        return _turns.turn_step(row, dice, played_hops, lit, from_point, to_point, want, turn_params(r))
    return None


def turn_finals(row: bytes, dice: tuple, played_hops, r: Ruleset, engine=None) -> list:
    """Every legal final row reachable from a turn in progress, with a continuation:
    :func:`tawla.reference.turn.turn_finals` on the engine of :func:`turn_engine`.

    Returns
    -------
    list of (bytes, tuple)
        ``(after_row, continuation_hops)``, continuation hops ``(from, to, die, hit)``.

    Raises
    ------
    tawla.errors.IllegalMove
        A played hop that is not a legal next step.
    """
    if _turns is not None and resolve_engine(engine) == "fast":
        return _turns.turn_finals(row, dice, played_hops, turn_params(r))
    return _ref_turn.turn_finals(r, row, dice, played_hops)


def play_hops(row: bytes, hops, r: Ruleset, engine=None) -> tuple:
    """The row after single hops ``(from, to, die)`` of a turn (mover's seat) and the hops as
    single :class:`~tawla.core.steps.Step` values with their hits:
    :func:`tawla.reference.turn.after_hops` (no legality check), compiled where it can.

    Returns
    -------
    (bytes, tuple of Step)
    """
    if _turns is not None and resolve_engine(engine) == "fast":
        out = _turns.play_hops(row, hops, turn_params(r))
        if out is not None:
            return out
    after, hits = _ref_turn.after_hops(r, row, hops)
    return after, tuple(Step(a, b, d, h) for (a, b, d), h in zip(hops, hits))
