"""The analysis of many files on a local process pool, one chunk a task.

The chunks are those of :func:`tawla.analysis.chunks.plan_chunks`, analysed by
:func:`~tawla.analysis.chunks.analyze_chunk` in the worker processes, so the reports are
those of a run on one process, in the order of the files whatever finishes first. At most
two chunks a worker are in flight, so that the contents held in memory stay bounded.

A worker process that dies (killed by the OS, out of memory) breaks the pool: the chunks
that were in flight are then retried once, each alone in a fresh process, and the chunks
not yet sent go on in a fresh pool; a chunk whose process dies again alone gives reports
with ``error`` set for its files (:func:`~tawla.analysis.chunks.dead_chunk`). No file is
ever left out.

The workers are started by ``forkserver`` where the platform has it (a fork of a small
server process that has imported the analysis once: no threads of the caller are forked),
else by ``spawn``.
"""

from __future__ import annotations

import multiprocessing
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool

from .chunks import ChunkTask, analyze_chunk, dead_chunk, evaluator_for, load_chunk, merge_chunk, plan_chunks
from .files import analyze_paths
from .results import MatchReport

__all__ = ["IN_FLIGHT_PER_WORKER", "analyze_parallel", "pool_context", "map_ordered"]

IN_FLIGHT_PER_WORKER = 2
"""Chunks sent ahead per worker process (their contents are held until they are done)."""


def pool_context():
    """The start method of the worker processes: ``forkserver`` (preloading the analysis)
    where the platform has it, else ``spawn``."""
    methods = multiprocessing.get_all_start_methods()
    if "forkserver" in methods:
        ctx = multiprocessing.get_context("forkserver")
        ctx.set_forkserver_preload(["tawla.analysis.chunks"])
        return ctx
    return multiprocessing.get_context("spawn")


class _Run:
    """The state of one parallel run: the chunks, their reports, the progress calls."""

    def __init__(self, chunks: list, evaluator_name, ruleset, task: ChunkTask, progress):
        self.chunks = chunks
        self.evaluator_name = evaluator_name
        self.ruleset = ruleset
        self.task = task
        self.progress = progress
        self.results: list[list[MatchReport] | None] = [None] * len(chunks)

    def finish(self, i: int, reports: list[MatchReport]) -> None:
        self.results[i] = reports
        if self.progress is not None:
            for path, rep in zip(self.chunks[i], reports):
                self.progress(path, rep)

    def submit(self, pool: ProcessPoolExecutor, i: int) -> tuple[Future, dict] | None:
        """Send chunk ``i``; None when none of its files could be read here (all reported)."""
        files, done = load_chunk(self.chunks[i], self.evaluator_name, self.ruleset)
        if not files:
            self.finish(i, merge_chunk(self.chunks[i], done, []))
            return None
        return pool.submit(self.task, files, self.evaluator_name, self.ruleset), done

    def shared(self, queue: deque, workers: int) -> tuple[list[int], str]:
        """Run the chunks of ``queue`` on a pool of ``workers``, taking them off the queue.

        Returns the chunks in flight when a worker died (or, none being in flight, the chunk
        the broken pool refused, taken off the queue) and how it died (``[]`` and ``""``
        when none did); the chunks never sent stay on the queue.
        """
        pool = ProcessPoolExecutor(workers, mp_context=pool_context())
        flight: dict[Future, tuple[int, dict]] = {}
        try:
            while queue or flight:
                broken = ""
                while queue and len(flight) < workers * IN_FLIGHT_PER_WORKER and not broken:
                    i = queue.popleft()
                    try:
                        sent = self.submit(pool, i)
                    except BrokenProcessPool as e:  # a worker died since the last wait: i was never sent
                        queue.appendleft(i)
                        broken = f"{type(e).__name__}: {e}"
                        break
                    if sent is not None:
                        flight[sent[0]] = (i, sent[1])
                finished, _ = wait(flight, return_when=FIRST_COMPLETED) if flight else (set(), set())
                for fut in finished:
                    i, done = flight.pop(fut)
                    try:
                        self.finish(i, merge_chunk(self.chunks[i], done, fut.result()))
                    except BrokenProcessPool as e:
                        broken = broken or f"{type(e).__name__}: {e}"
                        flight[fut] = (i, done)
                if broken:
                    suspects = sorted(i for i, _ in flight.values())
                    return suspects or [queue.popleft()], broken  # none in flight: the one it refused
            return [], ""
        finally:
            pool.shutdown(wait=True, cancel_futures=True)

    def alone(self, i: int, why: str) -> None:
        """Run chunk ``i`` by itself on a fresh process; if that process dies too, its files
        are reported with ``error`` set (``why``: how the first one died)."""
        pool = ProcessPoolExecutor(1, mp_context=pool_context())
        try:
            sent = self.submit(pool, i)
            if sent is None:
                return
            fut, done = sent
            try:
                reports = fut.result()
            except BrokenProcessPool:
                reports = dead_chunk([p for j, p in enumerate(self.chunks[i]) if j not in done], why)
            self.finish(i, merge_chunk(self.chunks[i], done, reports))
        finally:
            pool.shutdown(wait=True, cancel_futures=True)

def analyze_parallel(paths: Sequence, *, evaluator_name: str | None = "engine", ruleset: str | None = None,
                     workers: int = 1, progress: Callable | None = None, chunk_bytes: int | None = None,
                     task: ChunkTask = analyze_chunk) -> list[MatchReport]:
    """Analyse files on ``workers`` processes; the reports of :func:`tawla.analysis.analyze_paths`.

    With one worker, or files that make one chunk, the files are analysed in this process,
    streamed from disk (:func:`~tawla.analysis.analyze_paths`: memory bounded by the
    plays, not by the text). Otherwise the chunks of
    :func:`~tawla.analysis.chunks.plan_chunks` go to a process pool, with their contents.

    Parameters
    ----------
    paths : sequence of path
    evaluator_name : {"engine", "heuristic"} or None
        As :func:`tawla.analysis.chunks.make_evaluator`.
    ruleset : str or None
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

    Returns
    -------
    list of MatchReport
        One per file, in the order of ``paths``. A file that cannot be read, or whose chunk's
        process died on its try and again on its retry, gives a report with ``error`` set.

    Raises
    ------
    tawla.errors.ConfigError
        An unknown evaluator name.
    """
    paths = list(paths)
    evaluator = evaluator_for(evaluator_name)
    chunks = plan_chunks(paths, workers, chunk_bytes=chunk_bytes)
    if workers <= 1 or len(chunks) <= 1:
        return analyze_paths(paths, evaluator=evaluator, ruleset=ruleset, progress=progress)
    run = _Run(chunks, evaluator_name, ruleset, task, progress)
    queue = deque(range(len(chunks)))
    while queue:
        suspects, why = run.shared(queue, min(workers, len(queue)))
        for i in suspects:
            run.alone(i, why)
    out: list[MatchReport] = []
    for reports in run.results:
        assert reports is not None, "every chunk is finished, analysed or reported dead"
        out += reports
    return out


def map_ordered(task: Callable, items: Iterable, workers: int, *,
                in_flight: int = IN_FLIGHT_PER_WORKER) -> Iterator[tuple[Any, Any, BaseException | None]]:
    """``task(item)`` for each item on a pool of ``workers`` processes, streamed in order.

    At most ``workers * in_flight`` items are sent ahead or held finished (``items`` is read
    lazily, so a long stream holds only those). A worker that dies breaks the pool: the
    items that were in flight are then retried once, each alone in a fresh process, and the
    rest go on in a fresh pool; an item whose process dies again alone is given back with
    the error instead of a result.

    Parameters
    ----------
    task : callable
        A picklable function of one argument.
    items : iterable
        Picklable arguments.
    workers : int
        Processes (>= 1).

    Yields
    ------
    (item, result, error)
        In the order of ``items``: ``error`` None and ``result`` what ``task`` returned,
        or ``result`` None and ``error`` the :class:`BrokenProcessPool` of the retry. An
        exception raised by ``task`` itself is raised here.
    """
    source = iter(items)
    limit = max(1, workers) * max(1, in_flight)
    done: dict[int, tuple[Any, Any, BaseException | None]] = {}
    again: deque[tuple[int, Any]] = deque()  # never started when a pool broke: sent again
    nxt = sent = 0
    exhausted = False
    while True:
        suspects: list[tuple[int, Any]] = []
        flight: dict[Future, tuple[int, Any]] = {}
        pool = ProcessPoolExecutor(max(1, workers), mp_context=pool_context())
        try:
            while True:
                while not suspects and (again or not exhausted) and len(flight) + len(done) < limit:
                    if again:
                        i, item = again.popleft()
                    else:
                        try:
                            item = next(source)
                        except StopIteration:
                            exhausted = True
                            break
                        i, sent = sent, sent + 1
                    try:
                        flight[pool.submit(task, item)] = (i, item)
                    except BrokenProcessPool:  # a worker died since the last wait
                        suspects.append((i, item))
                if suspects or not flight:
                    break
                finished, _ = wait(flight, return_when=FIRST_COMPLETED)
                for fut in finished:
                    i, item = flight.pop(fut)
                    try:
                        done[i] = (item, fut.result(), None)
                    except BrokenProcessPool:
                        suspects.append((i, item))
                while nxt in done:
                    yield done.pop(nxt)
                    nxt += 1
        finally:
            pool.shutdown(wait=True, cancel_futures=True)
        for fut, (i, item) in sorted(flight.items(), key=lambda f: f[1][0]):  # the pool broke
            if fut.cancelled():
                again.append((i, item))
                continue
            error = fut.exception()
            if error is None:
                done[i] = (item, fut.result(), None)
            elif isinstance(error, BrokenProcessPool):  # in flight when it broke: a suspect too
                suspects.append((i, item))
            else:
                raise error
        for i, item in sorted(suspects, key=lambda s: s[0]):
            done[i] = _alone(task, item)
        while nxt in done:
            yield done.pop(nxt)
            nxt += 1
        if exhausted and not suspects and not again:
            return


def _alone(task: Callable, item) -> tuple[Any, Any, BaseException | None]:
    """``task(item)`` on a fresh process of its own: (item, result, None), or (item, None,
    error) when that process dies too."""
    pool = ProcessPoolExecutor(1, mp_context=pool_context())
    try:
        fut = pool.submit(task, item)
        try:
            return item, fut.result(), None
        except BrokenProcessPool as e:
            return item, None, e
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
