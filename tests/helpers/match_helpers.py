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
