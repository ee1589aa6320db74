"""The one mapping from a :class:`~tawla.rules.Ruleset` to the fast engine's parameters.

The C engine reads a ruleset as a struct of small integers (``tw_params`` in ``csrc``);
:func:`native_params` gives its fields, by name, from the Ruleset's fields (RULES.md §7,
the flag table). The Cython ``Params`` type is built from this dict, and a test checks that
its keys are exactly the struct's fields.
"""

from __future__ import annotations

from ..core.geometry import SAME
from . import BLOCK, HIT, PIN, Ruleset

__all__ = ["native_params", "CONTACT_CODES", "SCORING_CODES"]

CONTACT_CODES = {HIT: 0, PIN: 1, BLOCK: 2}
"""``Ruleset.contact`` -> the C engine's contact code."""
SCORING_CODES = {"cube": 0, "mars": 1, "checkers_left": 2}
"""``Ruleset.scoring`` -> the C engine's scoring code."""


def _start_counts(start) -> list:
    counts = [0] * 26
    for point, n in start:
        counts[point] += n
    return counts


def native_params(r: Ruleset) -> dict:
    """The keyword arguments of the fast engine's ``Params`` for ruleset ``r``.

    Returns
    -------
    dict
        Exactly the fields of the C struct ``tw_params`` (``csrc/movegen/tw_params.h``), by name:
        integer flags, and ``start``, the starting checkers of each side as 26 counts per
        own point (index 0 and 25 are 0).
    """
    return dict(
        contact=CONTACT_CODES[r.contact],
        has_bar=int(r.has_bar),
        same=int(r.geometry == SAME),
        start_lock=int(r.start_lock),
        bearoff_no_pinned=int(r.bearoff_no_pinned),
        bearoff_no_opponent_in_home=int(r.bearoff_no_opponent_in_home),
        quadrant_lock_win=int(r.quadrant_lock_win),
        wall_rule=int(r.wall_rule),
        mother_plakoto=int(r.mother_rule == "plakoto"),
        can_freeze=int(r.can_freeze),
        scoring=SCORING_CODES[r.scoring],
        bar_backgammon_counts_double=int(r.bar_backgammon_counts_double),
        opening_reroll=int(r.opening_reroll),
        start=_start_counts(r.start),
    )
