"""The analysis as a pure function over chunks of files: contents in, reports out.

Every way of running the analysis on many files (one process, a local process pool, a Dask
cluster) cuts the files into the chunks of :func:`plan_chunks` and analyses each chunk with
:func:`analyze_chunk`, whose reports depend only on the names and contents of its files: the
result never depends on how the work was split or where it ran. The file contents travel
with the chunk (:func:`load_chunk`), so that the workers need no shared disk; the evaluator
is named, and built once per process (:func:`evaluator_for`).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path

from ..errors import ConfigError
from .evaluators import EquityEvaluator, HeuristicEvaluator, SearchEvaluator, default_evaluator
from .files import MAX_RECORD_BYTES, analyze_contents, analyze_paths
from .report_data import MatchReport

__all__ = ["EVALUATORS", "CHUNK_BYTES", "MIN_CHUNK_BYTES", "CHUNKS_PER_WORKER", "Files", "ChunkTask",
           "make_evaluator", "evaluator_for", "analyze_chunk", "plan_chunks", "load_chunk", "merge_chunk",
           "dead_chunk"]

EVALUATORS = ("engine", "net1", "net2", "heuristic")
"""The evaluator names of :func:`make_evaluator` (None: no evaluator, replay only)."""

CHUNK_BYTES = 256 * 2**10
"""The most record text a chunk holds (bytes), unless one file alone is larger."""

MIN_CHUNK_BYTES = 64 * 2**10
"""The least record text a chunk is cut to (bytes): less than this in all is one chunk, which
runs in the caller's process (about 60 games, a second; starting a pool of workers, each
building its evaluator, costs about as much)."""

CHUNKS_PER_WORKER = 4
"""Chunks are cut small enough for this many a worker (within the two bounds above), so that
the workers finish close together."""

Files = list[tuple[str, bytes]]
"""The contents of a chunk: ``(name, bytes of the file)`` per file."""

ChunkTask = Callable[[Files, "str | None", "str | None"], list[MatchReport]]
"""The signature of :func:`analyze_chunk`."""

_BUILT: dict[str, EquityEvaluator] = {}


def make_evaluator(name: str | None) -> EquityEvaluator | None:
    """A new evaluator of the given name.

    Parameters
    ----------
    name : {"engine", "net1", "net2", "heuristic"} or None
        ``"engine"``: :func:`~tawla.analysis.evaluators.default_evaluator` (net0); ``"net1"``,
        ``"net2"``: :class:`~tawla.analysis.evaluators.SearchEvaluator`; ``"heuristic"``:
        :class:`~tawla.analysis.evaluators.HeuristicEvaluator`; None: no evaluator.

    Raises
    ------
    tawla.errors.ConfigError
        Any other name.
    """
    if name is None:
        return None
    if name == "engine":
        return default_evaluator()
    if name == "heuristic":
        return HeuristicEvaluator()
    if name in ("net1", "net2"):
        return SearchEvaluator(name)
    raise ConfigError(f"unknown evaluator {name!r}: one of {', '.join(EVALUATORS)} or None")


def evaluator_for(name: str | None) -> EquityEvaluator | None:
    """The evaluator of :func:`make_evaluator`, built once per process and kept.

    Raises
    ------
    tawla.errors.ConfigError
        As :func:`make_evaluator`.
    """
    if name is None:
        return None
    if name not in _BUILT:
        built = make_evaluator(name)
        assert built is not None
        _BUILT[name] = built
    return _BUILT[name]


def analyze_chunk(files: Files, evaluator_name: str | None, ruleset: str | None) -> list[MatchReport]:
    """Analyse a chunk of records given by their contents (a pure function: files in, reports out).

    Parameters
    ----------
    files : list of (str, bytes)
        The name (the path it stands for) and the bytes of each file.
    evaluator_name : {"engine", "heuristic"} or None
        As :func:`make_evaluator`; the evaluator is built once per process.
    ruleset : str or None
        Overrides each record's ``Variation`` header.

    Returns
    -------
    list of MatchReport
        One per file, in order: what :func:`tawla.analysis.analyze_paths` gives for files
        of those paths and contents; an unreadable record gives a report with ``error`` set.
        The reports pickle.

    Raises
    ------
    tawla.errors.ConfigError
        An unknown evaluator name.
    """
    return analyze_contents(files, evaluator=evaluator_for(evaluator_name), ruleset=ruleset)


def _size(path) -> int:
    try:
        return os.stat(path).st_size
    except OSError:
        return 0


def plan_chunks(paths: Sequence, workers: int, *, chunk_bytes: int | None = None) -> list[list]:
    """Cut the files, in order, into chunks of about the same number of bytes.

    Parameters
    ----------
    paths : sequence of path
    workers : int
        The number of processes that will share the chunks.
    chunk_bytes : int, optional
        Bytes of record text a chunk (default: the file sizes' total over
        :data:`CHUNKS_PER_WORKER` chunks a worker, within :data:`MIN_CHUNK_BYTES` and
        :data:`CHUNK_BYTES`).

    Returns
    -------
    list of list of path
        Consecutive runs of ``paths``, none empty; a chunk is closed once it holds
        ``chunk_bytes`` or more, so a file larger than that is a chunk of its own.
    """
    sizes = [_size(p) for p in paths]
    if chunk_bytes is None:
        share = sum(sizes) // max(1, workers * CHUNKS_PER_WORKER)
        chunk_bytes = max(MIN_CHUNK_BYTES, min(CHUNK_BYTES, share))
    chunks: list[list] = []
    current: list = []
    held = 0
    for path, size in zip(paths, sizes):
        current.append(path)
        held += size
        if held >= chunk_bytes:
            chunks.append(current)
            current, held = [], 0
    if current:
        chunks.append(current)
    return chunks


def load_chunk(paths: Sequence, evaluator_name: str | None = None,
               ruleset: str | None = None) -> tuple[Files, dict[int, MatchReport]]:
    """Read the contents of a chunk's files, to send them with the chunk.

    A file that cannot be read here (not a regular file, larger than
    :data:`~tawla.analysis.files.MAX_RECORD_BYTES`, an ``OSError``) is analysed at once by
    :func:`~tawla.analysis.analyze_paths`, which gives its report with ``error`` set, the
    same as a run on one process gives.

    Returns
    -------
    (list of (str, bytes), dict of int to MatchReport)
        The contents to analyse, and the reports already made, by index in ``paths``.
    """
    files: Files = []
    done: dict[int, MatchReport] = {}
    for i, path in enumerate(paths):
        p = Path(path)
        data = None
        try:
            if p.is_file() and p.stat().st_size <= MAX_RECORD_BYTES:
                data = p.read_bytes()
        except OSError:
            data = None
        if data is None:  # analysed here, so that its error is the serial one
            (done[i],) = analyze_paths([path], evaluator=evaluator_for(evaluator_name), ruleset=ruleset)
        else:
            files.append((str(path), data))
    return files, done


def merge_chunk(paths: Sequence, done: dict[int, MatchReport], reports: list[MatchReport]) -> list[MatchReport]:
    """The reports of a chunk in the order of its ``paths``: those of :func:`load_chunk`'s
    ``done`` in their places, those of the analysed contents in the others."""
    rest = iter(reports)
    return [done[i] if i in done else next(rest) for i in range(len(paths))]


def dead_chunk(paths: Sequence, why: str) -> list[MatchReport]:
    """Reports with ``error`` set for the files of a chunk whose worker process died, and died
    again when the chunk was retried (``why``: how it died)."""
    return [MatchReport(path=str(p), error=f"{p}: WorkerDied: the worker process analysing it died, "
                        f"and again on the retry ({why})") for p in paths]

