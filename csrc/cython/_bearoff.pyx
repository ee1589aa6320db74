# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Bear-off database builders in C (one-sided 6x15, two-sided 6x6).

Positions are 6-tuples ``n[0..5]`` = checkers on points 1..6 of one side. Their index
is the colex rank of the stars-and-bars word (``n1`` stars, a bar, ``n2`` stars, a bar,
... ``n6`` stars, a bar): with ``c_k = n1 + ... + nk``,

    rank(n) = sum_{k=1..6} C(c_k + k - 1, k)

which is a bijection from positions with at most ``C`` checkers onto ``[0, C(C+6, 6))``.
Positions with at most 6 checkers are exactly ranks ``0..923``, so the two-sided
database uses the same index as the first 924 rows of the one-sided one.

Movement is the bear-off of RULES.md §1.5 with no opponent checker in the way: a die
``d`` moves a checker from ``p`` to ``p - d``, bears it off when ``p == d``, or when
``p < d`` and ``p`` is the highest occupied point. With no blocking every die is
playable while a checker remains, so the maximum-dice rule only says "play all dice"
(the remaining dice are void once the last checker is off, D17).
"""

import numpy as np
cimport numpy as cnp
from libc.string cimport memset, memcpy
from libc.stdlib cimport malloc, free

cnp.import_array()

DEF NPTS = 6
DEF KMAX = 33          # distribution slots: 0..32 rolls
DEF MAXCH = 15

cdef int BINOM[32][8]
cdef int _i, _j
for _i in range(32):
    for _j in range(8):
        BINOM[_i][_j] = 0
for _i in range(32):
    BINOM[_i][0] = 1
    for _j in range(1, 8):
        if _i > 0:
            BINOM[_i][_j] = BINOM[_i - 1][_j - 1] + BINOM[_i - 1][_j]

cdef double RW[21]
cdef int RD[21][2]
_k = 0
for _i in range(1, 7):
    for _j in range(_i, 7):
        RD[_k][0] = _i
        RD[_k][1] = _j
        RW[_k] = (1.0 if _i == _j else 2.0) / 36.0
        _k += 1


cdef inline int rank6(const int* n) noexcept nogil:
    cdef int k, c = 0, r = 0
    for k in range(NPTS):
        c += n[k]
        r += BINOM[c + k][k + 1]
    return r


def n_positions(int checkers):
    """Number of positions of up to ``checkers`` checkers on 6 points: C(checkers + 6, 6)."""
    return BINOM[checkers + 6][6]


def rank_array(cnp.ndarray pts):
    """Ranks of an ``int[N, 6]`` array of positions (checkers on points 1..6)."""
    cdef const long[:, :] a = np.ascontiguousarray(pts, dtype=np.int_)
    cdef Py_ssize_t i, N = a.shape[0]
    cdef cnp.ndarray out = np.empty(N, dtype=np.int64)
    cdef long long[:] o = out
    cdef int n[6]
    cdef int k
    for i in range(N):
        for k in range(6):
            n[k] = <int>a[i, k]
        o[i] = rank6(n)
    return out


cdef void unrank_all(int checkers, int* table) noexcept:
    """Fill ``table[rank*6 + k]`` for every position of up to ``checkers`` checkers."""
    cdef int n[6]
    cdef int k, r
    cdef int total
    # odometer over all 6-tuples with sum <= checkers
    memset(n, 0, sizeof(n))
    while True:
        r = rank6(n)
        for k in range(6):
            table[r * 6 + k] = n[k]
        # increment
        k = 0
        while k < 6:
            n[k] += 1
            total = n[0] + n[1] + n[2] + n[3] + n[4] + n[5]
            if total <= checkers:
                break
            n[k] = 0
            k += 1
        if k == 6:
            break


def unrank(int checkers):
    """``int32[C(checkers+6, 6), 6]``: the position of every rank."""
    cdef int N = BINOM[checkers + 6][6]
    out = np.zeros((N, 6), dtype=np.int32)
    cdef int[:, ::1] o = out
    unrank_all(checkers, &o[0, 0])
    return out


# --- move enumeration -------------------------------------------------------------------------
# A visitor is called with the rank of every final position of every legal play (with
# repetitions); the builders keep the best one.

cdef inline int highest(const int* n) noexcept nogil:
    cdef int p
    for p in range(5, -1, -1):
        if n[p]:
            return p + 1
    return 0


cdef inline bint step(int* n, int p, int d) noexcept nogil:
    """Move one checker from point p (1..6) by die d; False if illegal."""
    if n[p - 1] == 0:
        return False
    if p > d:
        n[p - 1] -= 1
        n[p - 1 - d] += 1
        return True
    if p == d or highest(n) == p:
        n[p - 1] -= 1
        return True
    return False


cdef inline void unstep(int* n, int p, int d) noexcept nogil:
    n[p - 1] += 1
    if p > d:
        n[p - 1 - d] -= 1


cdef inline int count(const int* n) noexcept nogil:
    return n[0] + n[1] + n[2] + n[3] + n[4] + n[5]


cdef int leaves(int* n, int d1, int d2, int* out) noexcept nogil:
    """Ranks of the final positions of every play of roll (d1, d2); returns how many."""
    cdef int m = 0, p, q, p2, p3, p4
    if count(n) == 0:
        out[0] = 0
        return 1
    if d1 != d2:
        # d1 first, then d2; and d2 first, then d1
        for p in range(1, 7):
            if step(n, p, d1):
                if count(n) == 0:
                    out[m] = 0; m += 1
                else:
                    for q in range(1, 7):
                        if step(n, q, d2):
                            out[m] = rank6(n); m += 1
                            unstep(n, q, d2)
                unstep(n, p, d1)
            if step(n, p, d2):
                if count(n) == 0:
                    out[m] = 0; m += 1
                else:
                    for q in range(1, 7):
                        if step(n, q, d1):
                            out[m] = rank6(n); m += 1
                            unstep(n, q, d1)
                unstep(n, p, d2)
        return m
    # doubles: four steps, sources non-increasing (every play has such an order)
    for p in range(6, 0, -1):
        if not step(n, p, d1):
            continue
        if count(n) == 0:
            out[m] = 0; m += 1
        else:
            for p2 in range(p, 0, -1):
                if not step(n, p2, d1):
                    continue
                if count(n) == 0:
                    out[m] = 0; m += 1
                else:
                    for p3 in range(p2, 0, -1):
                        if not step(n, p3, d1):
                            continue
                        if count(n) == 0:
                            out[m] = 0; m += 1
                        else:
                            for p4 in range(p3, 0, -1):
                                if step(n, p4, d1):
                                    out[m] = rank6(n); m += 1
                                    unstep(n, p4, d1)
                        unstep(n, p3, d1)
                unstep(n, p2, d1)
        unstep(n, p, d1)
    return m


def children(position, int d1, int d2):
    """Sorted distinct ranks of the positions reachable with roll (d1, d2) (for tests)."""
    cdef int n[6]
    cdef int buf[2048]
    cdef int k, m
    for k in range(6):
        n[k] = int(position[k])
    m = leaves(n, d1, d2, buf)
    return sorted(set(buf[k] for k in range(m)))


cdef void pip_order(int N, const int* table, int* order) noexcept:
    """Ranks sorted by pip count (counting sort): children always come first."""
    cdef int* pips = <int*>malloc(N * sizeof(int))
    cdef int cnt[100]
    cdef int r, k, s
    memset(cnt, 0, sizeof(cnt))
    for r in range(N):
        s = 0
        for k in range(6):
            s += (k + 1) * table[r * 6 + k]
        pips[r] = s
        cnt[s + 1] += 1
    for k in range(1, 100):
        cnt[k] += cnt[k - 1]
    for r in range(N):
        order[cnt[pips[r]]] = r
        cnt[pips[r]] += 1
    free(pips)


def build_one_sided(int checkers=15):
    """Distributions of rolls to bear off all checkers and to bear off the first one.

    Returns
    -------
    dist_all, dist_first : float64[N, 33]
        ``[r, k]`` = probability that position ``r`` needs exactly ``k`` rolls (k = 0
        only for the empty position). Moves minimise the expected number of rolls of
        the distribution in question (each table its own choice, as gnubg does).
    """
    cdef int N = BINOM[checkers + 6][6]
    table_np = np.zeros((N, 6), dtype=np.int32)
    order_np = np.zeros(N, dtype=np.int32)
    all_np = np.zeros((N, KMAX), dtype=np.float64)
    first_np = np.zeros((N, KMAX), dtype=np.float64)
    mean_all_np = np.zeros(N, dtype=np.float64)
    mean_first_np = np.zeros(N, dtype=np.float64)
    cdef int[:, ::1] table = table_np
    cdef int[::1] order = order_np
    cdef double[:, ::1] dall = all_np
    cdef double[:, ::1] dfirst = first_np
    cdef double[::1] mall = mean_all_np
    cdef double[::1] mfirst = mean_first_np
    unrank_all(checkers, &table[0, 0])
    pip_order(N, &table[0, 0], &order[0])
    cdef int* buf = <int*>malloc(4096 * sizeof(int))
    cdef int n[6]
    cdef int i, r, ri, k, m, j, c, cn, best_a, best_f
    cdef double ea, ef, v, e_all, e_first, w
    with nogil:
        for i in range(N):
            r = order[i]
            for k in range(6):
                n[k] = table[r, k]
            cn = count(n)
            if cn == 0:
                dall[r, 0] = 1.0
                dfirst[r, 0] = 1.0
                continue
            e_all = 1.0
            e_first = 1.0
            for ri in range(21):
                m = leaves(n, RD[ri][0], RD[ri][1], buf)
                w = RW[ri]
                best_a = -1; best_f = -1
                ea = 1e300; ef = 1e300
                for j in range(m):
                    c = buf[j]
                    v = mall[c]
                    if v < ea:
                        ea = v; best_a = c
                    # first-off: a child with fewer checkers is done (0 more rolls)
                    if c == 0 or table[c, 0] + table[c, 1] + table[c, 2] + table[c, 3] \
                            + table[c, 4] + table[c, 5] < cn:
                        v = 0.0
                        if v < ef:
                            ef = v; best_f = -2
                    else:
                        v = mfirst[c]
                        if v < ef:
                            ef = v; best_f = c
                e_all += w * ea
                e_first += w * ef
                for k in range(KMAX - 1):
                    dall[r, k + 1] += w * dall[best_a, k]
                if best_f == -2:
                    dfirst[r, 1] += w
                else:
                    for k in range(KMAX - 1):
                        dfirst[r, k + 1] += w * dfirst[best_f, k]
            mall[r] = e_all
            mfirst[r] = e_first
    free(buf)
    return all_np, first_np


def build_two_sided(int checkers=6):
    """Exact cubeless win probability for the side on roll, ``float64[N * N]``.

    ``p[a * N + b]``: the side on roll has position ``a`` (rank), the opponent ``b``;
    both play to maximise their own winning chances.
    """
    cdef int N = BINOM[checkers + 6][6]
    table_np = np.zeros((N, 6), dtype=np.int32)
    cdef int[:, ::1] table = table_np
    unrank_all(checkers, &table[0, 0])
    # CSR of distinct children for each (position, roll)
    cdef int* buf = <int*>malloc(4096 * sizeof(int))
    cdef int* seen = <int*>malloc(N * sizeof(int))
    starts_np = np.zeros(N * 21 + 1, dtype=np.int64)
    cdef long long[::1] starts = starts_np
    kids = []
    cdef int n[6]
    cdef int a, b, ri, m, j, c, k, s, pa
    cdef long long tot = 0
    for k in range(N):
        seen[k] = -1
    cdef list chunk
    for a in range(N):
        for k in range(6):
            n[k] = table[a, k]
        for ri in range(21):
            starts[a * 21 + ri] = tot
            m = leaves(n, RD[ri][0], RD[ri][1], buf)
            chunk = []
            for j in range(m):
                c = buf[j]
                if seen[c] != a * 21 + ri:
                    seen[c] = a * 21 + ri
                    chunk.append(c)
            kids.extend(chunk)
            tot += len(chunk)
    starts[N * 21] = tot
    free(buf)
    free(seen)
    kids_np = np.asarray(kids, dtype=np.int32)
    cdef int[::1] ch = kids_np
    # pips and buckets
    pips_np = (table_np * np.arange(1, 7, dtype=np.int32)).sum(axis=1).astype(np.int32)
    cdef int[::1] pips = pips_np
    by_pip_np = np.argsort(pips_np, kind="stable").astype(np.int32)
    cdef int[::1] by_pip = by_pip_np
    maxpip = int(pips_np.max())
    first_np = np.searchsorted(pips_np[by_pip_np], np.arange(maxpip + 2)).astype(np.int32)
    cdef int[::1] first = first_np
    out = np.zeros(N * N, dtype=np.float64)
    cdef double[::1] P = out
    cdef int MP = maxpip
    cdef int ia, ib, pb
    cdef long long lo, hi, t
    cdef double acc, mn, v
    with nogil:
        for s in range(0, 2 * MP + 1):
            for pa in range(0, MP + 1):
                pb = s - pa
                if pb < 0 or pb > MP:
                    continue
                for ia in range(first[pa], first[pa + 1]):
                    a = by_pip[ia]
                    for ib in range(first[pb], first[pb + 1]):
                        b = by_pip[ib]
                        if a == 0:
                            P[a * N + b] = 1.0
                            continue
                        if b == 0:
                            P[a * N + b] = 0.0
                            continue
                        acc = 0.0
                        for ri in range(21):
                            lo = starts[a * 21 + ri]
                            hi = starts[a * 21 + ri + 1]
                            mn = 2.0
                            for t in range(lo, hi):
                                c = ch[t]
                                v = P[b * N + c]
                                if c == 0:
                                    v = 0.0
                                if v < mn:
                                    mn = v
                            acc += RW[ri] * (1.0 - mn)
                        if acc < 0.0:
                            acc = 0.0
                        elif acc > 1.0:
                            acc = 1.0
                        P[a * N + b] = acc
    return out


def one_step(cnp.ndarray dist_in, cnp.ndarray mean_in):
    """Recompute every non-empty position's all-off distribution from a given table.

    For each roll the child with the smallest ``mean_in`` is chosen (first on ties) and
    the parent's distribution is the weighted sum of the chosen children's, shifted by
    one roll. Used by the tests to check that another database (gnubg's) is consistent
    with this move generator, given its own values.
    """
    cdef const double[:, ::1] din = np.ascontiguousarray(dist_in, dtype=np.float64)
    cdef const double[::1] mi = np.ascontiguousarray(mean_in, dtype=np.float64)
    cdef int N = din.shape[0]
    cdef int K = din.shape[1]
    cdef int checkers = 0
    while BINOM[checkers + 6][6] < N:
        checkers += 1
    table_np = np.zeros((N, 6), dtype=np.int32)
    cdef int[:, ::1] table = table_np
    unrank_all(checkers, &table[0, 0])
    out_np = np.zeros((N, K), dtype=np.float64)
    cdef double[:, ::1] out = out_np
    cdef int* buf = <int*>malloc(4096 * sizeof(int))
    cdef int n[6]
    cdef int r, ri, m, j, c, best, k
    cdef double e
    with nogil:
        for r in range(1, N):
            for k in range(6):
                n[k] = table[r, k]
            for ri in range(21):
                m = leaves(n, RD[ri][0], RD[ri][1], buf)
                best = buf[0]
                e = mi[best]
                for j in range(1, m):
                    c = buf[j]
                    if mi[c] < e:
                        e = mi[c]; best = c
                for k in range(K - 1):
                    out[r, k + 1] += RW[ri] * din[best, k]
    free(buf)
    out_np[0, 0] = 1.0
    return out_np
