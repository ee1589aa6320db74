"""Rollouts: a position's value, or every play of a decision ranked, by playing it out many times.

``tawla.rollout(position)`` plays ``trials`` games from ``position`` (the side on roll to
roll), both sides moving by ``level``'s 0-ply choice, and returns the mean of their results
with standard errors; ``tawla.rollout(position, dice)`` does so for every legal play of that
roll (or the ``top`` best at 0 ply), the plays on the same dice. Options
(:class:`~tawla.rollout.settings.RolloutSettings`): trials or a standard error to reach,
truncation, luck adjustment, the bear-off databases, cube decisions, the seed.

Trials run in the compiled trial loop (``csrc/rollout``), in blocks on ``workers`` processes
or a Dask cluster (``scheduler``), with the same result however they are split; without the
compiled modules, in its Python twin (:mod:`tawla.rollout.twin`), slowly.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from .. import native
from ..bots import Bot
from ..core.dice import DiceLike, check_dice
from ..core.moves import Move
from ..errors import InvalidArgument, InvalidPosition, quote
from ..position import Position
from .run import RolloutJob, RolloutRun
from .settings import BLOCK, LEVELS, MAX_TRIALS, RolloutSettings
from .stats import RolloutResult
from .twin import outcome

__all__ = ["rollout", "plan_rollout", "RolloutPlan", "Rollout", "PlayRollout", "RolloutSettings", "RolloutResult", "LEVELS", "MAX_TRIALS", "BLOCK"]


@dataclass
class PlayRollout:
    """One play of a decision and its rollout (for the player who makes it)."""

    move: Move
    result: RolloutResult
    exact: bool = False  # the play ends the game: its result, no trials

    def to_json(self) -> dict:
        return {"play": str(self.move), **self.result.to_json(), "exact": self.exact}


@dataclass
class Rollout:
    """A finished (or interrupted) rollout: of a position (:attr:`result`) or of a decision's
    plays (:attr:`plays`, best first by the equity that decides: cubeful where there is a cube).
    """

    position: Position
    settings: RolloutSettings
    level_description: str
    dice: tuple[int, int] | None = None
    result: RolloutResult | None = None
    plays: list[PlayRollout] = field(default_factory=list)
    complete: bool = True

    def to_json(self) -> dict:
        s = self.settings
        head = {"position": self.position.gnubg_id() if self.position.ruleset.has_bar else self.position.id(),
                "tawla_id": self.position.id(), "ruleset": self.position.ruleset.name, "level": s.level,
                "trials": (self.result.trials if self.result else max((p.result.trials for p in self.plays), default=0)),
                "seed": s.seed, "truncate": s.truncate, "variance_reduction": s.variance_reduction,
                "bearoff": s.bearoff, "cubeful": s.cubeful, "complete": self.complete}
        if self.dice is not None:
            return {**head, "dice": list(self.dice), "plays": [p.to_json() for p in self.plays]}
        assert self.result is not None
        return {**head, **self.result.to_json()}


def _exact_play(child: Position, move: Move) -> PlayRollout | None:
    """A play that ends the game: its exact result for the player (None for any other)."""
    r = child.ruleset
    done, winner, points, _ = native.game_results(np.frombuffer(child.row, np.uint8)[None].copy(), r)
    if not done[0]:
        return None
    out, pts = outcome(r, int(winner[0]), int(points[0]))
    p = out.astype(np.float64).tolist()
    if r.scoring == "checkers_left":
        p[2] = p[4] = 0.0
    res = RolloutResult(p, [0.0] * 5, pts, 0.0, float(pts) if r.scoring == "cube" else None,
                        0.0 if r.scoring == "cube" else None, 0, 0.0, 0.0)
    return PlayRollout(move, res, exact=True)


@dataclass
class RolloutPlan:
    """A rollout ready to run: its job (None when every play of a decision ends the game) and
    what turns the job's tallies into a :class:`Rollout` (:meth:`result`, also of a run that was
    interrupted)."""

    position: Position
    settings: RolloutSettings
    dice: tuple[int, int] | None
    job: RolloutJob | None
    plays: list = field(default_factory=list)  # (Move, exact PlayRollout or None), best first at 0 ply

    def result(self, run: RolloutRun | None) -> Rollout:
        """The rollout as far as ``run`` (of :attr:`job`) got."""
        desc = _level_description(self.position.ruleset, self.settings.level)
        complete = run is None or run.finished()
        if self.dice is None:
            assert run is not None
            return Rollout(self.position, self.settings, desc, result=_result(run, 0), complete=complete)
        done, k = [], 0
        for move, exact in self.plays:
            if exact is not None:
                done.append(exact)
            else:
                assert run is not None
                done.append(PlayRollout(move, _result(run, k)))
                k += 1
        key = (lambda p: p.result.cubeful_equity) if self.settings.cubeful else (lambda p: p.result.equity)
        done.sort(key=key, reverse=True)
        return Rollout(self.position, self.settings, desc, dice=self.dice, plays=done, complete=complete)


def plan_rollout(position: Position, dice: DiceLike | None = None, *, settings: RolloutSettings | None = None,
                 top: int | None = None, cube_owner: int = 0, plays: list[str] | None = None,
                 **options) -> RolloutPlan:
    """The checks and the job of :func:`rollout` (its parameters and errors), nothing run;
    ``plays`` (with ``dice``): only the legal plays whose text (GNU Backgammon notation, as
    ``str(move)``) is listed.

    Raises
    ------
    tawla.errors.InvalidArgument
        As :func:`rollout`, or a text of ``plays`` that is no legal play.
    """
    if not isinstance(position, Position):
        raise InvalidPosition(f"rollout takes a tawla.Position, not {type(position).__name__}")
    r = position.ruleset
    if position.result() is not None:
        raise InvalidPosition("the game of this position is over: nothing to roll out")
    if settings is not None and options:
        raise InvalidArgument(f"give settings or options, not both: {sorted(options)}")
    s = (settings if settings is not None else RolloutSettings(**options)).for_ruleset(r)
    if isinstance(cube_owner, bool) or cube_owner not in (-1, 0, 1):
        raise InvalidArgument(f"cube_owner must be -1, 0 or 1, not {quote(cube_owner)}")
    if top is not None and (isinstance(top, bool) or not isinstance(top, int) or top < 1):
        raise InvalidArgument(f"top must be a whole number >= 1, not {quote(top)}")
    if dice is None:
        return RolloutPlan(position, s, None, RolloutJob(position.row, r, s, owner=cube_owner))
    d = check_dice(dice)
    ranked = Bot(r, s.level).hint(position, d)
    if not ranked:
        raise InvalidArgument(f"no legal play for {d[0]}{d[1]}: the turn passes")
    if plays is not None:
        wanted = set(plays)
        missing = wanted - {str(rm.move) for rm in ranked}
        if missing:
            raise InvalidArgument(f"not a legal play for {d[0]}{d[1]}: {', '.join(sorted(missing))}")
        ranked = [rm for rm in ranked if str(rm.move) in wanted]
    chosen, rows = [], []
    for rm in ranked[:top] if top is not None else ranked:
        child = position.play(rm.move)
        exact = _exact_play(child, rm.move)
        chosen.append((rm.move, exact))
        if exact is None:
            rows.append(child.row)
    job = RolloutJob(b"".join(rows), r, s, owner=-cube_owner, flip=True) if rows else None
    return RolloutPlan(position, s, d, job, chosen)


def rollout(position: Position, dice: DiceLike | None = None, *, settings: RolloutSettings | None = None,
            top: int | None = None, cube_owner: int = 0, plays: list[str] | None = None, workers: int = 1,
            scheduler: str | None = None, save=None, resume=None, progress: Callable[[RolloutRun], None] | None = None,
            **options) -> Rollout:
    """Roll out a position, or every play of a decision.

    Parameters
    ----------
    position : Position
        Any ruleset's; its game not over.
    dice : roll, optional
        Roll out each legal play of this roll (the position after it, the opponent on roll)
        instead of the position itself.
    settings : RolloutSettings, optional
        Else built from ``options`` (``trials``, ``se``, ``min_trials``, ``level``,
        ``truncate``, ``variance_reduction``, ``bearoff``, ``cubeful``, ``seed``,
        ``stratify``).
    top : int, optional
        With ``dice``: only the ``top`` best plays at 0 ply.
    plays : list of str, optional
        With ``dice``: only these plays (their text as ``str(move)`` gives it).
    cube_owner : int
        Money play (backgammon): 0 the cube centred, 1 the side on roll owns it, -1 its
        opponent. No cube decision is made before the first roll of a position (its cubeful
        equity is that of not doubling now); after a play, the opponent may double at once.
    workers : int
        Processes (1: this one).
    scheduler : str, optional
        A Dask scheduler's address instead of ``workers``.
    save, resume : path, optional
        Write the finished blocks as they come; continue a saved rollout of the same job.
    progress : callable, optional
        Called with the :class:`~tawla.rollout.run.RolloutRun` after each block.

    Returns
    -------
    Rollout

    Raises
    ------
    tawla.errors.InvalidPosition
        Not a Position, or its game is over.
    tawla.errors.InvalidDice
        Bad ``dice``.
    tawla.errors.InvalidArgument
        Bad settings, ``top`` < 1, an owner not -1, 0 or 1, a roll without a legal play, a text
        of ``plays`` that is no legal play.
    tawla.errors.FormatError
        ``resume`` is not a saved rollout of this job.
    """
    plan = plan_rollout(position, dice, settings=settings, top=top, cube_owner=cube_owner, plays=plays, **options)
    run = None
    if plan.job is not None:
        run = RolloutRun(plan.job, save=save, resume=resume).run(workers=workers, scheduler=scheduler,
                                                                 progress=progress)
    return plan.result(run)


def _level_description(r, level: str) -> str:
    return {"net0": f"net0, the shipped {r.name} network at 0 ply", "net1": f"net1, the shipped {r.name} network at 1 ply",
            "ply0": "ply0, the heuristic model at 0 ply"}[level]


def _result(run: RolloutRun, k: int) -> RolloutResult:
    return RolloutResult.of(run.tallies[k], checkers_left=run.job.ruleset.scoring == "checkers_left",
                            cubeful=run.job.settings.cubeful)
