"""A finished match analysed for its room: ``tawla analyze``'s report of the match's record
(:meth:`tawla.Match.to_match_record`, every play ranked by the package's evaluator, the cube
judged at the score of a match), as the HTML page and the JSON of ``tawla analyze``.

Analyses run on one thread of their own, one at a time per process and off the event loop;
each is made once per room and match and kept (the last :data:`CACHED` of them), and a second
request for one being made waits for it.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from ..analysis import analyze_record
from ..analysis.chunks import evaluator_for
from ..analysis.html_report import render_html
from ..analysis.report import match_json

__all__ = ["MatchAnalyses", "CACHED", "EVALUATOR"]

CACHED = 64
"""Analyses kept in memory (the oldest is dropped first)."""
EVALUATOR = "engine"
"""The evaluator of the analyses (``tawla analyze``'s default, net0)."""


def analyse(record: Any, title: str) -> tuple[str, str]:
    """``(HTML page, JSON text)`` of a match record's analysis (runs for a while: call it off
    the event loop)."""
    ev = evaluator_for(EVALUATOR)
    rep = analyze_record(record, evaluator=ev)
    return render_html([rep], ev, title=title), match_json(rep)


class MatchAnalyses:
    """The analyses of a service's finished matches, made one at a time and kept."""

    def __init__(self) -> None:
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="tawla-analysis")
        self._done: OrderedDict[tuple[str, int], tuple[str, str]] = OrderedDict()
        self._making: dict[tuple[str, int], asyncio.Future] = {}

    async def of(self, code: str, match_no: int, record: Any) -> tuple[str, str]:
        """The analysis of room ``code``'s match ``match_no`` from its ``record`` (a
        :class:`~tawla.formats.matfile.MatchRecord` made on the event loop: the thread reads
        no room): ``(HTML page, JSON text)``."""
        key = (code, match_no)
        hit = self._done.get(key)
        if hit is not None:
            self._done.move_to_end(key)
            return hit
        fut = self._making.get(key)
        if fut is None:  # the analysis belongs to no request: one that gives up cancels nothing
            fut = asyncio.ensure_future(self._make(key, record))
            self._making[key] = fut
        return await asyncio.shield(fut)

    async def _make(self, key: tuple[str, int], record: Any) -> tuple[str, str]:
        try:
            out = await asyncio.get_running_loop().run_in_executor(
                self._pool, analyse, record, f"tawla analysis: room {key[0]}, match {key[1]}")
        finally:
            del self._making[key]
        self._done[key] = out
        while len(self._done) > CACHED:
            self._done.popitem(last=False)
        return out

    def close(self) -> None:
        """Stop the thread (an analysis in progress is dropped)."""
        self._pool.shutdown(wait=False, cancel_futures=True)
