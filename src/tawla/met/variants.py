"""Match equity tables of the Tawla rulesets (no cube, no Crawford rule), computed by dynamic
programming over the scores from the distribution of points a game is won by.

The distributions are measured: ``tools/make_variant_met.py`` plays the shipped network
against itself and counts the points of each game won (RULES.md §4.4 mars, §5.7 Tawla 31's
points); ``tawla/data/met/variants.json`` holds the counts with the command that made them.
Each game is taken as won by either player with chance 1/2 for the same distribution of
points; the chance of winning the match from ``a`` away against ``b`` away is then
``M(a, b) = 1/2 sum_k d(k) M(a - k, b) + 1/2 sum_k d(k) M(a, b - k)``, ``M(<= 0, b) = 1``,
``M(a, <= 0) = 0``.
"""

from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources

import numpy as np

from ..errors import FormatError, InvalidArgument, quote
from .table import MAX_AWAY, MatchEquityTable

__all__ = ["VARIANTS_FILE", "table_from_distribution", "variant_met", "variant_distribution"]

VARIANTS_FILE = "variants.json"
"""The measured distributions, in ``tawla/data/met``."""


def table_from_distribution(counts: dict, name: str = "variant") -> MatchEquityTable:
    """The table of a game whose winner scores ``k`` points with frequency ``counts[k]``.

    Parameters
    ----------
    counts : dict of int to int or float
        Points (>= 1) to how often a game was won by them.
    name : str

    Returns
    -------
    MatchEquityTable
        ``pre`` by the recurrence of the module docstring up to :data:`MAX_AWAY`; ``post``
        the same chances against a player 1 away (no Crawford rule: no other table).

    Raises
    ------
    tawla.errors.InvalidArgument
        No counts, points below 1 or above :data:`MAX_AWAY`, or negative counts.
    """
    try:
        items = sorted((int(k), float(v)) for k, v in dict(counts).items())
    except (TypeError, ValueError) as e:
        raise InvalidArgument(f"counts must map points to numbers: {e}") from None
    if not items or any(k < 1 or k > MAX_AWAY for k, _ in items) or any(not v >= 0 for _, v in items):
        raise InvalidArgument(f"counts must map points 1..{MAX_AWAY} to counts >= 0, not {quote(counts)}")
    total = sum(v for _, v in items)
    if total <= 0:
        raise InvalidArgument("counts must hold at least one game")
    d = [(k, v / total) for k, v in items if v > 0]
    m = np.zeros((MAX_AWAY + 1, MAX_AWAY + 1))  # m[a, b], 0 = the match won (a) or lost (b)

    def at(a: int, b: int) -> float:
        if a <= 0:
            return 1.0
        if b <= 0:
            return 0.0
        return m[a, b]

    for total_away in range(2, 2 * MAX_AWAY + 1):  # by a + b: every term needs smaller sums
        for a in range(max(1, total_away - MAX_AWAY), min(MAX_AWAY, total_away - 1) + 1):
            b = total_away - a
            m[a, b] = 0.5 * sum(p * (at(a - k, b) + at(a, b - k)) for k, p in d)
    pre = m[1:, 1:].copy()
    post = pre[:, 0].copy()
    pre.setflags(write=False)
    post.setflags(write=False)
    return MatchEquityTable(name, MAX_AWAY, pre, post)


@lru_cache(maxsize=1)
def _data() -> dict:
    text = (resources.files("tawla") / "data" / "met" / VARIANTS_FILE).read_text(encoding="utf-8")
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise FormatError(f"{VARIANTS_FILE}: not JSON ({e})") from None


def variant_distribution(ruleset: str) -> dict[int, int]:
    """The measured points-a-game counts of a Tawla ruleset (its id, as in RULES.md).

    Raises
    ------
    tawla.errors.InvalidArgument
        A ruleset without a measured distribution (backgammon has the Kazaross-XG2 table).
    """
    entry = _data().get("rulesets", {}).get(ruleset)
    if entry is None:
        raise InvalidArgument(f"no match equity table is measured for {quote(ruleset)}")
    return {int(k): int(v) for k, v in entry["counts"].items()}


@lru_cache(maxsize=None)
def variant_met(ruleset: str) -> MatchEquityTable:
    """The match equity table of a Tawla ruleset (:func:`table_from_distribution` of
    :func:`variant_distribution`).

    Raises
    ------
    tawla.errors.InvalidArgument
        As :func:`variant_distribution`.
    """
    return table_from_distribution(variant_distribution(ruleset), f"{ruleset} (measured points a game)")
