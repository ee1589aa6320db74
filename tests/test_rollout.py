"""Rollouts (tawla.rollout, tawla rollout): the compiled trial loop against its Python twin, bear-offs
against the exact two-sided database, the same numbers whatever the split, a seed or a resume,
luck adjustment without bias, the cube model against MoneyCube, training's targets from the same
loop, every ruleset, and bad input."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

import tawla
from tawla import native
from tawla.analysis.rollouts import AT_SCORE
from tawla.bots.cube import MoneyCube
from tawla.cli import main
from tawla.errors import FormatError, InvalidArgument, InvalidDice, InvalidPosition
from tawla.evaluation import bearoff
from tawla.evaluation.bearoff import eval_tables
from tawla.rollout import BLOCK, RolloutSettings, plan_rollout, rollout
from tawla.rollout import run as rollout_run
from tawla.rollout.evaluator import trial_evaluator
from tawla.rollout.twin import trials_py

compiled = pytest.mark.skipif(not native.available("rollout"), reason="the compiled engine is not built")
RULESETS = ["backgammon", "adi", "mahbusa", "tawla31", "tawla31-saharat"]
OPENING = "4HPwATDgc/ABMA"


def live_rows(name: str, n: int, seed: int) -> np.ndarray:
    """n random positions of a ruleset whose game goes on."""
    r = tawla.get_ruleset(name)
    rows = tawla.batch.random_positions(r, 4 * n, seed=seed)
    over = native.game_results(rows, r)[0]
    return np.ascontiguousarray(rows[~over][:n])


@compiled
@pytest.mark.parametrize("name", RULESETS)
def test_the_compiled_trials_are_the_python_twins(name):
    """The same moves (plies) and the same numbers, with and without luck adjustment and cube."""
    r = tawla.get_ruleset(name)
    rows = live_rows(name, 2, seed=5)
    ev = trial_evaluator(r, "net0")
    for kw in (dict(first=7, trials=6, truncate=5, vr=False, cubeful=name == "backgammon", seed=9, rot=(3, 7)),
               dict(first=40, trials=2, truncate=2, vr=True, cubeful=name == "backgammon", seed=2)):
        a, araw, ap = native.rollout_trials(rows, r, ev.contact, raw=True, **ev.compiled_args(), **kw)
        b, braw, bp = trials_py(rows, r, ev, **kw)
        np.testing.assert_array_equal(ap, bp)
        np.testing.assert_allclose(a, b, atol=1e-6)
        np.testing.assert_allclose(araw, braw, atol=1e-6)


@compiled
def test_whole_games_and_the_heuristic_level_match_the_twin():
    r = tawla.get_ruleset("backgammon")
    rows = live_rows("backgammon", 1, seed=11)
    ev = trial_evaluator(r, "ply0")
    kw = dict(first=0, trials=3, cubeful=True, seed=4)
    a, araw, ap = native.rollout_trials(rows, r, ev.contact, raw=True, **ev.compiled_args(), **kw)
    b, braw, bp = trials_py(rows, r, ev, **kw)
    np.testing.assert_array_equal(ap, bp)
    assert ap.min() > 10  # whole games, not truncated
    np.testing.assert_allclose(a, b, atol=1e-6)


def bearoff_position(me: dict, opp: dict) -> tawla.Position:
    return tawla.Position.from_points("backgammon", me, {25 - p: n for p, n in opp.items()})


BEAROFFS = [({1: 2, 3: 1, 5: 2}, {2: 2, 4: 2, 6: 1}), ({6: 3, 5: 1}, {1: 1, 2: 1, 3: 2, 4: 1}),
            ({4: 2, 6: 2, 2: 1}, {5: 3, 6: 2})]


@compiled
@pytest.mark.parametrize("me, opp", BEAROFFS)
def test_bearoff_rollouts_agree_with_the_two_sided_database(me, opp):
    """Database lookups off, both sides choosing by the two-sided table (the race model in its
    range): the win rate within three standard errors of the exact value."""
    pos = bearoff_position(me, opp)
    exact = float(bearoff.two_sided([me.get(p, 0) for p in range(1, 7)], [opp.get(p, 0) for p in range(1, 7)]))
    got = rollout(pos, trials=2592, bearoff=False, variance_reduction=False, cubeful=False, seed=3).result
    assert got.trials == 2592 and got.plies > 2
    assert abs(got.probabilities[0] - exact) <= 3 * got.probabilities_se[0] + 1e-9, (got.probabilities[0], exact)
    assert abs(got.equity - (2 * exact - 1)) <= 3 * got.equity_se + 1e-9
    # with the databases on, the trial stops at once with the exact value
    db = rollout(pos, trials=36, cubeful=False).result
    assert db.plies == 0 and db.equity_se < 1e-12 and db.equity == pytest.approx(2 * exact - 1, abs=1e-12)
    assert db.probabilities[0] == pytest.approx(exact, abs=1e-7)  # the outputs are float32


@compiled
def test_the_same_numbers_whatever_the_split_and_from_a_resume(tmp_path):
    pos = tawla.Position.from_gnubg_id(OPENING)
    s = RolloutSettings(trials=3 * BLOCK, truncate=4, seed=21)
    one = rollout(pos, settings=s).to_json()
    assert rollout(pos, settings=s, workers=2).to_json() == one
    assert rollout(pos, settings=s).to_json() == one  # and again
    assert rollout(pos, settings=RolloutSettings(trials=3 * BLOCK, truncate=4, seed=22)).to_json() != one
    # interrupted after the first block, saved, resumed: the uninterrupted numbers
    save = tmp_path / "r.json"

    def stop(run):
        raise KeyboardInterrupt

    plan = plan_rollout(pos, settings=s)
    with pytest.raises(KeyboardInterrupt):
        rollout_run.RolloutRun(plan.job, save=save).run(progress=stop)
    assert len(json.loads(save.read_text())["blocks"]) == 1
    assert rollout(pos, settings=s, resume=save, save=save).to_json() == one
    with pytest.raises(FormatError):  # saved for other settings
        rollout(pos, settings=RolloutSettings(trials=3 * BLOCK, truncate=5, seed=21), resume=save)
    save.write_text("{not json")
    with pytest.raises(FormatError):
        rollout(pos, settings=s, resume=save)


@compiled
def test_a_decisions_plays_share_dice_and_are_ranked():
    pos = tawla.Position.from_gnubg_id(OPENING)
    ro = rollout(pos, (3, 1), top=3, trials=BLOCK, truncate=3, seed=1)
    assert len(ro.plays) == 3 and str(ro.plays[0].move) == "8/5 6/5"
    eq = [p.result.cubeful_equity for p in ro.plays]
    assert eq == sorted(eq, reverse=True)
    # a play's rollout is the rollout of the position it leaves, seen from the player
    after = pos.play(ro.plays[0].move)
    alone = rollout(after, trials=BLOCK, truncate=3, seed=1, cube_owner=0).result
    assert ro.plays[0].result.equity == pytest.approx(-alone.equity, abs=1e-12)


@compiled
def test_luck_adjustment_keeps_the_mean_and_cuts_the_error():
    pos = tawla.Position.from_gnubg_id("sGfwATDgc/ABMA")  # after an opening 31, the opponent on roll
    plain = rollout(pos, trials=4 * BLOCK, truncate=6, variance_reduction=False, cubeful=False, seed=5).result
    vr = rollout(pos, trials=BLOCK, truncate=6, variance_reduction=True, cubeful=False, seed=6).result
    for a, b, sa, sb in [(plain.equity, vr.equity, plain.equity_se, vr.equity_se),
                         (plain.probabilities[0], vr.probabilities[0], plain.probabilities_se[0], vr.probabilities_se[0])]:
        assert abs(a - b) <= 3 * np.hypot(sa, sb)
    assert vr.equity_se * 3 < vr.raw_equity_se  # the same trials unadjusted: at least 3x the error
    assert plain.raw_equity_se == plain.equity_se


@compiled
def test_the_cube_model_is_money_cube():
    rng = np.random.default_rng(1)
    win = rng.uniform(0.02, 0.98, 400)
    wg = win * rng.uniform(0, 0.5, 400)
    lg = (1 - win) * rng.uniform(0, 0.5, 400)
    probs = np.stack([np.zeros(400), win, wg, wg * rng.uniform(0, 0.2, 400), lg, lg * rng.uniform(0, 0.2, 400)], 1)
    probs[:, 0] = 2 * win - 1 + probs[:, 2] + probs[:, 3] - probs[:, 4] - probs[:, 5]
    for owner in (-1, 0, 1):
        for jacoby, beaver in ((False, False), (True, False), (False, True)):
            nd, dt, dec = native.cube_money(np.ascontiguousarray(probs), owner, 0.68, jacoby, beaver)
            for i in range(0, 400, 7):
                m = MoneyCube.from_probabilities(probs[i], owner, jacoby=jacoby, beaver=beaver)
                assert nd[i] == pytest.approx(m.no_double, abs=1e-12) and dt[i] == pytest.approx(m.double_take, abs=1e-12)
                assert (dec[i] != 0) == m.double and (dec[i] == 3) == (m.double and not m.take)


@compiled
def test_training_targets_come_from_the_same_trial_loop():
    net = tawla.evaluation.net.shipped_net("backgammon")
    r = net.ruleset
    rows = live_rows("backgammon", 3, seed=2)
    one, _, _, two = eval_tables()
    got = native.net_rollout_targets(rows, r, net.w1, net.b1, net.w2, net.b2, 36, 3, 17, 5, one, two)
    for i, row in enumerate(rows):
        seed = 17 ^ ((0xD1B54A32D192ED03 * (5 + i + 1)) & (2**64 - 1))
        out, _ = native.rollout_trials(row[None], r, "net", w1=net.w1, b1=net.b1, w2=net.w2, b2=net.b2,
                                       race_one=one, race_two=two, trials=36, truncate=3, stop_race=True,
                                       stratify=1, rot=(0, 0), seed=seed)
        np.testing.assert_allclose(got[i], out[0, :, :5].mean(0), atol=1e-6)


@pytest.mark.parametrize("name", RULESETS)
def test_every_ruleset_rolls_out_a_position_and_a_decision(name):
    r = tawla.get_ruleset(name)
    pos = tawla.Position.from_array(live_rows(name, 1, seed=3)[0], r) if native.available("rollout") else None
    if pos is None:
        pytest.skip("the compiled engine is not built (the fallback is tested in a subprocess below)")
    res = rollout(pos, trials=72, truncate=4, seed=2).result
    top = r.max_points
    assert res.trials == 72 and abs(res.equity) <= top and 0 <= res.probabilities[0] <= 1
    assert (res.cubeful_equity is not None) == (name == "backgammon")
    for d in ((6, 5), (3, 1), (2, 2)):
        if pos.legal_moves(d):
            ro = rollout(pos, d, top=2, trials=36, truncate=2, seed=2)
            assert 1 <= len(ro.plays) <= 2 and ro.to_json()["dice"] == list(d)
            break


@compiled
def test_the_fallback_gives_the_compiled_numbers():
    """TAWLA_NO_NATIVE=1: the Python twin behind the same API, the same result."""
    s = dict(trials=36, truncate=3, seed=8)
    want = rollout(tawla.Position.from_gnubg_id(OPENING), **s).to_json()
    code = ("import json, tawla; from tawla.rollout import rollout; "
            f"print(json.dumps(rollout(tawla.Position.from_gnubg_id({OPENING!r}), **{s!r}).to_json()))")
    env = {**os.environ, "TAWLA_NO_NATIVE": "1"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300, check=True)
    got = json.loads(out.stdout)
    assert got.keys() == want.keys()
    for k in ("probabilities", "probabilities_se"):
        np.testing.assert_allclose(got[k], want[k], atol=1e-6)
    for k in ("equity", "equity_se", "cubeful_equity", "cubeful_equity_se", "plies"):
        assert got[k] == pytest.approx(want[k], abs=1e-6), k


def test_bad_input_is_refused_before_any_trial():
    pos = tawla.Position.from_gnubg_id(OPENING)
    for bad in (dict(trials=0), dict(trials=-5), dict(trials=10**8), dict(trials=2.5), dict(se=float("nan")),
                dict(se=-0.01), dict(truncate=-1), dict(level="net9"), dict(seed=-1), dict(min_trials=0),
                dict(variance_reduction="yes")):
        with pytest.raises(InvalidArgument):
            rollout(pos, **bad)
    with pytest.raises(InvalidArgument):
        rollout(pos, cube_owner=2)
    with pytest.raises(InvalidArgument):
        rollout(pos, (3, 1), top=0)
    with pytest.raises(InvalidDice):
        rollout(pos, (7, 1))
    with pytest.raises(InvalidPosition):
        rollout("4HPwATDgc/ABMA")
    over = tawla.Position.from_points("backgammon", {6: 15}, {}, off=(0, 15))
    with pytest.raises(InvalidPosition):
        rollout(over)


def test_the_command_line(capsys):
    assert main(["rollout", OPENING, "--trials", "36", "--truncate", "2", "--no-progress", "--json"]) == 0
    obj = json.loads(capsys.readouterr().out)
    assert obj["trials"] == 36 and obj["truncate"] == 2 and len(obj["probabilities"]) == 5
    assert {"position", "ruleset", "level", "seed", "variance_reduction", "equity", "equity_se",
            "cubeful_equity", "cubeful_equity_se", "probabilities_se"} <= obj.keys()
    assert main(["rollout", OPENING, "--dice", "31", "--top", "2", "--trials", "36", "--truncate", "1",
                 "--no-progress"]) == 0
    text = capsys.readouterr().out
    assert "8/5 6/5" in text and "std. error" in text
    for bad, status in ((["--trials", "0"], 2), (["--se", "nan"], 2), (["--truncate", "-1"], 2),
                        (["--level", "net9"], 2), (["--length", "7", "--score", "7-3"], 2)):
        assert main(["rollout", OPENING, "--no-progress", *bad]) == status
        capsys.readouterr()
    assert main(["rollout", "not-an-id", "--no-progress"]) == 1
    assert main(["rollout", "--no-progress"]) == 2


def test_ctrl_c_prints_the_trials_so_far(monkeypatch, capsys):
    calls = {"n": 0}
    real = rollout_run.run_block

    def interrupted(job, b):
        calls["n"] += 1
        if calls["n"] == 3:
            raise KeyboardInterrupt
        return real(job, b)

    monkeypatch.setattr(rollout_run, "run_block", interrupted)
    status = main(["rollout", OPENING, "--trials", str(5 * BLOCK), "--truncate", "1", "--no-vr", "--no-progress",
                   "--json"])
    assert status == 130
    obj = json.loads(capsys.readouterr().out)
    assert obj["trials"] == 2 * BLOCK and obj["complete"] is False


def test_positions_file_to_json_lines_with_save_and_resume(tmp_path, capsys):
    ids = tmp_path / "ids.txt"
    ids.write_text(f"{OPENING}\nsGfwATDgc/ABMA\n")
    save = tmp_path / "done.jsonl"
    args = ["rollout", "--positions", str(ids), "--trials", "36", "--truncate", "1", "--no-progress"]
    assert main([*args, "--save", str(save)]) == 0
    first = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert [o["input"] for o in first] == [OPENING, "sGfwATDgc/ABMA"]
    assert main([*args, "--resume", str(save)]) == 0
    assert [json.loads(x) for x in capsys.readouterr().out.splitlines()] == first


@compiled
def test_analyze_rolls_out_each_players_worst_plays(capsys, tmp_path):
    html = tmp_path / "r.html"
    assert main(["analyze", "--rollout-worst", "1", "--trials", "36", "--json", "--no-progress",
                 "--workers", "1", "--html", str(html)]) == 0
    out = json.loads(capsys.readouterr().out)
    for m in out["matches"]:
        assert len(m["rollouts"]) == 2 and {e["player"] for e in m["rollouts"]} == set(m["players"])
        for e in m["rollouts"]:
            assert {p["play"] for p in e["plays"]} == {e["played"], e["best"]} and e["trials"] == 36
            assert e["rollout_loss_se"] > 0 and e["equity_kind"] == AT_SCORE  # the samples are matches
            by = {p["play"]: p for p in e["plays"]}
            assert e["rollout_loss"] == pytest.approx(by[e["best"]]["emg"] - by[e["played"]]["emg"])
    assert "Worst plays rolled out" in html.read_text()
    assert main(["analyze", "--rollout-worst", "1", "--trials", "36", "--truncate", "1", "--no-progress",
                 "--workers", "1"]) == 0
    text = capsys.readouterr().out
    assert "by rollout (EMG at the score" in text  # backgammon truncated; Tawla 31 refuses truncation at a score
    assert "not rolled out (InvalidArgument: a Tawla 31 rollout at a match score plays every trial" in text
    assert main(["analyze", "--rollout-worst", "1", "--no-eval", "--no-progress"]) == 2


@compiled
def test_analyze_level_and_moves_by_rollout(capsys):
    assert main(["analyze", "--level", "net1", "--json", "--no-progress", "--workers", "1"]) == 0
    assert json.loads(capsys.readouterr().out)["evaluator"]["name"] == "tawla net1"
    assert main(["analyze", "--level", "net2", "--heuristic", "--no-progress"]) == 2
    capsys.readouterr()
    assert main(["moves", OPENING, "31", "--rollout", "--top", "2", "--trials", "36", "--truncate", "1"]) == 0
    text = capsys.readouterr().out
    assert "Rollout of 31 played from" in text and " 2. " in text


@compiled
def test_a_dask_cluster_gives_the_numbers_of_one_process():
    distributed = pytest.importorskip("distributed")
    pos = tawla.Position.from_gnubg_id(OPENING)
    s = RolloutSettings(trials=2 * BLOCK, truncate=2, seed=4)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cl:
        got = rollout(pos, settings=s, scheduler=cl.scheduler_address).to_json()
    assert got == rollout(pos, settings=s).to_json()


@compiled
def test_a_standard_error_to_reach_stops_at_a_block():
    pos = tawla.Position.from_gnubg_id(OPENING)
    ro = rollout(pos, trials=20 * BLOCK, se=0.01, min_trials=BLOCK, truncate=3, seed=2, cubeful=False).result
    assert ro.trials % BLOCK == 0 and BLOCK <= ro.trials < 20 * BLOCK and ro.equity_se <= 0.01
    full = rollout(pos, trials=ro.trials, truncate=3, seed=2, cubeful=False).result
    assert full.equity == ro.equity  # the blocks it ran are those of a fixed count


@compiled
@pytest.mark.parametrize("name", ["backgammon", "mahbusa"])
def test_the_1ply_level_is_its_twins(name):
    """net1: the plays searched one roll deeper, the luck still at 0 ply: the twin's numbers."""
    r = tawla.get_ruleset(name)
    rows = live_rows(name, 1, seed=5)
    ev = trial_evaluator(r, "net1")
    assert ev.ply == 1 and ev.prune == 8
    for kw in (dict(trials=2, truncate=2, vr=False, seed=3), dict(trials=1, truncate=2, vr=True, seed=4)):
        a, araw, ap = native.rollout_trials(rows, r, ev.contact, raw=True, **ev.compiled_args(), **kw)
        b, braw, bp = trials_py(rows, r, ev, **kw)
        np.testing.assert_array_equal(ap, bp)
        np.testing.assert_allclose(a, b, atol=1e-6)
    # the level plays differently from net0 somewhere, and its rollouts run through the API
    pos = tawla.Position.from_array(rows[0], r)
    assert rollout(pos, trials=36, truncate=2, level="net1", seed=1).settings.level == "net1"
