"""The neural evaluators: compiled inputs and inference against their numpy twins, weights files
and their checksums, the shipped networks on fixed positions, TD(0) training (smoke size, exact
resume), the duplicate-dice duel and the net levels of tawla.Bot."""

from __future__ import annotations

import hashlib
from importlib import resources

import numpy as np
import pytest

import tawla
import workloads
from tawla import native
from tawla.cli import main
from tawla.errors import ConfigError, InvalidArgument
from tawla.evaluation.net import NET_INPUTS, NetEvaluator, manifest, net_columns, net_inputs, shipped_net
from tawla.training import duel, evaluator_player
from tawla.training.td import TrainConfig, train

RULESETS = list(tawla.RULESET_IDS)
needs_fast = pytest.mark.skipif(not native.available("net"), reason="the compiled engine is not built")


def sample_rows(name: str, n: int = 1500) -> np.ndarray:
    """Positions from seeded random games, with their children (pins and bars included)."""
    r = tawla.get_ruleset(name)
    rows = tawla.batch.random_positions(r, n, seed=7)
    children, _ = tawla.expand(rows[:200], np.full((200, 2), (6, 5), np.uint8), ruleset=r)
    return np.ascontiguousarray(np.concatenate([rows, children]))


@needs_fast
@pytest.mark.parametrize("name", RULESETS)
def test_compiled_inputs_and_outputs_equal_numpy(name):
    r = tawla.get_ruleset(name)
    rows = sample_rows(name)
    x_np = net_inputs(rows, r)
    x_c = native.backend.compiled("_net").net_inputs(rows, native.backend.params(r))
    assert x_c.shape == (len(rows), NET_INPUTS) and x_c.dtype == np.float32
    np.testing.assert_array_equal(x_c, x_np)
    # the documented ranges
    assert x_np.min() >= 0 and x_np[:, [96, 137 + 96]].max() <= 7.5 and x_np[:, [97, 137 + 97]].max() <= 1
    if r.contact == "pin":
        assert x_np[:, 112:136].any() and x_np[:, 137 + 112:137 + 136].any()  # both sides' pins seen
    else:
        assert not x_np[:, 112:136].any() and not x_np[:, 137 + 112:137 + 136].any()
    if r.start_lock:
        assert x_np[:, 136].any()
    else:
        assert not x_np[:, [136, 273]].any()
    net = NetEvaluator.initial(r, hidden=24, seed=3)
    o_c, o_np = net.outputs(rows), net.outputs(rows, compiled=False)
    np.testing.assert_allclose(o_c, o_np, atol=2e-6)
    np.testing.assert_allclose(net(rows), net_columns(o_np, r), atol=1e-5)


@pytest.mark.parametrize("name", ["backgammon", "tawla31"])
def test_columns_are_consistent(name):
    r = tawla.get_ruleset(name)
    o = np.random.default_rng(1).uniform(0, 1, (500, 5)).astype(np.float32)
    c = net_columns(o, r)
    assert (c[:, 2] <= c[:, 1] + 1e-12).all() and (c[:, 4] <= 1 - c[:, 1] + 1e-12).all()
    assert (c[:, 3] <= c[:, 2] + 1e-12).all() and (c[:, 5] <= c[:, 4] + 1e-12).all()
    if name == "tawla31":  # 15 x (expected points won - lost) / 15
        np.testing.assert_allclose(c[:, 0], 15 * (o[:, 2] - o[:, 4]), rtol=1e-6)
        assert not c[:, [3, 5]].any()


def test_weights_file_round_trip_and_checksum(tmp_path):
    net = NetEvaluator.initial("mahbusa", hidden=10, seed=5)
    net.meta["note"] = "x"
    path = tmp_path / "m.npz"
    sha = net.save(path)
    assert sha == hashlib.sha256(path.read_bytes()).hexdigest()
    back = NetEvaluator.load(path, sha)
    assert back.ruleset.name == "mahbusa" and back.meta["note"] == "x"
    for a, b in ((net.w1, back.w1), (net.b1, back.b1), (net.w2, back.w2), (net.b2, back.b2)):
        np.testing.assert_array_equal(a, b)
    data = path.read_bytes()
    with pytest.raises(ConfigError, match="checksum"):
        NetEvaluator.from_bytes(data[:-100], sha)
    with pytest.raises(ConfigError):
        NetEvaluator.from_bytes(data[: len(data) // 2])
    with pytest.raises(ConfigError):
        NetEvaluator.load(tmp_path / "missing.npz")
    with pytest.raises(InvalidArgument):
        NetEvaluator(net.w1[:10], net.b1, net.w2, net.b2, "mahbusa")
    with pytest.raises(InvalidArgument):
        NetEvaluator(net.w1 * np.nan, net.b1, net.w2, net.b2, "mahbusa")
    with pytest.raises(InvalidArgument):
        NetEvaluator(net.w1, net.b1, net.w2 + 1j, net.b2, "mahbusa")
    if native.available("net"):
        bad = np.zeros((NET_INPUTS, 3), np.float32)
        with pytest.raises(InvalidArgument):
            native.backend.compiled("_net").net_outputs(np.zeros((1, 56), np.uint8), native.backend.params(net.ruleset), bad,
                                        net.b1, net.w2, net.b2, False)


def test_manifest_lists_every_shipped_file_with_its_checksum():
    m = manifest()
    folder = resources.files("tawla") / "data" / "nets"
    assert "backgammon" in m, "the backgammon network is shipped"
    for name, entry in m.items():
        data = (folder / entry["file"]).read_bytes()
        assert hashlib.sha256(data).hexdigest() == entry["sha256"], name
        assert entry["command"].startswith("tawla train") and entry["games"] > 0 and entry["seed"] is not None
    total = sum((folder / e["file"]).read_bytes().__len__() for e in m.values())
    assert total < 5_000_000  # a few MB in all at most


@pytest.mark.parametrize("name", sorted(manifest()))
def test_shipped_network_gives_its_recorded_outputs(name):
    entry = manifest()[name]
    net = shipped_net(name)
    assert net is not None and net.hidden == entry["hidden"]
    rows = tawla.ids_to_array(entry["check"]["positions"], ruleset=name)
    want = np.asarray(entry["check"]["outputs"])
    np.testing.assert_allclose(net.outputs(rows, compiled=False), want, atol=2e-6)
    np.testing.assert_allclose(net.outputs(rows), want, atol=2e-6)


@needs_fast
@pytest.mark.parametrize("name", RULESETS)
def test_training_smoke_run(name):
    cfg = TrainConfig(ruleset=name, games=120, hidden=8, seed=4, chunk=60, eval_every=120, eval_pairs=5,
                      max_turns=120)
    seen = []
    net = train(cfg, progress=lambda done, total, info: seen.append((done, total, info["games_per_s"] > 0)))
    assert seen == [(60, 120, True), (120, 120, True)]
    assert net.meta["games"] == 120 and len(net.meta["curve"]) == 1 and net.meta["curve"][0][0] == 120
    assert not np.allclose(net.w1, NetEvaluator.initial(name, 8, 4).w1)  # the weights moved
    assert np.isfinite(net.w1).all()


class _Stop(Exception):
    pass


def _stop_at(n):
    def progress(done, total, info):
        if done >= n:
            raise _Stop
    return progress


@needs_fast
def test_a_resumed_run_equals_one_that_never_stopped(tmp_path):
    cfg = TrainConfig(ruleset="backgammon", games=200, hidden=8, seed=9, chunk=50, eval_every=100, eval_pairs=5,
                      max_turns=120)
    straight = train(cfg)
    path = tmp_path / "ck.npz"
    with pytest.raises(_Stop):
        train(cfg, path, progress=_stop_at(100))
    assert NetEvaluator.load(path).meta["games"] == 100
    resumed = train(cfg, path)
    for a, b in ((straight.w1, resumed.w1), (straight.b1, resumed.b1), (straight.w2, resumed.w2)):
        np.testing.assert_array_equal(a, b)
    assert straight.meta["curve"] == resumed.meta["curve"]
    other = TrainConfig(**{**vars(cfg), "seed": 10})
    with pytest.raises(ConfigError, match="another configuration"):
        train(other, path)


def test_training_refuses_bad_configurations():
    for bad in ({"hidden": 0}, {"hidden": 513}, {"alpha": 0.0}, {"alpha": 0.01, "alpha_end": 0.1}, {"chunk": 0}):
        with pytest.raises(InvalidArgument):
            train(TrainConfig(ruleset="adi", games=10, **bad))


@needs_fast
def test_the_train_command_writes_weights_and_curve(tmp_path):
    pytest.importorskip("matplotlib")
    out, png = tmp_path / "t.npz", tmp_path / "curve.png"
    code = main(["train", "--ruleset", "tawla31", "--games", "100", "--hidden", "8", "--chunk", "50",
                           "--eval-every", "50", "--eval-pairs", "4", "--max-turns", "120", "-o", str(out), "--curve", str(png),
                           "--no-progress"])
    assert code == 0
    net = NetEvaluator.load(out)
    assert net.meta["games"] == 100 and len(net.meta["curve"]) == 2
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert main(["train", "--ruleset", "tawla31", "--games", "100", "--hidden", "9", "-o", str(out),
                           "--no-progress"]) == 2  # a checkpoint of other options: ConfigError, usage


def test_duel_of_a_player_with_itself_is_even_pair_by_pair():
    r = tawla.get_ruleset("adi")
    p = evaluator_player(r)
    res = duel(r, p, p, pairs=20, seed=3)
    assert res.points.shape == (40,) and res.unfinished == 0
    np.testing.assert_array_equal(res.points.reshape(-1, 2).sum(1), 0)  # same dice, same player: mirrored
    assert res.mean == 0 and res.ci95 == 0
    with pytest.raises(InvalidArgument):
        duel(r, p, p, pairs=0)


@pytest.mark.parametrize("name", sorted(manifest()))
@pytest.mark.parametrize("level", ["net0", "net1", "net2"])
def test_net_levels_play_legal_moves(name, level):
    r = tawla.get_ruleset(name)
    bot = tawla.Bot(r, level)
    pos = r.initial_position()
    for dice in ((6, 5), (3, 1)):
        assert bot.choose(pos, dice) in pos.legal_moves(dice)
    assert tawla.Bot.LEVELS.index(level) > tawla.Bot.LEVELS.index("ply2")


def test_net_level_without_a_shipped_network_is_a_config_error(monkeypatch):
    from tawla.evaluation import net as net_module
    monkeypatch.setitem(net_module._SHIPPED, "adi", None)
    with pytest.raises(ConfigError, match="no trained network"):
        tawla.Bot("adi", "net0")


@needs_fast
def test_the_race_cut_off_ends_self_play_at_the_race():
    from tawla.evaluation.bearoff import eval_tables
    r = tawla.get_ruleset("backgammon")
    one, _, _, two = eval_tables()
    runs = {}
    for cut in (False, True):
        net = NetEvaluator.initial(r, hidden=8, seed=2)
        tables = (one, two) if cut else (None, None)
        runs[cut] = native.backend.compiled("_net_train").net_train(native.backend.params(r), net.w1, net.b1, net.w2, net.b2, 150, 3, 0.1,
                                              400, *tables)
    (l0, w0, _), (l1, w1, _) = runs[False], runs[True]
    assert (w1 == -1).mean() > 0.7 and (w1 == -1).mean() > (w0 == -1).mean()  # stopped at the race, unscored
    assert l1.mean() < l0.mean()
    with pytest.raises(InvalidArgument):  # the race model is for opposite-direction games
        s = tawla.get_ruleset("tawla31-saharat")
        n = NetEvaluator.initial(s, hidden=4)
        native.backend.compiled("_net_train").net_train(native.backend.params(s), n.w1, n.b1, n.w2, n.b2, 1, 1, 0.1, 10, one, two)
    cfg = TrainConfig(ruleset="adi", games=60, hidden=8, chunk=60, eval_every=0, max_turns=200, race_cutoff=True)
    assert train(cfg).meta["config"]["race_cutoff"] is True


@needs_fast
@pytest.mark.parametrize("name", ["backgammon", "adi"])
def test_the_compiled_pass_with_a_network_equals_the_numpy_routing(name):
    from tawla.evaluation import evaluate_rows
    from tawla.evaluation.routing import evaluate_np
    r = tawla.get_ruleset(name)
    rows = sample_rows(name, 800)
    races = np.stack([np.frombuffer(tawla.Position.from_gnubg_id(pid).row, np.uint8)
                      for pid in workloads.w1_ids("race")[:300]])  # valid rows of adi too
    rows = np.ascontiguousarray(np.concatenate([rows, races]))
    net = NetEvaluator.initial(r, hidden=16, seed=8)
    got = evaluate_rows(rows, r, contact=net)
    np.testing.assert_allclose(got, evaluate_np(rows, r, net), atol=1e-5)
    assert tawla.evaluation.is_race(rows, r).any()


@needs_fast
@pytest.mark.parametrize("name", ["backgammon", "adi"])
def test_net0_compiled_choice_is_the_search_choice(name):
    r = tawla.get_ruleset(name)
    fast, search = tawla.Bot(r, "net0"), tawla.Bot(r, "net0")
    search._net0 = None  # the legal moves as objects, valued by evaluate_rows
    assert fast._net0 is not None
    rows = tawla.batch.random_positions(r, 120, seed=13)
    positions = [tawla.Position(bytes(x), r) for x in rows] + [r.initial_position()]
    for i, pos in enumerate(positions):
        if pos.result() is not None:
            continue
        for dice in ((6, 5), (1, 1), (i % 6 + 1, (i // 6) % 6 + 1)):
            a, b = fast.choose(pos, dice), search.choose(pos, dice)
            assert (a.after, a.steps, a.dice, a.ended, a.is_pass) == (b.after, b.steps, b.dice, b.ended, b.is_pass)


@needs_fast
def test_the_processor_variants_of_the_network_give_the_same_bits(tmp_path):
    import os
    import subprocess
    import sys
    r = tawla.get_ruleset("backgammon")
    rows = sample_rows("backgammon", 300)
    net = shipped_net(r)
    np.save(tmp_path / "rows.npy", rows)
    code = ("import sys, numpy as np, tawla; from tawla import native; from tawla.evaluation.net import shipped_net; "
            "r = tawla.get_ruleset('backgammon'); n = shipped_net(r); x = np.load(sys.argv[1]); "
            "np.save(sys.argv[2], native.net_outputs(x, r, n.w1, n.b1, n.w2, n.b2))")
    env = {**os.environ, "TAWLA_NET_NO_AVX": "1"}  # the SSE2 / plain C arithmetic
    subprocess.run([sys.executable, "-c", code, str(tmp_path / "rows.npy"), str(tmp_path / "o.npy")], env=env,
                   check=True)
    plain = np.load(tmp_path / "o.npy")
    np.testing.assert_array_equal(net.outputs(rows), plain)
    single = np.stack([net.outputs(rows[i:i + 1])[0] for i in range(0, len(rows), 97)])
    np.testing.assert_array_equal(single, plain[::97])  # a batch of one, as eight
