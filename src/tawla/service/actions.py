"""A seat's actions in its room: an engine action (roll, step, undo, confirm, move, double,
take, drop, resign, accept, reject, leave), the host leaving a room before its match starts,
and the rematch.

Each is applied under the room's lock and written through :meth:`RoomWrites.commit` (the
engine applies it whole or not at all; a failed write puts the room back); only then is it
acknowledged and the new state sent to the room's sockets.
"""

from __future__ import annotations

from typing import Any, Callable

from ..errors import Forbidden, InvalidAction, quote
from .metrics import Metrics
from .registry import RoomRegistry
from .rooms import Member, Room
from .settlement import host_refund
from .status import RoomStatus
from .writes import RoomWrites

__all__ = ["RoomActions", "ACTIONS"]

ACTIONS = ("roll", "step", "undo", "confirm", "move", "double", "take", "drop", "resign", "accept", "reject",
           "leave")
"""The actions of ``POST /v1/rooms/{code}/actions`` and of the room's socket."""


def engine_call(room: Room, seat: int, name: str, body: dict[str, Any]) -> Callable[[], Any]:
    """The engine's call for action ``name`` of ``seat`` with the request's ``body``
    (checked enough for the engine to read it; the engine checks the rest).

    Raises
    ------
    tawla.errors.InvalidAction
        No match yet, or a move that is not text.
    """
    m = room.match
    if m is None:
        raise InvalidAction("the match has not started: waiting for a player")
    if name == "step":
        dice = body.get("dice")
        dice = tuple(dice) if isinstance(dice, list) else dice
        return lambda: m.step(seat, body.get("from"), body.get("to"), dice)
    if name == "move":
        text = body.get("move")
        if not isinstance(text, str):
            raise InvalidAction(f"a move is move text, not {quote(text)}")
        return lambda: m.play(seat, text)
    if name == "resign":
        kind = body.get("kind") or "single"
        return lambda: m.resign(seat, kind)
    method = {"accept": m.accept_resignation, "reject": m.reject_resignation}.get(name) or getattr(m, name)
    return lambda: method(seat)


class RoomActions:
    """The seats' actions.

    Parameters
    ----------
    registry : RoomRegistry
    writes : RoomWrites
    metrics : Metrics
        Where each action and its time is counted.
    after : callable
        Called with the room after a change (sends the state, arms the timer, wakes the bot).
    """

    def __init__(self, registry: RoomRegistry, writes: RoomWrites, metrics: Metrics,
                 after: Callable[[Room], None]) -> None:
        self.registry, self.writes, self.metrics, self.after = registry, writes, metrics, after

    async def act(self, code: str, token: str | None, body: dict[str, Any]) -> tuple[Member, Room]:
        """``POST /v1/rooms/{code}/actions``: apply one action of the token's seat and write it;
        the member who acted (whose view of the room's state the route answers) and the room
        (out of memory already when the action closed it).

        Raises
        ------
        tawla.errors.Unauthorized, tawla.errors.Forbidden, tawla.errors.NotFound
        tawla.errors.NotYourTurn, tawla.errors.InvalidAction, tawla.errors.IllegalMove,
        tawla.errors.AmbiguousMove
            What the engine refuses (nothing is written).
        """
        mem = self.registry.member(code, token)
        room = self.registry.room(code, fresh=False)  # read again under its lock
        seat = mem.seat
        if seat is None:
            raise Forbidden("a spectator has no seat to act from")
        name = body.get("action")
        if name not in ACTIONS:
            raise InvalidAction(f"an action is one of {', '.join(ACTIONS)}, not {quote(name)}")
        with self.metrics.action(name):
            async with room.lock:
                if name == "leave" and room.match is None:
                    self._close(room, mem)
                else:
                    self.writes.commit(room, engine_call(room, seat, name, body))
                    room.idle_timeouts = 0
        if room.status == RoomStatus.CLOSED:
            self.registry.evict(room)
        self.after(room)
        return mem, room

    def _close(self, room: Room, mem: Member) -> None:
        """The host leaves a waiting room: it closes and his stake comes back."""
        if mem.seat != 0 or room.status != RoomStatus.WAITING:
            raise InvalidAction("nothing to leave: the match has not started")
        settle = host_refund(room, mem)

        def write(r: Room) -> None:
            self.writes.save_columns(r, settle)
            r.escrow = 0

        self.writes.commit(room, lambda: setattr(room, "status", RoomStatus.CLOSED), write)

    async def rematch(self, code: str, token: str | None) -> dict[str, Any]:
        """``POST /v1/rooms/{code}/rematch``: the seat asks for another match; when both have
        (a bot always does) it starts, a coin table taking both stakes again.

        Raises
        ------
        tawla.errors.Forbidden
            A spectator.
        tawla.errors.InvalidAction
            The match is not over, or a balance below the stake (the request is then dropped).
        """
        mem = self.registry.member(code, token)
        room = self.registry.room(code, fresh=False)  # read again under its lock
        if mem.seat is None:
            raise Forbidden("a spectator has no seat to ask from")
        async with room.lock:
            if room.status != RoomStatus.OVER:
                raise InvalidAction("a rematch follows a match that is over")
            wish = room.rematch | {mem.seat} | ({room.bot_seat()} - {None})
            if wish != {0, 1}:
                self.writes.commit(room, lambda: setattr(room, "rematch", wish), self.writes.save_columns)
            else:
                stakes = tuple((x.account, room.stake) for x in room.members
                               if x.seat is not None and x.account is not None and room.stake)
                try:
                    self.writes.commit(room, room.start_match,
                                       lambda r: self.writes.save(r, stakes=stakes, new_match=True))
                except BaseException:
                    room.rematch = set()
                    raise
        self.after(room)
        return room.state(mem, with_match=False)
