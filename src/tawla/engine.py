"""Move generation behind one contract: the fast (Cython) engine or the reference engine.

``TAWLA_ENGINE=reference`` forces the pure-Python reference engine everywhere; by
default the fast engine is used for every ruleset it implements, with the reference
engine as fallback (for example where no compiler was available at install time).
"""

from __future__ import annotations

import functools
import os

import numpy as np

from .errors import InvalidId, InvalidPosition
from .layout import PACKED_WIDTH
from .moves import Move, check_dice
from .reference import engine as ref
from .rules import get_ruleset

__all__ = ["ROLLS", "ROLL_WEIGHTS", "legal_moves", "pass_move", "expand", "expand_all_rolls",
           "default_engine", "fast_available"]

ROLLS = np.array([(a, b) for a in range(1, 7) for b in range(a, 7)], dtype=np.uint8)
"""``uint8[21, 2]``: the 21 distinct rolls, (1,1), (1,2), ..., (1,6), (2,2), ..., (6,6)."""

ROLL_WEIGHTS = np.array([1 / 36 if a == b else 2 / 36 for a, b in ROLLS], dtype=np.float64)
"""``float64[21]``: the probability of each roll in :data:`ROLLS` (1/36 doubles, 2/36 others)."""

try:  # the compiled engine
    from . import _fast  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover - only without a compiler
    _fast = None


def fast_available() -> bool:
    """True when the compiled fast engine is built."""
    return _fast is not None


def default_engine() -> str:
    """``"reference"`` when ``TAWLA_ENGINE=reference`` or the fast engine is not built, else ``"fast"``."""
    if os.environ.get("TAWLA_ENGINE", "").lower() == "reference" or _fast is None:
        return "reference"
    return "fast"


def legal_moves(position, dice, *, engine: str | None = None) -> list:
    """The legal moves of ``position`` for ``dice`` (see :meth:`tawla.Position.legal_moves`).

    Parameters
    ----------
    engine : {"fast", "reference"} or None
        None: :func:`default_engine`.
    """
    dice = check_dice(dice)
    r = position.ruleset
    if (engine or default_engine()) == "fast" and _fast is not None:  # fast-path hook (issue 4)
        if _fast.is_over(position.row, _params(r)):
            return []
        seqs = _fast.legal_sequences(position.row, dice, _params(r))
        return [Move(steps, dice, ended, position.row, after, r) for steps, after, ended in seqs]
    if position.result() is not None:
        return []
    seqs = ref.legal_turns(r, ref.State.from_row(position.row), dice)
    moves, seen = [], set()
    for x in seqs:
        if x.row not in seen:
            seen.add(x.row)
            moves.append(Move(x.steps, dice, x.ended, position.row, x.row, r))
    return moves


def pass_move(position, dice) -> Move:
    """The empty move of a turn that passes (only valid when no legal move exists)."""
    return Move((), check_dice(dice), False, position.row, position.row, position.ruleset)


# --- fast-path hook (issue 4): the ruleset as the fast engine's C struct ---------------------
@functools.lru_cache(maxsize=None)
def _params(r):
    """The :class:`tawla._fast.Params` of a Ruleset: every rule the generator reads, as data.

    One generator serves every ruleset; this maps the Ruleset's fields (RULES.md §7) onto
    the C struct (cached per Ruleset).
    """
    return _fast.Params(
        contact={"hit": 0, "pin": 1, "block": 2}[r.contact],
        has_bar=int(r.has_bar),
        same=int(r.geometry == "same"),
        start_lock=int(r.start_lock),
        bearoff_no_pinned=int(r.bearoff_no_pinned),
        bearoff_no_opponent_in_home=int(r.bearoff_no_opponent_in_home),
        quadrant_lock_win=int(r.quadrant_lock_win),
        wall_rule=int(r.wall_rule),
        mother_plakoto=int(r.mother_rule == "plakoto"),
        can_freeze=int(r.can_freeze),
        scoring={"cube": 0, "mars": 1, "checkers_left": 2}[r.scoring],
        bar_backgammon_counts_double=int(r.bar_backgammon_counts_double),
        opening_reroll=int(r.opening_reroll),
        start=tuple(r.start),
    )


def _check_batch(positions, dice=None):
    arr = np.asarray(positions)
    if arr.ndim != 2 or arr.shape[1] != PACKED_WIDTH:
        raise InvalidId(f"positions must have shape (N, {PACKED_WIDTH}), not {arr.shape}")
    if arr.dtype != np.uint8:
        raise InvalidId(f"positions must be uint8, not {arr.dtype}")
    arr = np.ascontiguousarray(arr)
    if dice is not None:
        d = np.asarray(dice)
        if d.shape != (arr.shape[0], 2):
            from .errors import InvalidDice

            raise InvalidDice(f"dice must have shape ({arr.shape[0]}, 2), not {d.shape}")
        if d.size and (d.min() < 1 or d.max() > 6):
            from .errors import InvalidDice

            raise InvalidDice("dice must be in 1..6")
        dice = np.ascontiguousarray(d, dtype=np.uint8)
    return arr, dice


def _validate_rows(arr, r):
    """Raise InvalidPosition for the first row that is not a valid position."""
    from .position import _validate

    for i in range(arr.shape[0]):
        try:
            _validate(arr[i].tobytes(), r)
        except InvalidPosition as e:
            raise InvalidPosition(f"row {i}: {e}") from None


def expand(positions, dice, *, ruleset, engine: str | None = None):
    """Every child of every row: all distinct positions reachable by a legal move.

    Parameters
    ----------
    positions : uint8[N, PACKED_WIDTH]
        Each row seen from its player to move (:mod:`tawla.layout`).
    dice : uint8[N, 2]
        The roll for each row.
    ruleset : Ruleset or str
    engine : {"fast", "reference"}, optional
        Default :func:`default_engine` (the fast one unless ``TAWLA_ENGINE=reference``).

    Returns
    -------
    children : uint8[M, PACKED_WIDTH]
        Each child seen from the next player's seat (what :meth:`Position.play` returns).
        A row whose turn passes yields one child, itself flipped; a row whose game is
        over yields none.
    parent : int64[M]
        The row each child came from, in row order.

    Raises
    ------
    tawla.errors.InvalidId, tawla.errors.InvalidDice, tawla.errors.InvalidPosition
    """
    r = get_ruleset(ruleset)
    arr, d = _check_batch(positions, dice)
    engine = default_engine() if engine is None else engine
    if engine == "fast" and _fast is not None and hasattr(_fast, "expand"):
        return _fast.expand(arr, d, _params(r))  # fast-path hook (issue 4)
    if engine not in ("fast", "reference"):
        raise ValueError(f"engine must be 'fast' or 'reference', not {engine!r}")
    _validate_rows(arr, r)
    from .position import Position, _flip_row

    out, parent = [], []
    for i in range(arr.shape[0]):
        pos = Position(arr[i].tobytes(), r)
        if pos.result() is not None:
            continue
        moves = legal_moves(pos, (int(d[i, 0]), int(d[i, 1])), engine="reference")
        if not moves:
            out.append(_flip_row(pos.row, r))
            parent.append(i)
        for m in moves:
            out.append(_flip_row(m.after, r))
            parent.append(i)
    children = (np.frombuffer(b"".join(out), dtype=np.uint8).reshape(len(out), PACKED_WIDTH).copy()
                if out else np.zeros((0, PACKED_WIDTH), np.uint8))
    return children, np.asarray(parent, dtype=np.int64)


def expand_all_rolls(positions, *, ruleset, engine: str | None = None):
    """:func:`expand` for all 21 rolls of every row at once (the inner loop of a 1-ply search).

    ``positions`` and ``engine`` as for :func:`expand`.

    Returns
    -------
    children : uint8[M, PACKED_WIDTH]
    parent : int64[M]
        Source row of each child.
    roll : int64[M]
        Index into :data:`ROLLS` of each child's roll; children are ordered by row, then roll.
    """
    r = get_ruleset(ruleset)
    arr, _ = _check_batch(positions)
    engine = default_engine() if engine is None else engine
    if engine == "fast" and _fast is not None:  # fast-path hook (issue 4)
        return _fast.expand_all_rolls(arr, _params(r))
    n = arr.shape[0]
    rep = np.repeat(arr, 21, axis=0)
    dice = np.tile(ROLLS, (n, 1))
    children, par = expand(rep, dice, ruleset=r, engine=engine)
    return children, par // 21, par % 21
