"""The analysis of many files on a Dask cluster (the optional ``dask`` extra).

Install it with ``pip install "tawla-engine[dask]"``; nothing else in the package imports this
module, so that ``import tawla`` works without Dask (``tawla analyze --scheduler`` imports it
by name when asked to). The chunks are those of :func:`tawla.analysis.chunks.plan_chunks`,
one task each, analysed by :func:`~tawla.analysis.chunks.analyze_chunk` with the file
contents sent in the task, so the workers need no shared disk and the reports are those of
a run on one process, in the order of the files.

A task that fails is retried once (``retries=1``); a chunk whose workers the scheduler gave
up on (:class:`distributed.KilledWorker`) gives reports with ``error`` set for its files.
At most two chunks a worker thread are in flight.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

from distributed import Client, KilledWorker, as_completed

from .chunks import ChunkTask, analyze_chunk, dead_chunk, evaluator_for, load_chunk, merge_chunk, plan_chunks
from .results import MatchReport

__all__ = ["IN_FLIGHT_PER_THREAD", "analyze_on_cluster", "map_ordered_on_cluster"]

IN_FLIGHT_PER_THREAD = 2
"""Chunks sent ahead per worker thread of the cluster."""


def analyze_on_cluster(paths: Sequence, address: str, *, evaluator_name: str | None = "engine",
                       ruleset: str | None = None, progress: Callable | None = None,
                       chunk_bytes: int | None = None, task: ChunkTask = analyze_chunk) -> list[MatchReport]:
    """Analyse files on the Dask cluster whose scheduler is at ``address``.

    Parameters
    ----------
    paths : sequence of path
        Read here; their contents go to the workers with the tasks.
    address : str
        The scheduler, as :class:`distributed.Client` takes it (``tcp://host:8786``).
    evaluator_name : {"engine", "heuristic"} or None
        As :func:`tawla.analysis.chunks.make_evaluator`; built once per worker process.
    ruleset : str or None
        Overrides each record's ``Variation`` header.
    progress : callable, optional
        ``progress(path, report)`` for each file, in this process, as its chunk completes.
    chunk_bytes : int, optional
        Bytes of record text a chunk (:func:`~tawla.analysis.chunks.plan_chunks`).
    task : callable
        What analyses a chunk on a worker: :func:`~tawla.analysis.chunks.analyze_chunk`, or a
        function of the same signature that the workers can import (tests use one that makes
        a worker die).

    Returns
    -------
    list of MatchReport
        One per file, in the order of ``paths``.

    Raises
    ------
    tawla.errors.ConfigError
        An unknown evaluator name.
    OSError
        The scheduler cannot be reached (Dask's own ``OSError`` on a timeout).
    """
    paths = list(paths)
    evaluator_for(evaluator_name)
    with Client(address) as client:
        threads = max(1, sum(client.nthreads().values()))
        chunks = plan_chunks(paths, threads, chunk_bytes=chunk_bytes)
        results: list[list[MatchReport] | None] = [None] * len(chunks)
        tag = uuid.uuid4().hex

        def finish(i: int, reports: list[MatchReport]) -> None:
            results[i] = reports
            if progress is not None:
                for path, rep in zip(chunks[i], reports):
                    progress(path, rep)

        pending = iter(range(len(chunks)))
        flight: dict = {}
        running = as_completed()

        def send() -> bool:
            for i in pending:
                files, done = load_chunk(chunks[i], evaluator_name, ruleset)
                if not files:
                    finish(i, merge_chunk(chunks[i], done, []))
                    continue
                fut = client.submit(task, files, evaluator_name, ruleset, retries=1, pure=False,
                                    key=f"tawla-chunk-{tag}-{i}")
                flight[fut.key] = (i, done)
                running.add(fut)
                return True
            return False

        while len(flight) < threads * IN_FLIGHT_PER_THREAD and send():
            pass
        for fut in running:
            i, done = flight.pop(fut.key)
            try:
                reports = fut.result()
            except KilledWorker as e:
                reports = dead_chunk([p for j, p in enumerate(chunks[i]) if j not in done], f"KilledWorker: {e}")
            finish(i, merge_chunk(chunks[i], done, reports))
            fut.release()
            send()
    out: list[MatchReport] = []
    for reports in results:
        assert reports is not None, "every chunk is finished, analysed or reported dead"
        out += reports
    return out


def map_ordered_on_cluster(task: Callable, items: Iterable, address: str, *,
                           in_flight: int = IN_FLIGHT_PER_THREAD) -> Iterator[tuple[Any, Any, BaseException | None]]:
    """``task(item)`` for each item on the Dask cluster at ``address``, streamed in order.

    The items travel with the tasks (no shared disk); at most ``in_flight`` tasks a worker
    thread are sent ahead or held finished, ``items`` being read lazily. A task that fails
    is retried once (``retries=1``); one whose workers the scheduler gave up on is given back
    with the :class:`distributed.KilledWorker` error instead of a result.

    Yields
    ------
    (item, result, error)
        As :func:`tawla.analysis.parallel.map_ordered`. An exception raised by ``task``
        itself is raised here.

    Raises
    ------
    OSError
        The scheduler cannot be reached.
    """
    source = iter(items)
    tag = uuid.uuid4().hex
    with Client(address) as client:
        limit = max(1, sum(client.nthreads().values())) * max(1, in_flight)
        pending: dict[int, tuple] = {}  # index -> (item, future)
        done: dict[int, tuple[Any, Any, BaseException | None]] = {}
        running = as_completed()
        sent = nxt = 0
        exhausted = False
        while True:
            while not exhausted and len(pending) + len(done) < limit:
                try:
                    item = next(source)
                except StopIteration:
                    exhausted = True
                    break
                fut = client.submit(task, item, retries=1, pure=False, key=f"tawla-map-{tag}-{sent}")
                pending[sent] = (item, fut)
                running.add(fut)
                sent += 1
            if not pending:
                return
            fut = next(running)
            i = int(fut.key.rsplit("-", 1)[1])
            item, _ = pending.pop(i)
            try:
                done[i] = (item, fut.result(), None)
            except KilledWorker as e:
                done[i] = (item, None, e)
            fut.release()
            while nxt in done:
                yield done.pop(nxt)
                nxt += 1
