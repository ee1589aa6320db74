"""A failed write leaves a room as it was: the hub's one rollback (tawla.service.writes) for an
engine action whose write fails, and for a join whose write fails; the version moves only with
a write that landed, and a later action, and a restart from the database, carry on from there."""

from __future__ import annotations

import asyncio

import pytest

pytest.importorskip("sqlalchemy")

from tawla.service.hub import Hub  # noqa: E402
from tawla.service.store import Store  # noqa: E402


class WriteFailed(RuntimeError):
    pass


def failing(*args, **kwargs):
    raise WriteFailed("the disk is full")


def snapshot(room):
    m = room.match
    return (room.version, room.status, room.escrow, room.saved_events, room.match_no, len(room.members),
            None if m is None else m.to_json())


def test_a_failed_write_of_an_action_puts_the_room_back_and_play_goes_on(tmp_path):
    async def run():
        store = Store(f"sqlite:///{tmp_path / 'w.db'}")
        hub = Hub(store)
        try:
            host = hub.lobby.create_room({"ruleset": "backgammon", "house": "international", "length": 3}, None)
            guest = await hub.lobby.join(host["code"], "B", None)
            room = hub.room(host["code"])
            tokens = {0: host["token"], 1: guest["token"]}
            seat = room.match.to_act  # the opening roll is thrown: a move is due
            action = {"action": "move", "move": str(room.match.legal_moves()[0])}
            before = snapshot(room)
            save = store.save_room
            store.save_room = failing
            with pytest.raises(WriteFailed):
                await hub.actions.act(room.code, tokens[seat], action)
            assert snapshot(room) == before  # the match rebuilt from the record, the version unmoved
            store.save_room = save
            await hub.actions.act(room.code, tokens[seat], action)
            after = snapshot(room)
            assert after[0] == before[0] + 1 and after[3] > before[3]
        finally:
            await hub.stop()
        again = Hub(store)
        await again.start()
        try:
            back = again.room(room.code)
            assert back.match.to_json() == after[-1] and back.version == after[0] + 1
        finally:
            await again.stop()
            store.close()

    asyncio.run(run())


def test_a_failed_write_of_a_join_leaves_the_seat_free(tmp_path):
    async def run():
        store = Store(f"sqlite:///{tmp_path / 'j.db'}")
        hub = Hub(store)
        try:
            host = hub.lobby.create_room({"ruleset": "backgammon", "house": "international", "length": 3}, None)
            room = hub.room(host["code"])
            before = snapshot(room)
            add = store.add_member
            store.add_member = failing
            with pytest.raises(WriteFailed):
                await hub.lobby.join(room.code, "B", None)
            assert snapshot(room) == before and room.match is None and room.seat(1) is None
            assert len(hub.registry.tokens) == 1  # the guest's token was never admitted
            store.add_member = add
            joined = await hub.lobby.join(room.code, "B", None)
            assert joined["seat"] == 1 and room.status == "playing" and room.version == before[0] + 1
        finally:
            await hub.stop()
            store.close()

    asyncio.run(run())
