"""``tawla cube ID``: the cube decision of the side on roll, money or at a match score, printed
as GNU Backgammon prints a cube analysis."""

from __future__ import annotations

import argparse
import json

from ..bots.cube import decision_fields
from ..bots.policies import CUBE_LEVELS, cube_analysis
from ..errors import ConfigError
from ..met import MatchCube, load_met
from .arguments import POSITION_HELP, POSITION_RULESET_HELP, add_match_options, id_lines, load_position, match_state

__all__ = ["add_parser", "run", "LEVELS"]

HELP = "the cube decision of a position: no double, double/take, double/pass, money or at a match score"
DESCRIPTION = (
    "Print the board and its IDs, the cubeless probabilities of the side on roll before it rolls, "
    "the cubeful equities of no double, double/take and double/pass and the proper cube action, "
    "as GNU Backgammon's cube analysis prints them. In a match (--length and --score, or an XGID "
    "that carries them) the equities are normalised (EMG: +1 a win of the cube's value) and also "
    "given as match-winning chances, from the Kazaross-XG2 table or --met FILE; Janowski's model "
    "with the cube efficiency of the position's class, as GNU Backgammon's 0-ply evaluation."
)

LEVELS = CUBE_LEVELS
"""``net0``: the shipped network's probabilities of the position (0 ply); ``net1``: the
average over the 21 rolls of the best play's (one roll of lookahead), and at a match score
the equities of the cubeful 1-ply search (:func:`tawla.bots.policies.cube_analysis`)."""

_ACTION_NAMES = {"no_double": "No double", "double_take": "Double, take", "double_pass": "Double, pass"}


def add_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Register ``cube`` on the ``tawla`` parser's subparsers."""
    p = subparsers.add_parser("cube", help=HELP, description=DESCRIPTION)
    p.add_argument("position", help=POSITION_HELP)
    p.add_argument("--ruleset", default=None, help=POSITION_RULESET_HELP)
    p.add_argument("--level", choices=LEVELS, default="net0",
                   help="net0: the network's probabilities (0 ply); net1: one roll of lookahead, "
                        "at a match score a cubeful 1-ply search (default: %(default)s)")
    p.add_argument("--met", default=None, metavar="FILE",
                   help="a match equity table in GNU Backgammon's XML format (default: Kazaross-XG2)")
    p.add_argument("--json", action="store_true", help="one JSON object instead of the text")
    add_match_options(p)
    p.set_defaults(run=run)
    return p


def _proper(d, redouble: bool) -> str:
    """The proper action in GNU Backgammon's words ("Redouble" for the owner's cube)."""
    text = d.proper
    if isinstance(d, MatchCube) and not d.may_double and d.state is not None:
        text = "no double (dead cube)" if d.state.owner >= 0 else "no double (the opponent owns the cube)"
    if redouble:
        text = text.replace("double", "redouble")
    return text[0].upper() + text[1:]


def decision_lines(d, probs, what: str, redouble: bool = False) -> list[str]:
    """GNU Backgammon's cube analysis: the probabilities, then each action (the proper one
    first) with its equity and its difference from the proper one's."""
    lines = [f"Cube analysis ({what})",
             "  {:.3f} {:.3f} {:.3f} - {:.3f} {:.3f} {:.3f}   cubeless equity {:+.3f}".format(
                 probs[1], probs[2], probs[3], 1 - probs[1], probs[4], probs[5], probs[0])]
    if not d.may_double:
        lines += ["Cubeful equity:", f"1. No double           {d.no_double:+.3f}"]
    else:
        best = d.optimal
        first = ("double_take" if d.take else "double_pass") if d.double else "no_double"
        order = [first] + sorted((k for k in _ACTION_NAMES if k != first), key=lambda k: -getattr(d, k))
        lines.append("Cubeful equities:")
        for i, k in enumerate(order, 1):
            eq = getattr(d, k)
            name = _ACTION_NAMES[k].replace("Double", "Redouble").replace(" double", " redouble") if redouble \
                else _ACTION_NAMES[k]
            line = f"{i}. {name:20s} {eq:+.3f}"
            if i > 1:
                line += f"  ({eq - best:+.3f})"
            if isinstance(d, MatchCube):
                line = f"{line:40s} MWC {100 * getattr(d, k + '_mwc'):5.1f}%"
            lines.append(line)
    lines.append(f"Proper cube action: {_proper(d, redouble)}")
    return lines


def run(args: argparse.Namespace) -> int:
    """Print the cube analysis; exit status 0.

    Raises
    ------
    tawla.errors.UnsupportedRuleset
        A ruleset without a doubling cube.
    tawla.errors.InvalidId, tawla.errors.InvalidPosition
    tawla.errors.ConfigError
        Match options that make no match state.
    tawla.errors.FormatError
        A --met file that is not a table.
    tawla.errors.InvalidArgument
        A match state the model cannot hold (a Crawford game with the cube turned...).
    """
    pos = load_position(args.position, args.ruleset)
    if not pos.ruleset.cube:
        raise ConfigError(f"{pos.ruleset.name} has no doubling cube")
    state = match_state(args, args.position, pos)
    assert state is not None  # a ruleset with a cube has backgammon's board
    met = load_met(args.met) if args.met else None
    probs, d = cube_analysis(pos, state, args.level, met)
    n = state.match_length
    if n:
        me = state.player_on_roll
        what = (f"{args.level}; {n}-point match, {n - state.score[me]}-away {n - state.score[1 - me]}-away, "
                f"cube {state.cube_value}{' (Crawford)' if state.crawford else ''}")
    else:
        what = f"{args.level}; money game, cube {state.cube_value}{', Jacoby' if state.jacoby else ''}"
    if args.json:
        print(json.dumps({"position": pos.gnubg_id(), "match_id": state.match_id(), "xgid": pos.xgid(state),
                          "level": args.level, "match_length": n, **decision_fields(d, probs)}))
        return 0
    print(pos)
    print()
    print("\n".join(id_lines(pos, state)))
    print()
    redouble = state.cube_owner is not None and state.cube_owner == state.player_on_roll
    print("\n".join(decision_lines(d, probs, what, redouble)))
    return 0

