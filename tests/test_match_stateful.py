"""Random adversaries against the server engine.

* A Hypothesis rule-based state machine fires any action, as either player (or as no
  player at all), at any time, across every ruleset and house: no illegal move and no
  out-of-turn action is accepted, a rejected action leaves the JSON snapshot identical,
  every move the engine accepts is one of ``Position.legal_moves`` (checked on a shadow
  board built from the event log alone), every game ends, and the scores add up.
* Whole matches between two random players, serialised and restored after every action
  (and replayed from the log), end in the same state as without the round trips.
"""

import numpy as np
import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import (RuleBasedStateMachine, initialize, invariant, precondition, rule,
                                 run_state_machine_as_test)

import tawla
from tawla import errors
from tawla.match import PHASES, Match
from match_helpers import random_move_action


class Clock:
    def __init__(self, t=0.0):
        self.t = t

    def __call__(self):
        return self.t


# Every ruleset in every house that offers it; timers on and off; coin tables; Holland;
# money sessions. Lengths are kept short so that a run stays quick.
CONFIGS = [
    ("tawla31", "federation", {}, 1),
    ("tawla31", "federation", {"turn_time": 30}, 11),
    ("adi", "federation", {"turn_time": None}, 3),
    ("adi", "saharat", {}, 1),
    ("mahbusa", "saharat", {"stake": 100, "grace_period": 40}, 5),
    ("mahbusa", "saharat", {"ruleset_options": {"mother_rule": "plakoto"}}, 1),
    ("tawla31-saharat", "saharat", {"stake": 10}, 1),
    ("tawla31-saharat", "saharat", {}, 5),
    ("backgammon", "international", {}, 3),
    ("backgammon", "international", {"holland": True, "turn_time": 60}, 3),
    ("backgammon", "international", {"turn_time": 20, "step_time": 10}, 0),
    ("backgammon", "international", {"jacoby": False, "crawford": False}, 0),
    ("adi", "international", {"ruleset_options": {"previous_winner_starts": True}}, 2),
    ("tawla31", "international", {"ruleset_options": {"opening_reroll": False}}, 15),
]

ACTIONS = ("roll", "step", "undo", "confirm", "play", "double", "take", "drop", "resign",
           "accept_resignation", "reject_resignation", "leave", "disconnect", "reconnect",
           "on_timeout")


def legal_action(m, rng, clock=None):
    """One random legal action by the player expected to act (a random player)."""
    p = m.to_act
    x = rng.random()
    if clock is not None and m.deadline is not None and x < 0.05:
        clock.t = max(clock.t, m.deadline)
        m.on_timeout(clock.t)
        return
    if m.phase == "roll":
        if m.can_double(p) and x < 0.1:
            m.double(p)
        elif x < 0.11:
            m.resign(int(rng.integers(2)), "single")
        else:
            m.roll(p)
    elif m.phase == "double":
        (m.take if x < 0.7 else m.drop)(p)
    elif m.phase == "resign":
        (m.accept_resignation if x < 0.4 else m.reject_resignation)(p)
    elif m.phase == "move":
        random_move_action(m, p, rng, by_steps=x < 0.5, undo_below=0.08, x=x)


class MatchMachine(RuleBasedStateMachine):
    """Any action, by anyone, at any time."""

    cfg = CONFIGS[0]

    @initialize(seed=st.integers(0, 2 ** 32 - 1))
    def start(self, seed):
        self.finished = 0
        self.new_match(seed)

    def new_match(self, seed):
        rs, house, overrides, length = self.cfg
        self.clock = Clock(0.0)
        self.m = Match(rs, tawla.get_house(house, **overrides), length, rng=seed, clock=self.clock)
        self.rng = np.random.default_rng(seed)
        self.seen = 0  # events checked on the shadow board so far
        self.shadow = None
        self.turns_in_game = 0
        self.accepted = 0
        self.check_new_events()

    @precondition(lambda self: self.m.phase == "over")
    @rule(seed=st.integers(0, 2 ** 32 - 1))
    def next_match(self, seed):
        """The match is over: check its replay, then start another one."""
        js = self.m.to_json()
        assert Match.replay(js).to_json() == js
        self.finished += 1
        self.new_match(seed)

    # --- the independent check of the log: every turn is a legal move of the foundation ----
    def check_new_events(self):
        m = self.m
        events = m.events
        assert events[:self.seen] == self._prefix if self.seen else True
        for ev in events[self.seen:]:
            typ = ev["type"]
            if typ == "game_start":
                self.shadow = {m.ruleset.initial_position()}
                self.turns_in_game = 0
            elif typ == "turn":
                self.turns_in_game += 1
                assert self.turns_in_game < 3000, "a game that does not end"
                nxt = set()
                for pos in self.shadow:
                    legal = pos.legal_moves(tuple(ev["dice"]))
                    if ev["move"] == "":
                        if not legal:
                            nxt.add(pos.flip())
                        continue
                    if ev["how"] == "forced" and len(legal) != 1:
                        continue
                    try:
                        mv = tawla.parse_move(ev["move"], pos, tuple(ev["dice"]))
                        nxt.add(pos.play(mv))
                    except errors.AmbiguousMove as e:
                        nxt.update(pos.play(x) for x in e.legal)
                    except errors.IllegalMove:
                        continue
                assert nxt, f"the engine accepted an illegal turn: {ev}"
                self.shadow = nxt
        self.seen = len(events)
        self._prefix = events
        if m.phase in ("roll", "move") and not m.played_steps:
            assert m.turn_start_position in self.shadow
            self.shadow = {m.turn_start_position}

    # --- the adversary ------------------------------------------------------------------
    @rule(action=st.sampled_from(ACTIONS), who=st.sampled_from(["to_act", "other", 0, 1, 2]),
          data=st.data())
    def anything(self, action, who, data):
        m = self.m
        if action == "leave" and data.draw(st.integers(0, 4)):
            action = "resign"  # leaving ends the match: keep it rarer
        if who == "to_act":
            player = m.to_act if m.to_act is not None else 0
        elif who == "other":
            player = 1 - m.to_act if m.to_act is not None else 1
        else:
            player = who
        before = m.to_json()
        phase, turn, to_act = m.phase, m.turn, m.to_act
        legal_steps = m.legal_steps()
        legal_moves = m.legal_moves()
        can_double = m.can_double(player) if player in (0, 1) else False
        played = m.played_steps
        deadline = m.deadline
        offer = m.offer
        start, dice = m.turn_start_position, m.dice
        args = ()
        kwargs = {}
        if action == "step":
            if legal_steps and data.draw(st.booleans()):
                s = data.draw(st.sampled_from(legal_steps))
                args = (s.from_point, s.to_point)
                if data.draw(st.booleans()):
                    kwargs = {"dice": s.dice}
            else:
                args = (data.draw(st.integers(-1, 26)), data.draw(st.integers(-1, 26)))
                if data.draw(st.booleans()):
                    kwargs = {"dice": data.draw(st.integers(0, 7))}
        elif action == "play":
            if legal_moves and data.draw(st.booleans()):
                args = (data.draw(st.sampled_from(legal_moves)),)
            else:
                args = (data.draw(st.sampled_from(["", "24/18 13/11", "8/5 6/5", "24/20(2)", "bar/22",
                                                   "6/off", "13/7*/4", "garbage", "1/0"])),)
        elif action == "resign":
            args = (data.draw(st.sampled_from(["single", "gammon", "backgammon", "mars"])),)
        elif action == "on_timeout":
            if deadline is not None and data.draw(st.booleans()):
                self.clock.t = max(self.clock.t, deadline)
                now = self.clock.t
            else:
                now = self.clock.t + data.draw(st.integers(0, 40))
            player = None
            args = (now,)
        call = getattr(m, action)
        try:
            if action == "on_timeout":
                call(*args)
            else:
                call(player, *args, **kwargs)
        except errors.TawlaError as e:
            assert m.to_json() == before, f"rejected {action} changed the state"
            if phase != "over" and player in (0, 1):
                if action in ("roll", "step", "undo", "confirm", "play", "double") and player != turn:
                    assert isinstance(e, errors.NotYourTurn), (action, phase, e)
                if action in ("take", "drop") and phase == "double" and player == turn:
                    assert isinstance(e, errors.NotYourTurn)
                if (action in ("accept_resignation", "reject_resignation") and phase == "resign"
                        and player == offer["player"]):
                    assert isinstance(e, errors.NotYourTurn)
            return
        self.accepted += 1
        # accepted: it must have been allowed
        assert phase != "over"
        if action == "on_timeout":
            assert deadline is not None and args[0] >= deadline
        elif action in ("roll", "step", "undo", "confirm", "play", "double"):
            assert player == turn == to_act
            assert phase == {"roll": "roll", "double": "roll"}.get(action, "move")
            if action == "step":
                assert any((s.from_point, s.to_point) == args and
                           ("dice" not in kwargs or s.dice == (kwargs["dice"] if isinstance(kwargs["dice"], tuple)
                                                               else (kwargs["dice"],)))
                           for s in legal_steps)
            elif action == "undo":
                assert played
            elif action == "confirm":
                assert played and not legal_steps
            elif action == "play":
                assert not played
                if isinstance(args[0], str):
                    assert tawla.parse_move(args[0], start, dice) in legal_moves
                else:
                    assert args[0] in legal_moves
            elif action == "double":
                assert can_double and m.cube_in_play
        elif action in ("take", "drop"):
            assert phase == "double" and player == to_act != turn
        elif action in ("accept_resignation", "reject_resignation"):
            assert phase == "resign" and player == to_act != offer["player"]
        elif action == "resign":
            assert phase in ("roll", "move") and player in (0, 1)
        self.check_new_events()

    @rule()
    def random_player(self):
        """A legal action by whoever must act (drives games forward)."""
        if self.m.phase != "over":
            legal_action(self.m, self.rng, self.clock)
            self.check_new_events()

    @rule(dt=st.integers(0, 90))
    def time_passes(self, dt):
        self.clock.t += dt

    # --- invariants -----------------------------------------------------------------------
    @invariant()
    def consistent(self):
        m = self.m
        assert m.phase in PHASES
        tot = [0, 0]
        for g in m.games:
            if g["winner"] is not None:
                tot[g["winner"]] += g["points"]
                assert g["points"] >= 1
            else:
                assert g["points"] == 0 and g["kind"] == "draw"
        assert tuple(tot) == m.score
        if m.phase == "over":
            if m.end_reason == "score":
                assert m.score[m.winner] >= m.length > 0
                assert m.score[1 - m.winner] < m.length
        elif m.length:
            assert max(m.score) < m.length
        if m.phase == "move":
            assert m.dice is not None
        assert m.cube_value >= 1 and (m.cube_value == 1) == (m.cube_owner is None)

    @invariant()
    def json_roundtrip(self):
        js = self.m.to_json()
        assert Match.from_json(js).to_json() == js

    def teardown(self):
        if not hasattr(self, "m"):
            return
        m = self.m
        js = m.to_json()
        assert Match.replay(js).to_json() == js
        # every game ends: play the match out (a money session: a few games, then leave)
        games_target = m.game_number + 3
        for _ in range(20000):
            if m.phase == "over":
                break
            if m.length == 0 and m.game_number >= games_target:
                m.leave(int(self.rng.integers(2)))
                break
            legal_action(m, self.rng, self.clock)
        self.check_new_events()
        assert m.phase == "over"
        js = m.to_json()
        assert Match.replay(js).to_json() == js


def run_machine(cfg, examples, steps):
    machine = type("MatchMachine_" + cfg[0].replace("-", "_"), (MatchMachine,), {"cfg": cfg})
    run_state_machine_as_test(
        machine,
        settings=settings(max_examples=examples, stateful_step_count=steps, deadline=None,
                          suppress_health_check=list(HealthCheck), database=None),
    )


CFG_IDS = [f"{c[0]}-{c[1]}-{c[3]}" for c in CONFIGS]


@pytest.mark.parametrize("cfg", CONFIGS, ids=CFG_IDS)
def test_random_adversary(cfg):
    """Per configuration 8 runs of up to 100 steps (about 11,000 steps in all, plus every match
    played out at the end)."""
    run_machine(cfg, 8, 100)


@pytest.mark.slow
@pytest.mark.parametrize("cfg", CONFIGS, ids=CFG_IDS)
def test_random_adversary_long(cfg):
    run_machine(cfg, 30, 200)


# --- serialised after every action ---------------------------------------------------------------
@pytest.mark.parametrize("cfg", CONFIGS, ids=CFG_IDS)
def test_roundtrip_after_every_action_ends_the_same(cfg):
    rs, house, overrides, length = cfg
    h = tawla.get_house(house, **overrides)
    results = []
    for roundtrip in (False, True):
        clock = Clock(0.0)
        m = Match(rs, h, length, rng=77, clock=clock)
        rng = np.random.default_rng(5)
        for i in range(30000):
            if m.phase == "over":
                break
            clock.t += 1
            if m.length == 0 and m.game_number > 3:
                m.leave(0)
                break
            legal_action(m, rng, clock)
            if roundtrip:
                js = m.to_json()
                m = Match.replay(js, clock=clock) if i % 101 == 50 else Match.from_json(js, clock=clock)
        assert m.phase == "over"
        results.append(m.to_json())
    assert results[0] == results[1]
