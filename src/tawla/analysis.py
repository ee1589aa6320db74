"""The main job: replay real match records through the engine and analyse every decision.

Each recorded play is matched to exactly one legal move by the position it leads to
(hits are derived from the board, never from ``*``); the cube, the Crawford game
(derived from the score), resignations and recorded scores are followed and checked.
For each checker play the report gives: forced or not, the number of legal moves,
the pip counts, and the rank and equity loss of the played move under an evaluator.

The evaluator is pluggable (:class:`Evaluator`): anything that maps a batch of packed
rows to the cubeless equity of the side to move, in points.
"""

from __future__ import annotations

import glob
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable, Iterable

import numpy as np

from .core.layout import PACKED_WIDTH
from .errors import FormatError, IllegalMove, TawlaError, UnsupportedRuleset
from .evaluation import evaluate
from .formats import matfile
from .formats.sgf import read_sgf
from .native import flip_row
from .notation import parse_move
from .position import Position
from .rules import Ruleset, get_ruleset
from .rules.match_play import crawford_game

__all__ = ["Evaluator", "HeuristicEvaluator", "default_evaluator", "Decision", "GameReport",
           "MatchReport", "replay_game", "analyze_record", "analyze_paths", "collect_files",
           "ruleset_for_variation"]


# --- evaluators -------------------------------------------------------------------------------
class Evaluator:
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


class HeuristicEvaluator(Evaluator):
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


class EngineEvaluator(Evaluator):
    """The engine's own evaluator, :func:`tawla.evaluate`: its equity column."""

    name = "tawla.evaluate"
    description = evaluate.__doc__.strip().splitlines()[0]

    def __call__(self, rows, ruleset):
        return np.asarray(evaluate(np.asarray(rows, dtype=np.uint8), ruleset))[:, 0].astype(float)


def default_evaluator() -> Evaluator:
    """The strongest evaluator of the package: :class:`EngineEvaluator`."""
    return EngineEvaluator()


# --- report objects --------------------------------------------------------------------------
@dataclass
class Decision:
    """One checker play of a record.

    Attributes
    ----------
    game, move_number, line : int
        Game number, ``NN)`` number and file line of the play.
    player : int
        0 = player 1 (left column), 1 = player 2.
    dice : (int, int)
    text : str
        The play as written.
    move : str
        The matched legal move in GNU Backgammon notation ("" for a pass).
    forced : bool
        At most one legal move existed.
    legal : int
        Number of legal moves (distinct resulting positions).
    pips : (int, int)
        Pip counts (mover, opponent) before the play.
    rank : int
        1 = the evaluator's best move.
    equity_loss : float
        Cubeless equity of the best move minus that of the played one (points, >= 0).
    best : str
        The evaluator's best move.
    """

    game: int
    move_number: int | None
    line: int | None
    player: int
    dice: tuple
    text: str
    move: str
    forced: bool
    legal: int
    pips: tuple
    rank: int = 1
    equity_loss: float = 0.0
    best: str = ""


@dataclass
class GameReport:
    """The replay of one game: its decisions, cube actions, result and notes."""

    number: int
    crawford: bool = False
    decisions: list = field(default_factory=list)
    cube_actions: int = 0
    cube_value: int = 1
    winner: int | None = None
    points: int | None = None
    expected_points: int | None = None
    ending: str = ""
    notes: list = field(default_factory=list)
    error: str | None = None
    error_move: int | None = None
    error_line: int | None = None


@dataclass
class MatchReport:
    """The analysis of one record file."""

    path: str
    ruleset: str = ""
    match_length: int = 0
    players: tuple = ("", "")
    headers: dict = field(default_factory=dict)
    games: list = field(default_factory=list)
    error: str | None = None
    defects: list = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """True when the file was read, has no corrupt lines, and every game replays."""
        return self.error is None and not self.defects and all(g.error is None for g in self.games)

    def decisions(self, player=None):
        return [d for g in self.games for d in g.decisions if player is None or d.player == player]

    def to_dict(self) -> dict:
        d = asdict(self)
        d["ok"] = self.ok
        return d


def ruleset_for_variation(variation: str) -> Ruleset:
    """The ruleset of a ``; [Variation "..."]`` header ("Backgammon" or one of ours).

    Raises
    ------
    tawla.errors.UnsupportedRuleset
    """
    v = (variation or "Backgammon").strip()
    try:
        return get_ruleset(v)
    except UnsupportedRuleset:
        raise UnsupportedRuleset(f"variation {v!r} is not a ruleset of tawla") from None


# --- replay -----------------------------------------------------------------------------------
def _crawford_flags(record) -> list:
    """Crawford game flags per game, derived from the scores before each game (§2.4)."""
    n = record.match_length
    flags, seen = [], False
    for g in record.games:
        a, b = g.score
        is_c = crawford_game(n, (a, b), seen)
        seen = seen or is_c or bool(n and (a == n - 1 or b == n - 1))
        flags.append(is_c)
    return flags


def replay_game(game, ruleset: Ruleset, *, match_length: int = 0, crawford: bool = False,
                jacoby: bool = True, evaluator: Evaluator | None = None, path=None) -> GameReport:
    """Replay one parsed game move by move.

    Parameters
    ----------
    game : tawla.formats.matfile.Game
    ruleset : Ruleset
    match_length : int
        0 for a money session.
    crawford : bool
        Whether this is the Crawford game (no doubling).
    jacoby : bool
        Money sessions only (§2.4, D19): gammons count single while the cube is at 1.
    evaluator : Evaluator or None
        None: no ranking (rank 1, loss 0 for every play).
    path : str, optional
        For error messages.

    Returns
    -------
    GameReport
        ``error`` is set (with the move number and line) at the first play that is not
        legal or cannot be read; the replay of that game stops there.
    """
    rep = _replay(game, ruleset, match_length, crawford, jacoby, evaluator, path)
    if rep.error is None:
        for defect in game.defects:  # what the reader found wrong in the text of this game
            if defect.startswith("no result line"):
                rep.notes.append("no result line: the game is unfinished")
            elif "implausible result" in defect:  # the reader's guess; the rules decide above
                continue
            else:
                rep.error = str(FormatError(f"corrupt record: {defect}", file=path, game=game.number))
                break
    return rep


def _replay(game, ruleset, match_length, crawford, jacoby, evaluator, path) -> GameReport:
    rep = GameReport(number=game.number, crawford=crawford)
    pos = ruleset.initial_position()
    mover = None
    cube, owner, pending_double = 1, None, None
    actions = game.actions
    ended_by = None
    for i, act in enumerate(actions):
        where = dict(file=path, game=game.number, move=act.move_number)
        try:
            if act.kind == "illegal":
                raise FormatError(f"record holds an illegal or garbled entry: {act.play or act.raw!r}",
                                  text=act.raw, **where)
            if act.kind == "roll":
                if ended_by:
                    raise FormatError("a roll after the end of the game", text=act.raw, **where)
                if mover is None:
                    mover = act.player
                elif act.player != mover:
                    raise FormatError(f"player {act.player + 1} rolls out of turn", text=act.raw, **where)
                dice = act.dice
                legal = pos.legal_moves(dice)
                following = [a.kind for a in actions[i + 1:]]
                if not act.play and legal and following[:1] in (["win"], ["resign"]):
                    rep.notes.append(f"move {act.move_number}: rolled {dice[0]}{dice[1]} and resigned")
                    ended_by = "resign"
                    continue
                try:
                    move = parse_move(act.play, pos, dice)
                except IllegalMove as e:
                    raise FormatError(str(e), text=act.play, legal=e.legal, **where) from None
                dec = Decision(game.number, act.move_number, act.line, act.player, tuple(dice), act.play,
                               str(move), len(legal) <= 1, len(legal), pos.pip_count())
                if evaluator is not None and len(legal) > 1:
                    _rank(dec, legal, move, evaluator, ruleset)
                rep.decisions.append(dec)
                nxt = pos.play(move) if move.steps else pos.flip()
                pos = nxt
                mover = 1 - mover
                if pos.result() is not None:
                    ended_by = "bearoff"
            elif act.kind == "double":
                rep.cube_actions += 1
                if mover is not None and act.player != mover:
                    raise FormatError(f"player {act.player + 1} doubles out of turn", text=act.raw, **where)
                if not ruleset.cube:
                    rep.notes.append(f"move {act.move_number}: a double in {ruleset.name}, which has no cube")
                if crawford:
                    rep.notes.append(f"move {act.move_number}: a double in the Crawford game")
                if owner is not None and owner != act.player:
                    rep.notes.append(f"move {act.move_number}: player {act.player + 1} doubles without the cube")
                pending_double = act.player
            elif act.kind in ("take", "drop"):
                rep.cube_actions += 1
                if pending_double is None or act.player == pending_double:
                    raise FormatError(f"{act.kind} without a double to answer", text=act.raw, **where)
                if act.kind == "take":
                    cube, owner, pending_double = cube * 2, act.player, None
                else:
                    ended_by = "drop"
                    rep.expected_points = cube
            elif act.kind == "resign":
                ended_by = ended_by or "resign"
            elif act.kind == "win":
                rep.winner, rep.points = act.player, act.value
        except TawlaError as e:
            rep.error = str(e)
            rep.error_move, rep.error_line = act.move_number, act.line
            return rep
    rep.cube_value = cube
    result = pos.result(cube) if mover is not None else None
    if ended_by == "drop":
        rep.ending = "drop"
    elif result is not None and result.winner is None:
        rep.ending = "draw"  # a frozen position (§1.7): nobody scores, the game is replayed
        rep.expected_points = 0
    elif result is not None and ended_by in (None, "bearoff"):
        rep.ending = result.kind
        rep.expected_points = result.points
        if ruleset.cube and jacoby and match_length == 0 and cube == 1:  # §2.4 Jacoby
            rep.expected_points = 1
        # result.winner is relative to the side on roll now (the loser's seat = `mover`)
        expected_winner = mover if result.winner == 0 else 1 - mover
        if rep.winner is not None and rep.winner != expected_winner:
            rep.notes.append(f"recorded winner is player {rep.winner + 1}, the board says player {expected_winner + 1}")
    elif rep.winner is not None:
        rep.ending = "resign"
    else:
        rep.ending = "unfinished"
    if rep.points is not None and rep.expected_points is not None and rep.points != rep.expected_points:
        needed = match_length - game.score[rep.winner] if match_length and rep.winner is not None else None
        if needed is not None and rep.points == min(rep.expected_points, needed):
            rep.notes.append(f"recorded {rep.points} points: {rep.expected_points} capped at the {needed} needed")
        else:
            rep.notes.append(f"recorded {rep.points} points, the rules give {rep.expected_points}")
    return rep


def _rank(dec: Decision, legal, played, evaluator: Evaluator, ruleset: Ruleset) -> None:
    r = ruleset
    rows = np.frombuffer(b"".join(flip_row(m.after, r) for m in legal), dtype=np.uint8)
    rows = rows.reshape(len(legal), PACKED_WIDTH).copy()  # a writable batch for the evaluator
    equity = -np.asarray(evaluator(rows, r), dtype=float)  # children are seen from the opponent
    for k, m in enumerate(legal):  # a move that ends the game is worth its points
        if m.ended:
            res = m.result_position().flip().result()
            if res is not None:
                equity[k] = res.points if res.winner == 1 else -res.points if res.winner == 0 else 0.0
    order = np.argsort(-equity, kind="stable")
    idx = next(k for k, m in enumerate(legal) if m == played)
    dec.rank = int(np.nonzero(order == idx)[0][0]) + 1
    dec.equity_loss = float(equity[order[0]] - equity[idx])
    dec.best = str(legal[int(order[0])])


def analyze_record(record, *, evaluator: Evaluator | None = None, ruleset=None) -> MatchReport:
    """Replay and analyse every game of a parsed record (:class:`matfile.MatchRecord`)."""
    rep = MatchReport(path=str(record.path or ""), match_length=record.match_length,
                      players=tuple(record.players), headers=dict(record.headers),
                      defects=list(record.defects))
    if not record.games:
        rep.error = "no game in the record"
    try:
        r = get_ruleset(ruleset) if ruleset is not None else ruleset_for_variation(record.variation)
    except UnsupportedRuleset as e:
        rep.error = str(e)
        return rep
    rep.ruleset = r.name
    jacoby = str(record.headers.get("Jacoby", "On")).strip().lower() not in ("off", "0", "false", "no")
    for game, crawford in zip(record.games, _crawford_flags(record)):
        rep.games.append(replay_game(game, r, match_length=record.match_length, crawford=crawford,
                                     jacoby=jacoby, evaluator=evaluator, path=rep.path))
    return rep


MAX_RECORD_BYTES = 64 * 2**20
"""Files larger than this are refused as match records."""


def read_record(path):
    """Read a .mat/.txt (Jellyfish) or .sgf (gnubg) file.

    Raises
    ------
    tawla.errors.FormatError
    """
    p = Path(path)
    if not p.is_file():
        raise FormatError("not a regular file", file=str(p))
    if p.stat().st_size > MAX_RECORD_BYTES:
        raise FormatError(f"larger than {MAX_RECORD_BYTES // 2**20} MiB: not a match record", file=str(p))
    if p.suffix.lower() == ".sgf":

        return read_sgf(p)
    return matfile.read_match(p)


def collect_files(specs: Iterable[str]) -> list:
    """Expand files, directories (recursively: .mat, .txt, .sgf) and globs, sorted, unique.

    Raises
    ------
    FileNotFoundError
        A spec that matches nothing.
    """
    if isinstance(specs, (str, os.PathLike)):
        specs = [specs]
    out = []
    for spec in specs:
        if not isinstance(spec, (str, os.PathLike)) or str(spec) == "":
            raise FileNotFoundError(repr(spec))
        p = Path(spec)
        if p.is_dir():
            out += sorted(q for q in p.rglob("*") if q.suffix.lower() in (".mat", ".txt", ".sgf") and q.is_file()
                          and q.name.upper() != "SOURCES.MD")
        elif p.is_file():
            out.append(p)
        else:
            hits = sorted(Path(h) for h in glob.glob(spec, recursive=True))
            if not hits:
                raise FileNotFoundError(spec)
            out += hits
    seen, uniq = set(), []
    for p in out:
        if p.resolve() not in seen:
            seen.add(p.resolve())
            uniq.append(p)
    return uniq


def analyze_paths(paths, *, evaluator: Evaluator | None = None, ruleset=None,
                  progress: Callable | None = None) -> list:
    """Analyse files; a file that cannot be read becomes a report with ``error`` set.

    ``progress(path, report)`` is called after each file.
    """
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    reports = []
    for path in paths:
        try:
            record = read_record(path)
        except Exception as e:  # one unreadable file never stops the batch
            rep = MatchReport(path=str(path), error=f"{path}: {type(e).__name__}: {e}")
        else:
            rep = analyze_record(record, evaluator=evaluator, ruleset=ruleset)
            rep.path = str(path)
        reports.append(rep)
        if progress is not None:
            progress(path, rep)
    return reports
