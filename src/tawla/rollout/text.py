"""A rollout as text, as GNU Backgammon prints one."""

from __future__ import annotations

import math

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
    return "\n".join(lines)
