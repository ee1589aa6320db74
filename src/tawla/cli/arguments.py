"""Reading the values of the ``tawla`` command line: dice, positions, counts.

Each reader raises the :mod:`tawla.errors` class that names what is wrong with the text, so
that :func:`tawla.cli.main` reports it in one line with the right exit status; the counts are
``argparse`` types, whose errors are the parser's own usage errors.
"""

from __future__ import annotations

import argparse
import dataclasses
import re

from ..analysis.positions import parse_position
from ..errors import ConfigError, InvalidArgument, InvalidDice, TawlaError, quote
from ..formats.gnubg import MatchState
from ..position import Position
from ..rollout import LEVELS as ROLLOUT_LEVELS
from ..rollout import MAX_TRIALS, RolloutSettings
from ..rules import RulesetLike

__all__ = ["parse_dice", "load_position", "count", "positive", "RULESET_HELP", "POSITION_HELP",
           "add_match_options", "match_state", "id_lines", "add_rollout_options", "rollout_settings"]

RULESET_HELP = ("backgammon (bg), adi (sheshbesh), mahbusa (mah), tawla31 (31) or tawla31-saharat (t31s); "
                "default: %(default)s")
POSITION_RULESET_HELP = ("backgammon (bg), adi (sheshbesh), mahbusa (mah), tawla31 (31) or tawla31-saharat (t31s); "
                         "default: the tawla ID's own (a gnubg ID or XGID: backgammon); checked against the ID's")
POSITION_HELP = "a gnubg Position ID (14 chars), an XGID (XGID=...) or a tawla ID (40 chars)"

_DICE = re.compile(r"([1-6])\s*[-,/]?\s*([1-6])")


def parse_dice(text: str) -> tuple[int, int]:
    """The roll written as two digits 1..6: ``31``, ``3-1``, ``3,1``, ``3/1`` or ``3 1``.

    Returns
    -------
    (int, int)
        The dice in the order written.

    Raises
    ------
    tawla.errors.InvalidDice
        Anything else: a die out of 1..6 (``79``), digits that are not ASCII (``²³``),
        the empty text, more or fewer than two dice.
    """
    match = _DICE.fullmatch(text.strip())
    if match is None:
        raise InvalidDice(f"dice must be two digits 1..6 such as 31 or 3-1, not {quote(text)}")
    return int(match[1]), int(match[2])


def load_position(text: str, ruleset: RulesetLike | None) -> Position:
    """A position on the command line: :func:`tawla.analysis.positions.parse_position` (a gnubg
    Position ID, an XGID or a tawla ID; its errors: InvalidId, InvalidPosition, UnsupportedRuleset).
    """
    return parse_position(text, ruleset)


def _is_xgid(text: str) -> bool:
    return text.upper().startswith("XGID=") or text.count(":") >= 9


_OWNERS = {"centre": None, "center": None, "on-roll": 0, "opponent": 1}
_SCORE = re.compile(r"(\d{1,5})\s*[-,:/]\s*(\d{1,5})")


def add_match_options(p: argparse.ArgumentParser) -> None:
    """The match context of a board, for its XGID and gnubg Match ID: ``--cube``, ``--owner``,
    ``--score``, ``--length``, ``--crawford`` (read by :func:`match_state`); the rulesets
    without a cube take ``--score`` and ``--length``."""
    g = p.add_argument_group("match context (an XGID given as the position brings its own; "
                             "without a cube: --length and --score)")
    g.add_argument("--cube", type=positive, default=None, help="cube value, a power of two (default 1)")
    g.add_argument("--owner", choices=sorted(_OWNERS), default=None,
                   help="who owns the cube: on-roll, opponent or centre (default)")
    g.add_argument("--score", default=None, help="match score, the side on roll first, e.g. 2-4 (default 0-0)")
    g.add_argument("--length", type=count, default=None, help="match length in points; 0, the default: money game")
    g.add_argument("--crawford", action="store_true", help="this is the Crawford game")


def match_state(args: argparse.Namespace, text: str, position: Position,
                dice: tuple[int, int] | None = None) -> MatchState | None:
    """The match context of the command line: the XGID's own (when ``text`` is one) or a money
    game with the cube centred, the side on roll as gnubg's player 0, with the options of
    :func:`add_match_options` and ``dice`` (the roll) applied on top. On a board no XGID
    describes (the no-hit rulesets) the match of ``--length`` and ``--score``, or None.

    Raises
    ------
    tawla.errors.ConfigError
        A cube option on a board of a ruleset without a cube, a score that is not two
        whole numbers, or options that do not make a match state (a cube that is not a power
        of two, a score not below the match length, Crawford in a money game).
    """
    given = [f"--{k}" for k in ("cube", "owner", "score", "length") if getattr(args, k) is not None]
    given += ["--crawford"] if args.crawford else []
    cube = [g for g in given if g not in ("--score", "--length")]
    if cube and not position.ruleset.cube:
        raise ConfigError(f"{', '.join(cube)}: {position.ruleset.name} has no doubling cube "
                          "(a match of it takes --length and --score)")
    if not position.ruleset.has_bar:  # no XGID: a match of a Tawla ruleset, by its score alone
        if not args.length:
            if args.score is not None:
                raise ConfigError("--score needs --length: the match length in points")
            return None
        base = MatchState(jacoby=False)
    else:
        base = MatchState.from_xgid(text.strip()) if _is_xgid(text.strip()) else MatchState(jacoby=False)
    me = base.player_on_roll
    owner = base.cube_owner
    if args.owner is not None:
        side = _OWNERS[args.owner]
        owner = None if side is None else (me if side == 0 else 1 - me)
    score = base.score
    if args.score is not None:
        m = _SCORE.fullmatch(args.score.strip())
        if m is None:
            raise ConfigError(f"--score takes two whole numbers, the side on roll first (2-4), not {quote(args.score)}")
        score = (int(m[1]), int(m[2])) if me == 0 else (int(m[2]), int(m[1]))
    length = base.match_length if args.length is None else args.length
    crawford = args.crawford or (base.crawford and args.length is None)
    what = ", ".join(given) or "the match context"
    if length and max(score) >= length:
        raise ConfigError(f"{what}: the score {score[me]}-{score[1 - me]} (the side on roll first) is not below "
                          f"the match length {length}")
    try:
        return dataclasses.replace(base, cube_value=base.cube_value if args.cube is None else args.cube,
                                   cube_owner=owner, score=score, match_length=length, crawford=crawford,
                                   jacoby=base.jacoby and not length, dice=base.dice if dice is None else dice,
                                   double_offered=base.double_offered and dice is None)
    except TawlaError as e:
        raise ConfigError(f"{what}: {e}") from None


def id_lines(position: Position, state: MatchState | None) -> list[str]:
    """The IDs of a position, one a line: on a backgammon board its gnubg Position ID, the
    gnubg Match ID and the XGID of ``state``, then (every board) its tawla ID."""
    lines = []
    if state is not None and position.ruleset.has_bar:
        lines += [f"Position ID: {position.gnubg_id()}", f"Match ID   : {state.match_id()}",
                  position.xgid(state)]
    return lines + [f"tawla ID   : {position.id()}"]


def _whole_number(text: str, least: int) -> int:
    try:
        n = int(text)
    except ValueError:
        n = None
    if n is None or n < least:
        raise argparse.ArgumentTypeError(f"expected a whole number >= {least}, not {quote(text)}")
    return n


def count(text: str) -> int:
    """``argparse`` type: a whole number >= 0."""
    return _whole_number(text, 0)


def positive(text: str) -> int:
    """``argparse`` type: a whole number >= 1."""
    return _whole_number(text, 1)


def add_rollout_options(p: argparse.ArgumentParser, level_option: str = "--level") -> None:
    """The settings of a rollout (read by :func:`rollout_settings`); ``level_option`` names the
    option of the trials' level (``--rollout-level`` where ``--level`` means something else)."""
    g = p.add_argument_group("rollout settings")
    g.add_argument("--trials", type=int, default=1296,
                   help=f"trials per position or play, 1..{MAX_TRIALS} (with --se: the most; default %(default)s)")
    g.add_argument("--se", type=float, default=None, metavar="POINTS",
                   help="stop once the cubeless equity's standard error is at most this")
    g.add_argument("--min-trials", type=int, default=324, help="with --se: at least this many (default %(default)s)")
    g.add_argument(level_option, dest="rollout_level", choices=ROLLOUT_LEVELS, default="net0",
                   help="the checker play of the rollout's trials (default %(default)s)")
    g.add_argument("--truncate", type=int, default=0, metavar="PLIES",
                   help="stop each trial after this many moves and value it there (0, the default: play to the end)")
    g.add_argument("--no-vr", action="store_true", help="no variance reduction (luck adjustment)")
    g.add_argument("--no-bearoff", action="store_true",
                   help="play bear-offs out instead of ending trials at the bear-off databases")
    g.add_argument("--cubeless", action="store_true", help="no cube decisions (backgammon): no cubeful equity")
    g.add_argument("--seed", type=int, default=0, help="the dice (default %(default)s)")


def rollout_settings(args: argparse.Namespace) -> RolloutSettings:
    """The :class:`~tawla.rollout.RolloutSettings` of :func:`add_rollout_options`' options.

    Raises
    ------
    tawla.errors.ConfigError
        A value out of its range (the command line is wrong).
    """
    try:
        return RolloutSettings(trials=args.trials, se=args.se, min_trials=args.min_trials, level=args.rollout_level,
                               truncate=args.truncate, variance_reduction=not args.no_vr,
                               bearoff=not args.no_bearoff, cubeful=not args.cubeless, seed=args.seed)
    except InvalidArgument as e:
        raise ConfigError(str(e)) from None
