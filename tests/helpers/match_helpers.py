"""Helpers of the match tests: a hand-moved clock, crafted match states, snapshot checks."""

import numpy as np
import pytest

import tawla
from tawla import errors
from tawla.match import Match, _rng_state_to_json
from tawla.position import Position

class Clock:
    """A fake clock the tests move by hand."""

    def __init__(self, t=1000.0):
        self.t = t

    def __call__(self):
        return self.t


def rng_state_for(values):
    """The state of a Generator whose next dice (integers(1, 7)) are ``values``."""
    for seed in range(200000):
        g = np.random.default_rng(seed)
        if all(int(g.integers(1, 7)) == v for v in values):
            return _rng_state_to_json(np.random.default_rng(seed).bit_generator.state)
    raise AssertionError("no seed found")


def craft(m, *, board=None, turn=None, phase=None, dice=None, next_dice=None, **state):
    """A copy of ``m`` with parts of its state replaced (through to_dict and the unchecked Match._restore)."""
    d = m.to_dict()
    st = d["state"]
    if board is not None:
        st["board"] = board.id()
    if turn is not None:
        st["turn"] = turn
    if phase is not None:
        st["phase"] = phase
        st["played"] = []
        st["timers"] = {}
    if dice is not None:
        st["dice"] = list(dice)
    if next_dice is not None:
        st["rng"] = rng_state_for(next_dice)
    st.update(state)
    return Match._restore(d, clock=m._clock)


def pos(ruleset, me, opp, **kw):
    return Position.from_points(tawla.get_ruleset(ruleset), me, opp, **kw)


def snapshot_unchanged(m, fn, exc=errors.TawlaError):
    """Run fn, which must raise ``exc``, and check the JSON did not change."""
    before = m.to_json()
    with pytest.raises(exc) as info:
        fn()
    assert m.to_json() == before
    return info.value


def to_roll_phase(m):
    """Play first legal moves until someone must roll (or the game changes)."""
    while m.phase == "move":
        m.play(m.turn, m.legal_moves()[0])


def end_game_by_resignation(m, loser, kind="single"):
    if m.phase not in ("roll", "move"):
        raise AssertionError(m.phase)
    m.resign(loser, kind)
    m.accept_resignation(1 - loser)


def random_move_action(m, p, rng, *, by_steps: bool, undo_below: float = 0.0, x: float = 1.0):
    """One random legal action of player ``p`` in the move phase of ``m``.

    ``x < undo_below`` (with steps made) takes one back; ``by_steps`` (or steps already
    made) plays a random lit step, or confirms once nothing is lit; otherwise a random
    whole move of ``legal_moves`` is played. ``rng`` is a numpy Generator.
    """
    if m.played_steps and x < undo_below:
        m.undo(p)
    elif m.played_steps or by_steps:
        ls = m.legal_steps()
        if ls:
            s = ls[int(rng.integers(len(ls)))]
            m.step(p, s.from_point, s.to_point, dice=s.dice)
        else:
            m.confirm(p)
    else:
        ms = m.legal_moves()
        m.play(p, ms[int(rng.integers(len(ms)))])


def drive(m, rng, clock, n):
    """Play ``n`` random actions (some of them refused) on ``m``; returns the match.

    Every kind of input event is used: rolls, steps (with and without their dice), undos,
    confirmations, whole moves (as a Move and as text), doubles, takes and drops,
    resignations of every kind with their answers, disconnects and reconnects, timeouts
    in every phase and, in money sessions, leaving. A refused action is a
    :class:`tawla.errors.TawlaError` and must leave the document unchanged.
    """
    for _ in range(n):
        if m.phase == "over":
            break
        clock.t += int(rng.integers(0, 25))
        x = float(rng.random())
        p = m.to_act
        before = m.to_json()
        try:
            if m.deadline is not None and (clock.t >= m.deadline or x < 0.04):
                clock.t = max(clock.t, m.deadline)
                m.on_timeout(clock.t)
            elif x < 0.055:
                who = int(rng.integers(2))
                (m.reconnect if m.away[who] is not None else m.disconnect)(who)
            elif m.length == 0 and x < 0.057:
                m.leave(int(rng.integers(2)))
            elif m.phase == "roll":
                if x < 0.2:
                    if m.can_double(p):
                        m.double(p)
                    else:
                        m.roll(p)
                elif x < 0.206:
                    m.resign(int(rng.integers(2)), ("single", "gammon", "backgammon")[int(rng.integers(3))])
                elif x < 0.21:
                    m.roll(1 - p)  # refused: not his turn
                else:
                    m.roll(p)
            elif m.phase == "double":
                (m.take if x < 0.7 else m.drop)(p)
            elif m.phase == "resign":
                (m.accept_resignation if x < 0.35 else m.reject_resignation)(p)
            elif m.phase == "move":
                played = m.played_steps
                if played and x < 0.15:
                    m.undo(p)
                elif x < 0.155:
                    m.resign(p, "single")
                elif not played and x < 0.45:
                    ms = m.legal_moves()
                    mv = ms[int(rng.integers(len(ms)))]
                    m.play(p, str(mv) if x < 0.3 else mv)
                else:
                    ls = m.legal_steps()
                    if not ls:
                        m.confirm(p)
                    else:
                        s = ls[int(rng.integers(len(ls)))]
                        if x < 0.7:
                            m.step(p, s.from_point, s.to_point, dice=s.dice)
                        else:
                            m.step(p, s.from_point, s.to_point)
        except errors.TawlaError:
            assert m.to_json() == before
    return m
