"""Glicko-2 (tawla.ratings) against the worked example of Glickman's "Example of the Glicko-2
system" (2013), and its properties as the service uses it."""

import math

import pytest

from tawla import errors
from tawla.ratings import NEW, SCALE, Rating, idle, rate, rate_match


def test_the_published_worked_example():
    # A player rated 1500 (RD 200, volatility 0.06) plays three opponents in one period:
    # beats 1400 (RD 30), loses to 1550 (RD 100) and to 1700 (RD 300); tau 0.5.
    r = rate(Rating(1500, 200, 0.06), [(Rating(1400, 30), 1), (Rating(1550, 100), 0), (Rating(1700, 300), 0)], 0.5)
    # The paper gives 1464.06, 151.52 and 0.05999 from intermediate values rounded to four
    # places; computed without rounding the rating is 1464.0507.
    assert r.rating == pytest.approx(1464.06, abs=0.015)
    assert r.deviation == pytest.approx(151.52, abs=0.005)
    assert r.volatility == pytest.approx(0.05999, abs=0.00001)  # 0.0599960 unrounded
    # the paper's Glicko-2 scale values: mu' = -0.2069, phi' = 0.8722
    assert (r.rating - 1500) / SCALE == pytest.approx(-0.2069, abs=0.00005)
    assert r.deviation / SCALE == pytest.approx(0.8722, abs=0.00005)


def test_a_match_moves_both_players_and_a_period_without_games_widens_the_deviation():
    winner, loser = rate_match(NEW, NEW, 1)
    assert NEW == Rating(1500, 350, 0.06)
    assert winner.rating > 1500 > loser.rating
    assert winner.rating - 1500 == pytest.approx(1500 - loser.rating)
    assert winner.deviation < 350 and loser.deviation < 350
    # beating a much stronger, well-known player moves a rating more than beating an equal
    up_strong = rate(NEW, [(Rating(1900, 60), 1)]).rating
    assert up_strong > winner.rating
    # losing to a far weaker player costs more than losing to an equal
    assert rate(Rating(1700, 80), [(Rating(1300, 80), 0)]).rating < rate(Rating(1700, 80), [(Rating(1700, 80), 0)]).rating
    settled = Rating(1600, 50, 0.06)
    assert idle(settled).deviation == pytest.approx(SCALE * math.hypot(50 / SCALE, 0.06))
    assert rate(settled, []) == idle(settled)
    draw = rate_match(Rating(1500, 80), Rating(1500, 80), 0.5)
    assert draw[0].rating == pytest.approx(1500) and draw[1].rating == pytest.approx(1500)


def test_bad_input_raises_invalid_argument():
    for bad in [dict(rating=float("nan")), dict(deviation=0), dict(volatility=-1), dict(rating="1500"),
                dict(deviation=True)]:
        with pytest.raises(errors.InvalidArgument):
            Rating(**bad)
    for score in (2, -0.1, True, "1", None, float("nan")):
        with pytest.raises(errors.InvalidArgument):
            rate_match(NEW, NEW, score)
        with pytest.raises(errors.InvalidArgument):
            rate(NEW, [(NEW, score)])
    for results in ([(1500, 1)], [NEW], [(NEW, 1, 2)]):
        with pytest.raises(errors.InvalidArgument):
            rate(NEW, results)
    for tau in (0, -1, float("inf"), "0.5", True):
        with pytest.raises(errors.InvalidArgument):
            rate(NEW, [(NEW, 1)], tau)
