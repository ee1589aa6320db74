"""A match stays cheap and typed under hostile input: following its log costs the new events
only, a turn's steps and undos are bounded, a die out of range is an InvalidDice, and forged
documents of any shape raise FormatError (never a bare ValueError, IndexError,
AttributeError or RecursionError)."""

import json
import random

import numpy as np
import pytest

import tawla
from tawla import errors
from tawla.match import Match
from tawla.match.turn_play import MAX_UNDOS
from match_helpers import Clock
from test_match_stateful import legal_action


def _moving(seed=3):
    m = Match("backgammon", "international", 7, rng=seed, clock=Clock(0.0))
    while m.phase != "move":
        m.roll(m.turn)
    return m


def _played(n_events=80):
    clock = Clock(0.0)
    m = Match("backgammon", tawla.get_house("international", turn_time=60), 7, rng=3, clock=clock)
    rng = np.random.default_rng(11)
    while m.event_count < n_events:
        clock.t += 1
        legal_action(m, rng, clock)
    return m


class TestFlatCost:
    def test_events_since_is_the_tail_of_the_log(self):
        m = _played()
        n = m.event_count
        assert m.events_since(0) == m.events and m.events_since(n) == []
        assert m.events_since(n - 3) == m.events[-3:]
        assert m.last_event("roll") == [e for e in m.events if e["type"] == "roll"][-1]
        for bad in (-1, n + 1, "1", 1.0, True):
            with pytest.raises(errors.InvalidArgument):
                m.events_since(bad)

    def test_step_undo_flood_leaves_the_log_flat(self):
        m = _moving()
        p, s = m.turn, m.legal_steps()[0]
        refused = 0
        for _ in range(400):
            m.step(p, s.from_point, s.to_point)
            try:
                m.undo(p)
            except errors.InvalidAction:
                refused += 1
                break
        assert refused == 1
        n = m.event_count
        for _ in range(100):
            with pytest.raises(errors.InvalidAction, match="undos"):
                m.undo(p)
        assert m.event_count == n <= 2 * MAX_UNDOS + 8
        # the bound is per turn, and a log written past it (an older engine) still replays
        doc = m.to_dict()
        again = Match.from_json(json.dumps(doc))
        assert again.to_json() == m.to_json()

    def test_an_old_log_with_more_undos_replays(self):
        m = _moving()
        p, s = m.turn, m.legal_steps()[0]
        doc = m.to_dict()
        for _ in range(MAX_UNDOS + 5):
            doc["events"].append({"type": "step", "t": 0.0, "player": p, "from": s.from_point, "to": s.to_point,
                                  "dice": [s.die] if isinstance(s.die, int) else list(s.die), "hit": s.hit})
            doc["events"].append({"type": "undo", "t": 0.0, "player": p})
        replayed = Match.replay(doc)
        assert replayed.event_count == len(doc["events"])


class TestDice:
    @pytest.mark.parametrize("dice", [10**30, 2**63, -(2**63), 0, 7, (10**30,), (2**63, 1), (1, 7)])
    def test_a_die_out_of_range_is_invalid_dice(self, dice):
        m = _moving()
        s = m.legal_steps()[0]
        before = m.to_json()
        with pytest.raises(errors.InvalidDice):
            m.step(m.turn, s.from_point, s.to_point, dice)
        assert m.to_json() == before

    def test_a_huge_point_is_an_illegal_move(self):
        m = _moving()
        with pytest.raises(errors.IllegalMove):
            m.step(m.turn, 10**5000, 1)


DOC = _played().to_dict()
HOSTILE = [[], [[]], {}, None, -2**64, 2**64, 10**30, -2, 0, 26, "x", True, 1.5, [1, 2, 3], {"a": 1}]


def _paths(o, pre=()):
    yield pre
    if isinstance(o, dict):
        for k, v in o.items():
            yield from _paths(v, pre + (k,))
    elif isinstance(o, list):
        for i, v in enumerate(o):
            yield from _paths(v, pre + (i,))


def _set(d, path, value):
    for k in path[:-1]:
        d = d[k]
    d[path[-1]] = value


def _step_index():
    return next(i for i, e in enumerate(DOC["events"]) if e["type"] == "step")


def _first(kind):
    return next(i for i, e in enumerate(DOC["events"]) if e["type"] == kind)


NAMED = {
    "a step's dice []": (("events", _step_index(), "dice"), []),
    "a step from point 0": (("events", _step_index(), "from"), 0),
    "a step from -2**64": (("events", _step_index(), "from"), -2**64),
    "a step to 2**64": (("events", _step_index(), "to"), 2**64),
    "house lengths []": (("config", "house", "lengths"), []),
    "house lengths of a list": (("config", "house", "lengths", "backgammon"), [[]]),
    "a play's steps [[]]": (("events", _first("play"), "steps"), [[]]),
}


def _documents(d):
    yield d
    yield json.dumps(d)


class TestForgedDocuments:
    @pytest.mark.parametrize("name", sorted(NAMED))
    def test_named_forgeries_are_format_errors(self, name):
        path, value = NAMED[name]
        d = json.loads(json.dumps(DOC))
        _set(d, path, value)
        for doc in _documents(d):
            for read in (Match.from_json, Match.replay):
                with pytest.raises(errors.FormatError):
                    read(doc)

    @pytest.mark.parametrize("depth", [100_000])
    def test_deep_nesting_is_a_format_error(self, depth):
        text = '{"format": "tawla-match", "version": 1, "config": ' + "[" * depth + "]" * depth + "}"
        nested: list = []
        for _ in range(depth):
            nested = [nested]
        for doc in (text, "[" * depth + "]" * depth, {"format": "tawla-match", "version": 1, "config": nested}):
            for read in (Match.from_json, Match.replay):
                with pytest.raises(errors.FormatError):
                    read(doc)

    def test_random_forgeries_are_tawla_errors(self):
        """A bounded fuzz: 300 documents, each with one field replaced by a hostile value."""
        paths = list(_paths(DOC))[1:]
        r = random.Random(33)
        escaped = []
        for _ in range(300):
            d = json.loads(json.dumps(DOC))
            path, value = r.choice(paths), r.choice(HOSTILE)
            _set(d, path, value)
            for doc in _documents(d):
                for read in (Match.from_json, Match.replay):
                    try:
                        read(doc)
                    except errors.TawlaError:
                        pass
                    except Exception as e:  # noqa: BLE001 - what escapes is the finding
                        escaped.append((read.__name__, path, value, type(e).__name__))
        assert not escaped, escaped[:5]
