"""Where a room's bot acts: its decision (:func:`tawla.bots.policies.bot_action`: doubles,
takes, drops, resignations and moves at the match's score) is worked out in a thread pool,
off the event loop, then applied and written like a player's action unless the room changed
meanwhile (a timeout). What a bot decides lives in :mod:`tawla.bots.policies`; this module
only drives it.
"""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
from typing import Callable

from ..bots.policies import MatchView, bot_action
from ..rules.match_play import Phase
from .rooms import Room
from .tasks import TaskSet
from .views import bot_for
from .writes import RoomWrites

__all__ = ["BotDriver", "MAX_BOT_ACTIONS"]

MAX_BOT_ACTIONS = 64
"""The most actions a bot makes in a row before yielding to a new task."""


class BotDriver:
    """The bots of a service's rooms.

    Parameters
    ----------
    writes : RoomWrites
        Where a bot's action is written.
    pool : ThreadPoolExecutor
        Where the bots' searches run.
    tasks : TaskSet
        Where a bot's task runs.
    acted : callable
        Called with the room after each of the bot's actions (sends the state, arms the timer).
    """

    def __init__(self, writes: RoomWrites, pool: ThreadPoolExecutor, tasks: TaskSet,
                 acted: Callable[[Room], None]) -> None:
        self.writes, self.pool, self.tasks, self.acted = writes, pool, tasks, acted

    def wake(self, room: Room) -> None:
        """Start ``room``'s bot when it is to act and not already thinking."""
        m = room.match
        bot = room.bot_seat()
        if (m is not None and bot is not None and m.phase != Phase.OVER and m.to_act == bot
                and (room.bot_task is None or room.bot_task.done())):
            room.bot_task = self.tasks.spawn(self.play(room))

    async def play(self, room: Room) -> None:
        """The bot of ``room`` acts while it is to act (at most :data:`MAX_BOT_ACTIONS` times)."""
        loop = asyncio.get_running_loop()
        for _ in range(MAX_BOT_ACTIONS):
            async with room.lock:
                m, seat = room.match, room.bot_seat()
                if m is None or seat is None or m.phase == Phase.OVER or m.to_act != seat:
                    return
                level = room.seat(seat).bot or "net0"  # type: ignore[union-attr]
                version, view = room.version, MatchView.of(m)
            name, move = await loop.run_in_executor(self.pool, lambda: bot_action(bot_for(view.ruleset, level), view))
            async with room.lock:
                if room.version != version or room.match is not m:  # a timeout played (or was undone) meanwhile
                    continue
                if name == "move":
                    self.writes.commit(room, lambda: m.play(seat, move))
                else:
                    call = {"roll": m.roll, "double": m.double, "take": m.take, "drop": m.drop,
                            "accept": m.accept_resignation, "reject": m.reject_resignation}[name]
                    self.writes.commit(room, lambda: call(seat))
            self.acted(room)
