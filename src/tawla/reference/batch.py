"""The reference engine's batch calls on packed rows: the distinct moves of a row, the
children of many rows, random playouts. Same contracts as the fast engine's, written for
clarity (one Python object per step)."""

from __future__ import annotations

import random

import numpy as np

from ..core.geometry import flip_row
from ..core.layout import PACKED_WIDTH
from ..core.results import ResultKind
from ..rules import Ruleset
from . import engine as ref
from .scoring import game_result

__all__ = ["legal_sequences", "expand", "playout"]


def legal_sequences(r: Ruleset, row: bytes, dice) -> list:
    """The legal moves of a row: ``(steps, after, ended)`` per distinct resulting row, in
    canonical order (the first kept sequence reaching it, dice high to low, points high
    to low); empty when the turn passes or the game is over.

    Parameters
    ----------
    r : Ruleset
    row : bytes
        A valid packed row, mover's seat.
    dice : (int, int)
        A checked roll.
    """
    if game_result(r, row) is not None:
        return []
    out, seen = [], set()
    for x in ref.legal_turns(r, ref.State.from_row(row), dice):
        if x.row not in seen:
            seen.add(x.row)
            out.append((x.steps, x.row, x.ended))
    return out


def expand(r: Ruleset, arr: np.ndarray, dice: np.ndarray):
    """Every child of every row (see :func:`tawla.expand`), rows and dice already checked.

    Returns
    -------
    children : uint8[M, PACKED_WIDTH]
        Flipped to the next player's seat; a passing row gives itself flipped, a finished
        game nothing.
    parent : int64[M]
    """
    out, parent = [], []
    for i in range(arr.shape[0]):
        row = arr[i].tobytes()
        if game_result(r, row) is not None:
            continue
        seqs = legal_sequences(r, row, (int(dice[i, 0]), int(dice[i, 1])))
        for after in ([x[1] for x in seqs] or [row]):
            out.append(flip_row(after, r.geometry))
            parent.append(i)
    children = (np.frombuffer(b"".join(out), dtype=np.uint8).reshape(len(out), PACKED_WIDTH).copy()
                if out else np.zeros((0, PACKED_WIDTH), np.uint8))
    return children, np.asarray(parent, dtype=np.int64)


def playout(r: Ruleset, n_games: int, seed: int, max_turns: int):
    """Random games from the start (see :func:`tawla.playout`): uniform over the distinct
    legal children each turn, Python's ``random.Random(seed)`` for the dice and choices.

    Returns
    -------
    (length int32[n], winner int8[n], kind int8[n], points int16[n])
    """
    rng = random.Random(seed)
    length = np.zeros(n_games, np.int32)
    winner = np.zeros(n_games, np.int8)
    kind = np.zeros(n_games, np.int8)
    points = np.zeros(n_games, np.int16)
    for g in range(n_games):
        row = r.initial_row()
        while True:  # §1.6 opening roll
            d0, d1 = rng.randint(1, 6), rng.randint(1, 6)
            if d0 != d1:
                break
        dice = (rng.randint(1, 6), rng.randint(1, 6)) if r.opening_reroll else (d0, d1)
        mover, turns, res = 0, 0, None
        while turns < max_turns:
            seqs = legal_sequences(r, row, dice)
            after = seqs[rng.randrange(len(seqs))][1] if seqs else row
            row = flip_row(after, r.geometry)
            turns += 1
            mover ^= 1
            res = game_result(r, row)
            if res is not None:
                break
            dice = (rng.randint(1, 6), rng.randint(1, 6))
        length[g] = turns
        if res is None:
            winner[g], kind[g], points[g] = -1, ResultKind.UNFINISHED, 0
        else:
            winner[g] = -1 if res.winner is None else (mover if res.winner == 0 else mover ^ 1)
            kind[g] = ResultKind[res.kind.upper()]
            points[g] = res.points
    return length, winner, kind, points
