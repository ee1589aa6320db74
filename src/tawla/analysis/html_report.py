"""The analysis as one self-contained XHTML page: per player error rates and ratings, the
worst plays with board pictures (:mod:`tawla.svg`) and their position IDs.

The page is built from the plain results (:class:`~tawla.analysis.report_data.MatchReport`), so it
is the same whatever split of the work made them. Error rates follow GNU Backgammon's
convention: the equity lost per unforced move, shown in thousandths of a point (gnubg's
"mEMG" for a cubeless money game), and the rating of gnubg's table (``analysis.c``:
Supernatural below 2, World class below 5, Expert below 8, Advanced below 12, Intermediate
below 18, Casual player below 26, Beginner below 35, Awful! from 35). The equity here is
cubeless and the rating of the error rate is of checker plays only: gnubg's *chequer play*
rating.

The cube decisions are analysed too, money and match (:mod:`tawla.analysis.cube`: every turn
where the player on roll could double, on the same evaluator's probabilities): each player's
cube decisions, cube error rate (mEMG per close cube decision) and overall rate (checker and
cube errors together per unforced play and close cube decision, rated on the same bands, as
gnubg's overall rating), and a table of every missed double, wrong double, wrong take and wrong
drop with its error and position IDs.

Cube decisions (the record's doubles and their answers) are shown on the board before the
doubler's roll and checked against the engine's money-game cube model
(:meth:`tawla.Bot.cube_action`: a Janowski model on the cubeless pre-roll probabilities),
disagreements first; the model knows no match score, so it is a reference, not a rating.

A game of Tawla 31 (federation) scores up to 15 points (RULES.md §5.7): its losses are not
on the scale of gnubg's bands, so its rating is "N/A" (gnubg's word for no rating).
"""

from __future__ import annotations

import math

from ..errors import FormatError, InvalidArgument, TawlaError, quote
from ..notation import parse_move
from ..position import Position
from ..rules import get_ruleset, Scoring
from .. import svg
from ..bots import Bot
from ..evaluation.net import shipped_net
from .cube import KINDS, player_totals
from .report import ids_text, plural, summary
from .rollouts import decisive_equity

__all__ = ["RATING_BANDS", "rating", "player_stats", "worst_plays", "cube_checks", "render_html", "write_html"]

RATING_BANDS = ((0.002, "Supernatural"), (0.005, "World class"), (0.008, "Expert"), (0.012, "Advanced"),
                (0.018, "Intermediate"), (0.026, "Casual player"), (0.035, "Beginner"), (math.inf, "Awful!"))
"""GNU Backgammon's rating bands: (upper bound of the error per unforced move in points, name)."""

PLAYED_COLOR, BEST_COLOR = "#c62828", "#2e7d32"
"""Arrow colours of the play made and of the best play."""


def rating(error_per_move: float | None) -> str:
    """The gnubg rating of an error rate (points per unforced move, >= 0); "N/A" for None.

    Raises
    ------
    tawla.errors.InvalidArgument
        Not a finite number >= 0 (NaN, infinite, negative, not a number).
    """
    if error_per_move is None:
        return "N/A"
    if (isinstance(error_per_move, bool) or not isinstance(error_per_move, (int, float))
            or not -math.inf < error_per_move < math.inf or error_per_move < 0):
        raise InvalidArgument(f"an error rate is a finite number >= 0 points per move, not {quote(error_per_move)}")
    return next(name for bound, name in RATING_BANDS if error_per_move < bound)


def _rated(ruleset_name: str) -> bool:
    """Whether gnubg's bands apply: games worth 1..3 points a cube (not Tawla 31's 15)."""
    try:
        return get_ruleset(ruleset_name).scoring != Scoring.CHECKERS_LEFT
    except TawlaError:
        return False


def player_stats(rep) -> list[dict]:
    """Per player of one report: plays, unforced plays, total error and error rate.

    Parameters
    ----------
    rep : MatchReport

    Returns
    -------
    list of dict
        Two dicts (record players 1 and 2): ``name``, ``plays``, ``unforced``, ``best``,
        ``error_total`` (points), ``error_rate`` (points per unforced move, None with no
        unforced move), ``milli`` (the rate x 1000) and ``rating`` (:func:`rating`); and the
        keys of :func:`tawla.analysis.cube.player_totals` (cube and overall errors), with
        ``overall_rating`` (:func:`rating` of ``overall_rate``).
    """
    rated = _rated(rep.ruleset)
    out = []
    totals = player_totals(rep)
    for player in (0, 1):
        plays = sum(g.decisions.count(player) for g in rep.games)
        unforced = plays - sum(g.decisions.count_forced(player) for g in rep.games)
        total = sum(g.decisions.loss_total(player, unforced=True) for g in rep.games)
        rate = total / unforced if unforced else None
        out.append({"name": rep.player_name(player), "plays": plays, "unforced": unforced,
                    "best": sum(g.decisions.count_best(player) for g in rep.games),
                    "error_total": total, "error_rate": rate,
                    "milli": None if rate is None else 1000 * rate,
                    "rating": rating(rate) if rated else "N/A"})
        out[-1].update({k: v for k, v in totals[player].items() if k not in out[-1]})
        out[-1]["overall_rating"] = rating(out[-1]["overall_rate"]) if rated else "N/A"
    return out


def worst_plays(rep, k: int) -> list[dict]:
    """The k unforced plays of a report with the largest loss (> 0), largest first.

    Returns
    -------
    list of dict
        ``decision`` (:class:`~tawla.analysis.report_data.Decision`), ``ids`` (the position IDs,
        :meth:`MatchReport.ids`), ``tawla_id`` (None when the board was not stored) and
        ``cube`` ((value, owner), owner a record player or None).
    """
    cands = [(g.decisions[i], g, i) for g in rep.games for i in g.decisions.worst_indices(k)]
    cands = sorted((c for c in cands if c[0].equity_loss > 0), key=lambda c: -c[0].equity_loss)[:k]
    return [{"decision": d, "ids": rep.ids(g, i), "tawla_id": g.decisions.tawla_id(i, rep.ruleset), "cube": g.decisions.cube(i)}
            for d, g, i in cands]


def _model(ruleset, board: str | None, cube: int, owner: int | None, doubler: int):
    """The cube model's verdict (:class:`tawla.CubeAction`) on a board, or None (no cube, no board),
    on the probabilities of the analysis's evaluator (``net0`` where a network is shipped)."""
    if board is None or not ruleset.cube:
        return None
    try:
        pos = Position.from_id(board, ruleset)
        rel = 0 if owner is None else (1 if owner == doubler else -1)
        return Bot(ruleset, "net0" if shipped_net(ruleset) is not None else "ply0").cube_action(pos, cube, rel)
    except TawlaError:
        return None


def cube_checks(rep) -> list[dict]:
    """The cube decisions of a report, each double with its answer, disagreements with the cube
    model first (then record order).

    Returns
    -------
    list of dict
        ``game``, ``move_number``, ``doubler``, ``answer`` (``"take"``, ``"drop"`` or None),
        ``board`` (tawla ID before the doubler's roll, from his seat, or None), ``cube``,
        ``owner``, ``model`` (:class:`tawla.CubeAction` or None), ``double_ok`` and
        ``answer_ok`` (whether the model agrees; None without a model or an answer),
        ``disagreements`` (0..2); ``proper`` (the decision of :class:`tawla.bots.MoneyCube` on
        the analysis's probabilities), ``equities`` ((no double, double/take, double/pass) in
        points per unit of cube), ``double_error`` and ``answer_error`` (points per unit of
        cube), each None where the money session's cube was not analysed.
    """
    try:
        ruleset = get_ruleset(rep.ruleset)
    except TawlaError:
        return []
    out = []
    for g in rep.games:
        pending = None
        for c in g.cube_decisions:
            if c["kind"] == "double":
                pending = {"game": g.number, "move_number": c["move_number"], "doubler": c["player"],
                           "answer": None, "board": c["board"], "cube": c["cube"], "owner": c["owner"],
                           "proper": c.get("proper"), "double_error": c.get("error"), "answer_error": None,
                           "equities": (c["no_double"], c["double_take"], c["double_pass"]) if "proper" in c else None}
                out.append(pending)
            elif pending is not None:
                pending["answer"] = c["kind"]
                pending["answer_error"] = c.get("error")
                pending = None
    for item in out:
        model = _model(ruleset, item["board"], item["cube"], item["owner"], item["doubler"])
        item["model"] = model
        item["double_ok"] = None if model is None else model.double
        item["answer_ok"] = None if model is None or item["answer"] is None else model.take == (item["answer"] == "take")
        item["disagreements"] = (item["double_ok"] is False) + (item["answer_ok"] is False)
    return sorted(out, key=lambda x: -x["disagreements"])


_STYLE = """
body { font-family: sans-serif; margin: 1.5em; color: #222; max-width: 1300px; }
h1 { font-size: 1.5em; } h2 { font-size: 1.2em; margin-top: 2em; border-bottom: 1px solid #bbb; }
table { border-collapse: collapse; margin: 0.5em 0; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.6em; text-align: right; }
th:first-child, td:first-child { text-align: left; }
.play, .cube { border: 1px solid #ddd; border-radius: 6px; padding: 0.6em; margin: 1em 0; }
.boards { display: flex; flex-wrap: wrap; gap: 1em; }
.boards figure, .cube figure { margin: 0; display: inline-block; } figcaption { font-size: 0.9em; text-align: center; }
.ids { font-family: monospace; font-size: 0.85em; word-break: break-all; }
.played { color: #c62828; } .best { color: #2e7d32; } .note { color: #666; font-size: 0.9em; }
"""


def _e(x: object) -> str:
    return svg.xml_text(str(x))


def _num(x: float | None, fmt: str = "{:.1f}") -> str:
    return "—" if x is None else fmt.format(x)


def _milli(rate: float | None) -> str:
    return _num(None if rate is None else 1000 * rate)


def _mwc(rate: float | None) -> str:
    return "—" if rate is None else f"{100 * rate:.2f}%"


def _player_table(stats: list[dict]) -> list[str]:
    cube = any(s["cube_analysed"] for s in stats)
    mwc = any(s.get("checker_rate_mwc") is not None for s in stats)
    extra = ("<th>cube decisions (close)</th><th>cube error total (points)</th><th>cube error rate (mEMG per "
             "decision)</th><th>overall rate (mEMG per decision)</th><th>overall rating</th>") if cube else ""
    out = ["<table class=\"players\"><thead><tr><th>player</th><th>plays</th><th>unforced</th><th>best</th>"
           "<th>error total (points)</th><th>error rate (mEMG per move)</th>"
           + ("<th>match-winning chance lost (per move)</th>" if mwc else "") + f"<th>rating</th>{extra}</tr></thead><tbody>"]
    for s in stats:
        cells = (f"<td>{s['cube_decisions']} ({s['close_cube']})</td><td>{s['cube_error']:.3f}</td>"
                 f"<td>{_milli(s['cube_rate'])}</td><td>{_milli(s['overall_rate'])}</td>"
                 f"<td>{_e(s['overall_rating'])}</td>") if cube else ""
        out.append(f"<tr><td>{_e(s['name'])}</td><td>{s['plays']}</td><td>{s['unforced']}</td><td>{s['best']}</td>"
                   f"<td>{s['error_total']:.3f}</td><td>{_num(s['milli'])}</td>"
                   + (f"<td>{_mwc(s.get('checker_rate_mwc'))}</td>" if mwc else "") + f"<td>{_e(s['rating'])}</td>{cells}</tr>")
    out.append("</tbody></table>")
    return out


def _cube_error_board(rep, number: int, e: dict, n: int, file_no: int) -> str:
    """One cube error on the board before the roll of the player on roll, with its IDs."""
    ruleset = get_ruleset(rep.ruleset)
    pos = Position.from_id(e["board"], ruleset)
    on_roll = e["player"] if e["kind"] in ("missed_double", "wrong_double") else 1 - e["player"]
    owner = None if e["owner"] is None else (0 if e["owner"] == on_roll else 1)
    picture = svg.board(pos, cube=(e["cube"], owner), size=360, players=(rep.player_name(on_roll),
                        rep.player_name(1 - on_roll)), on_roll_color="white" if on_roll == 0 else "black",
                        id_prefix=f"f{file_no}-ce{n}-")
    return (f"<div class=\"cube\" id=\"f{file_no}-ce{n}\"><p><b>Game {number}, move {_e(e['move_number'])}:</b> "
            f"{_e(rep.player_name(e['player']))}: {_e(e['kind'].replace('_', ' '))}, {1000 * e['error']:.0f} mEMG "
            f"(right: {_e(e['proper'])}).</p><figure>{picture}<figcaption>before {_e(rep.player_name(on_roll))}'s "
            f"roll</figcaption></figure><p class=\"ids\">{_e(ids_text(e))}</p></div>")


def _cube_errors(rep, file_no: int = 0, shown: int = 0) -> list[str]:
    """The table of the cube errors of an analysed money session, largest first, with their IDs,
    then the first ``shown`` on boards."""
    stats = player_totals(rep)
    if not any(s["cube_analysed"] for s in stats):
        return []
    out = ["<h3>Cube errors</h3>",
           "<table class=\"cube-kinds\"><thead><tr><th>player</th>"
           + "".join(f"<th>{k.replace('_', ' ')}s (mEMG)</th>" for k in KINDS) + "</tr></thead><tbody>"]
    for s in stats:
        out.append(f"<tr><td>{_e(s['name'])}</td>"
                   + "".join(f"<td>{s[k + 's']} ({1000 * s[k + '_error']:.0f})</td>" for k in KINDS) + "</tr>")
    out.append("</tbody></table>")
    errors = sorted(((g.number, e) for g in rep.games for e in g.cube_errors), key=lambda c: -c[1]["error"])
    if not errors:
        return out + ["<p class=\"note\">No cube error.</p>"]
    out.append("<table class=\"cube-errors\"><thead><tr><th>game, move</th><th>player</th><th>error</th>"
               "<th>right</th><th>cube</th><th>no double / double-take / double-pass (points)</th>"
               "<th>error (mEMG)</th><th>IDs</th></tr></thead><tbody>")
    for number, e in errors:
        out.append(f"<tr><td>{number}, {_e(e['move_number'])}</td><td>{_e(rep.player_name(e['player']))}</td>"
                   f"<td>{_e(e['kind'].replace('_', ' '))}</td><td>{_e(e['proper'])}</td><td>{e['cube']}</td>"
                   f"<td>{e['no_double']:+.3f} / {e['double_take']:+.3f} / {e['double_pass']:+.3f}</td>"
                   f"<td>{1000 * e['error']:.0f}</td><td class=\"ids\">{_e(ids_text(e))}</td></tr>")
    out.append("</tbody></table>")
    out += [_cube_error_board(rep, number, e, n, file_no) for n, (number, e) in enumerate(errors[:shown], 1)]
    return out


def _board(pos: Position, d, cube, move_text: str, color: str, names: tuple[str, str], prefix: str) -> str:
    """The board before a play with the arrows of ``move_text`` (none if it does not parse)."""
    arrows: list = []
    try:
        move = parse_move(move_text, pos, d.dice)
        arrows = [svg.Arrow(s.from_point, s.to_point, color) for s in move.steps]
    except TawlaError:
        pass
    value, owner = cube
    svg_cube = (value, None if owner is None else (0 if owner == d.player else 1)) if pos.ruleset.cube else None
    return svg.board(pos, dice=d.dice, cube=svg_cube, arrows=arrows, size=360, players=names,
                     on_roll_color="white" if d.player == 0 else "black", id_prefix=prefix)


def _play(rep, n: int, item: dict, file_no: int) -> list[str]:
    d = item["decision"]
    mover, other = rep.player_name(d.player), rep.player_name(1 - d.player)
    out = [f"<div class=\"play\" id=\"f{file_no}-p{n}\">",
           f"<p><b>{n}. Game {d.game}, move {_e(d.move_number if d.move_number is not None else '?')}:</b> "
           f"{_e(mover)} rolls {d.dice[0]}{d.dice[1]} and plays <span class=\"played\">{_e(d.move or '(no move)')}</span>; "
           f"best <span class=\"best\">{_e(d.best)}</span>; loss {d.equity_loss:.3f} "
           + (f"EMG ({100 * d.mwc_loss:.2f}% MWC) " if d.mwc_loss is not None else "points ") +
           f"— rank {d.rank} of {d.legal}.</p>"]
    if item["tawla_id"] is not None:
        try:
            pos = Position.from_id(item["tawla_id"], rep.ruleset)
        except TawlaError:
            pos = None
        if pos is not None:
            names = (mover, other)
            out.append("<div class=\"boards\">")
            for kind, text, color in (("played", d.move, PLAYED_COLOR), ("best", d.best, BEST_COLOR)):
                board = _board(pos, d, item["cube"], text, color, names, f"f{file_no}-p{n}-{kind}-")
                out.append(f"<figure class=\"{kind}\">{board}<figcaption>{'the play made' if kind == 'played' else 'the best play'}: "
                           f"{_e(text or '(no move)')}</figcaption></figure>")
            out.append("</div>")
    ids = ids_text(item["ids"])
    if ids:
        out.append(f"<p class=\"ids\">{_e(ids)}</p>")
    out.append("</div>")
    return out


def _verdict(model) -> str:
    if model is None:
        return "—"
    first = "too good to double" if model.too_good else ("double" if model.double else "no double")
    return f"{first}, {'take' if model.take else 'pass'} (win {100 * model.win:.0f}%)"


def _right(c: dict) -> str:
    """What the cube decision's board caption says is right: the cubeful money equities' decision
    where the double was analysed, else the quick model's verdict."""
    if c.get("proper") is not None:
        return f"Right: {c['proper']}"
    return f"Model: {_verdict(c['model'])}"


def _cube_section(rep, file_no: int, shown: int) -> list[str]:
    """The table of every double and its answer, then the first ``shown`` on boards."""
    checks = cube_checks(rep)
    out = ["<h3>Cube decisions</h3>"]
    if not checks:
        return out + ["<p class=\"note\">No double in the record.</p>"]
    analysed = any(c["proper"] is not None for c in checks)
    if not analysed:
        out.append("<p class=\"note\">Checked against the engine's money-game cube model (Janowski, on the "
                   "cubeless pre-roll probabilities of tawla.Bot.cube_action); it knows no match score, so this "
                   "is a reference, not a rating.</p>")
    else:
        out.append("<p class=\"note\">The right decision and the errors: Janowski's cubeful money equities "
                   "(tawla.bots.MoneyCube: no double / double-take / double-pass, points per unit of cube) on the "
                   "probabilities of the analysis's evaluator; errors in mEMG.</p>")
    # analysed (money sessions): the cubeful money equities decide; else the quick model's verdict
    extra = ("<th>right (money equities)</th><th>error of double / answer (mEMG)</th>" if analysed
             else "<th>model</th><th>agrees</th>")
    out.append("<table class=\"cubes\"><thead><tr><th>game, move</th><th>doubler</th><th>cube</th><th>answer</th>"
               f"{extra}</tr></thead><tbody>")
    for c in checks:
        agrees = "—" if c["model"] is None else ("yes" if not c["disagreements"] else "no")
        answer = f"{rep.player_name(1 - c['doubler'])} {c['answer']}s" if c["answer"] else "(none)"
        cells = f"<td>{_e(_verdict(c['model']))}</td><td>{agrees}</td>"
        if analysed:
            right = "—" if c["proper"] is None else f"{c['proper']} ({' / '.join(f'{x:+.3f}' for x in c['equities'])})"
            errs = " / ".join("—" if x is None else f"{1000 * x:.0f}" for x in (c["double_error"], c["answer_error"]))
            cells = f"<td>{_e(right)}</td><td>{errs}</td>"
        out.append(f"<tr><td>{c['game']}, {_e(c['move_number'])}</td><td>{_e(rep.player_name(c['doubler']))}</td>"
                   f"<td>{c['cube']} \u2192 {2 * c['cube']}</td><td>{_e(answer)}</td>{cells}</tr>")
    out.append("</tbody></table>")
    ruleset = get_ruleset(rep.ruleset)
    for n, c in enumerate([c for c in checks if c["board"] is not None][:shown], 1):
        pos = Position.from_id(c["board"], ruleset)
        d = c["doubler"]
        owner = None if c["owner"] is None else (0 if c["owner"] == d else 1)
        picture = svg.board(pos, cube=(c["cube"], owner) if ruleset.cube else None, size=360,
                            players=(rep.player_name(d), rep.player_name(1 - d)),
                            on_roll_color="white" if d == 0 else "black", id_prefix=f"f{file_no}-c{n}-")
        ids = f"Position ID {pos.gnubg_id()}  tawla ID {pos.id()}" if ruleset.has_bar else f"tawla ID {pos.id()}"
        answer = f"; {rep.player_name(1 - d)} {c['answer']}s" if c["answer"] else ""
        out.append(f"<div class=\"cube\" id=\"f{file_no}-c{n}\"><p><b>Game {c['game']}, move {_e(c['move_number'])}:</b> "
                   f"{_e(rep.player_name(d))} doubles to {2 * c['cube']}{_e(answer)}. {_e(_right(c))}.</p>"
                   f"<figure>{picture}<figcaption>before {_e(rep.player_name(d))}'s roll</figcaption></figure>"
                   f"<p class=\"ids\">{_e(ids)}</p></div>")
    return out


def _rollout_section(rep) -> list[str]:
    """A table per rolled-out worst play (:func:`tawla.analysis.rollouts.rollout_worst`): each
    play's probabilities and equity with its standard error."""
    if not rep.rollouts:
        return []
    out = ["<h3>Worst plays rolled out</h3>"]
    for e in rep.rollouts:
        head = (f"Game {_e(e['game'])}, move {_e(e['move_number'] if e['move_number'] is not None else '?')}: "
                f"{_e(e['player'])} rolls {e['dice'][0]}{e['dice'][1]}, plays {_e(e['played'] or '(no move)')}, "
                f"best {_e(e['best'])}")
        if "error" in e:
            out.append(f"<p class=\"note\">{head}: not rolled out ({_e(e['error'])}).</p>")
            continue
        kind = e["equity_kind"]
        out.append(f"<p><b>{head}</b>: loss {e['rollout_loss']:.3f} ± {e['rollout_loss_se']:.3f} by rollout "
                   f"({_e(kind)} equity, {e['trials']} trials) against {e['equity_loss']:.3f} by the evaluator.</p>")
        out.append("<table class=\"rollout\"><tr><th>play</th><th>win</th><th>win g</th><th>win bg</th><th>lose g</th>"
                   f"<th>lose bg</th><th>{_e(kind)} equity</th></tr>")
        for p in e["plays"]:
            eq, se = decisive_equity(p, kind)
            cells = "".join(f"<td>{x:.3f} ± {y:.3f}</td>" for x, y in zip(p["probabilities"], p["probabilities_se"]))
            out.append(f"<tr><td>{_e(p['play'])}</td>{cells}<td>{eq:+.3f} ± {se:.3f}</td></tr>")
        out.append("</table>")
    return out


def _file_section(rep, file_no: int, worst: int, evaluated: bool) -> list[str]:
    kind = f"{rep.match_length}-point match" if rep.match_length else "money session"
    out = [f"<h2 id=\"f{file_no}\">{_e(rep.path)}</h2>"]
    if rep.error:
        return out + [f"<p class=\"note\">Unreadable: {_e(rep.error)}</p>"]
    out.append(f"<p>{_e(rep.ruleset or '?')}, {_e(kind)}, {_e(plural(len(rep.games), 'game'))}.</p>")
    if evaluated:
        out += _player_table(player_stats(rep))
        plays = worst_plays(rep, worst)
        out.append("<h3>Worst plays</h3>" if plays else "<p class=\"note\">No play lost equity.</p>")
        for n, item in enumerate(plays, 1):
            out += _play(rep, n, item, file_no)
    out += _rollout_section(rep)
    out += _cube_section(rep, file_no, worst)
    out += _cube_errors(rep, file_no, worst)
    problems = [g.error for g in rep.games if g.error] + [f"game {g.number}: {n}" for g in rep.games for n in g.notes]
    if problems:
        out.append("<ul class=\"note\">" + "".join(f"<li>{_e(p)}</li>" for p in problems) + "</ul>")
    return out


def render_html(reports, evaluator, *, worst: int = 5, title: str = "tawla analysis") -> str:
    """The whole run as one XHTML page (UTF-8, no external references: styles and SVG inline).

    Parameters
    ----------
    reports : list of MatchReport
    evaluator : EquityEvaluator or None
        What ranked the plays (None: a replay only; the page then has no error rates).
    worst : int
        Worst plays shown per file (each with two boards: the play made and the best one).
    title : str

    Returns
    -------
    str
        An XHTML document (``application/xhtml+xml``; also fine as ``text/html``).
    """
    evaluated = evaluator is not None or any(g.decisions.ranked for r in reports for g in r.games)
    s = summary(reports)
    out = ["<?xml version=\"1.0\" encoding=\"UTF-8\"?>", "<!DOCTYPE html>",
           "<html xmlns=\"http://www.w3.org/1999/xhtml\" lang=\"en\"><head><meta charset=\"UTF-8\"/>",
           f"<title>{_e(title)}</title><style>{_STYLE}</style></head><body>", f"<h1>{_e(title)}</h1>"]
    if evaluator is not None:
        out.append(f"<p>Evaluator: <b>{_e(evaluator.name)}</b> — {_e(evaluator.description.rstrip('.'))}. Error = cubeless "
                   "equity lost against the evaluator's best play; rates per unforced move in thousandths of a "
                   "point (gnubg's mEMG), rated on GNU Backgammon's chequer-play scale.</p>")
    out.append(f"<p>{_e(plural(s['files'], 'file'))}, {_e(plural(s['games'], 'game'))} "
               f"({s['games_replayed_clean']} replayed clean), {_e(plural(s['plays'], 'play'))} "
               f"({s['forced_plays']} forced), {_e(plural(s['cube_actions'], 'cube action'))}.</p>")
    out.append("<table class=\"bands\"><thead><tr><th>rating</th><th>error rate below (mEMG)</th></tr></thead><tbody>"
               + "".join(f"<tr><td>{_e(name)}</td><td>{'—' if math.isinf(b) else f'{1000 * b:.0f}'}</td></tr>"
                         for b, name in RATING_BANDS) + "</tbody></table>")
    if len(reports) > 1:
        out.append("<ul class=\"files\">" + "".join(f"<li><a href=\"#f{k}\">{_e(r.path)}</a></li>"
                                                   for k, r in enumerate(reports)) + "</ul>")
    for k, rep in enumerate(reports):
        out += _file_section(rep, k, worst, evaluated)
    out.append("</body></html>")
    return "\n".join(out) + "\n"


def write_html(path, reports, evaluator, *, worst: int = 5) -> None:
    """Write :func:`render_html` to ``path`` (UTF-8).

    Raises
    ------
    tawla.errors.FormatError
        The file cannot be written.
    """
    try:
        with open(path, "w", encoding="utf-8") as f:
            f.write(render_html(reports, evaluator, worst=worst))
    except OSError as e:
        raise FormatError(f"cannot write the HTML report {path}: {e}") from None
