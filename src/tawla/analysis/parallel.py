"""The analysis of many files on a local process pool, one chunk a task.

The chunks are those of :func:`tawla.analysis.chunks.plan_chunks`: this module only sends
each chunk's paths to a worker, where :func:`~tawla.analysis.chunks.analyze_chunk` reads,
replays, evaluates and reports them (encoding the JSON there when it is wanted), and puts the
reports back in the order of the files whatever finishes first, so they are those of a run on
one process. At most two chunks a worker are in flight.

A worker process that dies (killed by the OS, out of memory) breaks the pool: the chunks
that were in flight are then retried once, each alone in a fresh process, and the chunks
not yet sent go on in a fresh pool; a chunk whose process dies again alone gives reports
with ``error`` set for its files (:func:`~tawla.analysis.chunks.dead_chunk`). No file is
ever left out.

The workers are those of :mod:`tawla.runners.local` (``forkserver`` preloading the
analysis where the platform has it), which also streams the other tasks of the analysis
(:func:`map_ordered`).
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool

from ..runners.local import IN_FLIGHT_PER_WORKER, map_ordered, pool_context
from ..rules import RulesetLike
from .chunks import AnalysisJob, ChunkTask, analyze_chunk, dead_chunk, plan_chunks
from .report import TextStyle
from .report_data import MatchReport

__all__ = ["IN_FLIGHT_PER_WORKER", "analyze_parallel", "pool_context", "map_ordered"]


class _Run:
    """The state of one parallel run: the chunks, their reports, the progress calls."""

    def __init__(self, chunks: list, job: AnalysisJob, task: ChunkTask, progress):
        self.chunks = chunks
        self.job = job
        self.task = task
        self.progress = progress
        self.results: list[list[MatchReport] | None] = [None] * len(chunks)

    def finish(self, i: int, reports: list[MatchReport]) -> None:
        self.results[i] = reports
        if self.progress is not None:
            for path, rep in zip(self.chunks[i], reports):
                self.progress(path, rep)

    def submit(self, pool: ProcessPoolExecutor, i: int) -> Future:
        """Send chunk ``i`` (its paths and the job)."""
        return pool.submit(self.task, [str(p) for p in self.chunks[i]], self.job)

    def shared(self, queue: deque, workers: int) -> tuple[list[int], str]:
        """Run the chunks of ``queue`` on a pool of ``workers``, taking them off the queue.

        Returns the chunks in flight when a worker died (or, none being in flight, the chunk
        the broken pool refused, taken off the queue) and how it died (``[]`` and ``""``
        when none did); the chunks never sent stay on the queue.
        """
        pool = ProcessPoolExecutor(workers, mp_context=pool_context())
        flight: dict[Future, int] = {}
        try:
            while queue or flight:
                broken = ""
                while queue and len(flight) < workers * IN_FLIGHT_PER_WORKER and not broken:
                    i = queue.popleft()
                    try:
                        flight[self.submit(pool, i)] = i
                    except BrokenProcessPool as e:  # a worker died since the last wait: i was never sent
                        queue.appendleft(i)
                        broken = f"{type(e).__name__}: {e}"
                        break
                finished, _ = wait(flight, return_when=FIRST_COMPLETED) if flight else (set(), set())
                for fut in finished:
                    i = flight.pop(fut)
                    try:
                        self.finish(i, fut.result())
                    except BrokenProcessPool as e:
                        broken = broken or f"{type(e).__name__}: {e}"
                        flight[fut] = i
                if broken:
                    suspects = sorted(flight.values())
                    return suspects or [queue.popleft()], broken  # none in flight: the one it refused
            return [], ""
        finally:
            pool.shutdown(wait=True, cancel_futures=True)

    def alone(self, i: int, why: str) -> None:
        """Run chunk ``i`` by itself on a fresh process; if that process dies too, its files
        are reported with ``error`` set (``why``: how the first one died)."""
        pool = ProcessPoolExecutor(1, mp_context=pool_context())
        try:
            try:
                reports = self.submit(pool, i).result()
            except BrokenProcessPool:
                reports = dead_chunk(self.chunks[i], why)
            self.finish(i, reports)
        finally:
            pool.shutdown(wait=True, cancel_futures=True)

def _bytes(path) -> int:
    try:
        return os.stat(path).st_size
    except OSError:
        return 0


def analyze_parallel(paths: Sequence, *, evaluator_name: str | None = "engine", ruleset: RulesetLike | None = None,
                     workers: int = 1, progress: Callable | None = None, chunk_bytes: int | None = None,
                     task: ChunkTask = analyze_chunk, with_json: bool = False,
                     text_style: TextStyle | None = None) -> list[MatchReport]:
    """Analyse files on ``workers`` processes; the reports of :func:`tawla.analysis.analyze_paths`.

    With one worker, or files that make one chunk, the files are analysed in this process,
    streamed from disk (:func:`~tawla.analysis.analyze_paths`: memory bounded by the
    plays, not by the text). Otherwise the chunks of
    :func:`~tawla.analysis.chunks.plan_chunks` go to a process pool, as paths.

    Parameters
    ----------
    paths : sequence of path
    evaluator_name : {"engine", "net1", "net2", "heuristic"} or None
        As :func:`tawla.analysis.chunks.make_evaluator`.
    ruleset : str or Ruleset or None
        Overrides each record's ``Variation`` header.
    workers : int
        Worker processes (>= 1).
    progress : callable, optional
        ``progress(path, report)`` for each file, in this process, as its chunk completes.
    chunk_bytes : int, optional
        Bytes of record text a chunk (:func:`~tawla.analysis.chunks.plan_chunks`).
    task : callable
        What analyses a chunk in a worker: :func:`~tawla.analysis.chunks.analyze_chunk`, or
        a picklable function of the same signature (tests use one that makes a worker die).
    with_json : bool
        Encode each report's JSON where it is analysed (``MatchReport.json_text``).
    text_style : TextStyle, optional
        Render each file's part of the text report where it is analysed (``MatchReport.text``).

    Returns
    -------
    list of MatchReport
        One per file, in the order of ``paths``. A file that cannot be read, or whose chunk's
        process died on its try and again on its retry, gives a report with ``error`` set.

    Raises
    ------
    tawla.errors.ConfigError
        An unknown evaluator name.
    tawla.errors.UnsupportedRuleset
        An unknown ruleset.
    """
    paths = list(paths)
    job = AnalysisJob.of(evaluator_name, ruleset, with_json, text_style)
    chunks = plan_chunks(paths, workers, chunk_bytes=chunk_bytes)
    if workers <= 1 or len(chunks) <= 1:  # in this process, file by file
        out: list[MatchReport] = []
        for path in paths:
            out += analyze_chunk([path], job)
            if progress is not None:
                progress(path, out[-1])
        return out
    run = _Run(chunks, job, task, progress)
    # the largest chunks first, so that the workers finish close together
    size = [sum(_bytes(p) for p in chunk) for chunk in chunks]
    queue = deque(sorted(range(len(chunks)), key=lambda i: -size[i]))
    while queue:
        suspects, why = run.shared(queue, min(workers, len(queue)))
        for i in suspects:
            run.alone(i, why)
    merged: list[MatchReport] = []
    for reports in run.results:
        assert reports is not None, "every chunk is finished, analysed or reported dead"
        merged += reports
    return merged
