"""Backgammon move generation against GNU Backgammon in the regions that W1 and self-play visit
rarely: bear-off with opponent blots in the mover's home, the opponent on the bar, both sides on
the bar, entering against a nearly closed board (doubles that enter only partly), closed boards
and primes, and the last few checkers of each side (RULES.md §2.1, §1.4, §1.5, D17).

Positions come from seeded generators, one per region (below). For every position and all 21
rolls the set of resulting positions of the fast engine (``tawla.expand``) must equal GNU
Backgammon's (``gnubg_nn.moves``; a pass is the position itself); the reference engine is
compared on every ``REF_EVERY``-th position. Both sides are compared as GNU Backgammon position
keys (the 10 bytes of the Position ID, one letter per nibble), so a child is never converted
back and forth through Python objects. ``-s`` prints the pairs compared per region.
"""

from __future__ import annotations

import numpy as np
import pytest

import tawla
from tawla.position import Position

from conftest import require_module

BG = tawla.get_ruleset("backgammon")
ROLLS = [(int(a), int(b)) for a, b in tawla.ROLLS]
ME, OPP = 0, 1
REF_EVERY = 40  # the reference engine on every 40th position (2.5 %)


# --- positions, built in each side's own numbering (0 off, 1..24, 25 bar) ---------------------
class Board:
    """Two sides' checkers in their own numbering; the mover's p is the opponent's 25 - p."""

    def __init__(self):
        self.side = [[0] * 26, [0] * 26]

    def free(self, s: int, p: int) -> bool:
        """Whether side s may put checkers on its point p (no checker of the other side there)."""
        return p in (0, 25) or self.side[1 - s][25 - p] == 0

    def put(self, s: int, p: int, n: int = 1) -> None:
        assert self.free(s, p)
        self.side[s][p] += n

    def left(self, s: int) -> int:
        return 15 - sum(self.side[s])

    def scatter(self, rng, s: int, k: int, points) -> None:
        """Put k checkers of side s on a few random free points of ``points`` (any free point
        when none of those is free)."""
        if k <= 0:
            return
        pts = [p for p in points if self.free(s, p)] or [p for p in range(1, 25) if self.free(s, p)]
        m = int(rng.integers(1, min(k, len(pts), 6) + 1))
        chosen = rng.choice(pts, size=m, replace=False)
        counts = 1 + rng.multinomial(k - m, [1.0 / m] * m)
        for p, n in zip(chosen, counts):
            self.put(s, int(p), int(n))

    def make_points(self, rng, s: int, points, n_points: int) -> None:
        """Side s holds ``n_points`` of ``points`` (2 or 3 checkers each, as far as it has them)."""
        pts = [p for p in points if self.free(s, p) and self.side[s][p] == 0]
        for p in rng.choice(pts, size=min(n_points, len(pts)), replace=False):
            n = min(int(rng.integers(2, 4)), self.left(s))
            if n >= 2:
                self.put(s, int(p), n)

    def finish(self, rng, s: int, points, off_max: int = 0) -> None:
        """Checkers borne off (up to ``off_max``), the rest scattered on ``points``."""
        off = min(int(rng.integers(0, off_max + 1)), self.left(s) - 1) if off_max else 0
        if off > 0:
            self.side[s][0] += off
        self.scatter(rng, s, self.left(s), points)


ALL_POINTS = range(1, 25)


def gen_bearoff_blots(rng, b: Board) -> None:
    """The mover bears off (1..15 checkers left, all home); 1-4 opponent blots on free points of
    the mover's home, sometimes a made point there too, the opponent sometimes on the bar."""
    b.scatter(rng, ME, int(rng.integers(1, 16)), range(1, 7))
    b.side[ME][0] += b.left(ME)
    free_home = [p for p in range(1, 7) if b.side[ME][p] == 0]
    if free_home:
        n = int(rng.integers(1, min(4, len(free_home)) + 1))
        for p in rng.choice(free_home, size=n, replace=False):
            b.put(OPP, 25 - int(p))
    if rng.random() < 0.3:
        b.make_points(rng, OPP, range(19, 25), 1)
    b.put(OPP, 25, int(rng.choice([0, 0, 0, 1, 2])))
    b.finish(rng, OPP, range(1, 19), off_max=3)


def gen_opponent_on_bar(rng, b: Board) -> None:
    """1-4 opponent checkers on the bar; the mover bearing in or off (half the time) or spread
    out, with blots and points in his home board."""
    b.put(OPP, 25, int(rng.integers(1, 5)))
    if rng.random() < 0.5:
        b.scatter(rng, ME, int(rng.integers(1, 16)), range(1, 7))
        b.side[ME][0] += b.left(ME)
    else:
        b.make_points(rng, ME, range(1, 7), int(rng.integers(0, 5)))
        b.scatter(rng, ME, b.left(ME), ALL_POINTS)
    b.finish(rng, OPP, ALL_POINTS)


def gen_both_on_bar(rng, b: Board) -> None:
    """Both sides on the bar (1-3 each); half the time the opponent's home board is strong."""
    b.put(ME, 25, int(rng.integers(1, 4)))
    b.put(OPP, 25, int(rng.integers(1, 4)))
    if rng.random() < 0.5:
        b.make_points(rng, OPP, range(1, 7), int(rng.integers(2, 6)))
    b.make_points(rng, ME, range(1, 7), int(rng.integers(0, 4)))
    b.scatter(rng, ME, b.left(ME), ALL_POINTS)
    b.finish(rng, OPP, ALL_POINTS)


def gen_partial_entry(rng, b: Board) -> None:
    """The mover has 1-4 on the bar against 3-6 closed points of the opponent's home (doubles
    enter some of them or none), sometimes with an opponent blot in there."""
    b.put(ME, 25, int(rng.integers(1, 5)))
    b.make_points(rng, OPP, range(1, 7), int(rng.integers(3, 7)))
    if rng.random() < 0.4 and b.left(OPP):
        free = [q for q in range(1, 7) if b.free(OPP, q) and b.side[OPP][q] == 0]
        if free:
            b.put(OPP, int(rng.choice(free)))
    b.scatter(rng, ME, b.left(ME), ALL_POINTS)
    b.finish(rng, OPP, range(7, 25))


def gen_closed_board(rng, b: Board) -> None:
    """One side holds a closed home board or a 5-6 point prime; the other has checkers trapped
    behind it (on the bar when the home board is closed)."""
    holder = ME if rng.random() < 0.5 else OPP
    other = 1 - holder
    length = int(rng.integers(5, 7))
    start = 1 if rng.random() < 0.5 else int(rng.integers(1, 25 - length + 1))
    prime = range(start, start + length)
    for p in prime:
        b.put(holder, p, min(int(rng.integers(2, 4)), b.left(holder)))
    # the other side's points behind the prime (it moves down its own numbering): 26 - start ..
    behind = [q for q in range(26 - start, 25) if b.free(other, q)]
    trapped = int(rng.integers(1, 4))
    if start == 1 or not behind or rng.random() < 0.3:
        b.put(other, 25, trapped)
    else:
        b.scatter(rng, other, trapped, behind)
    b.finish(rng, other, ALL_POINTS, off_max=2)
    b.scatter(rng, holder, b.left(holder), ALL_POINTS)


def gen_last_checkers(rng, b: Board) -> None:
    """The mover has 1-3 checkers left anywhere (sometimes on the bar); the opponent 1-3 as well
    half of the time, else any number, anywhere."""
    k = int(rng.integers(1, 4))
    if rng.random() < 0.15:
        b.put(ME, 25)
        k -= 1
    b.scatter(rng, ME, k, range(1, 7) if rng.random() < 0.6 else ALL_POINTS)
    b.side[ME][0] += b.left(ME)
    n_opp = int(rng.integers(1, 4)) if rng.random() < 0.5 else int(rng.integers(4, 16))
    b.side[OPP][0] += 15 - n_opp
    if rng.random() < 0.2:
        b.put(OPP, 25)
    b.scatter(rng, OPP, b.left(OPP), ALL_POINTS)


REGIONS = {
    "bear-off, opponent blots in the mover's home": gen_bearoff_blots,
    "opponent on the bar": gen_opponent_on_bar,
    "both sides on the bar": gen_both_on_bar,
    "mover on the bar against a nearly closed board": gen_partial_entry,
    "closed boards and primes": gen_closed_board,
    "last few checkers": gen_last_checkers,
}


def region_positions(gen, n: int, seed: int):
    """``n`` positions of one region: (rows uint8[n, 56], gnubg boards)."""
    rng = np.random.default_rng(seed)
    positions, boards = [], []
    while len(positions) < n:
        b = Board()
        gen(rng, b)
        me, opp = b.side
        assert sum(me) == 15 and sum(opp) == 15 and me[0] < 15 and opp[0] < 15
        positions.append(Position._from_own_coords(BG, me, opp))
        boards.append([opp[1:26], me[1:26]])
    return tawla.positions_to_array(positions), boards


# --- GNU Backgammon position keys of rows ------------------------------------------------------
def gnubg_keys(rows: np.ndarray) -> np.ndarray:
    """The gnubg position keys (bytes, 20 letters A-P) of children rows (``uint8[M, 56]``, seen
    from the next player): the board (side to move next, other side), each side's points 1..24
    and bar in its own numbering, encoded as in the Position ID (per entry, one bit per checker
    then a 0, little-endian) and written one letter per nibble, high nibble first."""
    c = rows.astype(np.int64)
    counts = np.concatenate([c[:, 1:26], c[:, 50:26:-1], c[:, 51:52]], axis=1)  # [M, 50]
    ends = np.cumsum(counts + 1, axis=1) - 1  # the 0 bit closing each entry (at most 79)
    bits = np.arange(80)[None, :] < (ends[:, -1:] + 1)
    bits[np.repeat(np.arange(len(c)), 50), ends.ravel()] = False
    packed = np.packbits(bits, axis=1, bitorder="little")
    letters = np.stack([packed >> 4, packed & 15], axis=2).reshape(len(c), 20) + ord("A")
    return np.ascontiguousarray(letters.astype(np.uint8)).view("S20").ravel()


def children_keys(rows: np.ndarray, engine: str) -> list[set]:
    """For every (row, roll) pair, in row-then-roll order, the set of its children's keys."""
    rep = np.repeat(rows, 21, axis=0)
    dice = np.tile(tawla.ROLLS, (len(rows), 1))
    children, parent = tawla.expand(rep, dice, ruleset=BG, engine=engine)
    keys = gnubg_keys(children)
    bounds = np.searchsorted(parent, np.arange(len(rep) + 1))
    out = []
    for i in range(len(rep)):
        ks = keys[bounds[i]:bounds[i + 1]]
        s = set(ks.tolist())
        assert len(s) == len(ks), f"duplicate children for pair {i} ({engine})"
        out.append(s)
    return out


def compare_region(g, name: str, n_positions: int, seed: int) -> tuple[int, int, int, list]:
    """(pairs, reference pairs, disagreements, report lines) for one region."""
    rows, boards = region_positions(REGIONS[name], n_positions, seed)
    fast = children_keys(rows, "fast")
    sub = np.arange(0, len(rows), REF_EVERY)
    ref = children_keys(rows[sub], "reference")
    pairs = ref_pairs = bad = 0
    report = []
    moves, key_of_board = g.moves, g.key_of_board
    for i, board in enumerate(boards):
        for k, (d1, d2) in enumerate(ROLLS):
            theirs = {x.encode() for x in moves(board, d1, d2)} or {key_of_board(board).encode()}
            ours = [("fast", fast[i * 21 + k])]
            if i % REF_EVERY == 0:
                ours.append(("reference", ref[(i // REF_EVERY) * 21 + k]))
                ref_pairs += 1
            pairs += 1
            for engine, got in ours:
                if got != theirs:
                    bad += 1
                    if len(report) < 5:
                        pos = Position(rows[i].tobytes(), BG)
                        report.append(f"{name}: {pos.gnubg_id()} {d1}-{d2} {engine}: "
                                      f"{len(got - theirs)} not in gnubg, {len(theirs - got)} missing")
    return pairs, ref_pairs, bad, report


def run_regions(n_per_region: int, seed: int, min_pairs: int) -> None:
    g = require_module("gnubg_nn")
    # the key encoding is GNU Backgammon's own (checked on a few boards of every region)
    for j, name in enumerate(REGIONS):
        rows, boards = region_positions(REGIONS[name], 20, seed + 1000 + j)
        flipped = np.array([np.frombuffer(Position(r.tobytes(), BG).flip().row, np.uint8) for r in rows])
        assert gnubg_keys(flipped).tolist() == [g.key_of_board(b).encode() for b in boards]
    counts, total, bad, report = {}, 0, 0, []
    for j, name in enumerate(REGIONS):
        pairs, ref_pairs, b, rep = compare_region(g, name, n_per_region, seed + j)
        counts[name] = (pairs, ref_pairs, b)
        total += pairs
        bad += b
        report += rep
    table = "\n".join(f"  {name}: {p:,} (position, roll) pairs, {r:,} of them on the reference too; "
                      f"{b} disagreements" for name, (p, r, b) in counts.items())
    print(f"\n[regions vs GNU Backgammon] {total:,} pairs, {bad} disagreements\n{table}")
    assert bad == 0 and total >= min_pairs, f"{bad} disagreements in {total:,} pairs\n{table}\n" + "\n".join(report)


def test_regions_match_gnubg():
    run_regions(n_per_region=1200, seed=20261201, min_pairs=150_000)


@pytest.mark.slow
def test_regions_match_gnubg_slow():
    run_regions(n_per_region=8000, seed=777, min_pairs=1_000_000)
