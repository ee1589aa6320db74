"""Tawla 31 at a match score by rollout: where the bot playing for match-winning chance and the
same bot playing for points choose differently, which play the rollout at the score prefers;
and how far net0's 0-ply match-winning chance lies from the rolled-out one. Not run in CI.

Usage::

    python bench/bench_t31_rollout.py [--decisions 60] [--trials 1296] [--length 11]
        [--level net0] [--workers 2] [--seed 1]

Positions come from seeded self-play of the ``net0`` bot (Tawla 31, the federation's rules),
each at a random score of a ``--length``-point match and a random roll; a decision is kept
when ``Bot.hint(..., match_state=...)`` (match-winning chance from the distribution of a game's
result, :mod:`tawla.evaluation.points`) and ``Bot.hint(...)`` (expected points) rank different
plays first. Both plays are rolled out at the score (``tawla.rollout(position, dice,
plays=[...], match_state=...)``: trials on the same dice, each played to its game's end and
worth the table's chance after its points). Reported: the share of decisions where the rollout
prefers the match-winning-chance play, the mean match-winning chance it gains with a 95%
interval over the decisions, and net0's 0-ply match-winning chance of each position before its
roll against the rolled-out one (mean error, mean signed error). The last line is a one-line
summary.
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np

from tawla import Bot, rollout
from tawla.bots.score import mwc_on_roll
from tawla.evaluation.net import shipped_net
from tawla.evaluation.points import t31_distribution
from tawla.formats.gnubg import MatchState
from tawla.rules import get_ruleset

T31 = get_ruleset("tawla31")


def decisions(n: int, length: int, level: str, seed: int) -> list:
    """(position, dice, state, the MWC play, the points play) where the two rank differently."""
    rng = np.random.default_rng(seed)
    bot = Bot(T31, level, seed=seed)
    out: list = []
    while len(out) < n:
        pos = T31.initial_position()
        while pos.result() is None and len(out) < n:
            dice = tuple(int(d) for d in rng.integers(1, 7, 2))
            mine, theirs = (int(x) for x in rng.integers(0, length, 2))
            state = MatchState(match_length=length, score=(mine, theirs))
            if len(pos.legal_moves(dice)) > 1:
                by_mwc = bot.hint(pos, dice, match_state=state)[0].move
                by_points = bot.hint(pos, dice)[0].move
                if by_mwc != by_points:
                    out.append((pos, dice, state, str(by_mwc), str(by_points)))
            pos = pos.play(bot.choose(pos, dice))
    return out


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--decisions", type=int, default=60)
    ap.add_argument("--trials", type=int, default=1296)
    ap.add_argument("--length", type=int, default=11)
    ap.add_argument("--level", default="net0")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    start = time.perf_counter()
    found = decisions(args.decisions, args.length, args.level, args.seed)
    gains, errors = [], []
    for k, (pos, dice, state, by_mwc, by_points) in enumerate(found):
        ro = rollout(pos, dice, plays=[by_mwc, by_points], trials=args.trials, seed=args.seed + k,
                     match_state=state, workers=args.workers)
        value = {str(p.move): p.score_mwc for p in ro.plays}
        gains.append(value[by_mwc] - value[by_points])
        whole = rollout(pos, trials=args.trials, seed=args.seed + k, match_state=state, workers=args.workers)
        row = np.frombuffer(pos.row, np.uint8)[None].copy()
        me = state.match_length - state.score[0]
        them = state.match_length - state.score[1]
        zero = float(mwc_on_roll(t31_distribution(row, T31, shipped_net(T31)), T31, me, them)[0])
        errors.append(zero - whole.mwc)
        print(f"{k + 1:3d}. {me}-away {them}-away {dice[0]}{dice[1]}: MWC play {by_mwc} vs points play {by_points}: "
              f"{100 * gains[-1]:+.2f}% MWC; 0-ply {100 * zero:.1f}% vs rollout {100 * whole.mwc:.1f}%", flush=True)
    g, e = np.array(gains), np.array(errors)
    half = 1.96 * g.std(ddof=1) / math.sqrt(len(g)) if len(g) > 1 else float("nan")
    wins = int((g > 0).sum())
    print(f"\n{len(g)} decisions where the two bots differ ({args.level}, {args.length}-point matches, "
          f"{args.trials} trials a play, {time.perf_counter() - start:.0f} s)")
    print(f"the rollout prefers the match-winning-chance play in {wins} ({100 * wins / len(g):.1f}%); "
          f"mean gain {100 * g.mean():+.2f}% ± {100 * half:.2f}% MWC")
    print(f"net0 0-ply MWC against the rollout: mean error {100 * np.abs(e).mean():.2f}%, "
          f"mean signed {100 * e.mean():+.2f}%")
    print(f"SUMMARY t31-rollout: prefers MWC play {wins}/{len(g)}, gain {100 * g.mean():+.2f}±{100 * half:.2f}% MWC, "
          f"0-ply error {100 * np.abs(e).mean():.2f}% (bias {100 * e.mean():+.2f}%)")


if __name__ == "__main__":
    main()
