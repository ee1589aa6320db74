"""Probabilities a roll or two ahead (tawla.bots.lookahead) against a plain loop over the
rolls and the legal moves, and the searching levels' ranking at a match score."""

from __future__ import annotations

import numpy as np
import pytest

from tawla import Bot, Move, Position
from tawla.analysis.evaluators import SearchEvaluator
from tawla.bots.lookahead import flip_columns, preroll_columns
from tawla.core.dice import ROLL_WEIGHTS, ROLLS
from tawla.evaluation import evaluate_rows
from tawla.errors import InvalidArgument
from tawla.formats.gnubg import MatchState
from tawla.met import ScoreState
from tawla.rules import get_ruleset

BG = get_ruleset("backgammon")
# a bear-off with contact left behind: few moves a roll, gammons and hits both possible
POSITIONS = [Position.from_points(BG, {1: 2, 2: 3, 3: 2, 5: 1, 24: 1}, {19: 2, 21: 3, 22: 2, 6: 1}),
             Position.from_gnubg_id("4HPwATDgc/ABMA")]


def _columns(bot, rows):
    return evaluate_rows(rows, BG, contact=bot.contact).astype(np.float32).astype(np.float64)


def _by_loop(bot, pos, plies):
    """The pre-roll columns of ``pos`` by a loop over its rolls and legal moves."""
    if pos.result() is not None:
        return _columns(bot, pos.to_array()[None])[0]
    out = np.zeros(6)
    for (a, b), w in zip(ROLLS, ROLL_WEIGHTS):
        dice = (int(a), int(b))
        after = [pos.play(m) for m in pos.legal_moves(dice) or [Move.passing(pos.row, dice, BG)]]
        rows = np.stack([p.to_array() for p in after])
        mine = flip_columns(_columns(bot, rows))
        k = int(np.argmax(mine[:, 0]))
        if plies >= 2:
            mine[k] = flip_columns(_by_loop(bot, after[k], plies - 1)[None])[0]
        out += w * mine[k]
    return out


@pytest.mark.parametrize("plies", [1, 2])
def test_preroll_columns_equal_a_loop(plies):
    bot = Bot(BG, "net0")
    pos = POSITIONS[0]
    got = preroll_columns(pos.to_array()[None], BG, lambda x: _columns(bot, x), plies)[0]
    assert got == pytest.approx(_by_loop(bot, pos, plies), abs=1e-12)
    if plies == 1:
        assert np.array_equal(bot.preroll(pos), got)


def test_many_rows_at_once_equal_one_at_a_time():
    bot = Bot(BG, "net0")
    rows = np.stack([p.to_array() for p in POSITIONS])
    together = preroll_columns(rows, BG, lambda x: _columns(bot, x), 2)
    for row, want in zip(rows, together):
        assert preroll_columns(row[None], BG, lambda x: _columns(bot, x), 2)[0] == pytest.approx(want, abs=1e-12)


def test_the_searching_levels_rank_at_the_score_deeper():
    """net2 at a score: the best plays valued 2 plies ahead, listed first; net1 one ply."""
    pos = POSITIONS[1]
    state = MatchState(match_length=7, score=(2, 5))
    two = Bot(BG, "net2").hint(pos, (6, 2), match_state=state)
    assert two[0].ply == 2 and {r.ply for r in two} >= {0, 1, 2}
    plies = [r.ply for r in two]
    assert plies == sorted(plies, reverse=True)
    one = Bot(BG, "net1").hint(pos, (6, 2), match_state=state)
    assert one[0].ply == 1 and max(r.ply for r in one) == 1
    assert Bot(BG, "net2").choose(pos, (6, 2), match_state=state) == two[0].move


def test_the_analysis_search_at_the_score():
    """tawla analyze --level net1: plays by the bot's search at the score, cube decisions on
    probabilities a roll ahead (Bot.preroll's)."""
    ev = SearchEvaluator("net1")
    pos = POSITIONS[1]
    children = np.stack([np.frombuffer(pos.play(m).row, np.uint8) for m in pos.legal_moves((6, 2))]).copy()
    state = ScoreState(7, 5, 3)
    want, ply = Bot(BG, "net1").values_at_score(children, state)
    assert np.array_equal(ev.values_at_score(children, BG, state), want) and ply.max() == 1
    probs = ev.cube_probabilities(pos.to_array()[None], BG)[0]
    assert probs == pytest.approx(Bot(BG, "net1").preroll(pos), abs=1e-6)
    with pytest.raises(InvalidArgument):
        Bot(BG, "net1").values_at_score(children, MatchState())
