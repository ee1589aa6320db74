"""The clocks of a match (RULES.md §1.9): turn, step and answer timers, timeouts and the
timeout policies, coin tables, payouts, forfeits and the grace period."""

import tawla
from tawla import errors
from tawla.match import Match
from tawla.position import Position
from match_helpers import Clock, craft, end_game_by_resignation, pos, snapshot_unchanged, to_roll_phase


# --- timers and timeouts ------------------------------------------------------------------------
class TestTimeouts:
    def test_federation_turn_timer(self):
        c = Clock(100)
        m = Match("tawla31", "federation", 11, rng=2, clock=c)
        assert m.phase == "roll" and m.deadline == 145
        snapshot_unchanged(m, lambda: m.on_timeout(144.9), errors.InvalidAction)
        p = m.turn
        m.on_timeout(145)
        ev = [e for e in m.events if e["type"] == "timeout"][-1]
        assert ev["action"] == "roll" and len(ev["dice"]) == 2
        if m.phase == "move":
            assert m.deadline == 145 + 45 and m.turn == p
        m2 = Match("tawla31", tawla.get_house("federation", turn_time=None), 11, rng=2, clock=c)
        assert m2.deadline is None
        snapshot_unchanged(m2, lambda: m2.on_timeout(10 ** 6), errors.InvalidAction)
        m3 = Match("tawla31", "federation", 11, rng=2)  # no clock: no timers
        assert m3.deadline is None and m3.events[0]["t"] is None

    def test_move_timeout_keeps_the_steps_made(self):
        c = Clock(0)
        for seed in range(30):
            m = Match("bg", tawla.get_house("international", turn_time=60), 7, rng=seed, clock=c)
            if m.phase != "move" or len(m.legal_moves()) < 2:
                continue
            s = m.legal_steps()[-1]
            p = m.turn
            c.t = 10
            m.step(p, s.from_point, s.to_point, dice=s.dice)
            extending = {x.after for x in m.legal_moves()}
            m_before = Match.from_json(m.to_json(), clock=c)
            assert m.deadline == 60
            c.t = 60
            m.on_timeout(60)
            ev = [e for e in m.events if e["type"] == "timeout"][-1]
            assert ev["action"] == "complete"
            after = Position.from_id(ev["after"], m.ruleset).row
            assert after in extending
            turn = [e for e in m.events if e["type"] == "turn"][-1]
            assert turn["how"] == "timeout" and turn["player"] == p
            # the default policy is the ply0 bot: the completion it values most
            cands = m_before.legal_moves()
            want = tawla.Bot(m.ruleset, "ply0").timeout_policy()(
                m_before.turn_start_position, m_before.dice, m_before.played_steps, cands)
            assert after == want.after
            return
        raise AssertionError("no seed with a choice")

    def test_default_policy_is_the_net0_bot_not_the_first_move(self):
        """On timeout at the start of a move the default plays the net0 bot's move (the shipped
        backgammon network), here one that is not the first legal move; first_legal_policy
        plays the first."""
        c = Clock(0)
        for seed in range(60):
            m = Match("bg", tawla.get_house("international", turn_time=60), 7, rng=seed, clock=c)
            if m.phase != "move" or len(m.legal_moves()) < 2:
                continue
            pos, dice = m.turn_start_position, m.dice
            cands = m.legal_moves()
            bot_move = tawla.Bot(m.ruleset, "net0").choose(pos, dice)
            if bot_move.after == cands[0].after:
                continue
            m2 = Match("bg", tawla.get_house("international", turn_time=60), 7, rng=seed, clock=c,
                       timeout_policy=tawla.match.first_legal_policy)
            m.on_timeout(60)
            m2.on_timeout(60)
            after = [e for e in m.events if e["type"] == "timeout"][-1]["after"]
            after2 = [e for e in m2.events if e["type"] == "timeout"][-1]["after"]
            assert Position.from_id(after, m.ruleset).row == bot_move.after
            assert Position.from_id(after2, m.ruleset).row == cands[0].after
            return
        raise AssertionError("no seed where the bot's move is not the first")

    def test_pluggable_policy(self):
        chosen = []

        def last(position, dice, played, candidates):
            chosen.append(candidates[-1])
            return candidates[-1]

        c = Clock(0)
        for seed in range(30):
            m = Match("bg", tawla.get_house("international", turn_time=60), 7, rng=seed, clock=c,
                      timeout_policy=last)
            if m.phase == "move" and len(m.legal_moves()) > 1:
                m.on_timeout(60)
                ev = [e for e in m.events if e["type"] == "timeout"][-1]
                assert Position.from_id(ev["after"], m.ruleset).row == chosen[-1].after
                # replay reproduces the recorded completion whatever the policy
                assert Match.replay(m.to_json()).to_json() == m.to_json()
                return
        raise AssertionError("no seed with a choice")

    def test_pending_double_is_dropped_and_resignation_rejected(self):
        c = Clock(0)
        m = Match("bg", tawla.get_house("international", turn_time=30), 7, rng=9, clock=c)
        to_roll_phase(m)
        p = m.turn
        c.t = 5
        m.double(p)
        assert m.deadline == 35
        m.on_timeout(35)
        assert m.score[p] == 1 and m.game_number == 2
        to_roll_phase(m)
        c.t = 40
        m.resign(m.turn, "single")
        m.on_timeout(70)
        assert m.phase == "roll" and m.offer is None
        assert [e for e in m.events if e["type"] == "timeout"][-1]["action"] == "reject"

    def test_saharat_step_and_turn_clocks_and_pause(self):
        c = Clock(0)
        m = Match("adi", "saharat", 5, rng=3, clock=c)
        c.t = 100
        board = tawla.get_ruleset("adi").initial_position()
        m = craft(m, board=board, turn=0, phase="roll", next_dice=(2, 1), timers={"roll": 115})
        assert m.deadline == 115  # 15 s to roll
        c.t = 110
        m.roll(0)
        assert m.phase == "move" and m.deadline == 125  # step clock 15 s, turn clock 30 s
        c.t = 120
        s = m.legal_steps()[0]
        m.step(0, s.from_point, s.to_point, dice=s.dice)
        assert m.deadline == 135
        c.t = 130
        c.t = 132
        m.resign(1)  # the mover's clocks pause: 8 s of turn, 3 s of step left
        assert m.deadline == 147 and m.to_act == 0
        c.t = 140
        m.reject_resignation(0)
        assert m.deadline == 143 and m.phase == "move" and len(m.played_steps) == 1
        m.on_timeout(143)
        assert m.turn == 1 and [e for e in m.events if e["type"] == "turn"][-1]["how"] == "timeout"


# --- coin tables and forfeits -------------------------------------------------------------------
class TestCoins:
    def test_payout(self):
        m = Match("adi", tawla.get_house("saharat", stake=100), 1, rng=1)
        assert m.payout is None
        end_game_by_resignation(m, 0)
        assert m.payout == {"winner": 1, "pot": 200, "fee": 20, "prize": 180}
        m = Match("adi", tawla.get_house("saharat", stake=7), 1, rng=1)
        end_game_by_resignation(m, 1)
        assert m.payout == {"winner": 0, "pot": 14, "fee": 1, "prize": 13}  # fee rounded down
        m = Match("adi", "saharat", 1, rng=1)
        end_game_by_resignation(m, 1)
        assert m.payout is None  # not a coin table

    def test_leave_forfeits_the_match(self):
        m = Match("mahbusa", tawla.get_house("saharat", stake=50), 5, rng=1)
        end_game_by_resignation(m, 0)
        m.leave(1)
        assert m.phase == "over" and m.winner == 0 and m.end_reason == "forfeit"
        assert m.score == (0, 1) and m.payout == {"winner": 0, "pot": 100, "fee": 10, "prize": 90}
        m = Match("adi", "federation", 3, rng=1)
        m.leave(0)
        assert m.winner == 1 and m.end_reason == "forfeit" and m.payout is None

    def test_grace_period(self):
        c = Clock(0)
        h = tawla.get_house("saharat", stake=10, grace_period=60, turn_time=None, step_time=None)
        m = Match("adi", h, 5, rng=1, clock=c)
        assert m.deadline is None
        c.t = 10
        m.disconnect(1)
        snapshot_unchanged(m, lambda: m.disconnect(1), errors.InvalidAction)
        assert m.deadline == 70
        c.t = 50
        m.reconnect(1)
        assert m.deadline is None
        snapshot_unchanged(m, lambda: m.reconnect(1), errors.InvalidAction)
        c.t = 60
        m.disconnect(0)
        snapshot_unchanged(m, lambda: m.on_timeout(119), errors.InvalidAction)
        m.on_timeout(120)
        assert m.phase == "over" and m.winner == 1 and m.end_reason == "forfeit"
        assert m.payout["prize"] == 18
        # not a coin table: no forfeit for absence
        m = Match("adi", tawla.get_house("saharat", turn_time=None, step_time=None), 5, rng=1, clock=c)
        m.disconnect(0)
        assert m.deadline is None and m.away[0] == c.t

    def test_money_session_leave(self):
        m = Match("bg", "international", 0, rng=1)
        end_game_by_resignation(m, 1, "gammon")
        assert m.score == (1, 0)  # Jacoby: cube at 1
        m.leave(1)  # a game in progress is lost by the leaver first (here at most 1 more point)
        assert m.phase == "over" and m.end_reason == "session_end"
        assert m.winner == 0
