"""The property tests' oracle: a second, deliberately plain reading of RULES.md §§1.3-1.5, 2.1,
4.2-4.4, 5.2-5.6, 6.2-6.5 and the §1.4 algorithm that shares no code with the engine
(tests/test_properties.py checks the engine against it)."""

from __future__ import annotations

from typing import NamedTuple

# =================================================================================================
# The oracle: a board in the mover's numbering (mover's checkers me[0..25], opponent's checkers
# indexed by the mover's points opp[0..25]; 0 = off, 25 = bar), plus the pinned points.
# =================================================================================================
class Rules(NamedTuple):
    """What the oracle needs to know about a ruleset, read once from its name and options."""

    name: str
    kind: str  # "hit" (§2.1), "pin" (§4.2) or "block" (§5.2, §6.2)
    lock_upto: int  # §5.3 / §6.3: 0, 6 or 12
    bear_no_pinned: bool  # §4.3
    bear_no_opponent_home: bool  # §5.5 (option)
    quadrant: bool  # §5.6 (option)
    plakoto: bool  # §4.4 (option)
    wall: bool  # §6.5
    same: bool  # §1.1 SAME geometry
    can_freeze: bool  # the no-hit games (§1.7)
    cube: bool


def rules_of(ruleset) -> Rules:
    n = ruleset.name
    return Rules(
        name=n,
        kind={"backgammon": "hit", "adi": "hit", "mahbusa": "pin"}.get(n, "block"),
        lock_upto={"tawla31": 6, "tawla31-saharat": 12}.get(n, 0),
        bear_no_pinned=n == "mahbusa",
        bear_no_opponent_home=n == "tawla31" and ruleset.options.get("bearoff_no_opponent_in_home", True),
        quadrant=n == "tawla31" and ruleset.options.get("quadrant_lock_win", True),
        plakoto=ruleset.options.get("mother_rule") == "plakoto",
        wall=n == "tawla31-saharat",
        same=n == "tawla31-saharat",
        can_freeze=n not in ("backgammon", "adi"),
        cube=n == "backgammon",
    )


def _their_point(r: Rules, p: int) -> int:
    """The opponent's own number for the mover's point p (RULES.md §1.1 table)."""
    return (p + 11) % 24 + 1 if r.same else 25 - p


class Board:
    __slots__ = ("me", "opp", "pinned_me", "pinned_opp")

    def __init__(self, me, opp, pinned_me, pinned_opp):
        self.me, self.opp, self.pinned_me, self.pinned_opp = me, opp, pinned_me, pinned_opp

    @classmethod
    def of(cls, position) -> "Board":
        """From the packed row (layout of tawla.core.layout: counts, then 24 pin bits for the mover)."""
        row = position.row
        me, opp = list(row[0:26]), list(row[26:52])
        bits = row[52] | row[53] << 8 | row[54] << 16
        pinned_me = frozenset(p for p in range(1, 25) if bits >> (p - 1) & 1)
        pinned_opp = frozenset(p for p in range(1, 25) if me[p] and opp[p] and p not in pinned_me)
        return cls(me, opp, pinned_me, pinned_opp)

    def key(self) -> bytes:
        """The packed row of this board (tawla.core.layout), to compare with ``Move.after``."""
        bits = 0
        if self.pinned_me:
            for p in self.pinned_me:
                bits |= 1 << (p - 1)
        return bytes(self.me) + bytes(self.opp) + bytes((bits & 255, bits >> 8 & 255, bits >> 16, 0))


def oracle_can_land(r, b: Board, t: int) -> bool:
    kind = r.kind
    if kind == "hit":  # §2.1
        return b.opp[t] <= 1
    if kind == "block":  # §5.2, §6.2
        return b.opp[t] == 0
    # §4.2: empty; the mover's own top checkers; a lone opponent checker (pinned on landing)
    if b.me[t] == 0 and b.opp[t] == 0:
        return True
    if b.me[t] > 0 and t not in b.pinned_me:
        return True
    return b.opp[t] == 1 and b.me[t] == 0


def oracle_locked(r, b: Board) -> bool:
    """§5.3 / §6.3: no own checker on 1..6 (T31E) or 1..12 (T31S) and none off."""
    return r.lock_upto > 0 and b.me[0] == 0 and not any(b.me[1:r.lock_upto + 1])


def oracle_may_bear_off(r, b: Board) -> bool:
    if b.me[0] + sum(b.me[1:7]) != 15:  # §1.5: everything home (none on the bar)
        return False
    if r.bear_no_pinned and b.pinned_me:  # §4.3
        return False
    if r.bear_no_opponent_home and any(b.opp[1:7]):  # §5.5
        return False
    return True


def oracle_steps(r, b: Board, d: int) -> list:
    """Single steps (from, to) with die d before the post-step check."""
    if r.kind == "hit" and b.me[25]:  # §2.1: the bar first
        return [(25, 25 - d)] if oracle_can_land(r, b, 25 - d) else []
    out = []
    locked = oracle_locked(r, b)
    for p in range(24, 0, -1):
        if b.me[p] == 0 or p in b.pinned_me:
            continue
        if p == 24 and locked and b.me[24] != 15:
            continue
        t = p - d
        if t >= 1:
            if oracle_can_land(r, b, t):
                out.append((p, t))
        elif oracle_may_bear_off(r, b) and (t == 0 or not any(b.me[p + 1:25])):
            out.append((p, 0))
    return out


def oracle_step_ok(r, b: Board, p: int, t: int, d: int) -> bool:
    """Whether moving one checker from p to t with die d is a legal single step (before §6.5)."""
    if r.kind == "hit" and b.me[25] and p != 25:
        return False
    if p == 25:
        return r.kind == "hit" and b.me[25] > 0 and t == 25 - d and oracle_can_land(r, b, t)
    if not 1 <= p <= 24 or b.me[p] == 0 or p in b.pinned_me:
        return False
    if p == 24 and oracle_locked(r, b) and b.me[24] != 15:
        return False
    if p - d >= 1:
        return t == p - d and oracle_can_land(r, b, t)
    return t == 0 and oracle_may_bear_off(r, b) and (p == d or not any(b.me[p + 1:25]))


def oracle_apply(r, b: Board, p: int, t: int) -> Board:
    me, opp, pinned_opp = list(b.me), list(b.opp), set(b.pinned_opp)
    me[p] -= 1
    if me[p] == 0:
        pinned_opp.discard(p)  # §4.2: the last pinner left
    if t == 0:
        me[0] += 1
    else:
        if opp[t] == 1 and me[t] == 0:
            if r.kind == "hit":
                opp[t] -= 1
                opp[25] += 1
            elif r.kind == "pin":
                pinned_opp.add(t)
        me[t] += 1
    return Board(me, opp, b.pinned_me, frozenset(pinned_opp))


_SAME_MAP = [0] + [(p + 11) % 24 + 1 for p in range(1, 25)]  # mover's p -> opponent's own q (T31S)


def oracle_wall_ok(r, b: Board) -> bool:
    """§6.5: no six consecutive mover points on the opponent's path (its own numbering 1..24, no
    wrap) without an opponent checker ahead of the run (lower on its path) or off."""
    if not r.wall or b.opp[0]:
        return True
    me, opp = b.me, b.opp
    mine = 0  # bit q-1 set: the mover holds the opponent's point q
    lowest = 25  # the opponent's lowest occupied point, in its numbering
    for p in range(1, 25):
        q = _SAME_MAP[p]
        if me[p]:
            mine |= 1 << (q - 1)
        elif opp[p] and q < lowest:
            lowest = q
    runs = mine & mine >> 1 & mine >> 2 & mine >> 3 & mine >> 4 & mine >> 5  # bit: a run of 6 starts
    if not runs:
        return True
    first = (runs & -runs).bit_length()  # the lowest point where a run of six starts
    return lowest < first


def oracle_ended(r, b: Board) -> bool:
    if b.me[0] == 15:
        return True
    if r.quadrant and all(b.me[19:25]):  # §5.6
        return True
    if r.plakoto:  # §4.4 (the opponent's own 24 is the mover's 1)
        theirs = b.opp[1] == 1 and 1 in b.pinned_opp
        mine = b.me[24] == 1 and 24 in b.pinned_me
        return theirs and (mine or b.me[24] == 0)
    return False


def oracle_next(r, b: Board, d: int):
    for p, t in oracle_steps(r, b, d):
        n = oracle_apply(r, b, p, t)
        if oracle_wall_ok(r, n):
            yield (p, t), n


def oracle_finals(r, b: Board, dice) -> dict:
    """§1.4 legal_turns: {final board key: ended} of the kept sequences."""
    a, c = dice
    all_dice = (a,) * 4 if a == c else (a, c)
    found = []  # (len', first die, key, ended)
    seen = set()

    def rec(s, remaining, first, used):
        mark = (s.key(), tuple(sorted(remaining)), first)
        if mark in seen:
            return
        seen.add(mark)
        moved = False
        for d in set(remaining):
            rest = list(remaining)
            rest.remove(d)
            for _, n in oracle_next(r, s, d):
                moved = True
                if oracle_ended(r, n):  # D17: len' is every die unless the last checker came off
                    found.append((len(all_dice) if n.me[0] < 15 else used + 1, first or d, n.key(), True))
                else:
                    rec(n, rest, first or d, used + 1)
        if not moved:
            found.append((used, first, s.key(), False))

    rec(b, list(all_dice), 0, 0)
    best = max(x[0] for x in found)
    if best == 0:
        return {}
    kept = [x for x in found if x[0] == best]
    if best == 1 and a != c and any(x[1] == max(a, c) for x in kept):
        kept = [x for x in kept if x[1] == max(a, c)]
    return {x[2]: x[3] for x in kept}


def oracle_can_step(r, b: Board) -> bool:
    return any(True for d in range(1, 7) for _ in oracle_next(r, b, d))


def board_ok(r, b: Board) -> bool:
    """15 checkers a side; both colours on a point only as a Mahbusa pin stack of one pinned checker."""
    me, opp = b.me, b.opp
    if sum(me) != 15 or sum(opp) != 15 or min(me) < 0 or min(opp) < 0:
        return False
    shared = {p for p in range(1, 25) if me[p] and opp[p]}
    if r.kind != "pin":
        return not shared and not b.pinned_me and not b.pinned_opp
    if b.pinned_me & b.pinned_opp or b.pinned_me | b.pinned_opp != shared:
        return False
    return all(me[p] == 1 for p in b.pinned_me) and all(opp[p] == 1 for p in b.pinned_opp)


def oracle_result(r, position, cube=1):
    """§1.7 / §1.8 from scratch: (winner relative to the seat, kind, points), or None."""
    b = Board.of(position)
    for winner, win, lose, lose_home, lose_bar in (
            (0, b.me, b.opp, b.opp[1:7], b.opp[25]),  # the loser's checkers in the winner's home
            (1, b.opp, b.me, [b.me[p] for p in range(1, 25) if _their_point(r, p) <= 6], b.me[25])):
        if win[0] == 15:
            if r.name == "tawla31":  # §5.7
                return winner, "gammon" if lose[0] == 0 else "single", 15 - lose[0]
            if lose[0]:
                return winner, "single", cube if r.cube else 1
            if r.cube and (any(lose_home) or lose_bar):  # §2.2
                return winner, "backgammon", 3 * cube
            return winner, "gammon", 2 * cube if r.cube else 2
    if r.quadrant:
        if all(b.me[19:25]):
            return 0, "quadrant_lock", 15 - b.opp[0]
        if all(b.opp[1:7]):  # the opponent's own 19..24
            return 1, "quadrant_lock", 15 - b.me[0]
    if r.plakoto:
        mine = b.me[24] == 1 and 24 in b.pinned_me
        theirs = b.opp[1] == 1 and 1 in b.pinned_opp
        if mine and theirs:
            return None, "draw", 0
        if theirs and b.me[24] == 0:
            return 0, "mother", 2
        if mine and b.opp[1] == 0:
            return 1, "mother", 2
    if r.can_freeze and not oracle_can_step(r, b) and not oracle_can_step(r, Board.of(position.flip())):
        return None, "draw", 0
    return None
