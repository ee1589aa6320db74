"""Ship a trained network with the package: copy a checkpoint of ``tawla train`` to
``src/tawla/data/nets/<ruleset>.npz`` and record it in ``manifest.json`` beside it (file,
SHA-256, hidden units, games, the command and seed that made it and the commands that made
its start (``lineage``), its supervised rounds, the measured strength given
with ``--strength``, and the network's outputs on fixed positions, which tests/test_net.py
checks the shipped file against). A race network (``tawla train --race``: ``meta["kind"]``
``race``) goes to ``<ruleset>-race.npz`` and under its ruleset's entry as ``race`` (the data
it was trained on, its rounds, its fixed positions races beyond the databases).

Usage::

    python tools/ship_net.py CHECKPOINT.npz [--strength "net0 vs pubeval +0.41 ± 0.03 (10000 games)"]
"""

from __future__ import annotations

import argparse
import hashlib
import json
from pathlib import Path

import numpy as np

import tawla
from tawla.evaluation.net import NetEvaluator

NETS = Path(__file__).resolve().parents[1] / "src" / "tawla" / "data" / "nets"
CHECK_SEED = 11
CHECK_POSITIONS = 8


def check_positions(ruleset) -> list[str]:
    """Position IDs (tawla IDs) of the fixed positions: the start, then seeded random-game positions."""
    r = tawla.get_ruleset(ruleset)
    rows = tawla.batch.random_positions(r, 64, seed=CHECK_SEED)
    ids = [r.initial_position().id()]
    for row in rows:
        pos = tawla.Position(bytes(row), r)
        if pos.result() is None and not tawla.evaluation.is_race(row[None, :], r)[0]:
            ids.append(pos.id())
        if len(ids) == CHECK_POSITIONS:
            break
    return ids


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("checkpoint")
    ap.add_argument("--strength", action="append", default=[], help="a measured figure (repeatable)")
    args = ap.parse_args(argv)
    net = NetEvaluator.load(args.checkpoint)
    name = net.ruleset.name
    NETS.mkdir(parents=True, exist_ok=True)
    if net.meta.get("kind") == "race":
        ship_race(net, args.strength)
        return
    target = NETS / f"{name}.npz"
    data = net.to_bytes()
    target.write_bytes(data)
    ids = check_positions(name)
    rows = tawla.ids_to_array(ids, ruleset=name)
    outputs = net.outputs(rows, compiled=False)
    manifest_path = NETS / "manifest.json"
    manifest = json.loads(manifest_path.read_text()) if manifest_path.exists() else {}
    cfg = net.meta.get("config", {})
    rounds = [*net.meta.get("earlier_rounds", []), *(net.meta.get("supervised") or {}).get("rounds", [])]
    manifest[name] = {
        "file": target.name,
        "sha256": hashlib.sha256(data).hexdigest(),
        "bytes": len(data),
        "hidden": net.hidden,
        "games": net.meta.get("games"),
        "seed": cfg.get("seed"),
        "command": net.meta.get("command") or ("tawla train " + " ".join(
            f"--{k.replace('_', '-')} {v}" for k, v in cfg.items() if k != "ruleset") + f" --ruleset {name}"),
        "lineage": net.meta.get("lineage", []),
        "supervised_rounds": rounds,
        "training_cpu_seconds": round(float(net.meta.get("seconds", 0.0)) + sum(r["seconds"] for r in rounds), 1),
        "learning_curve_vs_heuristic_ply0": net.meta.get("curve", []),
        "strength": args.strength,
        "check": {"positions": ids, "outputs": np.round(outputs.astype(float), 6).tolist()},
    }
    manifest_path.write_text(json.dumps(manifest, indent=1, ensure_ascii=False) + "\n")
    print(f"shipped {target} ({len(data)} bytes), manifest updated")


def ship_race(net: NetEvaluator, strength: list[str]) -> None:
    """Install a race network under its ruleset's manifest entry (``race``)."""
    from tawla.evaluation.net import shipped_net
    from tawla.training.race import race_positions
    name = net.ruleset.name
    target = NETS / f"{name}-race.npz"
    data = net.to_bytes()
    target.write_bytes(data)
    rows = race_positions(shipped_net(name), CHECK_POSITIONS, seed=CHECK_SEED)
    ids = [tawla.Position(bytes(row), net.ruleset).id() for row in rows]
    outputs = net.outputs(rows, compiled=False)
    manifest_path = NETS / "manifest.json"
    manifest = json.loads(manifest_path.read_text())
    manifest[name]["race"] = {
        "file": target.name,
        "sha256": hashlib.sha256(data).hexdigest(),
        "bytes": len(data),
        "hidden": net.hidden,
        "command": net.meta.get("command"),
        "data": net.meta.get("data"),
        "method": net.meta.get("method"),
        "fit": {k: net.meta.get(k) for k in ("positions", "holdout", "first_epochs", "epochs", "alpha", "decay",
                                             "seed")},
        "rounds": net.meta.get("rounds"),
        "training_cpu_seconds": round(sum(r["seconds"] for r in net.meta.get("rounds") or []), 1),
        "strength": strength,
        "check": {"positions": ids, "outputs": np.round(outputs.astype(float), 6).tolist()},
    }
    manifest_path.write_text(json.dumps(manifest, indent=1, ensure_ascii=False) + "\n")
    print(f"shipped {target} ({len(data)} bytes) as the race network of {name}, manifest updated")


if __name__ == "__main__":
    main()
