"""Cube decisions inside the search at a backgammon match score (tawla.bots.cubeful) against a
plain loop over the rolls and moves with tawla.met.MatchCube at every leaf."""

from __future__ import annotations

import numpy as np
import pytest

from tawla import Bot, Position, native
from tawla.bots import cubeful
from tawla.bots.cube import cube_efficiency
from tawla.bots.cubeful import OPTIMAL, cubeful_decision, cubeful_mwc, model_mwc
from tawla.errors import InvalidArgument
from tawla.formats.gnubg import MatchState
from tawla.met import MatchCube, ScoreState, default_met
from tawla.rules import get_ruleset

BG = get_ruleset("backgammon")
BOT = Bot(BG, "net1")
POS = Position.from_gnubg_id("sNvBATDYc+ABMA")
T = default_met()


def _leaf(child: Position, state: ScoreState, plies: int) -> float:
    """The mover's chance after a move: 1 less the opponent's cubeful chance."""
    a = child.to_array()[None]
    if plies == 0:
        x = float(cube_efficiency(a, BG)[0])
        return 1.0 - MatchCube.from_probabilities(np.clip(BOT.columns(a)[0][1:6], 0, 1), state.flipped(), x, T).optimal_mwc
    return 1.0 - _decide(child, state.flipped(), plies)


def _branch(pos: Position, state: ScoreState, plies: int) -> float:
    total = 0.0
    for d1 in range(1, 7):
        for d2 in range(d1, 7):
            moves = pos.legal_moves((d1, d2))
            kids = [pos.play(m) for m in moves] if moves else [pos.play(None, (d1, d2))]
            if plies == 1:
                best = max(_leaf(k, state, 0) for k in kids)
            else:  # the best at 0 ply, searched deeper
                k = max(kids, key=lambda k: _leaf(k, state, 0))
                best = _leaf(k, state, plies - 1)
            total += (1 if d1 == d2 else 2) / 36 * best
    return total


def _decide(pos: Position, state: ScoreState, plies: int) -> float:
    nd = _branch(pos, state, plies)
    if not state.may_double:
        return nd
    return max(nd, min(_branch(pos, state.doubled(), plies), state.me(state.cube, 0, T)))


@pytest.mark.parametrize("state", [ScoreState(7, 5, 3), ScoreState(5, 3, 1), ScoreState(7, 2, 4, 2, 1),
                                   ScoreState(5, 1, 3, crawford=True)])
def test_one_ply_is_the_loop_over_rolls_and_moves(state):
    got = cubeful_mwc(POS.to_array()[None], BG, [state], BOT.columns, 1)[0, 0]
    nd = _branch(POS, state, 1)
    assert got[0] == pytest.approx(nd, abs=1e-12)
    if state.may_double:
        assert got[1] == pytest.approx(_branch(POS, state.doubled(), 1), abs=1e-12)
        assert got[2] == state.me(state.cube, 0, T)
    assert got[OPTIMAL] == pytest.approx(_decide(POS, state, 1), abs=1e-12)


def test_two_plies_search_the_best_move_of_each_roll():
    state = ScoreState(7, 5, 3)
    d = cubeful_decision(POS.to_array(), BG, state, BOT.columns, 2)
    assert d.optimal_mwc == pytest.approx(_decide(POS, state, 2), abs=1e-12)
    win, lose = state.me(1, 0, T), state.me(0, 1, T)
    assert d.no_double == pytest.approx((2 * d.no_double_mwc - win - lose) / (win - lose), abs=1e-12)  # EMG


def test_the_bot_and_its_levels():
    """net1/net2 decide by the cubeful search; net0 keeps the model on probabilities a roll
    ahead; the plays at the score of the searching levels see the opponent's cube inside."""
    ms = MatchState(match_length=7, score=(2, 4))
    state = ScoreState(7, 5, 3)
    for level, plies in (("net1", 1), ("net2", 2)):
        got = Bot(BG, level).cube_action(POS, match_state=ms)
        assert got == cubeful_decision(POS.to_array(), BG, state, BOT.columns, plies)
    zero = Bot(BG, "net0").cube_action(POS, match_state=ms)
    assert zero == MatchCube.from_probabilities(Bot(BG, "net0").preroll(POS), state,
                                                float(cube_efficiency(POS.row, BG)[0]))
    ranked = Bot(BG, "net1").hint(POS, (6, 2), match_state=ms)
    top = [r for r in ranked if r.ply == 1]
    children = np.stack([POS.play(r.move).to_array() for r in top])
    emg, _ = cubeful.cubeful_play_values(children, BG, state, BOT.columns, 1)
    assert [r.value for r in top] == pytest.approx(list(emg), abs=1e-12)


def test_the_model_at_every_row_with_its_own_efficiency(monkeypatch):
    rows = np.stack([POS.play(m).to_array() for m in POS.legal_moves((6, 2))])
    cols = BOT.columns(rows)
    state = ScoreState(7, 3, 5, 2, -1)
    got = model_mwc(cols, rows, BG, state, T)
    x = cube_efficiency(rows, BG)
    for i in range(len(rows)):
        m = MatchCube.from_probabilities(np.clip(cols[i][1:6], 0, 1), state, float(x[i]), T)
        assert list(got[i]) == pytest.approx([m.no_double_mwc, m.double_take_mwc, m.double_pass_mwc, m.optimal_mwc],
                                             abs=1e-12)
    monkeypatch.setattr(native, "available", lambda name=None: False)  # the Python model
    assert model_mwc(cols, rows, BG, state, T) == pytest.approx(got, abs=1e-12)


@pytest.mark.skipif(not native.available("rollout"), reason="the compiled engine is not built")
def test_the_compiled_model_takes_an_efficiency_a_row():
    cols = BOT.columns(POS.to_array()[None].repeat(3, 0))
    a, _ = native.cube_match(cols, T, 5, 3, efficiency=np.array([0.5, 0.68, 0.9]))
    for i, x in enumerate((0.5, 0.68, 0.9)):
        assert list(a[i]) == list(native.cube_match(cols[i:i + 1], T, 5, 3, efficiency=x)[0][0])
    for bad in (np.array([0.5, 0.6]), np.array([0.5, 1.2, 0.5]), np.zeros((3, 1)), "abc", [0.5, None, 0.5]):
        with pytest.raises(InvalidArgument):
            native.cube_match(cols, T, 5, 3, efficiency=bad)


@pytest.mark.skipif(not native.available("rollout"), reason="the compiled engine is not built")
def test_the_trial_loop_refuses_malformed_cube_settings():
    from tawla.rollout.evaluator import trial_evaluator
    ev = trial_evaluator(BG, "net0")
    rows = POS.to_array()[None]
    for kw in (dict(efficiency_by_class="abcdef"), dict(efficiency_by_class=(0.68, float("nan"), 0, 0.6, 0.7, 0.6)),
               dict(efficiency_by_class=(0.68, 0.55, 0.00125, 0.7, 0.6, 0.6)), dict(match=(1, 2, 3)), dict(match="x")):
        with pytest.raises(InvalidArgument):
            native.rollout_trials(rows, BG, ev.contact, **ev.compiled_args(), cubeful=True, **kw)


def test_the_cube_command_and_service_at_net1_search(capsys):
    """``tawla cube --level net1`` (and ``POST /v1/cube``) at a match score: the bot's cubeful
    1-ply decision, as ``tawla analyze --level net1`` takes; money: the model a roll ahead."""
    from tawla.bots.policies import cube_analysis
    from tawla.cli import main
    ms = MatchState(match_length=7, score=(2, 4))
    probs, d = cube_analysis(POS, ms, "net1")
    assert d == Bot(BG, "net1").cube_action(POS, match_state=ms)
    assert list(probs) == pytest.approx(list(Bot(BG, "net0").preroll(POS)))
    assert main(["cube", "sNvBATDYc+ABMA", "--length", "7", "--score", "2-4", "--level", "net1", "--json"]) == 0
    import json
    out = json.loads(capsys.readouterr().out)
    assert out["no_double_mwc"] == pytest.approx(d.no_double_mwc, abs=1e-6)
    money = MatchState(match_length=0)
    assert cube_analysis(POS, money, "net1")[1] == Bot(BG, "net0").cube_action(POS, match_state=money)
