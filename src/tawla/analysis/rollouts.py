"""The analysis settles its doubts by rolling out: each player's largest errors, the play made and
the best play rolled out on the same dice (:func:`rollout_worst`), the results kept on the
report (:attr:`tawla.analysis.results.MatchReport.rollouts`) for the text, JSON and HTML reports.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from ..errors import InvalidPosition, TawlaError
from ..position import Position
from ..rollout import RolloutSettings, rollout
from ..rules import get_ruleset
from .results import MatchReport

__all__ = ["rollout_worst", "decisive_equity"]


def decisive_equity(play: dict, kind: str) -> tuple[float, float]:
    """(equity, standard error) of a rolled-out play (its JSON) by the equity that decided:
    ``kind`` ``"cubeful"`` or ``"cubeless"``."""
    if kind == "cubeful":
        return play["cubeful_equity"], play["cubeful_equity_se"]
    return play["equity"], play["equity_se"]


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
    was; money sessions cubeful, matches cubeless since rollouts at a score are not done yet).
    Each report's :attr:`~tawla.analysis.results.MatchReport.rollouts` gets one entry a play:
    ``player``, ``game``, ``move_number``, ``dice``, ``position`` (tawla ID), ``played``,
    ``best``, ``equity_loss`` (the evaluator's), ``plays`` (the two rollouts, best first,
    as :meth:`tawla.rollout.PlayRollout.to_json`), ``rollout_loss`` and its standard error
    ``rollout_loss_se`` (the two errors combined as if independent: an upper bound, the plays
    sharing their dice). ``progress(done, total)`` after each.
    """
    todo = [(rep, p, item) for rep in reports if rep.games for p in (0, 1) for item in _worst_of(rep, p, n)]
    for k, (rep, player, (loss, g, i)) in enumerate(todo, 1):
        d = g.decisions[i]
        tid = g.decisions.tawla_id(i)
        entry = {"player": rep.player_name(player), "game": d.game, "move_number": d.move_number,
                 "dice": list(d.dice), "position": tid, "played": d.move, "best": d.best, "equity_loss": loss}
        try:
            r = get_ruleset(rep.ruleset)
            if tid is None:
                raise InvalidPosition("the play was stored without its board")
            _, owner = g.decisions.cube(i)
            s = settings if rep.match_length == 0 else RolloutSettings(**{**settings.as_dict(), "cubeful": False})
            rel = 0 if owner is None or rep.match_length else (1 if owner == player else -1)
            ro = rollout(Position.from_id(tid, r), tuple(d.dice), settings=s, plays=[d.move, d.best],
                         cube_owner=rel, workers=workers, scheduler=scheduler)
        except TawlaError as e:
            entry["error"] = f"{type(e).__name__}: {e}"
            rep.rollouts.append(entry)
            continue
        by = {p.to_json()["play"]: p for p in ro.plays}
        key = "cubeful_equity" if s.cubeful else "equity"
        best, made = by[d.best].result, by[d.move].result
        entry["plays"] = [p.to_json() for p in ro.plays]
        entry["equity_kind"] = "cubeful" if s.cubeful else "cubeless"
        entry["rollout_loss"] = getattr(best, key) - getattr(made, key)
        entry["rollout_loss_se"] = math.hypot(getattr(best, key + "_se"), getattr(made, key + "_se"))
        entry["trials"] = min(best.trials, made.trials)
        rep.rollouts.append(entry)
        if progress is not None:
            progress(k, len(todo))
