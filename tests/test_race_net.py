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
from tawla.evaluation.routing import beyond_databases, evaluate_np, race_network, race_rows
from tawla.training.race import fit_race_net, load_race_data, race_positions, race_round, race_targets

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
    assert np.allclose(fast[beyond], race_net(rows[beyond], BG), atol=2e-6)
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
def test_a_race_round_from_positions_to_a_fitted_network(tmp_path):
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
    data = tmp_path / "race.npz"
    net = race_round(contact, 60, 4, seed=3, hidden=5, epochs=3, holdout=10, data=data, command="test")
    assert net.meta["kind"] == "race" and len(net.meta["fit_curve"]) == 3 and net.hidden == 5
    kept, m, s, meta = load_race_data(data)
    assert len(kept) == 60 and m.shape == (60, 6) and meta["trials"] == 4 and meta["command"] == "test"
    same = race_round(contact, 60, 4, seed=3, hidden=5, epochs=3, holdout=10, data=data, command="test")
    assert np.array_equal(same.w1, net.w1)  # the data read back, the fit seeded
    fitted = fit_race_net(kept, m[:, :5], BG, hidden=4, epochs=2, holdout=5, seed=1)
    assert fitted.meta["fit_curve"][-1][1] is not None


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
        load_race_data(path)


def test_the_shipped_race_network_is_listed_with_the_contact_ones():
    entry = net_module.manifest()["backgammon"].get("race")
    net = shipped_race_net(BG)
    assert (entry is None) == (net is None)
    if entry is not None:
        assert net.meta["kind"] == "race" and entry["command"].startswith("tawla train")
        rows = tawla.ids_to_array(entry["check"]["positions"], ruleset="backgammon")
        np.testing.assert_allclose(net.outputs(rows), np.asarray(entry["check"]["outputs"]), atol=2e-6)


@needs_fast
def test_tawla_train_race_writes_a_race_network_and_its_data(tmp_path, capsys):
    from importlib import resources

    from tawla.cli import main
    contact = resources.files("tawla") / "data" / "nets" / "backgammon.npz"
    out, data = tmp_path / "race.npz", tmp_path / "data.npz"
    assert main(["train", "--race", str(contact), "--positions", "50", "--trials", "3", "--hidden", "4",
                 "--epochs", "2", "--holdout", "5", "--data", str(data), "-o", str(out), "--no-progress"]) == 0
    net = NetEvaluator.load(out)
    assert net.meta["kind"] == "race" and net.hidden == 4 and load_race_data(data)[3]["positions"] == 50
    assert "race network of 4 hidden units on 50 positions" in capsys.readouterr().err
