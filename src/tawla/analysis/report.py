"""Rendering the analysis: readable tables (rich) and JSON.

Totals are read from the columns of :class:`~tawla.analysis.results.Plays`, so a report on
millions of plays builds no per-play objects (except the JSON output, which lists them all with
the IDs of their positions, :mod:`tawla.analysis.ids`).
"""

from __future__ import annotations

import json

from rich.console import Console
from rich.table import Table

__all__ = ["render_text", "to_json", "summary", "ids_text"]


def summary(reports) -> dict:
    """Totals over the reports: files, games, plays, forced plays, errors.

    Parameters
    ----------
    reports : list of MatchReport

    Returns
    -------
    dict
        ``mean_equity_loss`` in points per play, rounded to 4 decimals.
    """
    games = [g for r in reports for g in r.games]
    plays = sum(len(g.decisions) for g in games)
    loss = sum(g.decisions.loss_total() for g in games)
    return {
        "files": len(reports),
        "unreadable_files": sum(1 for r in reports if r.error),
        "games": len(games),
        "games_replayed_clean": sum(1 for g in games if g.error is None),
        "games_with_errors": sum(1 for g in games if g.error is not None),
        "plays": plays,
        "forced_plays": sum(g.decisions.count_forced() for g in games),
        "cube_actions": sum(g.cube_actions for g in games),
        "notes": sum(len(g.notes) for g in games),
        "mean_equity_loss": round(loss / plays, 4) if plays else 0.0,
    }


def to_json(reports, evaluator) -> str:
    """The whole analysis as JSON (one object: evaluator, summary, matches)."""
    return json.dumps({
        "evaluator": {"name": evaluator.name, "description": evaluator.description} if evaluator else None,
        "summary": summary(reports),
        "matches": [r.to_dict() for r in reports],
    }, indent=1)


def _player_rows(rep):
    for player in (0, 1):
        plays = sum(g.decisions.count(player) for g in rep.games)
        forced = sum(g.decisions.count_forced(player) for g in rep.games)
        best = sum(g.decisions.count_best(player) for g in rep.games)
        loss = sum(g.decisions.loss_total(player, unforced=True) for g in rep.games)
        unforced = plays - forced
        yield rep.player_name(player), plays, forced, best, loss / unforced if unforced else 0.0


def _worst(rep, k: int) -> list:
    """The k unforced plays of a report with the largest equity loss (ties: file order), each as
    (Decision, game report, index in its game)."""
    cands = [(g.decisions[i], g, i) for g in rep.games for i in g.decisions.worst_indices(k)]
    return sorted(cands, key=lambda c: -c[0].equity_loss)[:k]


def ids_text(ids: dict) -> str:
    """The IDs of a play as one line: gnubg's Position and Match IDs and the XGID, or the tawla ID."""
    if "tawla_id" in ids:
        return f"tawla ID {ids['tawla_id']}"
    parts = [f"Position ID {ids['position_id']}"] if ids.get("position_id") else []
    if ids.get("match_id"):
        parts.append(f"Match ID {ids['match_id']}")
    if ids.get("xgid"):
        parts.append(ids["xgid"])
    return "  ".join(parts)


def render_text(reports, evaluator, *, worst: int = 3, console: Console | None = None) -> None:
    """Print the readable report: a header, one table per file, errors, totals.

    A player whose name the record leaves empty is shown as ``player 1`` / ``player 2``.
    """
    con = console or Console(width=110)
    if evaluator is not None:
        con.print(f"[bold]Evaluator:[/bold] {evaluator.name} — {evaluator.description}")
        con.print("Equity loss = cubeless points lost against the evaluator's best play.\n")
    for rep in reports:
        title = f"{rep.path}  ({rep.ruleset or '?'}, " + (f"{rep.match_length}-point match" if rep.match_length
                                                         else "money session") + f", {len(rep.games)} games)"
        if rep.error:
            con.print(f"[red]{title}\n  unreadable: {rep.error}[/red]\n")
            continue
        con.print(f"[bold]{title}[/bold]", highlight=False)
        t = Table()
        for col in ("player", "plays", "forced", "best", "mean loss"):
            t.add_column(col, justify="left" if col == "player" else "right")
        for name, plays, forced, best, loss in _player_rows(rep):
            t.add_row(name, str(plays), str(forced), str(best), f"{loss:.3f}")
        con.print(t)
        for d, g, i in _worst(rep, worst):
            if d.equity_loss > 0:
                con.print(f"  worst: game {d.game} move {d.move_number} {rep.player_name(d.player)}"
                          f" {d.dice[0]}{d.dice[1]}: {d.move or '(pass)'}  best {d.best}  loss {d.equity_loss:.3f}")
                ids = ids_text(rep.ids(g, i))
                if ids:
                    con.print(f"    {ids}", markup=False, emoji=False, highlight=False, soft_wrap=True)
        for g in rep.games:
            if g.error:
                con.print(f"  [red]illegal:[/red] {g.error}", markup=True, highlight=False)
            for n in g.notes:
                con.print(f"  note: game {g.number}: {n}", highlight=False)
        con.print()
    s = summary(reports)
    con.print(f"[bold]{s['files']} files, {s['games']} games ({s['games_replayed_clean']} replayed clean, "
              f"{s['games_with_errors']} with illegal plays), {s['plays']} plays ({s['forced_plays']} forced), "
              f"{s['cube_actions']} cube actions, mean equity loss {s['mean_equity_loss']:.3f}[/bold]")
