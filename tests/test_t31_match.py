"""Tawla 31 played for the match: the points won and lost apart, their distribution, and the
bot's plays by match-winning chance (RULES.md §5.7)."""

from __future__ import annotations

import numpy as np
import pytest

from tawla import Bot, Match, Position
from tawla.bots.policies import MatchView, bot_action
from tawla.bots.score import match_score, play_values_by_points, preroll_outcomes
from tawla.errors import ConfigError
from tawla.evaluation import evaluate_rows
from tawla.evaluation.linear import LinearContact
from tawla.evaluation.net import shipped_net
from tawla.evaluation.nohit import nohit_contact
from tawla.evaluation.points import MARGINS, points_distribution, t31_outcomes
from tawla.formats.gnubg import MatchState
from tawla.met import variant_met
from tawla.met.variants import variant_distribution
from tawla.evaluation.points import _prior
from tawla.rules import get_ruleset

T31 = get_ruleset("tawla31")


def _positions(n: int, seed: int) -> np.ndarray:
    """Rows of tawla31 games the net plays against itself, openings to bear-offs and ends."""
    bot = Bot("tawla31", "net0", seed=seed)
    rng = np.random.default_rng(seed)
    rows = []
    while len(rows) < n:
        pos = T31.initial_position()
        while pos.result() is None and len(rows) < n:
            rows.append(np.frombuffer(pos.row, dtype=np.uint8))
            pos = pos.play(bot.choose(pos, tuple(int(d) for d in rng.integers(1, 7, 2))))
        if pos.result() is not None:
            rows.append(np.frombuffer(pos.row, dtype=np.uint8))
    return np.stack(rows[:n]).copy()


@pytest.fixture(scope="module")
def rows():
    return _positions(400, 5)


@pytest.mark.parametrize("model", ["net", "nohit"])
def test_outcomes_agree_with_the_equity(rows, model):
    """Points won less points lost is the evaluation's equity; the chances are its columns; a
    win's points lie between 1 a non-15 win and 15."""
    contact = shipped_net("tawla31") if model == "net" else nohit_contact
    o = t31_outcomes(rows, T31, contact)
    cols = evaluate_rows(rows, T31, contact=contact)
    assert np.allclose(o[:, 2] - o[:, 4], cols[:, 0], atol=1e-5)
    assert np.array_equal(o[:, [0, 1, 3]], cols[:, [1, 2, 4]])
    assert (o[:, 2] >= 15 * o[:, 1] - 1e-4).all() and (o[:, 2] <= 15 * o[:, 0] + 1e-4).all()
    assert (o[:, 4] >= 15 * o[:, 3] - 1e-4).all() and (o[:, 4] <= 15 * (1 - o[:, 0]) + 1e-4).all()


def test_a_model_without_the_split_is_refused(rows):
    with pytest.raises(ConfigError, match="points won and lost"):
        t31_outcomes(rows[:5], T31, LinearContact())


def test_the_distribution_keeps_the_chances_and_the_points(rows):
    o = t31_outcomes(rows, T31, shipped_net("tawla31"))
    d = points_distribution(o)
    assert d.shape == (len(rows), 31) and (d >= 0).all() and np.allclose(d.sum(1), 1)
    assert np.allclose(d[:, 16:].sum(1), o[:, 0]) and np.allclose(d[:, 30], o[:, 1]) and np.allclose(d[:, 0], o[:, 3])
    assert not d[:, 15].any()
    won = d[:, 16:] @ MARGINS[16:]
    lost = -(d[:, :15] @ MARGINS[:15])
    # the expectations are kept wherever the mean of the other results lies in 1..14
    inside = ((o[:, 2] - 15 * o[:, 1] >= (o[:, 0] - o[:, 1]) * 1.001)
              & (o[:, 2] - 15 * o[:, 1] <= (o[:, 0] - o[:, 1]) * 13.999))
    assert inside.mean() > 0.9
    assert np.allclose(won[inside], o[inside, 2], atol=1e-6)
    inside = ((o[:, 4] - 15 * o[:, 3] >= (1 - o[:, 0] - o[:, 3]) * 1.001)
              & (o[:, 4] - 15 * o[:, 3] <= (1 - o[:, 0] - o[:, 3]) * 13.999))
    assert np.allclose(lost[inside], o[inside, 4], atol=1e-6)


def test_the_distribution_by_hand():
    """Wins of mean 1 are all 1-point wins; losses whose mean is the measured games' own are
    spread as those games were (the prior, tilted by nothing); a side that never wins has
    nothing spread."""
    prior = _prior()
    mean = prior @ np.arange(1, 15)
    o = np.array([[0.5, 0.0, 0.5, 0.1, mean * 0.4 + 1.5], [0.0, 0.0, 0.0, 0.0, 14.0]])
    d = points_distribution(o)
    assert d[0, 16] == pytest.approx(0.5) and d[0, 17:].sum() == pytest.approx(0, abs=1e-9)
    assert d[0, 14:0:-1] == pytest.approx(0.4 * prior) and d[0, 0] == pytest.approx(0.1)
    assert d[1, 16:].sum() == 0 and d[1, 1] == pytest.approx(1.0) and d[1, 2:15].sum() == pytest.approx(0, abs=1e-6)
    counts = variant_distribution("tawla31")
    assert prior[0] > prior[7] and abs(prior[0] - counts[1] / sum(counts[k] for k in range(1, 15))) < 1e-3


def test_play_values_by_hand():
    """At 1-away 1-away only the winner counts: 2 MWC - 1 = 1 - 2 p (p the opponent's chance);
    2-away against 1-away a 1-point win is not enough."""
    o = np.array([[0.3, 0.05, 1.2, 0.1, 3.0]])
    assert play_values_by_points(o, "tawla31", 1, 1)[0] == pytest.approx(1 - 2 * 0.3)
    d = points_distribution(o)[0]
    t = variant_met("tawla31")
    want = d[16] * 0.5 + d[:15].sum()  # its 1-point win leaves 1-away 1-away; more wins it; it loses: I win
    assert play_values_by_points(o, "tawla31", 1, 2)[0] == pytest.approx(2 * want - 1)
    # 2-away (me) 5-away: a loss by k leaves me 2-away against 5 - k; a win by 1 leaves 1-away
    mine = sum(d[15 + m] * (t.mwc(2, 5 - m) if m < 5 else 0.0) for m in range(1, 16))
    mine += sum(d[15 - m] * (t.mwc(2 - m, 5) if m < 2 else 1.0) for m in range(1, 16))
    assert play_values_by_points(o, "tawla31", 2, 5)[0] == pytest.approx(2 * mine - 1)


def test_preroll_outcomes_average_the_best_replies(rows):
    """Before its roll: the columns Bot.preroll averages, and points won less lost its equity."""
    bot = Bot("tawla31", "net0")
    sample = rows[::40]
    o = preroll_outcomes(sample, T31, bot.contact)
    for row, oi in zip(sample, o):
        p = bot.preroll(Position(bytes(row), T31))
        assert oi[[0, 1, 3]] == pytest.approx(p[[1, 2, 4]], abs=1e-6)
        assert oi[2] - oi[4] == pytest.approx(p[0], abs=1e-4)


def test_tawla31_plays_for_the_match():
    """A Tawla 31 match is valued at the score: at 10-10 of 11 each play is worth 1 - 2 p;
    at 0-0 the ranking differs from the points' somewhere in a game."""
    assert match_score(MatchState(match_length=11, score=(3, 7)), "tawla31") == (8, 4)
    bot = Bot("tawla31", "net0")
    pos = T31.initial_position()
    ranked = bot.hint(pos, (6, 5), match_state=MatchState(match_length=11, score=(10, 10)))
    rows = np.stack([np.frombuffer(pos.play(r.move).row, dtype=np.uint8) for r in ranked]).copy()
    p_opp = evaluate_rows(rows, T31, contact=bot.contact)[:, 1]
    assert [r.value for r in ranked] == pytest.approx(list(1 - 2 * p_opp), abs=1e-9)
    assert bot.choose(pos, (6, 5), match_state=MatchState(match_length=11, score=(10, 10))) == ranked[0].move


def test_a_bot_plays_a_tawla31_match_at_the_score():
    m = Match("tawla31", length=11, rng=3)
    bot = Bot("tawla31", "net0")
    for _ in range(3000):
        if m.phase == "over":
            break
        name, move = bot_action(bot, MatchView.of(m))
        if name == "move":
            m.play(m.to_act, move)
        else:
            getattr(m, name)(m.to_act)
    assert m.phase == "over" and max(m.score) >= 11


def _view(position, score, offer_points, length=11):
    return MatchView("resign", 0, position, position, None, False, False,
                     {"player": 1, "kind": "single", "points": offer_points}, length, score, 1, None, False, False, T31)


def test_resignations_by_match_winning_chance():
    """Seat 0, on roll with its last checker home against fifteen none off (a sure 15-point
    win), answers seat 1's offers: at 10-away 1-away ten points win the match, five do not;
    at 1-away a single point is the match."""
    sure = Position.from_points(T31, {1: 1}, {13: 15})
    bot = Bot("tawla31", "net0")
    assert bot_action(bot, _view(sure, (1, 10), 10)) == ("accept", None)
    assert bot_action(bot, _view(sure, (1, 10), 5)) == ("reject", None)
    assert bot_action(bot, _view(sure, (10, 3), 1)) == ("accept", None)
    # for points (no match) five points are less than the fifteen it wins
    assert bot_action(bot, _view(sure, (0, 0), 5, length=0)) == ("reject", None)


def test_moves_command_ranks_a_tawla31_match(capsys):
    from tawla.cli import main
    start = T31.initial_position().id()
    assert main(["moves", "--ruleset", "tawla31", start, "31", "--length", "11", "--score", "10-10"]) == 0
    out = capsys.readouterr().out
    assert "at the score (11-point match, 1-away 1-away" in out and "match-winning chance" in out
    assert main(["moves", "--ruleset", "tawla31", start, "31", "--length", "11", "--cube", "2"]) == 2
    assert "no doubling cube" in capsys.readouterr().err
    assert main(["moves", "--ruleset", "tawla31", start, "31", "--score", "2-3"]) == 2
