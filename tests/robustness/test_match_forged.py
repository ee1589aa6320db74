"""A match document whose state, configuration or keys are not what its event log and the
rules give is refused by Match.from_json with a FormatError naming the first field that
differs; genuine documents of every house and ruleset load and re-serialise byte for byte."""

import copy
import json

import numpy as np
import pytest

import tawla
from tawla import errors
from tawla.match import Match
from tawla.position import Position
from match_helpers import Clock
from test_match_stateful import CFG_IDS, CONFIGS, legal_action


def _base_match():
    """A clocked backgammon match in the move phase, cube doubled, a few games played."""
    clock = Clock(0.0)
    m = Match("backgammon", tawla.get_house("international", turn_time=60), 7, rng=3, clock=clock)
    rng = np.random.default_rng(11)
    while not (m.phase == "move" and m.cube_value == 2 and len(m.events) > 60 and not m._played):
        clock.t += 1
        legal_action(m, rng, clock)
        assert m.phase != "over"
    return m


BASE = _base_match()
DOC = BASE.to_dict()


def _other_board(d):
    r = tawla.get_ruleset("backgammon")
    return Position.from_id(d["state"]["board"], r).flip().id()


def _truncated(d):
    """The log cut just before its last input event: a consistent but shorter history."""
    ev = d["events"]
    i = max(k for k, e in enumerate(ev) if e["type"] in tawla.match.INPUT_EVENTS)
    d["events"] = ev[:i]


def _set(part, key, value):
    def change(d):
        d[part][key] = value
    return change


def _drop(part, key):
    def change(d):
        del d[part][key]
    return change


FORGED = {
    "board": (lambda d: d["state"].__setitem__("board", _other_board(d)), "board"),
    "swapped turn": (lambda d: d["state"].__setitem__("turn", 1 - d["state"]["turn"]), "turn"),
    "turn 1.9": (_set("state", "turn", 1.9), "turn"),
    "turn true": (_set("state", "turn", True), "turn"),
    "score 4-0": (_set("state", "score", [4, 0]), "score"),
    "score 99/-3": (_set("state", "score", [99, -3]), "score"),
    "cube 3": (_set("state", "cube", 3), "cube"),
    "cube 2**200": (_set("state", "cube", 2**200), "cube"),
    "owner 7": (_set("state", "owner", 7), "owner"),
    "dice 7 9": (_set("state", "dice", [7, 9]), "dice"),
    "phase resign without offer": (_set("state", "phase", "resign"), "phase"),
    "steps played": (_set("state", "played", [[24, 23, [1], False]]), "played"),
    "timers": (_set("state", "timers", {"turn": 10**6}), "timers"),
    "game number": (lambda d: d["state"].__setitem__("game", d["state"]["game"] + 1), "game"),
    "rng state": (lambda d: d["state"]["rng"]["state"].__setitem__("state", 12345), "rng"),
    "players one name": (_set("config", "players", ["A"]), "players"),
    "players three names": (_set("config", "players", ["A", "B", "C"]), "players"),
    "length not allowed": (_set("config", "length", 4.5), "length"),
    "ruleset_options": (_set("config", "ruleset_options", {"jacoby": 1}), "ruleset_options"),
    "house": (lambda d: d["config"]["house"].__setitem__("turn_time", 30), "timers"),
    "created": (_set("config", "created", "yesterday"), "created"),
    "truncated log": (_truncated, ""),
    "extra top-level key": (lambda d: d.__setitem__("note", 1), "note"),
    "extra config key": (_set("config", "colour", "red"), "colour"),
    "extra state key": (_set("state", "bonus", 0), "bonus"),
    "missing state key": (_drop("state", "cube"), "cube"),
    "missing config key": (_drop("config", "players"), "players"),
    "missing events": (lambda d: d.__delitem__("events"), "events"),
}


def test_the_base_document_is_genuine():
    js = BASE.to_json()
    assert Match.from_json(js).to_json() == js
    assert Match.from_json(DOC).to_json() == js


@pytest.mark.parametrize("case", list(FORGED))
def test_a_forged_document_is_refused(case):
    change, field = FORGED[case]
    d = copy.deepcopy(DOC)
    change(d)
    for data in (json.dumps(d), d):
        with pytest.raises(errors.FormatError) as info:
            Match.from_json(data)
        assert field in str(info.value)


def test_the_first_differing_field_is_named():
    d = copy.deepcopy(DOC)
    d["state"]["cube"] = 64
    d["state"]["rng"]["state"]["state"] = 1
    with pytest.raises(errors.FormatError, match="cube is 64"):
        Match.from_json(d)


@pytest.mark.parametrize("cfg", CONFIGS, ids=CFG_IDS)
def test_a_genuine_match_of_every_house_and_ruleset_round_trips(cfg):
    rs, house, overrides, length = cfg
    clock = Clock(0.0)
    m = Match(rs, tawla.get_house(house, **overrides), length, rng=9, clock=clock)
    rng = np.random.default_rng(2)
    for i in range(400):
        if m.phase == "over":
            break
        clock.t += 1
        legal_action(m, rng, clock)
        if i % 40 == 0 or m.phase == "over":
            js = m.to_json()
            m2 = Match.from_json(js, clock=clock)
            assert m2.to_json() == js
            assert Match.from_json(m.to_dict(), clock=clock).to_json() == js
