"""Rollout speed, side by side in one run: tawla's trial loop against GNU Backgammon's ``rollout``.

Run::

    python bench/bench_rollout.py [--trials 1296] [--positions 100] [--per-position 72]

needs the ``gnubg`` package (``pip install "tawla-engine[bench]"``, 1.1.0a16: the whole program
as a module). Every figure is CPU seconds of this process (``time.process_time``), both engines
on one thread, one after the other, so that the machine's load weighs on both alike:

1. **Games a CPU second** at 0 ply, cubeless, untruncated, no variance reduction, both playing
   bear-offs out (gnubg: ``bearofftruncation exact/onesided off``; tawla: ``--no-bearoff``), on
   the opening position (``--trials`` games) and on ``--positions`` positions of the W1 workload
   (``src/tawla/data/w1/bg_contact_1000.pid``), ``--per-position`` games each.
2. **Variance reduction**: the cubeless equity's standard error reached a CPU second with and
   without it, tawla only (gnubg's ``rollout`` prints its results nowhere a caller of the module
   can read them, so its standard error is not known here); gnubg's games a CPU second with it.
3. **Workers**: trials a second on 1 worker and on 2 worker processes, and on a local Dask
   cluster of 2 processes (wall clock).
4. **A contact position, 1,296 trials, luck-adjusted, net0**: truncated at 7 plies and
   untruncated (CPU seconds).

The results and the commit they ran on go into ``bench/ROLLOUT.md``.
"""

from __future__ import annotations

import argparse
import math
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import tawla
from tawla.rollout import RolloutSettings, rollout

W1 = Path(__file__).resolve().parents[1] / "src" / "tawla" / "data" / "w1" / "bg_contact_1000.pid"
OPENING = "4HPwATDgc/ABMA"


def gnubg_module():
    try:
        import gnubg
    except ImportError:
        sys.exit('needs GNU Backgammon as a module: pip install "gnubg==1.1.0a16"')
    return gnubg


def quiet(gnubg, command: str) -> None:
    """A gnubg command with its output (the board, the settings) sent to a temporary file."""
    sys.stdout.flush()
    with tempfile.TemporaryFile() as f:
        saved = os.dup(1)
        os.dup2(f.fileno(), 1)
        try:
            gnubg.command(command)
        finally:
            sys.stdout.flush()
            os.dup2(saved, 1)
            os.close(saved)


def gnubg_rollout(gnubg, pid: str, trials: int, vr: bool) -> float:
    """CPU seconds of a gnubg cubeless 0-ply rollout of ``pid`` (``trials`` games, one thread)."""
    for c in ("set threads 1", "new game", f"set board {pid}", f"set rollout trials {trials}",
              "set rollout cubeful off", "set rollout chequerplay plies 0", f"set rollout varredn {'on' if vr else 'off'}",
              "set rollout truncation enable off", "set rollout later enable off",
              "set rollout bearofftruncation exact off", "set rollout bearofftruncation onesided off",
              "set rollout quasirandom on", "set rollout seed 1"):
        quiet(gnubg, c)
    t = time.process_time()
    quiet(gnubg, "rollout")
    return time.process_time() - t


def tawla_rollout(pid: str, trials: int, vr: bool, truncate: int = 0, bearoff: bool = False, workers: int = 1,
                  scheduler: str | None = None):
    """(CPU seconds of this process, wall seconds, result) of a tawla net0 rollout."""
    pos = tawla.Position.from_gnubg_id(pid)
    s = RolloutSettings(trials=trials, variance_reduction=vr, truncate=truncate, bearoff=bearoff, cubeful=False, seed=1)
    t, w = time.process_time(), time.perf_counter()
    ro = rollout(pos, settings=s, workers=workers, scheduler=scheduler)
    return time.process_time() - t, time.perf_counter() - w, ro.result


def commit() -> str:
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                              cwd=Path(__file__).parent, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "?"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--trials", type=int, default=1296)
    ap.add_argument("--positions", type=int, default=100)
    ap.add_argument("--per-position", type=int, default=72)
    ap.add_argument("--rounds", type=int, default=3, help="rounds of the opening's comparison")
    ap.add_argument("--skip-dask", action="store_true")
    a = ap.parse_args()
    gnubg = gnubg_module()
    pids = W1.read_text().split()[: a.positions]
    print(f"commit {commit()}, {os.cpu_count()} cores, tawla {tawla.__version__}")

    print("\n1. games a CPU second, 0 ply, cubeless, untruncated, no variance reduction, bear-offs played out")
    best_tw = best_gn = math.inf
    for k in range(a.rounds):  # alternating, so that a change of the machine's load weighs on both
        tw, _, res = tawla_rollout(OPENING, a.trials, vr=False)
        gn = gnubg_rollout(gnubg, OPENING, a.trials, vr=False)
        best_tw, best_gn = min(best_tw, tw), min(best_gn, gn)
        print(f"   opening, {a.trials} games, round {k + 1}: tawla {a.trials / tw:8.0f}/s  gnubg {a.trials / gn:6.0f}/s  "
              f"ratio {gn / tw:.1f}x   (tawla equity {res.equity:+.3f} ± {res.equity_se:.3f}, {res.plies:.1f} moves)")
    print(f"   opening, the best round of each: tawla {a.trials / best_tw:8.0f}/s  gnubg {a.trials / best_gn:6.0f}/s  "
          f"ratio {best_gn / best_tw:.1f}x")
    tw_total = gn_total = 0.0
    for pid in pids:
        tw_total += tawla_rollout(pid, a.per_position, vr=False)[0]
        gn_total += gnubg_rollout(gnubg, pid, a.per_position, vr=False)
    games = a.per_position * len(pids)
    print(f"   {len(pids)} W1 positions, {a.per_position} games each: tawla {games / tw_total:8.0f}/s  "
          f"gnubg {games / gn_total:6.0f}/s  ratio {gn_total / tw_total:.1f}x")

    print("\n2. variance reduction (luck adjustment at 0 ply), the opening position, bear-off databases on")
    t0, _, r0 = tawla_rollout(OPENING, a.trials, vr=False, bearoff=True)
    n_vr = max(36, a.trials // 4)
    t1, _, r1 = tawla_rollout(OPENING, n_vr, vr=True, bearoff=True)
    for label, t, r in (("without", t0, r0), ("with", t1, r1)):
        per_trial = r.equity_se * r.trials ** 0.5
        per_second = per_trial / (r.trials / t) ** 0.5
        print(f"   tawla {label:7s}: {r.trials:5d} trials {t:6.2f} CPU s  {r.trials / t:7.0f}/s  equity "
              f"{r.equity:+.4f} ± {r.equity_se:.4f}  s.e. of one trial {per_trial:.3f}, after one CPU second {per_second:.4f}")
    g1 = gnubg_rollout(gnubg, OPENING, n_vr, vr=True)
    print(f"   gnubg with   : {n_vr:5d} games {g1:6.2f} CPU s  {n_vr / g1:7.0f}/s (its standard error is not readable)")

    print("\n3. workers (wall clock, trials a second, the opening position, luck-adjusted, truncated at 7 plies)")
    n = 4 * 1296
    _, w1, _ = tawla_rollout(OPENING, n, vr=True, truncate=7, bearoff=True, workers=1)
    _, w2, _ = tawla_rollout(OPENING, n, vr=True, truncate=7, bearoff=True, workers=2)
    line = f"   1 worker {n / w1:6.0f}/s   2 workers {n / w2:6.0f}/s ({w1 / w2:.2f}x)"
    if not a.skip_dask:
        try:
            from distributed import LocalCluster
        except ImportError:
            line += "   Dask: not installed"
        else:
            with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cl:
                tawla_rollout(OPENING, 324, vr=False, truncate=2, scheduler=cl.scheduler_address)  # warm the workers
                _, wd, _ = tawla_rollout(OPENING, n, vr=True, truncate=7, bearoff=True, scheduler=cl.scheduler_address)
            line += f"   Dask, 2 local processes {n / wd:6.0f}/s ({wd / w2:.2f}x the time of 2 workers)"
    print(line)

    print("\n4. a contact position (W1's first), 1,296 trials, luck-adjusted, net0, one process")
    pid = pids[0] if pids else OPENING
    t7, _, r7 = tawla_rollout(pid, 1296, vr=True, truncate=7, bearoff=True)
    tf, _, rf = tawla_rollout(pid, 1296, vr=True, truncate=0, bearoff=True)
    print(f"   truncated at 7 plies: {t7:6.2f} CPU s (equity {r7.equity:+.4f} ± {r7.equity_se:.4f})")
    print(f"   untruncated         : {tf:6.2f} CPU s (equity {rf.equity:+.4f} ± {rf.equity_se:.4f}, {rf.plies:.1f} moves)")


if __name__ == "__main__":
    main()
