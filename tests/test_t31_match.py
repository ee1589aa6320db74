"""Tawla 31 played for the match: the distribution of a game's result, and the bot's plays
and answers by match-winning chance (RULES.md §5.7)."""

from __future__ import annotations

import numpy as np
import pytest

from tawla import Bot, Match, Position
from tawla.bots.policies import MatchView, bot_action
from tawla.bots.score import match_score, play_values_by_points, preroll_distribution
from tawla.errors import ConfigError, InvalidArgument
from tawla.cli import main
from tawla.evaluation import evaluate_rows
from tawla.evaluation.bearoff import eval_tables
from tawla.evaluation.board_views import sides
from tawla.evaluation.linear import LinearContact
from tawla.evaluation.net import shipped_net
from tawla.evaluation.nohit import nohit_contact
from tawla.evaluation.points import MARGINS, _prior, spread_outcomes, t31_distribution
from tawla.evaluation.race import race_margins_np, side_dists
from tawla.evaluation.rolls import combine, t31_margins, t31_points
from tawla.formats.gnubg import MatchState
from tawla.met import ScoreState, variant_met
from tawla.met.variants import variant_distribution
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
def test_distributions_agree_with_the_evaluation(rows, model):
    """The chances of a win and of the 15-point results are the evaluation's; the mean is its
    equity (the race model's own where the database corrected its win chance: a little off)."""
    contact = shipped_net("tawla31") if model == "net" else nohit_contact
    d = t31_distribution(rows, T31, contact)
    cols = evaluate_rows(rows, T31, contact=contact)
    assert d.shape == (len(rows), 31) and (d >= -1e-12).all() and np.allclose(d.sum(1), 1)
    assert np.allclose(d[:, 16:].sum(1), cols[:, 1], atol=1e-6)
    assert np.allclose(d[:, 30], cols[:, 2], atol=1e-6) and np.allclose(d[:, 0], cols[:, 4], atol=1e-6)
    close = np.abs(d @ MARGINS - cols[:, 0]) < 1e-4
    assert close.mean() > 0.9


def test_the_race_model_spreads_what_it_expects(rows):
    """The race model's distribution has the mean of its expected points won and lost."""
    me, opp, _ = sides(rows[-60:], T31)
    one = eval_tables()[0]
    pm_all, pm_first = side_dists(me, one)
    po_all, po_first = side_dists(opp, one)
    win, _, _, parts = combine(pm_all, pm_first, po_all, po_first, me[:, 0] == 0, opp[:, 0] == 0)
    d = t31_margins(parts, me, opp)
    won, lost = t31_points(parts, me, opp)
    assert np.allclose(d[:, 16:] @ MARGINS[16:], won) and np.allclose(-(d[:, :15] @ MARGINS[:15]), lost)
    assert np.allclose(d[:, 16:].sum(1), win) and np.allclose(race_margins_np(me, opp), d)


def test_a_model_without_the_spread_is_refused(rows):
    with pytest.raises(ConfigError, match="spread of the points"):
        t31_distribution(rows[:5], T31, LinearContact())


def test_the_network_outcomes_spread(rows):
    """The spread keeps the chances and, where the mean of the other results lies in 1..14,
    the expected points."""
    o = shipped_net("tawla31").outputs(rows).astype(np.float64)
    d = spread_outcomes(o[:, 0], o[:, 1], 15 * o[:, 2], o[:, 3], 15 * o[:, 4])
    assert (d >= 0).all() and np.allclose(d.sum(1), 1) and not d[:, 15].any()
    assert np.allclose(d[:, 16:].sum(1), o[:, 0]) and np.allclose(d[:, 30], o[:, 1]) and np.allclose(d[:, 0], o[:, 3])
    rest = 15 * o[:, 2] - 15 * o[:, 1]
    inside = (rest >= (o[:, 0] - o[:, 1]) * 1.001) & (rest <= (o[:, 0] - o[:, 1]) * 13.999)
    assert inside.mean() > 0.9
    assert np.allclose((d[:, 16:] @ MARGINS[16:])[inside], 15 * o[inside, 2], atol=1e-6)


def test_the_spread_by_hand():
    """Wins of mean 1 are all 1-point wins; losses whose mean is the measured games' own are
    spread as those games were (the prior, tilted by nothing); a side that never wins has
    nothing spread."""
    prior = _prior()
    mean = prior @ np.arange(1, 15)
    d = spread_outcomes(np.array([0.5, 0.0]), np.array([0.0, 0.0]), np.array([0.5, 0.0]),
                        np.array([0.1, 0.0]), np.array([mean * 0.4 + 1.5, 14.0]))
    assert d[0, 16] == pytest.approx(0.5) and d[0, 17:].sum() == pytest.approx(0, abs=1e-9)
    assert d[0, 14:0:-1] == pytest.approx(0.4 * prior) and d[0, 0] == pytest.approx(0.1)
    assert d[1, 16:].sum() == 0 and d[1, 1] == pytest.approx(1.0) and d[1, 2:15].sum() == pytest.approx(0, abs=1e-6)
    counts = variant_distribution("tawla31")
    assert prior[0] > prior[7] and abs(prior[0] - counts[1] / sum(counts[k] for k in range(1, 15))) < 1e-3


def test_play_values_by_hand():
    """At 1-away 1-away only the winner counts: 2 MWC - 1 = 1 - 2 p (p the opponent's chance);
    at 2-away 5-away each result moves the score by its points."""
    d = np.zeros((1, 31))
    d[0, 15 + 1], d[0, 15 + 4], d[0, 15 - 2], d[0, 15 - 15] = 0.2, 0.1, 0.4, 0.3  # the opponent's
    assert play_values_by_points(d, "tawla31", 1, 1)[0] == pytest.approx(1 - 2 * 0.3)
    t = variant_met("tawla31")
    mine = 0.2 * t.mwc(2, 4) + 0.1 * t.mwc(2, 1) + 0.4 * 1.0 + 0.3 * 1.0
    assert play_values_by_points(d, "tawla31", 2, 5)[0] == pytest.approx(2 * mine - 1)


def test_preroll_distribution_averages_the_best_replies(rows):
    """Before its roll: the chances Bot.preroll averages, and the mean close to its equity."""
    bot = Bot("tawla31", "net0")
    sample = rows[::40]
    d = preroll_distribution(sample, T31, bot.contact)
    for row, di in zip(sample, d):
        p = bot.preroll(Position(bytes(row), T31))
        assert [di[16:].sum(), di[30], di[0]] == pytest.approx(p[[1, 2, 4]], abs=1e-6)
        assert di @ MARGINS == pytest.approx(p[0], abs=0.05)


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
    start = T31.initial_position().id()
    assert main(["moves", "--ruleset", "tawla31", start, "31", "--length", "11", "--score", "10-10"]) == 0
    out = capsys.readouterr().out
    assert "at the score (11-point match, 1-away 1-away" in out and "match-winning chance" in out
    assert main(["moves", "--ruleset", "tawla31", start, "31", "--length", "11", "--cube", "2"]) == 2
    assert "no doubling cube" in capsys.readouterr().err
    assert main(["moves", "--ruleset", "tawla31", start, "31", "--score", "2-3"]) == 2


def test_no_result_beyond_the_losers_checkers_left():
    """The side on roll's opponent has 3 checkers left (12 off): no win of more than 3; its
    own 2 left cap its losses at 2."""
    pos = Position.from_points(T31, {3: 1, 1: 1}, {19: 1, 20: 1, 21: 1})
    for contact in (shipped_net("tawla31"), nohit_contact):
        d = t31_distribution(pos.to_array()[None], T31, contact)[0]
        assert d[19:].sum() == pytest.approx(0, abs=1e-12) and d[:13].sum() == pytest.approx(0, abs=1e-12)
        assert d.sum() == pytest.approx(1)
    d = spread_outcomes(np.array([0.6]), np.array([0.0]), np.array([1.5]), np.array([0.0]), np.array([0.5]),
                        np.array([1]), np.array([2]))[0]
    assert d[16] == pytest.approx(0.6) and d[13:15].sum() == pytest.approx(0.4) and d[17:].sum() == 0


def test_edges_of_the_match_play():
    """An empty batch; a random bot stays random in a match; a match past the table refused;
    a backgammon ScoreState refused for a Tawla bot."""
    state = MatchState(match_length=11, score=(3, 4))
    value, ply = Bot("tawla31", "net1").values_at_score(np.zeros((0, 56), np.uint8), state)
    assert value.shape == ply.shape == (0,)
    pos = Position(_positions(30, 2)[-1].tobytes(), T31)
    picks = {str(Bot("tawla31", "random", seed=s).choose(pos, (3, 1), match_state=state)) for s in range(20)}
    assert len(picks) > 1 or len(pos.legal_moves((3, 1))) <= 1
    with pytest.raises(InvalidArgument, match="1 to 64"):
        match_score(MatchState(match_length=70), "tawla31")
    with pytest.raises(InvalidArgument, match="ScoreState"):
        Bot("adi", "net0").values_at_score(np.zeros((0, 56), np.uint8), ScoreState(7, 5, 3))


def test_cube_options_refused_without_a_cube(capsys):
    adi = get_ruleset("adi").initial_position().id()
    assert main(["moves", "--ruleset", "adi", adi, "31", "--length", "5", "--score", "4-2", "--cube", "4"]) == 2
    assert "no doubling cube" in capsys.readouterr().err
    assert main(["moves", "--ruleset", "adi", adi, "31", "--length", "5", "--score", "4-2"]) == 0
