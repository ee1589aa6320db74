"""What a match settles at its end: what a coin table pays out of its escrow (the prize and the
rake, the stakes back when a match ends without a winner or the host leaves before it
starts), and the result a rated room rates.

A payment is ``(account id or None, coins, kind)``, ``kind`` one of ``prize``, ``rake``
(account None: the house) and ``refund``; :meth:`tawla.service.store.Store.save_room` writes
them in the transaction that writes the room.
"""

from __future__ import annotations

from .rating_tables import account_key, bot_key, rating_kind
from .rooms import Member, Room

__all__ = ["match_payments", "host_refund", "rated_result"]


def match_payments(room: Room) -> list[tuple[int | None, int, str]]:
    """The payments out of ``room``'s escrow at the end of its match: the prize and the rake
    (the engine's :attr:`tawla.Match.payout`), or each stake back when there is no winner
    (an empty list when the escrow is empty)."""
    if room.escrow <= 0:
        return []
    m = room.match
    pay = m.payout if m is not None else None
    accounts = {x.seat: x.account for x in room.members if x.seat is not None}
    if pay is not None and accounts.get(pay["winner"]) is not None and pay["pot"] == room.escrow:
        return [(accounts[pay["winner"]], pay["prize"], "prize"), (None, pay["fee"], "rake")]
    return [(a, room.stake, "refund") for a in accounts.values() if a is not None][: room.escrow // max(room.stake, 1)]


def host_refund(room: Room, host: Member) -> list[tuple[int | None, int, str]]:
    """The host's stake back when he leaves a waiting room (an empty list at a free table)."""
    if room.escrow and host.account is not None:
        return [(host.account, room.escrow, "refund")]
    return []


def _player_key(m: Member | None) -> str | None:
    if m is None:
        return None
    if m.bot is not None:
        return bot_key(m.bot)
    return account_key(m.account) if m.account is not None else None


def rated_result(room: Room) -> tuple | None:
    """What :meth:`tawla.service.store.Store.save_room` rates at the end of a rated room's
    match: ``(match_no, ruleset, kind, (seat 0's player key, seat 1's), winner)``; None when
    the room is not rated, the match has no winner or a seat has no account (a guest) and is
    no bot. A resignation and a forfeit rate as the loser's loss."""
    m = room.match
    if not room.rated or m is None or m.winner is None:
        return None
    players = (_player_key(room.seat(0)), _player_key(room.seat(1)))
    if players[0] is None or players[1] is None:
        return None
    return (room.match_no, room.options["ruleset"], rating_kind(room.options["length"]), players, m.winner)
