"""Tasks on a Dask cluster, streamed back in order (the optional ``dask`` extra).

Install it with ``pip install "tawla-engine[dask]"``; nothing imports this module unless a
``--scheduler`` is given (the callers import it by name then), so that ``import tawla`` works
without Dask. The analysis (:mod:`tawla.analysis.dask_run`), the evaluation of position files
and rollouts run on it.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Generator, Iterable
from typing import Any

from distributed import Client, KilledWorker, as_completed

__all__ = ["IN_FLIGHT_PER_THREAD", "map_ordered_on_cluster"]

IN_FLIGHT_PER_THREAD = 2
"""Tasks sent ahead per worker thread of the cluster."""


def map_ordered_on_cluster(task: Callable, items: Iterable, address: str, *,
                           in_flight: int = IN_FLIGHT_PER_THREAD) -> Generator[tuple[Any, Any, BaseException | None], None, None]:
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
