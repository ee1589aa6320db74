"""Running a rollout: its trials in blocks, on this process, a pool of processes or a Dask
cluster, the blocks' sums added in order, saved as they finish and resumed.

A block (:data:`~tawla.rollout.settings.BLOCK` trials of every candidate, on the same dice)
is one call of the compiled trial loop (:func:`tawla.native.rollout_trials`) or, without the
compiled modules, of its Python twin (:func:`tawla.rollout.twin.trials_py`). Its dice depend
on the rollout's seed and the trials' numbers alone, so a rollout gives the same numbers on
1 worker, 2 workers or a cluster, and a resumed one those of an uninterrupted run.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import tempfile
from collections.abc import Callable, Generator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from .. import native
from ..bots.cube import GNUBG_EFFICIENCY
from ..errors import FormatError, InvalidArgument
from ..met import MatchEquityTable
from ..rules import Ruleset
from ..runners import on_cluster
from ..runners.local import map_ordered
from .evaluator import trial_evaluator
from .settings import BLOCK, RolloutSettings, rotations
from .stats import BlockSums, Tally, swap_sides
from .twin import trials_py

__all__ = ["MatchTrials", "RolloutJob", "RolloutRun", "run_block", "SAVE_VERSION"]

SAVE_VERSION = 2  # 2: cube decisions with the efficiency by position class


@dataclass(frozen=True)
class MatchTrials:
    """Cube decisions at a match score inside the trials (backgammon): the table, the score of
    the rows' side to move, and each row's cube at the start.

    Attributes
    ----------
    met : MatchEquityTable
    away, opp_away : int
        The points the rows' side to move, and its opponent, still need.
    crawford : bool
        The rows' game is the Crawford game.
    cubes : tuple of (int, int)
        Per row: the cube's value and owner (0 centred, 1 the row's side to move, -1 the other).
    """

    met: MatchEquityTable
    away: int
    opp_away: int
    crawford: bool
    cubes: tuple

    def key(self) -> dict:
        digest = hashlib.sha256(self.met.pre.tobytes() + self.met.post.tobytes()).hexdigest()[:16]
        return {"met": self.met.name, "met_sha256": digest, "away": [self.away, self.opp_away],
                "crawford": self.crawford, "cubes": [list(c) for c in self.cubes]}

    def compiled(self, cube: int) -> tuple:
        """The trial loop's ``match`` argument for rows with this cube."""
        return (self.met.pre, self.met.post, self.away, self.opp_away, cube, self.crawford)


@dataclass(frozen=True)
class RolloutJob:
    """What is rolled out: candidate pre-roll rows (uint8[K, 56], each seen from its side to
    move, games not over), all on the same dice.

    Attributes
    ----------
    rows : bytes
        The K rows, concatenated.
    ruleset : Ruleset
    settings : RolloutSettings
    owner : int
        The cube at the start, seen from the rows' side to move: 0 centred, 1 its own, -1 the
        other side's.
    flip : bool
        The results are for the other side (the rows are positions after a play: the player
        who made it wants them); the side to move may double before its first roll.
    match : MatchTrials, optional
        Cube decisions at this match score (then ``owner`` is unused: each row's cube is in it);
        the cubeful value is 2 MWC - 1.
    """

    rows: bytes
    ruleset: Ruleset
    settings: RolloutSettings
    owner: int = 0
    flip: bool = False
    match: MatchTrials | None = None

    @property
    def count(self) -> int:
        return len(self.rows) // 56

    def array(self) -> np.ndarray:
        return np.frombuffer(self.rows, dtype=np.uint8).reshape(-1, 56).copy()

    def blocks(self) -> int:
        """Blocks in the whole rollout (the last one may be short)."""
        return -(-self.settings.trials // BLOCK)

    def key(self) -> dict:
        """What ``--resume`` checks against the saved file."""
        out = {"rows": self.rows.hex(), "ruleset": self.ruleset.name, "settings": self.settings.as_dict(),
               "owner": self.owner, "flip": self.flip}
        if self.match is not None:
            out["match"] = self.match.key()
        return out


def run_block(job: RolloutJob, b: int) -> list[BlockSums]:
    """Block ``b`` of a job: the sums of each candidate's trials ``b * BLOCK ..``."""
    s = job.settings
    first = b * BLOCK
    n = min(BLOCK, s.trials - first)
    rows = job.array()
    ev = trial_evaluator(job.ruleset, s.level)
    kw: dict[str, Any] = dict(first=first, trials=n, truncate=s.truncate, vr=s.variance_reduction, stop_bearoff=s.bearoff,
              stratify=s.stratify, rot=rotations(s.seed), cubeful=s.cubeful, owner=job.owner,
              decide_first=job.flip, seed=s.seed)
    if job.ruleset.cube:  # the cube model's efficiency by position class, as at 0 ply
        kw["efficiency_by_class"] = dataclasses.astuple(GNUBG_EFFICIENCY)
    if job.match is None:
        values, raw, plies = _trials(rows, job, ev, kw)
    else:  # rows of one cube at a time, all on the same dice
        parts, cubes, i = [], job.match.cubes, 0
        while i < len(cubes):
            j = i + 1
            while j < len(cubes) and cubes[j] == cubes[i]:
                j += 1
            cube, owner = cubes[i]
            parts.append(_trials(rows[i:j], job, ev, {**kw, "owner": owner, "match": job.match.compiled(cube)}))
            i = j
        values, raw, plies = (np.concatenate([p[k] for p in parts]) for k in range(3))
    if job.flip:
        values, raw = swap_sides(values), swap_sides(raw)
    return [BlockSums.of(values[i], raw[i], plies[i]) for i in range(len(rows))]


def _trials(rows: np.ndarray, job: RolloutJob, ev, kw: dict) -> tuple:
    """(values, raw values, plies) of the trial loop, compiled or its twin."""
    if native.available("rollout"):
        return native.rollout_trials(rows, job.ruleset, ev.contact, raw=True, checked=False, **ev.compiled_args(), **kw)
    return trials_py(rows, job.ruleset, ev, **kw)


def _block_task(item: tuple) -> list[BlockSums]:
    job, b = item
    return run_block(job, b)


class RolloutRun:
    """One rollout in progress: the tallies of its candidates, the blocks done, saving.

    Parameters
    ----------
    job : RolloutJob
    save : path, optional
        Written (atomically) after each block: the job and every finished block's sums.
    resume : path, optional
        A file ``save`` wrote for the same job: its blocks are taken as done.

    Raises
    ------
    tawla.errors.FormatError
        ``resume`` is not such a file, or was written for another job (other positions,
        ruleset or settings).
    OSError
        ``resume`` cannot be read.
    """

    def __init__(self, job: RolloutJob, save=None, resume=None) -> None:
        self.job = job
        self.save_path = Path(save) if save is not None else None
        self.tallies = [Tally() for _ in range(job.count)]
        self.done: list[list[BlockSums]] = []
        if resume is not None:
            for blocks in self._load(Path(resume)):
                self._add(blocks)

    def _load(self, path: Path) -> list[list[BlockSums]]:
        try:
            data = json.loads(path.read_text())
        except (UnicodeDecodeError, json.JSONDecodeError) as e:
            raise FormatError(f"{path}: not a saved rollout ({e})") from None
        if not isinstance(data, dict) or data.get("version") != SAVE_VERSION or not isinstance(data.get("blocks"), list):
            raise FormatError(f"{path}: not a saved rollout of this version")
        if data.get("job") != json.loads(json.dumps(self.job.key())):
            raise FormatError(f"{path}: saved for other positions, ruleset or settings than these")
        blocks = [[BlockSums.from_json(c) for c in blk] if isinstance(blk, list) else None for blk in data["blocks"]]
        if any(blk is None or len(blk) != self.job.count for blk in blocks) or len(blocks) > self.job.blocks():
            raise FormatError(f"{path}: its blocks do not match the rollout")
        return blocks  # type: ignore[return-value]

    def _add(self, blocks: list[BlockSums]) -> None:
        for t, b in zip(self.tallies, blocks):
            t.add(b)
        self.done.append(blocks)

    def _save(self) -> None:
        if self.save_path is None:
            return
        data = {"version": SAVE_VERSION, "job": self.job.key(), "blocks": [[b.to_json() for b in blk] for blk in self.done]}
        folder = self.save_path.parent
        fd, tmp = tempfile.mkstemp(prefix=".rollout-", dir=folder)
        try:
            with os.fdopen(fd, "w") as f:
                json.dump(data, f)
            os.replace(tmp, self.save_path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise

    def finished(self) -> bool:
        """All trials done, or the standard errors asked for reached."""
        s = self.job.settings
        if len(self.done) >= self.job.blocks():
            return True
        n = self.tallies[0].n if self.tallies else 0
        return (s.se is not None and n >= s.min_trials
                and all(t.se()[5] <= s.se for t in self.tallies))

    def _stream(self, workers: int, scheduler: str | None) -> Generator[list[BlockSums], None, None]:
        """The blocks not done, in order; closing it (or an interrupt) shuts the workers down."""
        items = ((self.job, b) for b in range(len(self.done), self.job.blocks()))
        if scheduler is None and workers <= 1:
            yield from (_block_task(item) for item in items)
            return
        if scheduler is not None:
            results = on_cluster(_block_task, items, scheduler)
        else:
            results = map_ordered(_block_task, items, workers, preload=("tawla.rollout",))
        try:
            for _, result, error in results:
                yield _checked(result, error)
        finally:
            results.close()

    def run(self, workers: int = 1, scheduler: str | None = None,
            progress: Callable[["RolloutRun"], None] | None = None) -> "RolloutRun":
        """Run the blocks not done yet, in order, until :meth:`finished`; ``progress(self)``
        after each. A KeyboardInterrupt leaves the blocks done so far in the tallies (and saved).

        Raises
        ------
        tawla.errors.ConfigError
            ``scheduler`` without Dask.
        OSError
            The scheduler cannot be reached, the save file cannot be written.
        """
        if workers < 1:
            raise InvalidArgument(f"workers must be at least 1, not {workers}")
        if self.finished():
            return self
        stream = self._stream(workers, scheduler)
        try:
            for blocks in stream:
                self._add(blocks)
                self._save()
                if progress is not None:
                    progress(self)
                if self.finished():
                    break
        finally:
            stream.close()
        return self


def _checked(result, error):
    """A block's sums, or the error of a worker process that died twice running it (the
    :class:`~concurrent.futures.process.BrokenProcessPool` or ``KilledWorker`` of the runner)."""
    if error is not None:
        raise error
    return result
