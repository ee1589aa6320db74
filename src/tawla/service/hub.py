"""The rooms of a running service: creating, joining, actions, timers, bots, sockets, coins.

Every change to a room is made under the room's :class:`asyncio.Lock`: the engine applies
the action (whole or not at all), the room is written to the database (one short
transaction, with its ledger movements), and only then is the action acknowledged and the
new state sent to the room's sockets. If the write fails the match is rebuilt from the last
record written, so memory never runs ahead of the database.

A write appends the action's events to the ``events`` table and updates the room's few
changing columns; the match's document is written once, when the match starts, so an
action costs its own events, whatever the length of the log.

Timers and bots are :mod:`~tawla.service.tasks`; at start the rooms are loaded and a
deadline that passed while the server was down fires at once. What one client address may
create, and the spectators of a room, are bounded by :class:`~tawla.service.limits.Limits`;
a closed room, and a finished one left alone, leaves memory and its tokens expire.
"""

from __future__ import annotations

import asyncio
import json
import logging
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable

from ..errors import (ConfigError, Forbidden, InvalidAction, LimitExceeded, NotFound, TawlaError, Unauthorized,
                      quote)
from .limits import AddressWindow, Limits
from .metrics import Metrics
from .rooms import Member, Room, new_code, new_token, room_options
from .store import STARTING_BALANCE, Store, hash_token
from .tasks import RoomTasks
from .views import levels

__all__ = ["Hub", "ACTIONS"]

log = logging.getLogger("tawla.service")

ACTIONS = ("roll", "step", "undo", "confirm", "move", "double", "take", "drop", "resign", "accept", "reject",
           "leave")
"""The actions of ``POST /v1/rooms/{code}/actions`` and of the room's socket."""


class Hub(RoomTasks):
    """The service's rooms, in memory and in the :class:`~tawla.service.store.Store`.

    Parameters
    ----------
    store : Store
    bot_threads : int
        Threads of the pool that runs the bots' searches.
    limits : Limits, optional
        What one client may cost (default :class:`Limits`).
    metrics : Metrics, optional
        Where actions, rooms and sockets are counted.
    """

    def __init__(self, store: Store, bot_threads: int = 2, limits: Limits | None = None,
                 metrics: Metrics | None = None) -> None:
        self.store = store
        self.limits = limits or Limits()
        self.metrics = metrics or Metrics()
        self.rooms: dict[str, Room] = {}
        self.tokens: dict[str, Member] = {}  # sha256 hex -> member
        self.pool = ThreadPoolExecutor(max_workers=bot_threads, thread_name_prefix="tawla-bot")
        self._tasks: set[asyncio.Task] = set()
        w = self.limits.window_seconds
        self.created_rooms, self.created_accounts, self.issued_coins = (AddressWindow(w), AddressWindow(w),
                                                                        AddressWindow(w))

    # ---------------------------------------------------------------- start and stop
    async def start(self) -> None:
        """Load every open room from the database, arm its timer (a deadline already passed
        fires at once) and let its bot play. A room whose stored match does not replay is
        logged and left out (its tokens then get 401)."""
        for row in self.store.load():
            room = Room(code=row["code"], options=json.loads(row["options"]), status=row["status"],
                        match_no=row["match_no"], escrow=row["escrow"], rematch=set(json.loads(row["rematch"])))
            for m in row["members"]:
                room.members.append(Member(room.code, m["seat"], m["name"], m["token"], m["account"], m["bot"]))
            if row["match"] is not None:
                try:
                    room.restore(row["match"], row["events"])
                except TawlaError as e:  # one unreadable record keeps its room shut, not the service
                    log.error("room %s is not resumed: its match does not replay: %s", room.code, e)
                    continue
            # a restart is a change: the version goes on from the one written (older databases:
            # from at least the number of changes made before)
            stored = row.get("version")
            room.version = 1 + (stored if stored is not None else
                                (room.match.event_count if room.match is not None else 0))
            self.rooms[room.code] = room
            for mem in room.members:
                if mem.token is not None:
                    self.tokens[mem.token] = mem
            self._after(room)
        self._spawn(self.sweep_forever())

    async def stop(self) -> None:
        """Cancel the timers and bot tasks, stop the bot pool."""
        for room in self.rooms.values():
            for t in (room.timer, room.bot_task):
                if t is not None:
                    t.cancel()
        for t in list(self._tasks):
            t.cancel()
        self.pool.shutdown(wait=False, cancel_futures=True)

    # ---------------------------------------------------------------- tokens
    def member(self, code: str, token: str | None) -> Member:
        """The member of room ``code`` whose bearer token is ``token``. The token is checked
        before the room, so that a request without a valid token learns nothing of which
        rooms exist.

        Raises
        ------
        tawla.errors.Unauthorized
            No token, or one the service does not know (or no longer: a closed room's).
        tawla.errors.Forbidden
            A token of another room, or an account's, whether or not room ``code`` exists.
        """
        if not token:
            raise Unauthorized("a bearer token is required")
        h = hash_token(token)
        mem = self.tokens.get(h)
        if mem is None:
            if self.store.account_by_token(token) is not None:
                raise Forbidden("an account token has no seat in a room: use the token of the seat")
            raise Unauthorized("unknown token")
        if not isinstance(code, str) or mem.room != code.upper() or mem.room not in self.rooms:
            raise Forbidden(f"this token has no seat in room {quote(code)}")
        return mem

    def account(self, token: str | None) -> dict:
        """The account of a bearer token.

        Raises
        ------
        tawla.errors.Unauthorized
            No token, or not an account's.
        """
        if not token:
            raise Unauthorized("an account token is required")
        acc = self.store.account_by_token(token)
        if acc is None:
            raise Unauthorized("unknown account token")
        return acc

    def room(self, code: str) -> Room:
        """The room ``code`` (case-insensitive).

        Raises
        ------
        tawla.errors.NotFound
        """
        room = self.rooms.get(code.upper()) if isinstance(code, str) else None
        if room is None:
            raise NotFound(f"no room {quote(code)}")
        return room

    # ---------------------------------------------------------------- accounts
    def create_account(self, name: str, house: str, address: str = "") -> dict:
        """A new account: ``{"account": {...}, "token"}``.

        Raises
        ------
        tawla.errors.ConfigError
            An unknown house.
        tawla.errors.LimitExceeded
            ``address`` has made :attr:`Limits.accounts_per_window` accounts, or been issued
            :attr:`Limits.coins_per_window` starting coins, within the window.
        """
        from ..match import HOUSE_NAMES
        if house not in HOUSE_NAMES:
            raise ConfigError(f"unknown house {quote(house)}; known: {', '.join(HOUSE_NAMES)}")
        coins = STARTING_BALANCE.get(house, 1000)
        if self.issued_coins.used(address) + coins > self.limits.coins_per_window:
            raise LimitExceeded(f"this address has been issued its {self.limits.coins_per_window} starting coins "
                                f"for now (a window of {self.limits.window_seconds:g} s); try later")
        self.created_accounts.take(address, self.limits.accounts_per_window, what="accounts")
        self.issued_coins.take(address, self.limits.coins_per_window, coins, what="starting coins")
        token = new_token()
        acc = self.store.create_account(name, house, token)
        return {"account": acc, "token": token}

    # ---------------------------------------------------------------- rooms
    def create_room(self, body: dict[str, Any], token: str | None, address: str = "") -> dict:
        """``POST /v1/rooms``: a waiting room with the host in seat 0: ``{code, token, seat}``.

        Raises
        ------
        tawla.errors.ConfigError, tawla.errors.UnsupportedRuleset
            Options the house does not allow.
        tawla.errors.Unauthorized
            A stake without an account token.
        tawla.errors.InvalidAction
            A balance below the stake.
        tawla.errors.LimitExceeded
            ``address`` has made :attr:`Limits.rooms_per_window` rooms within the window.
        """
        opts = room_options(body["ruleset"], body["house"], body.get("length"), body.get("turn_seconds"),
                            body.get("public", False), body.get("stake", 0), body.get("grace_seconds"),
                            "turn_seconds" in body, grace_floor=self.limits.grace_floor_of)
        account = self.account(token)["id"] if opts["stake"] else None
        self.created_rooms.take(address, self.limits.rooms_per_window, what="rooms")
        code = new_code()
        while code in self.rooms:
            code = new_code()
        seat_token = new_token()
        host = Member(code, 0, body.get("name") or "Player 1", hash_token(seat_token), account)
        self.store.create_room(code, opts, {"seat": 0, "name": host.name, "token": seat_token, "account": account})
        room = Room(code=code, options=opts, members=[host], escrow=opts["stake"] if account is not None else 0)
        self.rooms[code] = room
        self.tokens[host.token] = host  # type: ignore[index]
        return {"code": code, "token": seat_token, "seat": 0}

    async def join(self, code: str, name: str | None, token: str | None) -> dict:
        """``POST /v1/rooms/{code}/join``: seat 1 (the match starts), or a spectator's token
        when the room is full: ``{token, seat, table}`` (seat None for a spectator; ``table``
        the room's options as ``GET /v1/tables`` lists them: stake, grace period, timers).

        Raises
        ------
        tawla.errors.NotFound
        tawla.errors.Unauthorized
            A coin table without an account token.
        tawla.errors.InvalidAction
            A balance below the stake, or the account that is already seated.
        tawla.errors.LimitExceeded
            The room has its :attr:`Limits.spectators` spectators.
        """
        room = self.room(code)
        async with room.lock:
            seat_token = new_token()
            if room.status != "waiting" or room.seat(1) is not None:
                if sum(1 for x in room.members if x.seat is None) >= self.limits.spectators:
                    raise LimitExceeded(f"room {room.code} has its {self.limits.spectators} spectators")
                mem = Member(room.code, None, name or "Spectator", hash_token(seat_token))
                self.store.add_member(room.code, {"seat": None, "name": mem.name, "token": seat_token},
                                      room={"version": room.version + 1})
                room.members.append(mem)
            else:
                account = None
                if room.stake:
                    account = self.account(token)["id"]
                    if any(m.account == account for m in room.members):
                        raise InvalidAction("this account already has the other seat")
                mem = Member(room.code, 1, name or "Player 2", hash_token(seat_token), account)
                self._seat_and_start(room, mem, seat_token)
            self.tokens[mem.token] = mem  # type: ignore[index]
            room.version += 1
        self._after(room)
        return {"token": seat_token, "seat": mem.seat, "table": room.table_entry()}

    def _seat_and_start(self, room: Room, mem: Member, token: str | None) -> None:
        """Seat 1 taken (a player or a bot): start the match and write both in one transaction."""
        room.members.append(mem)
        try:
            room.start_match()
            self.store.add_member(room.code, {"seat": 1, "name": mem.name, "token": token, "account": mem.account,
                                              "bot": mem.bot},
                                  stake=room.stake if mem.account is not None else 0,
                                  room={**room.row(with_match=True), "version": room.version + 1})
        except BaseException:
            room.members.remove(mem)
            room.match, room.match_json, room.status = None, None, "waiting"
            room.match_no -= 1
            raise
        if mem.account is not None:
            room.escrow += room.stake

    async def add_bot(self, code: str, token: str | None, level: str) -> dict:
        """``POST /v1/rooms/{code}/bots``: a bot of ``level`` takes seat 1 (host only).

        Raises
        ------
        tawla.errors.Forbidden
            Not the host's token.
        tawla.errors.ConfigError
            An unknown level.
        tawla.errors.InvalidAction
            Seat 1 is taken, or a coin table (bots play for no coins).
        """
        mem = self.member(code, token)
        room = self.room(code)
        if mem.seat != 0:
            raise Forbidden("only the host adds a bot")
        if level not in levels():
            raise ConfigError(f"a bot's level is one of {', '.join(levels())}, not {quote(level)}")
        async with room.lock:
            if room.stake:
                raise InvalidAction("bots do not play on coin tables")
            if room.status != "waiting" or room.seat(1) is not None:
                raise InvalidAction("seat 1 is taken")
            self._seat_and_start(room, Member(room.code, 1, f"Bot ({level})", None, bot=level), None)
            room.version += 1
        self._after(room)
        return {"seat": 1, "level": level}

    # ---------------------------------------------------------------- actions
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
        mem = self.member(code, token)
        room = self.room(code)
        if mem.seat is None:
            raise Forbidden("a spectator has no seat to act from")
        name = body.get("action")
        if name not in ACTIONS:
            raise InvalidAction(f"an action is one of {', '.join(ACTIONS)}, not {quote(name)}")
        with self.metrics.action(name):
            async with room.lock:
                if name == "leave" and room.match is None:
                    self._close(room, mem)
                else:
                    self._apply(room, self._engine_call(room, mem.seat, name, body))
                    room.idle_timeouts = 0
        if room.status == "closed":
            self.evict(room)
        self._after(room)
        return mem, room

    def _engine_call(self, room: Room, seat: int, name: str, body: dict[str, Any]) -> Callable[[], Any]:
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

    def _apply(self, room: Room, call: Callable[[], Any]) -> None:
        """Under the room's lock: the engine's action, then the write (undone if it fails)."""
        call()
        room.version += 1
        self._save(room)

    def _save(self, room: Room, stakes: tuple = (), *, new_match: bool = False) -> None:
        """Write the room: its changing columns and the match's new events (with
        ``new_match``, the match's document at its start); at the end of a coin table's match,
        its payments. On failure rebuild the match from what was written, and raise."""
        m = room.match
        old = room.status, room.escrow
        settle: list[tuple] = []
        if m is not None and m.phase == "over":
            room.status = "over"
            settle = self._settlement(room)
        log_rows = [] if new_match else room.unsaved_events()
        try:
            self.store.save_room(room.code, room.row(with_match=new_match), settle=settle, stakes=stakes,
                                 log=log_rows)
        except BaseException:
            room.status, room.escrow = old
            if not new_match:
                room.rebuild()
            raise
        room.saved_events += len(log_rows)
        room.escrow -= sum(a for _, a, _ in settle)

    def _settlement(self, room: Room) -> list[tuple]:
        """The payments out of a room's escrow at the end of its match: the prize and the rake
        (the payout of the engine), or the stakes back when there is no winner."""
        if room.escrow <= 0:
            return []
        m = room.match
        pay = m.payout if m is not None else None
        accounts = {x.seat: x.account for x in room.members if x.seat is not None}
        if pay is not None and accounts.get(pay["winner"]) is not None and pay["pot"] == room.escrow:
            return [(accounts[pay["winner"]], pay["prize"], "prize"), (None, pay["fee"], "rake")]
        return [(a, room.stake, "refund") for a in accounts.values() if a is not None][: room.escrow // max(room.stake, 1)]

    def _close(self, room: Room, mem: Member) -> None:
        """The host leaves a waiting room: it closes and his stake comes back."""
        if mem.seat != 0 or room.status != "waiting":
            raise InvalidAction("nothing to leave: the match has not started")
        settle = [(mem.account, room.escrow, "refund")] if room.escrow and mem.account is not None else []
        room.status = "closed"
        room.version += 1
        try:
            self.store.save_room(room.code, room.row(), settle=settle)
        except BaseException:
            room.status = "waiting"
            raise
        room.escrow = 0

    def evict(self, room: Room) -> None:
        """Take a room out of memory: its tokens expire, its tasks stop, its sockets are closed
        (what the database holds stays)."""
        if self.rooms.get(room.code) is not room:
            return
        del self.rooms[room.code]
        for x in room.members:
            token = x.token
            if token is not None and self.tokens.get(token) is x:
                del self.tokens[token]
        for t in (room.timer, room.bot_task):
            if t is not None and t is not asyncio.current_task():
                t.cancel()
        for q in list(room.sockets):
            close = getattr(q, "close", None)
            if close is not None:
                close("the room is closed")

    async def rematch(self, code: str, token: str | None) -> dict:
        """``POST /v1/rooms/{code}/rematch``: the seat asks for another match; when both have
        (a bot always does) it starts, a coin table taking both stakes again.

        Raises
        ------
        tawla.errors.Forbidden
            A spectator.
        tawla.errors.InvalidAction
            The match is not over, or a balance below the stake (the request is then dropped).
        """
        mem = self.member(code, token)
        room = self.room(code)
        if mem.seat is None:
            raise Forbidden("a spectator has no seat to ask from")
        async with room.lock:
            if room.status != "over":
                raise InvalidAction("a rematch follows a match that is over")
            wish = room.rematch | {mem.seat} | ({room.bot_seat()} - {None})
            if wish != {0, 1}:
                room.rematch = wish
                room.version += 1
                self.store.save_room(room.code, room.row())
            else:
                old = (room.match, room.match_json, room.saved_events, room.match_no, room.rematch, room.status)
                room.start_match()
                stakes = tuple((x.account, room.stake) for x in room.members
                               if x.seat is not None and x.account is not None and room.stake)
                try:
                    room.version += 1
                    self._save(room, stakes=stakes, new_match=True)
                except BaseException:
                    room.match, room.match_json, room.saved_events, room.match_no, room.rematch, room.status = old
                    room.rematch = set()
                    raise
                room.escrow += sum(a for _, a in stakes)
        self._after(room)
        return room.state(mem, with_match=False)

    # ---------------------------------------------------------------- sockets
    def broadcast(self, room: Room) -> None:
        """Queue for each of the room's sockets its view of the state (without the match record)
        and the match's events since the last frame (``events``: the engine's log entries,
        dice included once thrown)."""
        if not room.sockets:
            return
        events = self._new_events(room)
        by_seat: dict[Any, dict] = {}
        for q, seat in list(room.sockets.items()):
            if seat not in by_seat:
                viewer = room.seat(seat) if seat is not None else None
                by_seat[seat] = {"type": "state", "state": room.state(viewer, with_match=False), "events": events}
            q.put_nowait(by_seat[seat])

    @staticmethod
    def _new_events(room: Room) -> list:
        """The match's events not yet sent to the room's sockets (all of a new match's); the
        cost is that of the new events only."""
        m = room.match
        if m is None:
            return []
        match_no, sent = room.sent_events
        n = m.event_count
        new = m.events_since(sent if match_no == room.match_no and sent <= n else 0)
        room.sent_events = (room.match_no, n)
        return new

    async def connect(self, room: Room, mem: Member, q: Any) -> None:
        """A socket of ``mem`` opens (``q``: its queue, with ``put_nowait(frame)`` and
        ``close(reason)``): it gets the state; an absent player is back.

        Raises
        ------
        tawla.errors.LimitExceeded
            ``mem`` has :attr:`Limits.sockets_per_member` sockets open already.
        """
        if sum(1 for other in room.sockets if getattr(other, "member", None) is mem) >= self.limits.sockets_per_member:
            raise LimitExceeded(f"a token opens at most {self.limits.sockets_per_member} sockets at once")
        q.member = mem
        if not room.sockets:
            self._new_events(room)  # what happened while no socket was open is in the state
        room.sockets[q] = mem.seat
        self.metrics.sockets.inc()
        if mem.seat is not None:
            room.idle_timeouts = 0
        m = room.match
        if mem.seat is not None and m is not None and m.phase != "over" and m.away[mem.seat] is not None:
            async with room.lock:
                self._apply(room, lambda: m.reconnect(mem.seat))
            self._after(room)
        else:
            q.put_nowait({"type": "state", "state": room.state(mem if mem.seat is not None else None,
                                                               with_match=False)})

    async def disconnect(self, room: Room, mem: Member, q: Any, *, report: bool = True) -> None:
        """A socket closes: on a coin table with a grace period, a player with no socket left
        is reported gone (he forfeits unless he is back within the grace period); not when
        ``report`` is False (the server is stopping)."""
        if room.sockets.pop(q, False) is not False:
            self.metrics.sockets.dec()
        m = room.match
        if (not report or mem.seat is None or m is None or m.phase == "over" or mem.seat in room.sockets.values()
                or not room.stake or room.house.grace_period is None or m.away[mem.seat] is not None):
            return
        async with room.lock:
            if m.phase != "over" and m.away[mem.seat] is None:
                self._apply(room, lambda: m.disconnect(mem.seat))
        self._after(room)

    def tables(self) -> list[dict]:
        """Public rooms waiting for a player, with the options that decide a coin table's
        outcome (:meth:`Room.table_entry`)."""
        return [r.table_entry() for r in self.rooms.values() if r.options.get("public") and r.status == "waiting"]
