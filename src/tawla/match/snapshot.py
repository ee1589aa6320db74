"""Snapshots of a match: its state after its first ``n`` events, without its log, so that a
match is rebuilt from its last snapshot and the events after it instead of from its start
(:meth:`SnapshotMixin.resume`); and a copy of a match brought up to another's log by the
events it lacks (:meth:`SnapshotMixin.catch_up`). A store keeps the log (one row per event) and, now and then,
a snapshot; rebuilding then replays a bounded tail of the log.
"""

from __future__ import annotations

import copy

from ..errors import FormatError
from .base import json_form
from .document import RecordMixin, load_document, replay_inputs

__all__ = ["SnapshotMixin"]


class SnapshotMixin(RecordMixin):
    """:meth:`snapshot`, :meth:`resume` and :meth:`catch_up`."""

    def snapshot(self) -> dict:
        """The match's state after its :attr:`event_count` events, its log left out:
        ``{"n": event count, "state": the state part of a document}`` (JSON-able, shared
        with nothing the match changes later)."""
        return {"n": len(self._events), "state": copy.deepcopy(self._state())}

    def catch_up(self, events: list) -> None:
        """Apply ``events``, the events that follow this match's log (as another copy of the
        match logged them), each at its recorded time.

        Raises
        ------
        tawla.errors.FormatError
            Events that do not apply, or do not give themselves again: the match is then
            part way and must be rebuilt (:meth:`resume`, :meth:`replay`).
        """
        n = len(self._events)
        box = {"t": None}
        clock, self._clock = self._clock, (lambda: box["t"])
        try:
            replay_inputs(self, events, box, n)
        finally:
            self._clock = clock
        if [json_form(ev) for ev in self._events[n:]] != [json_form(ev) for ev in events]:
            raise FormatError(f"the events after event {n} do not replay as recorded")

    @classmethod
    def resume(cls, start, events: list, snapshot: dict, *, clock=None, timeout_policy=None):
        """The match whose document at its start is ``start`` (its config) and whose whole
        log is ``events``, rebuilt from ``snapshot`` (:meth:`snapshot`, taken after the log's
        first ``snapshot["n"]`` events) by replaying only the events after it.

        The snapshot's state is taken as written (the store that wrote it wrote the log too);
        the events after it are replayed and must give themselves again. A document from
        elsewhere is read with :meth:`from_json`, which replays the whole log.

        Parameters
        ----------
        start : str or dict
            A match document (:meth:`to_json`); its config is used.
        events : list of dict
            The whole log, oldest first.
        snapshot : dict
            ``{"n", "state"}``, with ``n`` at most ``len(events)``.
        clock, timeout_policy
            As for :class:`~tawla.match.Match`.

        Returns
        -------
        Match

        Raises
        ------
        tawla.errors.FormatError
            A snapshot that is not one, a state that does not load, or events after it
            that do not replay.
        """
        doc = load_document(start)
        n = snapshot.get("n") if isinstance(snapshot, dict) else None
        if type(n) is not int or not 0 <= n <= len(events) or not isinstance(snapshot.get("state"), dict):
            raise FormatError(f"a snapshot is {{'n': 0..{len(events)}, 'state': {{...}}}}")
        box = {"t": None}
        m = cls._restore({**doc, "state": snapshot["state"], "events": events[:n]},
                         clock=lambda: box["t"], timeout_policy=timeout_policy)
        replay_inputs(m, events[n:], box, n)
        if [json_form(ev) for ev in m._events[n:]] != [json_form(ev) for ev in events[n:]]:
            raise FormatError(f"the events after the snapshot (event {n} on) do not replay as recorded")
        m._clock = clock if doc["config"].get("created") is not None else None
        return m
