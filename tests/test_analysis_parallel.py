"""The analysis on many processes: chunks of file contents in, the same reports out.

One process, a local pool (``--workers 2``) and a Dask cluster give the same JSON; reading
a record from its contents gives what reading the file gives; a worker that dies is retried
once, and a chunk that kills its worker twice is reported, never dropped.
"""

from __future__ import annotations

import functools
import io
import json
import os
import pickle
import subprocess
import sys
from pathlib import Path

import pytest
from rich.console import Console

from tawla.analysis import analyze_paths, collect_files, open_record
from tawla.analysis import chunks as chunking
from tawla.analysis.chunks import AnalysisJob, analyze_chunk, make_evaluator, plan_chunks, read_chunk
from tawla.analysis.files import open_contents
from tawla.analysis.parallel import analyze_parallel
from tawla.analysis.report import TextStyle, render_text, to_json
from tawla.cli import main
from tawla.formats.matfile import MatchStream

from conftest import shared_path

SRC = Path(__file__).resolve().parents[1] / "src"
SUBSET = [  # 50 games of the archive: .mat, .txt and .sgf, one game that does not replay, one unreadable file
    "gnubg-scripts", "gnubgparser", "bglib-online/online_5pt_id1857680.txt",
    "bglib-online/online_7pt_id1910477.txt", "bglab-studio/studio_3pt_2024-05-11_id4211790.txt",
    "gammonx-variants/portes_game.txt",
]
FEW = ["gnubgparser/gnubg_7p_2025-11-08-2305.mat", "gnubgparser/gnubg_roll_then_resign_1p.mat",
       "bglab-galaxy/galaxy_3pt_match1436325.txt"]  # 10 games, for the heuristic (slower than the engine's)


def archive(*names) -> list:
    folder = shared_path("data", "matches")
    return collect_files([str(folder / n) for n in names]) if names else collect_files([folder])


def analyze_json(capsys, *args) -> tuple[int, dict]:
    capsys.readouterr()
    code = main(["analyze", "--json", "--no-progress", *map(str, args)])
    return code, json.loads(capsys.readouterr().out)


# -- reading from contents ------------------------------------------------------------


def _read(opener):
    try:
        source = opener()
    except Exception as e:
        return ("error", type(e).__name__, str(e))
    return source.to_record() if isinstance(source, MatchStream) else source


def edge_files(tmp_path) -> list:
    """Records in the encodings and line endings the path reader handles, and broken ones."""
    game = " 1 point match\n\n Game 1\n A : 0      B : 0\n  1) 31: 8/5 6/5       42: 8/4 6/4\n      Wins 1 point\n"
    files = {"bom_crlf.mat": b"\xef\xbb\xbf" + game.replace("\n", "\r\n").encode(),
             "latin1.txt": game.replace("A :", "Jos\xe9 :").encode("latin-1"),
             "cr_only.mat": game.replace("\n", "\r").encode(),
             "form_feed.mat": game.replace("\n\n", "\n\x0c\n").encode(),
             "no_line_break.mat": b" 1 point match", "empty.mat": b"", "garbage.txt": b"\x00\xff not a record",
             "BROKEN.SGF": b"(;GM[6]", "empty.sgf": b""}
    sgf = next(p for p in archive("gnubgparser") if p.suffix == ".sgf")
    files["bom.sgf"] = b"\xef\xbb\xbf" + sgf.read_bytes()
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
    return [tmp_path / name for name in files]


def test_contents_read_as_the_file(tmp_path):
    for path in archive() + edge_files(tmp_path):
        assert _read(lambda: open_contents(str(path), path.read_bytes())) == _read(lambda: open_record(path)), path


def test_chunk_reports_are_those_of_the_paths_and_pickle(tmp_path):
    paths = archive(*FEW[1:]) + edge_files(tmp_path)
    evaluator = make_evaluator("heuristic")
    serial = analyze_paths(paths, evaluator=evaluator)
    job = AnalysisJob.of("heuristic")
    chunk = pickle.loads(pickle.dumps(analyze_chunk([(str(p), p.read_bytes()) for p in paths], job)))
    assert to_json(chunk, evaluator) == to_json(serial, evaluator)
    from_disk = analyze_chunk(read_chunk(paths), AnalysisJob.of("heuristic", with_json=True))
    assert all(r.json_text is not None for r in from_disk)
    assert to_json(pickle.loads(pickle.dumps(from_disk)), evaluator) == to_json(serial, evaluator)
    assert to_json(analyze_chunk([str(p) for p in paths], job), evaluator) == to_json(serial, evaluator)

    def text(reports):
        out = io.StringIO()
        render_text(reports, evaluator, console=Console(file=out, width=120))
        return out.getvalue()

    assert text(chunk) == text(serial)


def test_files_unreadable_here_are_reported_as_on_one_process(tmp_path):
    (tmp_path / "folder.mat").mkdir()
    big = tmp_path / "big.mat"
    with open(big, "wb") as f:
        f.truncate(chunking.MAX_RECORD_BYTES + 1)
    paths = [tmp_path / "folder.mat", *archive(FEW[1]), big, tmp_path / "gone.mat"]
    serial = analyze_paths(paths)
    assert [r.error is None for r in serial] == [False, True, False, False]
    pooled = analyze_parallel(paths, evaluator_name=None, workers=2, chunk_bytes=1)
    assert to_json(pooled, None) == to_json(serial, None)


# -- one process, a pool, a cluster: the same JSON ------------------------------------


def test_chunks_keep_the_order_and_every_file():
    paths = archive(*SUBSET)
    for workers in (1, 2, 8):
        chunks = plan_chunks(paths, workers)
        assert [p for c in chunks for p in c] == paths and all(chunks)
    assert len(plan_chunks(paths, 2)) > 2
    assert plan_chunks(paths, 2, chunk_bytes=10**9) == [paths]


@pytest.fixture(scope="module")
def serial_subset():
    paths = archive(*SUBSET)
    reports = analyze_paths(paths, evaluator=make_evaluator("engine"))
    assert sum(len(r.games) for r in reports) == 50 and not all(r.ok for r in reports)
    return paths, json.loads(to_json(reports, make_evaluator("engine")))


def test_two_workers_give_the_json_of_one(capsys, serial_subset):
    paths, expected = serial_subset
    assert len(plan_chunks(paths, 2)) > 1
    assert analyze_json(capsys, "--workers", "1", *paths) == (1, expected)
    assert analyze_json(capsys, "--workers", "2", *paths) == (1, expected)


def test_parts_rendered_and_encoded_by_the_workers_are_those_of_this_process():
    """The text report's parts rendered in the workers for a colour terminal, and the JSON
    encoded there, are byte for byte what this process makes of the bare reports."""
    paths = archive(*FEW)
    evaluator = make_evaluator("heuristic")

    def terminal():
        return Console(file=io.StringIO(), width=97, force_terminal=True, color_system="truecolor")

    style = TextStyle.of(terminal(), 2, True)
    done = analyze_parallel(paths, evaluator_name="heuristic", workers=2, chunk_bytes=1, with_json=True,
                            text_style=style)
    bare = analyze_paths(paths, evaluator=evaluator)
    assert all(r.text is not None and r.text[0] == style and r.json_text is not None for r in done)
    assert all(r.text is None and r.json_text is None for r in bare)
    shown = []
    for reports in (done, bare):
        con = terminal()
        render_text(reports, evaluator, worst=2, console=con, parts=True)
        shown.append(con.file.getvalue())
    assert shown[0] == shown[1] and "\x1b[" in shown[0]
    assert to_json(done, evaluator) == to_json(bare, evaluator)
    con = terminal()
    with con.capture() as captured:  # a caller's console: its parts rendered here, captured
        render_text(done, evaluator, worst=2, console=con)
    assert captured.get() == shown[1] and con.file.getvalue() == ""
    to_json(bare, evaluator)
    assert all(r.json_text is None for r in bare)  # the JSON of a report analysed here is not kept


def test_text_report_on_a_latin1_stdout():
    env = dict(os.environ, PYTHONIOENCODING="latin-1")
    out = subprocess.run([sys.executable, "-m", "tawla", "analyze", "--no-eval", "--workers", "2", "--no-progress",
                          *map(str, archive(*FEW))], env=env, capture_output=True)
    assert out.returncode in (0, 1) and b"Traceback" not in out.stderr and b"+--" in out.stdout


def test_heuristic_same_json_on_two_workers(capsys, monkeypatch):
    paths = archive(*FEW)
    code, expected = analyze_json(capsys, "--heuristic", "--workers", "1", *paths)
    monkeypatch.setattr(chunking, "MIN_CHUNK_BYTES", 1)
    assert len(plan_chunks(paths, 2)) > 1
    assert analyze_json(capsys, "--heuristic", "--workers", "2", *paths) == (code, expected)
    assert "heuristic" in json.dumps(expected["evaluator"]) and code == 0


def test_progress_lines_count_every_file_across_workers(capsys, monkeypatch):
    paths = archive(*FEW)
    monkeypatch.setattr(chunking, "MIN_CHUNK_BYTES", 1)
    capsys.readouterr()
    assert main(["analyze", "--no-eval", "--progress", "--json", "--workers", "2", *map(str, paths)]) == 0
    lines = capsys.readouterr().err.strip().splitlines()
    assert lines[-1].startswith("analysed 3/3 files, 10 games: ")


@pytest.fixture(scope="module")
def dask_cluster():
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster:
        yield cluster.scheduler_address


def test_dask_cluster_gives_the_json_of_one_process(capsys, serial_subset, dask_cluster):
    paths, expected = serial_subset
    assert analyze_json(capsys, "--scheduler", dask_cluster, *paths) == (1, expected)


# -- workers that die -----------------------------------------------------------------


def die_on(sources, job, *, victim: str, marker: str | None):
    """:func:`analyze_chunk`, but the process exits at once on a chunk holding ``victim``:
    the first time only when a ``marker`` file is named (it is created then), else always."""
    names = [s[0] if isinstance(s, tuple) else str(getattr(s, "path", s)) for s in sources]
    if any(name.endswith(victim) for name in names) and (marker is None or not os.path.exists(marker)):
        if marker is not None:
            Path(marker).touch()
        os._exit(3)
    return analyze_chunk(sources, job)


DYING = [*FEW, "bglib-online/online_5pt_id1857680.txt", "gammonx-variants/portes_game.txt"]


def test_a_dead_worker_is_retried_once(tmp_path):
    paths = archive(*DYING)
    expected = to_json(analyze_paths(paths), None)
    task = functools.partial(die_on, victim=paths[2].name, marker=str(tmp_path / "died"))
    assert to_json(analyze_parallel(paths, evaluator_name=None, workers=2, chunk_bytes=1, task=task), None) == expected
    assert (tmp_path / "died").exists()


def test_a_chunk_that_kills_its_worker_twice_is_reported(tmp_path):
    paths = archive(*DYING)
    serial = analyze_paths(paths)
    victim = paths[2]
    task = functools.partial(die_on, victim=victim.name, marker=None)
    reports = analyze_parallel(paths, evaluator_name=None, workers=2, chunk_bytes=1, task=task)
    assert [r.path for r in reports] == [str(p) for p in paths]
    for path, got, want in zip(paths, reports, serial):
        if path == victim:
            assert got.error.startswith(f"{victim}: WorkerDied: ") and not got.games
        else:
            assert got.to_dict() == want.to_dict()


@pytest.mark.slow
def test_a_chunk_that_kills_its_dask_workers_is_reported(dask_cluster):
    dask_run = pytest.importorskip("tawla.analysis.dask_run")
    paths = archive(*DYING)
    serial = analyze_paths(paths)
    victim = paths[2]
    task = functools.partial(die_on, victim=victim.name, marker=None)
    reports = dask_run.analyze_on_cluster(paths, dask_cluster, evaluator_name=None, chunk_bytes=1, task=task)
    for path, got, want in zip(paths, reports, serial, strict=True):
        if path == victim:
            assert got.error.startswith(f"{victim}: WorkerDied: ") and "KilledWorker" in got.error
        else:
            assert got.to_dict() == want.to_dict()


# -- Dask is optional -------------------------------------------------------------------


def test_scheduler_without_dask_is_a_config_error(capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)
    monkeypatch.delitem(sys.modules, "tawla.analysis.dask_run", raising=False)
    capsys.readouterr()
    assert main(["analyze", "--no-eval", "--scheduler", "tcp://127.0.0.1:1", *map(str, archive(FEW[1]))]) == 2
    err = capsys.readouterr().err
    assert err.startswith("tawla analyze: ConfigError: --scheduler needs Dask")
    assert 'pip install "tawla-engine[dask]"' in err
    assert main(["analyze", "--workers", "2", "--scheduler", "tcp://127.0.0.1:1", *map(str, archive(FEW[1]))]) == 2
    assert "ConfigError: --workers and --scheduler" in capsys.readouterr().err


def test_tawla_and_analyze_work_without_dask():
    code = ("import sys; sys.modules['dask'] = sys.modules['distributed'] = None\n"
            "import tawla, tawla.cli\n"
            "assert tawla.cli.main(['analyze', '--no-eval', '--no-progress', '--json', '--workers', '2']) == 0\n"
            "assert 'tawla.analysis.dask_run' not in sys.modules")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                       env=dict(os.environ, PYTHONPATH=str(SRC)))
    assert r.returncode == 0, r.stderr


# -- the whole archive ----------------------------------------------------------------


@pytest.mark.slow
def test_whole_archive_same_json_everywhere(capsys, dask_cluster):
    folder = shared_path("data", "matches")
    code, expected = analyze_json(capsys, "--workers", "1", folder)
    assert sum(len(m["games"]) for m in expected["matches"]) >= 486
    assert analyze_json(capsys, "--workers", "2", folder) == (code, expected)
    assert analyze_json(capsys, "--scheduler", dask_cluster, folder) == (code, expected)
