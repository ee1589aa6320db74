"""The statuses of a room (:class:`RoomStatus`), as the database, the metrics and the room's
state write them."""

from __future__ import annotations

from enum import StrEnum

__all__ = ["RoomStatus"]


class RoomStatus(StrEnum):
    """What a room is doing. A ``str``: each member equals its value
    (``RoomStatus.OVER == "over"``) and is written as it in JSON and in the database."""

    WAITING = "waiting"  # for seat 1
    PLAYING = "playing"
    OVER = "over"  # the match ended; a rematch starts another
    CLOSED = "closed"  # the host left before the match started
