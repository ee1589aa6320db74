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


def native_params(r: Ruleset) -> dict:
    """The keyword arguments of the fast engine's ``Params`` for ruleset ``r``.

    Returns
    -------
    dict
        Integer flags named as the ``tw_params`` struct's fields, and ``start`` (the
        starting checkers as (point, count) pairs).
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
        start=tuple(r.start),
    )
