"""``tawla moves ID DICE``: the legal plays of a position for one roll, ranked by a bot."""

from __future__ import annotations

import argparse

from ..bots import Bot, RankedMove
from ..bots.levels import DEFAULT_LEVEL, LEVELS as EVALUATOR_LEVELS, describe
from ..bots.score import match_score
from ..errors import ConfigError
from ..met.cube import relative_owner
from ..rollout import rollout
from ..rollout.text import format_text
from ..position import Position
from .arguments import (POSITION_HELP, POSITION_RULESET_HELP, add_match_options, add_rollout_options, id_lines,
                        load_position, match_state, parse_dice, rollout_settings)

__all__ = ["add_parser", "run", "LEVELS"]

HELP = "list the legal plays of a position for a roll, ranked by a bot"
DESCRIPTION = (
    "Print the board and its IDs (as tawla board does, with the roll DICE in the XGID and the "
    "Match ID), then every legal play of the side on roll (one per distinct resulting position), "
    "best first, as GNU Backgammon's hint lists them: the rank, the depth of the evaluation, the "
    "play, its equity (cubeless: the points the side on roll expects to win, in the ruleset's "
    "scoring; in a backgammon match, --length and --score or an XGID that has them, the cubeful "
    "equity at the score, normalised as GNU Backgammon's EMG; in a match of a Tawla ruleset, "
    "--length and --score, 2 x the match-winning chance - 1 from the ruleset's measured table), "
    "its difference from the best play's, the mover's pip count after it and, on a backgammon "
    "board, the gnubg Position ID of the position the opponent then faces."
)

LEVELS = EVALUATOR_LEVELS
"""The :class:`tawla.Bot` levels that ``--level`` takes (:data:`tawla.bots.levels.LEVELS`)."""


def add_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Register ``moves`` on the ``tawla`` parser's subparsers."""
    p = subparsers.add_parser("moves", help=HELP, description=DESCRIPTION)
    p.add_argument("position", help=POSITION_HELP)
    p.add_argument("dice", help="the roll: two digits 1..6, e.g. 31 or 3-1")
    p.add_argument("--ruleset", default=None, help=POSITION_RULESET_HELP)
    p.add_argument("--level", choices=LEVELS, default=DEFAULT_LEVEL,
                   help="the bot that ranks the plays (default: %(default)s, the trained network at 0 ply; "
                        "net1, net2: searched 1 and 2 plies on it; ply0..ply2: the hand-made model)")
    p.add_argument("--no-eval", action="store_true", help="list the plays in the engine's order, unranked")
    p.add_argument("--rollout", action="store_true",
                   help="rank the plays by rolling each out (the settings below; as tawla rollout ID --dice DICE)")
    p.add_argument("--top", type=int, default=None, help="with --rollout: the N best plays at 0 ply only")
    p.add_argument("--workers", type=int, default=1, help="with --rollout: worker processes (default %(default)s)")
    add_rollout_options(p, "--rollout-level")
    add_match_options(p)
    p.set_defaults(run=run)
    return p


def _line(pos: Position, i: int, ranked: RankedMove | None, best: float | None, move_text: str,
          after: Position, ended: bool) -> str:
    """One play: rank, depth, text, equity and difference (when ranked), pips, the next ID."""
    line = f"{i:4d}. "
    if ranked is not None and best is not None:
        diff = ranked.value - best
        line += f"ply{ranked.ply}  {move_text:28s} Eq.: {ranked.value:+7.3f} "
        line += (f"({diff:+7.3f})" if i > 1 else " " * 9) + " "
    else:
        line += f"{move_text:28s}"
    line += f" pips {after.pip_count()[0]:3d}"
    if pos.ruleset.has_bar:
        line += f"  {after.flip().gnubg_id()}"
    return line + ("  (ends the game)" if ended else "")


def run(args: argparse.Namespace) -> int:
    """Print the board, its IDs and the ranked plays; exit status 0.

    Raises
    ------
    tawla.errors.UnsupportedRuleset, tawla.errors.InvalidDice, tawla.errors.InvalidId,
    tawla.errors.InvalidPosition
    tawla.errors.ConfigError
        Match options that make no match state, or on a board without an XGID.
    """
    dice = parse_dice(args.dice)
    pos = load_position(args.position, args.ruleset)
    state = match_state(args, args.position, pos, dice=dice)
    print(pos)
    print()
    print("\n".join(id_lines(pos, state)))
    print()
    moves = pos.legal_moves(dice)
    if not moves:
        print(f"{dice[0]}{dice[1]}: no legal play, the turn passes")
        return 0
    plural = "s" if len(moves) != 1 else ""
    if args.no_eval:
        print(f"{dice[0]}{dice[1]}: {len(moves)} legal play{plural}")
        for i, m in enumerate(moves, 1):
            print(_line(pos, i, None, None, str(m), Position(m.after, pos.ruleset), m.ended))
        return 0
    if args.rollout:
        match = state if state is not None and state.match_length else None
        owner = 0 if state is None else relative_owner(state.cube_owner, state.player_on_roll)
        if args.workers < 1:
            raise ConfigError(f"--workers must be at least 1, not {args.workers}")
        print(format_text(rollout(pos, dice, settings=rollout_settings(args), top=args.top,
                                  cube_owner=0 if match else owner, match_state=match, workers=args.workers)))
        return 0
    at_score = match_score(state, pos.ruleset) is not None
    ranked = Bot(pos.ruleset, args.level).hint(pos, dice, match_state=state if at_score else None)
    if at_score:
        assert state is not None
        me = state.player_on_roll
        n = state.match_length
        what = (f"cube {state.cube_value}; Eq.: cubeful equity normalised to the cube, EMG, the opponent's cube "
                "action at the score included" if pos.ruleset.cube else
                f"Eq.: 2 x match-winning chance - 1, from {pos.ruleset.name}'s measured table")
        print(f"{dice[0]}{dice[1]}: {len(moves)} legal play{plural}, ranked by the {args.level} bot at the score "
              f"({n}-point match, {n - state.score[me]}-away {n - state.score[1 - me]}-away, {what})")
    else:
        print(f"{dice[0]}{dice[1]}: {len(moves)} legal play{plural}, ranked by the {args.level} bot "
              f"(Eq.: cubeless equity of the side on roll in points; (diff): the play's equity minus the best's)")
    print(f"evaluator {describe(args.level, pos.ruleset)}")
    best = ranked[0].value
    for i, r in enumerate(ranked, 1):
        m = r.move
        print(_line(pos, i, r, best, str(m), Position(m.after, pos.ruleset), m.ended))
    return 0
