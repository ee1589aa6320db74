"""``tawla evaluate``: position files evaluated in chunks and streamed to CSV, JSON lines or Parquet.

The rows written are the 0-ply values of the level (the shipped network's by default, the
evaluator of ``tawla analyze``; :func:`tawla.evaluate` with a ``ply`` level) and, with dice,
the level's play, in file order, the same on one process, two, or a Dask cluster; a line
that is not a position is reported with its file and line and the run goes on (exit 1); a
``.npy`` is checked before compiled code reads it; the ``dask.array`` path gives the same.
"""

from __future__ import annotations

import csv
import functools
import json
import os

import numpy as np
import pytest

import tawla
from tawla.analysis.parallel import map_ordered
from tawla.analysis.positions import VALUE_COLUMNS, evaluate_dask, read_chunks
from tawla.evaluation import evaluate_rows
from tawla.evaluation.net import shipped_net
from tawla.batch import random_positions
from tawla.cli import main

from conftest import require_module

BG = tawla.get_ruleset("backgammon")


@pytest.fixture(scope="module")
def rows():
    return random_positions(BG, 600, seed=7)


@pytest.fixture(scope="module")
def id_file(rows, tmp_path_factory):
    """600 positions of random games as gnubg IDs, XGIDs and tawla IDs, a blank line, two bad lines."""
    lines = []
    for i, row in enumerate(rows):
        pos = tawla.Position(bytes(row), BG)
        lines.append(pos.gnubg_id() if i % 3 == 0 else pos.xgid() if i % 3 == 1 else pos.id())
    lines[10:10] = ["", "not a position", "x" * 1000]
    path = tmp_path_factory.mktemp("positions") / "ids.txt"
    path.write_text("\n".join(lines) + "\n")
    return path, [ln for ln in lines if ln and ln != "not a position" and ln != "x" * 1000]


def run(capsys, *args):
    capsys.readouterr()
    code = main(["evaluate", *map(str, args)])
    return code, capsys.readouterr().err


def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.reader(f))


def test_csv_rows_are_tawla_evaluate_and_bad_lines_are_reported(capsys, tmp_path, id_file, rows):
    path, good = id_file
    code, err = run(capsys, path, "-o", tmp_path / "out.csv", "--workers", "1", "--chunk", "128")
    assert code == 1
    assert f"{path}:12: InvalidId: " in err and "'not a position'" in err
    assert f"{path}:13: InvalidId:" in err and "longer than 256 bytes" in err
    assert "FormatError: 2 of 602 lines" in err
    table = read_csv(tmp_path / "out.csv")
    assert table[0] == ["input", *VALUE_COLUMNS]
    assert [r[0] for r in table[1:]] == good
    got = np.array([[float(v) for v in r[1:]] for r in table[1:]])
    want = evaluate_rows(rows, BG, contact=shipped_net(BG)).astype(np.float32)[:, [1, 2, 3, 4, 5, 0]]
    assert np.abs(got - want).max() <= 5e-7
    run(capsys, path, "-o", tmp_path / "ply0.csv", "--workers", "1", "--level", "ply0")
    got = np.array([[float(v) for v in r[1:]] for r in read_csv(tmp_path / "ply0.csv")[1:]])
    assert np.abs(got - tawla.evaluate(rows, BG, "ply0")[:, [1, 2, 3, 4, 5, 0]]).max() <= 5e-7


def test_two_workers_write_the_file_of_one(capsys, tmp_path, id_file):
    path, _ = id_file
    run(capsys, path, "-o", tmp_path / "one.jsonl", "--workers", "1", "--chunk", "100", "--dice", "6-4")
    code, _ = run(capsys, path, "-o", tmp_path / "two.jsonl", "--workers", "2", "--chunk", "100", "--dice", "64")
    assert code == 1
    assert (tmp_path / "one.jsonl").read_bytes() == (tmp_path / "two.jsonl").read_bytes()


def test_dice_add_the_best_play_of_the_bot(capsys, tmp_path, rows):
    src = tmp_path / "ids.txt"
    src.write_text("\n".join(tawla.Position(bytes(r), BG).gnubg_id() for r in rows[:40]))
    assert run(capsys, src, "-o", tmp_path / "out.jsonl", "--dice", "31", "--workers", "1")[0] == 0
    records = [json.loads(line) for line in (tmp_path / "out.jsonl").read_text().splitlines()]
    bot = tawla.Bot(BG, "net0")
    for rec, row in zip(records, rows[:40], strict=True):
        pos = tawla.Position(bytes(row), BG)
        move = bot.choose(pos, (3, 1))
        assert rec["best_move"] == str(move)
        assert rec["best_id"] == tawla.Position(move.after, BG).flip().gnubg_id()
        assert list(rec) == ["input", *VALUE_COLUMNS, "best_move", "best_id"]


def test_npy_rows_are_checked_before_they_are_read(capsys, tmp_path, rows):
    bad = rows[:50].copy()
    bad[7, 1] = 15  # 30 checkers of the side to move
    np.save(tmp_path / "rows.npy", bad)
    code, err = run(capsys, tmp_path / "rows.npy", "-o", tmp_path / "out.csv", "--workers", "1")
    assert code == 1 and f"{tmp_path / 'rows.npy'}:row 7: InvalidPosition" in err
    table = read_csv(tmp_path / "out.csv")
    keep = [i for i in range(50) if i != 7]
    assert [r[0] for r in table[1:]] == [tawla.Position(bytes(bad[i]), BG).id() for i in keep]
    for name, array in (("float.npy", rows.astype(float)), ("flat.npy", rows[0]),
                        ("objects.npy", np.array([{"a": 1}], dtype=object))):
        np.save(tmp_path / name, array, allow_pickle=True)
        code, err = run(capsys, tmp_path / name, "-o", tmp_path / "x.csv")
        assert code == 1 and "FormatError" in err, err
    (tmp_path / "junk.npy").write_bytes(b"\x93NUMPY garbage")
    assert "FormatError" in run(capsys, tmp_path / "junk.npy", "-o", tmp_path / "x.csv")[1]


def test_parquet_output(capsys, tmp_path, id_file):
    require_module("pyarrow")
    import pyarrow.parquet as pq
    path, good = id_file
    run(capsys, path, "-o", tmp_path / "out.parquet", "--workers", "1", "--chunk", "200")
    run(capsys, path, "-o", tmp_path / "out.csv", "--workers", "1")
    table = pq.read_table(tmp_path / "out.parquet")
    assert table.column_names == ["input", *VALUE_COLUMNS]
    assert table.column("input").to_pylist() == good
    want = [float(r[6]) for r in read_csv(tmp_path / "out.csv")[1:]]
    assert np.allclose(table.column("equity").to_numpy(), want, atol=1e-6)


def test_usage_errors(capsys, tmp_path, id_file, monkeypatch):
    path, _ = id_file
    assert run(capsys, path, "-o", tmp_path / "out.txt")[0] == 2
    assert run(capsys, path, "-o", tmp_path / "out.csv", "--dice", "71")[0] == 2
    assert run(capsys, path, "-o", tmp_path / "out.csv", "--workers", "2", "--scheduler", "tcp://x:1")[0] == 2
    monkeypatch.setitem(__import__("sys").modules, "pyarrow", None)
    code, err = run(capsys, path, "-o", tmp_path / "out.parquet")
    assert code == 2 and "needs pyarrow" in err and not (tmp_path / "out.parquet").exists()
    assert run(capsys, tmp_path / "missing.txt", "-o", tmp_path / "out.csv")[0] == 1


def test_text_chunks_keep_line_numbers(tmp_path):
    (tmp_path / "a.txt").write_bytes(b"one\n\n  two  \n\xff\xfe\nthree")
    chunks = list(read_chunks(tmp_path / "a.txt", 2))
    assert [c.lines for c in chunks] == [[(1, "one"), (3, "two")], [(4, "\ufffd\ufffd"), (5, "three")]]


def _die_on(item, *, victim):
    if item == victim:
        os._exit(3)
    return item * item


def _die_once(item, *, victim, marker):
    if item == victim and not os.path.exists(marker):
        open(marker, "w").close()
        os._exit(3)
    return item * item


def test_a_task_whose_worker_died_once_is_retried(tmp_path):
    task = functools.partial(_die_once, victim=2, marker=str(tmp_path / "died"))
    assert list(map_ordered(task, range(6), 2, in_flight=1)) == [(i, i * i, None) for i in range(6)]
    assert (tmp_path / "died").exists()


def test_a_task_that_kills_its_worker_twice_is_given_back_with_the_error():
    got = list(map_ordered(functools.partial(_die_on, victim=3), range(8), 2, in_flight=1))
    assert [(i, r) for i, r, e in got if e is None] == [(i, i * i) for i in range(8) if i != 3]
    assert [i for i, _, e in got if e is not None] == [3]


def test_dask_scheduler_and_dask_array(capsys, tmp_path, id_file, rows):
    distributed = pytest.importorskip("distributed")
    da = pytest.importorskip("dask.array")
    path, _ = id_file
    run(capsys, path, "-o", tmp_path / "one.csv", "--workers", "1", "--chunk", "150")
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                                  dashboard_address=None) as cluster:
        code, _ = run(capsys, path, "-o", tmp_path / "dask.csv", "--scheduler", cluster.scheduler_address,
                      "--chunk", "150")
    assert code == 1
    assert (tmp_path / "dask.csv").read_bytes() == (tmp_path / "one.csv").read_bytes()
    values = evaluate_dask(da.from_array(rows, chunks=(128, 28)), BG)
    assert values.chunks[1] == (6,)
    assert np.array_equal(values.compute(scheduler="synchronous"),
                          evaluate_rows(rows, BG, contact=shipped_net(BG)).astype(np.float32))
    plain = evaluate_dask(da.from_array(rows, chunks=(256, 56)), BG, level="ply0")
    assert np.array_equal(plain.compute(scheduler="synchronous"), tawla.evaluate(rows, BG, "ply0"))
    with pytest.raises(tawla.errors.ConfigError):
        evaluate_dask(da.from_array(rows, chunks=(256, 56)), BG, level="best")
    bad = rows.copy()
    bad[500, 2] = 14
    with pytest.raises(tawla.errors.InvalidPosition):
        evaluate_dask(da.from_array(bad, chunks=(128, 56)), BG).compute(scheduler="synchronous")
    with pytest.raises(tawla.errors.InvalidId):
        evaluate_dask(da.from_array(rows.astype(np.int16), chunks=(128, 56)), BG)
