"""Every match action is applied whole or not at all, and what a turn keeps between actions
(the lit steps per prefix, the legal moves, the finals) equals what a fresh load computes."""

import json

import numpy as np
import pytest

import tawla
from tawla import native
from tawla import errors
from tawla.match import Match
from match_helpers import Clock, craft, pos, snapshot_unchanged


def _state_text(g):
    return json.dumps(g.bit_generator.state, sort_keys=True, default=lambda a: a.tolist())


# --- actions are all-or-nothing; what a turn keeps between actions --------------------------------
class TestTransactions:
    def test_a_failing_timeout_policy_changes_nothing(self):
        def boom(position, dice, played, candidates):
            raise ValueError("policy failed")

        def stranger(position, dice, played, candidates):
            return tawla.get_ruleset("bg").initial_position().legal_moves((3, 1))[0]

        c = Clock(0)
        for seed in range(40):
            m = Match("bg", tawla.get_house("international", turn_time=60), 7, rng=seed, clock=c)
            if m.phase == "move" and len(m.legal_moves()) > 1:
                break
        s = m.legal_steps()[0]
        m.step(m.turn, s.from_point, s.to_point, dice=s.dice)
        for policy, exc in ((boom, ValueError), (stranger, errors.InvalidAction)):
            m2 = Match.from_json(m.to_json(), clock=c, timeout_policy=policy)
            snapshot_unchanged(m2, lambda: m2.on_timeout(60), exc)
            assert m2.legal_steps() == m.legal_steps() and m2.played_steps == m.played_steps

    def test_a_roll_that_fails_after_the_throw_puts_the_dice_back(self):
        # one checker left on point 1: every roll bears it off (a forced move, the turn ends at
        # once), and a cube that is not a power of two makes the end of the turn fail
        m = Match("bg", "international", 7, rng=3)
        board = pos("bg", {1: 1}, {19: 15})
        bad = craft(m, board=board, turn=0, phase="roll", cube=3, owner=1)
        rng_before = json.loads(bad.to_json())["state"]["rng"]
        snapshot_unchanged(bad, lambda: bad.roll(0), errors.InvalidAction)  # the rng state included
        good = craft(m, board=board, turn=0, phase="roll", cube=2, owner=1)
        assert json.loads(good.to_json())["state"]["rng"] == rng_before
        good.roll(0)  # the same roll with a good cube: dice thrown, the game won
        assert json.loads(good.to_json())["state"]["rng"] != rng_before
        assert good.games[-1]["winner"] == 0 and good.games[-1]["points"] == 2 * 2

    @pytest.mark.parametrize("bit_generator", ["PCG64", "PCG64DXSM", "MT19937", "Philox", "SFC64"])
    def test_a_failed_roll_puts_back_the_state_of_any_bit_generator(self, bit_generator):
        # the raw copy of numpy's PCG64 and the state dict of the others restore alike
        board = pos("bg", {1: 1}, {19: 15})
        for half_output_buffered in (False, True):
            g = np.random.Generator(getattr(np.random, bit_generator)(5))
            if half_output_buffered:
                g.integers(0, 2**31)  # a 32-bit draw may leave half of a 64-bit output buffered
            m = Match("bg", "international", 7, rng=g)
            bad = craft(m, board=board, turn=0, phase="roll", cube=3, owner=1)
            before = bad._rng.bit_generator.state
            snapshot_unchanged(bad, lambda: bad.roll(0), errors.InvalidAction)
            assert _state_text(bad._rng) == _state_text(g)
            dice = [int(g.integers(1, 7)) for _ in range(2)]
            g.bit_generator.state = before
            good = craft(bad, board=board, turn=0, phase="roll", cube=2, owner=1)
            good.roll(0)
            assert [e["dice"] for e in good.events if e["type"] == "roll"][-1] == dice

    def test_the_raw_pcg64_copy_is_checked_at_import(self):
        if not native.available():
            pytest.skip("the compiled engine is not built")
        assert native.backend.compiled("_dice").rng_snapshot_check() is True

    @pytest.mark.parametrize("rs, house", [("bg", "international"), ("tawla31", "federation"),
                                           ("mahbusa", "saharat"), ("adi", "saharat")])
    def test_kept_lit_steps_equal_a_fresh_load_at_every_step_and_undo(self, rs, house):
        rng = np.random.default_rng(4)
        m = Match(rs, house, rng=21)
        checked = 0
        for _ in range(400):
            if m.phase == "over":
                break
            if m.phase != "move":
                m.roll(m.turn)
                continue
            js = m.to_json()
            fresh = Match.from_json(js)
            assert m.legal_steps() == fresh.legal_steps()
            assert m.legal_moves() == fresh.legal_moves()
            assert m.position == fresh.position and m.dice_left == fresh.dice_left
            assert m.to_json() == js  # queries leave the state as it is
            checked += 1
            lit = m.legal_steps()
            x = rng.random()
            if m.played_steps and x < 0.3:
                m.undo(m.turn)
            elif lit:
                s = lit[int(rng.integers(len(lit)))]
                m.step(m.turn, s.from_point, s.to_point, dice=s.dice)
            else:
                m.confirm(m.turn)
        assert checked > 50
