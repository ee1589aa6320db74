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
            failed = snapshot(room)
            assert failed[1:] == before[1:] and failed[0] == before[0] + 1  # the match rebuilt; the version only grows
            store.save_room = save
            await hub.actions.act(room.code, tokens[seat], action)
            after = snapshot(room)
            assert after[0] == before[0] + 2 and after[3] > before[3]
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
            assert snapshot(room)[1:] == before[1:] and room.match is None and room.seat(1) is None
            assert len(hub.registry.tokens) == 1  # the guest's token was never admitted
            store.add_member = add
            joined = await hub.lobby.join(room.code, "B", None)
            assert joined["seat"] == 1 and room.status == "playing" and room.version == before[0] + 2
        finally:
            await hub.stop()
            store.close()

    asyncio.run(run())


def test_a_bot_thinking_across_a_failed_timer_write_plays_on(tmp_path, monkeypatch):
    """A timeout fires while the bot thinks and its write fails: the match is rebuilt (a new
    object); the bot sees the room was touched, thinks again and plays on the match as written."""
    import threading
    import time as _time

    import tawla.service.bot_driver as driver
    import tawla.service.timers as timers

    block = threading.Event()
    real = driver.bot_action
    monkeypatch.setattr(driver, "bot_action", lambda *a, **k: (block.wait(10), real(*a, **k))[1])

    async def run():
        store = Store(f"sqlite:///{tmp_path / 'b.db'}")
        hub = Hub(store)
        try:
            host = hub.lobby.create_room({"ruleset": "backgammon", "house": "international", "length": 3,
                                          "turn_seconds": 60}, None)
            room = hub.room(host["code"])
            await hub.lobby.add_bot(room.code, host["token"], "ply0")
            for _ in range(5):
                m = room.match
                if m.to_act == 1:
                    break
                act = {"action": "roll"} if m.phase == "roll" else {"action": "move", "move": str(m.legal_moves()[0])}
                await hub.actions.act(room.code, host["token"], act)
            await asyncio.sleep(0.05)
            assert room.match.to_act == 1 and room.bot_task is not None and not room.bot_task.done()
            thinking = room.match
            save = store.save_room
            store.save_room = failing
            later = type("Later", (), {"time": staticmethod(lambda: _time.time() + 10_000)})
            monkeypatch.setattr(timers, "time", later)
            with pytest.raises(WriteFailed):
                await hub.timers._fire_at(room, 0)
            monkeypatch.setattr(timers, "time", _time)
            store.save_room = save
            assert room.match is not thinking  # rebuilt from the record
            block.set()
            await asyncio.wait_for(room.bot_task, 10)  # raises if the bot played on the stale match
            assert room.match.to_act == 0 or room.match.phase == "over"
        finally:
            block.set()
            await hub.stop()
            store.close()

    asyncio.run(run())


def test_a_fenced_write_of_a_room_moved_elsewhere_writes_nothing(tmp_path):
    """Several processes fence each write with the version the writer last read or wrote: a
    room at another version in the database refuses the write whole (events included)."""
    from tawla.errors import InvalidAction
    from tawla.service.store import Store
    store = Store(f"sqlite:///{tmp_path / 'fence.db'}")
    try:
        store.create_room("FENCE1", {"ruleset": "backgammon", "length": 1}, {"seat": 0, "name": "a", "token": "t"})
        cols = {"status": "playing", "deadline": None, "match_no": 1, "rematch": "[]"}
        store.save_room("FENCE1", {**cols, "version": 1}, log=[(1, 0, "{}")], expected=0)
        with pytest.raises(InvalidAction):
            store.save_room("FENCE1", {**cols, "version": 2}, log=[(1, 1, "{}")], expected=0)   # stale writer
        assert store.room_version("FENCE1") == 1
        assert store.load_room("FENCE1")["events"] == ["{}"]
        store.save_room("FENCE1", {**cols, "version": 2}, log=[(1, 1, "{}")], expected=1)
        assert store.room_version("FENCE1") == 2
    finally:
        store.close()
