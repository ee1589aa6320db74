"""The two board geometries of RULES.md §1.1 and the row flip, written once.

Each player counts in his own numbering: points 1..24 (24 farthest from home), 0 = off,
25 = bar. A point of one side's numbering is a point of the other side's by
:func:`opponent_point`:

* ``OPPOSITE`` (mirrored; backgammon, adi, mahbusa, tawla31): ``q = 25 - p``;
* ``SAME`` (rotated by half a board; tawla31-saharat): ``q = ((p + 11) mod 24) + 1``.

Both maps are self-inverse. The C engine's geometry (``csrc``) implements the same two
formulas; the tests diff it against this module.
"""

from __future__ import annotations

from .layout import OPP, OPP_BAR, OPP_OFF, PACKED_WIDTH, PIN, ME_BAR, ME_OFF, pin_bits

__all__ = ["OPPOSITE", "SAME", "GEOMETRIES", "opponent_point", "OPPONENT_POINT", "flip_row",
           "own_coords"]

OPPOSITE = "opposite"
"""Mirrored geometry: ``q = 25 - p`` (backgammon, adi, mahbusa, tawla31)."""
SAME = "same"
"""Same-direction geometry: ``q = ((p + 11) mod 24) + 1`` (tawla31-saharat)."""
GEOMETRIES = (OPPOSITE, SAME)


def _opponent_point(p: int, geometry: str) -> int:
    return 25 - p if geometry == OPPOSITE else (p + 11) % 24 + 1


OPPONENT_POINT = {g: (0,) + tuple(_opponent_point(p, g) for p in range(1, 25)) + (25,)
                  for g in GEOMETRIES}
"""Per geometry, a 26-tuple: index ``p`` (1..24) gives the opponent's numbering of the
mover's point ``p``; 0 (off) and 25 (bar) map to themselves."""


def opponent_point(p: int, geometry: str) -> int:
    """A point 1..24 of one side's numbering in the other side's (RULES.md §1.1)."""
    return OPPONENT_POINT[geometry][p]


def flip_row(row: bytes, geometry: str) -> bytes:
    """The packed row seen from the other seat (the other player to move).

    Parameters
    ----------
    row : bytes
        ``PACKED_WIDTH`` bytes (:mod:`tawla.core.layout`), mover's seat.
    geometry : ``OPPOSITE`` or ``SAME``

    Returns
    -------
    bytes
        The same board from the opponent's seat; a pin stack where the opponent's checker
        was pinned becomes one where the new mover's checker is pinned.
    """
    q_of = OPPONENT_POINT[geometry]
    new = bytearray(PACKED_WIDTH)
    new[ME_OFF], new[ME_BAR], new[OPP_OFF], new[OPP_BAR] = row[OPP_OFF], row[OPP_BAR], row[ME_OFF], row[ME_BAR]
    pinned_me = pin_bits(row)
    bits = 0
    for p in range(1, 25):
        q = q_of[p]
        new[q] = row[OPP + p]
        new[OPP + q] = row[p]
        if row[p] and row[OPP + p] and not pinned_me >> (p - 1) & 1:  # opponent pinned -> new mover pinned
            bits |= 1 << (q - 1)
    new[PIN], new[PIN + 1], new[PIN + 2] = bits & 0xFF, bits >> 8 & 0xFF, bits >> 16 & 0xFF
    return bytes(new)


def own_coords(row: bytes, geometry: str) -> tuple:
    """(mover, opponent) as 26-tuples, each in its own side's numbering (0 off, 25 bar)."""
    q_of = OPPONENT_POINT[geometry]
    me = tuple(row[ME_OFF:OPP])
    opp = [0] * 26
    opp[0], opp[25] = row[OPP_OFF], row[OPP_BAR]
    for p in range(1, 25):
        opp[q_of[p]] = row[OPP + p]
    return me, tuple(opp)
