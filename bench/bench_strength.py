"""Strength benchmarks for tawla's bots (seeded, with 95% confidence intervals). Not run in CI.

Usage::

    python bench/bench_strength.py bg     [--games 2000] [--levels ply0,ply1] [--workers 2]
    python bench/bench_strength.py gnubg  [--games 500]  [--level ply1]       # top level vs gnubg 0-ply
    python bench/bench_strength.py tawla  [--games 1000] [--rulesets ...]     # each level vs random, vs level below
    python bench/bench_strength.py tawla  --levels net0,net2 --against ply2   # or against one level
    python bench/bench_strength.py timing [--positions 300] [--batch 1000]    # microseconds per decision
    python bench/bench_strength.py cube                                       # cube decisions vs gnubg's probabilities
    python bench/bench_strength.py pool   DIR_OR_FILES...                     # pool runs saved with TAWLA_BENCH_SAVE
    python bench/bench_strength.py fit    [--games 20000]                     # fit the backgammon weights to outcomes
    python bench/bench_strength.py distill [--games 6000] [--seed 777]        # one 1-ply distillation step

``bg``: backgammon cubeless money games (1/2/3 points, no cube, no Jacoby) of each bot level
against pubeval (``gnubg_nn.pub_best_move``); the bot's moves come from tawla's own engine,
pubeval's move is matched to tawla's legal moves. Sides alternate; the opening roll is
re-rolled until the dice differ and the starter plays them.

``fit``: plays pubeval-vs-pubeval games inside gnubg_nn (move generation only; nothing of
gnubg is stored but the game outcomes), computes :func:`tawla.evaluation.bg_features` of every
position for the side on roll and fits the five logistic outputs of
:class:`tawla.evaluation.LinearContact` (win, gammon|win, backgammon|gammon, gammon|loss,
backgammon|gammon loss) by L2-regularised logistic regression; the weights are written to the
weights file of the package, ``src/tawla/evaluation/linear_bg.npz`` (``--out`` for another
file; no source code is edited). ``distill`` then refits
them to a 0.7/0.3 mix of their own 1-ply values and the game outcomes (the shipped weights:
``fit --games 20000``, then one ``distill --games 6000 --seed 777``; ply0 against pubeval
went from -0.058 to +0.013 ppg and ply1 from +0.052 to +0.217 over 2000 games each; a
second step, ``--games 4000 --seed 888``, made no measurable difference and was not kept).

Games are played in duplicate pairs: the two games of a pair use the same dice, first with one
player starting and then the other, so the luck of the dice largely cancels. Points per game
are reported for the first-named player with ``mean +- 1.96 * sd / sqrt(pairs)`` over the pair
means (the unpaired interval over single games is printed beside it). With ``TAWLA_BENCH_SAVE=DIR``
each run also saves its pairs' points (``float64[pairs, 2]``) as ``DIR/R_A_vs_B_seedS_nG.npy``;
``pool`` reads such files (or every one in a folder), checks that their seed ranges do not
overlap, and prints the same line over all their pairs, one per match-up.
"""

from __future__ import annotations

import argparse
import contextlib
import math
import os
import re
import sys
import time
from multiprocessing import Pool
from pathlib import Path

import numpy as np

import tawla
import oracles
from tawla import native
from tawla.batch import fast_available, pass_move
from tawla.rules import OPPOSITE
from workloads import w1_ids
from tawla.bots import CubeAction
from tawla.evaluation import bg_features, evaluate_rows, is_race
from tawla.evaluation.board_views import sides
from tawla.evaluation.linear import WEIGHTS_FILE, save_weights

ROOT = Path(__file__).resolve().parents[1]
WEIGHTS = ROOT / "src" / "tawla" / "evaluation" / WEIGHTS_FILE


def ci(x):
    x = np.asarray(x, dtype=np.float64)
    m = x.mean()
    h = 1.96 * x.std(ddof=1) / math.sqrt(len(x)) if len(x) > 1 else float("nan")
    return m, m - h, m + h


# --- gnubg helpers ----------------------------------------------------------------------------
def to_gnubg(row: bytes):
    """gnubg board [opponent, on roll] (own coordinates, index 24 = bar) of a backgammon row."""
    return oracles.gnubg_board(bytes(row), OPPOSITE)


def apply_gnubg(board, mv):
    """Apply a gnubg move (flat list of 0-based from/to pairs, bar 24, off -1)."""
    opp = list(board[0])
    me = list(board[1])
    for i in range(0, len(mv), 2):
        f, t = mv[i], mv[i + 1]
        me[f] -= 1
        if t >= 0:
            me[t] += 1
            oi = 23 - t
            if opp[oi] == 1:
                opp[oi] = 0
                opp[24] += 1
    return [opp, me]


def after_key(board):
    """Bytes 0..51 of the mover-seat row for a gnubg board [opp, me]."""
    opp, me = board
    k = bytearray(52)
    k[0] = 15 - sum(me)
    for p in range(1, 25):
        k[p] = me[p - 1]
    k[25] = me[24]
    k[26] = 15 - sum(opp)
    for q in range(1, 25):
        k[26 + 25 - q] = opp[q - 1]
    k[51] = opp[24]
    return bytes(k)


class Pubeval:
    level = "pubeval"

    def __init__(self):
        import gnubg_nn

        self.g = gnubg_nn

    def choose(self, pos, dice):
        moves = pos.legal_moves(dice)
        if not moves:
            return None
        mv = self.g.pub_best_move(to_gnubg(pos.row), int(dice[0]), int(dice[1]))
        key = after_key(apply_gnubg(to_gnubg(pos.row), list(mv)))
        for m in moves:
            if m.after[:52] == key:
                return m
        raise RuntimeError(f"pubeval move {mv} not found among tawla's moves for {pos.id()} {dice}")


class Gnubg0(Pubeval):
    level = "gnubg0"

    def choose(self, pos, dice):
        moves = pos.legal_moves(dice)
        if not moves:
            return None
        best = self.g.best_move(to_gnubg(pos.row), int(dice[0]), int(dice[1]))
        flat = []
        for f, t in best:
            flat += [f - 1, t - 1]
        key = after_key(apply_gnubg(to_gnubg(pos.row), flat))
        for m in moves:
            if m.after[:52] == key:
                return m
        raise RuntimeError(f"gnubg move {best} not found for {pos.id()} {dice}")


# --- game loop ----------------------------------------------------------------------------------
def play_game(ruleset, players, rng, starter, timing=None):
    """Play one game; returns points for players[0] (negative when it loses)."""
    r = tawla.get_ruleset(ruleset)
    pos = r.initial_position()
    while True:
        a, b = rng.integers(1, 7, 2)
        if a != b:
            break
    dice = (int(a), int(b))
    if r.opening_reroll:
        dice = tuple(int(x) for x in rng.integers(1, 7, 2))
    turn = starter
    for _ply in range(2000):
        bot = players[turn]
        t0 = time.perf_counter()
        m = bot.choose(pos, dice)
        if timing is not None and turn == 0:
            timing.append(time.perf_counter() - t0)
        pos = pos.play(m if m is not None else pass_move(pos, dice))
        res = pos.result()
        if res is not None:
            if res.winner is None:
                return 0
            # winner 1 = the player who just moved (= turn)
            mover_won = res.winner == 1
            pts = res.points if r.scoring != "cube" else {"single": 1, "gammon": 2}.get(res.kind, 3)
            return pts if (mover_won == (turn == 0)) else -pts
        turn = 1 - turn
        dice = tuple(int(x) for x in rng.integers(1, 7, 2))
    return 0  # safety net: treated as a draw


def _make(ruleset, name, seed):
    if name == "pubeval":
        return Pubeval()
    if name == "gnubg0":
        return Gnubg0()
    return tawla.Bot(ruleset, name, seed=seed)


def _worker(args):
    """Play the duplicate pairs ``seeds``: each seed's dice are played twice, once with
    ``a`` starting and once with ``b`` starting, so both players get the same rolls."""
    ruleset, a, b, seeds = args
    out, times = [], []
    for s in seeds:
        pair = []
        for starter in (0, 1):
            rng = np.random.default_rng(s)
            players = (_make(ruleset, a, 2 * s + starter), _make(ruleset, b, 10**6 + 2 * s + starter))
            pair.append(play_game(ruleset, players, rng, starter=starter, timing=times))
        out.append(pair)
    return out, times


def pair_summary(pairs):
    """``(mean, lo, hi, won)`` of ``pairs`` (float[P, 2], points of the two games of each duplicate
    pair): points a game with the 95% interval over the pair means, and the % of games won."""
    m, lo, hi = ci(pairs.mean(axis=1))
    return m, lo, hi, 100 * (pairs > 0).mean()


def match(ruleset, a, b, games, workers, seed=0):
    """Play ``games`` games (``games // 2`` duplicate pairs) of ``a`` against ``b`` and print
    points per game for ``a`` with a 95% confidence interval over the pairs (the two games
    of a pair share their dice, which removes much of the luck from the difference)."""
    seeds = list(range(seed, seed + games // 2))
    nchunks = max(20, workers * 4)
    chunks = [seeds[i::nchunks] for i in range(nchunks)]
    t = time.time()
    res = []
    with Pool(workers) if workers > 1 else contextlib.nullcontext() as pool:
        for got in (pool.imap if pool else map)(_worker, [(ruleset, a, b, c) for c in chunks if c]):
            res.append(got)  # progress on stderr: the pairs so far
            done = np.concatenate([np.asarray(x, dtype=float).reshape(-1, 2) for x, _ in res])
            print(f"  {ruleset} {a} vs {b}: {len(done)}/{len(seeds)} pairs, {done.mean():+.3f} a game so far, "
                  f"{time.time() - t:.0f}s", file=sys.stderr, flush=True)
    pairs = np.concatenate([np.asarray(x, dtype=float).reshape(-1, 2) for x, _ in res])
    times = np.concatenate([np.asarray(y, dtype=float) for _, y in res])
    pts = pairs.ravel()
    m, lo, hi, won = pair_summary(pairs)
    save = os.environ.get("TAWLA_BENCH_SAVE")
    if save:  # per-game points (pairs in rows), to pool runs with different seeds
        Path(save).mkdir(parents=True, exist_ok=True)
        np.save(Path(save) / f"{ruleset}_{a}_vs_{b}_seed{seed}_n{len(pts)}.npy", pairs)
    _, ulo, uhi = ci(pts)
    print(f"{ruleset:16s} {a:8s} vs {b:8s} games={len(pts):5d} ppg={m:+.3f} "
          f"[{lo:+.3f}, {hi:+.3f}] (unpaired [{ulo:+.3f}, {uhi:+.3f}]) win%={won:.1f} "
          f"us/decision={1e6 * times.mean():.0f} wall={time.time() - t:.0f}s", flush=True)
    return m, lo, hi


def pool(paths):
    """Print the result line of :func:`match` over the pairs of several saved runs, one line per
    match-up (``ruleset_a_vs_b``). Raises ``ValueError`` if two runs of a match-up share seeds."""
    files = sorted(f for p in paths for f in (Path(p).glob("*.npy") if Path(p).is_dir() else [Path(p)]))
    groups = {}
    for f in files:
        m = re.fullmatch(r"(.+)_seed(\d+)_n(\d+)\.npy", f.name)
        if not m:
            raise ValueError(f"{f}: not a file saved by TAWLA_BENCH_SAVE")
        groups.setdefault(m[1], []).append((int(m[2]), np.load(f)))
    for key, runs in groups.items():
        runs.sort(key=lambda r: r[0])
        for (s0, p0), (s1, _) in zip(runs, runs[1:]):
            if s0 + len(p0) > s1:
                raise ValueError(f"{key}: the runs of seeds {s0} and {s1} share pairs")
        pairs = np.concatenate([p for _, p in runs])
        m, lo, hi, won = pair_summary(pairs)
        seeds = ", ".join(f"{s}-{s + len(p) - 1}" for s, p in runs)
        print(f"{key}: games={pairs.size} ppg={m:+.3f} [{lo:+.3f}, {hi:+.3f}] win%={won:.1f} "
              f"pair sd={pairs.mean(axis=1).std(ddof=1):.3f} (pairs {seeds})")


# --- fitting ----------------------------------------------------------------------------------
def _selfplay_pubeval(args):
    import gnubg_nn as g

    seed, games = args
    rng = np.random.default_rng(seed)
    boards, labels = [], []
    for _ in range(games):
        me = [0] * 25
        for p, n in ((24, 2), (13, 5), (8, 3), (6, 5)):
            me[p - 1] = n
        board = [list(me), list(me)]
        game = []
        while True:
            a, b = rng.integers(1, 7, 2)
            if a != b:
                break
        turn = 0
        first = True
        while True:
            if not first:
                a, b = rng.integers(1, 7, 2)
            first = False
            game.append((after_key(board), turn))
            mv = g.pub_best_move(board, int(a), int(b))
            board = apply_gnubg(board, list(mv) if mv else [])
            if sum(board[1]) == 0:  # mover bore off all
                loser = board[0]
                gam = sum(loser) == 15
                bgm = gam and (loser[24] > 0 or sum(loser[18:24]) > 0)
                winner = turn
                break
            board = [board[1], board[0]]
            turn = 1 - turn
        for key, t in game:
            boards.append(key)
            w = t == winner
            labels.append((w, w and gam, w and bgm, (not w) and gam, (not w) and bgm))
    return boards, labels


def _logit_fit(X, y, l2, iters=12):
    """L2-regularised logistic regression by Newton's method; returns (weights, mean loss)."""
    n, f = X.shape
    w = np.zeros(f)
    reg = np.full(f, 2 * l2)
    reg[-1] = 0  # the bias column (last) is not penalised
    for _ in range(iters):
        z = X @ w
        p = 1 / (1 + np.exp(-np.clip(z, -30, 30)))
        g = X.T @ (p - y) / n + reg * w
        H = (X * (p * (1 - p))[:, None]).T @ X / n + np.diag(reg + 1e-9)
        step = np.linalg.solve(H, g)
        w -= step
        if np.abs(step).max() < 1e-6:
            break
    p = 1 / (1 + np.exp(-np.clip(X @ w, -30, 30)))
    loss = -(y * np.log(p + 1e-9) + (1 - y) * np.log(1 - p + 1e-9)).mean()
    return w, loss


def fit(games, workers, seed=12345, out=WEIGHTS):
    t = time.time()
    per = [(seed + i, games // (workers * 4)) for i in range(workers * 4)]
    with Pool(workers) as pool:
        res = pool.map(_selfplay_pubeval, per)
    keys = [k for b, _ in res for k in b]
    labels = np.array([l for _, ls in res for l in ls], dtype=np.float64)
    print(f"self-play: {len(keys)} positions from {games} games in {time.time() - t:.0f}s", flush=True)
    rows = np.zeros((len(keys), tawla.PACKED_WIDTH), np.uint8)
    rows[:, :52] = np.frombuffer(b"".join(keys), dtype=np.uint8).reshape(-1, 52)
    r = tawla.get_ruleset("backgammon")
    contact = ~is_race(rows, r)
    rows, labels = rows[contact], labels[contact]
    me, opp, _ = sides(rows, r)
    X = bg_features(me, opp).astype(np.float64)
    print(f"features: {X.shape} ({time.time() - t:.0f}s)", flush=True)
    W = np.zeros((5, X.shape[1]))
    # conditional targets: win; gammon | win; bg | gammon win; gammon | loss; bg | gammon loss
    masks = [np.ones(len(X), bool), labels[:, 0] == 1, labels[:, 1] == 1, labels[:, 0] == 0, labels[:, 3] == 1]
    ys = [labels[:, 0], labels[:, 1], labels[:, 2], labels[:, 3], labels[:, 4]]
    for k in range(5):
        sel = masks[k]
        W[k], loss = _logit_fit(X[sel], ys[k][sel], l2=1e-5)
        print(f"output {k}: n={sel.sum()} loss={loss:.4f} ({time.time() - t:.0f}s)", flush=True)
    save_weights(out, W, provenance=f"bench_strength.py fit --games {games} (seed {seed})")
    print(f"weights written to {out}")


def _soft_targets(rows):
    """Pre-roll 1-ply probabilities (win, wg, wbg, lg, lbg) of the side on roll: for each
    roll its best move at 0 ply with the current weights, averaged over the 21 rolls."""
    r = tawla.get_ruleset("backgammon")
    out = np.zeros((len(rows), 5))
    for s in range(0, len(rows), 2000):
        blk = rows[s:s + 2000]
        c, par, roll = tawla.expand_all_rolls(blk, ruleset=r)
        ev = evaluate_rows(c, r)  # the opponent's view
        mine = np.stack([1 - ev[:, 1], ev[:, 4], ev[:, 5], ev[:, 2], ev[:, 3]], 1)
        eq = -ev[:, 0]
        key = par * 21 + roll
        starts = np.flatnonzero(np.r_[True, key[1:] != key[:-1]])
        ends = np.r_[starts[1:], len(key)]
        best = np.maximum.reduceat(eq, starts)
        hit = np.flatnonzero(eq == np.repeat(best, ends - starts))
        pick = hit[np.searchsorted(hit, starts)]
        w = tawla.ROLL_WEIGHTS[roll[pick]]
        for k in range(5):
            out[s:s + 2000, k] = np.bincount(par[pick], weights=w * mine[pick, k], minlength=len(blk))
    return out


def _distill_work(args):
    seed, games = args
    keys, labels = _selfplay_pubeval((seed, games))
    rows = np.zeros((len(keys), tawla.PACKED_WIDTH), np.uint8)
    rows[:, :52] = np.frombuffer(b"".join(keys), dtype=np.uint8).reshape(-1, 52)
    sel = ~is_race(rows, "backgammon")
    rows, labels = rows[sel], np.asarray(labels, float)[sel]
    return rows, labels, _soft_targets(rows)


def _wfit(X, y, sw, l2=1e-5, iters=10):
    """Weighted logistic regression with soft targets (Newton)."""
    n, f = X.shape
    w = np.zeros(f)
    reg = np.full(f, 2 * l2)
    reg[-1] = 0
    sw = sw / sw.mean()
    for _ in range(iters):
        p = 1 / (1 + np.exp(-np.clip(X @ w, -30, 30)))
        g = X.T @ (sw * (p - y)) / n + reg * w
        H = (X * (sw * p * (1 - p))[:, None]).T @ X / n + np.diag(reg + 1e-9)
        st = np.linalg.solve(H, g)
        w -= st
        if np.abs(st).max() < 1e-6:
            break
    return w


def distill(games, workers, lam=0.7, seed=777, out=WEIGHTS):
    """One improvement step: refit the five outputs to ``lam`` x (1-ply values of the
    current weights) + (1 - lam) x (game outcomes), on the contact positions of
    pubeval-vs-pubeval games. The shipped weights: ``fit --games 20000`` (seed 12345), then
    ``distill --games 6000`` (seed 777)."""
    t = time.time()
    with Pool(workers) as pool:
        res = pool.map(_distill_work, [(seed + i, games // 4) for i in range(4)])
    rows = np.concatenate([a for a, _, _ in res])
    lab = np.concatenate([b for _, b, _ in res])
    soft = np.concatenate([c for _, _, c in res])
    print(f"distill: {len(rows)} contact positions ({time.time() - t:.0f}s)", flush=True)
    me, opp, _ = sides(rows, tawla.get_ruleset("backgammon"))
    X = bg_features(me, opp)
    tg = lam * soft + (1 - lam) * lab
    win, wg, wbg, lg, lbg = tg.T
    eps = 1e-6
    W = np.zeros((5, X.shape[1]))
    W[0] = _wfit(X, win, np.ones(len(X)))
    W[1] = _wfit(X, np.clip(wg / np.maximum(win, eps), 0, 1), win + eps)
    W[2] = _wfit(X, np.clip(wbg / np.maximum(wg, eps), 0, 1), wg + eps)
    W[3] = _wfit(X, np.clip(lg / np.maximum(1 - win, eps), 0, 1), 1 - win + eps)
    W[4] = _wfit(X, np.clip(lbg / np.maximum(lg, eps), 0, 1), lg + eps)
    save_weights(out, W, provenance=f"bench_strength.py distill --games {games} --seed {seed} (lam {lam})")
    print(f"weights written to {out} ({time.time() - t:.0f}s)")


# --- cube -------------------------------------------------------------------------------------
def cube(plies=1):
    """Money cube decisions on the 2000 W1 positions (cube centred): tawla's
    :meth:`tawla.Bot.cube_action` against the same Janowski model fed with GNU Backgammon's
    cubeless pre-roll probabilities at ``plies`` (``gnubg_nn.probabilities``).

    gnubg_nn 1.1.0a11 has no money-game cube decision of its own (``evaluate_cube_decision``
    raises "Not implemented for money"), so this compares what the decisions are made from:
    the evaluations, through one decision rule."""
    import gnubg_nn as g

    ids = [(kind, pid) for kind in ("contact", "race") for pid in w1_ids(kind)]
    bot = tawla.Bot("backgammon", "ply1")
    rows = []
    t = time.time()
    for kind, pid in ids:
        pos = tawla.Position.from_gnubg_id(pid)
        if pos.result() is not None:
            continue
        ours = bot.cube_action(pos)
        theirs = CubeAction.from_probabilities(g.probabilities(to_gnubg(pos.row), plies))
        rows.append((kind, ours, theirs))
    print(f"{len(rows)} positions, tawla preroll 1-ply vs gnubg {plies}-ply probabilities "
          f"({time.time() - t:.0f}s)")
    for kind in ("contact", "race", "all"):
        sel = [(o, th) for k, o, th in rows if kind in ("all", k)]
        n = len(sel)
        dw = np.array([abs(o.win - th.win) for o, th in sel])
        de = np.array([abs(o.equity - th.equity) for o, th in sel])
        agree_d = np.mean([o.double == th.double for o, th in sel])
        agree_t = np.mean([o.take == th.take for o, th in sel])
        both = np.mean([(o.double, o.take) == (th.double, th.take) for o, th in sel])
        nd = sum(th.double for _, th in sel)
        nt = sum(not th.take for _, th in sel)
        print(f"{kind:8s} n={n:4d} |win diff| mean {dw.mean():.3f} p90 {np.quantile(dw, 0.9):.3f}  "
              f"|equity diff| mean {de.mean():.3f}  double agrees {100 * agree_d:.1f}% "
              f"take agrees {100 * agree_t:.1f}%  both {100 * both:.1f}%  "
              f"(gnubg-prob doubles {nd}, passes {nt})")


# --- timing -------------------------------------------------------------------------------------
def timing(n=300, seed=7, batch=1000):
    """CPU microseconds per decision (process time, so other load on the machine does not
    count) for each level's ``choose`` on ``n`` positions from ply0 self-play (ply2 on a
    tenth of them, at least 10), and for ``Bot.choose_rows`` (batch play, ``batch`` games
    at once) at ply0. With ``TAWLA_NO_NATIVE=1`` it times the reference engine and the
    numpy evaluators."""
    clock = time.process_time
    print(f"fast engine: {fast_available()}; compiled evaluators: {native.available('eval')}")
    for rs in tawla.RULESET_IDS:
        rng = np.random.default_rng(seed)
        sample = []
        bot = tawla.Bot(rs, "ply0")
        while len(sample) < n:
            pos = tawla.get_ruleset(rs).initial_position()
            for _ in range(400):
                dice = tuple(int(x) for x in rng.integers(1, 7, 2))
                sample.append((pos, dice))
                m = bot.choose(pos, dice)
                pos = pos.play(m if m is not None else pass_move(pos, dice))
                if pos.result() is not None:
                    break
        sample = sample[:n]
        line = []
        for lv in tawla.Bot.LEVELS:
            b = tawla.Bot(rs, lv, seed=1)
            k = n if lv != "ply2" else max(10, n // 10)
            t = clock()
            for pos, dice in sample[:k]:
                b.choose(pos, dice)
            line.append(f"{lv}={1e6 * (clock() - t) / k:.0f}us")
        # batch play
        r = tawla.get_ruleset(rs)
        b = tawla.Bot(r, "ply0")
        rows = np.repeat(r.initial_position().to_array()[None], batch, 0)
        t, steps = clock(), 0
        for _ in range(60):
            d = rng.integers(1, 7, (batch, 2)).astype(np.uint8)
            rows, played = b.choose_rows(rows, d)
            steps += int(played.sum())
        line.append(f"ply0-batch={1e6 * (clock() - t) / max(steps, 1):.1f}us")
        print(f"{rs:16s} " + " ".join(line), flush=True)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("what", choices=["bg", "gnubg", "tawla", "timing", "fit", "distill", "cube", "pool"])
    ap.add_argument("files", nargs="*", type=Path, help="pool: saved runs, or folders of them")
    ap.add_argument("--games", type=int, default=None)
    ap.add_argument("--levels", default=None)
    ap.add_argument("--level", default="ply1")
    ap.add_argument("--rulesets", default="adi,mahbusa,tawla31,tawla31-saharat")
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--positions", type=int, default=300, help="timing: positions per ruleset")
    ap.add_argument("--batch", type=int, default=1000, help="timing: games at once in the choose_rows batch")
    ap.add_argument("--out", type=Path, default=WEIGHTS,
                    help="fit, distill: the .npz file the weights are written to (default: the package's)")
    ap.add_argument("--vs", choices=["both", "random", "below"], default="both",
                    help="tawla: play each level against random, the level below, or both")
    ap.add_argument("--against", default=None,
                    help="tawla: play each level against this level instead (for example ply2 or net0)")
    a = ap.parse_args(argv)
    if a.what == "pool":
        pool(a.files)
    elif a.what == "fit":
        fit(a.games or 20000, a.workers, out=a.out)
    elif a.what == "distill":
        distill(a.games or 6000, a.workers, seed=a.seed or 777, out=a.out)
    elif a.what == "timing":
        timing(a.positions, batch=a.batch)
    elif a.what == "cube":
        cube()
    elif a.what == "bg":
        for lv in (a.levels or "random,ply0,ply1").split(","):
            match("backgammon", lv, "pubeval", a.games or 2000, a.workers, a.seed)
    elif a.what == "gnubg":
        match("backgammon", a.level, "gnubg0", a.games or 500, a.workers, a.seed)
    else:
        levels = (a.levels or ",".join(tawla.Bot.LEVELS[1:])).split(",")
        for rs in a.rulesets.split(","):
            for lv in levels:
                if a.against:
                    match(rs, lv, a.against, a.games or 1000, a.workers, a.seed)
                    continue
                below = tawla.Bot.LEVELS[tawla.Bot.LEVELS.index(lv) - 1]
                if a.vs in ("both", "random"):
                    match(rs, lv, "random", a.games or 1000, a.workers, a.seed)
                if below != "random" and a.vs in ("both", "below"):
                    match(rs, lv, below, a.games or 1000, a.workers, a.seed)


if __name__ == "__main__":
    main()
