"""Step-by-step play on rows (RULES.md §1.3, §1.4): the reference twins of the compiled
``turn_steps`` and ``turn_finals``.

A turn in progress is its start row, its roll and the single hops ``(from, to, die)``
made so far. A single step is legal *as a next step* only if it is the first step of
some sequence that the maximum-dice rule (§1.4) keeps, given the hops already made:
after it the turn can still use ``M`` dice, ``M`` being the most dice any sequence of the
roll uses (a sequence that ends the game with checkers of the mover still on the board
counts every die; one that bears off the last checker counts the dice it used, D17,
:func:`~tawla.reference.engine.dice_counted`); with ``M = 1`` and two different dice, the
larger die wherever it can be played.

Steps are ``(from_point, to_point, die, hit)`` tuples in the mover's numbering (25 = bar,
0 = off); ``hit`` is True when the step hits (backgammon, adi) or pins (mahbusa).
"""

from __future__ import annotations

from ..core.dice import expand_dice
from ..core.steps import point_name
from ..errors import IllegalMove
from ..rules import HIT, PIN, Ruleset
from . import engine as ref
from .scoring import game_result

__all__ = ["turn_steps", "turn_finals", "after_hops"]


_BEST_LIMIT = 1 << 18  # entries of the best-length cache before it starts again
_best_rules: list[Ruleset | None] = [None]  # the ruleset of the best-length cache
_best_cache: list[dict[tuple[bytes, tuple[int, ...]], int]] = [{}]  # {(row, dice left): dice usable}


def _best_table(r: Ruleset) -> dict[tuple[bytes, tuple[int, ...]], int]:
    """The best-length cache of ruleset ``r`` (kept across calls: the values depend only on
    the ruleset, the board and the dice left)."""
    if _best_rules[0] is not r or len(_best_cache[0]) > _BEST_LIMIT:
        _best_rules[0], _best_cache[0] = r, {}
    return _best_cache[0]


class _Turn:
    """One turn's search: the roll, ``M``, and the cache of :meth:`best` per state."""

    __slots__ = ("r", "dice", "n_dice", "target", "high_only", "_best")

    def __init__(self, r: Ruleset, start: ref.State, dice: tuple, over: bool):
        self.r = r
        self.dice = dice
        dice4 = expand_dice(dice)
        self.n_dice = len(dice4)
        self._best = _best_table(r)
        self.target = 0 if over else self.best(start, dice4)  # M of §1.4
        self.high_only = self.target == 1 and dice[0] != dice[1]

    def best(self, s: ref.State, remaining: tuple) -> int:
        """How many more dice can be used from ``s`` (:func:`~tawla.reference.engine.best_length`)."""
        if not remaining:
            return 0
        key = (s.key(), remaining)
        got = self._best.get(key)
        if got is None:
            got = 0
            r, n_left = self.r, len(remaining)
            for _st, n, rest in ref.next_steps(r, s, remaining):
                if ref.game_ended(r, n):
                    got = max(got, ref.dice_counted(True, n.me[0], 1, n_left))
                else:
                    got = max(got, 1 + self.best(n, rest))
                if got == n_left:
                    break
            self._best[key] = got
        return got

    def next_single(self, s: ref.State, remaining: tuple, used: int, at=None) -> list:
        """The legal next single steps from ``s`` after ``used`` dice: ``[(Step, state
        after, dice left)]``, dice high to low, from-points high to low (only those from
        point ``at`` when given, ``used`` >= 1)."""
        out = []
        r, target = self.r, self.target
        for st, n, rest in ref.next_steps(r, s, remaining):
            if at is not None and st.from_point != at:
                continue
            if ref.game_ended(r, n):
                total = ref.dice_counted(True, n.me[0], used + 1, self.n_dice)
            else:
                total = used + 1 + self.best(n, rest)
            if total >= target:
                out.append((st, n, rest))
        if self.high_only and used == 0:
            high = max(self.dice)
            if any(st.die == high for st, _, _ in out):
                out = [x for x in out if x[0].die == high]
        return out

    def kept_step(self, s: ref.State, remaining: tuple, used: int, hop: tuple):
        """``(Step, state after, dice left)`` of the single hop ``(from, to, die)`` if it is a
        legal next step (as :meth:`next_single` would list it), else None."""
        r = self.r
        for st, n, rest in ref.next_steps(r, s, remaining):
            if (st.from_point, st.to_point, st.die) != hop:
                continue
            if ref.game_ended(r, n):
                total = ref.dice_counted(True, n.me[0], used + 1, self.n_dice)
            else:
                total = used + 1 + self.best(n, rest)
            if total < self.target:
                return None
            if self.high_only and used == 0 and st.die != max(self.dice):
                high = max(self.dice)
                if any(x.die == high for x, _, _ in self.next_single(s, remaining, used)):
                    return None
            return st, n, rest
        return None


def _start(r: Ruleset, start_row: bytes, dice, played_hops):
    """Walk the hops made: ``(turn, state, dice left, dice used, ended)``.

    Raises
    ------
    tawla.errors.IllegalMove
        A hop that is not a legal next step (or any hop once the game is over or the turn
        passes).
    """
    dice = tuple(dice)
    s = ref.State.from_row(start_row)
    over = game_result(r, bytes(start_row)) is not None
    turn = _Turn(r, s, dice, over)
    hops = list(played_hops)
    if turn.target == 0:
        if hops:
            why = "the game is over" if over else "the turn passes"
            raise IllegalMove(f"no step is legal: {why}", text=_hop_point_text(hops[0]))
        return turn, s, (), 0, False
    remaining, used, ended = expand_dice(dice), 0, False
    for hop in hops:
        if ended:
            raise IllegalMove("the game is already over this turn", text=_hop_point_text(hop))
        try:
            key = tuple(hop)
        except TypeError:
            key = None
        found = turn.kept_step(s, remaining, used, key) if key is not None else None
        if found is None:
            raise IllegalMove(f"step {_hop_text(hop)} is not legal now", text=_hop_point_text(hop),
                              legal=[x[0] for x in turn.next_single(s, remaining, used)])
        _st, s, remaining = found
        used += 1
        ended = ref.game_ended(r, s)
    return turn, s, remaining, used, ended


def _hop_point_text(hop) -> str:
    try:
        return f"{hop[0]}/{hop[1]}"
    except (TypeError, IndexError):
        return repr(hop)


def _hop_text(hop) -> str:
    try:
        a, b, d = hop
        return f"{point_name(a)}/{point_name(b)} with a {d}"
    except (TypeError, ValueError):
        return repr(hop)


def turn_steps(r: Ruleset, start_row: bytes, dice, played_hops) -> tuple:
    """The steps a board lights up next (RULES.md §1.3).

    Parameters
    ----------
    r : Ruleset
    start_row : bytes
        The packed row at the start of the turn, mover's seat (``PACKED_WIDTH`` bytes).
    dice : (int, int)
        The roll, checked.
    played_hops : sequence of (int, int, int)
        The single hops ``(from_point, to_point, die)`` made this turn, in order.

    Returns
    -------
    (singles, combined, ended)
        ``singles``: the legal next single steps ``(from, to, die, hit)``, dice high to low
        and, per die, from-points high to low; ``combined``: the legal one-checker combined
        steps ``(from, to, (d1, d2, ...), hit)`` (dice in the order used, ``hit`` if any
        part hits or pins), in depth-first order from each single step, each once: the same
        checker to the same point with the same dice in another order and the same hit
        points (the same board, the same dice left) is not listed again; ``ended``: whether
        the game ended during the hops. Both lists are empty when the turn is complete,
        passes, or the game is over.

    Raises
    ------
    tawla.errors.IllegalMove
        A played hop that was not a legal next step.
    """
    turn, s, remaining, used, ended = _start(r, start_row, dice, played_hops)
    if ended or not remaining:
        return [], [], ended
    nxt = turn.next_single(s, remaining, used)
    singles = [(st.from_point, st.to_point, st.die, st.hit) for st, _n, _rest in nxt]
    combined: list[tuple[int, int, tuple[int, ...], bool]] = []
    seen: set = set()
    for st, n, rest in nxt:
        hits = frozenset((st.to_point,)) if st.hit else frozenset()
        _extend(turn, n, rest, used + 1, st.from_point, st.to_point, (st.die,), hits, combined, seen)
    return singles, combined, False


def _extend(turn: _Turn, s, remaining, used, origin, at, dice_used, hits, out, seen):
    """Append the combined steps of the checker now on ``at`` (started on ``origin``, having
    hit or pinned on the points ``hits``). A step already listed in another order of the
    same dice (same start, end and hit points, so the same board and dice left) is not
    listed again, nor are its continuations, which repeat those of the one listed."""
    if at == 0 or not remaining or ref.game_ended(turn.r, s):
        return
    for st, n, rest in turn.next_single(s, remaining, used, at):
        path_dice = dice_used + (st.die,)
        path_hits = hits | {st.to_point} if st.hit else hits
        key = (origin, st.to_point, path_hits, tuple(sorted(path_dice)))
        if key in seen:
            continue
        seen.add(key)
        out.append((origin, st.to_point, path_dice, bool(path_hits)))
        _extend(turn, n, rest, used + 1, origin, st.to_point, path_dice, path_hits, out, seen)


def turn_finals(r: Ruleset, start_row: bytes, dice, played_hops) -> list:
    """Every legal final position reachable from a turn in progress, with a way to reach it.

    Parameters
    ----------
    r, start_row, dice, played_hops
        As for :func:`turn_steps`.

    Returns
    -------
    list of (bytes, tuple)
        ``(after_row, continuation_hops)`` per distinct final row (mover's seat, not
        flipped), in the order first reached trying dice high to low and from-points high
        to low; ``continuation_hops`` are the single steps ``(from, to, die, hit)`` after
        the played hops, the first such path found. A complete turn (or one the game ended
        in) gives its own row with no hops; a turn that passes, the start row; a game over
        at the start, nothing.

    Raises
    ------
    tawla.errors.IllegalMove
        A played hop that was not a legal next step.
    """
    turn, s, remaining, used, ended = _start(r, start_row, dice, played_hops)
    if ended:
        return [(s.to_row(), ())]
    if turn.target == 0:
        return [] if game_result(r, bytes(start_row)) is not None else [(s.to_row(), ())]
    out: dict[bytes, tuple[tuple[int, int, int, bool], ...]] = {}
    seen: set[tuple[bytes, tuple[int, ...]]] = set()
    target, n_dice = turn.target, turn.n_dice
    first_high = turn.high_only and used == 0

    def rec(state, remaining, path):
        key = (state.key(), remaining)
        if key in seen:
            return
        seen.add(key)
        extended = False
        for st, n, rest in ref.next_steps(r, state, remaining):
            if first_high and not path and st.die != max(turn.dice) and high_playable:
                continue
            extended = True
            hop = (st.from_point, st.to_point, st.die, st.hit)
            if ref.game_ended(r, n):
                if ref.dice_counted(True, n.me[0], used + len(path) + 1, n_dice) >= target:
                    out.setdefault(n.to_row(), path + (hop,))
            else:
                rec(n, rest, path + (hop,))
        if not extended and used + len(path) == target:
            out.setdefault(state.to_row(), path)

    high_playable = first_high and any(st.die == max(turn.dice)
                                       for st, _n, _rest in turn.next_single(s, remaining, used))
    rec(s, remaining, ())
    return list(out.items())


def after_hops(r: Ruleset, row: bytes, hops) -> tuple:
    """The row after single hops, and whether each hop hits or pins (no legality check).

    Parameters
    ----------
    r : Ruleset
    row : bytes
        A packed row, mover's seat.
    hops : sequence of (int, int, int)
        ``(from_point, to_point, die)``, legal in turn.

    Returns
    -------
    (bytes, tuple of bool)
    """
    if r.contact == PIN:  # pins live in the row's pin bytes: through the engine's State
        s = ref.State.from_row(row)
        hits = []
        for hop in hops:
            a, b = hop[0], hop[1]
            hits.append(b != 0 and s.opp[b] == 1 and s.me[b] == 0)
            s = ref.apply_step(r, s, a, b)
        return s.to_row(), tuple(hits)
    # no pins: checker counts only (apply_step's §2.1 hit, or no contact at all)
    me, opp = list(row[0:26]), list(row[26:52])
    hitting = r.contact == HIT
    hits = []
    for hop in hops:
        a, b = hop[0], hop[1]
        me[a] -= 1
        hit = hitting and b != 0 and opp[b] == 1 and me[b] == 0
        if hit:
            opp[b] = 0
            opp[25] += 1
        me[b] += 1
        hits.append(hit)
    return bytes(me) + bytes(opp) + row[52:], tuple(hits)
