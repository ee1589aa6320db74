"""Match equity tables: the chance of winning the match from any score, before and after the
Crawford game, read from GNU Backgammon's XML format and extended to :data:`MAX_AWAY` points.

Scores are "away" counts: the points a player still needs (1 .. :data:`MAX_AWAY`). A table
native to ``n`` points is extended as GNU Backgammon extends it, so that both give the same
figures at every score: the pre-Crawford part by David Montgomery's normal approximation
(independent of the native values), the post-Crawford row by Zadeh's recurrence with a gammon
rate of 1/4 (the file's own values kept below ``n - 1`` away).
"""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from pathlib import Path

import numpy as np

from ..errors import FormatError, InvalidArgument, quote

__all__ = ["MAX_AWAY", "MatchEquityTable", "default_met", "load_met"]

MAX_AWAY = 64
"""The longest distance from the end of a match a table covers (GNU Backgammon's MAXSCORE)."""

DEFAULT_FILE = "Kazaross-XG2.xml"
"""The table tawla uses unless told otherwise (in ``tawla/data/met``)."""

_POST_CRAWFORD_GAMMON_RATE = 0.25
_STDDEV = (0.0, 1.24, 1.27, 1.47, 1.50, 1.60, 1.61, 1.66, 1.68, 1.70, 1.72, 1.77)


@dataclass(frozen=True, eq=False)
class MatchEquityTable:
    """A match equity table.

    Attributes
    ----------
    name : str
        The table's name (its file's ``<name>``).
    length : int
        The points the file gives values for (the rest is extended).
    pre : numpy.ndarray of float64, shape (MAX_AWAY, MAX_AWAY)
        ``pre[a - 1, b - 1]``: the match-winning chance of a player ``a`` away against one
        ``b`` away at the start of a game that is not post-Crawford (at 1-away the Crawford
        game).
    post : numpy.ndarray of float64, shape (MAX_AWAY,)
        ``post[b - 1]``: the trailer's chance at ``b`` away against a leader 1 away, after
        the Crawford game.
    """

    name: str
    length: int
    pre: np.ndarray = field(repr=False)
    post: np.ndarray = field(repr=False)

    def mwc(self, away: int, opp_away: int, post_crawford: bool = False) -> float:
        """The match-winning chance of a player ``away`` points from winning against one
        ``opp_away`` away, at the start of a game (``post_crawford``: a game after the
        Crawford game, so one of the two is 1 away). 1 or 0 when either is at 0 or below
        (the match is over).

        Raises
        ------
        tawla.errors.InvalidArgument
            An away count that is not a whole number, beyond :data:`MAX_AWAY`, or a
            post-Crawford game where neither player is 1 away.
        """
        a, b = _away(away, "away"), _away(opp_away, "opp_away")
        if a <= 0 or b <= 0:
            return 1.0 if a <= 0 else 0.0
        if post_crawford:
            if a != 1 and b != 1:
                raise InvalidArgument(f"a post-Crawford game needs a player 1 away, not {a} and {b}")
            return self.after(a, b, 0, 0, True)
        return float(self.pre[a - 1, b - 1])

    def after(self, away: int, opp_away: int, won: int, lost: int, post_crawford: bool) -> float:
        """The match-winning chance after a game that moved the scores ``won`` points for the
        player and ``lost`` points for the opponent (one of them 0), seen from the player,
        where ``post_crawford`` says the next game is post-Crawford if nobody has won (the
        game just played was the Crawford game or after it). Arguments are not checked."""
        a, b = away - won, opp_away - lost
        if a <= 0:
            return 1.0
        if b <= 0:
            return 0.0
        if post_crawford:
            if a == 1:
                return 1.0 - float(self.post[min(b, MAX_AWAY) - 1])
            return float(self.post[min(a, MAX_AWAY) - 1])
        return float(self.pre[min(a, MAX_AWAY) - 1, min(b, MAX_AWAY) - 1])

    def to_lists(self, length: int) -> tuple[list[list[float]], list[float]]:
        """The first ``length`` rows and columns as lists (GNU Backgammon's ``met(length)``:
        the pre-Crawford table, then the post-Crawford row)."""
        n = _away(length, "length")
        return self.pre[:n, :n].tolist(), self.post[:n].tolist()


def _away(value, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise InvalidArgument(f"{what} must be a whole number, not {quote(value)}")
    if value > MAX_AWAY:
        raise InvalidArgument(f"{what} must be at most {MAX_AWAY}, not {value}")
    return int(value)


def _extend_pre(pre: np.ndarray, n: int) -> None:
    """Fill ``pre`` beyond the native ``n`` rows by Montgomery's formula (in place): the
    trailer's chance, the mass of a normal law of the points won over the games left (sigma)
    between the point difference and 6 sigma; the leader's is the rest."""
    for i in range(n, MAX_AWAY):
        s0 = _STDDEV[i + 1] if i + 1 <= 10 else 1.77
        for j in range(i + 1):
            s1 = _STDDEV[j + 1] if j + 1 <= 10 else 1.77
            sigma = math.sqrt(s0 * s0 + s1 * s1) * math.sqrt((i + j + 2) / 2.0)
            diff = float(i - j)
            if 6.0 * sigma > diff:
                pre[i, j] = (math.erf(6.0 / math.sqrt(2)) - math.erf(diff / (sigma * math.sqrt(2)))) / 2
            else:
                pre[i, j] = 0.0
    for i in range(MAX_AWAY):
        for j in range(n if i < n else i + 1, MAX_AWAY):
            pre[i, j] = 1.0 - pre[j, i]


def _extend_post(post: np.ndarray, start: int) -> None:
    """Fill ``post[start:]`` by Zadeh's recurrence (in place): the trailer wins a single game
    (2 points with the free double) or a gammon (4 points), 1/2 each."""
    g = _POST_CRAWFORD_GAMMON_RATE
    for i in range(start, MAX_AWAY):
        p4 = post[i - 4] if i >= 4 else 1.0
        p2 = post[i - 2] if i >= 2 else 1.0
        post[i] = g * 0.5 * p4 + (1 - g) * 0.5 * p2
        if i == 1:
            post[i] -= 0.015  # the free drop at 1-away, 2-away
        if i == 3:
            post[i] -= 0.004  # and at 1-away, 4-away


def _numbers(element, where: str) -> list[float]:
    values = []
    for me in element.findall("me"):
        try:
            v = float((me.text or "").strip())
        except ValueError:
            raise FormatError(f"{where}: {quote(me.text)} is not a number") from None
        if not 0.0 <= v <= 1.0:  # also refuses NaN
            raise FormatError(f"{where}: {v} is not a chance within [0, 1]")
        values.append(v)
    return values


def _explicit(element, what: str):
    if element is None:
        raise FormatError(f"the table has no <{what}>")
    kind = element.get("type", "explicit")
    if kind != "explicit":
        raise FormatError(f"<{what} type={quote(kind)}>: only explicit tables are supported "
                          "(a parametric table must be generated first, e.g. by GNU Backgammon)")
    return element


def parse_met(text: str, source: str = "the table") -> MatchEquityTable:
    """A table from the text of a GNU Backgammon XML match equity file (``met.dtd``).

    Raises
    ------
    tawla.errors.FormatError
        Not XML, a parametric table, rows of the wrong length, a value that is not a
        chance, a missing post-Crawford row, or a length beyond :data:`MAX_AWAY`.
    """
    try:
        root = ET.fromstring(text)
    except ET.ParseError as e:
        raise FormatError(f"{source}: not a match equity table ({e})") from None
    if root.tag != "met":
        raise FormatError(f"{source}: the root element is <{root.tag}>, not <met>")
    name = (root.findtext("info/name") or "").strip() or source
    length_text = (root.findtext("info/length") or "").strip()
    pre_el = _explicit(root.find("pre-crawford-table"), "pre-crawford-table")
    rows = [_numbers(row, f"{source}: pre-Crawford row {k + 1}") for k, row in enumerate(pre_el.findall("row"))]
    n = len(rows)
    if length_text:
        try:
            declared = int(length_text)
        except ValueError:
            raise FormatError(f"{source}: <length> {quote(length_text)} is not a whole number") from None
        if declared != n:
            raise FormatError(f"{source}: <length> says {declared} but the table has {n} rows")
    if not 1 <= n <= MAX_AWAY:
        raise FormatError(f"{source}: {n} rows; a table has 1 to {MAX_AWAY}")
    for k, row in enumerate(rows):
        if len(row) != n:
            raise FormatError(f"{source}: pre-Crawford row {k + 1} has {len(row)} values, not {n}")
    posts = root.findall("post-crawford-table")
    if not posts:
        raise FormatError(f"{source}: the table has no <post-crawford-table>")
    post_el = next((p for p in posts if p.get("player", "both") in ("both", "0")), posts[0])
    _explicit(post_el, "post-crawford-table")
    post_rows = post_el.findall("row")
    post_values = _numbers(post_rows[0], f"{source}: post-Crawford row") if post_rows else []
    if len(post_values) < n - 1:
        raise FormatError(f"{source}: the post-Crawford row has {len(post_values)} values, "
                          f"not at least {n - 1}")
    pre = np.zeros((MAX_AWAY, MAX_AWAY))
    pre[:n, :n] = np.array(rows)
    _extend_pre(pre, n)
    post = np.zeros(MAX_AWAY)
    post[:n - 1] = post_values[:n - 1]
    _extend_post(post, n - 1)
    pre.setflags(write=False)
    post.setflags(write=False)
    return MatchEquityTable(name, n, pre, post)


def load_met(path: str | Path) -> MatchEquityTable:
    """A table from a GNU Backgammon XML file (``--met FILE``).

    Raises
    ------
    tawla.errors.FormatError
        As :func:`parse_met`, or a file that is not UTF-8 text.
    OSError
        The file cannot be read.
    """
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except UnicodeDecodeError as e:
        raise FormatError(f"{p}: not UTF-8 text ({e})") from None
    return parse_met(text, str(p))


@lru_cache(maxsize=1)
def default_met() -> MatchEquityTable:
    """The Kazaross-XG2 table (25 points, rolled out by eXtreme Gammon to 9 points and GNU
    Backgammon beyond; ``tawla/data/met/Kazaross-XG2.xml``, as GNU Backgammon ships it)."""
    text = (resources.files("tawla") / "data" / "met" / DEFAULT_FILE).read_text(encoding="utf-8")
    return parse_met(text, DEFAULT_FILE)
