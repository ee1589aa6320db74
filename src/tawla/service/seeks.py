"""Quick pairing: a player seeks a game (ruleset, house, length, turn time, rated or not, a
rating range) and is paired with the first compatible seeker into a new room, or, after a
wait he chose, with a bot.

Two seeks are compatible when they ask for the same table (ruleset, house, length, turn time,
rated) and each seeker's rating is in the other's range (a rating is the seeker's Glicko-2
rating for the ruleset and kind, 1500 for a guest or a new player; a rated seek needs an
account). The older seeker hosts the room (seat 0). A seek is known to its seeker by its id
and a token (``GET``/``DELETE /v1/seeks/{id}`` with the token as bearer); once paired it
gives the room's code and the seeker's seat token. Seeks live in the process's memory: a
restart drops those still waiting (the rooms they made are stored like any other), and a
service of several processes refuses them (a seeker would be seen by one process only).
"""

from __future__ import annotations

import asyncio
import hmac
import math
import secrets
import time
from dataclasses import dataclass, field
from typing import Any

from ..errors import ConfigError, InvalidAction, LimitExceeded, NotFound, TawlaError, Unauthorized, quote
from .lobby import Lobby
from .rating_tables import account_key, rating_kind
from .rooms import room_options
from .tasks import TaskSet
from .views import levels

__all__ = ["Seek", "Seeks"]

TABLE_FIELDS = ("ruleset", "house", "length", "turn_seconds", "rated")
"""What two seeks must agree on (the room's options)."""


@dataclass
class Seek:
    """A player waiting to be paired."""

    id: str
    token: str
    table: dict[str, Any]  # TABLE_FIELDS, checked as a room's options
    name: str
    rating: float
    low: float
    high: float
    account_token: str | None
    address: str
    bot: str | None
    bot_at: float | None  # time.monotonic() when a bot is offered
    expires: float  # time.monotonic() when the seek lapses
    since: float = field(default_factory=time.time)
    paired: dict[str, Any] | None = None  # {"room", "room_token", "seat", "opponent"}
    failed: str | None = None  # why no room could be made (the seek is over)
    timer: asyncio.Task | None = None

    def view(self) -> dict[str, Any]:
        """``GET /v1/seeks/{id}``: ``{"id", "status" ("waiting", "paired", or "failed": no
        room could be made, ``detail`` says why), "detail", "table", "rating", "since",
        "bot_in" (seconds until a bot is offered, or None)}`` and once paired ``"room",
        "room_token" (the seeker's seat token), "seat", "opponent"``."""
        status = "paired" if self.paired else ("failed" if self.failed else "waiting")
        out: dict[str, Any] = {"id": self.id, "status": status, "detail": self.failed,
                               "table": dict(self.table), "rating": self.rating, "since": self.since,
                               "bot_in": (None if self.bot_at is None or self.paired
                                          else max(0.0, self.bot_at - time.monotonic()))}
        if self.paired:
            out.update(self.paired)
        return out

    def accepts(self, other: "Seek") -> bool:
        """Whether ``other`` may be paired with this seek."""
        return (other.table == self.table and self.low <= other.rating <= self.high
                and other.low <= self.rating <= other.high
                and (self.account_token is None or other.account_token != self.account_token))


class Seeks:
    """The seeks of a running service.

    Parameters
    ----------
    lobby : Lobby
        Where the paired seekers' room is made.
    tasks : TaskSet
        Where a seek's timer (the bot's offer, the lapse) runs.
    """

    def __init__(self, lobby: Lobby, tasks: TaskSet) -> None:
        self.lobby, self.tasks = lobby, tasks
        self.limits = lobby.limits
        self.waiting: dict[str, Seek] = {}
        self.paired: dict[str, Seek] = {}  # paired or failed, kept for their seekers (the last `seeks`)
        self.lock = asyncio.Lock()

    async def seek(self, body: dict[str, Any], token: str | None, address: str = "") -> dict[str, Any]:
        """``POST /v1/seeks``: pair with a waiting seeker, or wait. ``body``: ``ruleset``,
        ``house``, ``length``, ``turn_seconds`` (omitted: the house's default), ``rated``,
        ``rating_range`` ([low, high], Glicko points; None: any), ``bot_after`` (seconds; None:
        no bot), ``bot_level``, ``name``.

        Returns
        -------
        dict
            The seek's view (:meth:`Seek.view`) with its ``token``.

        Raises
        ------
        tawla.errors.ConfigError, tawla.errors.UnsupportedRuleset
            A table the house does not offer, a bad range, an unknown bot level.
        tawla.errors.Unauthorized
            A rated seek without an account token, or a token that is not an account's.
        tawla.errors.LimitExceeded
            Too many seeks open, of this address or in all.
        tawla.errors.InvalidAction
            The service runs on several processes (seeks are kept by one).
        """
        if self.lobby.registry.shared:
            raise InvalidAction("quick pairing is served by a service of one process; here, make or join a room")
        opts = room_options(body["ruleset"], body["house"], body.get("length"), body.get("turn_seconds"),
                            False, 0, None, "turn_seconds" in body, rated=body.get("rated", False))
        table = {k: opts.get(k) for k in TABLE_FIELDS}
        if "turn_seconds" not in opts:
            table["turn_seconds"] = "house"
        low, high = body.get("rating_range") or (0.0, 10_000.0)
        if not (math.isfinite(low) and math.isfinite(high) and low <= high):
            raise ConfigError(f"a rating range is [low, high] with low <= high, not {quote([low, high])}")
        bot, bot_after = body.get("bot_level") or "ply0", body.get("bot_after")
        if bot not in levels():
            raise ConfigError(f"a bot's level is one of {', '.join(levels())}, not {quote(bot)}")
        acc = self.lobby.registry.account(token) if token else None
        if table["rated"] and acc is None:
            raise Unauthorized("a rated seek needs an account token")
        rating = (self.lobby.store.rating_of(account_key(acc["id"]), opts["ruleset"], rating_kind(opts["length"]))
                  if acc is not None else 1500.0)
        now = time.monotonic()
        s = Seek(id=secrets.token_urlsafe(12), token=secrets.token_urlsafe(32), table=table,
                 name=body.get("name") or "Player", rating=rating, low=float(low), high=float(high),
                 account_token=token if acc is not None else None, address=address,
                 bot=bot if bot_after is not None else None,
                 bot_at=now + bot_after if bot_after is not None else None,
                 expires=now + self.limits.seek_seconds)
        async with self.lock:
            if len(self.waiting) >= self.limits.seeks:
                raise LimitExceeded(f"the server has its {self.limits.seeks} open seeks; try later")
            if sum(1 for x in self.waiting.values() if x.address == address) >= self.limits.seeks_per_address:
                raise LimitExceeded(f"this address has {self.limits.seeks_per_address} open seeks")
            other = next((x for x in sorted(self.waiting.values(), key=lambda x: x.since) if x.accepts(s)), None)
            if other is not None and await self._pair(other, s):
                pass
            else:
                self.waiting[s.id] = s
                s.timer = self.tasks.spawn(self._wait(s))
        return {**s.view(), "token": s.token}

    def get(self, seek_id: str, token: str | None) -> Seek:
        """The seek ``seek_id`` of ``token``'s seeker.

        Raises
        ------
        tawla.errors.Unauthorized
            No token, or not the seek's.
        tawla.errors.NotFound
            No such seek (cancelled, lapsed, or read after pairing long ago).
        """
        if not token:
            raise Unauthorized("a seek's token is required")
        s = self.waiting.get(seek_id) or self.paired.get(seek_id)
        if s is None:
            raise NotFound(f"no seek {quote(seek_id)}")
        if not hmac.compare_digest(s.token, token):
            raise Unauthorized("not this seek's token")
        return s

    async def cancel(self, seek_id: str, token: str | None) -> dict[str, Any]:
        """``DELETE /v1/seeks/{id}``: stop waiting; the seek's last view.

        Raises
        ------
        tawla.errors.Unauthorized, tawla.errors.NotFound
            As :meth:`get`.
        tawla.errors.InvalidAction
            The seek is paired already (its room is made).
        """
        async with self.lock:
            s = self.get(seek_id, token)
            if s.paired:
                raise InvalidAction(f"the seek is paired already: room {s.paired['room']}")
            self._drop(s)
        return {**s.view(), "status": "cancelled"}

    def _drop(self, s: Seek) -> None:
        self.waiting.pop(s.id, None)
        if s.timer is not None and s.timer is not asyncio.current_task():
            s.timer.cancel()

    def _keep_paired(self, *seeks: Seek) -> None:
        for s in seeks:
            self._drop(s)
            self.paired[s.id] = s
        while len(self.paired) > self.limits.seeks:
            self.paired.pop(next(iter(self.paired)))

    async def _pair(self, host: Seek, guest: Seek) -> bool:
        """Make the room of two seekers (the older hosts); False when it cannot be made: the
        host's seek fails, saying why, when his room cannot be made; when the guest cannot sit
        down the room is closed and the host's seek waits on."""
        made = None
        try:
            made = self.lobby.create_room(self._room_body(host), host.account_token, host.address)
            joined = await self.lobby.join(made["code"], guest.name, guest.account_token)
        except TawlaError as e:
            if made is not None:  # the guest could not sit down: the host's seek goes on waiting
                await self.lobby.abandon(made["code"])
                return False
            self._fail(host, e)
            return False
        host.paired = {"room": made["code"], "room_token": made["token"], "seat": 0, "opponent": guest.name}
        guest.paired = {"room": made["code"], "room_token": joined["token"], "seat": 1, "opponent": host.name}
        self._keep_paired(host, guest)
        return True

    def _fail(self, s: Seek, e: TawlaError) -> None:
        s.failed = f"{type(e).__name__}: {e}"
        self._keep_paired(s)

    def _room_body(self, s: Seek) -> dict[str, Any]:
        body = {k: v for k, v in s.table.items() if k != "turn_seconds"}
        if s.table["turn_seconds"] != "house":
            body["turn_seconds"] = s.table["turn_seconds"]
        return {**body, "name": s.name, "public": False, "stake": 0}

    async def _wait(self, s: Seek) -> None:
        """A seek's timer: a bot at ``bot_at``, or the lapse at ``expires``."""
        due = s.bot_at if s.bot_at is not None and s.bot_at < s.expires else s.expires
        await asyncio.sleep(max(0.0, due - time.monotonic()))
        async with self.lock:
            if s.id not in self.waiting:
                return
            if due == s.expires:
                self._drop(s)
                return
            made = None
            try:
                made = self.lobby.create_room(self._room_body(s), s.account_token, s.address)
                token = made["token"]
                await self.lobby.add_bot(made["code"], token, s.bot or "ply0")
            except TawlaError as e:
                if made is not None:
                    await self.lobby.abandon(made["code"])
                self._fail(s, e)
                return
            s.paired = {"room": made["code"], "room_token": token, "seat": 0, "opponent": f"Bot ({s.bot})"}
            self._keep_paired(s)
