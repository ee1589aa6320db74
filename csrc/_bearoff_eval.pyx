# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""C versions of tawla.evaluate's backgammon linear contact model (same features, same order).

``linear_bg(rows, W, cube)`` must equal ``LinearContact(W)(rows, ruleset)`` computed with
``tawla.evaluate.bg_features`` (a test checks it); the numpy version is the reference and
the one the fitting script uses.
"""

import numpy as np
cimport numpy as cnp
from libc.math cimport exp, log

cnp.import_array()

DEF NRAW = 98
DEF NHAND = 14
DEF NF = 2 * (NRAW + NHAND) + 1

cdef double SHOTS[26]
cdef double LOGMISS[26]
cdef int _d
for _d in range(26):
    SHOTS[_d] = 0.0
for _d, _n in {1: 11, 2: 12, 3: 14, 4: 15, 5: 15, 6: 17, 7: 6, 8: 6, 9: 5, 10: 3, 11: 2, 12: 3,
               15: 1, 16: 1, 18: 1, 20: 1, 24: 1}.items():
    SHOTS[_d] = _n / 36.0
for _d in range(26):
    LOGMISS[_d] = log(1.0 - (SHOTS[_d] if SHOTS[_d] < 0.999 else 0.999))


cdef void raw_features(const int* S, double* f) noexcept nogil:
    cdef int p, n
    for p in range(1, 25):
        n = S[p]
        f[p - 1] = 1.0 if n == 1 else 0.0
        f[24 + p - 1] = 1.0 if n == 2 else 0.0
        f[48 + p - 1] = 1.0 if n == 3 else 0.0
        f[72 + p - 1] = (n - 3) / 2.0 if n > 3 else 0.0
    f[96] = S[25] / 2.0
    f[97] = S[0] / 15.0


cdef void hand_features(const int* S, const int* O, double* f) noexcept nogil:
    cdef int p, d, x, i
    cdef int shooters[25]
    cdef double lm, ph, logsum = 0.0, lost = 0.0, pips = 0.0, stack = 0.0
    cdef int o_home = 0, run = 0, best = 0, anchors = 0, back = 0, home_made = 0
    shooters[0] = O[25] > 0
    for x in range(1, 25):
        shooters[x] = O[25 - x] > 0
    for p in range(1, 25):
        if S[p] == 1:
            lm = 0.0
            for d in range(1, p + 1):
                if SHOTS[d] > 0 and shooters[p - d]:
                    lm += LOGMISS[d]
            ph = 1.0 - exp(lm)
            if 1.0 - ph > 1e-9:
                logsum += log(1.0 - ph)
            else:
                logsum += log(1e-9)
            lost += ph * (25 - p)
        if S[p] > 3:
            stack += S[p] - 3
    for i in range(26):
        pips += S[i] * i
    for p in range(1, 7):
        if O[p] >= 2:
            o_home += 1
        if S[p] >= 2:
            home_made += 1
    for p in range(1, 13):
        if S[p] >= 2:
            run += 1
            if run > best:
                best = run
        else:
            run = 0
    for p in range(19, 25):
        if S[p] >= 2:
            anchors += 1
    for p in range(19, 26):
        back += S[p]
    f[0] = pips / 100.0
    f[1] = S[25]
    f[2] = S[25] * (o_home / 6.0) * (o_home / 6.0)
    f[3] = home_made
    f[4] = 1.0 if S[7] >= 2 else 0.0
    f[5] = best
    f[6] = best * best / 6.0
    f[7] = anchors
    f[8] = back / 5.0
    f[9] = 1.0 - exp(logsum)
    f[10] = lost / 25.0
    f[11] = stack / 5.0
    f[12] = S[0] / 15.0
    f[13] = S[25] if o_home == 6 else 0.0


cdef void features(const unsigned char* row, double* f) noexcept nogil:
    cdef int me[26]
    cdef int opp[26]
    cdef int i, q
    for i in range(26):
        me[i] = row[i]
    opp[0] = row[26]
    opp[25] = row[51]
    for q in range(1, 25):
        opp[q] = row[26 + 25 - q]
    raw_features(me, f)
    hand_features(me, opp, f + NRAW)
    raw_features(opp, f + NRAW + NHAND)
    hand_features(opp, me, f + 2 * NRAW + NHAND)
    f[NF - 1] = 1.0


def n_features():
    return NF


def features_bg(cnp.uint8_t[:, ::1] rows):
    """The feature matrix (float64[N, NF]) of backgammon-geometry rows."""
    cdef Py_ssize_t i, n = rows.shape[0]
    out = np.zeros((n, NF), dtype=np.float64)
    cdef double[:, ::1] o = out
    with nogil:
        for i in range(n):
            features(&rows[i, 0], &o[i, 0])
    return out


cdef void linear_row(const unsigned char* row, double[:, ::1] W, bint cube, double* o) noexcept nogil:
    """The linear model's six outputs (equity, win, wg, wbg, lg, lbg) of one row into ``o``."""
    cdef int k, j, m = 0
    cdef int nz[NF]
    cdef double f[NF]
    cdef double s[5]
    cdef double z, win, wg, wbg, lg, lbg
    features(row, f)
    for j in range(NF):
        if f[j] != 0.0:
            nz[m] = j
            m += 1
    for k in range(5):
        z = 0.0
        for j in range(m):
            z += W[k, nz[j]] * f[nz[j]]
        if z > 30:
            z = 30
        elif z < -30:
            z = -30
        s[k] = 1.0 / (1.0 + exp(-z))
    win = s[0]
    wg = win * s[1]
    wbg = wg * s[2]
    lg = (1 - win) * s[3]
    lbg = lg * s[4]
    if not cube:
        wbg = 0.0
        lbg = 0.0
    o[0] = 2 * win - 1 + wg - lg + wbg - lbg
    o[1] = win
    o[2] = wg
    o[3] = wbg
    o[4] = lg
    o[5] = lbg


def linear_bg(cnp.uint8_t[:, ::1] rows, double[:, ::1] W, bint cube):
    """float64[N, 6]: equity, win, wg, wbg, lg, lbg of the linear model (conditional outputs)."""
    cdef Py_ssize_t i, n = rows.shape[0]
    if W.shape[0] != 5 or W.shape[1] != NF:
        raise ValueError(f"weights must be [5, {NF}]")
    out = np.zeros((n, 6), dtype=np.float64)
    cdef double[:, ::1] o = out
    with nogil:
        for i in range(n):
            linear_row(&rows[i, 0], W, cube, &o[i, 0])
    return out


# --- race model (the same as tawla.evaluate._race_eval, for backgammon / adi) -------------------
DEF L = 64
DEF MU = 49.0 / 6.0
DEF VAR_PER_PIP = 18.472222 / ((49.0 / 6.0) * (49.0 / 6.0) * (49.0 / 6.0))

from libc.math cimport erf, sqrt

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


cdef double PHI_TAB[16002]
for _i in range(16002):
    PHI_TAB[_i] = 0.5 * (1.0 + erf((-8.0 + _i * 0.001) / 1.4142135623730951))


cdef inline double phi(double x) noexcept nogil:
    """Standard normal CDF from a table (step 0.001, linear interpolation, error < 1e-7)."""
    cdef double t
    cdef int j
    if x <= -8.0:
        return 0.0
    if x >= 8.0:
        return 1.0
    t = (x + 8.0) * 1000.0
    j = <int>t
    t -= j
    return PHI_TAB[j] * (1.0 - t) + PHI_TAB[j + 1] * t


cdef void side_dists(const int* S, const double[:, :, ::1] one, double* d_all, double* d_first) noexcept nogil:
    cdef int home[6]
    cdef int k, t, idx = 0, c = 0, outside = 0
    cdef double shift = 0.0, var, sd, prev, cur, tot_a, tot_f, w
    cdef double ker[L]
    cdef double base_a[L]
    cdef double base_f[L]
    for k in range(6):
        home[k] = S[k + 1]
    for k in range(7, 26):
        outside += S[k]
        shift += S[k] * (k - 6)
    home[5] += outside
    shift /= MU
    for k in range(6):
        c += home[k]
        idx += BINOM[c + k][k + 1]
    for k in range(L):
        base_a[k] = 0.0
        base_f[k] = 0.0
    for k in range(one.shape[2]):
        base_a[k] = one[idx, 0, k]
        base_f[k] = one[idx, 1, k]
    if shift <= 0:
        for k in range(L):
            d_all[k] = base_a[k]
            d_first[k] = base_f[k]
        return
    var = VAR_PER_PIP * MU * shift + 0.05
    sd = sqrt(var)
    prev = 0.0
    for t in range(L):
        if t + 0.5 - shift > 8.0 * sd:
            ker[t] = 1.0 - prev
            prev = 1.0
            continue
        cur = phi((t + 0.5 - shift) / sd)
        ker[t] = cur - prev
        prev = cur
    ker[L - 1] += 1.0 - prev
    for k in range(L):
        d_all[k] = 0.0
        d_first[k] = 0.0
    for t in range(L):
        w = ker[t]
        if w < 1e-14:
            continue
        for k in range(t, (t + 33) if t + 33 < L else L):  # the table has 33 entries
            d_all[k] += w * base_a[k - t]
            d_first[k] += w * base_f[k - t]
    tot_a = 0.0
    tot_f = 0.0
    for k in range(L):
        tot_a += d_all[k]
        tot_f += d_first[k]
    d_all[L - 1] += 1.0 - tot_a
    d_first[L - 1] += 1.0 - tot_f


cdef void race_row(const unsigned char* row, const double[:, :, ::1] one, const double[::1] two,
                   double* o) noexcept nogil:
    cdef int me[26]
    cdef int opp[26]
    cdef int i, q, n, cm = 0, co = 0, outm = 0, outo = 0, ia = 0, ib = 0, c
    cdef double pm_a[L]
    cdef double pm_f[L]
    cdef double po_a[L]
    cdef double po_f[L]
    cdef double so_a, so_f, sm_f_next, win = 0.0, wg = 0.0, lg = 0.0
    for i in range(26):
        me[i] = row[i]
    opp[0] = row[26]
    opp[25] = row[51]
    for q in range(1, 25):
        opp[q] = row[26 + 25 - q]
    side_dists(me, one, pm_a, pm_f)
    side_dists(opp, one, po_a, po_f)
    # suffix sums, walking down
    so_a = 0.0
    so_f = 0.0
    sm_f_next = 0.0
    for n in range(L - 1, -1, -1):
        so_a += po_a[n]
        so_f += po_f[n]
        win += pm_a[n] * so_a
        wg += pm_a[n] * so_f
        lg += po_a[n] * sm_f_next  # P(my first-off needs > n rolls)
        sm_f_next += pm_f[n]
    if opp[0] != 0:
        wg = 0.0
    if me[0] != 0:
        lg = 0.0
    for i in range(7, 26):
        outm += me[i]
        outo += opp[i]
    for i in range(1, 7):
        cm += me[i]
        co += opp[i]
    if outm == 0 and outo == 0 and cm <= 6 and co <= 6:
        c = 0
        for i in range(6):
            c += me[i + 1]
            ia += BINOM[c + i][i + 1]
        c = 0
        for i in range(6):
            c += opp[i + 1]
            ib += BINOM[c + i][i + 1]
        win = two[ia * 924 + ib]
    if wg > win:
        wg = win
    if lg > 1.0 - win:
        lg = 1.0 - win
    o[0] = 2 * win - 1 + wg - lg
    o[1] = win
    o[2] = wg
    o[3] = 0.0
    o[4] = lg
    o[5] = 0.0


def race_bg(cnp.uint8_t[:, ::1] rows, const double[:, :, ::1] one, const double[::1] two):
    """float64[N, 6]: the race model for opposite-geometry rows with no contact."""
    cdef Py_ssize_t i, n = rows.shape[0]
    out = np.zeros((n, 6), dtype=np.float64)
    cdef double[:, ::1] o = out
    with nogil:
        for i in range(n):
            race_row(&rows[i, 0], one, two, &o[i, 0])
    return out


def eval_bg(cnp.uint8_t[:, ::1] rows, double[:, ::1] W, bint cube, bint bar_bg_double,
            const double[:, :, ::1] one, const double[::1] two):
    """Backgammon / adi evaluation in one pass: game over, race model, linear contact.

    Returns ``(out float64[N, 6], race uint8[N])`` (``race`` flags the rows the race model
    evaluated).
    """
    cdef Py_ssize_t i, n = rows.shape[0]
    cdef int p, my_max, opp_min, back
    cdef double g, bg
    cdef const unsigned char* row
    if W.shape[0] != 5 or W.shape[1] != NF:
        raise ValueError(f"weights must be [5, {NF}]")
    out = np.zeros((n, 6), dtype=np.float64)
    race_np = np.zeros(n, dtype=np.uint8)
    cdef double[:, ::1] o = out
    cdef cnp.uint8_t[::1] race = race_np
    with nogil:
        for i in range(n):
            row = &rows[i, 0]
            if row[26] == 15:  # the opponent has borne off all: lost
                g = 1.0 if row[0] == 0 else 0.0
                bg = 0.0
                if cube and row[0] == 0:
                    back = 0
                    for p in range(19, 25):
                        back += row[p]
                    if back > 0 or (row[25] > 0 and not bar_bg_double):
                        bg = 1.0
                o[i, 0] = -(1.0 + g + bg)
                o[i, 4] = g
                o[i, 5] = bg
                continue
            my_max = 0
            for p in range(25, 0, -1):
                if row[p]:
                    my_max = p
                    break
            opp_min = 99
            if row[51]:
                opp_min = 0
            else:
                for p in range(1, 25):
                    if row[26 + p]:
                        opp_min = p
                        break
            if my_max < opp_min:
                race[i] = 1
                race_row(row, one, two, &o[i, 0])
                continue
            linear_row(row, W, cube, &o[i, 0])
    return out, race_np


# --- no-hit games: effective-pip contact model (the same as tawla.evaluate._nohit_contact) ------
cdef int SAMEMAP[26]
for _i in range(26):
    SAMEMAP[_i] = _i
for _i in range(1, 25):
    SAMEMAP[_i] = (_i + 11) % 24 + 1


cdef int normal_rolls(double mean, double var, double* d) noexcept nogil:
    """Discretised normal over 0..L-1 with the mass below 1 moved to 1; returns ``hi``,
    one past the last non-zero bin.

    Only the bins within 8 standard deviations of the mean are computed (the mass outside
    is below 1e-15): the rest are 0 below and the remainder goes to the first bin above."""
    cdef double sd, inv, prev = 0.0, cur, lim
    cdef int k, k0, hi = L
    if var < 1e-6:
        var = 1e-6
    sd = sqrt(var)
    inv = 1.0 / sd
    lim = 8.0 * sd
    k0 = <int>(mean - lim - 0.5)
    if k0 < 0:
        k0 = 0
    if k0 > L - 1:
        k0 = L - 1
    for k in range(k0):
        d[k] = 0.0
    for k in range(k0, L):
        if k + 0.5 - mean > lim:  # the rest of the mass is below 1e-15
            d[k] = 1.0 - prev
            prev = 1.0
            hi = k + 1
            for k in range(hi, L):
                d[k] = 0.0
            break
        cur = phi((k + 0.5 - mean) * inv)
        d[k] = cur - prev
        prev = cur
    d[L - 1] += 1.0 - prev
    d[1] += d[0]
    d[0] = 0.0
    if d[L - 1] != 0.0:
        hi = L
    return hi if hi > 2 else 2


cdef inline int imax(int a, int b) noexcept nogil:
    return a if a > b else b


cdef void path_pen(const int* S, const int* O, bint same, int need, double* pen_other) noexcept nogil:
    cdef int i, q, sp, cnt = 0, run = 0
    cdef bint ahead, b
    cdef double tot = 0.0, cnt18 = 0.0
    for i in range(24):
        q = 24 - i
        sp = SAMEMAP[q] if same else 25 - q
        ahead = cnt > 0
        b = (S[sp] >= need) and ahead
        if b:
            run += 1
            tot += 2 * run - 1
            if i < 18:
                cnt18 += 1
        else:
            run = 0
        cnt += O[q]
    pen_other[0] += 2.0 * cnt18 + tot


cdef double t31_equity(const double* pm_a, const double* pm_f, const double* po_a, const double* po_f,
                       const int* me, const int* opp, int hi) noexcept nogil:
    """Expected points of tawla31's 15-minus-off scoring; every bin from ``hi`` up is 0."""
    cdef int k
    cdef double rm = 0.0, ro = 0.0, cm = 15 - me[0], co = 15 - opp[0]
    cdef double so_a[L]
    cdef double so_f[L]
    cdef double sm_a[L + 1]
    cdef double sm_f[L + 1]
    cdef double ew = 0.0, el = 0.0, rem, inv_ro, inv_rm
    for k in range(hi):
        rm += pm_a[k] * k
        ro += po_a[k] * k
    if rm < 1e-9:
        rm = 1e-9
    if ro < 1e-9:
        ro = 1e-9
    inv_rm = 1.0 / rm
    inv_ro = 1.0 / ro
    so_a[hi - 1] = po_a[hi - 1]
    so_f[hi - 1] = po_f[hi - 1]
    for k in range(hi - 2, -1, -1):
        so_a[k] = so_a[k + 1] + po_a[k]
        so_f[k] = so_f[k + 1] + po_f[k]
    sm_a[hi] = 0.0
    sm_f[hi] = 0.0
    for k in range(hi - 1, -1, -1):
        sm_a[k] = sm_a[k + 1] + pm_a[k]
        sm_f[k] = sm_f[k + 1] + pm_f[k]
    for k in range(hi):
        if opp[0] != 0:
            so_f[k] = 0.0
        if me[0] != 0:
            sm_f[k + 1] = 0.0
    for k in range(hi):
        rem = co * (1.0 - (k - 1) * inv_ro)
        rem = 1.0 if rem < 1.0 else (15.0 if rem > 15.0 else rem)
        ew += pm_a[k] * (so_f[k] * 15.0 + (so_a[k] - so_f[k]) * rem)
        rem = cm * (1.0 - k * inv_rm)
        rem = 1.0 if rem < 1.0 else (15.0 if rem > 15.0 else rem)
        el += po_a[k] * (sm_f[k + 1] * 15.0 + (sm_a[k + 1] - sm_f[k + 1]) * rem)
    return ew - el


cdef double first_pips(const int* S) noexcept nogil:
    cdef int p, lowest = 6
    cdef double out = 0.0
    for p in range(7, 26):
        out += S[p] * (p - 6)
    for p in range(1, 7):
        if S[p] > 0:
            lowest = p
            break
    return out + lowest + 4.0


def nohit_contact(cnp.uint8_t[:, ::1] rows, bint same, bint pin, int start_lock, bint mahbusa,
                  bint t31, bint checkers_left):
    """float64[N, 6]: the effective-pip contact model of the no-hit games."""
    cdef Py_ssize_t i, n = rows.shape[0]
    out = np.zeros((n, 6), dtype=np.float64)
    cdef double[:, ::1] o = out
    cdef int me[26]
    cdef int opp[26]
    cdef int om[26]
    cdef int p, q, d, k, kk, hi
    cdef unsigned int bits
    cdef double pen_m, pen_o, em, eo, fm, fo, pm, po, lm, ph, own
    cdef double pm_a[L]
    cdef double pm_f[L]
    cdef double po_a[L]
    cdef double po_f[L]
    cdef double so_a, so_f, sm_f_next, win, wg, lg
    cdef double QP[6]
    QP[0] = 0; QP[1] = 0; QP[2] = 2; QP[3] = 6; QP[4] = 16; QP[5] = 40
    cdef const unsigned char* row
    cdef bint mine_pinned, both, blot, flip
    cdef int need = 2 if pin else 1
    with nogil:
        for i in range(n):
            row = &rows[i, 0]
            for p in range(26):
                me[p] = row[p]
                om[p] = row[26 + p]
            opp[0] = row[26]
            opp[25] = row[51]
            for q in range(1, 25):
                opp[q] = row[26 + (SAMEMAP[q] if same else 25 - q)]
            pen_m = 0.0
            pen_o = 0.0
            path_pen(me, opp, same, need, &pen_o)
            path_pen(opp, me, same, need, &pen_m)
            if start_lock:
                k = 0
                for p in range(1, start_lock + 1):
                    k += me[p]
                if k == 0 and me[0] == 0:
                    pen_m += 8.0
                k = 0
                for p in range(1, start_lock + 1):
                    k += opp[p]
                if k == 0 and opp[0] == 0:
                    pen_o += 8.0
            if mahbusa:
                bits = row[52] | (row[53] << 8) | (row[54] << 16)
                for p in range(1, 25):
                    mine_pinned = (bits >> (p - 1)) & 1
                    both = me[p] > 0 and om[p] > 0
                    if mine_pinned:
                        pen_m += 12 + p + (40 if p == 24 else 0)
                    elif both:
                        pen_o += 12 + (25 - p) + (40 if p == 1 else 0)
                for kk in range(2):
                    flip = kk == 1
                    for p in range(1, 25):
                        if flip:
                            blot = om[p] == 1 and not (om[p] > 0 and me[p] > 0)
                        else:
                            blot = me[p] == 1 and not (me[p] > 0 and om[p] > 0)
                        if not blot:
                            continue
                        lm = 0.0
                        for d in range(1, 13):
                            if flip:
                                if p + d <= 24 and me[p + d] > 0:
                                    lm += LOGMISS[d]
                            else:
                                if p - d >= 1 and om[p - d] > 0:
                                    lm += LOGMISS[d]
                        ph = 1.0 - exp(lm)
                        own = (25 - p) if flip else p
                        if flip:
                            pen_o += 0.5 * ph * (12 + own + (40 if own == 24 else 0))
                        else:
                            pen_m += 0.5 * ph * (12 + own + (40 if own == 24 else 0))
            if t31:
                k = 0
                for p in range(1, 7):
                    k += om[p]
                pen_m += 3.0 * k
                k = 0
                for p in range(19, 25):
                    k += me[p]
                pen_o += 3.0 * k
                # quadrant lock threats
                k = 0
                for p in range(19, 25):
                    if me[p] > 0:
                        k += 1
                if opp[1] + opp[2] + opp[3] + opp[4] + opp[5] + opp[6] == 0:
                    pen_o += QP[k if k < 5 else 5]
                k = 0
                for p in range(19, 25):
                    if opp[p] > 0:
                        k += 1
                if me[1] + me[2] + me[3] + me[4] + me[5] + me[6] == 0:
                    pen_m += QP[k if k < 5 else 5]
            pm = 0.0
            po = 0.0
            for p in range(26):
                pm += me[p] * p
                po += opp[p] * p
            em = pm + pen_m
            eo = po + pen_o
            fm = first_pips(me) + pen_m * 0.7
            fo = first_pips(opp) + pen_o * 0.7
            hi = normal_rolls(em / MU, VAR_PER_PIP * em + 0.5, pm_a)
            hi = imax(hi, normal_rolls(eo / MU, VAR_PER_PIP * eo + 0.5, po_a))
            hi = imax(hi, normal_rolls(fm / MU, VAR_PER_PIP * fm + 0.5, pm_f))
            hi = imax(hi, normal_rolls(fo / MU, VAR_PER_PIP * fo + 0.5, po_f))
            so_a = 0.0
            so_f = 0.0
            sm_f_next = 0.0
            win = 0.0
            wg = 0.0
            lg = 0.0
            for k in range(hi - 1, -1, -1):
                so_a += po_a[k]
                so_f += po_f[k]
                win += pm_a[k] * so_a
                wg += pm_a[k] * so_f
                lg += po_a[k] * sm_f_next
                sm_f_next += pm_f[k]
            if opp[0] != 0:
                wg = 0.0
            if me[0] != 0:
                lg = 0.0
            if wg > win:
                wg = win
            if lg > 1.0 - win:
                lg = 1.0 - win
            o[i, 1] = win
            o[i, 2] = wg
            o[i, 4] = lg
            if checkers_left:
                o[i, 0] = t31_equity(pm_a, pm_f, po_a, po_f, me, opp, hi)
            else:
                o[i, 0] = 2 * win - 1 + wg - lg
    return out
