"""Rendering the analysis: readable tables (rich) and JSON.

Totals are read from the columns of :class:`~tawla.analysis.report_data.Plays`, so a report on
millions of plays builds no per-play objects (except the JSON output, which lists them all with
the IDs of their positions, :mod:`tawla.analysis.ids`). Money sessions also get their cube
errors (:mod:`tawla.analysis.cube`): per player counts and totals, checker and cube errors
separately and combined.
"""

from __future__ import annotations

import io
import json
import sys
from dataclasses import dataclass

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from .cube import KINDS, player_totals
from .rollouts import decisive_equity

__all__ = ["rollout_lines", "render_text", "text_console", "TextStyle", "match_text", "to_json", "match_json", "summary", "ids_text", "plural"]


def summary(reports) -> dict:
    """Totals over the reports: files, games, plays, forced plays, errors.

    Parameters
    ----------
    reports : list of MatchReport

    Returns
    -------
    dict
        ``mean_equity_loss`` in points per play, rounded to 4 decimals; ``cube_decisions``
        (the analysed cube decisions, money and match), ``cube_errors`` (their count per
        kind of :data:`tawla.analysis.cube.KINDS`) and ``cube_error`` (their sum in points
        per unit of cube, rounded to 4 decimals).
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
        "cube_decisions": sum(sum(g.cube_counts["decisions"]) for g in games if g.cube_counts is not None),
        "cube_errors": {k: sum(1 for g in games for e in g.cube_errors if e["kind"] == k) for k in KINDS},
        "cube_error": round(sum(e["error"] for g in games for e in g.cube_errors), 4),
    }


def players_across(reports) -> list[dict]:
    """Per player name and ruleset over every file of a run (units differ between rulesets):
    the sums of :func:`tawla.analysis.cube.player_totals` (plays, unforced plays, errors, cube
    decisions) with the rates worked out again from them (``checker_rate`` per unforced play,
    ``cube_rate`` per close cube decision, ``overall_rate`` per both; points per unit of cube,
    x 1000 mEMG), ordered by name and ruleset; ``files`` counts the files."""
    out: dict[tuple[str, str], dict] = {}
    for rep in reports:
        if rep.error:
            continue
        for t in player_totals(rep):
            acc = out.setdefault((t["name"], rep.ruleset), {"name": t["name"], "ruleset": rep.ruleset, "files": 0,
                                                            "cube_analysed": False})
            acc["files"] += 1
            acc["cube_analysed"] = acc["cube_analysed"] or bool(t.get("cube_analysed"))
            for k, v in t.items():
                if k in ("name", "cube_analysed") or "_rate" in k or isinstance(v, bool) or v is None:
                    continue
                if isinstance(v, (int, float)):
                    acc[k] = acc.get(k, 0) + v
    for acc in out.values():
        unforced, close = acc.get("unforced", 0), acc.get("close_cube", 0)
        acc["checker_rate"] = acc.get("checker_error", 0.0) / unforced if unforced else None
        at_score = acc.get("unforced_mwc", 0)
        acc["checker_rate_mwc"] = acc["checker_error_mwc"] / at_score if at_score and "checker_error_mwc" in acc else None
        acc["cube_rate"] = acc.get("cube_error", 0.0) / close if close else None
        acc["overall_rate"] = acc.get("overall_error", 0.0) / (unforced + close) if unforced + close else None
    return [out[k] for k in sorted(out)]


_SPLICE = "\x00matches\x00"
"""Where :func:`to_json` puts the matches' JSON texts into the rest of the document."""


def match_json(rep, *, keep: bool = False) -> str:
    """One match of :func:`to_json` as JSON text (``indent=1`` from the top): the report's
    :meth:`~tawla.analysis.report_data.MatchReport.to_dict` with ``player_stats``. With
    ``keep`` (where the report is analysed) the text is kept with the report (``json_text``)
    and used from then on, so a worker process carries it back; a report changed afterwards
    drops it."""
    if rep.json_text is not None:
        return rep.json_text
    text = json.dumps(dict(rep.to_dict(), player_stats=player_totals(rep)), indent=1)
    if keep:
        rep.json_text = text
    return text


def to_json(reports, evaluator) -> str:
    """The whole analysis as JSON (one object: evaluator, summary, matches).

    Each match is :meth:`MatchReport.to_dict` (its games with their ``cube_decisions``,
    ``cube_errors``, ``cube_judged`` and ``cube_counts``) with ``player_stats``: per record
    player the dict of :func:`tawla.analysis.cube.player_totals` (checker, cube and overall
    errors in points, rates in points per decision; x 1000 for mEMG); ``players`` is the same
    per player name over every file (:func:`players_across`). The text is that of one
    ``json.dumps(..., indent=1)`` of the whole; each match's part is :func:`match_json`.
    """
    head = json.dumps({
        "evaluator": {"name": evaluator.name, "description": evaluator.description} if evaluator else None,
        "summary": summary(reports),
        "players": players_across(reports),
        "matches": _SPLICE,
    }, indent=1)
    before, mark, after = head.rpartition(json.dumps(_SPLICE))
    assert mark, "the matches' place is in the document"
    if not reports:
        return before + "[]" + after
    parts = ",\n".join("  " + match_json(r).replace("\n", "\n  ") for r in reports)
    return before + "[\n" + parts + "\n ]" + after


def _player_rows(rep):
    """Per player: name, plays, forced, best, mean loss per unforced play and, in a match, the
    mean match-winning chance lost (None elsewhere)."""
    for player in (0, 1):
        plays = sum(g.decisions.count(player) for g in rep.games)
        forced = sum(g.decisions.count_forced(player) for g in rep.games)
        best = sum(g.decisions.count_best(player) for g in rep.games)
        loss = sum(g.decisions.loss_total(player, unforced=True) for g in rep.games)
        lost = [x for x in (g.decisions.mwc_loss_total(player, unforced=True) for g in rep.games) if x is not None]
        at_score = sum(g.decisions.count_mwc(player, unforced=True) for g in rep.games)
        unforced = plays - forced
        mwc = (sum(lost) / at_score if at_score else 0.0) if lost else None
        yield rep.player_name(player), plays, forced, best, loss / unforced if unforced else 0.0, mwc


def _worst(rep, k: int) -> list:
    """The k unforced plays of a report with the largest equity loss (ties: file order), each as
    (Decision, game report, index in its game)."""
    cands = [(g.decisions[i], g, i) for g in rep.games for i in g.decisions.worst_indices(k)]
    return sorted(cands, key=lambda c: -c[0].equity_loss)[:k]


def _milli(rate) -> str:
    return "—" if rate is None else f"{1000 * rate:.1f}"


def _cube_table(rep) -> Table:
    """One column per player: cube decisions (close ones), each kind of cube error (count and
    mEMG in all), the cube, checker and overall error rates (mEMG per decision)."""
    stats = player_totals(rep)
    t = Table(title="cube decisions (Janowski's model; in a match at its score)")
    t.add_column("")
    for s in stats:
        t.add_column(s["name"], justify="right")
    rows = [("decisions (close)", [f"{s['cube_decisions']} ({s['close_cube']})" for s in stats])]
    rows += [(f"{k.replace('_', ' ')}s (mEMG)", [f"{s[k + 's']} ({1000 * s[k + '_error']:.0f})" for s in stats])
             for k in KINDS]
    rows += [(f"{what} rate (mEMG)", [_milli(s[key]) for s in stats])
             for what, key in (("cube", "cube_rate"), ("checker", "checker_rate"), ("overall", "overall_rate"))]
    for label, cells in rows:
        t.add_row(label, *cells)
    return t


def _worst_cube(rep, k: int) -> list:
    """The k largest cube errors of a report (ties: file order), each as (game number, error)."""
    cands = [(g.number, e) for g in rep.games for e in g.cube_errors]
    return sorted(cands, key=lambda c: -c[1]["error"])[:k]


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


def plural(n: int, word: str) -> str:
    """``1 file``, ``2 files``: a count and its noun."""
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _heading(rep) -> str:
    kind = f"{rep.match_length}-point match" if rep.match_length else "money session"
    return f"{rep.path}  ({rep.ruleset or '?'}, {kind}, {plural(len(rep.games), 'game')})"


def _totals_line(s: dict, evaluated: bool) -> str:
    files = plural(s["files"], "file") + (f" ({s['unreadable_files']} unreadable)" if s["unreadable_files"] else "")
    line = (f"{files}, {plural(s['games'], 'game')} ({s['games_replayed_clean']} replayed clean, "
            f"{s['games_with_errors']} with illegal plays), {plural(s['plays'], 'play')} "
            f"({s['forced_plays']} forced), {plural(s['cube_actions'], 'cube action')}")
    line += f", mean equity loss {s['mean_equity_loss']:.3f}" if evaluated else ""
    if s["cube_decisions"]:
        errors = ", ".join(f"{n} {k.replace('_', ' ')}s" for k, n in s["cube_errors"].items())
        line += f"; {plural(s['cube_decisions'], 'cube decision')} judged: {errors}"
    return line


def rollout_lines(rep) -> list[str]:
    """The rollouts of a report's worst plays (:func:`tawla.analysis.rollouts.rollout_worst`) as
    text: per play, each rolled-out play's equity with its standard error, and the loss by
    rollout against the evaluator's."""
    out = []
    for e in rep.rollouts:
        head = (f"  rollout: game {e['game']} move {e['move_number']} {e['player']} {e['dice'][0]}{e['dice'][1]}: "
                f"played {e['played'] or '(pass)'}, best {e['best']}")
        if "error" in e:
            out.append(f"{head}: not rolled out ({e['error']})")
            continue
        kind = e["equity_kind"]
        out.append(f"{head}: loss {e['rollout_loss']:.3f} ± {e['rollout_loss_se']:.3f} by rollout ({kind}, "
                   f"{e['trials']} trials) against {e['equity_loss']:.3f} by the evaluator")
        for p in e["plays"]:
            eq, se = decisive_equity(p, kind)
            probs = " ".join(f"{x:.3f}" for x in p["probabilities"])
            out.append(f"    {p['play']:24s} {eq:+.3f} ± {se:.3f}  (win, wg, wbg, lg, lbg: {probs})")
    return out


def render_text(reports, evaluator, *, worst: int = 3, console: Console | None = None,
                parts: bool | None = None) -> None:
    """Print the readable report: a header, one table per file, errors, totals.

    A player whose name the record leaves empty is shown as ``player 1`` (left column) /
    ``player 2``. With no evaluator and no ranked play, the report holds no evaluation: no ``best`` or ``mean
    loss`` column, no worst plays, no mean equity loss. A file with an analysed money session
    gets a cube table (:func:`tawla.analysis.cube.player_totals`) and its ``worst`` largest
    cube errors with their IDs. The default console wraps nothing
    when standard output is not a terminal (a path in a note stays on one line). With
    ``parts`` (default: when no ``console`` is given) a file's part rendered already where it
    was analysed, for this console and ``worst`` (:func:`match_text`), is written to the
    console's file as it is (a caller's console may be capturing or recording: its parts are
    rendered here unless ``parts`` is True).
    """
    use_parts = console is None if parts is None else parts
    con = console or text_console()
    evaluated = evaluator is not None or any(g.decisions.ranked for r in reports for g in r.games)
    if evaluator is not None:
        con.print(f"[bold]Evaluator:[/bold] {evaluator.name} — {evaluator.description}")
        con.print("Equity loss = cubeless points lost against the evaluator's best play; in matches, normalised "
                  "equity (EMG) at the score (backgammon: cubeful, the opponent's cube action included; the Tawla "
                  "rulesets: +1 a single game won) and the match-winning chance lost.\n")
    style = TextStyle.of(con, worst, evaluated)
    for rep in reports:
        if use_parts and rep.text is not None and rep.text[0] == style:
            con.file.write(rep.text[1])
        else:
            _file_section(con, rep, evaluated, worst)
    con.print(f"[bold]{escape(_totals_line(summary(reports), evaluated))}[/bold]", highlight=False)


def _file_section(con: Console, rep, evaluated: bool, worst: int) -> None:
    """One file's part of :func:`render_text`."""
    if rep.error:
        con.print(f"[red]{escape(str(rep.path))}  unreadable: {escape(str(rep.error))}[/red]\n", highlight=False)
        return
    con.print(f"[bold]{escape(_heading(rep))}[/bold]", highlight=False)
    t = Table()
    columns = ("player", "plays", "forced", "best", "mean loss") if evaluated else ("player", "plays", "forced")
    for col in columns:
        t.add_column(col, justify="left" if col == "player" else "right")
    for name, plays, forced, best, loss, mwc in _player_rows(rep):
        cells = (name, str(plays), str(forced), str(best),
                 f"{loss:.3f}" + (f" ({100 * mwc:.2f}% MWC)" if mwc is not None else ""))
        t.add_row(*cells[:len(columns)])
    con.print(t)
    for d, g, i in _worst(rep, worst) if evaluated else ():
        if d.equity_loss > 0:
            con.print(f"  worst: game {d.game} move {d.move_number} {rep.player_name(d.player)}"
                      f" {d.dice[0]}{d.dice[1]}: {d.move or '(pass)'}  best {d.best}  loss {d.equity_loss:.3f}"
                      + (f" ({100 * d.mwc_loss:.2f}% MWC)" if d.mwc_loss is not None else ""),
                      markup=False, highlight=False)
            ids = ids_text(rep.ids(g, i))
            if ids:
                con.print(f"    {ids}", markup=False, emoji=False, highlight=False, soft_wrap=True)
    for line in rollout_lines(rep):
        con.print(line, markup=False, highlight=False)
    if any(g.cube_counts is not None for g in rep.games):
        con.print(_cube_table(rep))
        for number, e in _worst_cube(rep, worst):
            con.print(f"  cube: game {number} move {e['move_number']} {rep.player_name(e['player'])}: "
                      f"{e['kind'].replace('_', ' ')} ({e['proper']}), cube {e['cube']}, "
                      f"error {1000 * e['error']:.0f} mEMG", markup=False, highlight=False)
            ids = ids_text(e)
            if ids:
                con.print(f"    {ids}", markup=False, emoji=False, highlight=False, soft_wrap=True)
    for g in rep.games:
        if g.error:
            con.print(f"  [red]illegal:[/red] {escape(str(g.error))}", markup=True, highlight=False)
        for n in g.notes:
            con.print(f"  note: game {g.number}: {n}", markup=False, highlight=False)
    con.print()


def text_console() -> Console:
    """The console of :func:`render_text` by default: standard output, wrapping nothing when
    it is not a terminal."""
    return Console(soft_wrap=not sys.stdout.isatty())


@dataclass(frozen=True)
class TextStyle:
    """What a file's part of the text report depends on besides the report: the console's
    width, colours, terminal and wrapping, ``worst`` and whether plays are evaluated (it
    pickles, for the workers that render the parts)."""

    width: int
    encoding: str
    color_system: str | None
    terminal: bool
    soft_wrap: bool
    no_color: bool
    worst: int
    evaluated: bool

    @classmethod
    def of(cls, con: Console, worst: int, evaluated: bool) -> "TextStyle":
        return cls(con.width, con.encoding, con.color_system, con.is_terminal, con.soft_wrap, con.no_color, worst,
                   evaluated)

    def console(self, file) -> Console:
        """A console that renders as the one this style was taken from (its encoding too:
        ASCII boxes where it is not UTF-8), into ``file``."""
        return Console(file=file, width=self.width, color_system=self.color_system,  # type: ignore[arg-type]
                       force_terminal=self.terminal, soft_wrap=self.soft_wrap, no_color=self.no_color,
                       legacy_windows=False)


class _TextFile(io.StringIO):
    """Text in memory that says it will be written in ``encoding`` (what rich draws with)."""

    def __init__(self, encoding: str) -> None:
        super().__init__()
        self._encoding = encoding

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return self._encoding


def match_text(rep, style: TextStyle) -> str:
    """A file's part of :func:`render_text` in ``style``, rendered once and kept with the
    report (``text``: a report analysed in a worker process carries it back)."""
    if rep.text is None or rep.text[0] != style:
        out = _TextFile(style.encoding)
        _file_section(style.console(out), rep, style.evaluated, style.worst)
        rep.text = (style, out.getvalue())
    return rep.text[1]
