"""The packed row: one fixed-width ``uint8`` row per position (documented here, once).

A position is always stored **from the seat of the player to move** ("mover"), in
the mover's numbering (RULES.md §1.1: points 1..24, 24 farthest from home).

====================  =======================================================
bytes                 content
====================  =======================================================
``0``                 mover's checkers borne off (0..15)
``1..24``             mover's checkers on the mover's point ``p`` (byte ``p``)
``25``                mover's checkers on the bar (hitting games only)
``26``                opponent's checkers borne off
``27..50``            opponent's checkers on the **mover's** point ``p`` (byte ``26 + p``)
``51``                opponent's checkers on the bar
``52..54``            pin bits, 24-bit little-endian: bit ``p - 1`` set means point ``p`` is a
                      pin stack in which the **mover's** single checker is pinned under
                      opponent checkers. A point where both sides have checkers and the bit
                      is clear is a pin stack where the opponent's single checker is pinned.
``55``                reserved, always 0
====================  =======================================================

Counts on a point include a pinned checker (a pin stack ``1 + k`` counts 1 for the
pinned side and ``k`` for the pinner). The layout is canonical: equal positions of
one ruleset have equal bytes. The ruleset is not stored in the row; it travels
beside it (every batch call takes one ``ruleset``).
"""

PACKED_WIDTH = 56
"""Bytes per packed position row (``uint8[PACKED_WIDTH]``)."""

ME_OFF = 0
ME_BAR = 25
OPP = 26  # opponent block starts here: OPP + 0 = off, OPP + p = on mover's point p
OPP_OFF = 26
OPP_BAR = 51
PIN = 52  # three bytes of pin bits
RESERVED = 55  # always 0

__all__ = ["PACKED_WIDTH", "ME_OFF", "ME_BAR", "OPP", "OPP_OFF", "OPP_BAR", "PIN", "RESERVED",
           "pin_bits", "pin_bytes", "pinned_points"]


def pin_bits(row) -> int:
    """The 24 pin bits of a row (bit ``p - 1``: the mover's checker on ``p`` is pinned)."""
    return row[PIN] | row[PIN + 1] << 8 | row[PIN + 2] << 16


def pinned_points(row) -> set:
    """The mover's points (1..24) where his single checker is pinned (from the pin bits)."""
    bits = pin_bits(row)
    return {p for p in range(1, 25) if bits >> (p - 1) & 1}


def pin_bytes(points) -> bytes:
    """The three pin bytes for a set of the mover's pinned points (1..24)."""
    bits = 0
    for p in points:
        bits |= 1 << (p - 1)
    return bytes((bits & 0xFF, bits >> 8 & 0xFF, bits >> 16 & 0xFF))
