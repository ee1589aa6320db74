"""The bear-off databases built in numpy: the twin of the compiled builders (:func:`tawla.native.build_one_sided`).

Positions are 6-tuples ``n[0..5]`` = one side's checkers on its points 1..6. Their index
is the colex rank of the stars-and-bars word: with ``c_k = n1 + ... + nk``,

    rank(n) = sum_{k=1..6} C(c_k + k - 1, k)

a bijection from the positions of at most ``C`` checkers onto ``[0, C(C + 6, 6))``;
positions of at most 6 checkers are ranks ``0..923`` (the two-sided index).

Movement is the bear-off of RULES.md §1.5 with no opponent checker in the way: a die ``d``
moves a checker from ``p`` to ``p - d``, bears it off when ``p == d``, or when ``p < d``
and ``p`` is the highest occupied point. With no blocking every die is playable while a
checker remains, so the maximum-dice rule (§1.4) only says "play all the dice"; the dice
left once the last checker is off are void (D17).

The builders work on whole layers of positions at once: every play lowers the pip count,
so the positions of one pip count depend only on positions of lower counts. A play is a
chain of single-die moves, each a lookup in a transition table ``[source and die, rank]``.
Plays are tried in the order of the compiled builder and the first best one is kept, so
both builders make the same choice between plays of equal expected rolls and give the
same tables.
"""

from __future__ import annotations

from itertools import combinations

import numpy as np

__all__ = ["n_positions", "unrank", "rank", "build_one_sided", "build_two_sided", "children", "ROLL_DICE",
           "ROLL_PROBS", "DIST_LEN"]

DIST_LEN = 33
"""Entries of a one-sided distribution row: the probabilities of needing 0..32 rolls."""

ROLL_DICE = tuple((i, j) for i in range(1, 7) for j in range(i, 7))
"""The 21 rolls (low die first) in the builders' order."""
ROLL_PROBS = tuple((1.0 if i == j else 2.0) / 36.0 for i, j in ROLL_DICE)
"""Probability of each roll of :data:`ROLL_DICE`."""

_BINOM = np.zeros((32, 8), dtype=np.int64)
for _n in range(32):
    _BINOM[_n, 0] = 1
    for _k in range(1, 8):
        if _n:
            _BINOM[_n, _k] = _BINOM[_n - 1, _k - 1] + _BINOM[_n - 1, _k]


def n_positions(checkers: int) -> int:
    """Number of positions of up to ``checkers`` checkers on 6 points: C(checkers + 6, 6)."""
    return int(_BINOM[checkers + 6, 6])


def rank(points: np.ndarray) -> np.ndarray:
    """Index of each row of an ``int[..., 6]`` array of positions (checkers on points 1..6)."""
    c = np.cumsum(points, axis=-1)
    return _BINOM[c + np.arange(6), np.arange(1, 7)].sum(axis=-1)


def unrank(checkers: int) -> np.ndarray:
    """``int32[C(checkers + 6, 6), 6]``: the position of every index."""
    # stars and bars: 6 bars among checkers + 6 places; the stars before bar k are on point k
    bars = np.array(list(combinations(range(checkers + 6), 6)), dtype=np.int64).reshape(-1, 6)
    pts = np.diff(np.concatenate([np.full((len(bars), 1), -1), bars], axis=1), axis=1) - 1
    out = np.zeros((len(pts), 6), dtype=np.int32)
    out[rank(pts)] = pts
    return out


def _transitions(table: np.ndarray) -> np.ndarray:
    """``int64[36, N + 1]``: the index after one checker moves from point ``p`` by die ``d``
    (row ``6 * (p - 1) + d - 1``); ``N`` where that move is impossible (column ``N`` is the
    impossible position itself). The empty position stays empty: dice left after the last
    checker is off are void."""
    n = len(table)
    occupied = table > 0
    highest = np.where(occupied.any(1), 6 - np.argmax(occupied[:, ::-1], axis=1), 0)
    out = np.full((36, n + 1), n, dtype=np.int64)
    for p in range(1, 7):
        for d in range(1, 7):
            ok = occupied[:, p - 1] if p >= d else occupied[:, p - 1] & (highest == p)
            after = table[ok].astype(np.int64)
            after[:, p - 1] -= 1
            if p > d:
                after[:, p - 1 - d] += 1
            row = out[6 * (p - 1) + d - 1]
            row[np.flatnonzero(ok)] = rank(after)
            row[0] = 0
    return out


def _play_orders():
    """For each roll, the chains of single-die moves of the compiled builder, in its order.

    Returns a list of 21 lists of levels; each level is ``(parent, move)``: for every chain
    prefix of that length, the index of its parent prefix (one shorter) and its last move
    (a row of :func:`_transitions`). The last level lists the whole plays."""
    orders = []
    for d1, d2 in ROLL_DICE:
        if d1 != d2:
            # for p = 1..6: d1 from p then d2 from q = 1..6, d2 from p then d1 from q = 1..6
            first = [6 * (p - 1) + d - 1 for p in range(1, 7) for d in (d1, d2)]
            parent, move = [], []
            for i, m in enumerate(first):
                other = d2 if m % 6 == d1 - 1 else d1
                for q in range(1, 7):
                    parent.append(i)
                    move.append(6 * (q - 1) + other - 1)
            orders.append([(np.zeros(12, np.int64), np.array(first)), (np.array(parent), np.array(move))])
            continue
        # doubles: four moves from points that never increase, highest first
        levels, prev = [], [()]
        for _ in range(4):
            parent, move, nxt = [], [], []
            for i, chain in enumerate(prev):
                top = chain[-1] if chain else 6
                for p in range(top, 0, -1):
                    parent.append(i)
                    move.append(6 * (p - 1) + d1 - 1)
                    nxt.append(chain + (p,))
            levels.append((np.array(parent), np.array(move)))
            prev = nxt
        orders.append(levels)
    return orders


def _plays(trans: np.ndarray, order, ranks: np.ndarray) -> np.ndarray:
    """``int64[plays, M]``: the index each play of one roll leads to from each of ``ranks``."""
    stride = trans.shape[1]
    flat = trans.reshape(-1)
    cur = ranks[None, :]
    for parent, move in order:
        cur = np.take(flat, (move * stride)[:, None] + cur[parent])
    return cur


def _step(n: tuple, p: int, d: int):
    """``n`` after one checker moves from point ``p`` by die ``d``, or None where it cannot."""
    if n[p - 1] == 0:
        return None
    m = list(n)
    m[p - 1] -= 1
    if p > d:
        m[p - 1 - d] += 1
        return tuple(m)
    if p == d or max(i + 1 for i in range(6) if n[i]) == p:
        return tuple(m)
    return None


def _finals(n: tuple, dice: list, out: set) -> None:
    """Add to ``out`` every position reached from ``n`` by playing ``dice`` in this order."""
    if not any(n) or not dice:  # dice left once the last checker is off are void
        out.add(n)
        return
    for p in range(1, 7):
        m = _step(n, p, dice[0])
        if m is not None:
            _finals(m, dice[1:], out)


def children(position, d1: int, d2: int) -> list:
    """Sorted distinct indices of the positions reachable from ``position`` (6 ints, at most
    15 checkers, assumed valid) with the roll ``(d1, d2)``.

    Plays are walked one die at a time in Python, apart from the transition tables of the
    builders, so that a test can set one against the other."""
    start = tuple(int(x) for x in position)
    orders = [[d1] * 4] if d1 == d2 else [[d1, d2], [d2, d1]]
    out: set = set()
    for dice in orders:
        _finals(start, dice, out)
    return sorted(int(rank(np.array(n))) for n in out)


def _layers(table: np.ndarray):
    """The indices of each pip count, lowest first (a play always lowers the count)."""
    pips = table @ np.arange(1, 7)
    order = np.argsort(pips, kind="stable")
    bounds = np.searchsorted(pips[order], np.arange(pips.max() + 2))
    return [order[bounds[s]:bounds[s + 1]] for s in range(pips.max() + 1)]


def build_one_sided(checkers: int = 15):
    """Distributions of the rolls to bear off all checkers and to bear off the first one.

    Parameters
    ----------
    checkers : int
        At most so many checkers (15 for the database).

    Returns
    -------
    dist_all, dist_first : float64[C(checkers + 6, 6), 33]
        ``[r, k]`` = probability that position ``r`` needs exactly ``k`` rolls (``k = 0``
        only for the empty position). Each table's plays minimise the expected number of
        rolls of that table (the first such play in the builders' order).
    """
    table = unrank(checkers)
    n = len(table)
    trans = _transitions(table)
    orders = _play_orders()
    count = np.append(table.sum(1), 99)  # the impossible position never has fewer checkers
    mean_all = np.full(n + 1, np.inf)
    mean_first = np.full(n + 1, np.inf)
    dist_all = np.zeros((n + 1, DIST_LEN))
    dist_first = np.zeros((n + 1, DIST_LEN))
    mean_all[0] = mean_first[0] = 0.0
    dist_all[0, 0] = dist_first[0, 0] = 1.0
    for ranks in _layers(table)[1:]:
        m = len(ranks)
        cols = np.arange(m)
        cn = count[ranks]
        e_all, e_first = np.ones(m), np.ones(m)
        d_all, d_first = np.zeros((m, DIST_LEN)), np.zeros((m, DIST_LEN))
        for order, w in zip(orders, ROLL_PROBS):
            kids = _plays(trans, order, ranks)
            v = mean_all[kids]
            j = np.argmin(v, axis=0)
            e_all += w * v[j, cols]
            d_all[:, 1:] += w * dist_all[kids[j, cols], :-1]
            # first-off: a play that bears a checker off needs no more rolls
            done = (count[kids] < cn).any(axis=0)
            vf = mean_first[kids]
            jf = np.argmin(vf, axis=0)
            e_first += w * np.where(done, 0.0, vf[jf, cols])
            d_first[:, 1:] += w * np.where(done[:, None], 0.0, dist_first[kids[jf, cols], :-1])
            d_first[done, 1] += w
        mean_all[ranks], mean_first[ranks] = e_all, e_first
        dist_all[ranks], dist_first[ranks] = d_all, d_first
    return dist_all[:n], dist_first[:n]


def build_two_sided(checkers: int = 6) -> np.ndarray:
    """Exact cubeless probability that the side on roll wins, ``float64[N * N]``.

    ``p[a * N + b]``: the side on roll has position ``a`` (index), the opponent ``b``, both
    playing to maximise their own winning chances; ``N = C(checkers + 6, 6)``.
    """
    table = unrank(checkers)
    n = len(table)
    trans = _transitions(table)
    # distinct children of every position for each roll, padded with the index n
    kids = []
    for order in _play_orders():
        k = np.sort(_plays(trans, order, np.arange(n)), axis=0)
        k[1:][k[1:] == k[:-1]] = n
        k = np.sort(k, axis=0)
        kids.append((k, (k < n).sum(0)))
    # P[a, b], with a column n that never wins the min and P[b, 0] = 0 (the opponent is off)
    P = np.zeros((n + 1, n + 1))
    P[:, n] = 2.0
    flat = P.reshape(-1)
    pips = table @ np.arange(1, 7)
    by_pip = [np.flatnonzero(pips == s) for s in range(pips.max() + 1)]
    top = len(by_pip) - 1
    for s in range(2 * top + 1):
        for pa in range(max(0, s - top), min(s, top) + 1):
            A, B = by_pip[pa], by_pip[s - pa]
            if pa == 0:
                P[0, B] = 1.0
                continue
            if s == pa:
                P[A, 0] = 0.0
                continue
            acc = np.zeros((len(B), len(A)))
            for (k, width), w in zip(kids, ROLL_PROBS):
                ka = k[:width[A].max(), A]  # [plays, |A|]
                acc += w * (1.0 - np.take(flat, (B * (n + 1))[:, None, None] + ka[None]).min(axis=1))
            P[A[:, None], B[None, :]] = np.clip(acc, 0.0, 1.0).T
    return np.ascontiguousarray(P[:n, :n]).reshape(-1)
