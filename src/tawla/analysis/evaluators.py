"""The evaluators that rank the plays of a record: the interface, a small heuristic, the engine's."""

from __future__ import annotations

import numpy as np

from ..bots import Bot
from ..bots.cubeful import cubeful_decision
from ..bots.lookahead import preroll_columns
from ..evaluation import evaluate_rows
from ..evaluation.net import shipped_net
from ..evaluation.points import t31_distribution
from ..position import Position
from ..errors import ConfigError
from ..met import MatchCube, ScoreState
from ..rules import Ruleset, get_ruleset

__all__ = ["EquityEvaluator", "HeuristicEvaluator", "EngineEvaluator", "SearchEvaluator", "default_evaluator"]


class EquityEvaluator:
    """The evaluator interface of the analysis.

    ``evaluator(rows, ruleset) -> float64[N]``: for ``rows`` (``uint8[N, PACKED_WIDTH]``,
    each seen from its player to move) the cubeless expected points of the side to move
    in the ruleset's own scoring (+1 = a sure single win). ``name`` and ``description``
    go into the report header.
    """

    name = "evaluator"
    description = ""

    def __call__(self, rows: np.ndarray, ruleset: Ruleset) -> np.ndarray:  # pragma: no cover
        raise NotImplementedError

    def probabilities(self, rows: np.ndarray, ruleset: Ruleset) -> np.ndarray:
        """``float64[N, 6]``: the columns of :data:`tawla.evaluation.COLUMNS` (equity, win,
        win_gammon, win_backgammon, lose_gammon, lose_backgammon) for the side to move, what
        the cube analysis needs (:mod:`tawla.analysis.cube`). This default knows only the
        equity ``e`` (points): a win chance of ``(1 + e) / 2`` (clipped to [0, 1]) and no gammons.
        """
        e = np.clip(np.asarray(self(rows, ruleset), dtype=np.float64), -1.0, 1.0)
        out = np.zeros((len(e), 6))
        out[:, 0], out[:, 1] = e, (1.0 + e) / 2
        return out


class HeuristicEvaluator(EquityEvaluator):
    """A small documented evaluator for when no stronger one is installed.

    * race (no contact): the pip-count lead of the side to move, plus 4 pips for being
      on roll, scaled so that a 10 % lead is worth about half a point:
      ``tanh(lead / (0.1 * pips_of_side_to_move + 1)) ``.
    * contact: the same race term at half weight, minus 0.05 per own blot within
      direct reach of an opponent checker, plus 0.03 per own home point made (2+
      checkers), minus 0.1 per own checker on the bar, clipped to [-1, 1].
    """

    name = "pip-and-blot heuristic"
    description = ("race: tanh of the pip lead (+4 on roll) over 10% of own pips; contact: half that, "
                   "-0.05 per directly exposed blot, +0.03 per home point made, -0.1 per checker on the bar")

    def __call__(self, rows, ruleset):
        rows = np.asarray(rows)
        out = np.empty(len(rows))
        for i, row in enumerate(rows):
            pos = Position(row.tobytes(), get_ruleset(ruleset))
            me, opp = pos.pip_count()
            race = np.tanh((opp - me + 4) / (0.1 * max(me, 1) + 1))
            my_points = [p for p in range(1, 26) if row[p]]
            opp_points = [p for p in range(1, 26) if row[26 + p]]
            contact = bool(my_points and opp_points and max(my_points) > min(opp_points))
            if not contact:
                out[i] = race
                continue
            blots = sum(1 for p in range(1, 25) if row[p] == 1 and row[26 + p] == 0
                        and any(0 < p - q <= 6 or (q == 25 and p >= 19) for q in opp_points if q < p or q == 25))
            home = sum(1 for p in range(1, 7) if row[p] >= 2)
            out[i] = float(np.clip(0.5 * race - 0.05 * blots + 0.03 * home - 0.1 * row[25], -1, 1))
        return out


class EngineEvaluator(EquityEvaluator):
    """The engine's strongest 0-ply evaluator: :func:`tawla.evaluation.evaluate_rows` (exact
    game ends, the race model) with the ruleset's trained network as the contact model where
    one is shipped (:func:`tawla.evaluation.net.shipped_net`, the ``net0`` level of
    :class:`tawla.Bot`), else the ruleset's heuristic contact model; its equity column."""

    name = "tawla net0"
    description = "0 ply: exact game ends, the race model, the trained network in contact (where shipped)"

    def __call__(self, rows, ruleset):
        return self.probabilities(rows, ruleset)[:, 0]

    def probabilities(self, rows, ruleset):
        r = get_ruleset(ruleset)
        return np.asarray(evaluate_rows(np.asarray(rows, dtype=np.uint8), r, contact=shipped_net(r)), dtype=np.float64)

    def distributions(self, rows, ruleset):
        """``float64[N, 31]``: Tawla 31's chance of each result for the side to move
        (:func:`tawla.evaluation.points.t31_distribution` on the same models)."""
        r = get_ruleset(ruleset)
        return t31_distribution(np.asarray(rows, dtype=np.uint8), r, shipped_net(r))


class SearchEvaluator(EngineEvaluator):
    """The ``net1`` or ``net2`` level of :class:`tawla.Bot` as the evaluator that ranks plays:
    the children of one decision (the rows of one call) valued by the bot's search on the
    shipped network (:meth:`tawla.Bot.values`: every play at 0 ply, the best of them at 1 ply
    and, for ``net2``, the best of those at 2 ply; a play a filter drops keeps its shallower
    value, as GNU Backgammon's analysis keeps the evaluations of the moves its filters drop).
    In a match the plays are valued by the same search on the values at the score
    (:meth:`values_at_score`, :meth:`tawla.Bot.values_at_score`; in backgammon the opponent's
    cube decisions inside the search); the cube decisions of a backgammon match by the bot's
    cubeful search 1 or 2 plies deep (:meth:`match_cube`, :mod:`tawla.bots.cubeful`), of a
    money session on probabilities one (``net1``) or two (``net2``) rolls ahead
    (:meth:`cube_probabilities`, :mod:`tawla.bots.lookahead`); :meth:`probabilities` stays at
    0 ply (:class:`EngineEvaluator`).

    Raises
    ------
    tawla.errors.ConfigError
        A level other than ``net1`` and ``net2``.
    """

    def __init__(self, level: str) -> None:
        if level not in ("net1", "net2"):
            raise ConfigError(f"a search evaluator is net1 or net2, not {level!r}")
        self.level = level
        self.name = f"tawla {level}"
        self.description = (f"{level}: the plays of each decision by the {level[-1]}-ply search of tawla.Bot on the "
                            f"trained network (the best at 0 ply searched deeper; at a match score on the values "
                            f"at the score); cube decisions in a match by a cubeful {level[-1]}-ply search, in "
                            f"a money session {level[-1]} roll{'s' if level == 'net2' else ''} ahead")
        self._bots: dict = {}

    def _bot(self, ruleset) -> Bot:
        r = get_ruleset(ruleset)
        bot = self._bots.get(r)
        if bot is None:
            bot = self._bots[r] = Bot(r, self.level)
        return bot

    def __call__(self, rows, ruleset):
        return -np.asarray(self._bot(ruleset).values(np.ascontiguousarray(rows, dtype=np.uint8)), dtype=np.float64)

    def values_at_score(self, rows, ruleset, state: ScoreState | tuple[int, int]) -> np.ndarray:
        """``float64[N]``: the mover's value of each child (rows the engine made, the opponent
        on roll) at the score ``state`` (the mover's; away counts in a Tawla ruleset), by the
        bot's search at the score: EMG in backgammon, ``2 MWC - 1`` in a Tawla ruleset."""
        return self._bot(ruleset).values_at_score(np.ascontiguousarray(rows, dtype=np.uint8), state)[0]

    def match_cube(self, row: bytes, ruleset, state: ScoreState, met=None) -> MatchCube:
        """The cube decision at a backgammon match score of the side on roll of ``row`` (a
        packed pre-roll row) by the bot's cubeful search, 1 or 2 plies deep
        (:meth:`tawla.Bot.cube_action`, :func:`tawla.bots.cubeful.cubeful_decision`)."""
        bot = self._bot(ruleset)
        return cubeful_decision(np.frombuffer(row, dtype=np.uint8), bot.ruleset, state, bot.columns, bot.depth, met)

    def cube_probabilities(self, rows, ruleset) -> np.ndarray:
        """``float64[N, 6]``: the columns of :data:`tawla.evaluation.COLUMNS` of positions before
        their side on roll rolls, one (``net1``) or two (``net2``) rolls ahead."""
        r = get_ruleset(ruleset)
        net = shipped_net(r)
        return preroll_columns(np.ascontiguousarray(rows, dtype=np.uint8), r,
                               lambda x: evaluate_rows(x, r, checked=False, contact=net), int(self.level[-1]))


def default_evaluator() -> EquityEvaluator:
    """The strongest evaluator of the package: :class:`EngineEvaluator`."""
    return EngineEvaluator()
