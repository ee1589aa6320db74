"""Rollouts: a position's value, or every play of a decision ranked, by playing it out many times.

``tawla.rollout(position)`` plays ``trials`` games from ``position`` (the side on roll to
roll), both sides moving by ``level``'s 0-ply choice, and returns the mean of their results
with standard errors; ``tawla.rollout(position, dice)`` does so for every legal play of that
roll (or the ``top`` best at 0 ply), the plays on the same dice. Options
(:class:`~tawla.rollout.settings.RolloutSettings`): trials or a standard error to reach,
truncation, luck adjustment, the bear-off databases, cube decisions, the seed. With a match
state (``match_state=``) the trials make their cube decisions at the score (backgammon; or
run cubeless with the score applied to their probabilities), or are valued one by one at the
score (the Tawla rulesets) (:mod:`tawla.rollout.at_score`).

Trials run in the compiled trial loop (``csrc/rollout``), in blocks on ``workers`` processes
or a Dask cluster (``scheduler``), with the same result however they are split; without the
compiled modules, in its Python twin (:mod:`tawla.rollout.twin`), slowly.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from .. import native
from ..bots import Bot
from ..bots.cube import decision_fields
from ..core.dice import DiceLike, check_dice
from ..core.moves import Move
from ..errors import InvalidArgument, InvalidPosition, quote
from ..formats.gnubg import MatchState
from ..met import MatchCube, MatchEquityTable, ScoreState
from ..position import Position
from ..rules import Scoring
from . import at_score
from .at_score import AtScore
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
    score_value: float | None = None  # at a match score: EMG (backgammon) or 2 MWC - 1
    score_mwc: float | None = None
    score_se: float | None = None  # where the trials measured the value at the score itself

    def to_json(self) -> dict:
        out = {"play": str(self.move), **self.result.to_json(), "exact": self.exact}
        if self.score_mwc is not None:
            out.update(score_value=self.score_value, mwc=self.score_mwc)
        if self.score_se is not None:
            out.update(score_value_se=self.score_se)
        return out


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
    match: AtScore | None = None  # a match's rollout: its plays ranked at the score
    cube: MatchCube | None = None  # the position's cube decision at the score (backgammon)
    mwc: float | None = None  # the side on roll's match-winning chance
    mwc_se: float | None = None  # its standard error, where the trials measured it (the Tawla rulesets)

    def to_json(self) -> dict:
        s = self.settings
        head = {"position": self.position.gnubg_id() if self.position.ruleset.has_bar else self.position.id(),
                "tawla_id": self.position.id(), "ruleset": self.position.ruleset.name, "level": s.level,
                "trials": (self.result.trials if self.result else max((p.result.trials for p in self.plays), default=0)),
                "seed": s.seed, "truncate": s.truncate, "variance_reduction": s.variance_reduction,
                "bearoff": s.bearoff, "cubeful": s.cubeful, "complete": self.complete}
        if self.match is not None:
            head["match"] = self.match.to_json()
        if self.dice is not None:
            return {**head, "dice": list(self.dice), "plays": [p.to_json() for p in self.plays]}
        assert self.result is not None
        out = {**head, **self.result.to_json()}
        if self.mwc is not None:
            out["mwc"] = self.mwc
        if self.mwc_se is not None:
            out["mwc_se"] = self.mwc_se
        if self.cube is not None:
            out["cube_decision"] = decision_fields(self.cube, at_score.columns_of(self.result.probabilities,
                                                                                  self.result.equity))
        return out


def _exact_play(child: Position, move: Move) -> PlayRollout | None:
    """A play that ends the game: its exact result for the player (None for any other)."""
    r = child.ruleset
    done, winner, points, _ = native.game_results(np.frombuffer(child.row, np.uint8)[None].copy(), r)
    if not done[0]:
        return None
    out, pts = outcome(r, int(winner[0]), int(points[0]))
    p = out.astype(np.float64).tolist()
    if r.scoring == Scoring.CHECKERS_LEFT:
        p[2] = p[4] = 0.0
    res = RolloutResult(p, [0.0] * 5, pts, 0.0, float(pts) if r.scoring == Scoring.CUBE else None,
                        0.0 if r.scoring == Scoring.CUBE else None, 0, 0.0, 0.0)
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
    match: AtScore | None = None
    children: list = field(default_factory=list)  # the row after each play of :attr:`plays`

    def result(self, run: RolloutRun | None) -> Rollout:
        """The rollout as far as ``run`` (of :attr:`job`) got."""
        r = self.position.ruleset
        desc = _level_description(r, self.settings.level)
        complete = run is None or run.finished()
        if self.dice is None:
            assert run is not None
            res = _result(run, 0)
            ro = Rollout(self.position, self.settings, desc, result=res, complete=complete, match=self.match)
            if self.match is not None and res.trials > 0 and at_score.by_points(r):
                ro.result, value, se = at_score.points_value(res)
                ro.mwc, ro.mwc_se = (value + 1) / 2, se / 2
            elif self.match is not None and res.trials > 0 and run.job.match is not None:
                doubled = _result(run, 1) if run.job.count > 1 else None
                ro.cube = at_score.cubeful_position(self.match, res, doubled)
                ro.result, ro.mwc = at_score.cubeful_result(self.match, res)[0], ro.cube.optimal_mwc
            elif self.match is not None and res.trials > 0:
                cols = at_score.columns_of(res.probabilities, res.equity)
                ro.cube, ro.mwc = at_score.position_value(self.match, self.position.row, cols, r)
            return ro
        done, k = [], 0
        for move, exact in self.plays:
            if exact is not None:
                done.append(exact)
            else:
                assert run is not None
                done.append(PlayRollout(move, _result(run, k)))
                k += 1
        if self.match is not None and all(p.exact or p.result.trials > 0 for p in done):
            done = self._at_score(done, run.job.match is not None if run is not None else False)
        done.sort(key=lambda p: _rank_key(p, self.settings.cubeful), reverse=True)
        return Rollout(self.position, self.settings, desc, dice=self.dice, plays=done, complete=complete,
                       match=self.match)


    def _at_score(self, done: list[PlayRollout], cubeful: bool) -> list[PlayRollout]:
        """The plays (in the order of :attr:`plays`) with their values at the score: ``cubeful``
        from the trials' cube decisions at the score, else from their probabilities."""
        assert self.match is not None
        cols = np.stack([at_score.columns_of(p.result.probabilities, p.result.equity) for p in done])
        children = np.stack([np.frombuffer(c, np.uint8) for c in self.children])
        exact = [int(round(p.result.equity)) if p.exact else None for p in done]
        if at_score.by_points(self.position.ruleset):
            return [self._by_points(p) for p in done]
        value, mwc = at_score.play_values(self.match, children, cols, exact, self.position.ruleset)
        out = []
        for p, v, w in zip(done, value, mwc):
            res, se = p.result, None
            if cubeful and p.exact:
                res = dataclasses.replace(res, cubeful_equity=float(v))
            elif cubeful:
                res, w = at_score.cubeful_result(self.match, res)
                v, se = res.cubeful_equity, res.cubeful_equity_se
            out.append(dataclasses.replace(p, result=res, score_value=float(v), score_mwc=float(w), score_se=se))
        return out


    def _by_points(self, p: PlayRollout) -> PlayRollout:
        """A Tawla ruleset's play at the score: its trials' mean value, or its exact result's."""
        assert self.match is not None
        if p.exact:
            mwc = at_score.exact_mwc(self.match, self.position.ruleset, int(round(p.result.equity)))
            return dataclasses.replace(p, score_value=2 * mwc - 1, score_mwc=mwc)
        res, v, se = at_score.points_value(p.result)
        return dataclasses.replace(p, result=res, score_value=v, score_mwc=(v + 1) / 2, score_se=se)


def _rank_key(p: PlayRollout, cubeful: bool) -> float:
    """What ranks a play: its value at the score in a match, else its cubeful (money with a
    cube) or cubeless equity."""
    if p.score_value is not None:
        return p.score_value
    return float(p.result.cubeful_equity) if cubeful and p.result.cubeful_equity is not None else p.result.equity


def plan_rollout(position: Position, dice: DiceLike | None = None, *, settings: RolloutSettings | None = None,
                 top: int | None = None, cube_owner: int = 0, plays: list[str] | None = None,
                 match_state: MatchState | None = None, met: MatchEquityTable | None = None,
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
    match = at_score.rollout_score(match_state, r, met)
    if match is not None and not isinstance(match.score, ScoreState):  # the Tawla rulesets: no cube
        s = dataclasses.replace(s, cubeful=False)
    points = match is not None and at_score.by_points(r)
    if points and r.scoring == Scoring.CHECKERS_LEFT:
        s = at_score.whole_games(s)
    cubeful_match = match is not None and s.cubeful
    if isinstance(cube_owner, bool) or cube_owner not in (-1, 0, 1):
        raise InvalidArgument(f"cube_owner must be -1, 0 or 1, not {quote(cube_owner)}")
    if top is not None and (isinstance(top, bool) or not isinstance(top, int) or top < 1):
        raise InvalidArgument(f"top must be a whole number >= 1, not {quote(top)}")
    if dice is None:
        if points:
            assert match is not None
            whole = RolloutJob(position.row, r, s, match=at_score.trials_of_points(match, r, 1, after_play=False))
        elif cubeful_match:
            assert match is not None
            cubes = at_score.trials_of_position(match)
            whole = RolloutJob(position.row * len(cubes.cubes), r, s, match=cubes)
        else:
            whole = RolloutJob(position.row, r, s, owner=cube_owner)
        return RolloutPlan(position, s, None, whole, match=match)
    d = check_dice(dice)
    ranked = Bot(r, s.level).hint(position, d, match_state=match_state if match is not None else None, met=met)
    if not ranked:
        raise InvalidArgument(f"no legal play for {d[0]}{d[1]}: the turn passes")
    if plays is not None:
        wanted = set(plays)
        missing = wanted - {str(rm.move) for rm in ranked}
        if missing:
            raise InvalidArgument(f"not a legal play for {d[0]}{d[1]}: {', '.join(sorted(missing))}")
        ranked = [rm for rm in ranked if str(rm.move) in wanted]
    chosen, rows, children = [], [], []
    for rm in ranked[:top] if top is not None else ranked:
        child = position.play(rm.move)
        exact = _exact_play(child, rm.move)
        chosen.append((rm.move, exact))
        children.append(child.row)
        if exact is None:
            rows.append(child.row)
    trials = None
    if points and match is not None:
        trials = at_score.trials_of_points(match, r, len(rows), after_play=True)
    elif cubeful_match and match is not None:
        trials = at_score.trials_of_plays(match, len(rows))
    job = RolloutJob(b"".join(rows), r, s, owner=-cube_owner, flip=True, match=trials) if rows else None
    return RolloutPlan(position, s, d, job, chosen, match, children)


def rollout(position: Position, dice: DiceLike | None = None, *, settings: RolloutSettings | None = None,
            top: int | None = None, cube_owner: int = 0, plays: list[str] | None = None,
            match_state: MatchState | None = None, met: MatchEquityTable | None = None, workers: int = 1,
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
    match_state : tawla.formats.gnubg.MatchState, optional
        A match (length > 0) to value the rollout in (:mod:`tawla.rollout.at_score`): in
        backgammon with ``cubeful`` the trials make their cube decisions at the score (the
        cubeful equity is then EMG at the score), else the score is applied to the trials'
        probabilities; each play is ranked by its value at the score, a position gets its cube
        decision at the score (backgammon) and match-winning chance. ``cube_owner`` is then
        unused (the state's cube is). In the Tawla rulesets each trial is worth the table's
        chance after its points; Tawla 31's play to their games' ends (no luck adjustment, no
        bear-off database stop).
    met : tawla.met.MatchEquityTable, optional
        Backgammon's table (default Kazaross-XG2).
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
        of ``plays`` that is no legal play, a match state the model cannot hold
        (:func:`tawla.rollout.at_score.rollout_score`), a truncated Tawla 31 rollout at a score.
    tawla.errors.FormatError
        ``resume`` is not a saved rollout of this job.
    """
    plan = plan_rollout(position, dice, settings=settings, top=top, cube_owner=cube_owner, plays=plays,
                        match_state=match_state, met=met, **options)
    run = None
    if plan.job is not None:
        run = RolloutRun(plan.job, save=save, resume=resume).run(workers=workers, scheduler=scheduler,
                                                                 progress=progress)
    return plan.result(run)


def _level_description(r, level: str) -> str:
    return {"net0": f"net0, the shipped {r.name} network at 0 ply", "net1": f"net1, the shipped {r.name} network at 1 ply",
            "ply0": "ply0, the heuristic model at 0 ply"}[level]


def _result(run: RolloutRun, k: int) -> RolloutResult:
    return RolloutResult.of(run.tallies[k], checkers_left=run.job.ruleset.scoring == Scoring.CHECKERS_LEFT,
                            cubeful=run.job.settings.cubeful or run.job.match is not None)
