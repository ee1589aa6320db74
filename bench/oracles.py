"""Adapters to the external engines tawla is compared with: GNU Backgammon (``gnubg_nn``)
and OpenSpiel (``pyspiel``). Neither is a dependency of tawla; these functions take their
objects or return plain data, and never import them.
"""

from __future__ import annotations

from tawla.core.geometry import own_coords

__all__ = ["gnubg_board", "from_gnubg_board", "spiel_whole_turns"]


def gnubg_board(row: bytes, geometry: str) -> list:
    """A packed backgammon row as a ``gnubg_nn`` board: ``[opponent, mover]``, each 25 checker
    counts on that side's points 1..24 then its bar.

    Parameters
    ----------
    row : bytes
        A packed row (56 bytes, :mod:`tawla.core.layout`), seen from the mover.
    geometry : str
        The ruleset's geometry (``tawla.rules.OPPOSITE`` for backgammon).
    """
    me, opp = own_coords(row, geometry)
    return [list(opp[1:25]) + [opp[25]], list(me[1:25]) + [me[25]]]


def from_gnubg_board(board, checkers: int = 15) -> tuple:
    """A ``gnubg_nn`` board (``[opponent, mover]``, 25 counts each: points 1..24, bar) as
    (mover, opponent) 26-tuples in their own numbering (0 off, 25 bar), the inverse of
    :func:`gnubg_board`; ``Position.from_points``-style own coordinates.
    """
    me = (checkers - sum(board[1]),) + tuple(board[1][:25])
    opp = (checkers - sum(board[0]),) + tuple(board[0][:25])
    return me, opp


def spiel_whole_turns(state) -> dict:
    """The whole-turn children of an OpenSpiel backgammon decision state.

    OpenSpiel plays a double as two half-turns (an "extra turn" of the same player); both
    halves are followed, so each entry is a state after the mover's whole turn.

    Parameters
    ----------
    state : pyspiel.State
        A decision (not chance, not terminal) state of ``pyspiel.load_game("backgammon")``.

    Returns
    -------
    dict
        ``{str(state after the turn): (action list that plays it, that state)}``, the first
        action list found for each distinct result.
    """
    mover = state.current_player()
    seen, finals = set(), {}

    def walk(st, path):
        for a in st.legal_actions():
            child = st.child(a)
            key = str(child)
            if key in seen:
                continue
            seen.add(key)
            if not child.is_terminal() and not child.is_chance_node() and child.current_player() == mover:
                walk(child, path + [a])
            else:
                finals[key] = (path + [a], child)

    walk(state, [])
    return finals
