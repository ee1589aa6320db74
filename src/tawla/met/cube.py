"""Cubeful equity at a match score from cubeless probabilities: the model GNU Backgammon's
0-ply evaluation uses (Janowski's interpolation between the dead cube and a live cube whose
cash points come from the match equity table, cube level by cube level), so that the two
agree where their cubeless probabilities agree.

Everything is seen from the side on roll, before it rolls, in a match (money play is
:class:`tawla.bots.MoneyCube`). Probabilities are GNU Backgammon's five, cumulative (win,
win gammon, win backgammon, lose gammon, lose backgammon; gammons include backgammons).
Results are match-winning chances (MWC, 0..1) or normalised equity (EMG: +1 a win of the
cube's value, -1 a loss of it, GNU Backgammon's ``mwc2eq``).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from ..errors import InvalidArgument, quote
from .table import MAX_AWAY, MatchEquityTable, default_met

__all__ = ["ScoreState", "CubeDecision", "MatchCube", "probabilities5", "relative_owner"]

_TOO_CLOSE = 1e-7


@dataclass(frozen=True)
class ScoreState:
    """Where a match stands for the side on roll.

    Attributes
    ----------
    length : int
        Points of the match (1 .. MAX_AWAY).
    away, opp_away : int
        Points the side on roll, and its opponent, still need (1 .. length).
    cube : int
        The cube's value, a power of two.
    owner : int
        0 centred, 1 the side on roll owns the cube, -1 the opponent does.
    crawford : bool
        This is the Crawford game (exactly one player 1 away; the cube centred at 1).

    Raises
    ------
    tawla.errors.InvalidArgument
        Any field out of range or a combination that cannot happen (a score past the
        length, a cube that is not a power of two, a Crawford flag where one player is not
        1 away, a cube turned in the Crawford game).
    """

    length: int
    away: int
    opp_away: int
    cube: int = 1
    owner: int = 0
    crawford: bool = False

    def __post_init__(self) -> None:
        for name in ("length", "away", "opp_away", "cube", "owner"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
                raise InvalidArgument(f"{name} must be a whole number, not {quote(v)}")
        if not 1 <= self.length <= MAX_AWAY:
            raise InvalidArgument(f"a match is 1 to {MAX_AWAY} points, not {self.length}")
        for name in ("away", "opp_away"):
            v = getattr(self, name)
            if not 1 <= v <= self.length:
                raise InvalidArgument(f"{name} must be within 1..{self.length} (the match length), not {v}")
        if self.cube < 1 or self.cube & (self.cube - 1):
            raise InvalidArgument(f"the cube must be a power of two, not {self.cube}")
        if self.owner not in (-1, 0, 1):
            raise InvalidArgument(f"owner must be -1, 0 or 1, not {self.owner}")
        if not isinstance(self.crawford, (bool, np.bool_)):
            raise InvalidArgument(f"crawford must be True or False, not {quote(self.crawford)}")
        if self.crawford:
            if (self.away == 1) == (self.opp_away == 1):
                raise InvalidArgument("the Crawford game needs exactly one player 1 away, "
                                      f"not {self.away} and {self.opp_away} away")
            if self.cube != 1 or self.owner != 0:
                raise InvalidArgument("no cube is turned in the Crawford game")
        if self.owner == 0 and self.cube != 1:
            raise InvalidArgument(f"a centred cube is at 1, not {self.cube}")

    @classmethod
    def of_seat(cls, length: int, score, player: int, cube: int = 1, owner: int | None = None,
                crawford: bool = False) -> "ScoreState":
        """The match from the seat of ``player`` (0 or 1), given the two players' ``score``
        and the cube's absolute ``owner`` (None centred, else the player who owns it).

        Raises
        ------
        tawla.errors.InvalidArgument
            As the constructor.
        """
        return cls(length, length - score[player], length - score[1 - player], cube,
                   relative_owner(owner, player), crawford)

    @property
    def post_crawford(self) -> bool:
        """This game is after the Crawford game (a player 1 away, not the Crawford game)."""
        return not self.crawford and (self.away == 1 or self.opp_away == 1)

    def flipped(self) -> "ScoreState":
        """The same match seen from the opponent (as after the side on roll has moved)."""
        return ScoreState(self.length, self.opp_away, self.away, self.cube, -self.owner, self.crawford)

    def doubled(self) -> "ScoreState":
        """After a double taken: twice the cube, owned by the opponent."""
        return ScoreState(self.length, self.away, self.opp_away, 2 * self.cube, -1, False)

    def me(self, won: int, lost: int, met: MatchEquityTable) -> float:
        """MWC of the side on roll after this game moved the scores by ``won`` points for it
        (or ``lost`` for the opponent)."""
        return met.after(self.away, self.opp_away, won, lost, self.away == 1 or self.opp_away == 1)

    @property
    def cube_alive(self) -> bool:
        """Whether the model values the cube at all: not the Crawford game, not 2-away
        2-away (double at once: the cube's value is in the double, not in its use), and at
        least one player for whom the cube is short of the match."""
        if self.crawford or (self.away == 2 and self.opp_away == 2):
            return False
        return self.cube < self.away or self.cube < self.opp_away

    @property
    def may_double(self) -> bool:
        """Whether a double by the side on roll can gain (RULES.md §2.3-2.4, as GNU Backgammon
        decides it): not in the Crawford game, the cube centred or its own, a cube short of
        its match, and not the leader after the Crawford game (a free double is the
        trailer's)."""
        if self.crawford or self.owner < 0 or self.cube >= self.away:
            return False
        return not (self.post_crawford and self.away == 1)


def relative_owner(owner: int | None, player: int) -> int:
    """The cube's owner seen from ``player``: 0 centred (None), 1 ``player`` owns it, -1 the
    opponent does."""
    return 0 if owner is None else (1 if owner == player else -1)


def probabilities5(probs) -> np.ndarray:
    """``float64[5]``: GNU Backgammon's five from 5 values (that order) or tawla's 6 columns
    (:data:`tawla.evaluation.COLUMNS`: equity first, dropped).

    Raises
    ------
    tawla.errors.InvalidArgument
        Not 5 or 6 finite numbers, or probabilities outside [0, 1].
    """
    try:
        p = np.asarray(probs, dtype=np.float64)
    except (TypeError, ValueError, OverflowError) as e:
        raise InvalidArgument(f"probabilities must be 5 or 6 numbers: {e}") from None
    if p.shape == (6,):
        p = p[1:]
    if p.shape != (5,):
        raise InvalidArgument(f"probabilities must be 5 or 6 numbers, not shape {p.shape}")
    if not np.isfinite(p).all() or (p < -1e-6).any() or (p > 1 + 1e-6).any():
        raise InvalidArgument(f"probabilities must be finite and within [0, 1], not {p.tolist()}")
    return np.clip(p, 0.0, 1.0)


def _ratios(p: np.ndarray) -> tuple[float, float, float, float]:
    """(gammon, backgammon) shares of the wins, then of the losses (gammons without
    backgammons, backgammons)."""
    w = p[0]
    g0, b0 = ((p[1] - p[2]) / w, p[2] / w) if w > 0 else (0.0, 0.0)
    g1, b1 = ((p[3] - p[4]) / (1 - w), p[4] / (1 - w)) if w < 1 else (0.0, 0.0)
    return float(g0), float(b0), float(g1), float(b1)


@lru_cache(maxsize=4096)
def gammon_prices(s: ScoreState, met: MatchEquityTable) -> tuple[float, float, float, float]:
    """The extra normalised equity of a gammon won, a gammon lost, a backgammon won and a
    backgammon lost beyond the game before it (GNU Backgammon's gammon prices, >= 0); kept
    per score and table (both immutable: every position judged at a score shares them)."""
    c = s.cube
    win, lose = s.me(c, 0, met), s.me(0, c, met)
    centre = (win + lose) / 2
    half = win - centre
    if abs(half) <= _TOO_CLOSE:
        return 0.0, 0.0, 0.0, 0.0
    gw = (s.me(2 * c, 0, met) - centre) / half - 1
    gl = (centre - s.me(0, 2 * c, met)) / half - 1
    bw = (s.me(3 * c, 0, met) - centre) / half - (gw + 1)
    bl = (centre - s.me(0, 3 * c, met)) / half - (gl + 1)
    return max(gw, 0.0), max(gl, 0.0), max(bw, 0.0), max(bl, 0.0)


def cubeless_equity(p: np.ndarray, s: ScoreState, met: MatchEquityTable) -> float:
    """The normalised cubeless equity of probabilities ``p`` at the score."""
    gw, gl, bw, bl = gammon_prices(s, met)
    return float(2 * p[0] - 1 + p[1] * gw - p[3] * gl + p[2] * bw - p[4] * bl)


def mwc_to_emg(mwc, s: ScoreState, met: MatchEquityTable):
    """MWC (a number or an array) as normalised equity: +1 winning the cube's value, -1 losing it."""
    win, lose = s.me(s.cube, 0, met), s.me(0, s.cube, met)
    return (2 * mwc - (win + lose)) / (win - lose)


def emg_to_mwc(emg: float, s: ScoreState, met: MatchEquityTable) -> float:
    """Normalised equity as MWC (the inverse of :func:`mwc_to_emg`)."""
    win, lose = s.me(s.cube, 0, met), s.me(0, s.cube, met)
    return (emg * (win - lose) + (win + lose)) / 2


def _prime(away: int, opp_away: int, v: int) -> int:
    """The cube a double to ``2 v`` really plays for: doubled again at once (for free) by a
    taker who is short of the match by more than 2 v when the doubler is not."""
    return 2 * v if away - 1 < 2 * v <= opp_away - 1 else v


def cash_points(p: np.ndarray, s: ScoreState, met: MatchEquityTable) -> tuple[float, float]:
    """The live-cube cash points of the side on roll and of the opponent (each its own
    winning chance), built from the highest cube level that can still be used downwards."""
    g0, b0, g1, b1 = _ratios(p)
    gam, bg = (g0, g1), (b0, b1)
    aw = (s.away, s.opp_away)
    top, levels = s.cube, 0
    while aw[0] - 1 >= 2 * top and aw[1] - 1 >= 2 * top:
        top, levels = 2 * top, levels + 1
    live: dict[tuple[int, int], float] = {}

    def me_k(k: int, won: int, lost: int) -> float:  # MWC of player k (0 on roll)
        return s.me(won, lost, met) if k == 0 else 1.0 - s.me(lost, won, met)

    v = top
    for n in range(levels, -1, -1):
        for k in (0, 1):
            o = 1 - k
            single, gammon, backgammon = 1 - gam[k] - bg[k], gam[k], bg[k]
            if aw[0] - 1 < 2 * v or aw[1] - 1 < 2 * v:  # the doubled cube is dead
                q = _prime(aw[k], aw[o], v)
                taken_lost = ((1 - gam[o] - bg[o]) * me_k(k, 0, 2 * q) + gam[o] * me_k(k, 0, 4 * q)
                              + bg[o] * me_k(k, 0, 6 * q))
                passed = me_k(k, v, 0)
                taken_won = single * me_k(k, 2 * q, 0) + gammon * me_k(k, 4 * q, 0) + backgammon * me_k(k, 6 * q, 0)
                live[k, n] = (taken_lost - passed) / (taken_lost - taken_won)
            else:
                redoubled_passed = me_k(k, 0, 2 * v)
                passed = me_k(k, v, 0)
                taken_won = single * me_k(k, 2 * v, 0) + gammon * me_k(k, 4 * v, 0) + backgammon * me_k(k, 6 * v, 0)
                live[k, n] = 1 - live[o, n + 1] * (passed - taken_won) / (redoubled_passed - taken_won)
        v //= 2
    return live[0, 0], live[1, 0]


def cubeful_mwc(p: np.ndarray, s: ScoreState, efficiency: float, met: MatchEquityTable) -> float:
    """The MWC of the side on roll with the cube as it is (no decision now): ``(1 - x)``
    times the dead cube's plus ``x`` times the live cube's, the live one a broken line
    through the cash points; the cubeless MWC where :attr:`ScoreState.cube_alive` is False."""
    dead = emg_to_mwc(cubeless_equity(p, s, met), s, met)
    if not s.cube_alive:
        return dead
    g0, b0, g1, b1 = _ratios(p)
    c, w = s.cube, float(p[0])
    cash, opp_cash = s.me(c, 0, met), s.me(0, c, met)
    lose_all = (1 - g1 - b1) * opp_cash + g1 * s.me(0, 2 * c, met) + b1 * s.me(0, 3 * c, met)
    win_all = (1 - g0 - b0) * cash + g0 * s.me(2 * c, 0, met) + b0 * s.me(3 * c, 0, met)
    cp_me, cp_opp = cash_points(p, s, met)
    opp_tg = 1 - cp_opp if s.owner <= 0 else None  # below it the opponent cashes (or is too good)
    tg = cp_me if s.owner >= 0 else None  # above it the side on roll cashes
    if opp_tg is not None and w <= opp_tg:
        live = lose_all + (opp_cash - lose_all) * w / opp_tg if opp_tg > 0 else lose_all
    elif tg is not None and w >= tg:
        live = cash + (win_all - cash) * (w - tg) / (1 - tg) if tg < 1 else win_all
    elif opp_tg is not None and tg is not None:  # the window between
        live = opp_cash + (cash - opp_cash) * (w - opp_tg) / (tg - opp_tg)
    elif tg is not None:  # own cube, below the cash point
        live = lose_all + (cash - lose_all) * w / tg if tg > 0 else lose_all
    else:  # the opponent's cube, above its cash point
        assert opp_tg is not None
        live = opp_cash + (win_all - opp_cash) * (w - opp_tg) / (1 - opp_tg)
    return dead * (1 - efficiency) + live * efficiency


@dataclass(frozen=True)
class CubeDecision:
    """The equities of a cube decision for the side on roll, before it rolls, in points per
    unit of the cube before the decision (EMG: a cash of the cube is 1).

    Attributes
    ----------
    no_double : float
        Not doubling (the cube as it is).
    double_take : float
        Doubling and the opponent taking.
    double_pass : float
        Doubling and the opponent passing (1 in money play).
    may_double : bool
        Whether the side on roll may double (when False, :attr:`optimal` is
        :attr:`no_double` and the other two mean nothing).
    """

    no_double: float
    double_take: float
    double_pass: float = 1.0
    may_double: bool = True

    @property
    def take(self) -> bool:
        """Whether the opponent should take a double (the double-take equity is at most the pass's)."""
        return self.double_take <= self.double_pass

    @property
    def doubled(self) -> float:
        """The doubler's equity after a double answered right: min(double-take, double-pass)."""
        return min(self.double_take, self.double_pass)

    @property
    def double(self) -> bool:
        """Whether doubling is right: it may double and a double answered right is worth at
        least not doubling (a tie doubles, as GNU Backgammon decides: nothing to play on for)."""
        return self.may_double and self.doubled >= self.no_double

    @property
    def too_good(self) -> bool:
        """Playing on beats cashing: no double because no double is worth more than a pass."""
        return self.may_double and self.no_double > self.double_pass and not self.double

    @property
    def optimal(self) -> float:
        """The equity of the right decision (points per unit of cube)."""
        return max(self.no_double, self.doubled) if self.may_double else self.no_double

    @property
    def proper(self) -> str:
        """The right decision in words: ``"double, take"``, ``"double, pass"``, ``"no double, take"``,
        ``"too good, take"``, ``"too good, pass"`` (or ``"no double"`` when it may not double)."""
        if not self.may_double:
            return "no double"
        answer = "take" if self.take else "pass"
        if self.double:
            return f"double, {answer}"
        return f"too good, {answer}" if self.too_good else f"no double, {answer}"


@dataclass(frozen=True)
class MatchCube(CubeDecision):
    """A cube decision at a match score (:meth:`from_probabilities`): the equities in EMG, and
    in match-winning chance as ``*_mwc``.

    Attributes
    ----------
    no_double_mwc, double_take_mwc, double_pass_mwc : float
        The same three as chances of winning the match.
    state : ScoreState
    """

    no_double_mwc: float = 0.5
    double_take_mwc: float = 0.5
    double_pass_mwc: float = 0.5
    state: ScoreState | None = None

    @property
    def optimal_mwc(self) -> float:
        """The match-winning chance of the right decision."""
        if not self.may_double:
            return self.no_double_mwc
        return max(self.no_double_mwc, min(self.double_take_mwc, self.double_pass_mwc))

    @classmethod
    def from_probabilities(cls, probs, state: ScoreState, efficiency: float = 0.68,
                           met: MatchEquityTable | None = None) -> "MatchCube":
        """The decision on cubeless pre-roll probabilities.

        Parameters
        ----------
        probs : float[5] or float[6]
            As :func:`probabilities5`.
        state : ScoreState
        efficiency : float
            The cube efficiency ``x`` in [0, 1] (by position class:
            :func:`tawla.bots.cube.cube_efficiency`).
        met : MatchEquityTable, optional
            The table (default Kazaross-XG2).

        Raises
        ------
        tawla.errors.InvalidArgument
            Bad probabilities, an efficiency outside [0, 1], a state that is not a ScoreState.
        """
        p = probabilities5(probs)
        if not isinstance(state, ScoreState):
            raise InvalidArgument(f"state must be a ScoreState, not {type(state).__name__}")
        if isinstance(efficiency, bool) or not isinstance(efficiency, (int, float, np.integer, np.floating)) \
                or not 0.0 <= efficiency <= 1.0:
            raise InvalidArgument(f"efficiency must be within [0, 1], not {quote(efficiency)}")
        t = met if met is not None else default_met()
        nd = cubeful_mwc(p, state, float(efficiency), t)
        may = state.may_double
        if may:
            dt = cubeful_mwc(p, state.doubled(), float(efficiency), t)
            dp = state.me(state.cube, 0, t)
        else:
            dt = dp = nd
        return cls(mwc_to_emg(nd, state, t), mwc_to_emg(dt, state, t), mwc_to_emg(dp, state, t), may,
                   nd, dt, dp, state)
