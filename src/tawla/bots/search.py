"""Search bots with levels, for every ruleset.

``tawla.Bot(ruleset, level).choose(position, dice)`` returns the chosen :class:`tawla.Move`
(None when the turn passes or the game is over). Levels (:attr:`Bot.LEVELS`):

``random``
    a uniformly random legal move (seeded).
``ply0``
    the move whose resulting position :func:`tawla.evaluate` rates best.
``ply1``
    expectimax one roll deeper: the best ``ply0`` candidates (at most 8 and within 0.25
    points of the best, :attr:`Bot.PRUNE` [0]) are valued by the average, over the
    opponent's 21 rolls, of the opponent's best reply at 0 ply.
``ply2``
    two rolls deeper: of those, the best by their 1-ply value (at most 2, within 0.06
    points, :attr:`Bot.PRUNE` [1]) are valued over the opponent's 21 rolls, the
    opponent's reply for each roll being its best at 0 ply, and each reply valued at
    1 ply (our 21 rolls, our best move at 0 ply).
``net0``, ``net1``, ``net2``
    ``ply0``, ``ply1`` and ``ply2`` with the ruleset's trained network
    (:func:`tawla.evaluation.net.shipped_net`) as the contact evaluator; game ends and races
    are valued as for the other levels. Where the compiled one-pass evaluation serves the
    ruleset (backgammon, adi), ``net0`` chooses in one compiled call
    (:func:`tawla.evaluation.routing.compiled_net_choice`: the same move, only it built as an
    object).

The margins are in points for rulesets worth at most 3 points a game and scale with the
game's top score beyond (x5 for tawla31's 15-point games, :meth:`Bot._scale`); at a match
score they are in the values at the score (:func:`tawla.bots.score.search_at_score`). A filter
that leaves a single move ends the search for :meth:`Bot.choose`. Each depth is expanded in
one :func:`tawla.expand_all_rolls` call and evaluated in one batch; without the compiled
modules (``TAWLA_NO_NATIVE=1``) on the reference engine and numpy, slower
(``bench/bench_strength.py timing``). Cube decisions: :meth:`Bot.cube_action`.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Callable, Iterable, NamedTuple, Sequence

import numpy as np

from .. import native
from ..batch import expand, expand_all_rolls
from ..core.dice import ROLL_WEIGHTS, DiceLike, check_dice
from ..core.layout import PACKED_WIDTH
from ..core.moves import Move
from ..errors import ConfigError, InvalidAction, InvalidArgument, InvalidPosition, UnsupportedRuleset, quote
from ..evaluation import evaluate_rows
from ..evaluation.net import shipped_net
from ..evaluation.points import t31_distribution
from ..evaluation.routing import compiled_net_choice
from ..formats.gnubg import MatchState
from ..met import CubeDecision, MatchEquityTable, ScoreState
from ..position import Position
from ..rules import get_ruleset, RulesetLike, Scoring
from ..rules.validation import check_rows_array
from .cube import CubeAction, cube_decision, score_state
from .cubeful import cubeful_decision
from .lookahead import preroll_columns
from .score import away_score, match_score, preroll_distribution, search_at_score, top_within

__all__ = ["Bot", "RankedMove"]


class RankedMove(NamedTuple):
    """One legal move as :meth:`Bot.hint` ranks it.

    Attributes
    ----------
    move : tawla.Move
    value : float
        Cubeless equity for the player who moves: expected points in the ruleset's scoring
        (-3..3 in backgammon, up to 15 a game in tawla31).
    ply : int
        The depth that gave ``value``: 0 (the evaluator on the resulting position), 1 or 2.
    """

    move: Move
    value: float
    ply: int


def _flip_rows(rows: np.ndarray, r) -> np.ndarray:
    return native.flip_rows(rows, r)


def _legal(position, dice):
    """The legal moves of ``position``, built as :class:`tawla.Move` objects only when
    indexed (the search needs the resulting rows of all of them, the object of one)."""
    d = check_dice(dice)
    return _Moves(native.legal_sequences(position.row, d, position.ruleset), d, position.row,
                  position.ruleset)


class _Moves:
    """A list of legal sequences that builds :class:`tawla.Move` objects only when indexed."""

    __slots__ = ("seqs", "dice", "row", "r")

    def __init__(self, seqs, dice, row, r):
        self.seqs, self.dice, self.row, self.r = seqs, dice, row, r

    def __len__(self):
        return len(self.seqs)

    def __getitem__(self, i):
        steps, after, ended = self.seqs[i]
        return Move(steps, self.dice, ended, self.row, after, self.r)

    def afters(self):
        return [x[1] for x in self.seqs]


def _groups(key):
    """(starts, ends) of the runs of equal values in the sorted-by-group array ``key``."""
    starts = np.flatnonzero(np.r_[True, key[1:] != key[:-1]])
    return starts, np.r_[starts[1:], len(key)]


def _first_reaching(v, starts, ends, target):
    """Index of the first entry of each group ``[starts, ends)`` of ``v`` equal to the
    group's ``target`` (its max or min, from ``reduceat``)."""
    hit = np.flatnonzero(v == np.repeat(target, ends - starts))
    return hit[np.searchsorted(hit, starts)]


def _below(v, idx, w) -> np.ndarray:
    """``v`` with ``v[idx] = w`` and every other entry moved below ``min(w)``, keeping the
    order that ``v`` gives them (the children a search filter dropped)."""
    out = np.asarray(v, dtype=np.float64).copy()
    rest = np.ones(len(out), bool)
    rest[idx] = False
    out[idx] = w
    if rest.any():
        lo = out[rest]
        out[rest] = np.min(w) - 1 - (lo.max() - lo)
    return out


def _as_evaluate(ev: np.ndarray) -> np.ndarray:
    """float64 evaluations at the precision :func:`tawla.evaluate` returns (float32)."""
    return ev.astype(np.float32).astype(np.float64)


def _rows_of(moves) -> np.ndarray:
    afters = moves.afters() if isinstance(moves, _Moves) else (m.after for m in moves)
    return np.frombuffer(b"".join(afters), dtype=np.uint8).reshape(-1, PACKED_WIDTH).copy()


class Bot:
    """A player of one ruleset at one level.

    Parameters
    ----------
    ruleset : Ruleset or str
    level : str or int
        One of :attr:`LEVELS` (or its index).

    Raises
    ------
    tawla.errors.UnsupportedRuleset
        Unknown ruleset.
    tawla.errors.ConfigError
        Unknown level, or a seed that is not None or a whole number >= 0.
    seed : int, optional
        Seeds the ``random`` level (and nothing else: search levels are deterministic).
    """

    LEVELS = ("random", "ply0", "ply1", "ply2", "net0", "net1", "net2")
    PRUNE = {0: (8, 0.25), 1: (2, 0.06)}
    """Move filters after 0 and 1 ply: (at most so many children, within so many points of
    the best, in units of :meth:`_scale`)."""

    def __init__(self, ruleset: RulesetLike, level: str | int = "ply1", seed: int | None = None) -> None:
        self.ruleset = get_ruleset(ruleset)
        if isinstance(level, (int, np.integer)) and not isinstance(level, bool):
            if not 0 <= int(level) < len(self.LEVELS):
                raise ConfigError(f"level must be 0..{len(self.LEVELS) - 1} or one of {self.LEVELS}, not {quote(level)}")
            level = self.LEVELS[int(level)]
        if not isinstance(level, str) or level not in self.LEVELS:
            raise ConfigError(f"level must be one of {self.LEVELS}, not {quote(level)}")
        self.level = level
        self.depth = -1 if level == "random" else int(level[-1])
        self.contact = None
        if level.startswith("net"):
            self.contact = shipped_net(self.ruleset)
            if self.contact is None:
                raise ConfigError(f"no trained network is shipped for {self.ruleset.name}: level {level!r} "
                                  f"needs one (tawla train)")
        # net0 in one compiled call where it can (the same choice, only that move built)
        self._net0 = compiled_net_choice(self.contact, self.ruleset) if level == "net0" else None
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0):
            raise ConfigError(f"seed must be None or a whole number >= 0, not {quote(seed)}")
        self.rng = np.random.default_rng(seed)

    def __repr__(self) -> str:
        return f"Bot({self.ruleset.name!r}, {self.level!r})"

    def _evaluate(self, rows, r, checked: bool = True) -> np.ndarray:
        """:func:`tawla.evaluation.evaluate_rows` with this level's contact model."""
        return evaluate_rows(rows, r, checked=checked, contact=self.contact)

    # --- move choice ------------------------------------------------------------------------
    def _own(self, position: Position) -> Position:
        """``position`` if it is a board of this bot's ruleset."""
        if not isinstance(position, Position):
            raise InvalidPosition(f"a bot plays a tawla.Position, not {type(position).__name__}")
        if position.ruleset is not self.ruleset and position.ruleset != self.ruleset:
            raise UnsupportedRuleset(f"a {self.ruleset.name} bot cannot play a {position.ruleset.name} position")
        return position

    def choose(self, position: Position, dice: DiceLike, *, match_state: MatchState | None = None) -> Move:
        """The move to play with ``dice``: a :class:`tawla.Move` of ``position.legal_moves(dice)``,
        or the pass (``Move.is_pass``) when the turn passes; ``position.play`` takes either.
        With ``match_state`` (a match), the first of :meth:`hint` at the score (``random``: a
        random move still).

        Raises
        ------
        tawla.errors.InvalidPosition, tawla.errors.UnsupportedRuleset
            Not a Position, or one of another ruleset than the bot's.
        tawla.errors.InvalidDice
        tawla.errors.InvalidAction
            The game of ``position`` is over.
        """
        self._own(position)
        if self.depth >= 0 and match_score(match_state, self.ruleset) is not None:
            ranked = self.hint(position, dice, match_state=match_state)
            if ranked:
                return ranked[0].move
        if self._net0 is not None and native.default_engine() == "fast":
            move = self._net0(position.row, check_dice(dice), position.ruleset)
            if move is not None:
                return move
        moves = _legal(position, dice)
        if not moves:
            if position.result() is not None:
                raise InvalidAction("the game is over: no move can be chosen")
            return Move.passing(position.row, check_dice(dice), position.ruleset)
        if len(moves) == 1:
            return moves[0]
        if self.depth < 0:
            return moves[int(self.rng.integers(len(moves)))]
        children = _flip_rows(_rows_of(moves), self.ruleset)
        v = self._values(children, exact=False)
        return moves[int(np.argmax(v))]

    def timeout_policy(self) -> Callable[[Position, tuple[int, int], Sequence[object], Iterable[Move]], Move]:
        """A ``policy(position, dice, played_steps, candidates) -> Move`` for
        :class:`tawla.Match` (``timeout_policy=``): of the candidate moves (the legal moves
        that keep the steps already made), the one this bot values most."""

        def policy(position: Position, dice: tuple[int, int], played_steps: Sequence[object],
                   candidates: Iterable[Move]) -> Move:
            cands = list(candidates) if isinstance(candidates, (list, tuple)) else None
            if not cands or not all(isinstance(c, Move) for c in cands):
                raise InvalidArgument("a timeout policy chooses among one or more candidate moves")
            if len(cands) <= 1 or self.depth < 0:
                return cands[0] if self.depth >= 0 or len(cands) <= 1 else \
                    cands[int(self.rng.integers(len(cands)))]
            children = _flip_rows(_rows_of(cands), self.ruleset)
            return cands[int(np.argmax(self._values(children, exact=False)))]

        return policy

    def choose_rows(self, positions: np.ndarray, dice: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Batch play for self-play and servers: the position after this bot's move in each row.

        Parameters
        ----------
        positions : uint8[N, 56]
            Packed rows, each seen from its side to move.
        dice : uint8[N, 2]

        Returns
        -------
        nxt : uint8[N, 56]
            The chosen child of each row, seen from the next player's seat (as
            :func:`tawla.expand` returns children; a passed turn is the row flipped). Rows
            whose game is already over are returned unchanged.
        played : bool[N]
            False for the rows whose game was already over.

        Raises
        ------
        tawla.errors.InvalidId, tawla.errors.InvalidPosition
            Rows of another shape or dtype, or not positions of the bot's ruleset.
        tawla.errors.InvalidDice
            Dice of another shape, not integers, or out of 1..6.
        """
        r = self.ruleset
        rows = check_rows_array(positions)
        children, parent = expand(rows, dice, ruleset=r)
        n = len(rows)
        nxt = rows.copy()
        played = np.zeros(n, bool)
        if len(children) == 0:
            return nxt, played
        starts, ends = _groups(parent)
        if self.depth < 0:
            pick = starts + (self.rng.random(len(starts)) * (ends - starts)).astype(np.int64)
        elif self.depth == 0:
            v = -self._evaluate(children, r, checked=False)[:, 0]
            pick = _first_reaching(v, starts, ends, np.maximum.reduceat(v, starts))  # first best move
        else:
            pick = np.array([a + int(np.argmax(self._values(children[a:b], exact=False)))
                             for a, b in zip(starts, ends)])
        nxt[parent[starts]] = children[pick]
        played[parent[starts]] = True
        return nxt, played

    def hint(self, position: Position, dice: DiceLike, *, match_state: MatchState | None = None,
             met: MatchEquityTable | None = None) -> list[RankedMove]:
        """Every legal move of ``position`` for ``dice``, best first, each with the value and
        depth this bot's search gives it (as GNU Backgammon's ``hint`` lists them).

        With ``match_state`` of a match (length > 0) the plays are valued at the score
        (:mod:`tawla.bots.score`): in backgammon the normalised cubeful equity (EMG) the play
        leaves, the opponent's cube action at the score included, on the cubeless
        probabilities of the position after the play; in a Tawla ruleset ``2 MWC - 1`` from
        its measured table. No state, or a money game, values cubeless equity.

        The search of :meth:`values`, on either value: every move is valued at 0 ply, the
        best at 1 ply (the probabilities a roll ahead, :mod:`tawla.bots.lookahead`) and, at
        level ``ply2``, the best of those at 2 ply. The moves valued deeper come first (the
        deepest first), each group in the order of its values; the first is the move
        :meth:`choose` plays. The ``random`` level values every move at 0 ply.

        Returns
        -------
        list[RankedMove]
            Empty when the turn passes or the game is over.

        Raises
        ------
        tawla.errors.InvalidPosition, tawla.errors.UnsupportedRuleset
            Not a Position, or one of another ruleset than the bot's.
        tawla.errors.InvalidDice
        """
        self._own(position)
        at_score = match_score(match_state, self.ruleset)
        moves = position.legal_moves(dice)
        if not moves:
            return []
        children = _flip_rows(_rows_of(moves), self.ruleset)
        if at_score is not None:
            value, ply = search_at_score(children, self.ruleset, at_score, self.depth, self._ahead, self.PRUNE, met)
        else:
            value, ply = self._money_search(children)
        order = np.lexsort((-value, -ply))
        return [RankedMove(moves[i], float(value[i]), int(ply[i])) for i in order]

    def _money_search(self, children: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`hint`'s values (cubeless equity) and depths of a decision's children."""
        value = -self._evaluate(children, self.ruleset)[:, 0].astype(np.float64)
        ply = np.zeros(len(children), np.int64)
        if self.depth >= 1 and len(children) > 1:
            limit, margin = self.PRUNE[0]
            keep = self._top(value, limit, margin * self._scale())
            v1, detail = self._reply_min(children[keep])
            value[keep], ply[keep] = v1, 1
            if self.depth >= 2:
                limit, margin = self.PRUNE[1]
                sel = self._top(v1, limit, margin * self._scale())
                value[keep[sel]], ply[keep[sel]] = self._ply2(children[keep], v1, detail, sel), 2
        return value, ply

    def values_at_score(self, children: np.ndarray, match_state: MatchState | ScoreState | tuple[int, int],
                        met: MatchEquityTable | None = None) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`hint`'s values at the score and their depths, of a decision's children
        (``uint8[N, 56]`` rows the engine made, the opponent on roll; not validated), for the
        mover of ``match_state`` (a match of this ruleset, a backgammon ScoreState, or the
        mover's and its opponent's away counts in a Tawla ruleset's match).

        Raises
        ------
        tawla.errors.InvalidArgument
            No match, one the model cannot hold, a ScoreState for a ruleset without a cube, or
            away counts for one with a cube or out of range.
        """
        if isinstance(match_state, ScoreState) and not self.ruleset.cube:
            raise InvalidArgument(f"a ScoreState is a backgammon match's; {self.ruleset.name} takes a MatchState")
        score = (away_score(match_state, self.ruleset) if isinstance(match_state, tuple)
                 else match_state if isinstance(match_state, ScoreState) else match_score(match_state, self.ruleset))
        if score is None:
            raise InvalidArgument("values_at_score needs the match state of a match (length > 0)")
        return search_at_score(np.ascontiguousarray(children, dtype=np.uint8), self.ruleset, score, self.depth,
                               self._ahead, self.PRUNE, met)

    def _ahead(self, rows: np.ndarray, plies: int) -> np.ndarray:
        """The cubeless columns the score is applied to, of engine-made rows ``plies`` (0..2)
        rolls ahead (:mod:`tawla.bots.lookahead`); Tawla 31's distribution of the result."""
        r = self.ruleset
        if r.scoring == Scoring.CHECKERS_LEFT:  # the spread of its 1..15 points, not only their mean
            return preroll_distribution(rows, r, self.contact, plies) if plies else t31_distribution(rows, r, self.contact)
        if plies == 0:
            return np.asarray(self._evaluate(rows, r, checked=False), dtype=np.float64)
        return preroll_columns(rows, r, self._columns, plies)

    def _scale(self) -> float:
        """Points scale of the pruning margins: 1 for rulesets worth at most 3 points a game,
        ``max/3`` beyond (tawla31's 15-point games: 5)."""
        return max(1.0, self.ruleset.max_points / 3.0)

    _top = staticmethod(top_within)

    def values(self, children: np.ndarray, depth: int | None = None, exact: bool = True) -> np.ndarray:
        """Value (for the player who just moved) of each child row (seen from the opponent).

        Filtering as in progressive search: every child is valued at 0 ply; the best
        (:attr:`PRUNE` [0]: at most 8, within 0.25 points x the ruleset's scale) at 1 ply;
        at depth 2 the best of those by their 1-ply value (:attr:`PRUNE` [1]: at most 2,
        within 0.06 x scale) at 2 ply. Children dropped by a filter are placed below every
        child that passed it, in the order of the value that dropped them. With
        ``exact=False`` (a caller that only needs the best child) a filter leaving a
        single child ends the search there.

        Parameters
        ----------
        children : uint8[N, 56]
            Packed rows after each candidate move, seen from the opponent (who is on roll),
            as :func:`tawla.expand` returns them.
        depth : int, optional
            0, 1 or 2; default the bot's level.
        exact : bool

        Returns
        -------
        float64[N]
            Expected points in the ruleset's scoring for the player who moved (cubeless);
            only the order is meaningful for the children a filter dropped.

        Raises
        ------
        tawla.errors.InvalidPosition
            Children of another shape or dtype, or rows that are not positions of the
            bot's ruleset (checked before the evaluator reads them).
        tawla.errors.InvalidArgument
            A depth other than 0, 1, 2 or None.
        """
        if depth is not None and (isinstance(depth, bool) or not isinstance(depth, (int, np.integer))
                                  or depth not in (0, 1, 2)):
            raise InvalidArgument(f"depth must be 0, 1 or 2, not {quote(depth)}")
        try:
            children = np.asarray(children)
        except (TypeError, ValueError):  # ragged nested lists
            raise InvalidPosition(f"children must be uint8[N, {PACKED_WIDTH}]") from None
        if children.ndim != 2 or children.shape[1] != PACKED_WIDTH or children.dtype != np.uint8:
            raise InvalidPosition(f"children must be uint8[N, {PACKED_WIDTH}], not {children.dtype}{list(children.shape)}")
        children = np.ascontiguousarray(children)
        native.validate_rows(children, self.ruleset)
        return self._values(children, depth, exact)

    def _values(self, children: np.ndarray, depth: int | None = None, exact: bool = True) -> np.ndarray:
        """:meth:`values` of children the engine made (checked rows: no validation again)."""
        depth = self.depth if depth is None else depth
        r = self.ruleset
        v = -self._evaluate(children, r, checked=False)[:, 0]
        if depth <= 0 or len(children) <= 1:
            return v
        scale = self._scale()
        limit, margin = self.PRUNE[0]
        keep = self._top(v, limit, margin * scale)
        if len(keep) == 1 and not exact:
            return v
        v1, detail = self._reply_min(children[keep])
        out = _below(v, keep, v1)
        if depth == 1:
            return out
        limit, margin = self.PRUNE[1]
        sel = self._top(v1, limit, margin * scale)
        if len(sel) == 1 and not exact:
            return out
        v2 = self._ply2(children[keep], v1, detail, sel)
        return _below(out, keep[sel], v2)

    def _reply_min(self, rows):
        """For rows with the opponent on roll: (value for us of each row at 1 ply, details).

        Value = sum over the opponent's rolls of min over its replies of our 0-ply equity.
        Terminal rows (game over) keep their exact value.
        """
        r = self.ruleset
        n = len(rows)
        ev = self._evaluate(rows, r, checked=False)
        val = -ev[:, 0]
        g, par, roll = native.expand_all_rolls(rows, r)  # rows the engine made
        if len(g) == 0:
            return val, (g, par, roll, np.zeros(0), np.zeros(0, np.int64))
        e = self._evaluate(g, r, checked=False)[:, 0]  # our equity, we are on roll in g
        key = par * 21 + roll
        starts, ends = _groups(key)
        mins = np.minimum.reduceat(e, starts)
        best = _first_reaching(e, starts, ends, mins)  # the chosen reply of each group
        kp = par[starts]
        acc = np.bincount(kp, weights=ROLL_WEIGHTS[roll[starts]] * mins, minlength=n)
        has = np.bincount(kp, minlength=n) > 0
        val = np.where(has, acc, val)
        return val, (g, par, roll, mins, best)

    def _ply2(self, rows, v1, detail, sel):
        """2-ply values of ``rows[sel]`` from the 1-ply ``detail`` of :meth:`_reply_min`:
        the opponent's reply for each of its rolls (its best at 0 ply), valued at 1 ply
        (our 21 rolls, our best move at 0 ply each), averaged over its rolls."""
        r = self.ruleset
        g, par, roll, mins, best = detail
        out = np.asarray(v1, dtype=np.float64)[sel].copy()
        if len(best) == 0:
            return out
        pos = np.full(len(rows), -1, np.int64)
        pos[sel] = np.arange(len(sel))
        pick = best[pos[par[best]] >= 0]
        if len(pick) == 0:
            return out
        replies = g[pick]  # we are on roll in these
        kp = pos[par[pick]]
        ev_r = self._evaluate(replies, r, checked=False)[:, 0]
        h, hp, hr = native.expand_all_rolls(replies, r)
        v = np.array(ev_r)
        if len(h):
            eh = -self._evaluate(h, r, checked=False)[:, 0]  # our value after our move
            key = hp * 21 + hr
            starts, _ = _groups(key)
            maxs = np.maximum.reduceat(eh, starts)
            acc = np.bincount(hp[starts], weights=ROLL_WEIGHTS[hr[starts]] * maxs, minlength=len(replies))
            has = np.bincount(hp[starts], minlength=len(replies)) > 0
            v = np.where(has, acc, ev_r)
        tot = np.bincount(kp, weights=ROLL_WEIGHTS[roll[pick]] * v, minlength=len(sel))
        has = np.bincount(kp, minlength=len(sel)) > 0
        return np.where(has, tot, out)

    # --- pre-roll evaluation and the cube ---------------------------------------------------
    def preroll(self, position: Position) -> np.ndarray:
        """Cubeless evaluation (the columns of :data:`tawla.evaluation.COLUMNS`) of ``position``
        before the side on roll rolls: the average over its 21 rolls of its best move at 0 ply."""
        self._own(position)
        return preroll_columns(position.to_array()[None], self.ruleset, self._columns)[0]

    def columns(self, rows: np.ndarray) -> np.ndarray:
        """``float64[N, 6]``: the 0-ply cubeless columns (:data:`tawla.evaluation.COLUMNS`) of
        engine-made rows (``uint8[N, 56]``, not validated), each for its side on roll."""
        return np.asarray(self._evaluate(rows, self.ruleset, checked=False), dtype=np.float64)

    def _columns(self, rows: np.ndarray) -> np.ndarray:
        """:meth:`_evaluate` of engine-made rows at :func:`tawla.evaluate`'s precision."""
        return _as_evaluate(self._evaluate(rows, self.ruleset, checked=False))

    def cube_action(self, position: Position, cube_value: int = 1, cube_owner: int = 0,
                    efficiency: float = 0.68, *, match_state: MatchState | None = None,
                    met: MatchEquityTable | None = None) -> CubeAction | CubeDecision:
        """The cube decision of the side on roll, before it rolls (backgammon only).

        Without ``match_state``: the quick money-game rule of :class:`CubeAction` on the
        cubeless pre-roll probabilities (:meth:`preroll`): the taker's take point is
        ``(L_t - 1/2) / (W_t + L_t + x/2)`` (``W``/``L`` the average points of a win/loss, the
        taker's ``W_t = L``, ``L_t = W``; ``x`` the cube efficiency); the side on roll doubles
        within 0.1 of it unless playing on beats a pass (too good: cubeless equity > 1).

        With ``match_state`` (a gnubg Match ID's fields, its player on roll the position's side
        on roll): the cubeful equities of no double, double/take and double/pass — at a match
        score :class:`tawla.met.MatchCube` (also as match-winning chances), in a money game
        :class:`MoneyCube` with the state's Jacoby rule — on the same probabilities, the
        efficiency of the position's class (:func:`tawla.bots.cube.cube_efficiency`); at a match
        score the searching levels search 1 or 2 plies with the cube decisions of both sides
        inside (:func:`tawla.bots.cubeful.cubeful_decision`); ``proper`` says the right
        action (no double once the game is over).

        Parameters
        ----------
        position : tawla.Position
        cube_value : int
            Current cube value (the quick rule does not depend on it).
        cube_owner : int
            0 centred, 1 the side on roll, -1 the opponent (then doubling is not allowed).
        efficiency : float
            Cube efficiency ``x`` of the quick rule.
        match_state : tawla.formats.gnubg.MatchState, optional
            The cube, its owner and the score (``cube_value`` and ``cube_owner`` are then unused).
        met : tawla.met.MatchEquityTable, optional
            The match equity table (default Kazaross-XG2).

        Returns
        -------
        CubeAction, or (with ``match_state``) MoneyCube or tawla.met.MatchCube

        Raises
        ------
        tawla.errors.UnsupportedRuleset
            The ruleset has no doubling cube, or a position of another ruleset.
        tawla.errors.InvalidPosition
            Not a Position.
        tawla.errors.InvalidArgument
            An efficiency outside [0, 1], a cube value below 1, an owner not -1, 0 or 1, or a
            match state the model cannot hold (:func:`tawla.bots.cube.score_state`).
        """
        r = self.ruleset
        if not r.cube:
            raise UnsupportedRuleset(f"{r.name} has no doubling cube")
        self._own(position)
        if match_state is not None:
            at = score_state(match_state)
            if at is not None and self.depth >= 1 and position.result() is None:  # a cubeful search
                return cubeful_decision(position.to_array(), r, at, self.columns, self.depth, met)
            probs = self._ahead(position.to_array()[None], 2 if self.depth >= 2 else 1)[0]
            d = cube_decision(probs, position.row, r, match_state, met)
            return d if position.result() is None else replace(d, may_double=False)  # a game over: no double
        if isinstance(cube_value, bool) or not isinstance(cube_value, (int, np.integer)) or cube_value < 1:
            raise InvalidArgument(f"cube_value must be a whole number >= 1, not {quote(cube_value)}")
        if (isinstance(cube_owner, bool) or not isinstance(cube_owner, (int, np.integer))
                or cube_owner not in (-1, 0, 1)):
            raise InvalidArgument(f"cube_owner must be -1, 0 or 1, not {quote(cube_owner)}")
        may = cube_owner >= 0 and position.result() is None
        return CubeAction.from_probabilities(self.preroll(position), may, efficiency)
