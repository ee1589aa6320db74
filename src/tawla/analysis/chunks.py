"""The analysis as a pure function over chunks of files: read -> replay -> evaluate -> report.

Every way of running the analysis on many files (one process, a local process pool, a Dask
cluster) cuts the files into the chunks of :func:`plan_chunks` and analyses each chunk with
:func:`analyze_chunk` under one :class:`AnalysisJob` (the evaluator's name, the ruleset
resolved once, whether the JSON is wanted), whose reports depend only on the names and
contents of its files: the result never depends on how the work was split or where it ran.
The runners only split and merge. A chunk's sources are paths (a local pool: the workers read
the files themselves) or the files' contents (:func:`read_chunk`, for workers without the
disk); the evaluator is named, and built once per process (:func:`evaluator_for`).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..errors import ConfigError
from ..rules import Ruleset, RulesetLike, get_ruleset
from .evaluators import EquityEvaluator, HeuristicEvaluator, SearchEvaluator, default_evaluator
from .files import MAX_RECORD_BYTES, analyze_contents, analyze_paths
from .report import TextStyle, match_json, match_text
from .report_data import MatchReport

__all__ = ["EVALUATORS", "CHUNK_BYTES", "MIN_CHUNK_BYTES", "CHUNKS_PER_WORKER", "Source", "ChunkTask",
           "AnalysisJob", "make_evaluator", "evaluator_for", "analyze_chunk", "plan_chunks", "read_chunk",
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

Source = "str | Path | tuple[str, bytes] | MatchReport"
"""One file of a chunk: its path (read where the chunk is analysed), ``(name, bytes of the
file)``, or the report already made of a file that could not be read (:func:`read_chunk`)."""

ChunkTask = Callable[[list, "AnalysisJob"], list[MatchReport]]
"""The signature of :func:`analyze_chunk`."""


@dataclass(frozen=True)
class AnalysisJob:
    """What every chunk of one run is analysed with (it pickles, for the workers).

    Attributes
    ----------
    evaluator_name : {"engine", "net1", "net2", "heuristic"} or None
        As :func:`make_evaluator` (None: replay only).
    ruleset : Ruleset or None
        Overrides each record's ``Variation`` header (resolved once, by :meth:`of`).
    with_json : bool
        Encode each report's JSON (:func:`~tawla.analysis.report.match_json`) where it is
        analysed, so that the process that writes the document only joins the texts.
    text_style : TextStyle or None
        Render each file's part of the text report in this style
        (:func:`~tawla.analysis.report.match_text`) where it is analysed.
    """

    evaluator_name: str | None = "engine"
    ruleset: Ruleset | None = None
    with_json: bool = False
    text_style: TextStyle | None = None

    @classmethod
    def of(cls, evaluator_name: str | None = "engine", ruleset: RulesetLike | None = None,
           with_json: bool = False, text_style: TextStyle | None = None) -> "AnalysisJob":
        """The job, its names checked and the ruleset resolved.

        Raises
        ------
        tawla.errors.ConfigError
            An unknown evaluator name.
        tawla.errors.UnsupportedRuleset
            An unknown ruleset.
        """
        if evaluator_name is not None and evaluator_name not in EVALUATORS:
            raise ConfigError(f"unknown evaluator {evaluator_name!r}: one of {', '.join(EVALUATORS)} or None")
        return cls(evaluator_name, get_ruleset(ruleset) if ruleset is not None else None, with_json, text_style)

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


def analyze_chunk(sources: list, job: AnalysisJob) -> list[MatchReport]:
    """Analyse a chunk of records: read -> replay -> evaluate -> report, file by file.

    Parameters
    ----------
    sources : list of Source
        Paths (read here, streamed: memory grows with the plays, not the text), ``(name,
        bytes)`` contents, or reports already made (passed through).
    job : AnalysisJob

    Returns
    -------
    list of MatchReport
        One per source, in order: what :func:`tawla.analysis.analyze_paths` gives for those
        paths and contents; an unreadable record gives a report with ``error`` set. With
        ``job.with_json``, each carries its JSON text, with ``job.text_style`` its part of the
        text report. The reports pickle.

    Raises
    ------
    tawla.errors.ConfigError
        An unknown evaluator name.
    """
    evaluator = evaluator_for(job.evaluator_name)
    reports = []
    for src in sources:
        if isinstance(src, MatchReport):
            rep = src
        elif isinstance(src, tuple):
            (rep,) = analyze_contents([src], evaluator=evaluator, ruleset=job.ruleset)
        else:
            (rep,) = analyze_paths([src], evaluator=evaluator, ruleset=job.ruleset)
        if job.with_json:
            match_json(rep, keep=True)
        if job.text_style is not None:
            match_text(rep, job.text_style)
        reports.append(rep)
    return reports


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


def read_chunk(paths: Sequence) -> list:
    """A chunk's files with their contents, to send them to workers without the disk.

    A file that cannot be read here (not a regular file, larger than
    :data:`~tawla.analysis.files.MAX_RECORD_BYTES`, an ``OSError``) is reported at once, as a
    run on one process reports it (no evaluator is needed for that).

    Returns
    -------
    list of Source
        ``(str(path), bytes)`` per readable file, its :class:`MatchReport` (``error`` set)
        per other one, in the order of ``paths``.
    """
    out: list = []
    for path in paths:
        p = Path(path)
        data = None
        try:
            if p.is_file() and p.stat().st_size <= MAX_RECORD_BYTES:
                data = p.read_bytes()
        except OSError:
            data = None
        out.append((str(path), data) if data is not None else analyze_paths([path], evaluator=None)[0])
    return out


def dead_chunk(sources: Sequence, why: str) -> list[MatchReport]:
    """Reports with ``error`` set for the files of a chunk whose worker process died, and died
    again when the chunk was retried (``why``: how it died); a report already made
    (:func:`read_chunk`) is kept."""
    out = []
    for src in sources:
        if isinstance(src, MatchReport):
            out.append(src)
            continue
        p = src[0] if isinstance(src, tuple) else src
        out.append(MatchReport(path=str(p), error=f"{p}: WorkerDied: the worker process analysing it died, "
                               f"and again on the retry ({why})"))
    return out
