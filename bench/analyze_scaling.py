"""``tawla analyze`` on 1 worker against 2, text and ``--json``: wall time, best of N rounds.

    python bench/analyze_scaling.py [--rounds 5] [--copies 2] [DIR]

The input is DIR (default: the shared archive, ../shared/data/matches) copied ``--copies``
times into a temporary folder, so that the job is at least ~10 s of work on one worker. Each
round runs the four commands back to back (text 1, text 2, JSON 1, JSON 2 workers), each a
fresh process, its output to a file; the ratio is the best 2-worker time over the best
1-worker time (the goal: at most 0.6). Results: bench/ANALYSIS.md.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data" / "matches"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folder", nargs="?", default=str(SHARED))
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--copies", type=int, default=2)
    args = ap.parse_args()
    best: dict[tuple[str, int], float] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for k in range(args.copies):
            shutil.copytree(args.folder, Path(tmp) / f"copy{k}")
        for r in range(1, args.rounds + 1):
            for mode in ("text", "json"):
                for workers in (1, 2):
                    cmd = [sys.executable, "-m", "tawla", "analyze", tmp, "--no-progress", "--workers", str(workers)]
                    cmd += ["--json"] if mode == "json" else []
                    t = time.perf_counter()
                    with open(Path(tmp) / "out.txt", "w") as out:
                        subprocess.run(cmd, stdout=out, stderr=subprocess.DEVNULL, check=False)
                    wall = time.perf_counter() - t
                    best[mode, workers] = min(best.get((mode, workers), wall), wall)
                    print(f"round {r} {mode} workers {workers} wall {wall:.2f} s", flush=True)
    for mode in ("text", "json"):
        print(f"{mode}: best 1 worker {best[mode, 1]:.2f} s, 2 workers {best[mode, 2]:.2f} s, "
              f"ratio {best[mode, 2] / best[mode, 1]:.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
