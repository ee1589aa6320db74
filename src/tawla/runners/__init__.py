"""Where many independent tasks run: a local pool of processes (:mod:`tawla.runners.local`)
or a Dask cluster (:mod:`tawla.runners.cluster`, imported by name only when asked for, by
:func:`on_cluster`), each streaming the results back in the order of the tasks."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Generator, Iterable
from typing import Any

from ..errors import ConfigError

__all__ = ["CLUSTER_MODULE", "on_cluster"]

CLUSTER_MODULE = "tawla.runners.cluster"


def on_cluster(task: Callable, items: Iterable,
               scheduler: str) -> Generator[tuple[Any, Any, BaseException | None], None, None]:
    """:func:`tawla.runners.cluster.map_ordered_on_cluster`, its module imported now.

    Raises
    ------
    tawla.errors.ConfigError
        Dask is not installed (the ``dask`` extra).
    """
    try:
        module = importlib.import_module(CLUSTER_MODULE)
    except ImportError as e:
        raise ConfigError(f'--scheduler needs Dask: pip install "tawla-engine[dask]" ({e})') from None
    return module.map_ordered_on_cluster(task, items, scheduler)
