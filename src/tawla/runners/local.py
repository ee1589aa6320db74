"""Tasks on a local pool of worker processes, streamed back in order, surviving workers that die.

The workers are started by ``forkserver`` where the platform has it (a fork of a small server
process that has imported the modules named to preload: no threads of the caller are forked),
else by ``spawn``. The analysis (:mod:`tawla.analysis.parallel`), the evaluation of position
files and rollouts all run on these.
"""

from __future__ import annotations

import multiprocessing
from collections import deque
from collections.abc import Callable, Generator, Iterable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from typing import Any

__all__ = ["IN_FLIGHT_PER_WORKER", "pool_context", "map_ordered"]

IN_FLIGHT_PER_WORKER = 2
"""Tasks sent ahead per worker process (their arguments and results are held until they are done)."""


def pool_context(preload: Sequence[str] = ("tawla.analysis.chunks",)):
    """The start method of the worker processes: ``forkserver`` (its server having imported the
    modules ``preload``) where the platform has it, else ``spawn``."""
    methods = multiprocessing.get_all_start_methods()
    if "forkserver" in methods:
        ctx = multiprocessing.get_context("forkserver")
        ctx.set_forkserver_preload(list(preload))
        return ctx
    return multiprocessing.get_context("spawn")


def map_ordered(task: Callable, items: Iterable, workers: int, *, in_flight: int = IN_FLIGHT_PER_WORKER,
                preload: Sequence[str] = ("tawla.analysis.chunks",)) -> Generator[tuple[Any, Any, BaseException | None], None, None]:
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
    preload : sequence of str
        Modules the workers import before their first task (:func:`pool_context`).

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
        pool = ProcessPoolExecutor(max(1, workers), mp_context=pool_context(preload))
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
            done[i] = _alone(task, item, preload)
        while nxt in done:
            yield done.pop(nxt)
            nxt += 1
        if exhausted and not suspects and not again:
            return


def _alone(task: Callable, item, preload: Sequence[str]) -> tuple[Any, Any, BaseException | None]:
    """``task(item)`` on a fresh process of its own: (item, result, None), or (item, None,
    error) when that process dies too."""
    pool = ProcessPoolExecutor(1, mp_context=pool_context(preload))
    try:
        fut = pool.submit(task, item)
        try:
            return item, fut.result(), None
        except BrokenProcessPool as e:
            return item, None, e
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
