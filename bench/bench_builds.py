"""Two builds of tawla side by side: move generation, match actions, evaluators and a net0 decision.

A refactor of the compiled core should leave its speed within noise; this measures it the way
the shared machines allow: the same workload run in fresh processes under each build in turn
(interleaved, so that load drifts hit both alike), and the medians and bests compared.

    cp -r "$(python -c 'import tawla, os; print(os.path.dirname(tawla.__file__))')" /tmp/before/
    ... change, rebuild, reinstall ...
    python bench/bench_builds.py --before /tmp/before --runs 5

``--before`` is a folder holding an installed ``tawla`` package (put first on ``PYTHONPATH``);
the build after is the one this interpreter imports. Timings are the calling thread's CPU
time (``time.thread_time``), best of several repetitions inside each run.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")


def _best(fn, k: int = 5) -> float:
    best = float("inf")
    for _ in range(k):
        t = time.thread_time()
        fn()
        best = min(best, time.thread_time() - t)
    return best


def measure() -> dict:
    """One run's figures (lower is better for times, higher for rates)."""
    import numpy as np

    import tawla
    import speed_table as bench
    import workloads
    from tawla.evaluation import evaluate_rows
    from tawla.evaluation.net import shipped_net

    out = {}
    bg = tawla.get_ruleset("backgammon")
    fast = bench.measure_fast(workloads.load_w1(bg), bg, 5)
    out["expand, ns a child"] = 1e9 * fast["expand"] / fast["children"]
    for ruleset, v in bench.measure_match(5000).items():
        out[f"match {ruleset}, single steps a second"] = v["steps"]
        out[f"match {ruleset}, whole moves a second"] = v["moves"]
    rows = tawla.batch.random_positions(bg, 400, seed=3)
    kids = np.ascontiguousarray(tawla.expand_all_rolls(rows[:100], ruleset=bg)[0])
    net = shipped_net(bg)
    out["network, siblings, us a row"] = 1e6 * _best(lambda: net(kids, bg)) / len(kids)
    for name in tawla.RULESET_IDS:
        r = tawla.get_ruleset(name)
        k = np.ascontiguousarray(tawla.expand_all_rolls(tawla.batch.random_positions(r, 400, seed=3)[:50],
                                                        ruleset=r)[0])
        out[f"evaluate {name} (default model), us a row"] = 1e6 * _best(lambda: evaluate_rows(k, r, checked=False)) / len(k)
    bot = tawla.Bot("backgammon", "net0")
    positions = [tawla.Position(bytes(x), bg) for x in rows[:300]]
    rng = np.random.default_rng(1)
    dice = [tuple(int(v) for v in rng.integers(1, 7, 2)) for _ in positions]
    bot.choose(positions[0], dice[0])
    out["net0 decision, us"] = 1e6 * _best(lambda: [bot.choose(p, d) for p, d in zip(positions, dice)], 3) / len(positions)
    return out


def _run(pythonpath: str | None) -> dict:
    env = dict(os.environ)
    if pythonpath:
        env["PYTHONPATH"] = pythonpath
    done = subprocess.run([sys.executable, __file__, "--one"], env=env, capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--before", help="a folder holding the installed tawla package of the build before")
    p.add_argument("--runs", type=int, default=5, help="runs under each build, interleaved (default 5)")
    p.add_argument("--one", action="store_true", help="print one run's figures as JSON (used by the driver)")
    args = p.parse_args()
    if args.one:
        print(json.dumps(measure()))
        return
    if not args.before:
        p.error("--before is required")
    before, after = [], []
    for _ in range(args.runs):
        before.append(_run(args.before))
        after.append(_run(None))
    print(f"| measure | before, median (best) | after, median (best) | after / before |\n| --- | ---: | ---: | ---: |")
    for key in before[0]:
        rate = "second" in key
        pick = max if rate else min
        b, a = statistics.median(x[key] for x in before), statistics.median(x[key] for x in after)
        fmt = "{:,.0f}" if rate else "{:.3f}"
        print(f"| {key} | {fmt.format(b)} ({fmt.format(pick(x[key] for x in before))}) | "
              f"{fmt.format(a)} ({fmt.format(pick(x[key] for x in after))}) | {a / b:.3f} |")


if __name__ == "__main__":
    main()
