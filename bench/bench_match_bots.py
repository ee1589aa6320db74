"""The score-aware bot against the same bot playing for money, in backgammon matches. Not run in CI.

Usage::

    python bench/bench_match_bots.py [--pairs 200] [--length 5] [--level net0] [--workers 2] [--seed 1]
    python bench/bench_match_bots.py --ruleset adi --house federation --length 5

In the Tawla rulesets scored by mars (Adi, Mahbusa, Saharat's Tawla 31) there is no cube:
the score-aware bot plays for match-winning chance from the ruleset's measured table, the
other for points.

Both bots are ``tawla.Bot(level)``. The score-aware one acts by
:func:`tawla.bots.policies.bot_action` (plays at the score, doubles, takes and drops by the
cube model at the score); the money one plays cubeless and doubles, takes and drops by the
money model (:class:`tawla.bots.MoneyCube`, the same efficiencies) as if the match were a
money game. Matches come in pairs on duplicate dice (the same seed, the seats swapped), so
the luck of the dice cancels; the share of matches the score-aware bot wins is given with
its 95% interval (over pairs). The last line is a one-line summary.
"""

from __future__ import annotations

import argparse
import math
import time
from concurrent.futures import ProcessPoolExecutor

import numpy as np

from tawla import Bot, Match
from tawla.bots.policies import MatchView, bot_action
from tawla.formats.gnubg import MatchState


def money_action(bot: Bot, view: MatchView):
    """The money bot: cubeless plays, money cube decisions (points, in a ruleset without a cube)."""
    money = MatchState(cube_value=view.cube_value, cube_owner=view.cube_owner, player_on_roll=view.turn,
                       match_length=0, jacoby=False)
    if view.phase == "move":
        return "move", bot.choose(view.turn_start_position, view.dice)
    if view.phase == "roll":
        if view.may_double and bot.cube_action(view.position, match_state=money).double:
            return "double", None
        return "roll", None
    if view.phase == "double":
        return ("take" if bot.cube_action(view.position, match_state=money).take else "drop"), None
    return "reject", None


def play(args) -> int:
    """One match: 1 when the score-aware bot (seat ``aware``) wins."""
    seed, length, level, aware, ruleset, house = args
    bot = Bot(ruleset, level)
    m = Match(ruleset, house=house, length=length, rng=seed)
    acts = {"roll": m.roll, "double": m.double, "take": m.take, "drop": m.drop,
            "accept": m.accept_resignation, "reject": m.reject_resignation}
    for _ in range(20000):
        if m.phase == "over":
            break
        seat = m.to_act
        view = MatchView.of(m)
        name, move = bot_action(bot, view) if seat == aware else money_action(bot, view)
        if name == "move":
            m.play(seat, move)
        else:
            acts[name](seat)
    return int(m.winner == aware)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", type=int, default=200)
    ap.add_argument("--length", type=int, default=5)
    ap.add_argument("--level", default="net0")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--ruleset", default="backgammon")
    ap.add_argument("--house", default="international")
    args = ap.parse_args(argv)
    jobs = [(args.seed + i, args.length, args.level, aware, args.ruleset, args.house)
            for i in range(args.pairs) for aware in (0, 1)]
    t0 = time.time()
    with ProcessPoolExecutor(args.workers) as pool:
        wins = np.array(list(pool.map(play, jobs, chunksize=4))).reshape(args.pairs, 2)
    per_pair = wins.mean(axis=1)
    share = per_pair.mean()
    half = 1.96 * per_pair.std(ddof=1) / math.sqrt(len(per_pair)) if len(per_pair) > 1 else float("nan")
    print(f"{2 * args.pairs} {args.length}-point {args.ruleset} matches ({args.pairs} duplicate pairs), level {args.level}: "
          f"the score-aware bot won {100 * share:.1f}% ± {100 * half:.1f} ({int(wins.sum())}); "
          f"{time.time() - t0:.0f} s")
    print(f"SUMMARY share {share:.4f} ± {half:.4f} matches {2 * args.pairs}")


if __name__ == "__main__":
    main()
