"""A rollout as text, as GNU Backgammon prints one."""

from __future__ import annotations

import math

from ..rules import Scoring
from . import Rollout

__all__ = ["format_text"]


def _fmt(x: float | None, signed: bool = False) -> str:
    if x is None or not math.isfinite(x):
        return "     -"
    return f"{x:+.4f}" if signed else f"{x:.4f}"


def format_text(ro: Rollout) -> str:
    """A rollout as text, as GNU Backgammon prints one: the settings, then a table of the
    probabilities and equities with their standard errors (one per play of a decision)."""
    s = ro.settings
    pos = ro.position
    ident = pos.gnubg_id() if pos.ruleset.has_bar else pos.id()
    what = f"{ro.dice[0]}{ro.dice[1]} played from {ident}" if ro.dice else ident
    lines = [f"Rollout of {what} ({pos.ruleset.name}): {ro.level_description}; seed {s.seed}; "
             f"variance reduction {'on' if s.variance_reduction else 'off'}; "
             + (f"truncated at {s.truncate} plies" if s.truncate else "no truncation")
             + ("; bear-off databases" if s.bearoff else "; bear-offs played out")
             + ("" if ro.complete else "; INTERRUPTED: the trials so far")]
    head = f"{'':28s} {'Win':>7s} {'W(g)':>7s} {'W(bg)':>7s} {'L(g)':>7s} {'L(bg)':>7s} {'Cubeless':>9s}"
    head += f" {'Cubeful':>9s}" if s.cubeful else ""
    lines.append(head)
    items: list = [(None, ro.result)] if ro.dice is None else [(p, p.result) for p in ro.plays]
    for i, (play, res) in enumerate(items, 1):
        assert res is not None
        label = "Result" if play is None else f"{i:2d}. {play.move}"[:28]
        row = f"{label:28s} " + " ".join(f"{x:7.4f}" for x in res.probabilities) + f" {_fmt(res.equity, True):>9s}"
        row += f" {_fmt(res.cubeful_equity, True):>9s}" if s.cubeful else ""
        err = f"{'  std. error':28s} " + " ".join(f"{x:7.4f}" for x in res.probabilities_se)
        err += f" {_fmt(res.equity_se):>9s}" + (f" {_fmt(res.cubeful_equity_se):>9s}" if s.cubeful else "")
        lines += [row, err]
        if play is not None and play.exact:
            lines.append(f"{'':28s} (the play ends the game: its exact result)")
        else:
            note = f"{'':28s} {res.trials} trials, {res.plies:.1f} moves a trial"
            if s.variance_reduction and res.equity_se > 0 and math.isfinite(res.raw_equity_se):
                note += f"; variance reduction cut the equity's standard error {res.raw_equity_se / res.equity_se:.1f}x"
            lines.append(note)
    if ro.match is not None and (ro.mwc is not None or any(p.score_value is not None for p in ro.plays)):
        lines += _at_score(ro)
    return "\n".join(lines)


def _at_score(ro: Rollout) -> list[str]:
    """The rollout valued at the match score (:mod:`tawla.rollout.at_score`)."""
    assert ro.match is not None
    bg = ro.position.ruleset.cube
    unit = ("EMG: the cubeful equity at the score" if ro.settings.cubeful
            else "EMG, the opponent's cube action at the score included") if bg else "2 x MWC - 1"
    if ro.settings.cubeful:
        how = "cube decisions at the score in every trial"
    elif ro.position.ruleset.scoring == Scoring.CHECKERS_LEFT:
        how = "each trial played to its game's end, worth the table's chance after its points"
    elif not ro.position.ruleset.cube:
        how = "each trial worth the table's chance after its points"
    else:
        how = "the trials cubeless, the score applied to their probabilities"
    lines = [f"At the score ({ro.match.describe()}; {how}):"]
    if ro.dice is not None:
        lines.append(f"  (value: {unit})")
        best = ro.plays[0].score_value if ro.plays else None
        for i, p in enumerate(ro.plays, 1):
            assert p.score_value is not None and p.score_mwc is not None and best is not None
            diff = f" ({p.score_value - best:+.4f})" if i > 1 else ""
            se = f" ± {p.score_se:.4f}" if p.score_se is not None else ""
            lines.append(f"{f'{i:2d}. {p.move}'[:28]:28s} {p.score_value:+.4f}{se}{diff:11s} MWC {100 * p.score_mwc:6.2f}%")
        return lines
    assert ro.mwc is not None
    if ro.cube is not None:
        d = ro.cube
        for name, emg, mwc in (("No double", d.no_double, d.no_double_mwc),
                               ("Double, take", d.double_take, d.double_take_mwc),
                               ("Double, pass", d.double_pass, d.double_pass_mwc)):
            if d.may_double or name == "No double":
                lines.append(f"  {name:20s} {emg:+.4f}   MWC {100 * mwc:6.2f}%")
        lines.append(f"  Proper cube action: {d.proper[0].upper()}{d.proper[1:]}")
    se = f" (s.e. {100 * ro.mwc_se:.2f}%)" if ro.mwc_se is not None else ""
    lines.append(f"  Match-winning chance of the side on roll: {100 * ro.mwc:.2f}%{se}")
    return lines
