# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The ruleset as the C engine reads it: :class:`Params`, the one parameter block every compiled
module takes (``tw_params``, ``csrc/movegen/tw_params.h``), declared once for Cython in
``tawla/native/_params.pxd`` and built once per ruleset by ``tawla.native`` from
:func:`tawla.rules.params.native_params`; and the row checks the other modules share.
"""

from libc.stdint cimport uint8_t

from tawla_engine cimport *

from tawla.errors import InvalidId, InvalidPosition, UnsupportedRuleset
from tawla.core.results import KINDS


KIND_NAMES = KINDS
"""Names of the result-kind codes returned by :func:`playout` (index = code)."""

C_CODES = {
    "contact": {"hit": TW_HIT, "pin": TW_PIN, "block": TW_BLOCK},
    "scoring": {"cube": TW_SCORE_CUBE, "mars": TW_SCORE_MARS, "checkers_left": TW_SCORE_CHECKERS_LEFT},
    "kind": {"single": TW_K_SINGLE, "gammon": TW_K_GAMMON, "backgammon": TW_K_BACKGAMMON,
             "quadrant_lock": TW_K_QUADRANT, "mother": TW_K_MOTHER, "draw": TW_K_DRAW,
             "unfinished": TW_K_UNFINISHED},
    "end": {"contact": TW_END_CONTACT, "lost": TW_END_LOST, "won": TW_END_WON, "race": TW_END_RACE,
            "draw": TW_END_DRAW},
}
"""The codes as the C engine defines them (``csrc/movegen/tw_params.h``), for the tests that check
they agree with :data:`tawla.rules.params.CONTACT_CODES`, ``SCORING_CODES``,
:class:`tawla.core.results.ResultKind` and :data:`tawla.native.EVAL_ENDS`."""


cdef class Params:
    """A ruleset as the C struct the generator reads (RULES.md section 7, the flag table).

    Build it with ``tawla.native.backend.params(ruleset)``, which passes the dict of
    :func:`tawla.rules.params.native_params`: its keys are the fields of ``tw_params``
    (``csrc/movegen/tw_params.h``), converted by Cython's struct coercion.

    Parameters
    ----------
    fields : dict
        Every field of ``tw_params`` by name: int flags and ``start`` (26 checker counts per
        own point, index 0 unused).

    Raises
    ------
    UnsupportedRuleset
        A field is missing or unknown, or a value is out of its range.
    """


    def __init__(self, dict fields):
        try:
            self.p = fields
        except (ValueError, TypeError, OverflowError, IndexError) as e:
            raise UnsupportedRuleset(f"bad fast-engine parameters: {e}") from None
        unknown = set(fields) - set(self.fields)
        if unknown:
            raise UnsupportedRuleset(f"unknown fast-engine parameters: {sorted(unknown)}")
        if self.p.contact not in (TW_HIT, TW_PIN, TW_BLOCK) or self.p.scoring not in (
                TW_SCORE_CUBE, TW_SCORE_MARS, TW_SCORE_CHECKERS_LEFT) or not 0 <= self.p.start_lock <= 24:
            raise UnsupportedRuleset("bad fast-engine parameters")
        start = (<uint8_t *> self.p.start)[:26]
        if start[0] or start[25] or sum(start) > 15:
            raise UnsupportedRuleset("bad start: checkers on 1..24 only, 15 at most")

    @property
    def fields(self):
        """The struct's fields as a dict (``start`` as a list of 26 counts)."""
        cdef dict d = self.p
        d["start"] = list((<uint8_t *> self.p.start)[:26])
        return d

    def __repr__(self):
        return "Params(" + repr(self.fields) + ")"

    def __reduce__(self):
        return (Params, (self.fields,))


cdef validate_batch(Params params, const uint8_t[:, ::1] arr):
    """Raise InvalidId for rows of another width, InvalidPosition for the first invalid row."""
    cdef int reason = 0
    cdef long bad = -1
    if arr.shape[1] != 56:
        raise InvalidId(f"positions must have shape (N, 56), not {tuple(arr.shape)[:2]}")
    if arr.shape[0]:
        with nogil:
            bad = tw_validate_rows(&params.p, &arr[0, 0], arr.shape[0], &reason)
    if bad >= 0:
        raise InvalidPosition(f"row {bad}: {tw_invalid_reason(reason).decode()}")


cdef bint row_over(const uint8_t *row, Params params):
    """Whether the game of a 56-byte row is over (the frozen test included)."""
    cdef tw_geo g
    tw_geo_init(&g, params.p.same, params.p.contact == 1)
    return tw_game_result(&params.p, &g, row, 0).over != 0
