"""A position file evaluated chunk by chunk and streamed to CSV, JSON lines or Parquet.

:func:`evaluate_file` reads the chunks of :func:`tawla.analysis.positions.read_chunks`,
evaluates them with :func:`~tawla.analysis.positions.evaluate_chunk` (in this process, on
a local process pool, :func:`tawla.runners.local.map_ordered`, or on a Dask cluster,
:func:`tawla.runners.cluster.map_ordered_on_cluster`, imported by name only when asked
for) and writes each chunk's rows as it comes back, in file order, by a writer of
:func:`open_writer`. At most a few chunks are held at any time, so memory does not grow
with the file.
"""

from __future__ import annotations

import csv
import functools
import importlib
import json
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from itertools import chain
from typing import IO, Any

from ..errors import ConfigError, quote
from ..rules import get_ruleset
from ..runners import on_cluster
from ..runners.local import map_ordered
from .positions import CHUNK_POSITIONS, VALUE_COLUMNS, ChunkResult, PositionChunk, evaluate_chunk, read_chunks

__all__ = ["FORMATS", "BEST_COLUMNS", "Summary", "columns", "open_writer", "evaluate_file"]

FORMATS = (".csv", ".jsonl", ".parquet")
"""The output formats, by the extension of the file written."""

BEST_COLUMNS = ("best_move", "best_id")
"""The columns added with dice: the best play and the ID of the position it leads to."""



def columns(with_best: bool) -> list[str]:
    """The header: ``input``, the :data:`~tawla.analysis.positions.VALUE_COLUMNS`, and
    :data:`BEST_COLUMNS` when a roll was given."""
    return ["input", *VALUE_COLUMNS, *(BEST_COLUMNS if with_best else ())]


def _extension(path) -> str:
    ext = os.path.splitext(str(path))[1].lower()
    if ext not in FORMATS:
        raise ConfigError(f"the output's extension names its format: {', '.join(FORMATS)}, not {quote(str(path))}")
    return ext


class _Writer:
    """Writes the results of chunks, in order, to one file."""

    def __init__(self, path, with_best: bool):
        self.path = str(path)
        self.columns = columns(with_best)
        self.with_best = with_best

    def _records(self, res: ChunkResult) -> Iterator[list]:
        best = None
        if self.with_best and res.best_moves is not None and res.best_ids is not None:
            best = zip(res.best_moves, res.best_ids)
        for i, text in enumerate(res.inputs):
            row: list[Any] = [text, *res.values[i].tolist()]
            if best is not None:
                row += list(next(best))
            yield row

    def write(self, res: ChunkResult) -> None:  # pragma: no cover
        raise NotImplementedError

    def close(self) -> None:  # pragma: no cover
        raise NotImplementedError


class _CsvWriter(_Writer):
    def __init__(self, path, with_best):
        super().__init__(path, with_best)
        self.file: IO[str] = open(path, "w", encoding="utf-8", newline="")
        self.out = csv.writer(self.file, lineterminator="\n")
        self.out.writerow(self.columns)

    def write(self, res):
        for row in self._records(res):
            row[1:7] = [f"{v:.6f}" for v in row[1:7]]
            self.out.writerow(row)

    def close(self):
        self.file.close()


class _JsonlWriter(_Writer):
    def __init__(self, path, with_best):
        super().__init__(path, with_best)
        self.file: IO[str] = open(path, "w", encoding="utf-8")

    def write(self, res):
        for row in self._records(res):
            row[1:7] = [round(v, 6) for v in row[1:7]]
            self.file.write(json.dumps(dict(zip(self.columns, row))) + "\n")

    def close(self):
        self.file.close()


class _ParquetWriter(_Writer):
    def __init__(self, path, with_best):
        super().__init__(path, with_best)
        self.pa, pq = _pyarrow()
        fields = [self.pa.field("input", self.pa.string())]
        fields += [self.pa.field(c, self.pa.float32()) for c in VALUE_COLUMNS]
        fields += [self.pa.field(c, self.pa.string()) for c in (BEST_COLUMNS if with_best else ())]
        self.schema = self.pa.schema(fields)
        self.out = pq.ParquetWriter(str(path), self.schema)

    def write(self, res):
        if not len(res):
            return
        arrays = [self.pa.array(res.inputs, self.pa.string())]
        arrays += [self.pa.array(res.values[:, k]) for k in range(len(VALUE_COLUMNS))]
        if self.with_best:
            arrays += [self.pa.array(res.best_moves or [], self.pa.string()),
                       self.pa.array(res.best_ids or [], self.pa.string())]
        self.out.write_table(self.pa.Table.from_arrays(arrays, schema=self.schema))

    def close(self):
        self.out.close()


def _pyarrow():
    """``(pyarrow, pyarrow.parquet)``.

    Raises
    ------
    tawla.errors.ConfigError
        pyarrow is not installed.
    """
    try:
        pa = importlib.import_module("pyarrow")
        pq = importlib.import_module("pyarrow.parquet")
    except ImportError as e:
        raise ConfigError(f"a .parquet output needs pyarrow: pip install pyarrow ({e})") from None
    return pa, pq


def open_writer(path: str | os.PathLike, with_best: bool = False) -> _Writer:
    """A writer for the results, in the format of ``path``'s extension (:data:`FORMATS`).

    The file is created at once with its header (CSV: one row; Parquet: the schema, float32
    value columns); ``writer.write(result)`` appends the rows of a
    :class:`~tawla.analysis.positions.ChunkResult`, ``writer.close()`` finishes the file.

    Raises
    ------
    tawla.errors.ConfigError
        Another extension, or ``.parquet`` without pyarrow installed.
    OSError
        The file cannot be created.
    """
    ext = _extension(path)
    if ext == ".csv":
        return _CsvWriter(path, with_best)
    if ext == ".jsonl":
        return _JsonlWriter(path, with_best)
    return _ParquetWriter(path, with_best)


@dataclass
class Summary:
    """What :func:`evaluate_file` did: positions written, positions that could not be read."""

    positions: int = 0
    bad: int = 0
    chunks: int = 0


def _dead(chunk: PositionChunk, error: BaseException) -> list[str]:
    """The messages for the positions of a chunk whose worker died on its try and its retry."""
    why = f"WorkerDied: the process evaluating it died, and again on the retry ({type(error).__name__})"
    if chunk.rows is None:
        return [f"{chunk.source}:{n}: {why}" for n, _ in chunk.lines]
    return [f"{chunk.source}:row {chunk.start + i}: {why}" for i in range(len(chunk.rows))]


def evaluate_file(path: str | os.PathLike, out: str | os.PathLike, *, ruleset: str = "backgammon",
                  dice: tuple[int, int] | None = None, level: str = "net0", workers: int = 1,
                  scheduler: str | None = None, chunk_size: int = CHUNK_POSITIONS,
                  on_error: Callable[[str], None] | None = None,
                  progress: Callable[[Summary], None] | None = None) -> Summary:
    """Evaluate every position of a file and stream the results to ``out``.

    Parameters
    ----------
    path : str or path-like
        Text, one gnubg Position ID, XGID or tawla ID a line, or a ``.npy`` of packed rows.
    out : str or path-like
        ``.csv``, ``.jsonl`` or ``.parquet`` (:func:`open_writer`): one row per position read,
        in file order: ``input`` and :data:`~tawla.analysis.positions.VALUE_COLUMNS`
        (then :data:`BEST_COLUMNS` with ``dice``).
    ruleset : str
    dice : (int, int), optional
        Add the best play for this roll, by the :class:`tawla.Bot` of ``level``.
    level : str
        A :class:`tawla.Bot` level: its family's 0-ply evaluator gives the values, its search
        the play (default ``net0``, the evaluator and ranking of ``tawla analyze``).
    workers : int
        Processes; 1, or a file of one chunk: this process.
    scheduler : str, optional
        The address of a Dask scheduler to run the chunks on (the ``dask`` extra).
    chunk_size : int
        Positions a chunk.
    on_error : callable, optional
        ``on_error(message)`` for each position that could not be read (``"FILE:LINE: ..."``),
        as its chunk completes; the run goes on.
    progress : callable, optional
        ``progress(summary)`` after each chunk is written.

    Returns
    -------
    Summary

    Raises
    ------
    tawla.errors.ConfigError
        A bad output extension, ``.parquet`` without pyarrow, an unknown level or ruleset,
        ``scheduler`` without Dask installed.
    tawla.errors.FormatError
        A ``.npy`` that is not packed rows.
    OSError
        A file that cannot be read or written, a scheduler that cannot be reached.
    """
    get_ruleset(ruleset)
    _extension(out)
    if str(out).lower().endswith(".parquet"):
        _pyarrow()
    task = functools.partial(evaluate_chunk, ruleset=ruleset, dice=dice, level=level)
    chunks = read_chunks(path, chunk_size)
    head = [c for _, c in zip(range(2), chunks)]
    stream = chain(head, chunks)
    if scheduler is not None:
        results = on_cluster(task, stream, scheduler)
    elif workers > 1 and len(head) > 1:
        results = map_ordered(task, stream, workers)
    else:
        results = ((c, task(c), None) for c in stream)
    summary = Summary()
    writer = open_writer(out, with_best=dice is not None)
    try:
        for chunk, res, error in results:
            messages = _dead(chunk, error) if error is not None else res.errors
            if error is None:
                writer.write(res)
                summary.positions += len(res)
            summary.bad += len(messages)
            summary.chunks += 1
            if on_error is not None:
                for m in messages:
                    on_error(m)
            if progress is not None:
                progress(summary)
    finally:
        writer.close()
    return summary
