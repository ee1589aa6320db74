"""Evaluation of position files in chunks: IDs or packed rows in, one result row per position out.

A position file is text, one gnubg Position ID, XGID or tawla ID a line, or a ``.npy`` of
packed rows (``uint8[N, 56]``, :mod:`tawla.core.layout`). :func:`read_chunks` cuts it into
:class:`PositionChunk` objects of at most :data:`CHUNK_POSITIONS` positions, read lazily
(the text line by line, the ``.npy`` through a read-only memory map), and
:func:`evaluate_chunk` evaluates one chunk as a pure function: chunk in,
:class:`ChunkResult` out, the same whatever process or machine runs it. The command
``tawla evaluate`` streams the results to CSV, JSON lines or Parquet (:mod:`.position_output`),
so that memory stays flat as the file grows.

Arrays already in memory go through :func:`evaluate_dask`, one ``map_blocks`` task a block.
"""

from __future__ import annotations

import mmap
import os
from collections.abc import Iterator
from dataclasses import dataclass, field

import numpy as np

from .. import native
from ..bots import Bot
from ..bots.levels import contact_model, evaluate as level_evaluate
from ..core.layout import PACKED_WIDTH
from ..errors import ConfigError, FormatError, InvalidAction, InvalidId, TawlaError, quote
from ..position import Position, positions_to_array
from ..rules import Ruleset, RulesetLike, get_ruleset

__all__ = ["CHUNK_POSITIONS", "MAX_LINE_BYTES", "VALUE_COLUMNS", "PositionChunk", "ChunkResult",
           "parse_position", "read_chunks", "evaluate_chunk", "evaluate_dask", "open_rows"]

CHUNK_POSITIONS = 8192
"""The most positions a chunk holds (a few hundred KiB of text, rows and results)."""

MAX_LINE_BYTES = 256
"""The longest line read as a position (an XGID is about 60 characters); a longer line is
reported as a bad one, without being held whole."""

VALUE_COLUMNS = ("win", "win_gammon", "win_backgammon", "lose_gammon", "lose_backgammon", "equity")
"""The evaluation columns of a result row, in the order written: the cubeless probabilities
for the side to move (the gammon columns include the backgammons), then the cubeless equity
in the ruleset's scoring (points), at the level (:func:`tawla.evaluate`)."""

_ORDER = [1, 2, 3, 4, 5, 0]  # tawla.evaluate's columns (equity first) in VALUE_COLUMNS order


def parse_position(text: str, ruleset: RulesetLike | None = None) -> Position:
    """A position from a gnubg Position ID (14 chars), an XGID, or a tawla ID (40 chars): a
    line of a position file, or a position on the ``tawla`` command line.

    Parameters
    ----------
    text : str
        The ID; an XGID is told apart by its ``XGID=`` prefix or its ten ``:``-separated fields.
    ruleset : str or Ruleset, optional
        gnubg IDs and XGIDs describe backgammon boards (backgammon, adi; default backgammon);
        a tawla ID any ruleset's, and names its own (``ruleset`` is checked against it, and
        needed for an ID that names none: :meth:`tawla.Position.from_id`).

    Raises
    ------
    tawla.errors.InvalidId
        Text that is none of the three, or a malformed one.
    tawla.errors.InvalidPosition
        A well-formed ID of a board that breaks the ruleset's invariants.
    tawla.errors.UnsupportedRuleset
        An unknown ruleset, or a gnubg ID or XGID with a ruleset that is not played on a
        backgammon board.
    tawla.errors.InvalidArgument
        A tawla ID of another ruleset than ``ruleset``, or one that names none without it.
    """
    given = get_ruleset(ruleset) if ruleset is not None else None
    t = text.strip()
    if t.upper().startswith("XGID=") or t.count(":") >= 9:
        return Position.from_xgid(t, given or "backgammon")
    if len(t) == 14:
        return Position.from_gnubg_id(t, given or "backgammon")
    if len(t) == 40:
        return Position.from_id(t, given)
    raise InvalidId(f"{quote(text)} is neither a gnubg Position ID (14 chars), an XGID, nor a tawla ID (40 chars)")


@dataclass
class PositionChunk:
    """A run of positions of one file, sent whole to whoever evaluates it.

    Attributes
    ----------
    source : str
        The file's name, for the messages.
    lines : list of (int, str)
        Text input: the 1-based line number and the text of each line (stripped, none empty).
    rows : uint8[n, 56] or None
        ``.npy`` input: a copy of the chunk's rows; ``lines`` is then empty.
    start : int
        ``.npy`` input: the index in the file of the first row.
    """

    source: str
    lines: list[tuple[int, str]] = field(default_factory=list)
    rows: np.ndarray | None = None
    start: int = 0

    def __len__(self) -> int:
        return len(self.lines) if self.rows is None else len(self.rows)


@dataclass
class ChunkResult:
    """What :func:`evaluate_chunk` gives for a chunk: one entry per position that was read.

    Attributes
    ----------
    inputs : list of str
        The input text (a ``.npy`` row: its tawla ID), one per position evaluated.
    values : float32[n, 6]
        The columns of :data:`VALUE_COLUMNS`.
    best_moves, best_ids : list of str, or None
        With dice: the best play (gnubg notation; ``""`` when the turn passes or the game
        is over) and the ID of the position the opponent then faces (gnubg Position ID on a
        backgammon board, tawla ID otherwise; ``""`` when the game is over).
    errors : list of str
        ``"FILE:LINE: ClassName: message"`` (a ``.npy``: ``"FILE:row N: ..."``, 0-based)
        for each position that could not be read; it has no result row.
    """

    inputs: list[str]
    values: np.ndarray
    best_moves: list[str] | None = None
    best_ids: list[str] | None = None
    errors: list[str] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.inputs)


def _message(where: str, error: Exception) -> str:
    return f"{where}: {type(error).__name__}: {' '.join(str(error).split())}"


def open_rows(path: str | os.PathLike) -> np.ndarray:
    """The rows of a ``.npy`` file as a read-only memory map, its header checked.

    Returns
    -------
    uint8[N, 56]
        A ``numpy.memmap`` (nothing read yet; the rows are validated chunk by chunk).

    Raises
    ------
    tawla.errors.FormatError
        Not a ``.npy`` file numpy can map (pickled objects included), or one whose array
        is not ``uint8`` of shape ``(N, 56)``.
    OSError
        The file cannot be opened.
    """
    try:
        arr = np.load(path, mmap_mode="r", allow_pickle=False)
    except (ValueError, EOFError) as e:
        raise FormatError(f"not a .npy array numpy can map: {e}", file=str(path)) from None
    if not isinstance(arr, np.ndarray):
        raise FormatError("a .npy of one array is expected, not an archive of several", file=str(path))
    if arr.dtype != np.uint8 or arr.ndim != 2 or arr.shape[1] != PACKED_WIDTH:
        raise FormatError(f"packed rows are uint8 of shape (N, {PACKED_WIDTH}), not {arr.dtype} of shape "
                          f"{arr.shape}", file=str(path))
    return arr


def _text_chunks(path: str | os.PathLike, size: int) -> Iterator[PositionChunk]:
    name = str(path)
    chunk = PositionChunk(name)
    with open(path, "rb") as f:
        number = 0
        while True:
            raw = f.readline(MAX_LINE_BYTES + 1)
            if not raw:
                break
            number += 1
            if len(raw) > MAX_LINE_BYTES and not raw.endswith(b"\n"):
                while raw and not raw.endswith(b"\n"):  # the rest of the long line, in pieces
                    raw = f.readline(2**16)
                text = f"<a line longer than {MAX_LINE_BYTES} bytes>"
            else:
                text = raw.decode("utf-8", errors="replace").strip()
            if not text:
                continue
            chunk.lines.append((number, text))
            if len(chunk.lines) >= size:
                yield chunk
                chunk = PositionChunk(name)
    if chunk.lines:
        yield chunk


def _npy_chunks(path: str | os.PathLike, size: int) -> Iterator[PositionChunk]:
    rows = open_rows(path)
    for start in range(0, len(rows), size):
        yield PositionChunk(str(path), rows=np.array(rows[start:start + size]), start=start)
        mapped = getattr(rows, "_mmap", None)
        if isinstance(mapped, mmap.mmap) and hasattr(mmap, "MADV_DONTNEED"):
            mapped.madvise(mmap.MADV_DONTNEED)  # the pages read so far leave the resident set


def read_chunks(path: str | os.PathLike, size: int = CHUNK_POSITIONS) -> Iterator[PositionChunk]:
    """The chunks of a position file, read lazily: a ``.npy`` (by its name) or text.

    Parameters
    ----------
    path : str or path-like
    size : int
        Positions a chunk (>= 1).

    Yields
    ------
    PositionChunk
        In file order; blank lines are skipped.

    Raises
    ------
    tawla.errors.FormatError
        A ``.npy`` whose header is not that of packed rows (:func:`open_rows`).
    OSError
        The file cannot be read.
    """
    size = max(1, int(size))
    if str(path).lower().endswith(".npy"):
        return _npy_chunks(path, size)
    return _text_chunks(path, size)


_BOTS: dict[tuple[Ruleset, str], Bot] = {}


def _bot(r: Ruleset, level: str) -> Bot:
    """The bot of a ruleset and level, built once per process."""
    key = (r, level)
    if key not in _BOTS:
        _BOTS[key] = Bot(r, level)
    return _BOTS[key]


def _valid_rows(chunk: PositionChunk, r: Ruleset) -> tuple[np.ndarray, list[int], list[str]]:
    """The rows of a ``.npy`` chunk that are positions of ``r``, their indices, the errors."""
    rows = np.ascontiguousarray(chunk.rows)
    try:
        native.validate_rows(rows, r)
        return rows, list(range(len(rows))), []
    except TawlaError:
        pass
    keep, errors = [], []
    for i in range(len(rows)):
        try:
            native.validate_rows(rows[i:i + 1], r)
            keep.append(i)
        except TawlaError as e:
            errors.append(_message(f"{chunk.source}:row {chunk.start + i}", e))
    return rows[keep], keep, errors


def _values(rows: np.ndarray, r: Ruleset, level: str) -> np.ndarray:
    if not len(rows):
        return np.zeros((0, len(VALUE_COLUMNS)), np.float32)
    return level_evaluate(rows, r, level)[:, _ORDER]


def evaluate_chunk(chunk: PositionChunk, ruleset: RulesetLike, dice: tuple[int, int] | None = None,
                   level: str = "net0") -> ChunkResult:
    """Evaluate the positions of a chunk (a pure function: chunk in, results out).

    Parameters
    ----------
    chunk : PositionChunk
    ruleset : str or Ruleset
        The ruleset of every position (gnubg IDs and XGIDs: backgammon or adi).
    dice : (int, int), optional
        Also find the best play for this roll, by the :class:`tawla.Bot` of ``level``.
    level : str
        An evaluator level (:data:`tawla.bots.levels.LEVELS`): the values are
        :func:`tawla.evaluate`'s at that level, the best play the :class:`tawla.Bot` of that
        level's (default ``"net0"``: the shipped network, the evaluator and ranking of
        ``tawla analyze``).

    Returns
    -------
    ChunkResult
        A line or row that is not a position of the ruleset gives an entry in ``errors``
        and no result; the others are evaluated (each row validated before compiled code
        reads it).

    Raises
    ------
    tawla.errors.UnsupportedRuleset
        An unknown ruleset.
    tawla.errors.ConfigError
        An unknown level.
    """
    r = get_ruleset(ruleset)
    contact_model(level, r)  # an unknown level fails before any position is read
    errors: list[str] = []
    if chunk.rows is None:
        positions, inputs = [], []
        for number, text in chunk.lines:
            try:
                positions.append(parse_position(text, r))
                inputs.append(text)
            except TawlaError as e:
                errors.append(_message(f"{chunk.source}:{number}", e))
        rows = positions_to_array(positions)
    else:
        rows, _, errors = _valid_rows(chunk, r)
        positions = [Position(bytes(row), r) for row in rows]
        inputs = [p.id() for p in positions]
    result = ChunkResult(inputs, np.ascontiguousarray(_values(rows, r, level)), errors=errors)
    if dice is not None:
        bot = _bot(r, level)
        result.best_moves, result.best_ids = [], []
        for pos in positions:
            try:
                move = bot.choose(pos, dice)
            except InvalidAction:  # the game is over
                result.best_moves.append("")
                result.best_ids.append("")
                continue
            after = Position(move.after, r).flip()
            result.best_moves.append(str(move))
            result.best_ids.append(after.gnubg_id() if r.has_bar else after.id())
    return result


def _evaluate_block(block: np.ndarray, ruleset: Ruleset, level: str) -> np.ndarray:
    return level_evaluate(np.ascontiguousarray(block, dtype=np.uint8), ruleset, level)


def evaluate_dask(rows, ruleset: RulesetLike = "backgammon", level: str = "net0"):
    """:func:`tawla.evaluate` at a level (default ``net0``, the shipped network) over a
    ``dask.array`` of packed rows, one task a block.

    The blocks are evaluated by ``map_blocks`` wherever the array is computed (the
    synchronous scheduler, threads, or a ``distributed`` cluster); each block's rows are
    validated before compiled code reads them.

    Parameters
    ----------
    rows : dask.array.Array, uint8[N, 56]
        Packed rows, each seen from its side to move; blocks along the rows only (a block
        split across the 56 columns is rechunked whole).
    ruleset : str or Ruleset
    level : str
        One of :data:`tawla.bots.levels.LEVELS`.

    Returns
    -------
    dask.array.Array, float32[N, 6]
        Lazy; the columns of :data:`tawla.evaluation.COLUMNS` (equity first, then win,
        win_gammon, win_backgammon, lose_gammon, lose_backgammon), the row blocks of ``rows``.

    Raises
    ------
    tawla.errors.InvalidId
        ``rows`` not of shape ``(N, 56)`` or not ``uint8``.
    tawla.errors.UnsupportedRuleset
        An unknown ruleset.
    tawla.errors.InvalidPosition
        When computed: a row that is not a position of the ruleset.
    tawla.errors.ConfigError
        Dask is not installed, or an unknown level.

    Examples
    --------
    >>> import dask.array as da, tawla
    >>> from tawla.analysis.positions import evaluate_dask
    >>> rows = tawla.positions_to_array([tawla.get_ruleset("backgammon").initial_position()] * 1000)
    >>> values = evaluate_dask(da.from_array(rows, chunks=(250, 56)), "backgammon")
    >>> values.compute(scheduler="synchronous").shape
    (1000, 6)
    """
    try:
        import dask.array as da  # noqa: F401  (the array's own module does the work)
    except ImportError as e:
        raise ConfigError(f'evaluate_dask needs Dask: pip install "tawla-engine[dask]" ({e})') from None
    r = get_ruleset(ruleset)
    contact_model(level, r)  # an unknown level fails here, not in a task
    if getattr(rows, "ndim", None) != 2 or rows.shape[1] != PACKED_WIDTH:
        raise InvalidId(f"rows must have shape (N, {PACKED_WIDTH}), not {getattr(rows, 'shape', None)}")
    if rows.dtype != np.uint8:
        raise InvalidId(f"rows must be uint8, not {rows.dtype}")
    if len(rows.chunks[1]) != 1:
        rows = rows.rechunk({1: -1})
    return rows.map_blocks(_evaluate_block, r, level, dtype=np.float32, chunks=(rows.chunks[0], (6,)))
