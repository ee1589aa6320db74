"""The analysis of many files on a Dask cluster (the optional ``dask`` extra).

Install it with ``pip install "tawla-engine[dask]"``; nothing else in the package imports this
module, so that ``import tawla`` works without Dask (``tawla analyze --scheduler`` imports it
by name when asked to). The chunks are those of :func:`tawla.analysis.chunks.plan_chunks`,
one task each, analysed by :func:`~tawla.analysis.chunks.analyze_chunk` with the file
contents sent in the task (:func:`~tawla.analysis.chunks.read_chunk`), so the workers need no
shared disk and the reports are those of a run on one process, in the order of the files.
This module only splits and merges.

A task that fails is retried once (``retries=1``); a chunk whose workers the scheduler gave
up on (:class:`distributed.KilledWorker`) gives reports with ``error`` set for its files.
At most two chunks a worker thread are in flight.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Sequence

from distributed import Client, KilledWorker, as_completed

from ..runners.cluster import IN_FLIGHT_PER_THREAD, map_ordered_on_cluster
from ..rules import RulesetLike
from .chunks import AnalysisJob, ChunkTask, analyze_chunk, dead_chunk, plan_chunks, read_chunk
from .report import TextStyle
from .report_data import MatchReport

__all__ = ["IN_FLIGHT_PER_THREAD", "analyze_on_cluster", "map_ordered_on_cluster"]


def analyze_on_cluster(paths: Sequence, address: str, *, evaluator_name: str | None = "engine",
                       ruleset: RulesetLike | None = None, progress: Callable | None = None,
                       chunk_bytes: int | None = None, task: ChunkTask = analyze_chunk,
                       with_json: bool = False, text_style: TextStyle | None = None) -> list[MatchReport]:
    """Analyse files on the Dask cluster whose scheduler is at ``address``.

    Parameters
    ----------
    paths : sequence of path
        Read here; their contents go to the workers with the tasks.
    address : str
        The scheduler, as :class:`distributed.Client` takes it (``tcp://host:8786``).
    evaluator_name : {"engine", "heuristic"} or None
        As :func:`tawla.analysis.chunks.make_evaluator`; built once per worker process.
    ruleset : str or Ruleset or None
        Overrides each record's ``Variation`` header.
    progress : callable, optional
        ``progress(path, report)`` for each file, in this process, as its chunk completes.
    chunk_bytes : int, optional
        Bytes of record text a chunk (:func:`~tawla.analysis.chunks.plan_chunks`).
    task : callable
        What analyses a chunk on a worker: :func:`~tawla.analysis.chunks.analyze_chunk`, or a
        function of the same signature that the workers can import (tests use one that makes
        a worker die).
    with_json : bool
        Encode each report's JSON on the workers (``MatchReport.json_text``).
    text_style : TextStyle, optional
        Render each file's part of the text report on the workers (``MatchReport.text``).

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
    job = AnalysisJob.of(evaluator_name, ruleset, with_json, text_style)
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
                sources = read_chunk(chunks[i])
                fut = client.submit(task, sources, job, retries=1, pure=False, key=f"tawla-chunk-{tag}-{i}")
                flight[fut.key] = (i, sources)
                running.add(fut)
                return True
            return False

        while len(flight) < threads * IN_FLIGHT_PER_THREAD and send():
            pass
        for fut in running:
            i, sources = flight.pop(fut.key)
            try:
                reports = fut.result()
            except KilledWorker as e:
                reports = dead_chunk(sources, f"KilledWorker: {e}")
            finish(i, reports)
            fut.release()
            send()
    out: list[MatchReport] = []
    for reports in results:
        assert reports is not None, "every chunk is finished, analysed or reported dead"
        out += reports
    return out
