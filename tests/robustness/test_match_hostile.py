"""Hostile input to a match: documents that name functions or hold bad generator states,
and times that are not finite (NaN, infinities, sums past the range of a float)."""

import json
import math

import numpy as np
import pytest

import tawla
from tawla import errors
from tawla.match import Match
from tawla.match.clock import TurnClock
from match_helpers import Clock, snapshot_unchanged, to_roll_phase

NAN, INF = float("nan"), float("inf")
HUGE = pytest.param(10 ** 400, id="10**400")  # an int past the range of a float


def _refuse(name):
    raise AssertionError(f"not JSON: {name}")


def strict_json(text):
    """``text`` parsed as JSON that has no NaN or infinities."""
    return json.loads(text, parse_constant=_refuse)


def global_state():
    """numpy's global generator state, comparable with ``==``."""
    name, key, pos, has_gauss, gauss = np.random.get_state()
    return name, key.tobytes(), pos, has_gauss, gauss


def clocked_match(t=100.0, **house):
    """A backgammon match with a turn timer of 60 s, in the roll phase at time ``t``."""
    c = Clock(t)
    m = Match("backgammon", tawla.get_house("international", turn_time=60, **house), 7,
              rng=3, clock=c)
    to_roll_phase(m)
    assert m.phase == "roll"
    return m, c


# --- the random generator of a document -------------------------------------------------------
NAMES = ["seed", "random", "default_rng", "get_state", "RandomState", "BitGenerator",
         "SeedSequence", "NoSuchGenerator", "", 42, None]


@pytest.mark.parametrize("where", ["state", "config"])
@pytest.mark.parametrize("name", NAMES)
def test_a_document_naming_anything_but_a_bit_generator_is_refused(name, where):
    doc = Match("adi", rng=1).to_dict()
    doc[where]["rng"]["bit_generator"] = name
    before = global_state()
    for load in (Match.from_json, Match.replay) if where == "config" else (Match.from_json,):
        for data in (doc, json.dumps(doc)):
            with pytest.raises(errors.FormatError, match="random generator"):
                load(data)
            assert global_state() == before


def test_a_document_with_no_generator_state_is_refused():
    for rng in (None, [], "PCG64", {"state": {}}):
        doc = Match("adi", rng=1).to_dict()
        doc["state"]["rng"] = rng
        with pytest.raises(errors.FormatError):
            Match.from_json(doc)


GENERATORS = ["PCG64", "PCG64DXSM", "MT19937", "Philox", "SFC64"]


@pytest.mark.parametrize("name", GENERATORS)
def test_every_numpy_bit_generator_is_restored(name):
    m = Match("backgammon", rng=np.random.Generator(getattr(np.random, name)(7)))
    m2 = Match.from_json(m.to_json())
    assert m2.to_json() == m.to_json()
    assert Match.replay(m.to_json()).to_json() == m.to_json()
    for _ in range(3):  # the same dice from here on
        if m.phase == "roll":
            m.roll(m.turn)
            m2.roll(m2.turn)
        if m.phase == "move":
            mv = m.legal_moves()[0]
            m.play(m.turn, mv)
            m2.play(m2.turn, mv)
    assert m2.to_json() == m.to_json()


def _layout_cases():
    """(bit generator, a change to its JSON state): states numpy would take or misread."""
    def setter(*path, value):
        def change(st):
            for k in path[:-1]:
                st = st[k]
            st[path[-1]] = value
        return change

    def drop(*path):
        def change(st):
            for k in path[:-1]:
                st = st[k]
            del st[path[-1]]
        return change

    return [
        ("MT19937", setter("state", "pos", value=625)),
        ("MT19937", setter("state", "pos", value=-1)),
        ("MT19937", setter("state", "key", "data", value=[1] * 623)),
        ("MT19937", setter("state", "key", "ndarray", value="uint64")),
        ("MT19937", setter("state", "key", "ndarray", value="object")),
        ("MT19937", setter("state", "key", value=[0] * 624)),
        ("Philox", setter("buffer_pos", value=5)),
        ("Philox", setter("buffer", "data", value=[1, 2, 3, 2**64])),
        ("Philox", setter("state", "key", "data", value=[1.5, 2])),
        ("SFC64", setter("state", "state", "data", value=["1", "2", "3", "4"])),
        ("PCG64", setter("has_uint32", value=2)),
        ("PCG64", setter("has_uint32", value=True)),
        ("PCG64", setter("uinteger", value=2**32)),
        ("PCG64", setter("state", "inc", value=2**128)),
        ("PCG64", setter("state", "state", value=-5)),
        ("PCG64", setter("state", "state", value="5")),
        ("PCG64", setter("extra", value=0)),
        ("PCG64", drop("uinteger")),
        ("PCG64DXSM", drop("state", "inc")),
        ("PCG64DXSM", setter("state", value=[1, 2])),
    ]


@pytest.mark.parametrize("case", range(len(_layout_cases())))
def test_a_generator_state_not_of_its_layout_is_refused(case):
    name, change = _layout_cases()[case]
    doc = Match("adi", rng=np.random.Generator(getattr(np.random, name)(7))).to_dict()
    change(doc["state"]["rng"])
    with pytest.raises(errors.FormatError, match="random generator"):
        Match.from_json(doc)
    doc = Match("adi", rng=np.random.Generator(getattr(np.random, name)(7))).to_dict()
    change(doc["config"]["rng"])
    for load in (Match.from_json, Match.replay):
        with pytest.raises(errors.FormatError, match="random generator"):
            load(doc)


# --- non-finite times -------------------------------------------------------------------------
@pytest.mark.parametrize("now", [NAN, INF, -INF, HUGE, np.float64(NAN)])
def test_on_timeout_refuses_a_time_that_is_not_finite(now):
    m, _ = clocked_match()
    assert m.deadline == 160
    snapshot_unchanged(m, lambda: m.on_timeout(now), errors.InvalidAction)
    assert m.deadline == 160 and m.phase == "roll"
    m.on_timeout(160)
    assert all(math.isfinite(v) for v in m._turn_clock.running.values())


@pytest.mark.parametrize("t", [NAN, INF, -INF, np.float64(INF), HUGE])
@pytest.mark.parametrize("act", ["roll", "resign", "leave", "disconnect", "double"])
def test_a_clock_time_that_is_not_finite_refuses_the_action(t, act):
    m, c = clocked_match()
    c.t = t
    do = {"roll": lambda: m.roll(m.turn), "resign": lambda: m.resign(m.turn),
          "leave": lambda: m.leave(0), "disconnect": lambda: m.disconnect(0),
          "double": lambda: m.double(m.turn)}[act]
    snapshot_unchanged(m, do, errors.InvalidAction)
    c.t = 110.0
    do()  # the same action at a finite time goes through
    strict_json(m.to_json())


def test_a_clock_time_that_is_not_finite_refuses_a_step():
    c = Clock(0.0)
    for seed in range(30):
        m = Match("backgammon", tawla.get_house("international", turn_time=60, step_time=10), 7,
                  rng=seed, clock=c)
        if m.phase == "move" and m.legal_steps():
            break
    s = m.legal_steps()[0]
    c.t = NAN
    snapshot_unchanged(m, lambda: m.step(m.turn, s.from_point, s.to_point, dice=s.dice),
                       errors.InvalidAction)


@pytest.mark.parametrize("t", [NAN, INF, -INF])
def test_a_match_is_not_made_at_a_time_that_is_not_finite(t):
    with pytest.raises(errors.InvalidAction):
        Match("adi", "federation", rng=1, clock=lambda: t)


def test_a_deadline_past_the_range_of_a_float_refuses_the_action():
    m, c = clocked_match(0.0, step_time=1e308)
    c.t = 1e308
    snapshot_unchanged(m, lambda: m.roll(m.turn), errors.InvalidAction)  # step deadline 2e308
    c.t = 5.0
    m.roll(m.turn)


def test_a_paused_or_resumed_clock_past_the_range_of_a_float_refuses_the_action():
    m, c = clocked_match(1e308)  # the roll deadline 1e308 + 60 == 1e308
    c.t = -1e308
    snapshot_unchanged(m, lambda: m.resign(m.turn), errors.InvalidAction)  # 2e308 left
    m, c = clocked_match(0.0, step_time=1e308)  # the roll deadline 1e308
    m.resign(m.turn)
    c.t = 1e308
    snapshot_unchanged(m, lambda: m.reject_resignation(1 - m.turn), errors.InvalidAction)
    c.t = 1.0
    m.reject_resignation(1 - m.turn)
    assert m.deadline == 1e308 + 1.0


def test_a_grace_period_past_the_range_of_a_float_refuses_the_disconnect():
    c = Clock(0.0)
    m = Match("adi", tawla.get_house("saharat", stake=10, grace_period=1e308), 5, rng=1, clock=c)
    c.t = 1e308
    snapshot_unchanged(m, lambda: m.disconnect(0), errors.InvalidAction)
    c.t = 1.0
    m.disconnect(0)
    assert m.away == (1.0, None) and m.deadline == 15.0


@pytest.mark.parametrize("setting", ["turn_time", "step_time", "grace_period"])
@pytest.mark.parametrize("v", [NAN, INF, -INF, np.float64(NAN), HUGE])
def test_house_times_that_are_not_finite_are_refused(setting, v):
    with pytest.raises(errors.ConfigError):
        tawla.get_house("international", **{setting: v})
    with pytest.raises(errors.ConfigError):
        tawla.get_house("saharat", **{setting: v})


def test_turn_time_choices_that_are_not_finite_are_refused():
    for bad in ((30, INF), (NAN, 30), (30, -INF, None)):
        with pytest.raises(errors.ConfigError):
            tawla.get_house("federation", turn_time=30, turn_time_choices=bad)
    assert tawla.get_house("federation", turn_time=30, turn_time_choices=(30, 45.5, None))


# --- documents --------------------------------------------------------------------------------
@pytest.mark.parametrize("bad", ["NaN", "Infinity", "-Infinity", "1e999", "-1e999"])
@pytest.mark.parametrize("field", ["timers", "created", "event"])
def test_from_json_refuses_numbers_that_are_not_finite(bad, field):
    m, _ = clocked_match()
    text = m.to_json()
    assert '"timers":{"roll":160.0}' in text and '"created":100.0' in text
    target = {"timers": ('"timers":{"roll":160.0}', f'"timers":{{"roll":{bad}}}'),
              "created": ('"created":100.0', f'"created":{bad}'),
              "event": ('"t":100.0', f'"t":{bad}')}[field]
    hostile = text.replace(*target, 1)
    assert hostile != text
    for load in (Match.from_json, Match.replay):
        with pytest.raises(errors.FormatError):
            load(hostile)


@pytest.mark.parametrize("bad", [NAN, INF, -INF])
def test_from_json_refuses_a_dict_with_numbers_that_are_not_finite(bad):
    m, _ = clocked_match()
    for part, change in (("state", lambda d: d["state"]["timers"].update(roll=bad)),
                         ("config", lambda d: d["config"].update(created=bad)),
                         ("events", lambda d: d["events"][0].update(t=bad)),
                         ("house", lambda d: d["config"]["house"].update(turn_time=bad))):
        d = m.to_dict()
        change(d)
        with pytest.raises(errors.FormatError):
            Match.from_json(d)


def test_to_json_is_strict_json_after_actions_and_refused_times():
    m, c = clocked_match(step_time=20, stake=0)
    for t in (NAN, INF):
        with pytest.raises(errors.InvalidAction):
            m.on_timeout(t)
        c.t = t
        with pytest.raises(errors.InvalidAction):
            m.roll(m.turn)
        c.t = 100.0
    rng = np.random.default_rng(0)
    for i in range(40):
        c.t = 100.0 + 7 * i
        if m.phase == "over":
            break
        if i % 9 == 4 and m.phase in ("roll", "move"):
            m.resign(m.turn)
            c.t += 1
            m.reject_resignation(1 - m.turn)
        elif i % 5 == 3 and m.deadline is not None:
            m.on_timeout(m.deadline)
        elif m.phase == "roll":
            m.roll(m.turn)
        elif m.phase == "move":
            ms = m.legal_moves()
            m.play(m.turn, ms[int(rng.integers(len(ms)))])
        elif m.phase == "double":
            m.take(1 - m.turn)
        doc = strict_json(m.to_json())
        assert doc == m.to_dict()
    assert Match.from_json(m.to_json()).to_json() == m.to_json()


def test_to_json_fails_loudly_on_a_number_that_is_not_finite():
    m, _ = clocked_match()
    m._turn_clock = TurnClock({"roll": NAN})  # what no action leaves
    with pytest.raises(ValueError):
        m.to_json()
