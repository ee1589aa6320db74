"""Every change of a room goes through :meth:`RoomWrites.commit`: the one place where a room's
version moves on and the one rollback.

Under the room's lock, ``commit(room, change, write)`` notes the room's changing fields,
applies ``change`` (the engine applies an action whole or not at all), moves
:attr:`Room.version` on by one and writes the room (``write``; by default
:meth:`RoomWrites.save`). If the change or the write raises, the room is put back as it was
noted -- its match rebuilt from the record written when the engine had moved it already
(:meth:`Room.rebuild`) -- so memory never runs ahead of the database, and the error goes on.
The version is not put back: it only grows, so that whoever noted it (a bot thinking, a
cached view) sees that the room was touched.

A write appends the match's new events to the ``events`` table and updates the room's few
changing columns; the match's document is written once, when the match starts, and a
snapshot of its state every :data:`~tawla.service.rooms.SNAPSHOT_EVERY` events, so an action
costs its own events whatever the length of the log, and a room is rebuilt from its last
snapshot and the events after it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, TypeVar

from ..match import FairDice, Match
from ..rules.match_play import Phase
from .rooms import Room
from .settlement import match_payments, rated_result
from .status import RoomStatus
from .store import Store

__all__ = ["RoomWrites"]

T = TypeVar("T")


@dataclass(frozen=True)
class _Noted:
    """A room's changing fields before a change (what a failed change or write restores)."""

    status: RoomStatus
    escrow: int
    match: Match | None
    match_json: str | None
    saved_events: int
    match_no: int
    rematch: frozenset
    members: tuple
    events: int  # the match's event count
    next_dice: FairDice
    ratings: list | None
    snapshot_n: int

    @classmethod
    def of(cls, room: Room) -> "_Noted":
        m = room.match
        return cls(room.status, room.escrow, m, room.match_json, room.saved_events, room.match_no,
                   frozenset(room.rematch), tuple(room.members), m.event_count if m is not None else 0,
                   room.next_dice, room.ratings, room.snapshot_n)

    def restore(self, room: Room) -> None:
        room.status, room.escrow, room.match, room.match_json = self.status, self.escrow, self.match, self.match_json
        room.next_dice, room.ratings, room.snapshot_n = self.next_dice, self.ratings, self.snapshot_n
        room.saved_events, room.match_no = self.saved_events, self.match_no
        room.rematch = set(self.rematch)
        room.members[:] = self.members
        if self.match is not None and self.match.event_count != self.events:
            room.rebuild()  # the engine moved before the write failed


class RoomWrites:
    """The writes of a running service's rooms to its :class:`~tawla.service.store.Store`."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.shared = False  # several processes write the rooms: each write is fenced

    def fenced(self, room: Room) -> int | None:
        """The version a write of ``room`` expects to find in the database (several processes:
        the one last read or written here), or None (one process: no fence)."""
        return room.stored_version if self.shared else None

    def commit(self, room: Room, change: Callable[[], T] | None = None,
               write: Callable[[Room], None] | None = None) -> T | None:
        """Apply ``change`` to ``room``, move its version on and write it with ``write``
        (default :meth:`save`); on any exception put the room back as it was and re-raise.
        Call under the room's lock. Returns what ``change`` returned.

        Raises
        ------
        tawla.errors.TawlaError
            What the engine or the store refuses (the room is unchanged).
        """
        noted = _Noted.of(room)
        try:
            out = change() if change is not None else None
            room.version += 1
            (write or self.save)(room)
        except BaseException:
            noted.restore(room)
            raise
        room.stored_version = room.version
        return out

    def save(self, room: Room, *, stakes: tuple = (), new_match: bool = False) -> None:
        """Write ``room``: its changing columns and its match's new events (with ``new_match``,
        the match's document at its start instead, and the ``stakes`` ``(account, coins)``
        taken for it); at the end of a match, a coin table's payments
        (:func:`~tawla.service.settlement.match_payments`) and a rated room's rating changes
        (:func:`~tawla.service.settlement.rated_result`, kept in :attr:`Room.ratings`).
        Called through :meth:`commit`."""
        m = room.match
        settle: list[tuple] = []
        rated = None
        if m is not None and m.phase == Phase.OVER:
            room.status = RoomStatus.OVER
            settle = match_payments(room)
            rated = rated_result(room) if room.ratings is None else None
        log_rows = [] if new_match else room.unsaved_events()
        values = room.row(with_match=new_match)
        snapshot = None if new_match else room.snapshot_due()
        if snapshot is not None:
            values["snapshot"] = snapshot
        changes = self.store.save_room(room.code, values, settle=settle, stakes=stakes, log=log_rows, rated=rated,
                                       expected=self.fenced(room))
        if snapshot is not None:
            room.snapshot_n = m.event_count  # type: ignore[union-attr]
        room.saved_events += len(log_rows)
        room.escrow += sum(a for _, a in stakes) - sum(a for _, a, _ in settle)
        if changes is not None:
            room.ratings = changes

    def save_columns(self, room: Room, settle: Any = (), *, with_dice: bool = False) -> None:
        """Write ``room``'s changing columns only (with ``settle``'s payments; with
        ``with_dice``, its next match's dice)."""
        self.store.save_room(room.code, room.row(with_dice=with_dice), settle=settle, expected=self.fenced(room))
