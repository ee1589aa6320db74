"""The race network: the races beyond the bear-off databases valued by a network wherever the
net levels evaluate (the compiled one-pass routing, its numpy twin, the compiled move choice,
the rollout trial loop), its training round, and the weights format's version."""

from __future__ import annotations

import io
import json

import numpy as np
import pytest

import tawla
from tawla import native
from tawla.errors import ConfigError
from tawla.evaluation import evaluate_rows
from tawla.evaluation import net as net_module
from tawla.evaluation.bearoff import eval_tables
from tawla.evaluation.board_views import sides
from tawla.evaluation.net import WEIGHTS_FORMAT, NetEvaluator, shipped_net, shipped_race_net
from tawla.evaluation.routing import beyond_databases, evaluate_np, race_caps, race_network, race_rows
from tawla.training.race import load_race_positions, race_positions, race_targets, save_race_positions, train_race_net

needs_fast = pytest.mark.skipif(not native.available("net"), reason="the compiled engine is not built")
BG = tawla.get_ruleset("backgammon")


@pytest.fixture
def race_net(monkeypatch):
    """A small untrained race network, installed as backgammon's shipped one."""
    net = NetEvaluator.initial(BG, hidden=6, seed=3)
    net.w1 *= 8  # outputs that differ from position to position
    monkeypatch.setitem(net_module._SHIPPED_RACE, "backgammon", net)
    return net


@pytest.fixture(scope="module")
def race_sample():
    """Races beyond the databases, races at home, contact rows and finished games, mixed."""
    rows = tawla.batch.random_positions(BG, 8000, seed=21, include_over=True)
    me, opp, om = sides(rows, BG)
    done = native.game_results(rows, BG, frozen_test=False, checked=False)[0]
    race = race_rows(me, opp, om, BG, done)
    beyond = race & beyond_databases(me, opp)
    assert beyond.sum() > 50 and (race & ~beyond).sum() > 5 and (~race & ~done).sum() > 100 and done.sum() > 0
    return rows, beyond


@needs_fast
def test_compiled_routing_equals_its_numpy_twin_with_a_race_network(race_net, race_sample):
    rows, beyond = race_sample
    contact = shipped_net(BG)
    assert race_network(contact, BG) is race_net and race_network(None, BG) is None
    fast = evaluate_rows(rows, BG, contact=contact)
    slow = evaluate_np(rows, BG, contact)
    assert np.abs(fast - slow).max() < 2e-6
    assert np.allclose(fast[beyond], race_caps(rows[beyond], race_net(rows[beyond], BG), BG), atol=2e-6)
    lost_gammon = rows[beyond][:, 26] > 0  # the opponent has borne off: no gammon to win any more
    no_backgammon = rows[beyond][:, 27:33].sum(1) == 0  # none of its checkers in the mover's home
    assert lost_gammon.any() and no_backgammon.any()
    assert (fast[beyond][lost_gammon, 2] == 0).all() and (fast[beyond][no_backgammon, 3] == 0).all()
    net_module._SHIPPED_RACE["backgammon"] = None  # the race model again: only the beyond rows change
    plain = evaluate_rows(rows, BG, contact=contact)
    assert np.array_equal(plain[~beyond], fast[~beyond]) and not np.allclose(plain[beyond], fast[beyond])
    assert np.array_equal(tawla.evaluate(rows, BG, "ply0"), evaluate_rows(rows, BG).astype(np.float32))


@needs_fast
def test_compiled_choice_and_rollouts_use_the_race_network(race_net, race_sample):
    rows, beyond = race_sample
    bot = tawla.Bot(BG, "net0")
    for row in rows[beyond][:15]:
        pos = tawla.Position(bytes(row), BG)
        for dice in ((6, 5), (2, 1)):
            moves = pos.legal_moves(dice)
            if not moves:
                continue
            kids = np.frombuffer(b"".join(native.flip_row(m.after, BG) for m in moves), np.uint8).reshape(-1, 56)
            values = -evaluate_rows(kids, BG, contact=shipped_net(BG))[:, 0]
            assert bot.choose(pos, dice) == moves[int(np.argmax(values))]
    one, _, _, two = eval_tables()
    contact = shipped_net(BG)
    args = dict(w1=contact.w1, b1=contact.b1, w2=contact.w2, b2=contact.b2, race_one=one, race_two=two,
                trials=4, vr=True, stop_race=True, seed=5)
    some = np.ascontiguousarray(rows[beyond][:6])
    with_net = native.rollout_trials(some, BG, "net", race_net=race_net.weights, **args)[0]
    without = native.rollout_trials(some, BG, "net", **args)[0]
    assert with_net.shape == without.shape and not np.allclose(with_net, without)


@needs_fast
def test_race_positions_rollout_targets_and_value_iteration(tmp_path):
    contact = shipped_net(BG)
    rows = race_positions(contact, 120, seed=4)
    me, opp, om = sides(rows, BG)
    done = native.game_results(rows, BG, frozen_test=False, checked=False)[0]
    assert len(rows) == 120 and len(np.unique(rows, axis=0)) == 120
    assert (race_rows(me, opp, om, BG, done) & beyond_databases(me, opp)).all()
    mean, se = race_targets(rows[:40], contact, 6, seed=2)
    again, _ = race_targets(rows[:40], contact, 6, seed=2, threads=2)
    assert mean.shape == se.shape == (40, 6) and np.array_equal(mean, again)
    assert ((mean[:, :5] >= 0) & (mean[:, :5] <= 1)).all() and (se >= 0).all()
    seen = []
    net = train_race_net(contact, rows, rounds=3, hidden=5, first_epochs=4, epochs=2, holdout=20, seed=3,
                         progress=lambda k, n, rec: seen.append((k, n, rec["mse_after"] is not None)))
    assert seen == [(1, 3, True), (2, 3, True), (3, 3, True)] and net.meta["kind"] == "race" and net.hidden == 5
    assert net.meta["rounds"][0]["mse_before"] is None and net.meta["rounds"][1]["mse_before"] is not None
    same = train_race_net(contact, rows, rounds=3, hidden=5, first_epochs=4, epochs=2, holdout=20, seed=3, threads=2)
    assert np.array_equal(same.w1, net.w1)  # seeded, and the same however the targets are split
    more = train_race_net(contact, rows, rounds=1, epochs=2, holdout=20, seed=3, start=net)
    assert more.hidden == 5 and not np.array_equal(more.w1, net.w1)
    for name in ("tawla31", "mahbusa"):  # no race networks where the routing has none
        with pytest.raises(ConfigError, match="backgammon and adi"):
            race_positions(shipped_net(name), 10, seed=1)
        assert race_network(shipped_net(name), tawla.get_ruleset(name)) is None
    path = tmp_path / "positions.npz"
    save_race_positions(path, rows, {"seed": 4})
    kept, meta = load_race_positions(path)
    assert np.array_equal(kept, rows) and meta == {"seed": 4}


def test_weights_files_carry_their_format_and_another_version_is_refused(tmp_path):
    net = NetEvaluator.initial(BG, hidden=3, seed=1)
    data = net.to_bytes()
    with np.load(io.BytesIO(data)) as z:
        assert json.loads(bytes(z["meta"]).decode())["format"] == WEIGHTS_FORMAT
        parts = {k: z[k] for k in z.files}
    assert NetEvaluator.from_bytes(data).meta.get("format") is None  # read, not kept in meta
    meta = json.loads(bytes(parts["meta"]).decode())
    meta["format"] = WEIGHTS_FORMAT + 1
    parts["meta"] = np.frombuffer(json.dumps(meta).encode(), np.uint8)
    path = tmp_path / "future.npz"
    np.savez(path, **parts)
    with pytest.raises(ConfigError, match="format version 2"):
        NetEvaluator.load(path)
    with pytest.raises(ConfigError):
        load_race_positions(path)


@pytest.mark.parametrize("name", ["backgammon", "adi"])
def test_the_shipped_race_network_is_listed_with_the_contact_ones(name):
    entry = net_module.manifest()[name].get("race")
    net = shipped_race_net(name)
    assert entry is not None and net is not None, f"{name} ships a race network"
    if entry is not None:
        assert net.meta["kind"] == "race" and entry["command"].startswith("tawla train --race")
        rows = tawla.ids_to_array(entry["check"]["positions"], ruleset=name)
        np.testing.assert_allclose(net.outputs(rows), np.asarray(entry["check"]["outputs"]), atol=2e-6)


@needs_fast
def test_tawla_train_race_writes_a_race_network_and_its_positions(tmp_path, capsys):
    from importlib import resources

    from tawla.cli import main
    contact = resources.files("tawla") / "data" / "nets" / "backgammon.npz"
    out, data = tmp_path / "race.npz", tmp_path / "positions.npz"
    args = ["train", "--race", str(contact), "--positions", "80", "--rounds", "2", "--hidden", "4", "--epochs", "2",
            "--holdout", "8", "--data", str(data), "-o", str(out), "--no-progress"]
    assert main(args) == 0
    net = NetEvaluator.load(out)
    assert net.meta["kind"] == "race" and net.hidden == 4 and len(net.meta["rounds"]) == 2
    assert load_race_positions(data)[1]["positions"] == 80 and net.meta["data"]["seed"] == 1
    assert "race network of 4 hidden units, 2 rounds on 80 positions" in capsys.readouterr().err
    assert main(args) == 0  # the positions read back: the same network
    assert np.array_equal(NetEvaluator.load(out).w1, net.w1)
