"""Which single checker steps are legal and what a step does (RULES.md §8 ``legal_steps``,
with §1.5, §2.1, §4.2-4.4, §5.2-5.6, §6.3 and §6.5), on a small mutable board.

These are the rule primitives that both the reference engine (:mod:`tawla.reference.engine`,
which searches whole turns with them) and the move-text reader (:mod:`tawla.notation`, which
plays a text's segments step by step) use. :class:`State` is a board in the mover's
numbering, with the opponent's checkers indexed by the **mover's** points (the packed-row
layout of :mod:`tawla.core.layout`). Every rule is one small function named after the
RULES.md section it implements; a ruleset only switches them on and off.
"""

from __future__ import annotations

from ..core.geometry import OPPONENT_POINT
from ..core.layout import ME_OFF, OPP, PACKED_WIDTH, PIN as PIN_BYTES, pin_bytes, pinned_points
from . import BLOCK, HIT, PIN, Ruleset

__all__ = ["State", "bear_off_allowed", "start_lock_active", "can_land", "movable_points", "single_steps",
           "apply_step", "walls_ok", "quadrant_locked", "mother_pinned", "game_ended"]


_NO_PINS = bytes(PACKED_WIDTH - PIN_BYTES)  # pin bytes and the reserved byte, all zero


class State:
    """A board in the mover's numbering (mutable; the engine copies it per step).

    Attributes
    ----------
    me : list[int], length 26
        Mover's checkers: ``me[0]`` off, ``me[1..24]`` on point p, ``me[25]`` bar.
    opp : list[int], length 26
        Opponent's checkers: ``opp[0]`` off, ``opp[p]`` on the **mover's** point p, ``opp[25]`` bar.
    pinned_me, pinned_opp : set[int]
        Mover's points holding a pinned mover checker / a pinned opponent checker (MAH).
    """

    __slots__ = ("me", "opp", "pinned_me", "pinned_opp")

    def __init__(self, me, opp, pinned_me=(), pinned_opp=()):
        self.me = list(me)
        self.opp = list(opp)
        self.pinned_me = set(pinned_me)
        self.pinned_opp = set(pinned_opp)

    @classmethod
    def from_row(cls, row) -> "State":
        row = bytes(row)
        me, opp = list(row[ME_OFF:OPP]), list(row[OPP:PIN_BYTES])
        pinned_me = pinned_points(row)
        pinned_opp = {p for p in range(1, 25) if me[p] and opp[p] and p not in pinned_me}
        return cls(me, opp, pinned_me, pinned_opp)

    def to_row(self) -> bytes:
        if not self.pinned_me:  # the common case: no pin bits
            return bytes(self.me) + bytes(self.opp) + _NO_PINS
        return (bytes(self.me) + bytes(self.opp) + pin_bytes(self.pinned_me)
                + bytes(PACKED_WIDTH - PIN_BYTES - 3))

    def copy(self) -> "State":
        return State(self.me, self.opp, self.pinned_me, self.pinned_opp)

    def key(self) -> bytes:
        return self.to_row()

    # --- what stands on a point -------------------------------------------
    def mover_owns(self, p: int) -> bool:
        """The mover has checkers on p and they are on top (not a pinned checker)."""
        return self.me[p] > 0 and p not in self.pinned_me

    def highest_point(self) -> int:
        """The mover's highest occupied point (25 = bar), 0 when none is on the board."""
        for p in range(25, 0, -1):
            if self.me[p]:
                return p
        return 0


# --- §1.5, §4.3, §5.5: bearing off ---------------------------------------------------------
def bear_off_allowed(r: Ruleset, s: State) -> bool:
    """§1.5: all the mover's checkers home (1..6, none on the bar), plus the ruleset's condition."""
    if s.me[25] or any(s.me[p] for p in range(7, 25)):
        return False
    if r.bearoff_no_pinned and s.pinned_me:  # §4.3
        return False
    if r.bearoff_no_opponent_in_home and any(s.opp[p] for p in range(1, 7)):  # §5.5
        return False
    return True


# --- §5.3, §6.3: the start lock ----------------------------------------------------------
def start_lock_active(r: Ruleset, s: State) -> bool:
    """§5.3 / §6.3: no checker on points 1..start_lock and none borne off."""
    if not r.start_lock:
        return False
    return s.me[0] == 0 and not any(s.me[p] for p in range(1, r.start_lock + 1))


# --- §2.1, §4.2, §5.2: where a checker may land ---------------------------------------------
def can_land(r: Ruleset, s: State, t: int) -> bool:
    """Whether the mover may land on point t (1..24) under the ruleset's contact rule."""
    if r.contact == HIT:  # §2.1: empty, own, or a blot
        return s.opp[t] <= 1
    if r.contact == BLOCK:  # §5.2 / §6.2: any opponent checker closes the point
        return s.opp[t] == 0
    # PIN, §4.2: empty; owned by the mover (own point or the mover's pin stack); a lone free blot
    if s.opp[t] == 0:
        return t not in s.pinned_me  # (a pinned mover checker always has pinners on it)
    if s.mover_owns(t):
        return True
    return s.opp[t] == 1 and s.me[t] == 0


def movable_points(r: Ruleset, s: State) -> list:
    """The points the mover may take a checker from, high to low, whatever the die: the bar
    first (§2.1), never a pinned checker (§4.2), not the start stack while the runner lock
    holds it (§5.3 / §6.3)."""
    if r.has_bar and s.me[25]:  # §2.1: enter from the bar first
        return [25]
    locked = start_lock_active(r, s) and s.me[24] < 15  # §5.3 / §6.3 runner lock
    return [p for p in range(24, 0, -1)
            if s.me[p] and p not in s.pinned_me and not (locked and p == 24)]


def single_steps(r: Ruleset, s: State, die: int, sources=None):
    """All legal single steps with one die on state s (RULES.md §8 ``legal_steps(s, d)``).

    Parameters
    ----------
    sources : list[int], optional
        :func:`movable_points` of s, when the caller already has it (it does not depend on the die).

    Yields
    ------
    (from_point, to_point, hit)
        ``to_point`` 0 is off; ``hit`` is True when the step hits (STD/ADI) or pins (MAH).
        Post-step checks (wall rule) are applied by :func:`apply_step`'s caller.
    """
    if sources is None:
        sources = movable_points(r, s)
    marks = r.contact != BLOCK  # landing on a lone opponent checker hits or pins it
    bear = None
    for p in sources:
        t = p - die
        if t >= 1:
            if can_land(r, s, t):
                yield p, t, (marks and s.opp[t] == 1 and s.me[t] == 0)
        elif p != 25:
            if bear is None:
                bear = bear_off_allowed(r, s)
            if bear and (t == 0 or p == s.highest_point()):
                yield p, 0, False


def apply_step(r: Ruleset, s: State, p: int, t: int) -> State:
    """The state after moving one checker from p to t (0 = off), hitting or pinning on the way."""
    n = s.copy()
    n.me[p] -= 1
    if p in n.pinned_opp and n.me[p] == 0:  # §4.2: the last pinner leaves, the pinned one is free
        n.pinned_opp.discard(p)
    if t == 0:
        n.me[0] += 1
        return n
    if n.opp[t] == 1 and n.me[t] == 0:
        if r.contact == HIT:  # §2.1: the blot goes to the bar
            n.opp[t] = 0
            n.opp[25] += 1
        elif r.contact == PIN:  # §4.2: the blot is pinned
            n.pinned_opp.add(t)
    n.me[t] += 1
    return n


# --- §6.5: the wall rule ---------------------------------------------------------------------

def walls_ok(r: Ruleset, s: State) -> bool:
    """§6.5: no run of six or more mover points, consecutive on the opponent's path (its own
    numbering 1..24, no wrap: D8), without an opponent checker ahead of the run (on a point of
    the opponent's below the run's start) and with none of the opponent's checkers off."""
    if s.opp[0]:
        return True
    their = OPPONENT_POINT[r.geometry]
    mine = [False] * 25  # mine[q]: the mover holds the opponent's point q
    lowest_opp = 25  # the opponent's lowest occupied point, in its numbering
    for p in range(1, 25):
        q = their[p]
        if s.me[p]:
            mine[q] = True
        if s.opp[p] and q < lowest_opp:
            lowest_opp = q
    run = 0
    for q in range(1, 25):
        run = run + 1 if mine[q] else 0
        if run == 6 and lowest_opp >= q - 5:  # a run of six from q - 5, nothing of his below it
            return False
    return True


# --- §1.7, §4.4, §5.6: the end of a game -------------------------------------------------
def quadrant_locked(s: State) -> bool:
    """§5.6: the mover occupies all six of his own points 19..24."""
    return all(s.me[p] for p in range(19, 25))


def mother_pinned(me, pinned, point24: int) -> bool:
    """§4.4 ``mp(P)``: P has exactly one checker on his own point 24 and it is pinned."""
    return me[point24] == 1 and point24 in pinned


def game_ended(r: Ruleset, s: State) -> bool:
    """Whether the step just made by the mover ended the game (15th checker off, §5.6 lock,
    §4.4 plakoto mother rule)."""
    if s.me[0] == 15:
        return True
    if r.quadrant_lock_win and quadrant_locked(s):
        return True
    if r.mother_rule == "plakoto":
        x24 = r.opponent_point(24)  # the opponent's own 24, in the mover's numbering
        mp_x = mother_pinned(s.opp, s.pinned_opp, x24)
        mp_y = mother_pinned(s.me, s.pinned_me, 24)
        if mp_x and (mp_y or s.me[24] == 0):
            return True
    return False
