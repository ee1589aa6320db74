"""The Python twin of the compiled rollout trial loop (``csrc/rollout``): the fallback without
the compiled modules and the oracle the compiled loop is tested against.

It plays the same trials on the same dice (the generator of ``csrc/movegen/tw_rng.h``, rolls as
``tw_rollout.h`` draws them), chooses the same moves (the children of the reference engine,
valued by the numpy evaluators, the network with the compiled one's float32 sums in its order)
and accumulates in the same types, so that it gives the compiled loop's numbers: exactly, up to
values that tie within rounding. It is slow (the reference engine's move generation): for
tests and for machines without a compiler.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from .. import native
from ..bots.cube import CubeEfficiency, MoneyCube, cube_efficiency
from ..core.results import ResultKind
from ..evaluation.board_views import race_mask, sides
from ..evaluation.features import N_HAND
from ..evaluation.linear import linear_probs
from ..evaluation.net import SIDE_INPUTS, net_columns, net_inputs
from ..evaluation.nohit import nohit_contact_np
from ..evaluation.race import race_eval_np
from ..evaluation.routing import beyond_databases, race_caps
from ..met import MatchCube, MatchEquityTable, ScoreState
from ..met.cube import cubeless_equity, emg_to_mwc
from ..rules import Ruleset, Scoring
from .evaluator import TrialEvaluator

__all__ = ["Rng", "stream", "roll", "trials_py", "outcome", "net_outputs_exact"]

_M64 = (1 << 64) - 1
_M32 = (1 << 32) - 1
_GOLDEN = 0x9E3779B97F4A7C15
NV = 7

CONTACT, LOST, WON, RACE, DRAW = 0, 1, 2, 3, 4  # TW_END_* (tawla.native.EVAL_ENDS)
PLAY, OVER, FROZEN = 0, 1, 2  # TW_CHOSE_*
NO_DOUBLE, TAKE, BEAVER, PASS = 0, 1, 2, 3  # TW_CUBE_* decisions


def _splitmix(x: int) -> tuple[int, int]:
    x = (x + _GOLDEN) & _M64
    z = x
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _M64
    return x, z ^ (z >> 31)


def _rotl(x: int, k: int) -> int:
    return ((x << k) | (x >> (64 - k))) & _M64


class Rng:
    """xoshiro256** seeded by splitmix64 (``tw_rng.h``)."""

    def __init__(self, seed: int) -> None:
        x, self.s = seed & _M64, []
        for _ in range(4):
            x, z = _splitmix(x)
            self.s.append(z)

    def next(self) -> int:
        s = self.s
        res = (_rotl((s[1] * 5) & _M64, 7) * 9) & _M64
        t = (s[1] << 17) & _M64
        s[2] ^= s[0]
        s[3] ^= s[1]
        s[1] ^= s[2]
        s[0] ^= s[3]
        s[2] ^= t
        s[3] = _rotl(s[3], 45)
        return res

    def below(self, n: int) -> int:
        """Uniform in [0, n), Lemire's method as ``tw_below``."""
        m = (self.next() >> 32) * n
        lo = m & _M32
        if lo < n:
            th = ((1 << 32) - n) % n
            while lo < th:
                m = (self.next() >> 32) * n
                lo = m & _M32
        return m >> 32


def stream(seed: int, t: int) -> Rng:
    """The stream of trial ``t``'s later rolls (``tw_ro_stream``)."""
    return Rng(seed ^ ((_GOLDEN * (t + 1)) & _M64))


def roll(stratify: int, rot: tuple[int, int], t: int, k: int, rng: Rng) -> tuple[int, int]:
    """Roll ``k`` of trial ``t`` (``tw_ro_roll``), its dice low first."""
    if k == 0 and stratify >= 1:
        r = (t + rot[0]) % 36
    elif k == 1 and stratify >= 2:
        r = (t // 36 + rot[1]) % 36
    else:
        r = rng.below(36)
    d1, d2 = 1 + r // 6, 1 + r % 6
    return (d1, d2) if d1 <= d2 else (d2, d1)


# --- the network as the compiled one sums it ------------------------------------------------

_SIG_RANGE, _SIG_STEPS = 16, 128
_SIG_N = 2 * _SIG_RANGE * _SIG_STEPS + 2
_SIG = (1.0 / (1.0 + np.exp(-(-_SIG_RANGE + np.arange(_SIG_N) / _SIG_STEPS)))).astype(np.float32)
_F = np.float32


def _sigmoid32(z: np.ndarray) -> np.ndarray:
    """``tw_sigmoid`` in float32: the table, clamped, truncated, interpolated."""
    t = (z + _F(_SIG_RANGE)) * _F(_SIG_STEPS)
    t = np.minimum(np.maximum(t, _F(0)), _F(_SIG_N - 2))
    j = t.astype(np.int64)
    t = t - j.astype(np.float32)
    return _SIG[j] + t * (_SIG[j + 1] - _SIG[j])


def _slots(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The inputs of ``tw_net_inputs`` in its order (per side: points 1..24, bar, off, the
    hand features, pinned points 24..1, the start lock; absent ones as 0): indices and values,
    int64[N, S] and float32[N, S]."""
    n = len(x)
    idx, val = [], []
    for base in (0, SIDE_INPUTS):
        for p in range(1, 25):
            cols = base + np.array([p - 1, 24 + p - 1, 48 + p - 1, 72 + p - 1])
            which = np.argmax(x[:, cols] != 0, axis=1)
            idx.append(cols[which])
            val.append(x[np.arange(n), cols[which]])
        rest = [96, 97, *range(98, 98 + N_HAND), *range(112 + 23, 112 - 1, -1), 136]
        for c in rest:
            idx.append(np.full(n, base + c))
            val.append(x[:, base + c])
    return np.stack(idx, axis=1), np.stack(val, axis=1).astype(np.float32)


def net_outputs_exact(net, rows: np.ndarray, r: Ruleset) -> np.ndarray:
    """float32[N, 5]: the network's outputs as ``tw_net_rows`` computes them (each sum in its
    order, float32 throughout)."""
    x = net_inputs(rows, r)
    idx, val = _slots(x)
    acc = np.repeat(net.b1[None, :], len(rows), axis=0).astype(np.float32)
    for s in range(idx.shape[1]):
        acc = acc + val[:, s, None] * net.w1[idx[:, s]]
    h = _sigmoid32(acc)
    z = np.repeat(net.b2[None, :], len(rows), axis=0).astype(np.float32)
    for j in range(h.shape[1]):
        z = z + net.w2[None, :, j] * h[:, j, None]
    return _sigmoid32(z)


# --- values, choices, trials -----------------------------------------------------------------

def outcome(r: Ruleset, winner: int, points: int) -> tuple[np.ndarray, float]:
    """``tw_outcome``: the outputs and points, for the side that moved last, of a finished game
    (winner relative to the row's mover: 1 the side that moved last, 0 the other, -1 a draw)."""
    t = np.zeros(5, np.float32)
    if winner < 0:
        t[0] = 0.5
        return t, 0.0
    won = winner == 1
    t[0] = 1.0 if won else 0.0
    k = 1 if won else 3
    if r.scoring == Scoring.CHECKERS_LEFT:
        t[k] = 1.0 if points == 15 else 0.0
        t[k + 1] = _F(points) / _F(15)
    else:
        t[k] = 1.0 if points >= 2 else 0.0
        t[k + 1] = 1.0 if r.scoring == Scoring.CUBE and points >= 3 else 0.0
    return t, float(points if won else -points)


def _swap(o: np.ndarray) -> np.ndarray:
    """``tw_swap_sides``."""
    return np.array([_F(1) - o[0], o[3], o[4], o[1], o[2]], np.float32)


def _out_of_cols(r: Ruleset, col: np.ndarray) -> np.ndarray:
    if r.scoring == Scoring.CHECKERS_LEFT:
        return np.array([col[1], col[2], col[0] / 15.0 if col[0] > 0 else 0.0, col[4],
                         -col[0] / 15.0 if col[0] < 0 else 0.0]).astype(np.float32)
    return col[1:6].astype(np.float32)


def values(rows: np.ndarray, r: Ruleset, ev: TrialEvaluator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``tw_value_rows``: the columns float64[N, 6], outputs float32[N, 5] and end kinds int[N]
    of rows (mover's seat)."""
    n = len(rows)
    col = np.zeros((n, 6))
    out = np.zeros((n, 5), np.float32)
    kind = np.zeros(n, np.int64)
    me, opp, om = sides(rows, r)
    done, winner, points, rkind = native.game_results(rows, r, frozen_test=False, checked=False)
    for i in np.flatnonzero(done):
        if winner[i] == 1:
            kind[i] = LOST
            col[i, 0], col[i, 4], col[i, 5] = -points[i], me[i, 0] == 0, rkind[i] == ResultKind.BACKGAMMON
        elif winner[i] == 0:
            kind[i] = WON
            col[i, 0], col[i, 1], col[i, 2], col[i, 3] = points[i], 1, opp[i, 0] == 0, rkind[i] == ResultKind.BACKGAMMON
        else:
            kind[i] = DRAW
    race = race_mask(me, opp, om, r) & ~done
    if r.bearoff_no_opponent_in_home:
        race &= (om[:, 1:7].sum(1) == 0) & (me[:, 19:25].sum(1) == 0)
    if race.any():
        col[race] = race_eval_np(me[race], opp[race], r)
        kind[race] = RACE
        beyond = race & beyond_databases(me, opp)
        if ev.race_net is not None and beyond.any():
            col[beyond] = race_caps(rows[beyond], net_columns(net_outputs_exact(ev.race_net, rows[beyond], r), r), r)
    contact = ~(done | race)
    if contact.any():
        rows_c = rows[contact]
        if ev.contact == "net":
            o = net_outputs_exact(ev.net, rows_c, r)
            cc = net_columns(o, r)
            col[contact] = cc
            oc = o.copy() if r.scoring == Scoring.CHECKERS_LEFT else cc[:, 1:6].astype(np.float32)
            if r.scoring == Scoring.CHECKERS_LEFT:
                oc[:, 1] = np.minimum(oc[:, 1], oc[:, 0])
                oc[:, 3] = np.minimum(oc[:, 3], _F(1) - oc[:, 0])
            out[contact] = oc
        else:
            cc = linear_probs(rows_c, ev.weights, r) if ev.contact == "linear" else nohit_contact_np(rows_c, r)
            col[contact] = cc
            out[contact] = [_out_of_cols(r, c) for c in cc]
    for i in np.flatnonzero(~contact):
        out[i] = outcome(r, -1, 0)[0] if kind[i] == DRAW else _out_of_cols(r, col[i])
    return col, out, kind


def _result(child: np.ndarray, r: Ruleset, frozen_test: bool) -> tuple[bool, int, int]:
    done, winner, points, _ = native.game_results(child[None], r, frozen_test=frozen_test, checked=False)
    return bool(done[0]), int(winner[0]), int(points[0])


def choose(row: np.ndarray, dice: tuple[int, int], r: Ruleset, ev: TrialEvaluator):
    """``tw_choose`` without exploration: (kind, child, its columns, outputs and end kind for
    the opponent, (winner, points) of a finished game)."""
    children, _ = native.expand(np.ascontiguousarray(row[None]), np.array([dice], np.uint8), r, engine="reference")
    if len(children) == 0:
        return FROZEN, None, None, None, None, (-1, 0)
    col, out, kind = values(children, r, ev)
    order = sorted(range(len(children)), key=lambda i: (col[i, 0], children[i].tobytes()))
    best = order[0]
    if ev.ply >= 1 and len(children) > 1:
        best = _ply1(children, col, kind, order[:ev.prune], r, ev)
    child = children[best]
    if kind[best] in (LOST, WON, DRAW):
        over, winner, points = _result(child, r, False)
    elif r.can_freeze:
        over, winner, points = _result(child, r, True)
    else:
        over, winner, points = False, -1, 0
    return (OVER if over else PLAY), child, col[best], out[best], int(kind[best]), (winner, points)


def _ply1(children, col, kind, top, r, ev) -> int:
    """``tw_choose_ply1``: of the children ``top`` (best first at 0 ply), those within the margin,
    each valued by the opponent's best 0-ply reply to each roll; the best (of equals the first
    row in byte order)."""
    ev0 = dataclasses.replace(ev, ply=0)
    best, best_v = -1, 0.0
    for j in top:
        if col[top[0], 0] - col[j, 0] < -ev.margin:
            break
        if kind[j] not in (CONTACT, RACE):
            val = -col[j, 0]
        else:
            acc = 0.0
            for d1 in range(1, 7):
                for d2 in range(d1, 7):
                    w = 1.0 / 36.0 if d1 == d2 else 2.0 / 36.0
                    k, _, c2, _, _, (winner, points) = choose(children[j], (d1, d2), r, ev0)
                    acc += w * (-c2[0] if k == PLAY else outcome(r, winner, points)[1])
            val = -acc
        if best < 0 or val > best_v or (val == best_v and children[j].tobytes() < children[best].tobytes()):
            best, best_v = j, val
    return best


def _move(row, dice, r, ev):
    """``tw_ro_move``: the choice and the value after it for the mover (outputs, equity)."""
    kind, child, col, out, ekind, (winner, points) = choose(row, dice, r, ev)
    if kind == PLAY:
        return kind, child, col, out, ekind, _swap(out), -col[0]
    mo, meq = outcome(r, winner, points)
    return kind, child, col, out, ekind, mo, meq


def _all_home(row: np.ndarray, r: Ruleset) -> bool:
    me, opp, _ = sides(row[None], r)
    return not (me[0, 7:26].any() or opp[0, 7:26].any())


def _stops(row, kind, r, s) -> bool:
    if kind == CONTACT:
        return False
    if kind != RACE:
        return True
    return s["stop_race"] or (s["stop_bearoff"] and _all_home(row, r))


def _efficiency(row: np.ndarray, s) -> float:
    """``tw_ro_efficiency``: the cube efficiency at ``row`` for its side on roll."""
    if s["by_class"] is None:
        return s["efficiency"]
    return float(cube_efficiency(row[None], s["ruleset"], CubeEfficiency(*s["by_class"]))[0])


def _decide(col: np.ndarray, owner: int, s, x: float) -> tuple[int, float]:
    """``tw_cube_decide`` on :class:`MoneyCube`."""
    mc = MoneyCube.from_probabilities(col, owner, jacoby=s["jacoby"], beaver=s["beaver"], efficiency=x)
    nd, dt = mc.no_double, mc.double_take
    doubled = min(dt, 1.0)
    if owner == -1 or not doubled > nd:
        return NO_DOUBLE, nd
    if dt > 1.0:
        return PASS, doubled
    return (BEAVER if s["beaver"] and dt < 0 else TAKE), doubled


def _score(s, side: int, c: float, owner: int) -> ScoreState:
    """``tw_ro_score``: the match as ``side`` sees it (cube ``c`` times the starting one)."""
    away, opp_away = s["away"][side], s["away"][side ^ 1]
    return ScoreState(max(away, opp_away), away, opp_away, s["cube_value"] * int(c),
                      0 if owner < 0 else (1 if owner == side else -1), s["crawford"])


def _decide_at(row, col, side: int, c: float, owner: int, decide: bool, s) -> tuple[int, float]:
    """``tw_ro_decide``: the decision of ``side`` (on roll at ``row``) and its value (money:
    per unit of cube; a match: 2 MWC - 1); ``decide`` False: not doubling."""
    rel = 0 if owner < 0 else (1 if owner == side else -1)
    x = _efficiency(row, s)
    if s["no_cube"]:
        sc = _score(s, side, c, owner)
        emg = cubeless_equity(np.clip(col[1:6], 0.0, 1.0), sc, s["met"])
        return NO_DOUBLE, 2 * emg_to_mwc(emg, sc, s["met"]) - 1
    if s["match"] is None:
        if decide:
            return _decide(col, rel, s, x)
        return NO_DOUBLE, MoneyCube.from_probabilities(col, rel, jacoby=s["jacoby"], beaver=s["beaver"],
                                                       efficiency=x).no_double
    m = MatchCube.from_probabilities(np.clip(col[1:6], 0.0, 1.0), _score(s, side, c, owner), x, s["met"])
    d, v = NO_DOUBLE, m.no_double_mwc
    doubled = min(m.double_take_mwc, m.double_pass_mwc)
    if decide and m.may_double and doubled >= m.no_double_mwc:
        d, v = (TAKE if m.double_take_mwc <= m.double_pass_mwc else PASS), doubled
    return d, 2 * v - 1


def _match_end(s, side: int, c: float, pts: float) -> float:
    """``tw_ro_match_end``: 2 MWC - 1 for ``side`` after a game it won ``pts`` (< 0 lost)."""
    sc = _score(s, side, c, side if s["cube_value"] * int(c) > 1 else -1)  # the owner does not count here
    won = int(abs(pts)) * sc.cube
    return 2 * (sc.me(won, 0, s["met"]) if pts > 0 else sc.me(0, won, s["met"])) - 1


def _match_after(s, side: int, c: float, owner: int, kind: int, child, col, meq: float) -> float:
    """``tw_ro_match_after``: the value for ``side`` after it moved (to ``child``)."""
    if kind != PLAY:
        return _match_end(s, side, c, meq)
    return -_decide_at(child, col, side ^ 1, c, owner, True, s)[1]


def _trial(row, rv, t: int, r: Ruleset, ev: TrialEvaluator, s) -> tuple[np.ndarray, np.ndarray, int]:
    """``tw_ro_trial``: (values, raw values, plies) of trial ``t`` of ``row`` (its value ``rv``)."""
    rng = stream(s["seed"], t)
    ev0 = dataclasses.replace(ev, ply=0)
    cur, (cur_col, cur_out, cur_kind) = row.copy(), rv
    luck, luck_eq, luck_cf = np.zeros(5, np.float32), 0.0, 0.0
    c, cf, side, live, stop = 1.0, 0.0, 0, s["cubeful"], False
    owner = {1: 0, -1: 1}.get(s["owner"], -1)
    ply = 0
    mo, meq = np.zeros(5, np.float32), 0.0
    while True:
        if (s["truncate"] > 0 and ply == s["truncate"]) or ply == 10000 or (ply == 0 and _stops(cur, cur_kind, r, s)):
            stop = True
            break
        if live and not s["no_cube"] and (ply > 0 or s["decide_first"]) and not (owner >= 0 and owner != side):
            d, v = _decide_at(cur, cur_col, side, c, owner, True, s)
            if d == PASS:
                cf, live = ((v if side == 0 else -v) if s["match"] is not None else (c if side == 0 else -c)), False
            elif d == TAKE:
                c, owner = c * 2, side ^ 1
            elif d == BEAVER:
                c, owner = c * 4, side
        dice = roll(s["stratify"], s["rot"], t, ply, rng)
        if s["vr"]:
            mean, mean_eq, mean_m, keep, keep_m = np.zeros(5), 0.0, 0.0, (), 0.0
            by_match = live and s["match"] is not None
            for e1 in range(1, 7):
                for e2 in range(e1, 7):
                    w = 1.0 / 36.0 if e1 == e2 else 2.0 / 36.0
                    got = _move(cur, (e1, e2), r, ev0)
                    mean += w * got[5].astype(np.float64)
                    mean_eq += w * got[6]
                    m = _match_after(s, side, c, owner, got[0], got[1], got[2], got[6]) if by_match else 0.0
                    mean_m += w * m
                    if (e1, e2) == dice:
                        keep, keep_m = got, m
            kind, child, col, out, ekind, mo, meq = keep  # type: ignore[misc]
            fo = (mo.astype(np.float64) - mean).astype(np.float32)
            eq = meq - mean_eq
            if side == 1:
                fo = np.array([-fo[0], fo[3], fo[4], fo[1], fo[2]], np.float32)
            luck = luck + fo
            luck_eq += eq if side == 0 else -eq
            if by_match:
                luck_cf += keep_m - mean_m if side == 0 else mean_m - keep_m
            elif live:
                luck_cf += (c if side == 0 else -c) * eq
            if ev.ply >= 1:
                kind, child, col, out, ekind, mo, meq = _move(cur, dice, r, ev)
        else:
            kind, child, col, out, ekind, mo, meq = _move(cur, dice, r, ev)
        if kind != PLAY:
            break
        cur, side = child, side ^ 1
        cur_col, cur_out, cur_kind = col, out, ekind
        if _stops(cur, ekind, r, s):
            stop = True
            ply += 1
            break
        ply += 1
    if stop:
        mo, meq = cur_out.copy(), float(cur_col[0])
        if live:
            _, ce = _decide_at(cur, cur_col, side, c, owner, ply > 0 or s["decide_first"], s)
            cf = (ce if side == 0 else -ce) if s["match"] is not None else (c if side == 0 else -c) * ce
    else:
        ply += 1
        if live and s["match"] is not None:
            v = _match_end(s, side, c, meq)
            cf = v if side == 0 else -v
        elif live:
            pts = meq
            if s["jacoby"] and owner < 0:
                pts = float(np.sign(pts))
            cf = (c if side == 0 else -c) * pts
    if side == 1:
        mo, meq = _swap(mo), -meq
    raw = np.zeros(NV)
    raw[:5], raw[5], raw[6] = mo, meq, cf if s["cubeful"] else 0.0
    out_v = np.zeros(NV)
    out_v[:5] = mo - luck
    out_v[5] = meq - luck_eq
    out_v[6] = cf - luck_cf if s["cubeful"] else 0.0
    return out_v, raw, ply


def trials_py(rows: np.ndarray, r: Ruleset, ev: TrialEvaluator, *, first: int = 0, trials: int = 1,
              truncate: int = 0, vr: bool = False, stop_bearoff: bool = True, stop_race: bool = False,
              stratify: int = 2, rot=(0, 0), cubeful: bool = False, efficiency: float = 0.68,
              jacoby: bool = False, beaver: bool = False, owner: int = 0, decide_first: bool = False,
              match: tuple | None = None, efficiency_by_class: tuple | None = None, seed: int = 0):
    """What :func:`tawla.native.rollout_trials` returns with ``raw=True``, in Python: (values,
    raw values, plies) of trials ``first .. first + trials - 1`` of each row (valid pre-roll
    rows of ``r``, games not over); ``match`` as the compiled loop takes it."""
    s = dict(truncate=truncate, vr=vr, stop_bearoff=stop_bearoff, stop_race=stop_race, stratify=stratify,
             rot=tuple(rot), cubeful=cubeful, efficiency=efficiency, jacoby=jacoby, beaver=beaver, owner=owner,
             decide_first=decide_first, match=match, seed=seed, no_cube=False, ruleset=r,
             by_class=None if efficiency_by_class is None else tuple(float(v) for v in efficiency_by_class))
    if match is not None:
        pre, post, away, opp_away, cube, crawford = match
        s.update(met=MatchEquityTable("trials", 64, np.asarray(pre, np.float64), np.asarray(post, np.float64)),
                 away=(away, opp_away), cube_value=cube or 1, crawford=crawford)
        if cube == 0:  # a match without a cube: no decisions, the value column at the score
            s.update(no_cube=True, cubeful=True)
    rows = np.ascontiguousarray(rows, dtype=np.uint8)
    out = np.zeros((len(rows), trials, NV))
    raw = np.zeros((len(rows), trials, NV))
    plies = np.zeros((len(rows), trials), np.int32)
    for i, row in enumerate(rows):
        col, o, kind = values(row[None], r, ev)
        rv = (col[0], o[0], int(kind[0]))
        for j in range(trials):
            out[i, j], raw[i, j], plies[i, j] = _trial(row, rv, first + j, r, ev, s)
    return out, raw, plies
