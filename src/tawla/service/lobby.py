"""Getting to a table: accounts and their starting coins, a host's new room, a player or a
spectator joining, a bot taking seat 1. A match starts when seat 1 is taken; a coin table
takes both stakes into its escrow then (the host's when the room is made).

What one client address may create is bounded by :class:`~tawla.service.limits.Limits`.
"""

from __future__ import annotations

from typing import Any, Callable

from ..errors import ConfigError, Forbidden, InvalidAction, LimitExceeded, quote
from ..match import HOUSE_NAMES
from .limits import AddressWindow, Limits
from .registry import RoomRegistry
from .rooms import Member, Room, new_code, new_token, room_options
from .status import RoomStatus
from .store import STARTING_BALANCE, hash_token
from .views import levels
from .writes import RoomWrites

__all__ = ["Lobby"]


class Lobby:
    """Accounts, new rooms and their seats.

    Parameters
    ----------
    registry : RoomRegistry
        The rooms in memory and their tokens.
    writes : RoomWrites
        Where a room's change is written.
    limits : Limits
    after : callable
        Called with a room after a change (sends the state, arms the timer, wakes the bot).
    """

    def __init__(self, registry: RoomRegistry, writes: RoomWrites, limits: Limits,
                 after: Callable[[Room], None]) -> None:
        self.registry, self.writes, self.limits, self.after = registry, writes, limits, after
        self.store = writes.store
        w = limits.window_seconds
        self.created_rooms, self.created_accounts, self.issued_coins = (AddressWindow(w), AddressWindow(w),
                                                                        AddressWindow(w))

    def create_account(self, name: str, house: str, address: str = "") -> dict[str, Any]:
        """A new account: ``{"account": {...}, "token"}``.

        Raises
        ------
        tawla.errors.ConfigError
            An unknown house.
        tawla.errors.LimitExceeded
            ``address`` has made :attr:`Limits.accounts_per_window` accounts, or been issued
            :attr:`Limits.coins_per_window` starting coins, within the window.
        """
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

    def create_room(self, body: dict[str, Any], token: str | None, address: str = "",
                    account_id: int | None = None) -> dict[str, Any]:
        """``POST /v1/rooms``: a waiting room with the host in seat 0: ``{code, token, seat}``
        (``account_id``: the host's account, known already, instead of its token).

        Raises
        ------
        tawla.errors.ConfigError, tawla.errors.UnsupportedRuleset
            Options the house does not allow.
        tawla.errors.Unauthorized
            A stake or a rated room without an account token.
        tawla.errors.InvalidAction
            A balance below the stake, or a client seed that is not printable text of at most
            64 characters.
        tawla.errors.LimitExceeded
            ``address`` has made :attr:`Limits.rooms_per_window` rooms within the window.
        """
        opts = room_options(body["ruleset"], body["house"], body.get("length"), body.get("turn_seconds"),
                            body.get("public", False), body.get("stake", 0), body.get("grace_seconds"),
                            "turn_seconds" in body, grace_floor=self.limits.grace_floor_of,
                            rated=body.get("rated", False))
        account = self._account(token, account_id) if opts["stake"] or opts["rated"] else None
        room = Room(code="", options=opts, escrow=opts["stake"] if account is not None else 0)
        if body.get("client_seed"):
            room.set_client_seed(0, body["client_seed"])
        self.created_rooms.take(address, self.limits.rooms_per_window, what="rooms")
        code = new_code()
        while code in self.registry.rooms:
            code = new_code()
        seat_token = new_token()
        host = Member(code, 0, body.get("name") or "Player 1", hash_token(seat_token), account)
        room.code = code
        room.members.append(host)
        self.store.create_room(code, opts, {"seat": 0, "name": host.name, "token": seat_token, "account": account},
                               dice=room.row(with_dice=True)["dice"])
        room.stored_version = 0
        self.registry.add(room)
        return {"code": code, "token": seat_token, "seat": 0, "fair_dice": room.next_dice.public()}

    async def join(self, code: str, name: str | None, token: str | None,
                   client_seed: str | None = None, account_id: int | None = None) -> dict[str, Any]:
        """``POST /v1/rooms/{code}/join``: seat 1 (the match starts on dice with seat 1's
        ``client_seed``; ``account_id``: the player's account, known already), or a
        spectator's token when the room is full: ``{token, seat, table}`` (seat None for a
        spectator; ``table`` the room's options as ``GET /v1/tables`` lists them: stake, grace
        period, timers).

        Raises
        ------
        tawla.errors.NotFound
        tawla.errors.Unauthorized
            A coin table or a rated room without an account token.
        tawla.errors.InvalidAction
            A balance below the stake, the account that is already seated, or a client seed
            that is not printable text of at most 64 characters.
        tawla.errors.LimitExceeded
            The room has its :attr:`Limits.spectators` spectators.
        """
        room = self.registry.room(code, fresh=False)  # read again under its lock
        async with room.lock:
            seat_token = new_token()
            if room.status != RoomStatus.WAITING or room.seat(1) is not None:
                if sum(1 for x in room.members if x.seat is None) >= self.limits.spectators:
                    raise LimitExceeded(f"room {room.code} has its {self.limits.spectators} spectators")
                mem = Member(room.code, None, name or "Spectator", hash_token(seat_token))
                self.writes.commit(room, lambda: room.members.append(mem),
                                   lambda r: self.store.add_member(r.code, {"seat": None, "name": mem.name,
                                                                            "token": seat_token},
                                                                   room={"version": r.version}))
            else:
                account = None
                if room.stake or room.rated:
                    account = self._account(token, account_id)
                    if any(m.account == account for m in room.members):
                        raise InvalidAction("this account already has the other seat")
                mem = Member(room.code, 1, name or "Player 2", hash_token(seat_token), account)
                self._seat_and_start(room, mem, seat_token, client_seed)
            self.registry.admit(mem)
        self.after(room)
        return {"token": seat_token, "seat": mem.seat, "table": room.table_entry()}

    def _account(self, token: str | None, account_id: int | None) -> int:
        """The seat's account: ``account_id`` when the caller knows it, else the token's.

        Raises
        ------
        tawla.errors.Unauthorized
            Neither: no token, or not an account's.
        """
        return account_id if account_id is not None else self.registry.account(token)["id"]

    def _seat_and_start(self, room: Room, mem: Member, token: str | None, client_seed: str | None = None) -> None:
        """Seat 1 taken (a player or a bot): start the match and write both in one transaction."""
        def start() -> None:
            if client_seed:
                room.set_client_seed(1, client_seed)
            room.members.append(mem)
            room.start_match()

        def write(r: Room) -> None:
            stake = r.stake if mem.account is not None else 0
            self.store.add_member(r.code, {"seat": 1, "name": mem.name, "token": token, "account": mem.account,
                                           "bot": mem.bot}, stake=stake, room=r.row(with_match=True))
            r.escrow += stake

        self.writes.commit(room, start, write)

    async def add_bot(self, code: str, token: str | None, level: str) -> dict[str, Any]:
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
        mem = self.registry.member(code, token)
        room = self.registry.room(code, fresh=False)  # read again under its lock
        if mem.seat != 0:
            raise Forbidden("only the host adds a bot")
        if level not in levels():
            raise ConfigError(f"a bot's level is one of {', '.join(levels())}, not {quote(level)}")
        async with room.lock:
            if room.stake:
                raise InvalidAction("bots do not play on coin tables")
            if room.status != RoomStatus.WAITING or room.seat(1) is not None:
                raise InvalidAction("seat 1 is taken")
            self._seat_and_start(room, Member(room.code, 1, f"Bot ({level})", None, bot=level), None)
        self.after(room)
        return {"seat": 1, "level": level}

    async def abandon(self, code: str) -> None:
        """Close a room still waiting for its second seat that its maker gave up (a pairing
        that could not be finished): it leaves memory and its tokens expire. No-op for a
        room that is not waiting."""
        room = self.registry.rooms.get(code)
        if room is None:
            return
        async with room.lock:
            if room.status != RoomStatus.WAITING or room.seat(1) is not None:
                return
            self.writes.commit(room, lambda: setattr(room, "status", RoomStatus.CLOSED), self.writes.save_columns)
        self.registry.evict(room)

    async def set_client_seed(self, code: str, token: str | None, text: str) -> dict[str, Any]:
        """``POST /v1/rooms/{code}/client-seed``: the seat's client seed for the room's next
        match (while the room waits for a player, or between a match and its rematch):
        the next match's public dice ``{"scheme", "commitment", "client_seeds", "n"}``.

        Raises
        ------
        tawla.errors.Forbidden
            A spectator.
        tawla.errors.InvalidAction
            A match in play (its client seeds were fixed at its first roll), or a seed that is
            not printable text of at most 64 characters.
        """
        mem = self.registry.member(code, token)
        room = self.registry.room(code, fresh=False)  # read again under its lock
        if mem.seat is None:
            raise Forbidden("a spectator has no seat to seed the dice of")
        seat = mem.seat
        async with room.lock:
            if room.status not in (RoomStatus.WAITING, RoomStatus.OVER):
                raise InvalidAction("the client seeds are fixed once the match's first roll is made")
            self.writes.commit(room, lambda: room.set_client_seed(seat, text),
                               lambda r: self.writes.save_columns(r, with_dice=True))
        self.after(room)
        return room.next_dice.public()
