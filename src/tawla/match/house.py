"""House profiles: what a platform adds on top of a ruleset (RULES.md §1.8, §1.9, §2.4).

A :class:`~tawla.rules.Ruleset` is movement + scoring. A :class:`HouseRules` profile is
what a server adds: the games it offers with their match lengths and defaults, turn
timers, the doubling cube and its match/session options (Crawford, Jacoby, Holland),
per-table ruleset options, and coin tables (stake, fee, forfeits).

Three profiles are built in (the table at the top of RULES.md):

============== ============================================ =========================================
profile        games (allowed lengths, default)             timers, cube, coins
============== ============================================ =========================================
federation     tawla31 (1/11/21/31, 11); adi (1/3/5/7/9/    45 s per turn (30/45/60/90 s or None);
               11/15/17, 3)                                 no cube; no coin tables
saharat        adi, mahbusa, tawla31-saharat (1 or 5, 5)    15 s per step and 30 s per turn;
                                                            no cube; coin tables with a 10 % fee,
                                                            grace period 120 s
international  every ruleset, any N >= 1 or 0 (a money      no timers; cube with Crawford (matches),
               session); defaults: backgammon 7, adi 3,     Jacoby (money sessions only), Holland off
               mahbusa 5, tawla31 11, tawla31-saharat 5
============== ============================================ =========================================

Change a table's settings with keyword overrides::

    tawla.get_house("federation", turn_time=90)
    tawla.get_house("saharat", stake=100)                 # a coin table
    tawla.get_house("international", holland=True)
    tawla.get_house("saharat", ruleset_options={"mother_rule": "plakoto"})
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, fields, replace
from typing import Mapping

from ..errors import ConfigError, UnsupportedRuleset, quote
from ..rules import RULESET_IDS, applicable_options, get_ruleset
from .base import finite

__all__ = ["HouseRules", "get_house", "HOUSE_NAMES"]


@dataclass(frozen=True, eq=True)
class HouseRules:
    """A house profile (RULES.md §1.9): a platform's table settings.

    Build one with :func:`get_house`; every field can be overridden there.

    Attributes
    ----------
    name : str
        ``"federation"``, ``"saharat"`` or ``"international"`` (or the name given).
    lengths : dict[str, tuple[int, ...] or None]
        Per ruleset id offered by the house, the allowed match lengths; None = any N >= 1.
        A ruleset that is not a key is not offered.
    default_length : dict[str, int]
        Per ruleset id, the length a :class:`~tawla.Match` gets when none is given.
    money : bool
        Whether ``length=0`` (a money session: no match target, Jacoby allowed) is allowed.
    turn_time : float or None
        Seconds for a turn (see :class:`~tawla.Match` for when the clock starts); None: no limit.
    turn_time_choices : tuple or None
        The values a table may pick for ``turn_time`` (federation: 30, 45, 60, 90 s or None);
        None = any positive number.
    step_time : float or None
        Seconds per step (saharat: 15 s), also the time to roll and to answer a double or a
        resignation offer when set; None: no step limit.
    cube : bool
        The doubling cube is offered (only rulesets with a cube use it, §2.3).
    crawford : bool
        The Crawford rule in matches (§2.4, D20).
    jacoby : bool
        The Jacoby rule in money sessions (never applied in matches, §2.4, D19).
    holland : bool
        The Holland rule in post-Crawford games (§2.4, D15).
    ruleset_options : dict
        Per-table ruleset options (§1.9: ``opening_reroll``, ``previous_winner_starts``,
        ``mother_rule``, ...), applied to every offered ruleset that has the option.
    stake : int
        Coins each player puts in (0: not a coin table).
    fee_percent : int
        The table fee in whole percent of the pot, rounded down to whole coins (saharat 10).
    grace_period : float or None
        Coin tables: seconds a disconnected player has to come back before forfeiting the
        match (None: no forfeit for absence).
    """

    name: str
    lengths: Mapping = field(default_factory=dict)
    default_length: Mapping = field(default_factory=dict)
    money: bool = False
    turn_time: float | None = None
    turn_time_choices: tuple | None = None
    step_time: float | None = None
    cube: bool = False
    crawford: bool = True
    jacoby: bool = False
    holland: bool = False
    ruleset_options: Mapping = field(default_factory=dict)
    stake: int = 0
    fee_percent: int = 0
    grace_period: float | None = None

    # --- queries ----------------------------------------------------------------------
    @property
    def rulesets(self) -> tuple:
        """The ruleset ids this house offers."""
        return tuple(r for r in RULESET_IDS if r in self.lengths)

    @property
    def coin_table(self) -> bool:
        """True when players put in a stake (``stake > 0``)."""
        return self.stake > 0

    def ruleset(self, name):
        """The :class:`~tawla.Ruleset` for ``name`` with this house's ``ruleset_options`` applied.

        Raises
        ------
        tawla.errors.UnsupportedRuleset
            Unknown ruleset, or one this house does not offer.
        """
        r = get_ruleset(name)
        if r.name not in self.lengths:
            raise UnsupportedRuleset(
                f"the {self.name} house does not offer {r.name}; it offers {', '.join(self.rulesets)}")
        opts = applicable_options(r, self.ruleset_options)
        return get_ruleset(r, **opts) if opts else r

    def check_length(self, ruleset_name: str, length) -> int:
        """Validate a match length for a ruleset; None gives the default.

        Raises
        ------
        tawla.errors.ConfigError
            Not an integer >= 0, a money session (0) where the house has none, or a length
            the house does not allow for the ruleset.
        """
        if length is None:
            return int(self.default_length[ruleset_name])
        if isinstance(length, bool) or not isinstance(length, int) or length < 0:
            raise ConfigError(f"a match length is an integer >= 0, not {quote(length)}")
        if length == 0:
            if not self.money:
                raise ConfigError(f"the {self.name} house has no money sessions (length 0)")
            return 0
        allowed = self.lengths[ruleset_name]
        if allowed is not None and length not in allowed:
            raise ConfigError(f"{ruleset_name} matches at the {self.name} house are "
                                f"{'/'.join(map(str, allowed))} points, not {length}")
        return int(length)

    # --- (de)serialisation ------------------------------------------------------------
    def to_dict(self) -> dict:
        """A JSON-able dict; :meth:`from_dict` inverts it."""
        d = asdict(self)
        d["lengths"] = {k: (list(v) if v is not None else None) for k, v in self.lengths.items()}
        d["default_length"] = dict(self.default_length)
        d["ruleset_options"] = dict(self.ruleset_options)
        d["turn_time_choices"] = (list(self.turn_time_choices)
                                  if self.turn_time_choices is not None else None)
        return d

    @classmethod
    def from_dict(cls, d: Mapping) -> "HouseRules":
        """The profile of a :meth:`to_dict` dict, validated.

        Raises
        ------
        tawla.errors.ConfigError
            A value the profile does not allow (as for :func:`get_house`).
        KeyError, TypeError
            A dict that is not a profile (missing or unknown fields).
        """
        d = dict(d)
        d["lengths"] = {k: (tuple(v) if v is not None else None) for k, v in d["lengths"].items()}
        if d.get("turn_time_choices") is not None:
            d["turn_time_choices"] = tuple(d["turn_time_choices"])
        h = cls(**d)
        _validate(h)
        return h

    def __hash__(self):
        return hash(json.dumps(self.to_dict(), sort_keys=True))


_ALL_DEFAULTS = {"backgammon": 7, "adi": 3, "mahbusa": 5, "tawla31": 11, "tawla31-saharat": 5}

_PROFILES = {
    "federation": HouseRules(
        "federation",
        lengths={"adi": (1, 3, 5, 7, 9, 11, 15, 17), "tawla31": (1, 11, 21, 31)},
        default_length={"adi": 3, "tawla31": 11},
        turn_time=45, turn_time_choices=(30, 45, 60, 90, None),
    ),
    "saharat": HouseRules(
        "saharat",
        lengths={"adi": (1, 5), "mahbusa": (1, 5), "tawla31-saharat": (1, 5)},
        default_length={"adi": 5, "mahbusa": 5, "tawla31-saharat": 5},
        turn_time=30, step_time=15, fee_percent=10, grace_period=120,
    ),
    "international": HouseRules(
        "international",
        lengths={r: None for r in RULESET_IDS},
        default_length=dict(_ALL_DEFAULTS),
        money=True, cube=True, crawford=True, jacoby=True, holland=False,
    ),
}

HOUSE_NAMES = tuple(_PROFILES)
"""The built-in profiles: ``federation``, ``saharat``, ``international``."""


def _validate(h: HouseRules) -> None:
    def positive_or_none(name, v):
        if v is not None and (isinstance(v, bool) or not isinstance(v, (int, float)) or v <= 0
                              or not finite(v)):
            raise ConfigError(f"{name} must be a positive finite number of seconds or None, "
                              f"not {quote(v)}")

    positive_or_none("turn_time", h.turn_time)
    positive_or_none("step_time", h.step_time)
    positive_or_none("grace_period", h.grace_period)
    if h.turn_time_choices is not None and any(isinstance(c, float) and not finite(c)
                                               for c in h.turn_time_choices):
        raise ConfigError(f"turn_time_choices are finite numbers or None, not {quote(h.turn_time_choices)}")
    if h.turn_time_choices is not None and h.turn_time not in h.turn_time_choices:
        raise ConfigError(f"the {h.name} house's turn timer is one of "
                            f"{', '.join(map(str, h.turn_time_choices))} s, not {quote(h.turn_time)}")
    for key in ("stake", "fee_percent"):
        v = getattr(h, key)
        if isinstance(v, bool) or not isinstance(v, int) or v < 0:
            raise ConfigError(f"{key} must be an integer >= 0, not {quote(v)}")
    if h.fee_percent > 100:
        raise ConfigError(f"fee_percent must be at most 100, not {h.fee_percent}")
    for r, allowed in h.lengths.items():
        if r not in RULESET_IDS:
            raise UnsupportedRuleset(f"unknown ruleset {quote(r)} in the house's lengths")
        if allowed is not None and any(isinstance(n, bool) or not isinstance(n, int) or n < 1
                                       for n in allowed):
            raise ConfigError(f"match lengths are integers >= 1: {quote(allowed)}")
        if r not in h.default_length:
            raise ConfigError(f"no default match length for {r}")
        d = h.default_length[r]
        if not (d == 0 and h.money) and (allowed is not None and d not in allowed or d < 0):
            raise ConfigError(f"default length {d} of {r} is not an allowed length")
    applicable_options("backgammon", h.ruleset_options)  # raises on an unknown option name
    for r in h.lengths:  # every option must be a valid value for the rulesets it applies to
        h.ruleset(r)


def get_house(name, **overrides) -> HouseRules:
    """The :class:`HouseRules` profile ``federation``, ``saharat`` or ``international``.

    Parameters
    ----------
    name : str or HouseRules
        A profile name (case-insensitive) or a profile (then only ``overrides`` apply).
    **overrides
        Any :class:`HouseRules` field, for example ``turn_time=90``, ``stake=100``,
        ``holland=True``, ``grace_period=60``, ``ruleset_options={"opening_reroll": True}``.

    Returns
    -------
    HouseRules

    Raises
    ------
    tawla.errors.ConfigError
        Unknown profile name or field, a timer or grace period that is not a positive finite
        number or None, or a value the profile does not allow (a federation
        turn timer other than 30/45/60/90 s or None, a negative stake, a default length
        that is not allowed, ...).
    tawla.errors.UnsupportedRuleset
        An unknown ruleset or ruleset option (a :class:`~tawla.errors.ConfigError` too).
    """
    if isinstance(name, HouseRules):
        base = name
    else:
        if not isinstance(name, str) or name.strip().lower() not in _PROFILES:
            raise ConfigError(f"unknown house {quote(name)}; known: {', '.join(HOUSE_NAMES)}")
        base = _PROFILES[name.strip().lower()]
    if not overrides:
        return base
    known = {f.name for f in fields(HouseRules)}
    for k in overrides:
        if k not in known:
            raise ConfigError(f"unknown house setting {quote(k)}; known: {', '.join(sorted(known))}")
    if "lengths" in overrides:
        try:
            overrides["lengths"] = {k: (tuple(v) if v is not None else None)
                                    for k, v in dict(overrides["lengths"]).items()}
        except (TypeError, ValueError):
            raise ConfigError("lengths must map ruleset names to lists of lengths, "
                              f"not {quote(overrides['lengths'])}") from None
    for k in ("default_length", "ruleset_options"):
        if k in overrides:
            overrides[k] = dict(overrides[k])
    h = replace(base, **overrides)
    _validate(h)
    return h
