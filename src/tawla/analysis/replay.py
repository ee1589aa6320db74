"""Replaying a record through the engine: every play matched to one legal move, the cube,
the Crawford game, resignations and the recorded scores followed and checked.

A play is matched to the legal moves its text can lead to (:func:`tawla.notation.fitting_moves`).
When the text fits a hitting and a non-hitting move (a file that leaves a hit unwritten, or
one that writes only some of a checker's hits), the record decides:

1. the opponent's next play: the reading after which it is legal (an entry from the bar
   says the hit happened, a play without one says it did not);
2. the hit rule of GNU Backgammon notation (every hit is written, intermediate ones
   included): the reading whose hits are exactly the written ones. It settles the play
   when the file marks all its other hits (``*`` on every hit of the plays that have one
   reading); otherwise the play is read the same way, with a note (notes do not make a
   record bad).

Replay costs the same for every play, whatever the length of the game: the actions are
read one at a time with a look-ahead of one turn, and the plays are stored by column
(:class:`~tawla.analysis.report_data.Plays`).
"""

from __future__ import annotations

from collections import deque
from typing import Iterable, Iterator

import numpy as np

from ..bots.score import play_values_at_score, play_values_by_mars, play_values_by_points
from ..core.layout import PACKED_WIDTH
from ..errors import AmbiguousMove, FormatError, IllegalMove, InvalidArgument, TawlaError, UnsupportedRuleset, quote
from ..formats.record import DOUBLE, DROP, ILLEGAL, RESIGN, ROLL, TAKE, WIN, Action, MatchRecord, crawford_header_on
from .. import native
from ..core.dice import check_dice
from ..core.moves import Move
from ..native import flip_row
from ..notation import by_written_hits, fitting_moves, hit_points, written_hits
from ..position import Position
from ..rules import get_ruleset, Ruleset, Scoring
from ..met import MAX_AWAY, ScoreState, default_met, variant_met
from ..rules.match_play import crawford_game
from .cube import CubeTracker
from .evaluators import EquityEvaluator
from .report_data import MAX_CUBE, Decision, GameReport, MatchReport

__all__ = ["replay_game", "analyze_record", "analyze_games", "ruleset_for_variation"]


def ruleset_for_variation(variation: str) -> Ruleset:
    """The ruleset of a ``; [Variation "..."]`` header ("Backgammon" or one of ours).

    Raises
    ------
    tawla.errors.UnsupportedRuleset
    """
    if variation is not None and not isinstance(variation, str):
        raise UnsupportedRuleset(f"a variation is a name, not {quote(variation)}")
    v = (variation or "Backgammon").strip()
    try:
        return get_ruleset(v)
    except UnsupportedRuleset:
        raise UnsupportedRuleset(f"variation {v!r} is not a ruleset of tawla") from None


class _Ahead:
    """An iterator over actions that can look a few actions ahead."""

    def __init__(self, actions: Iterable[Action]):
        self._it = iter(actions)
        self._buf: deque = deque()

    def __iter__(self):
        return self

    def __next__(self) -> Action:
        return self._buf.popleft() if self._buf else next(self._it)

    def peek(self, k: int = 0):
        """The action k places ahead (0 = the next one), or None past the end."""
        while len(self._buf) <= k:
            try:
                self._buf.append(next(self._it))
            except StopIteration:
                return None
        return self._buf[k]

    def drain(self) -> None:
        """Read the rest (a streamed game completes its defects only at its end)."""
        self._buf.clear()
        for _ in self._it:
            pass


def _next_turn(ahead: _Ahead, player: int):
    """The opponent's next roll and whether a result follows it, or (None, False).

    Only the cube actions may come between; a result, a drop or garbage ends the search.
    """
    for k in range(4):
        act = ahead.peek(k)
        if act is None or act.kind in (WIN, RESIGN, DROP, ILLEGAL):
            return None, False
        if act.kind == ROLL:
            if act.player == player:
                return None, False
            after = ahead.peek(k + 1)
            return act, after is not None and after.kind in (WIN, RESIGN)
    return None, False


def _next_play_fits(move, nxt: Action, then_result: bool, ruleset: Ruleset) -> bool:
    """Whether the opponent's recorded play is legal after ``move``."""
    if move.ended:
        return False
    pos = Position(flip_row(move.after, ruleset), ruleset)
    if not nxt.play and then_result:
        return True  # rolled and resigned: any position allows it
    try:
        fitting_moves(nxt.play, pos, nxt.dice)
    except TawlaError:
        return False
    return True


def _choose(fits: list, act: Action, ahead: _Ahead, ruleset: Ruleset, rep: GameReport):
    """One move out of several that a text fits (see the module docstring), or raise.

    Raises
    ------
    tawla.errors.AmbiguousMove
        Nothing in the record tells the readings apart.
    """
    nxt, then_result = _next_turn(ahead, act.player)
    if nxt is not None:
        keep = [m for m in fits if _next_play_fits(m, nxt, then_result, ruleset)]
        if len(keep) == 1:
            return keep[0]
        fits = keep or fits  # none fits: the next play is illegal anyway, and says so there
    written = written_hits(act.play)
    chosen = by_written_hits(fits, written)
    if chosen is None:
        raise AmbiguousMove(f"{act.play!r} fits {len(fits)} legal moves: {', '.join(map(str, fits))}",
                            text=act.play, legal=fits)
    # A reading that makes every written hit and more is what a file that leaves hits
    # unwritten would show; one that lacks a written hit is not a reading of the text.
    others = [m for m in fits if m is not chosen and hit_points(m) >= written]
    if others:
        rep.unsettled.append(f"move {act.move_number}: {act.play!r} also fits {', '.join(map(str, others))}; "
                             f"read as {chosen} (an unwritten hit is not assumed)")
    return chosen


def _count_hits(rep: GameReport, move, text: str) -> None:
    """Add a play with one reading to the record's hit-marking habit."""
    if move.after[27:51] == move.source[27:51] and move.ruleset.contact != "pin":
        return  # no opponent checker left a point: nothing was hit
    hits = hit_points(move)
    if hits:
        written = written_hits(text) if "*" in text else frozenset()
        rep.hits_written += len(hits & written)
        rep.hits_unwritten += len(hits - written)


def marks_all_hits(reports) -> bool:
    """Whether the plays with one reading of these games write every hit they make.

    Parameters
    ----------
    reports : iterable of GameReport

    Returns
    -------
    bool
        True when at least one hit is written and none is left unwritten.
    """
    if not isinstance(reports, (list, tuple)) or not all(isinstance(g, GameReport) for g in reports):
        raise InvalidArgument("expected a list of GameReport")
    written = unwritten = 0
    for g in reports:
        written += g.hits_written
        unwritten += g.hits_unwritten
    return written > 0 and unwritten == 0


def _settle(rep: GameReport, marks_all: bool) -> None:
    """The plays nothing in the game settled become notes unless the file marks all its hits."""
    if not marks_all:
        rep.notes.extend(rep.unsettled)


def replay_game(game, ruleset: Ruleset, *, match_length: int = 0, crawford: bool = False,
                jacoby: bool = True, evaluator: EquityEvaluator | None = None, path=None,
                actions: Iterable[Action] | None = None, beaver: bool = False) -> GameReport:
    """Replay one parsed game move by move.

    Parameters
    ----------
    game : tawla.formats.record.Game
    ruleset : Ruleset
    match_length : int
        0 for a money session.
    crawford : bool
        Whether this is the Crawford game (no doubling).
    jacoby : bool
        Money sessions only (RULES.md §2.4, D19): gammons count single while the cube is at 1.
    evaluator : EquityEvaluator or None
        None: no ranking (rank 1, loss 0 for every play). In a money session with a cube it
        also judges the cube decisions (:mod:`tawla.analysis.cube`).
    path : str, optional
        For error messages.
    actions : iterable of Action, optional
        The game's actions when they are streamed (:meth:`tawla.formats.matfile.MatchStream.games`);
        default ``game.actions``.

    Returns
    -------
    GameReport
        ``error`` is set (with the move number and line) at the first play that is not
        legal or cannot be read; the replay of that game stops there. Plays that the game
        does not settle (see the module docstring) are notes unless the game marks all
        its other hits.
    """
    rep = _replay_game(game, ruleset, match_length, crawford, jacoby, evaluator, path, actions, beaver)
    _settle(rep, marks_all_hits([rep]))
    return rep


def _replay_game(game, ruleset, match_length, crawford, jacoby, evaluator, path, actions,
                 beaver=False) -> GameReport:
    ahead = _Ahead(game.actions if actions is None else actions)
    cubes = CubeTracker(ruleset, match_length, evaluator, jacoby, beaver, tuple(game.score), crawford)
    rep = _replay(game, ahead, ruleset, match_length, crawford, jacoby, evaluator, path, cubes)
    cubes.finish(rep)
    ahead.drain()
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


def _name(game, player: int) -> str:
    """A player of a game by the record's name, ``player 1`` (left column) / ``player 2`` when unnamed."""
    names = getattr(game, "players", None) or ("", "")
    return names[player] or f"player {player + 1}"


def _replay(game, ahead: _Ahead, ruleset, match_length, crawford, jacoby, evaluator, path,
            cubes: CubeTracker) -> GameReport:
    rep = GameReport(number=game.number, score=tuple(game.score), crawford=crawford)
    pos = ruleset.initial_position()
    mover = None
    cube, owner, pending_double = 1, None, None
    ended_by = None
    for act in ahead:
        where = dict(file=path, game=game.number, move=act.move_number)
        try:
            if act.kind == ILLEGAL:
                raise FormatError(f"record holds an illegal or garbled entry: {act.play or act.raw!r}",
                                  text=act.raw, **where)
            if act.kind == ROLL:
                if ended_by:
                    raise FormatError("a roll after the end of the game", text=act.raw, **where)
                first = mover is None
                if first:
                    mover = act.player
                elif act.player != mover:
                    raise FormatError(f"{_name(game, act.player)} rolls out of turn", text=act.raw, **where)
                cubes.roll(act.player, act, pos.row, cube, owner, first)
                dice = check_dice(act.dice)
                sequences = native.legal_sequences(pos.row, dice, ruleset)
                following = ahead.peek()
                if not act.play and sequences and following is not None and following.kind in (WIN, RESIGN):
                    rep.notes.append(f"move {act.move_number}: rolled {dice[0]}{dice[1]} and resigned")
                    ended_by = "resign"
                    continue
                try:
                    fits = fitting_moves(act.play, pos, dice, sequences=sequences)
                    if len(fits) == 1:
                        move = fits[0]
                        _count_hits(rep, move, act.play)
                    else:
                        move = _choose(fits, act, ahead, ruleset, rep)
                except IllegalMove as e:
                    raise FormatError(str(e), text=act.play, legal=e.legal, **where) from None
                n_legal = len(sequences)
                dec = Decision(game.number, act.move_number, act.line, act.player, tuple(act.dice), act.play,
                               str(move), n_legal <= 1, n_legal, pos.pip_count())
                if evaluator is not None and n_legal > 1:
                    legal = [Move(steps, dice, ended, pos.row, after, ruleset) for steps, after, ended in sequences]
                    _rank(dec, legal, move, evaluator, ruleset,
                          _score_state(ruleset, match_length, game.score, act.player, cube, owner, crawford))
                rep.decisions.append(dec, pos.row, cube, owner)
                pos = Position(flip_row(move.after, ruleset), ruleset)  # a legal move: no second check
                mover = 1 - mover
                if pos.result() is not None:
                    ended_by = "bearoff"
            elif act.kind == DOUBLE:
                rep.cube_actions += 1
                if mover is not None and act.player != mover:
                    raise FormatError(f"{_name(game, act.player)} doubles out of turn", text=act.raw, **where)
                if not ruleset.cube:
                    rep.notes.append(f"move {act.move_number}: a double in {ruleset.name}, which has no cube")
                if crawford:
                    rep.notes.append(f"move {act.move_number}: a double in the Crawford game")
                if owner is not None and owner != act.player:
                    rep.notes.append(f"move {act.move_number}: {_name(game, act.player)} doubles without the cube")
                pending_double = act.player
                board = pos.id() if mover is not None else None
                rep.cube_decisions.append({"kind": "double", "player": act.player, "move_number": act.move_number,
                                           "line": act.line, "board": board, "cube": cube, "owner": owner})
                cubes.double(act.player, act, pos.row if mover is not None else None, cube, owner,
                             len(rep.cube_decisions) - 1)
            elif act.kind in (TAKE, DROP):
                rep.cube_actions += 1
                if pending_double is None or act.player == pending_double:
                    raise FormatError(f"{act.kind} without a double to answer", text=act.raw, **where)
                rep.cube_decisions.append({"kind": "take" if act.kind == TAKE else "drop", "player": act.player,
                                           "move_number": act.move_number, "line": act.line,
                                           "board": pos.id() if mover is not None else None, "cube": cube,
                                           "owner": owner})
                cubes.answer(len(rep.cube_decisions) - 1)
                if act.kind == TAKE:
                    if cube >= MAX_CUBE:
                        raise FormatError(f"a take past a cube of {MAX_CUBE}", text=act.raw, **where)
                    cube, owner, pending_double = cube * 2, act.player, None
                else:
                    ended_by = "drop"
                    rep.expected_points = cube
            elif act.kind == RESIGN:
                ended_by = ended_by or "resign"
            elif act.kind == WIN:
                rep.winner, rep.points = act.player, act.value
        except TawlaError as e:
            rep.error = str(e)
            rep.error_move, rep.error_line = act.move_number, act.line
            return rep
    rep.cube_value = cube
    _check_result(rep, game, pos, mover, ended_by, cube, ruleset, match_length, jacoby)
    return rep


def _check_result(rep, game, pos, mover, ended_by, cube, ruleset, match_length, jacoby) -> None:
    """The ending of the game and the points the rules give, against the recorded ones."""
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
            rep.notes.append(f"recorded winner is {_name(game, rep.winner)}, "
                             f"the board says {_name(game, expected_winner)}")
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


def _score_state(ruleset: Ruleset, length: int, score, player: int, cube: int, owner: int | None,
                 crawford: bool) -> ScoreState | tuple[int, int] | None:
    """The match score a play is ranked at: a :class:`ScoreState` in a backgammon match, the
    mover's and its opponent's away counts in a match of a Tawla ruleset scored by mars or by
    the loser's checkers (None: money, or a state the match model cannot hold; those plays
    are ranked by points)."""
    if not length or length > MAX_AWAY:
        return None
    if not ruleset.cube:
        away, opp_away = length - score[player], length - score[1 - player]
        ok = ruleset.scoring in (Scoring.MARS, Scoring.CHECKERS_LEFT) and away > 0 and opp_away > 0
        return (away, opp_away) if ok else None
    try:
        return ScoreState.of_seat(length, score, player, cube, owner, crawford)
    except InvalidArgument:
        return None


def _rank(dec: Decision, legal, played, evaluator: EquityEvaluator, ruleset: Ruleset,
          state: ScoreState | tuple[int, int] | None = None) -> None:
    """Rank the legal plays and the one played: by cubeless equity (points), or at a match score
    ``state`` by the normalised equity (EMG) each leaves, cubeful in backgammon (the
    opponent's cube action included), with the match-winning chance lost
    (:mod:`tawla.bots.score`, on the evaluator's 0-ply probabilities, or by its own search at
    the score where it has one: ``evaluator.values_at_score(rows, ruleset, state)``). Tawla
    31 needs the evaluator's distribution of the points
    (``evaluator.distributions(rows, ruleset)``); without one its plays are ranked by points."""
    r = ruleset
    rows = np.frombuffer(b"".join(flip_row(m.after, r) for m in legal), dtype=np.uint8)
    rows = rows.reshape(len(legal), PACKED_WIDTH).copy()  # a writable batch for the evaluator
    if state is not None:
        value = _values_at_score(rows, evaluator, r, state)
        if value is not None:
            _order(dec, legal, played, value)
            if isinstance(state, ScoreState):  # EMG: MWC lost = EMG lost x (win - lose) / 2
                t = default_met()
                dec.mwc_loss = dec.equity_loss * (state.me(state.cube, 0, t) - state.me(0, state.cube, t)) / 2
            else:  # 2 MWC - 1 as EMG of a single game
                t = variant_met(r.name)
                win, lose = t.after(*state, 1, 0, False), t.after(*state, 0, 1, False)
                dec.mwc_loss = dec.equity_loss / 2
                dec.equity_loss = 2 * dec.mwc_loss / (win - lose)
            return
    equity = -np.asarray(evaluator(rows, r), dtype=float)  # children are seen from the opponent
    for k, m in enumerate(legal):  # a move that ends the game is worth its points
        if m.ended:
            res = m.result_position().flip().result()
            if res is not None:
                equity[k] = res.points if res.winner == 1 else -res.points if res.winner == 0 else 0.0
    _order(dec, legal, played, equity)


def _values_at_score(rows: np.ndarray, evaluator: EquityEvaluator, r: Ruleset,
                     state: ScoreState | tuple[int, int]) -> np.ndarray | None:
    """The mover's value at the score of each child row (the opponent on roll): EMG in
    backgammon, ``2 MWC - 1`` in a Tawla ruleset; None where the evaluator cannot give one."""
    search = getattr(evaluator, "values_at_score", None)  # a search's own values at the score
    if search is not None:
        return search(rows, r, state)
    if isinstance(state, tuple) and r.scoring == Scoring.CHECKERS_LEFT:
        spread = getattr(evaluator, "distributions", None)
        return None if spread is None else play_values_by_points(spread(rows, r), r, *state)
    method = getattr(evaluator, "probabilities", None)  # a plain callable: its equity alone
    probs = method(rows, r) if method is not None else EquityEvaluator.probabilities(evaluator, rows, r)
    if isinstance(state, tuple):
        return play_values_by_mars(probs, r, *state)
    return play_values_at_score(rows, probs, r, state)[0]


def _order(dec: Decision, legal, played, equity: np.ndarray) -> None:
    """The played move's rank and loss among ``equity`` (the mover's, per legal move)."""
    order = np.argsort(-equity, kind="stable")
    idx = next(k for k, m in enumerate(legal) if m == played)
    dec.rank = int(np.nonzero(order == idx)[0][0]) + 1
    dec.equity_loss = float(equity[order[0]] - equity[idx])
    dec.best = str(legal[int(order[0])])


def analyze_games(rep: MatchReport, games: Iterator, variation: str, *, evaluator: EquityEvaluator | None = None,
                  ruleset=None) -> MatchReport:
    """Replay games into ``rep`` (whose path, length, players, headers and defects are set).

    Parameters
    ----------
    rep : MatchReport
    games : iterator of (Game, iterable of Action)
        In record order (:meth:`tawla.formats.matfile.MatchStream.games`, or the games of a
        :class:`~tawla.formats.record.MatchRecord` with their actions).
    variation : str
        The record's ``Variation`` header (ignored when ``ruleset`` is given).
    evaluator : EquityEvaluator or None
    ruleset : str or Ruleset or None
        Overrides the variation.

    Returns
    -------
    MatchReport
        ``rep`` itself. The Crawford game is derived from the scores before each game
        (RULES.md §2.4), unless a ``Crawford`` header says ``Off``; the file's hit-marking habit settles or notes the plays that a
        game leaves open (module docstring).
    """
    try:
        r = get_ruleset(ruleset) if ruleset is not None else ruleset_for_variation(variation)
    except UnsupportedRuleset as e:
        rep.error = str(e)
        return rep
    rep.ruleset = r.name
    jacoby, beaver = rep.jacoby, rep.beaver
    n, seen = rep.match_length, False
    rule = crawford_header_on(rep.headers) and r.cube  # the record's Crawford rule (a "Crawford Off" header)
    for game, actions in games:
        a, b = game.score
        is_crawford = rule and crawford_game(n, (a, b), seen)
        seen = seen or is_crawford or bool(n and (a == n - 1 or b == n - 1))
        rep.games.append(_replay_game(game, r, n, is_crawford, jacoby, evaluator, rep.path, actions, beaver))
    if not rep.games and rep.error is None:
        rep.error = "no game in the record"
    marks_all = marks_all_hits(rep.games)
    for g in rep.games:
        _settle(g, marks_all)
    return rep


def analyze_record(record, *, evaluator: EquityEvaluator | None = None, ruleset=None) -> MatchReport:
    """Replay and analyse every game of a parsed record (:class:`tawla.formats.record.MatchRecord`).

    Parameters
    ----------
    record : MatchRecord
    evaluator : EquityEvaluator or None
    ruleset : str or Ruleset or None
        Overrides the record's ``Variation`` header.

    Returns
    -------
    MatchReport
    """
    if not isinstance(record, MatchRecord):
        raise InvalidArgument(f"expected a MatchRecord, not {type(record).__name__}")
    rep = MatchReport(path=str(record.path or ""), match_length=record.match_length,
                      players=tuple(record.players), headers=dict(record.headers),
                      defects=list(record.defects))
    return analyze_games(rep, ((g, g.actions) for g in record.games), record.variation,
                         evaluator=evaluator, ruleset=ruleset)
