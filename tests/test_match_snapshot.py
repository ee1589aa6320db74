"""Snapshots (:meth:`tawla.Match.snapshot`, :meth:`tawla.Match.resume`): a match rebuilt from
a snapshot taken after any of its events and the events after it is the match itself (its
whole document equal, and it plays on the same), in every ruleset, with timeouts, steps,
undos, the cube and fair dice; a changed event after the snapshot is refused."""

from __future__ import annotations

import json

import numpy as np
import pytest

from match_helpers import Clock, drive

from tawla import errors
from tawla.match import FairDice, Match, get_house

CASES = [("backgammon", "international", 5, None), ("backgammon", "international", 0, None),
         ("tawla31-saharat", "saharat", 5, None), ("adi", "international", 3, "fair"),
         ("mahbusa", "international", 1, None)]


def _played(ruleset, house, length, dice, seed, actions=300):
    """A match played at random with a snapshot taken after every action: ``(match, start
    document, snapshots)``."""
    clock = Clock()
    rng = FairDice(bytes(range(32))) if dice == "fair" else np.random.default_rng(seed)
    m = Match(ruleset, get_house(house), length, ("A", "B"), rng=rng, clock=clock, **({} if length else {}))
    start = m.to_json()
    play = np.random.default_rng(seed + 1)
    snaps = [m.snapshot()]
    for _ in range(actions):
        if m.phase == "over":
            break
        drive(m, play, clock, 1)
        snaps.append(json.loads(json.dumps(m.snapshot())))        # as a store keeps it
    return m, start, snaps, clock


@pytest.mark.parametrize("ruleset,house,length,dice", CASES)
def test_a_match_resumed_from_any_snapshot_is_the_match(ruleset, house, length, dice):
    for seed in (3, 11):
        m, start, snaps, clock = _played(ruleset, house, length, dice, seed)
        events = json.loads(m.to_json())["events"]
        assert len(events) > 20
        whole = m.to_json()
        for snap in snaps[:: max(1, len(snaps) // 12)] + [snaps[-1]]:
            back = Match.resume(start, events, snap, clock=clock)
            assert back.to_json() == whole, f"snapshot after {snap['n']} events"
        # a resumed match plays on as the match does
        back = Match.resume(start, events, snaps[len(snaps) // 2], clock=clock)
        c2 = Clock(clock.t)
        back._clock = c2
        m2 = Match.from_json(whole, clock=Clock(clock.t))
        drive(back, np.random.default_rng(99), c2, 60)
        drive(m2, np.random.default_rng(99), m2._clock, 60)
        assert back.to_json() == m2.to_json()


def test_events_after_the_snapshot_must_replay_and_snapshots_must_be_snapshots():
    m, start, snaps, clock = _played("backgammon", "international", 5, None, 5)
    events = json.loads(m.to_json())["events"]
    snap = snaps[len(snaps) // 3]
    n = snap["n"]
    forged = [dict(e) for e in events]
    k = next(i for i in range(n, len(forged)) if forged[i]["type"] == "roll")
    forged[k]["player"] = 1 - forged[k]["player"]
    with pytest.raises(errors.FormatError):
        Match.resume(start, forged, snap)
    for bad in ({"n": len(events) + 1, "state": snap["state"]}, {"n": -1, "state": snap["state"]},
                {"n": n}, {"state": snap["state"]}, [n], {"n": True, "state": snap["state"]}):
        with pytest.raises(errors.FormatError):
            Match.resume(start, events, bad)
    with pytest.raises(errors.FormatError):
        Match.resume("{}", events, snap)


@pytest.mark.parametrize("ruleset,house,length,dice", CASES)
def test_a_copy_catches_up_with_the_events_it_lacks(ruleset, house, length, dice):
    clock = Clock()
    rng = FairDice(bytes(range(32))) if dice == "fair" else np.random.default_rng(4)
    m = Match(ruleset, get_house(house), length, ("A", "B"), rng=rng, clock=clock)
    copy = Match.from_json(m.to_json(), clock=clock)
    play = np.random.default_rng(8)
    for _ in range(40):
        if m.phase == "over":
            break
        n = m.event_count
        drive(m, play, clock, int(play.integers(1, 6)))
        copy.catch_up(json.loads(m.to_json())["events"][n:])
        assert copy.to_json() == m.to_json()
    behind = Match.from_json(m.to_json(), clock=clock)
    before = behind.event_count
    while m.phase != "over" and not any(e.get("player") in (0, 1) and e["type"] in ("roll", "play", "step")
                                        for e in json.loads(m.to_json())["events"][before:]):
        drive(m, play, clock, 1)
    new = json.loads(m.to_json())["events"][before:]
    k = next((i for i, e in enumerate(new) if e.get("player") in (0, 1) and e["type"] in ("roll", "play", "step")),
             None)
    if k is not None:                                           # an action by the other player: refused
        forged = [dict(e) for e in new]
        forged[k]["player"] = 1 - forged[k]["player"]
        with pytest.raises(errors.FormatError):
            behind.catch_up(forged)
