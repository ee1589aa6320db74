"""Rendering the analysis: readable tables (rich) and JSON."""

from __future__ import annotations

import json
import statistics

from rich.console import Console
from rich.table import Table

__all__ = ["render_text", "to_json", "summary"]


def summary(reports) -> dict:
    """Totals over the reports: files, games, plays, forced plays, errors."""
    games = [g for r in reports for g in r.games]
    decisions = [d for g in games for d in g.decisions]
    return {
        "files": len(reports),
        "unreadable_files": sum(1 for r in reports if r.error),
        "games": len(games),
        "games_replayed_clean": sum(1 for g in games if g.error is None),
        "games_with_errors": sum(1 for g in games if g.error is not None),
        "plays": len(decisions),
        "forced_plays": sum(1 for d in decisions if d.forced),
        "cube_actions": sum(g.cube_actions for g in games),
        "notes": sum(len(g.notes) for g in games),
        "mean_equity_loss": round(statistics.fmean([d.equity_loss for d in decisions]), 4) if decisions else 0.0,
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
        ds = rep.decisions(player)
        unforced = [d for d in ds if not d.forced]
        loss = statistics.fmean([d.equity_loss for d in unforced]) if unforced else 0.0
        yield (rep.players[player] or f"player {player + 1}", len(ds), len(ds) - len(unforced),
               sum(1 for d in unforced if d.rank == 1), loss)


def render_text(reports, evaluator, *, worst: int = 3, console: Console | None = None) -> None:
    """Print the readable report: a header, one table per file, errors, totals."""
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
        worst_ds = sorted((d for d in rep.decisions() if not d.forced), key=lambda d: -d.equity_loss)[:worst]
        for d in worst_ds:
            if d.equity_loss > 0:
                con.print(f"  worst: game {d.game} move {d.move_number} {rep.players[d.player] or d.player + 1}"
                          f" {d.dice[0]}{d.dice[1]}: {d.move or '(pass)'}  best {d.best}  loss {d.equity_loss:.3f}")
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
