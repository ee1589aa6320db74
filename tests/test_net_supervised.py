"""Supervised rounds of the neural evaluators: the positions of self-play, the 1-ply search
targets against a numpy search over tawla.expand, truncated-rollout targets, the fit, a resumed run, the command; TD
training continued from a network."""

from __future__ import annotations

import numpy as np
import pytest

import tawla
from tawla import native
from tawla.cli import main
from tawla.errors import ConfigError, InvalidArgument, InvalidPosition
from tawla.evaluation import is_race, is_terminal
from tawla.evaluation.bearoff import eval_tables
from tawla.evaluation.net import NetEvaluator, shipped_net, shipped_race_net
from tawla.evaluation.routing import evaluate_np
from tawla.training.supervised import SuperviseConfig, search_targets, supervise
from tawla.training.td import TrainConfig, train

pytestmark = pytest.mark.skipif(not native.available("net"), reason="the compiled engine is not built")

ROLLS = [(a, b) for a in range(1, 7) for b in range(a, 7)]


def positions(net: NetEvaluator, n: int, seed: int = 4, explore: float = 0.1, race: bool = True) -> np.ndarray:
    one, _, _, two = eval_tables()
    tables = (one, two) if race else (None, None)
    return native.backend.compiled("_net_train").net_positions(native.backend.params(net.ruleset), net.w1, net.b1, net.w2, net.b2,
                                         10 * n, seed, n, explore, 2000, *tables)


def child_values(net: NetEvaluator, kids: np.ndarray, race_model: bool) -> tuple[np.ndarray, np.ndarray]:
    """Children valued as the compiled choice (csrc/rollout/tw_choose.c) values them: the
    evaluation columns (the exact result of a finished game, the race model for a race when
    ``race_model``, else the network's clipped columns) and the outputs they give, each for the
    child's mover."""
    r = net.ruleset
    cols = evaluate_np(kids, r, net)
    if not race_model:
        race = is_race(kids, r) & ~is_terminal(kids, r)
        if race.any():
            cols[race] = net(kids[race])
    return cols, cols[:, 1:6]


def best_child(kids: np.ndarray, cols: np.ndarray) -> int:
    """The child the compiled choice takes: the lowest equity for the next mover, of equals the
    first row in byte order."""
    return min(range(len(kids)), key=lambda i: (cols[i, 0], kids[i].tobytes()))


def numpy_targets(net: NetEvaluator, rows: np.ndarray, race_model: bool) -> np.ndarray:
    """The 1-ply search written out: every roll's children by tawla.expand, valued by
    :func:`child_values`, the best for the mover taken (:func:`best_child`), its outputs seen
    from the mover's seat."""
    r = net.ruleset
    out = np.zeros((len(rows), 5))
    for i, row in enumerate(rows):
        for d1, d2 in ROLLS:
            kids, _ = tawla.expand(row[None], np.array([[d1, d2]], np.uint8), ruleset=r)
            cols, o = child_values(net, kids, race_model)
            b = best_child(kids, cols)
            t = [1 - o[b, 0], o[b, 3], o[b, 4], o[b, 1], o[b, 2]]
            out[i] += (1 if d1 == d2 else 2) / 36 * np.asarray(t)
    return out


def test_self_play_positions_are_valid_contact_positions_and_seeded():
    net = shipped_net("backgammon")
    rows = positions(net, 400)
    assert rows.shape == (400, 56) and rows.dtype == np.uint8
    assert not is_race(rows, "backgammon").any()  # games stop at the race
    assert not native.game_results(rows, tawla.get_ruleset("backgammon"))[0].any()
    np.testing.assert_array_equal(rows, positions(net, 400))
    assert not np.array_equal(rows, positions(net, 400, seed=5))
    assert len(np.unique(rows, axis=0)) > 300
    free = positions(net, 300, race=False, explore=0.0)
    assert len(free) == 300


def test_ply1_targets_equal_a_numpy_search_over_expand():
    net = shipped_net("backgammon")
    rows = positions(net, 200, seed=9)
    # late positions too, where children reach the race and the end of the game
    late = [r for r in positions(net, 3000, seed=10, explore=0.0)
            if r[1:26].sum() < 10 or r[27:52].sum() < 10]  # checkers on the board
    rows = np.ascontiguousarray(np.concatenate([rows[:6], np.asarray(late[:6], np.uint8)]))
    got = search_targets(net, rows)
    want = numpy_targets(net, rows, race_model=True)
    np.testing.assert_allclose(got, want, atol=3e-6)
    # the same targets whatever the threads
    np.testing.assert_array_equal(search_targets(net, rows, threads=2), got)
    assert np.all((got >= 0) & (got <= 1))


def test_ply2_targets_search_the_best_children_one_ply_deeper():
    net = shipped_net("backgammon")
    rows = positions(net, 2, seed=13)
    r, p = net.ruleset, native.backend.params(net.ruleset)
    one, _, _, two = eval_tables()
    got = search_targets(net, rows, depth=2, prune=2)
    for row, target in zip(rows, got):
        want = np.zeros(5)
        for d1, d2 in ROLLS:
            kids, _ = tawla.expand(row[None], np.array([[d1, d2]], np.uint8), ruleset=r)
            cols, o = child_values(net, kids, race_model=True)
            plain = ~is_terminal(kids, r) & ~is_race(kids, r)
            top = np.argsort(cols[:, 0], kind="stable")[:2]  # the two best for the mover (lowest for the next)
            deep = o[top].copy()
            if plain[top].any():  # contact children: their own 1-ply values
                deep[plain[top]] = native.backend.compiled("_net_train").net_ply1_targets(
                    np.ascontiguousarray(kids[top][plain[top]]), p, net.w1, net.b1, net.w2, net.b2, one, two)
            eq = 2 * deep[:, 0] - 1 + deep[:, 1] - deep[:, 3] + deep[:, 2] - deep[:, 4]
            b = deep[int(np.argmin(eq))]
            want += (1 if d1 == d2 else 2) / 36 * np.array([1 - b[0], b[3], b[4], b[1], b[2]])
        np.testing.assert_allclose(target, want, atol=3e-6)
    with pytest.raises(InvalidArgument):
        search_targets(net, rows, depth=3)


def greedy_child(net: NetEvaluator, row: np.ndarray, dice: tuple[int, int]) -> tuple[np.ndarray, bool]:
    """The child the greedy move of the compiled search picks (:func:`best_child`), and whether
    it is a plain contact child (no race, no end)."""
    r = net.ruleset
    kids, _ = tawla.expand(row[None], np.array([dice], np.uint8), ruleset=r)
    cols, _ = child_values(net, kids, race_model=True)
    plain = ~is_terminal(kids, r) & ~is_race(kids, r)
    b = best_child(kids, cols)
    return kids[b], bool(plain[b])


def test_rollouts_of_one_move_are_the_ply1_targets():
    """Horizon 1 with the 36 rolls each once is the 1-ply search (non-doubles twice, 2/36)."""
    for name in ("backgammon", "mahbusa"):
        net = shipped_net(name)
        rows = positions(net, 60, seed=21, race=name == "backgammon")
        cut = name == "backgammon"
        np.testing.assert_allclose(search_targets(net, rows, trials=36, horizon=1, race_cutoff=cut),
                                   search_targets(net, rows, race_cutoff=cut), atol=1e-6)


def test_rollouts_of_two_moves_average_the_replies_1ply_values():
    """Horizon 2: the mover's greedy move for the first roll, then the opponent's greedy move for
    a random roll; over many trials the mean approaches, for each first roll, the opponent's
    1-ply value of the mover's child (seen from the mover's seat)."""
    net = shipped_net("backgammon")
    p = native.backend.params(net.ruleset)
    one, _, _, two = eval_tables()
    rows = positions(net, 40, seed=23)[10:13]
    k = 200  # trials per first roll
    got = search_targets(net, rows, trials=36 * k, horizon=2, seed=3)
    for row, target in zip(rows, got):
        want = np.zeros(5)
        for d1 in range(1, 7):
            for d2 in range(1, 7):
                child, plain = greedy_child(net, row, (d1, d2))
                assert plain  # the test's positions stay in contact
                t = native.backend.compiled("_net_train").net_ply1_targets(child[None], p, net.w1, net.b1, net.w2, net.b2, one, two)[0]
                want += np.array([1 - t[0], t[3], t[4], t[1], t[2]]) / 36
        # the only randomness is the reply's roll: each output's mean within 4 standard errors
        np.testing.assert_allclose(target, want, atol=4 * 0.5 / np.sqrt(36 * k))


def test_rollout_targets_are_seeded_and_do_not_depend_on_the_chunks():
    net = shipped_net("backgammon")
    rows = positions(net, 300, seed=25)
    f, p = native.backend.compiled("_net_train"), native.backend.params(net.ruleset)
    one, _, _, two = eval_tables()
    a = search_targets(net, rows, trials=36, horizon=2, seed=11)
    np.testing.assert_array_equal(a, search_targets(net, rows, trials=36, horizon=2, seed=11, threads=2))
    race = shipped_race_net("backgammon")  # the races beyond the databases, as the net levels value them
    tail = f.net_rollout_targets(np.ascontiguousarray(rows[100:]), p, net.w1, net.b1, net.w2, net.b2,
                                 36, 2, 11, 100, one, two, None if race is None else race.weights)
    np.testing.assert_array_equal(tail, a[100:])  # row i's dice: the seed and its index alone
    b = search_targets(net, rows, trials=36, horizon=2, seed=12)
    assert not np.array_equal(a, b)
    assert np.abs(a - b).mean() < 0.05 and np.all((a > -1e-9) & (a < 1 + 1e-9))  # the race model: within rounding
    full = search_targets(net, rows[:8], trials=36, horizon=0, seed=11)  # to the race or the end
    assert np.all((full > -1e-9) & (full < 1 + 1e-9))
    with pytest.raises(InvalidArgument):
        search_targets(net, rows, trials=-1)
    with pytest.raises(InvalidArgument):
        f.net_rollout_targets(rows, p, net.w1, net.b1, net.w2, net.b2, 0, 6, 11)
    with pytest.raises(InvalidArgument):
        SuperviseConfig(ruleset="backgammon", trials=36, horizon=-1).check()


def test_a_rollout_that_ends_the_game_values_the_result():
    """The mover bears off its last checker with any roll: every trial ends with its win."""
    net = shipped_net("backgammon")
    row = np.zeros(56, np.uint8)
    row[0], row[1] = 14, 1  # the mover: one checker on its 1-point, 14 off
    row[26 + 20] = 15  # the opponent's 15 on the mover's 20-point
    got = search_targets(net, np.ascontiguousarray(row[None]), trials=36, horizon=5, seed=1)[0]
    assert got[0] == 1.0 and got[3] == 0 and got[4] == 0


def test_ply1_targets_of_mahbusa_use_the_network_everywhere_but_the_end():
    net = NetEvaluator.initial("mahbusa", hidden=16, seed=3)
    rows = tawla.batch.random_positions("mahbusa", 5, seed=2)
    got = search_targets(net, rows, race_cutoff=False)
    np.testing.assert_allclose(got, numpy_targets(net, rows, race_model=False), atol=3e-6)


def test_ply1_targets_refuse_a_finished_game():
    net = shipped_net("backgammon")
    over = positions(net, 3)
    over[0, 26], over[0, 27:52] = 15, 0  # the opponent has borne off all 15
    with pytest.raises(InvalidPosition):
        search_targets(net, np.ascontiguousarray(over))


def test_the_fit_moves_the_network_toward_the_targets():
    net = shipped_net("backgammon")
    rows = positions(net, 600, seed=12)
    t = search_targets(net, rows)
    n = NetEvaluator.initial("backgammon", hidden=16, seed=1)  # far from the targets
    p = native.backend.params(n.ruleset)
    before = float(((n.outputs(rows) - t) ** 2).mean())
    order = np.random.default_rng(0).permutation(len(rows)).astype(np.int64)
    for _ in range(3):
        native.backend.compiled("_net_train").net_fit(p, n.w1, n.b1, n.w2, n.b2, rows, t, order, 0.1)
    assert float(((n.outputs(rows) - t) ** 2).mean()) < 0.5 * before
    with pytest.raises(InvalidArgument):
        native.backend.compiled("_net_train").net_fit(p, n.w1, n.b1, n.w2, n.b2, rows, t, np.array([len(rows)], np.int64), 0.1)
    with pytest.raises(InvalidArgument):
        native.backend.compiled("_net_train").net_fit(p, n.w1, n.b1, n.w2, n.b2, rows, t[:-1], order[:-1], 0.1)


def test_a_resumed_run_equals_one_that_never_stopped(tmp_path):
    start = shipped_net("backgammon")
    cfg = SuperviseConfig(ruleset="backgammon", rounds=2, positions=250, holdout=50, epochs=2,
                          eval_pairs=0, max_turns=500)
    whole = supervise(cfg, start)
    ck = tmp_path / "sup.npz"
    supervise(SuperviseConfig(**{**vars(cfg), "rounds": 1}), start, ck)
    with pytest.raises(ConfigError):  # another configuration
        supervise(SuperviseConfig(**{**vars(cfg), "epochs": 3}), start, ck)
    resumed = supervise(cfg, start, ck, threads=2)
    for a, b in zip((whole.w1, whole.b1, whole.w2, whole.b2), (resumed.w1, resumed.b1, resumed.w2, resumed.b2)):
        np.testing.assert_array_equal(a, b)
    recs = resumed.meta["supervised"]["rounds"]
    assert [r["round"] for r in recs] == [1, 2] and all(r["positions"] == 250 for r in recs)
    assert not np.array_equal(whole.w1, start.w1)
    with pytest.raises(ConfigError):
        supervise(SuperviseConfig(ruleset="adi", rounds=1, positions=10, holdout=0), start)
    with pytest.raises(InvalidArgument):
        SuperviseConfig(ruleset="backgammon", positions=10, holdout=10).check()


def test_the_train_command_runs_supervised_rounds(tmp_path, capsys):
    start = tmp_path / "start.npz"
    NetEvaluator.initial("mahbusa", hidden=8, seed=1).save(start)
    out = tmp_path / "out.npz"
    assert main(["train", "--from", str(start), "--rounds", "1", "--positions", "120", "--epochs", "1",
                 "--eval-pairs", "2", "--max-turns", "300", "-o", str(out), "--no-progress"]) == 0
    net = NetEvaluator.load(out)
    assert net.ruleset.name == "mahbusa"
    rec = net.meta["supervised"]["rounds"][0]
    assert rec["positions"] == 120 and len(rec["vs_heuristic"]) == 2
    assert "1 rounds" in capsys.readouterr().err
    roll = tmp_path / "roll.npz"  # rollout targets
    assert main(["train", "--from", str(start), "--rounds", "1", "--positions", "60", "--epochs", "1",
                 "--eval-pairs", "0", "--max-turns", "300", "--trials", "36", "--horizon", "3",
                 "-o", str(roll), "--no-progress"]) == 0
    conf = NetEvaluator.load(roll).meta["supervised"]["config"]
    assert conf["trials"] == 36 and conf["horizon"] == 3


def test_td_training_continues_from_a_network(tmp_path):
    start = NetEvaluator.initial("adi", hidden=8, seed=5)
    cfg = TrainConfig(ruleset="adi", games=40, hidden=8, chunk=20, eval_every=0, max_turns=200, race_cutoff=True)
    ck = tmp_path / "td.npz"
    net = train(cfg, ck, start=start)
    assert net.meta["start"]["sha256"] and not np.array_equal(net.w1, start.w1)
    with pytest.raises(ConfigError):  # the checkpoint was trained from another start
        train(cfg, ck)
    with pytest.raises(ConfigError):
        train(TrainConfig(**{**vars(cfg), "hidden": 9}), start=start)
    out = tmp_path / "cli.npz"
    start.save(tmp_path / "start.npz")
    assert main(["train", "--ruleset", "adi", "--init", str(tmp_path / "start.npz"), "--games", "40", "--hidden", "8",
                 "--chunk", "20", "--eval-every", "0", "--max-turns", "200", "--race-cutoff", "-o", str(out),
                 "--no-progress"]) == 0
    np.testing.assert_array_equal(NetEvaluator.load(out).w1, net.w1)


def test_the_train_command_reports_bad_options_by_class(tmp_path, capsys):
    start = tmp_path / "start.npz"
    NetEvaluator.initial("adi", hidden=4, seed=1).save(start)
    assert main(["train", "--ruleset", "adi", "--games", "10", "--eval-pairs", "0", "-o", str(tmp_path / "a.npz"),
                 "--no-progress"]) != 0  # TD training measures with at least one pair
    assert "InvalidArgument" in capsys.readouterr().err
    assert main(["train", "--from", str(start), "--rounds", "1", "--positions", "50", "--epochs", "1",
                 "--eval-pairs", "0", "--max-turns", "200", "-o", str(tmp_path / "b.npz"), "--no-progress"]) == 0
    assert "vs_heuristic" not in NetEvaluator.load(tmp_path / "b.npz").meta["supervised"]["rounds"][0]
