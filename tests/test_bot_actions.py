"""A bot's decisions at a table in every phase (tawla.bots.policies.bot_action): doubling,
taking, dropping and answering resignations by the cube model at the score."""

import pytest

from tawla import Bot, Match, Position
from tawla.bots.policies import MatchView, bot_action, match_state_of
from tawla.errors import InvalidAction
from tawla.formats.gnubg import MatchState
from tawla.rules import get_ruleset

BG = get_ruleset("backgammon")
BOT = Bot(BG, "net0")
# a race the side on roll wins about 9 times in 10 (no gammons): double, pass for money
CASH = Position.from_points(BG, {1: 2, 2: 2, 3: 2, 4: 1, 5: 1}, {19: 2, 20: 2, 21: 2, 22: 1})
# two checkers left against fifteen far from home: a sure gammon
GAMMON = Position.from_points(BG, {1: 1, 2: 1}, {7: 5, 8: 5, 9: 5})
# a little better than even: no double
EVEN = Position.from_gnubg_id("4HPwATDgc/ABMA")


def view(position, phase="roll", *, length=0, score=(0, 0), cube=1, owner=None, offer=None, may_double=True,
         crawford=False):
    return MatchView(phase, 0, position, position, None, True, may_double, offer, length, score, cube, owner,
                     crawford, False, BG)


def test_doubles_only_when_the_model_says_so():
    assert bot_action(BOT, view(CASH)) == ("double", None)
    assert bot_action(BOT, view(EVEN)) == ("roll", None)
    assert bot_action(BOT, view(CASH, may_double=False)) == ("roll", None)
    # at 2-away 2-away in a 5-point match a cash double is right too
    assert bot_action(BOT, view(CASH, length=5, score=(3, 3))) == ("double", None)


def test_answers_a_double_from_the_doublers_seat():
    assert bot_action(BOT, view(CASH, "double")) == ("drop", None)
    assert bot_action(BOT, view(EVEN, "double")) == ("take", None)


def test_resignations_by_what_they_are_worth():
    # the side on roll (seat 0) is offered a single game by seat 1 in a position it wins ~90%
    assert bot_action(BOT, view(CASH, "resign", offer={"player": 1, "kind": "single", "points": 1})) \
        == ("accept", None)
    # seat 1 answers seat 0's offer of a single game while seat 0 is a big favourite: accept too
    # (the answering player is 1: the position is seen from seat 0)
    v = MatchView("resign", 0, EVEN, EVEN, None, True, True, {"player": 0, "kind": "single", "points": 1},
                  0, (0, 0), 1, None, False, False, BG)
    assert bot_action(BOT, v) == ("accept", None)  # winning a point beats an even game
    v = MatchView("resign", 1, CASH, CASH, None, True, True, {"player": 0, "kind": "single", "points": 1},
                  0, (0, 0), 1, None, False, False, BG)
    assert bot_action(BOT, v) == ("accept", None)  # seat 1 could cash: a single is worth the same
    v = MatchView("resign", 1, GAMMON, GAMMON, None, True, True, {"player": 0, "kind": "single", "points": 1},
                  0, (0, 0), 1, None, False, False, BG)
    assert bot_action(BOT, v) == ("reject", None)  # a sure gammon: too good to take a single
    v = MatchView("resign", 1, GAMMON, GAMMON, None, True, True, {"player": 0, "kind": "gammon", "points": 2},
                  0, (0, 0), 1, None, False, False, BG)
    assert bot_action(BOT, v) == ("accept", None)
    # in a match at the score: 1 point wins the match for a 1-away answerer
    v = view(EVEN, "resign", length=5, score=(4, 2), offer={"player": 1, "kind": "single", "points": 1})
    assert bot_action(BOT, v) == ("accept", None)


def test_a_real_match_and_its_state():
    m = Match("backgammon", length=5, rng=3)
    ms = match_state_of(m)
    assert (ms.match_length, ms.score, ms.cube_value) == (5, (0, 0), 1)
    for _ in range(60):  # the bot plays both seats through the first game's turns
        if m.phase == "over" or m.game_number > 1:
            break
        name, move = bot_action(BOT, MatchView.of(m))
        seat = m.to_act
        if name == "move":
            m.play(seat, move)
        else:
            {"roll": m.roll, "double": m.double, "take": m.take, "drop": m.drop,
             "accept": m.accept_resignation, "reject": m.reject_resignation}[name](seat)
    over = Match("backgammon", length=1, rng=1)
    over.resign(over.turn, "backgammon")
    over.accept_resignation(1 - over.turn)
    with pytest.raises(InvalidAction):
        bot_action(BOT, MatchView.of(over))


def test_no_double_once_the_game_is_over():
    over = Position.from_points(BG, {}, {19: 2, 20: 2})  # the side on roll has borne off all
    for state in (MatchState(match_length=7, score=(2, 3)), MatchState()):
        d = BOT.cube_action(over, match_state=state)
        assert not d.may_double and d.proper == "no double"
