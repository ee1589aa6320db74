"""Quick pairing: a player seeks a game (ruleset, house, length, turn time, rated or not, a
rating range) and is paired with the first compatible seeker into a new room, or, after a
wait he chose, with a bot.

Two seeks are compatible when they ask for the same table (ruleset, house, length, turn time,
rated) and each seeker's rating is in the other's range (a rating is the seeker's Glicko-2
rating for the ruleset and kind, 1500 for a guest or a new player; a rated seek needs an
account; one account never meets itself). The older seeker hosts the room (seat 0). A seek
is known to its seeker by its id and a token (``GET``/``DELETE /v1/seeks/{id}`` with the token
as bearer); once paired it gives the room's code and the seeker's seat token.

The seeks are kept in a book (:mod:`~tawla.service.seek_book`): the process's memory, or
Redis when several processes serve the rooms, so that any process pairs, answers and times
any seek. Every process looks at the waiting seeks every :data:`TICK_SECONDS`: a seek whose
wait for a bot is over gets one, a seek waiting for :attr:`Limits.seek_seconds` lapses.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import logging
import math
import secrets
import time
from typing import Any

from ..errors import ConfigError, InvalidAction, LimitExceeded, NotFound, TawlaError, Unauthorized, quote
from .lobby import Lobby
from .rating_tables import account_key, rating_kind
from .rooms import room_options
from .views import levels

__all__ = ["Seeks", "TABLE_FIELDS", "TICK_SECONDS", "view"]

log = logging.getLogger("tawla.service")

TABLE_FIELDS = ("ruleset", "house", "length", "turn_seconds", "rated")
"""What two seeks must agree on (the room's options)."""
TICK_SECONDS = 0.2
"""How often the waiting seeks are looked at (bots offered, seeks lapsed)."""


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def view(rec: dict[str, Any]) -> dict[str, Any]:
    """``GET /v1/seeks/{id}``: ``{"id", "status" ("waiting", "paired", "failed": no room could
    be made or no opponent came, ``detail`` says why; "cancelled"), "detail", "table",
    "rating", "since", "bot_in" (seconds until a bot is offered, or None)}`` and once paired
    ``"room", "room_token" (the seeker's seat token), "seat", "opponent"``."""
    waiting = rec["status"] == "waiting"
    out = {k: rec[k] for k in ("id", "status", "detail", "table", "rating", "since")}
    out["bot_in"] = max(0.0, rec["bot_at"] - time.time()) if waiting and rec["bot_at"] is not None else None
    if rec["paired"]:
        out.update(rec["paired"])
    return out


def compatible(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """Whether seeks ``a`` and ``b`` may be paired."""
    return (a["table"] == b["table"] and a["low"] <= b["rating"] <= a["high"] and b["low"] <= a["rating"] <= b["high"]
            and (a["account"] is None or a["account"] != b["account"]))


class Seeks:
    """The quick pairing of a running service.

    Parameters
    ----------
    lobby : Lobby
        Where the paired seekers' room is made.
    book : MemoryBook or RedisBook
        Where the seeks are kept.
    """

    def __init__(self, lobby: Lobby, book: Any) -> None:
        self.lobby, self.book = lobby, book
        self.limits = lobby.limits

    async def seek(self, body: dict[str, Any], token: str | None, address: str = "") -> dict[str, Any]:
        """``POST /v1/seeks``: pair with a waiting seeker, or wait. ``body``: ``ruleset``,
        ``house``, ``length``, ``turn_seconds`` (omitted: the house's default), ``rated``,
        ``rating_range`` ([low, high], Glicko points; None: any), ``bot_after`` (seconds; None:
        no bot), ``bot_level``, ``name``.

        Returns
        -------
        dict
            The seek's view (:func:`view`) with its ``token``.

        Raises
        ------
        tawla.errors.ConfigError, tawla.errors.UnsupportedRuleset
            A table the house does not offer, a bad range, an unknown bot level.
        tawla.errors.Unauthorized
            A rated seek without an account token, or a token that is not an account's.
        tawla.errors.LimitExceeded
            Too many seeks open, of this address or in all.
        """
        opts = room_options(body["ruleset"], body["house"], body.get("length"), body.get("turn_seconds"),
                            False, 0, None, "turn_seconds" in body, rated=body.get("rated", False))
        table = {k: opts.get(k) for k in TABLE_FIELDS}
        if "turn_seconds" not in opts:
            table["turn_seconds"] = "house"
        low, high = body.get("rating_range") or (0.0, 10_000.0)
        if not (math.isfinite(low) and math.isfinite(high) and low <= high):
            raise ConfigError(f"a rating range is [low, high] with low <= high, not {quote([low, high])}")
        bot, bot_after = body.get("bot_level") or "net0", body.get("bot_after")
        if bot not in levels():
            raise ConfigError(f"a bot's level is one of {', '.join(levels())}, not {quote(bot)}")
        acc = self.lobby.registry.account(token) if token else None
        if table["rated"] and acc is None:
            raise Unauthorized("a rated seek needs an account token")
        rating = (self.lobby.store.rating_of(account_key(acc["id"]), opts["ruleset"], rating_kind(opts["length"]))
                  if acc is not None else 1500.0)
        now, seek_token = time.time(), secrets.token_urlsafe(32)
        rec = {"id": secrets.token_urlsafe(12), "token": _hash(seek_token), "table": table,
               "name": body.get("name") or "Player", "rating": rating, "low": float(low), "high": float(high),
               "account": acc["id"] if acc is not None else None, "address": address,
               "bot": bot if bot_after is not None else None,
               "bot_at": now + bot_after if bot_after is not None else None,
               "expires": now + self.limits.seek_seconds, "since": now, "status": "waiting", "detail": None,
               "paired": None}
        async with self.book.locked():
            waiting = await self.book.waiting()
            if len(waiting) >= self.limits.seeks:
                raise LimitExceeded(f"the server has its {self.limits.seeks} open seeks; try later")
            if sum(1 for x in waiting if x["address"] == address) >= self.limits.seeks_per_address:
                raise LimitExceeded(f"this address has {self.limits.seeks_per_address} open seeks")
            other = next((x for x in waiting if compatible(x, rec)), None)
            if other is None or not await self._pair(other, rec):
                await self.book.put(rec)
        return {**view(rec), "token": seek_token}

    async def get(self, seek_id: str, token: str | None) -> dict[str, Any]:
        """The seek ``seek_id`` of ``token``'s seeker (its record).

        Raises
        ------
        tawla.errors.Unauthorized
            No token, or not the seek's.
        tawla.errors.NotFound
            No such seek (or read long after it ended).
        """
        if not token:
            raise Unauthorized("a seek's token is required")
        rec = await self.book.get(seek_id) if isinstance(seek_id, str) and len(seek_id) <= 64 else None
        if rec is None:
            raise NotFound(f"no seek {quote(seek_id)}")
        if not hmac.compare_digest(rec["token"], _hash(token)):
            raise Unauthorized("not this seek's token")
        return rec

    async def cancel(self, seek_id: str, token: str | None) -> dict[str, Any]:
        """``DELETE /v1/seeks/{id}``: stop waiting; the seek's last view.

        Raises
        ------
        tawla.errors.Unauthorized, tawla.errors.NotFound
            As :meth:`get`.
        tawla.errors.InvalidAction
            The seek is not waiting (paired already: its room is made).
        """
        async with self.book.locked():
            rec = await self.get(seek_id, token)
            if rec["status"] != "waiting":
                where = f": room {rec['paired']['room']}" if rec["paired"] else ""
                raise InvalidAction(f"the seek is {rec['status']} already{where}")
            rec["status"] = "cancelled"
            await self.book.put(rec)
        return view(rec)

    async def _pair(self, host: dict[str, Any], guest: dict[str, Any]) -> bool:
        """Make the room of two seekers (the older hosts); False when it cannot be made: the
        host's seek fails, saying why, when his room cannot be made; when the guest cannot sit
        down the room is closed and the host's seek waits on."""
        made = None
        try:
            made = self.lobby.create_room(self._room_body(host), None, host["address"], account_id=host["account"])
            joined = await self.lobby.join(made["code"], guest["name"], None, account_id=guest["account"])
        except TawlaError as e:
            if made is not None:  # the guest could not sit down: the host's seek goes on waiting
                await self.lobby.abandon(made["code"])
                return False
            await self._fail(host, e)
            return False
        host.update(status="paired", paired={"room": made["code"], "room_token": made["token"], "seat": 0,
                                             "opponent": guest["name"]})
        guest.update(status="paired", paired={"room": made["code"], "room_token": joined["token"], "seat": 1,
                                              "opponent": host["name"]})
        await self.book.put(host)
        await self.book.put(guest)
        return True

    async def _fail(self, rec: dict[str, Any], e: Exception | str) -> None:
        rec.update(status="failed", detail=e if isinstance(e, str) else f"{type(e).__name__}: {e}")
        await self.book.put(rec)

    @staticmethod
    def _room_body(rec: dict[str, Any]) -> dict[str, Any]:
        body = {k: v for k, v in rec["table"].items() if k != "turn_seconds"}
        if rec["table"]["turn_seconds"] != "house":
            body["turn_seconds"] = rec["table"]["turn_seconds"]
        return {**body, "name": rec["name"], "public": False, "stake": 0}

    async def run_forever(self) -> None:
        """Every :data:`TICK_SECONDS`: offer their bot to the seeks whose wait is over, lapse
        those that waited :attr:`Limits.seek_seconds`."""
        while True:
            await asyncio.sleep(TICK_SECONDS)
            try:
                await self.tick(time.time())
            except Exception as e:  # the book away (Redis): the next tick tries again
                log.warning("quick pairing: %s", e)

    async def tick(self, now: float) -> None:
        """One look at the waiting seeks at ``now`` (seconds since the epoch)."""
        async with self.book.locked():
            for rec in await self.book.waiting():
                if rec["expires"] <= now:
                    await self._fail(rec, f"no opponent came within {self.limits.seek_seconds:g} s")
                elif rec["bot_at"] is not None and rec["bot_at"] <= now:
                    await self._bot(rec)

    async def _bot(self, rec: dict[str, Any]) -> None:
        made = None
        try:
            made = self.lobby.create_room(self._room_body(rec), None, rec["address"], account_id=rec["account"])
            await self.lobby.add_bot(made["code"], made["token"], rec["bot"] or "net0")
        except TawlaError as e:
            if made is not None:
                await self.lobby.abandon(made["code"])
            await self._fail(rec, e)
            return
        rec.update(status="paired", paired={"room": made["code"], "room_token": made["token"], "seat": 0,
                                            "opponent": f"Bot ({rec['bot']})"})
        await self.book.put(rec)
