"""Rulesets: the games of RULES.md as data.

A :class:`Ruleset` is movement + scoring (RULES.md §§1-8); what a platform adds on
top (match lengths, timers, coin tables) is a house profile and lives elsewhere.
Every public function that takes a ``ruleset`` accepts a :class:`Ruleset` or a
name (id or alias), resolved by :func:`get_ruleset`.

Coordinates (RULES.md §1.1): each player counts in his own numbering, points
1..24 with 24 farthest from home, 0 = borne off, 25 = the bar.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace
from enum import StrEnum
from types import MappingProxyType
from typing import Any, Mapping

from ..core.geometry import OPPOSITE, SAME, opponent_point
from ..core.layout import OPP, PACKED_WIDTH
from ..core.moves import position_type
from ..errors import UnsupportedRuleset, quote

__all__ = [
    "Ruleset",
    "Scoring",
    "get_ruleset",
    "RulesetLike",
    "RULESET_IDS",
    "OPPOSITE",
    "SAME",
    "HIT",
    "PIN",
    "BLOCK",
    "applicable_options",
    "ruleset_byte",
    "ruleset_of_byte",
]

HIT = "hit"  # landing on a blot hits it to the bar (STD, ADI)
PIN = "pin"  # landing on a blot pins it (MAH)
BLOCK = "block"  # any opponent checker closes a point (T31E, T31S)



class Scoring(StrEnum):
    """How a game is scored (RULES.md §1.8, §2.2, §5.7). A ``str``: each member equals its
    value (``Scoring.MARS == "mars"``) and is written as it in JSON."""

    CUBE = "cube"  # single, gammon, backgammon, times the doubling cube (backgammon)
    MARS = "mars"  # 1 point, 2 for a mars (adi, mahbusa)
    CHECKERS_LEFT = "checkers_left"  # the loser's checkers left on the board, 15 for none off (tawla31)


_BG_START = ((24, 2), (13, 5), (8, 3), (6, 5))
_STACK_START = ((24, 15),)


@dataclass(frozen=True)
class Ruleset:
    """One game of the backgammon family, as data (RULES.md §7, the flag table).

    Instances are frozen and hashable; two rulesets are equal when the game and
    every option are equal. Build them with :func:`get_ruleset`.

    Attributes
    ----------
    name : str
        The ruleset id (``backgammon``, ``adi``, ``mahbusa``, ``tawla31``, ``tawla31-saharat``).
    geometry : str
        ``"opposite"`` (q = 25 - p) or ``"same"`` (q = ((p + 11) mod 24) + 1), §1.1.
    start : tuple of (point, count)
        The starting checkers of each side, in its own numbering (§1.2).
    contact : str
        What landing on a single opponent checker does: ``"hit"`` (§2.1), ``"pin"`` (§4.2)
        or ``"block"`` (not allowed, §5.2 / §6.2).
    start_lock : int
        0 for none; otherwise the runner lock of §5.3 / §6.3: while the side has no checker
        on points ``1..start_lock`` and none off, only one checker may leave point 24.
    bearoff_no_pinned : bool
        MAH extra bear-off condition: none of the mover's checkers pinned (§4.3).
    bearoff_no_opponent_in_home : bool
        T31E extra bear-off condition: no opponent checker on the mover's 1..6 (§5.5).
    quadrant_lock_win : bool
        T31E: occupying all of one's own 19..24 wins at once, for 15 points (§5.6).
    wall_rule : bool
        T31S: no six-point wall on the opponent's path with no opponent checker ahead (§6.5).
    mother_rule : str
        MAH: ``"none"`` (default, D10) or ``"plakoto"`` (§4.4).
    scoring : Scoring
        ``"cube"`` (1/2/3 x cube, §2.2), ``"mars"`` (1/2, §3, §4.5, §6.6) or
        ``"checkers_left"`` (15 minus the loser's checkers off, §5.7); a ``str``.
    cube : bool
        Whether the doubling cube is used (§2.3).
    opening_reroll : bool
        The opening-roll winner rolls both dice again (T31E default) instead of playing
        the two opening dice (§1.6).
    previous_winner_starts : bool
        Later games of a match are started by the previous winner (§1.6, D6; default off).
    bar_backgammon_counts_double : bool
        STD option of §2.2 (D14): a checker on the bar makes a gammon, not a backgammon.
    options : Mapping
        The options given to :func:`get_ruleset` (read-only).
    """

    name: str
    geometry: str
    start: tuple
    contact: str
    start_lock: int = 0
    bearoff_no_pinned: bool = False
    bearoff_no_opponent_in_home: bool = False
    quadrant_lock_win: bool = False
    wall_rule: bool = False
    mother_rule: str = "none"
    scoring: Scoring = Scoring.MARS
    cube: bool = False
    opening_reroll: bool = False
    previous_winner_starts: bool = False
    bar_backgammon_counts_double: bool = False
    code: int = field(default=0, compare=False)

    # --- derived properties -------------------------------------------------
    @property
    def has_bar(self) -> bool:
        """True for the hitting games (a bar exists)."""
        return self.contact == HIT

    @property
    def can_freeze(self) -> bool:
        """True when a frozen position (§1.7, a draw) can occur: the no-hit games."""
        return self.contact != HIT

    @property
    def max_points(self) -> int:
        """Most points one game can score at cube 1: 3 (backgammon, §2.2), 2 (mars), 15
        (``checkers_left``, §5.7)."""
        return {Scoring.CUBE: 3, Scoring.MARS: 2, Scoring.CHECKERS_LEFT: 15}[self.scoring]

    @property
    def options(self) -> Mapping:
        base = _BASE[self.name]
        return MappingProxyType(
            {f.name: getattr(self, f.name) for f in fields(self) if f.name in _OPTION_NAMES
             and getattr(self, f.name) != getattr(base, f.name)}
        )

    def opponent_point(self, p: int) -> int:
        """Convert a point 1..24 from one side's numbering to the other's (§1.1)."""
        return opponent_point(p, self.geometry)

    def initial_row(self) -> bytes:
        """The packed row of the starting position (§1.2), the first player to move on roll."""
        row = bytearray(PACKED_WIDTH)
        for p, n in self.start:
            row[p] += n
            row[OPP + self.opponent_point(p)] += n
        return bytes(row)

    def initial_position(self):
        """The starting position (§1.2), the first player to move on roll.

        Returns
        -------
        tawla.Position
        """
        return position_type()(self.initial_row(), self)

    def __repr__(self) -> str:
        opts = ", ".join(f"{k}={v!r}" for k, v in self.options.items())
        return f"Ruleset({self.name!r}{', ' + opts if opts else ''})"

    def __str__(self) -> str:
        return self.name


RulesetLike = Ruleset | str
"""What the calls that take a ruleset accept: a :class:`Ruleset`, or an id or alias for :func:`get_ruleset`."""


_OPTION_NAMES = {
    "mother_rule": ("mahbusa",),
    "opening_reroll": None,  # every ruleset
    "previous_winner_starts": None,
    "bar_backgammon_counts_double": ("backgammon",),
    "quadrant_lock_win": ("tawla31",),
    "bearoff_no_opponent_in_home": ("tawla31",),
}
# RULES.md spells the T31E bear-off option this way (§5.5).
_OPTION_ALIASES = {"no_bearoff_with_opponent_in_home": "bearoff_no_opponent_in_home"}

_BASE = {
    "backgammon": Ruleset("backgammon", OPPOSITE, _BG_START, HIT, scoring=Scoring.CUBE, cube=True, code=0),
    "adi": Ruleset("adi", OPPOSITE, _BG_START, HIT, scoring=Scoring.MARS, code=1),
    "mahbusa": Ruleset("mahbusa", OPPOSITE, _STACK_START, PIN, bearoff_no_pinned=True, code=2),
    "tawla31": Ruleset(
        "tawla31", OPPOSITE, _STACK_START, BLOCK, start_lock=6, bearoff_no_opponent_in_home=True,
        quadrant_lock_win=True, scoring=Scoring.CHECKERS_LEFT, opening_reroll=True, code=3,
    ),
    "tawla31-saharat": Ruleset(
        "tawla31-saharat", SAME, _STACK_START, BLOCK, start_lock=12, wall_rule=True, code=4
    ),
}

_ALIASES = {
    "backgammon": "backgammon", "bg": "backgammon", "std": "backgammon",
    "adi": "adi", "sheshbesh": "adi",
    "mahbusa": "mahbusa", "mah": "mahbusa",
    "tawla31": "tawla31", "31": "tawla31", "t31e": "tawla31",
    "tawla31-saharat": "tawla31-saharat", "t31s": "tawla31-saharat",
}

RULESET_IDS = tuple(_BASE)
"""The five ruleset ids of RULES.md, in code order."""


def get_ruleset(name: RulesetLike, **options: object) -> Ruleset:
    """Return the :class:`Ruleset` for an id or alias, with options applied.

    Parameters
    ----------
    name : str or Ruleset
        ``backgammon`` (``bg``), ``adi`` (``sheshbesh``), ``mahbusa``, ``tawla31`` (``31``) or
        ``tawla31-saharat``; case-insensitive. A :class:`Ruleset` is returned as is
        (with ``options`` applied on top).
    **options
        RULES.md OPTIONs: ``opening_reroll`` and ``previous_winner_starts`` (all, §1.6),
        ``mother_rule`` (``"none"``/``"plakoto"``, mahbusa §4.4),
        ``no_bearoff_with_opponent_in_home`` and ``quadrant_lock_win`` (tawla31 §5.5/§5.6),
        ``bar_backgammon_counts_double`` (backgammon §2.2).

    Returns
    -------
    Ruleset

    Raises
    ------
    tawla.errors.UnsupportedRuleset
        Unknown name, an option the ruleset does not have, or a bad option value.
    """
    if isinstance(name, Ruleset):
        base = name
    else:
        if not isinstance(name, str):
            raise UnsupportedRuleset(f"ruleset must be a name or a Ruleset, not {type(name).__name__}")
        key = _ALIASES.get(name.strip().lower())
        if key is None:
            raise UnsupportedRuleset(
                f"unknown ruleset {quote(name)}; known: {', '.join(sorted(_ALIASES))}"
            )
        base = _BASE[key]
    if not options:
        return base
    changes: dict[str, Any] = {}  # field -> value, each value checked against its option below
    for opt, value in options.items():
        opt = _canonical_option(opt)
        allowed = _OPTION_NAMES[opt]
        if allowed is not None and base.name not in allowed:
            raise UnsupportedRuleset(f"option {quote(opt)} does not apply to ruleset {quote(base.name)}")
        if opt == "mother_rule":
            if value not in ("none", "plakoto"):
                raise UnsupportedRuleset(f"mother_rule must be 'none' or 'plakoto', not {quote(value)}")
        elif not isinstance(value, bool):
            raise UnsupportedRuleset(f"option {quote(opt)} takes True or False, not {quote(value)}")
        changes[opt] = value
    return replace(base, **changes)


def _canonical_option(name: str) -> str:
    """An option's canonical name (RULES.md spellings accepted); UnsupportedRuleset if unknown."""
    key = _OPTION_ALIASES.get(name, name)
    if key not in _OPTION_NAMES:
        raise UnsupportedRuleset(f"unknown option {quote(key)}; known: {', '.join(sorted(_OPTION_NAMES))}")
    return key


def applicable_options(ruleset, options: Mapping) -> dict:
    """The options of a table (a mapping of RULES.md OPTION names) that apply to ``ruleset``.

    A house profile carries one set of table options for all its games; this picks the
    ones a ruleset has (``mother_rule`` only for mahbusa, ...), under their canonical names.

    Raises
    ------
    tawla.errors.UnsupportedRuleset
        An option name that no ruleset has.
    """
    r = get_ruleset(ruleset)
    out = {}
    for key, value in options.items():
        key = _canonical_option(key)
        allowed = _OPTION_NAMES[key]
        if allowed is None or r.name in allowed:
            out[key] = value
    return out


# A ruleset in one byte (the last byte of a tawla position ID): bits 0..2 its code + 1 (0: an
# ID that names no ruleset, written before IDs carried one), bit 3 + k set where the k-th of
# the options that apply to it (in this order) differs from the ruleset's default.
_ID_OPTIONS = ("opening_reroll", "previous_winner_starts", "bar_backgammon_counts_double", "mother_rule",
               "quadrant_lock_win", "bearoff_no_opponent_in_home")


def _id_options(base: Ruleset) -> tuple[str, ...]:
    return tuple(o for o in _ID_OPTIONS if _OPTION_NAMES[o] is None or base.name in _OPTION_NAMES[o])  # type: ignore[operator]


def ruleset_byte(r: Ruleset) -> int:
    """The byte that names ``r`` with its options in a position ID (1..255; the comment above
    :func:`ruleset_of_byte` gives the layout)."""
    base = _BASE[r.name]
    bits = 0
    for k, opt in enumerate(_id_options(base)):
        if getattr(r, opt) != getattr(base, opt):
            bits |= 1 << k
    return (base.code + 1) | bits << 3


def ruleset_of_byte(b: int) -> Ruleset | None:
    """The ruleset a position ID's last byte names (:func:`ruleset_byte`), None for 0 (an ID
    that names none).

    Raises
    ------
    tawla.errors.UnsupportedRuleset
        A byte no ruleset writes: an unknown code, or an option bit the ruleset does not have.
    """
    if b == 0:
        return None
    code, bits = (b & 7) - 1, b >> 3
    base = next((r for r in _BASE.values() if r.code == code), None)
    opts = _id_options(base) if base is not None else ()
    if base is None or bits >> len(opts):
        raise UnsupportedRuleset(f"the ID's ruleset byte {b} names no ruleset")
    changes: dict[str, Any] = {}
    for k, opt in enumerate(opts):
        if bits >> k & 1:
            default = getattr(base, opt)
            changes[opt] = ("plakoto" if default == "none" else "none") if opt == "mother_rule" else not default
    return replace(base, **changes) if changes else base
