"""The analysis settles its doubts by rolling out: each player's largest errors, the play made and
the best play rolled out on the same dice (:func:`rollout_worst`), the results kept on the
report (:attr:`tawla.analysis.report_data.MatchReport.rollouts`) for the text, JSON and HTML reports.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from ..bots.score import match_score
from ..errors import InvalidArgument, InvalidPosition, TawlaError
from ..formats.gnubg import MatchState
from ..met import variant_met
from ..position import Position
from ..rollout import RolloutSettings, rollout
from ..rules import get_ruleset
from .report_data import MatchReport

__all__ = ["rollout_worst", "decisive_equity", "AT_SCORE"]


AT_SCORE = "EMG at the score"
"""The ``equity_kind`` of a match's rollouts: normalised equity at the score (backgammon:
cubeful; the Tawla rulesets: +1 a single game won), as the analysis ranks match plays."""


def decisive_equity(play: dict, kind: str) -> tuple[float, float]:
    """(equity, standard error) of a rolled-out play (its JSON) by the equity that decided:
    ``kind`` ``"cubeful"``, ``"cubeless"`` or :data:`AT_SCORE` (``emg``, ``emg_se``; the
    error NaN where the trials did not measure it)."""
    if kind == AT_SCORE:
        return play["emg"], play["emg_se"]
    if kind == "cubeful":
        return play["cubeful_equity"], play["cubeful_equity_se"]
    return play["equity"], play["equity_se"]


def _state(rep: MatchReport, g, i: int) -> MatchState | None:
    """The match state of the i-th play of game ``g`` (None in a money session, or where the
    match model cannot hold the recorded score)."""
    if not rep.match_length:
        return None
    d = g.decisions[i]
    value, owner = g.decisions.cube(i)
    try:
        state = MatchState(match_length=rep.match_length, score=tuple(g.score), player_on_roll=d.player,
                           turn=d.player, cube_value=value, cube_owner=owner, crawford=g.crawford, jacoby=False)
        match_score(state, get_ruleset(rep.ruleset))
    except TawlaError:
        return None
    return state


def _emg(p, ruleset, state: MatchState) -> tuple[float, float]:
    """A rolled-out play's value at the score as EMG, and its standard error (NaN unknown)."""
    se = p.score_se if p.score_se is not None else math.nan
    if ruleset.cube:
        return p.score_value, se
    me = state.player_on_roll
    away, opp_away = state.match_length - state.score[me], state.match_length - state.score[1 - me]
    t = variant_met(ruleset.name)
    win, lose = t.after(away, opp_away, 1, 0, False), t.after(away, opp_away, 0, 1, False)
    return (p.score_value + 1 - win - lose) / (win - lose), se / (win - lose)  # 2 MWC - 1 as EMG


def _worst_of(rep: MatchReport, player: int, n: int) -> list:
    """(loss, game, index) of one player's n unforced plays with the largest equity loss."""
    cands = [(g.decisions[i].equity_loss, g, i) for g in rep.games
             for i in g.decisions.worst_indices(len(g.decisions)) if g.decisions.player(i) == player]
    cands = [c for c in cands if c[0] > 0]
    cands.sort(key=lambda c: -c[0])
    return cands[:n]


def rollout_worst(reports: list[MatchReport], n: int, settings: RolloutSettings, *, workers: int = 1,
                  scheduler: str | None = None, progress: Callable[[int, int], None] | None = None) -> None:
    """Roll out each player's ``n`` largest errors of every report: the play made and the
    evaluator's best play, on the same dice, from the position before the play (the cube as it
    was; money sessions cubeful, matches at their score, :data:`AT_SCORE`, the units of the
    evaluator's loss there).
    Each report's :attr:`~tawla.analysis.report_data.MatchReport.rollouts` gets one entry a play:
    ``player``, ``game``, ``move_number``, ``dice``, ``position`` (tawla ID), ``played``,
    ``best``, ``equity_loss`` (the evaluator's), ``plays`` (the two rollouts, best first,
    as :meth:`tawla.rollout.PlayRollout.to_json`), ``rollout_loss`` and its standard error
    ``rollout_loss_se`` (the two errors combined as if independent: an upper bound, the plays
    sharing their dice). ``progress(done, total)`` after each.
    """
    todo = [(rep, p, item) for rep in reports if rep.games for p in (0, 1) for item in _worst_of(rep, p, n)]
    for k, (rep, player, (loss, g, i)) in enumerate(todo, 1):
        d = g.decisions[i]
        tid = g.decisions.tawla_id(i, rep.ruleset)
        entry = {"player": rep.player_name(player), "game": d.game, "move_number": d.move_number,
                 "dice": list(d.dice), "position": tid, "played": d.move, "best": d.best, "equity_loss": loss}
        try:
            r = get_ruleset(rep.ruleset)
            if tid is None:
                raise InvalidPosition("the play was stored without its board")
            _, owner = g.decisions.cube(i)
            state = _state(rep, g, i)
            if rep.match_length and state is None:
                raise InvalidArgument("the recorded score is not one the match model can hold")
            rel = 0 if owner is None or rep.match_length else (1 if owner == player else -1)
            ro = rollout(Position.from_id(tid, r), tuple(d.dice), settings=settings, plays=[d.move, d.best],
                         cube_owner=rel, match_state=state, workers=workers, scheduler=scheduler)
        except TawlaError as e:
            entry["error"] = f"{type(e).__name__}: {e}"
            rep.rollouts.append(entry)
            rep.json_text = rep.text = None  # encoded and rendered before its rollouts
            continue
        by = {p.to_json()["play"]: p for p in ro.plays}
        entry["plays"] = [p.to_json() for p in ro.plays]
        if state is not None:
            (b, bse), (m, mse) = _emg(by[d.best], r, state), _emg(by[d.move], r, state)
            for p, (v, se) in zip(entry["plays"], (_emg(p, r, state) for p in ro.plays)):
                p.update(emg=v, emg_se=se)
            entry["equity_kind"] = AT_SCORE
            entry["rollout_loss"], entry["rollout_loss_se"] = b - m, math.hypot(bse, mse)
        else:
            key = "cubeful_equity" if ro.settings.cubeful else "equity"
            best, made = by[d.best].result, by[d.move].result
            entry["equity_kind"] = "cubeful" if ro.settings.cubeful else "cubeless"
            entry["rollout_loss"] = getattr(best, key) - getattr(made, key)
            entry["rollout_loss_se"] = math.hypot(getattr(best, key + "_se"), getattr(made, key + "_se"))
        entry["trials"] = min(by[d.best].result.trials, by[d.move].result.trials)
        rep.rollouts.append(entry)
        if progress is not None:
            progress(k, len(todo))
