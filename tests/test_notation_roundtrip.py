"""tawla reads its own move text back: the hit rule of the notation, and round trips.

* The hit rule (GNU Backgammon notation): every hit is written, intermediate ones included
  (``21/17*/16*``); a point whose hit is not written was not hit. ``parse_move`` picks the
  reading whose hits are exactly the written ones, the non-hitting one when no ``*`` is
  written and a hitting and a non-hitting move both fit.
* Every text tawla writes parses back to the same move: ``str(move)`` of every legal move,
  the text of a turn played step by step (``format_steps`` of its single steps, and the
  ``str(step)`` of the steps of :func:`tawla.legal_steps` joined), over random games of every
  ruleset; and whole matches driven by random legal steps and moves, exported with
  ``Match.to_mat`` and read back by ``tawla analyze`` with no illegal or ambiguous play.
"""

import json

import numpy as np
import pytest

import tawla
from tawla import errors
from tawla.cli import main
from tawla.core.steps import Step, format_steps
from tawla.match import Match
from tawla.notation import fitting_moves, hit_points, written_hits
from tawla.reference import engine as ref
from match_helpers import random_move_action

BG = tawla.get_ruleset("backgammon")


def texts(moves):
    return sorted(map(str, moves))


class TestHitRule:
    def test_unwritten_intermediate_hit_was_not_hit(self):
        # 24/20 with 3-1: via 21 hitting the blot, or via 23 (another checker stands there).
        p = tawla.Position.from_points(BG, {24: 1, 23: 1, 1: 13}, {21: 1, 20: 0, 10: 14})
        assert texts(fitting_moves("24/20", p, (3, 1))) == ["24/21*/20", "24/23 23/20"]
        quiet = tawla.parse_move("24/20", p, (3, 1))
        assert str(quiet) == "24/23 23/20" and hit_points(quiet) == frozenset()
        loud = tawla.parse_move("24/21*/20", p, (3, 1))
        assert hit_points(loud) == {21}
        assert quiet.result_position().to_points()["bar"] == (0, 0)
        assert loud.result_position().to_points()["bar"] == (0, 1)

    def test_written_hits_must_match_exactly(self):
        # 21/16* with 4-1: 21/17*/16* hits twice, 21/20 20/16* only on 16.
        p = tawla.Position.from_points(BG, {21: 1, 20: 1, 1: 13}, {17: 1, 16: 1, 10: 13})
        assert texts(fitting_moves("21/16", p, (4, 1))) == ["21/17*/16*", "21/20 20/16*"]
        assert str(tawla.parse_move("21/16*", p, (4, 1))) == "21/20 20/16*"
        assert str(tawla.parse_move("21/17*/16*", p, (4, 1))) == "21/17*/16*"
        assert written_hits("21/17*/16*") == {17, 16} and written_hits("13/5*(2)") == {5}
        assert written_hits("13/5(2)*") == {5} and written_hits("bar/22* 6/2") == {22}

    def test_no_star_reads_the_non_hitting_move(self):
        # '7/2' with 4-1: 7/3*/2 hits on 3; 7/6 6/2 goes through the own checker on 6.
        p = tawla.Position.from_points(BG, {7: 1, 6: 1, 1: 13}, {3: 1, 20: 14})
        assert texts(fitting_moves("7/2", p, (4, 1))) == ["7/3*/2", "7/6 6/2"]
        assert str(tawla.parse_move("7/2", p, (4, 1))) == "7/6 6/2"
        assert str(tawla.parse_move("7/3*/2", p, (4, 1))) == "7/3*/2"

    def test_a_lone_reading_needs_no_star(self):
        # Files that never mark hits: the only move that plays the text hits.
        p = tawla.Position.from_points(BG, {13: 2, 1: 13}, {7: 1, 20: 14})
        m = tawla.parse_move("13/7 13/9", p, (6, 4))
        assert str(m) == "13/9 13/7*" and hit_points(m) == {7}

    def test_two_hitting_readings_and_no_star_stay_ambiguous(self):
        p = tawla.Position.from_points(BG, {13: 1, 1: 14}, {7: 1, 10: 1, 20: 13})
        with pytest.raises(errors.AmbiguousMove) as e:
            tawla.parse_move("13/4", p, (6, 3))
        assert texts(e.value.legal) == ["13/10*/4", "13/7*/4"]
        assert str(tawla.parse_move("13/10*/4", p, (6, 3))) == "13/10*/4"

    def test_a_star_on_the_start_point_is_malformed(self):
        p = tawla.Position.from_points(BG, {13: 1, 1: 14}, {7: 1, 20: 14})
        with pytest.raises(errors.IllegalMove):
            tawla.parse_move("13*/4", p, (6, 3))

    def test_combined_steps_write_their_intermediate_hits(self):
        p = tawla.Position.from_points(BG, {24: 1, 1: 14}, {21: 1, 10: 14})
        combined = {s.dice: s for s in tawla.legal_steps(p, (3, 1)) if len(s.dice) == 2}
        assert str(combined[(3, 1)]) == "24/21*/20" and combined[(3, 1)].hit_points == {21}
        assert str(combined[(1, 3)]) == "24/20" and not combined[(1, 3)].hit
        assert combined[(3, 1)] == Step(24, 20, (3, 1), True)  # still the plain value
        assert repr(combined[(3, 1)]).startswith("Step(from_point=24")
        assert tawla.parse_move(str(combined[(3, 1)]), p, (3, 1)).result_position().to_points()["bar"] == (0, 1)
        assert tawla.parse_move(str(combined[(1, 3)]), p, (3, 1)).result_position().to_points()["bar"] == (0, 0)


# --- random games of every ruleset: what tawla writes, parse_move reads back ----------------
def _hops(step):
    return step.hops() if isinstance(step.die, tuple) else [step]


def _random_game_checks(name, seed, plies, per_ply):
    """Walk one random game; return the number of texts checked (asserting each)."""
    r = tawla.get_ruleset(name)
    rng = np.random.default_rng(seed)
    pos = r.initial_position()
    checked = 0
    for _ in range(plies):
        if pos.result() is not None:
            break
        dice = (int(rng.integers(1, 7)), int(rng.integers(1, 7)))
        legal = pos.legal_moves(dice)
        if not legal:
            assert tawla.parse_move("", pos, dice).is_pass
            pos = pos.flip()
            continue
        for k in rng.permutation(len(legal))[:per_ply]:
            m = legal[int(k)]
            assert tawla.parse_move(str(m), pos, dice) == m, (name, str(m))
            checked += 1
        played, words = [], []  # a turn step by step, single and combined steps at random
        while (options := tawla.legal_steps(pos, dice, played)):
            s = options[int(rng.integers(len(options)))]
            played.append(s)
            words.append(str(s))
        state = ref.State.from_row(pos.row)
        for s in played:
            for h in _hops(s):
                state = ref.apply_step(r, state, h.from_point, h.to_point)
        (target,) = [m for m in legal if m.after == state.to_row()]
        singles = [h for s in played for h in _hops(s)]
        for text in (" ".join(words), format_steps(singles)):
            assert tawla.parse_move(text, pos, dice) == target, (name, text, str(target))
            checked += 1
        pos = pos.play(target)
    return checked


@pytest.mark.parametrize("name", tawla.RULESET_IDS)
def test_move_texts_parse_back(name):
    checked = sum(_random_game_checks(name, seed, 300, 6) for seed in range(3))
    assert checked > 300


@pytest.mark.slow
@pytest.mark.parametrize("name", tawla.RULESET_IDS)
def test_move_texts_parse_back_every_move(name):
    assert sum(_random_game_checks(name, 100 + seed, 1000, 10 ** 6) for seed in range(10)) > 3000


# --- whole matches: Match -> .mat -> tawla analyze ------------------------------------------
# (ruleset, house, length); a money session is cut after its second game.
MATCHES = [
    ("backgammon", "international", 3), ("backgammon", "international", 5),
    ("backgammon", "international", 0), ("adi", "federation", 3), ("adi", "saharat", 1),
    ("mahbusa", "saharat", 1), ("tawla31", "federation", 1), ("tawla31-saharat", "saharat", 1),
]


def _config(i):
    return MATCHES[i % len(MATCHES)]


def _drive(m, rng, stepwise=0.6):
    """Random legal actions until the match ends (a money session: after two games)."""
    turn_by_steps = False
    while m.phase != "over" and not (m.length == 0 and m.game_number > 2):
        p = m.to_act
        x = rng.random()
        if m.phase == "roll":
            turn_by_steps = rng.random() < stepwise
            if m.can_double(p) and x < 0.06:
                m.double(p)
            elif x < 0.005:
                m.resign(p, "single")
            else:
                m.roll(p)
        elif m.phase == "double":
            (m.take if x < 0.7 else m.drop)(p)
        elif m.phase == "resign":
            m.accept_resignation(p)
        elif m.phase == "move":
            random_move_action(m, p, rng, by_steps=turn_by_steps)
    return m


def _round_trip(tmp_path, seeds):
    for i in seeds:
        rs, house, length = _config(i)
        m = _drive(Match(rs, house, length, rng=i), np.random.default_rng(i))
        (tmp_path / f"match_{i:03d}_{rs}.mat").write_text(m.to_mat(), encoding="utf-8")
    assert main(["analyze", "--no-eval", "--no-progress", "--json", str(tmp_path)]) == 0


def _check_report(capsys, n):
    data = json.loads(capsys.readouterr().out)
    s = data["summary"]
    assert s["files"] == n and s["unreadable_files"] == 0
    assert s["games_with_errors"] == 0, [g["error"] for r in data["matches"] for g in r["games"] if g["error"]]
    assert all(r["ok"] for r in data["matches"])
    return s


def test_matches_round_trip_through_mat(tmp_path, capsys):
    _round_trip(tmp_path, range(56))
    s = _check_report(capsys, 56)
    assert s["plays"] > 3000


@pytest.mark.slow
def test_matches_round_trip_through_mat_more(tmp_path, capsys):
    _round_trip(tmp_path, range(56, 256))
    _check_report(capsys, 200)


def test_match_event_log_texts_parse_back():
    """The 'play' and 'turn' texts of the event log, read on a board of their own."""
    checked = 0
    for i in range(8):
        rs, house, length = _config(i)
        m = _drive(Match(rs, house, length, rng=1000 + i), np.random.default_rng(1000 + i), stepwise=0.5)
        pos, play_text = None, None
        for ev in m.events:
            if ev["type"] == "game_start":
                pos = m.ruleset.initial_position()
            elif ev["type"] == "play":
                play_text = ev["move"]
            elif ev["type"] == "turn":
                dice = tuple(ev["dice"])
                mv = tawla.parse_move(ev["move"], pos, dice)
                if play_text is not None:
                    assert tawla.parse_move(play_text, pos, dice) == mv
                assert tawla.parse_move(str(mv), pos, dice) == mv
                pos, play_text = (pos.play(mv) if mv.steps else pos.flip()), None
                checked += 1
    assert checked > 200


def test_dash_notation_reads_as_slashes():
    pos = tawla.get_ruleset("backgammon").initial_position()
    for dashed, slashed in (("13-7 8-7", "13/7 8/7"), ("24-18 13-10", "24/18 13/10"), ("8-5 6-5", "8/5 6/5")):
        dice = {"13-7 8-7": (6, 1), "24-18 13-10": (6, 3), "8-5 6-5": (3, 1)}[dashed]
        assert tawla.parse_move(dashed, pos, dice) == tawla.parse_move(slashed, pos, dice)
    with pytest.raises(errors.IllegalMove):
        tawla.parse_move("13-", pos, (6, 1))

