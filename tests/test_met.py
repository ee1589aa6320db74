"""Match equity tables and cubeful equity at a match score, against GNU Backgammon (the
``gnubg`` package: its table, gammon prices, mwc2eq and its cubeful 0-ply move scores) and
against values worked by hand; bad table files and impossible scores."""

import json
import random
from importlib import resources

import numpy as np
import pytest

from conftest import require_module, shared_path
from tawla import Bot, Position
from tawla.analysis import default_evaluator
from tawla.analysis.replay import _rank, _score_state
from tawla.analysis.report_data import Decision
from tawla.bots import MoneyCube
from tawla.cli.__main__ import main
from tawla.formats.gnubg import MatchState
from tawla.bots.cube import GNUBG_PACKAGE_EFFICIENCY, cube_decision, cube_efficiency
from tawla.errors import FormatError, InvalidArgument
from tawla.met import MAX_AWAY, MatchCube, ScoreState, default_met, load_met, parse_met, table_from_distribution, variant_met
from tawla.met.variants import variant_distribution
from tawla.met.cube import (cash_points, cubeful_mwc, cubeless_equity, emg_to_mwc, gammon_prices,
                            mwc_to_emg)
from oracles import gnubg_board
from tawla.rules import get_ruleset


gnubg = require_module("gnubg")
MET = default_met()


def random_states(rng: random.Random, n: int):
    """(gnubg cubeinfo arguments, ScoreState of player 0 on roll) for n random match states."""
    out = []
    while len(out) < n:
        length = rng.choice([1, 3, 5, 7, 9, 11, 13, 17, 25])
        s = [rng.randrange(length), rng.randrange(length)]
        cube = rng.choice([1, 1, 2, 4, 8])
        owner = -1 if cube == 1 else rng.randrange(2)
        crawford = (length - s[0] == 1) != (length - s[1] == 1) and cube == 1 and rng.random() < 0.5
        state = ScoreState(length, length - s[0], length - s[1], cube,
                           0 if owner == -1 else (1 if owner == 0 else -1), crawford)
        out.append(((cube, owner, 0, length, tuple(s), int(crawford)), state))
    return out


class TestTable:
    @pytest.mark.parametrize("n", [25, MAX_AWAY])
    def test_gnubg_table_and_its_extension(self, n):
        pre, post = MET.to_lists(n)
        g_pre, g_post0, g_post1 = gnubg.met(n)
        assert np.abs(np.array(pre) - np.array(g_pre)).max() < 2e-7  # float32 against float64
        assert np.abs(np.array(post) - np.array(g_post0)).max() < 2e-7
        assert g_post0 == g_post1

    def test_published_values(self):
        """Kazaross-XG2 as published: 2-away 4-away 0.66870 (its row 2), the Crawford game at
        1-away 2-away 0.67736, and the post-Crawford trailer at 2-away 0.48803."""
        assert MET.name.startswith("Kazaross XG2") and MET.length == 25
        assert MET.mwc(2, 4) == 0.66870 and MET.mwc(4, 2) == pytest.approx(1 - 0.66870)
        assert MET.mwc(1, 2) == 0.67736 and MET.mwc(5, 5) == 0.5
        assert MET.mwc(2, 1, post_crawford=True) == 0.48803 and MET.mwc(1, 2, post_crawford=True) == 1 - 0.48803
        assert MET.mwc(0, 3) == 1.0 and MET.mwc(3, 0) == 0.0

    def test_bad_files(self, tmp_path):
        cases = {
            "not xml": "this is not a table",
            "root": "<table/>",
            "parametric": '<met><pre-crawford-table type="zadeh"/></met>',
            "short row": "<met><pre-crawford-table><row><me>0.5</me><me>0.6</me></row><row><me>0.4</me></row>"
                         "</pre-crawford-table><post-crawford-table><row><me>0.5</me></row></post-crawford-table></met>",
            "not a chance": "<met><pre-crawford-table><row><me>1.5</me></row></pre-crawford-table>"
                            "<post-crawford-table><row><me>0.5</me></row></post-crawford-table></met>",
            "not a number": "<met><pre-crawford-table><row><me>x</me></row></pre-crawford-table></met>",
            "no post-Crawford": "<met><pre-crawford-table><row><me>0.5</me></row></pre-crawford-table></met>",
            "wrong length": "<met><info><length>3</length></info><pre-crawford-table><row><me>0.5</me></row>"
                            "</pre-crawford-table><post-crawford-table><row/></post-crawford-table></met>",
        }
        for what, text in cases.items():
            with pytest.raises(FormatError):
                parse_met(text, what)
        path = tmp_path / "bad.xml"
        path.write_bytes(b"\xff\xfe<met>")
        with pytest.raises(FormatError):
            load_met(path)
        one = parse_met("<met><pre-crawford-table><row><me>0.5</me></row></pre-crawford-table>"
                        "<post-crawford-table><row/></post-crawford-table></met>", "one point")
        assert one.length == 1 and one.mwc(1, 1) == 0.5 and 0 < one.mwc(7, 3) < 0.5  # extended

    def test_reads_gnubg_file(self):
        t = load_met(str(resources.files("tawla") / "data" / "met" / "Kazaross-XG2.xml"))
        assert np.array_equal(t.pre, MET.pre) and np.array_equal(t.post, MET.post)


class TestScoreState:
    @pytest.mark.parametrize("args", [
        (0, 1, 1), (5, 0, 3), (5, 6, 3), (5, 3, 3, 3), (5, 3, 3, 2, 2), (5, 3, 3, 1, 0, True),
        (5, 1, 1, 1, 0, True), (5, 1, 3, 2, -1, True), (5, 3, 3, 2, 0), (5, 3, 3, True),
        (MAX_AWAY + 1, 3, 3)])
    def test_impossible(self, args):
        with pytest.raises(InvalidArgument):
            ScoreState(*args)

    def test_may_double(self):
        assert ScoreState(5, 3, 3).may_double and not ScoreState(5, 3, 3, 2, -1).may_double
        assert not ScoreState(5, 1, 3, crawford=True).may_double
        assert not ScoreState(5, 1, 3).may_double and ScoreState(5, 3, 1).may_double  # post-Crawford: the trailer
        assert not ScoreState(5, 2, 4, 2, 1).may_double  # the cube reaches the match point already


class TestAgainstGnubg:
    def test_gammon_prices_and_conversions(self):
        """At 300 random states: gnubg's gammon prices, mwc2eq and eq2mwc."""
        for args, st in random_states(random.Random(1), 300):
            ci = gnubg.cubeinfo(*args)
            g = ci["gammonprice"]
            ours = gammon_prices(st, MET)
            assert ours == pytest.approx((g[0][0], g[1][0], g[0][1], g[1][1]), abs=2e-4, rel=1e-4)
            for m in (0.1, 0.37, 0.9):
                assert mwc_to_emg(m, st, MET) == pytest.approx(gnubg.mwc2eq(m, ci), rel=1e-4, abs=1e-5)
                assert emg_to_mwc(mwc_to_emg(m, st, MET), st, MET) == pytest.approx(m)
            assert emg_to_mwc(0.2, st, MET) == pytest.approx(gnubg.eq2mwc(0.2, ci), abs=1e-6)

    def test_cubeless_equity_at_the_score(self):
        board = gnubg.positionfromid("4HPwATDgc/ABMA")
        for args, st in random_states(random.Random(2), 60):
            ci = gnubg.cubeinfo(*args)
            out = gnubg.evaluate(board, ci, gnubg.evalcontext(0, 0, 1, 0, 0.0))
            assert cubeless_equity(np.array(out[:5]), st, MET) == pytest.approx(out[5], abs=2e-5)

    def test_cubeful_move_scores(self):
        """gnubg's cubeful 0-ply score of every play (the opponent's cube decision at the score
        on gnubg's own cubeless probabilities) at 60 random (score, cube, dice) states: the
        sorted scores agree to 1e-4, with the package's cube efficiencies. Two-sided bear-offs
        are left out (gnubg takes their efficiency from its exact money table)."""
        path = shared_path("data", "positions", "bg_contact_1000.pid")
        ids = [ln.split()[0] for ln in path.read_text().splitlines() if ln.strip() and not ln.startswith("#")]
        rng = random.Random(3)
        ec0, ec1 = gnubg.evalcontext(0, 0, 1, 0, 0.0), gnubg.evalcontext(1, 0, 1, 0, 0.0)
        compared = 0
        for args, st in random_states(rng, 60):
            pid = rng.choice(ids)
            dice = (rng.randint(1, 6), rng.randint(1, 6))
            ci_opp = gnubg.cubeinfo(args[0], args[1], 1, *args[3:])
            pos = Position.from_gnubg_id(pid)
            ours, skip = [], False
            for mv in pos.legal_moves(dice):
                row = pos.play(mv).row
                child = gnubg_board(row, "opposite")
                if gnubg.classify(child) in (4, 5):
                    skip = True
                    break
                probs = gnubg.evaluate(child, ci_opp, ec0)[:5]
                x = float(cube_efficiency(row, "backgammon", GNUBG_PACKAGE_EFFICIENCY)[0])
                d = MatchCube.from_probabilities(probs, st.flipped(), x)
                ours.append(mwc_to_emg(1 - d.optimal_mwc, st, MET))
            if skip or not ours:
                continue
            theirs = [m["score"] for m in gnubg.findbestmoves(gnubg.positionfromid(pid), gnubg.cubeinfo(*args), ec1, dice)]
            ours.sort(reverse=True)
            assert len(ours) == len(theirs)
            assert ours == pytest.approx(theirs, abs=1e-4), (pid, args, dice)
            compared += 1
        assert compared >= 50


class TestByHand:
    P = np.array([0.6, 0.0, 0.0, 0.0, 0.0])  # no gammons

    def test_a_sure_win_without_gammons_doubles_out(self):
        """Nothing to play on for: a double (passed) ties no double, and a tie doubles."""
        m = MatchCube.from_probabilities([1.0, 0, 0, 0, 0], ScoreState(3, 3, 3))
        assert m.proper == "double, pass"

    def test_dead_cube(self):
        """A cube at both players' match points: the cubeless chance, 0.6 of winning."""
        st = ScoreState(5, 2, 2, 2, -1)
        assert not st.cube_alive and cubeful_mwc(self.P, st, 0.76, MET) == pytest.approx(0.6)
        assert MatchCube.from_probabilities(self.P, st).proper == "no double"

    def test_two_away_two_away(self):
        """2-away 2-away: the model values the cube dead (double at once); with no gammons a
        double is worth the whole game (DMP), so at 0.4 the taker takes and at 0.6 it is a double."""
        st = ScoreState(5, 2, 2)
        assert not st.cube_alive
        m = MatchCube.from_probabilities(self.P, st)
        assert m.double_take_mwc == pytest.approx(0.6) and m.no_double_mwc == pytest.approx(0.6 * 0.67736 + 0.4 * 0.32264)
        assert m.proper == "double, take"

    def test_free_drop(self):
        """Post-Crawford, the trailer 2 away doubles at once: taken, one game decides the match;
        dropped, 1-away 1-away."""
        st = ScoreState(5, 2, 1)
        assert st.post_crawford and st.may_double
        m = MatchCube.from_probabilities(np.array([0.45, 0, 0, 0, 0]), st)
        assert m.double_take_mwc == pytest.approx(0.45)  # one game for the match
        assert m.double_pass_mwc == pytest.approx(0.5)  # 1-away 1-away after the drop
        assert m.double and m.proper == "double, take"

    def test_crawford_game(self):
        st = ScoreState(5, 1, 3, crawford=True)
        m = MatchCube.from_probabilities(self.P, st)
        assert not m.may_double and m.proper == "no double"
        # no cube: a win ends the match, a loss leaves the trailer 2 away after the Crawford game
        assert m.no_double_mwc == pytest.approx(0.6 + 0.4 * (1 - MET.post[1]))

    def test_cash_points_money_like(self):
        """Far from the end, gammonless: cash points near money's 0.8."""
        cp = cash_points(self.P, ScoreState(25, 25, 25), MET)
        assert 0.7 < cp[0] < 0.85 and cp[0] == pytest.approx(cp[1])

    def test_bad_input(self):
        st = ScoreState(5, 3, 3)
        for bad in ([0.5] * 4, [2, 0, 0, 0, 0], [float("nan")] * 5):
            with pytest.raises(InvalidArgument):
                MatchCube.from_probabilities(bad, st)
        with pytest.raises(InvalidArgument):
            MatchCube.from_probabilities(self.P, st, efficiency=1.5)
        with pytest.raises(InvalidArgument):
            MatchCube.from_probabilities(self.P, (5, 3, 3))


class TestCommandAndBot:
    def test_bot_cube_action_at_the_score(self):
        bot = Bot("backgammon", "net0")
        pos = Position.from_gnubg_id("sNvBATDYc+ABMA")
        quick = bot.cube_action(pos)  # today's call keeps working
        assert not quick.double
        m = bot.cube_action(pos, match_state=MatchState(match_length=5, score=(2, 3)))
        assert isinstance(m, MatchCube) and m.state == ScoreState(5, 3, 2) and m.proper == "no double, take"
        money = bot.cube_action(pos, match_state=MatchState(match_length=0, jacoby=False))
        assert isinstance(money, MoneyCube) and money.proper == "no double, take"
        crawford = bot.cube_action(pos, match_state=MatchState(match_length=5, score=(2, 4), crawford=True))
        assert not crawford.may_double
        with pytest.raises(InvalidArgument):
            bot.cube_action(pos, match_state="5 points")

    def test_cube_command(self, capsys):
        assert main(["cube", "sNvBATDYc+ABMA", "--length", "5", "--score", "2-3"]) == 0
        out = capsys.readouterr().out
        assert "Cube analysis (net0; 5-point match, 3-away 2-away, cube 1)" in out
        assert "1. No double" in out and "MWC" in out and "Proper cube action: No double, take" in out
        assert main(["cube", "4HPwATDgc/ABMA", "--length", "7", "--score", "4-6", "--crawford", "--json"]) == 0
        data = json.loads(capsys.readouterr().out)
        assert data["may_double"] is False and data["double_take"] is None and 0 < data["no_double_mwc"] < 0.5
        assert main(["cube", "4HPwATDgc/ABMA", "--level", "net1", "--json"]) == 0  # money, one roll ahead
        data = json.loads(capsys.readouterr().out)
        assert data["match_length"] == 0 and data["double_pass"] == 1.0 and data["proper"] == "no double, take"

    def test_cube_command_refuses(self, tmp_path, capsys):
        bad = tmp_path / "bad.xml"
        bad.write_text('<met><pre-crawford-table type="zadeh"/></met>')
        assert main(["cube", "4HPwATDgc/ABMA", "--length", "5", "--met", str(bad)]) != 0
        assert main(["cube", "4HPwATDgc/ABMA", "--length", "5", "--score", "5-1"]) != 0
        assert main(["cube", "4HPwATDgc/ABMA", "--cube", "3"]) != 0
        assert main(["cube", "4HPwATDgc/ABMA", "--ruleset", "tawla31"]) != 0
        err = capsys.readouterr().err
        assert "FormatError" in err or "explicit" in err


def _export_blocks(path):
    """(Position ID, Match ID, gnubg's five probabilities, its proper action) of the cube
    analysis blocks of a GNU Backgammon text export."""
    lines = path.read_text(encoding="utf-8").splitlines()
    pid = mid = None
    for i, line in enumerate(lines):
        if "Position ID:" in line:
            pid = line.split(":", 1)[1].strip()
        elif line.strip().startswith("Match ID"):
            mid = line.split(":", 1)[1].strip()
        elif line.strip() == "Cube analysis":
            nums = [float(v) for v in lines[i + 2].split() if v != "-"] if " - " in lines[i + 2] else None
            proper = next(x for x in lines[i + 3:i + 10] if x.startswith("Proper cube action:"))
            if nums and len(nums) == 6:
                yield pid, mid, [nums[0], nums[1], nums[2], nums[4], nums[5]], proper.split(":", 1)[1].split("(")[0].strip()


def test_gnubg_analyses_cube_actions():
    """The 0-ply cube analyses of real matches by GNU Backgammon 1.07 (the shared
    gnubg-analysed set, 5- and 7-point matches): its printed probabilities through tawla's
    model at the score give its proper action (redoubles as doubles) in at least 99%."""
    folder = shared_path("data", "gnubg-analysed", "analysed", "0-ply")
    agree = n = 0
    for path in sorted(folder.glob("galaxy_[57]pt_*.txt")):
        for pid, mid, probs, proper in _export_blocks(path):
            state = MatchState.from_match_id(mid)
            if state.double_offered:  # an answer: printed from the taker's side
                probs = [1 - probs[0], probs[3], probs[4], probs[1], probs[2]]
            d = cube_decision(probs, Position.from_gnubg_id(pid).row, "backgammon", state)
            theirs = proper.lower().replace("redouble", "double").replace("too good to double", "too good")
            theirs = theirs.replace("never double, take (dead cube)", "no double")
            mine = d.proper if d.may_double else "no double"
            n += 1
            agree += mine == theirs or (theirs.startswith("optional") and not d.double)
    assert n > 1000 and agree / n >= 0.99, (agree, n)


class TestCheckerPlayAtTheScore:
    POS = Position.from_gnubg_id("4HPwATDgc/ABMA")

    def test_double_match_point_ranks_by_winning_chances(self):
        """1-away 1-away: a gammon counts one, the cube is dead: a play is worth 2 p - 1 with p
        its winning chance."""
        bot = Bot("backgammon", "net0")
        ranked = bot.hint(self.POS, (3, 1), match_state=MatchState(match_length=5, score=(4, 4)))
        rows = np.stack([np.frombuffer(self.POS.play(r.move).row, dtype=np.uint8) for r in ranked])

        p_opp = default_evaluator().probabilities(rows.copy(), "backgammon")[:, 1]
        assert [r.value for r in ranked] == pytest.approx(list(1 - 2 * p_opp), abs=1e-9)
        assert [r.value for r in ranked] == sorted((r.value for r in ranked), reverse=True)

    def test_money_and_no_state_are_cubeless(self):
        bot = Bot("backgammon", "net0")
        plain = [(str(r.move), r.value) for r in bot.hint(self.POS, (3, 1))]
        money = [(str(r.move), r.value) for r in bot.hint(self.POS, (3, 1), match_state=MatchState(match_length=0))]
        assert plain == money

    def test_choose_and_moves_at_the_score(self, capsys):
        state = MatchState(match_length=7, score=(0, 4))
        bot = Bot("backgammon", "net1")
        assert bot.choose(self.POS, (3, 1), match_state=state) == bot.hint(self.POS, (3, 1), match_state=state)[0].move
        assert main(["moves", "4HPwATDgc/ABMA", "31", "--length", "7", "--score", "0-4"]) == 0
        out = capsys.readouterr().out
        assert "at the score (7-point match, 7-away 3-away, cube 1" in out and "EMG" in out


def test_analysis_ranks_a_matchs_plays_at_the_score():
    """tawla analyze's ranking of a play in a backgammon match is the EMG at the score: at
    double match point a play is worth 1 - 2 p (p the opponent's winning chance after it)."""
    pos = Position.from_gnubg_id("4HPwATDgc/ABMA")
    legal = pos.legal_moves((3, 1))
    played = legal[-1]
    state = _score_state(pos.ruleset, 5, (4, 4), 0, 1, None, False)
    assert state == ScoreState(5, 1, 1)
    assert _score_state(pos.ruleset, 0, (0, 0), 0, 1, None, False) is None  # money: cubeless
    dec = Decision(1, 1, None, 0, (3, 1), str(played), str(played), False, len(legal), (167, 167))
    _rank(dec, legal, played, default_evaluator(), pos.ruleset, state)
    rows = np.stack([np.frombuffer(pos.play(m).row, dtype=np.uint8) for m in legal]).copy()
    p = default_evaluator().probabilities(rows, "backgammon")[:, 1]
    values = 1 - 2 * p
    k = next(i for i, m in enumerate(legal) if m == played)
    assert dec.equity_loss == pytest.approx(values.max() - values[k], abs=1e-9) and dec.best == str(legal[int(values.argmax())])


class TestVariantTables:
    def test_by_hand(self):
        """One point a game: a race of fair coin flips (1-away 2-away 3/4, 1-away 3-away 7/8);
        two points a game: 1-away and 2-away are alike."""
        ones = table_from_distribution({1: 10})
        assert ones.mwc(1, 2) == pytest.approx(0.75) and ones.mwc(1, 3) == pytest.approx(0.875)
        assert ones.mwc(3, 3) == pytest.approx(0.5) and ones.mwc(2, 1) == pytest.approx(0.25)
        twos = table_from_distribution({2: 3})
        assert twos.mwc(1, 2) == pytest.approx(0.5) and twos.mwc(2, 3) == pytest.approx(0.75)
        with pytest.raises(InvalidArgument):
            table_from_distribution({0: 3})
        with pytest.raises(InvalidArgument):
            table_from_distribution({})

    @pytest.mark.parametrize("ruleset", ["adi", "mahbusa", "tawla31", "tawla31-saharat"])
    def test_measured_tables(self, ruleset):
        t = variant_met(ruleset)
        assert sum(variant_distribution(ruleset).values()) >= 3000
        n = 31
        pre = t.pre[:n, :n]
        assert np.allclose(pre + pre.T, 1.0) and np.allclose(np.diag(pre), 0.5)
        assert (np.diff(pre, axis=0) <= 1e-12).all() and (np.diff(pre, axis=1) >= -1e-12).all()  # monotone
        assert t.mwc(1, 5, post_crawford=True) == pytest.approx(t.mwc(1, 5))  # no Crawford rule: one table

    def test_unknown(self):
        with pytest.raises(InvalidArgument):
            variant_met("backgammon")


def test_mars_rulesets_play_for_the_match():
    """Adi at 1-away 1-away: a mars counts one, a play is worth 2 p - 1 (p its winning chance)
    (Tawla 31: tests/test_t31_match.py)."""
    pos = get_ruleset("adi").initial_position()
    bot = Bot("adi", "net0")
    ranked = bot.hint(pos, (3, 1), match_state=MatchState(match_length=5, score=(4, 4)))
    rows = np.stack([np.frombuffer(pos.play(r.move).row, dtype=np.uint8) for r in ranked]).copy()
    p_opp = default_evaluator().probabilities(rows, "adi")[:, 1]
    assert [r.value for r in ranked] == pytest.approx(list(1 - 2 * p_opp), abs=1e-9)
