"""``GET /v1/rooms/{code}/board.svg``: the room's board as the web board draws it (:mod:`tawla.svg`).

The picture is drawn from the viewer's seat (a spectator sees seat 0's), seat 0 in white and
seat 1 in black, with the steps made this turn applied, the roll, the cube (games with one),
the players' names and pip counts, and arrows of the opponent's last move until the player
on turn makes a step. For the seat that must move, the checkers that have a
legal next step are lit (``lit``); with ``selected=P`` (a point the seat moves from, 25 = bar)
the points those steps reach are lit instead, the selected checker still marked. Every
``data-point`` of the picture is in the numbering of the seat on turn, as ``legal_steps`` is.
"""

from __future__ import annotations

import re
from typing import Any, Optional

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import Response
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from .. import svg
from ..errors import InvalidArgument
from ..rules import get_ruleset
from ..rules.match_play import Phase
from .schemas import ERRORS
from .views import legal_views

__all__ = ["router", "board_svg", "last_move_arrows", "move_hops"]

LAST_MOVE_COLOR = "#7b1fa2"
"""The colour of the arrows of the opponent's last move."""

router = APIRouter()
_bearer = HTTPBearer(auto_error=False)


def move_hops(text: str) -> list[tuple[int, int]]:
    """The (from, to) hops of a move in GNU Backgammon notation (``bar/22 13/8*(2) 6/off``),
    in the mover's numbering (25 = bar, 0 = off); unreadable tokens are left out."""
    hops: list[tuple[int, int]] = []
    for token in text.split():
        m = re.fullmatch(r"([^()]+?)(?:\((\d)\))?", token)
        if m is None:
            continue
        try:
            points = [25 if x.lower() == "bar" else 0 if x.lower() == "off" else int(x)
                      for x in m.group(1).replace("*", "").split("/")]
        except ValueError:
            continue
        if len(points) < 2 or not all(0 <= x <= 25 for x in points):
            continue
        hops += [(a, b) for a, b in zip(points, points[1:])] * int(m.group(2) or 1)
    return hops


def last_move_arrows(m: Any) -> list[svg.Arrow]:
    """Arrows of the move that ended the last turn, shown to the next player until he has made
    a step of his own (none at the start of a game)."""
    if m.phase == Phase.OVER or m.played_steps:
        return []
    ev = m.last_event("game_start", "turn")  # searched from the end: no copy of the log
    if ev is None or ev["type"] == "game_start" or ev["player"] == m.turn or not ev.get("move"):
        return []
    return [svg.Arrow(a, b, LAST_MOVE_COLOR, True) for a, b in move_hops(ev["move"])]


def board_svg(room: Any, viewer_seat: Optional[int], selected: Optional[int] = None) -> str:
    """The SVG text of a room's board for a viewer.

    Parameters
    ----------
    room : tawla.service.rooms.Room
    viewer_seat : int or None
        0 or 1; None for a spectator (drawn as seat 0 sees it).
    selected : int, optional
        A point (1..24, 25 = bar) of the seat to act: light the points its legal steps reach.

    Returns
    -------
    str

    Raises
    ------
    tawla.errors.InvalidArgument
        ``selected`` outside 1..25.
    """
    if selected is not None and not 1 <= selected <= 25:
        raise InvalidArgument(f"selected is a point 1..25, not {selected}")
    m = room.match
    names = tuple((room.seat(n).name if room.seat(n) is not None else f"seat {n + 1}") for n in (0, 1))
    if m is None:
        pos = get_ruleset(room.options["ruleset"]).initial_position()
        return svg.board(pos, players=(names[0], names[1]), size=600, title=f"room {room.code}: waiting")
    turn = m.turn if m.turn is not None else 0
    seat = 0 if viewer_seat is None else viewer_seat
    lit_from: set[int] = set()
    lit_to: set[int] = set()
    if viewer_seat is not None and viewer_seat == m.to_act and m.phase == Phase.MOVE:
        steps = legal_views(m)[1]
        if selected is None:
            lit_from = {s["from"] for s in steps}
        else:
            lit_from = {selected} if any(s["from"] == selected for s in steps) else set()
            lit_to = {s["to"] for s in steps if s["from"] == selected}
    cube = None
    if m.cube_in_play:
        owner = m.cube_owner
        cube = (m.cube_value, None if owner is None else (0 if owner == turn else 1))
    return svg.board(m.position, dice=m.dice, cube=cube, lit_points=lit_to, lit_checker_points=lit_from,
                     arrows=last_move_arrows(m),
                     flipped=seat != turn, on_roll_color="white" if turn == 0 else "black", size=600,
                     players=(names[turn], names[1 - turn]), title=f"room {room.code}")


def _token(cred: Optional[HTTPAuthorizationCredentials] = Depends(_bearer)) -> Optional[str]:
    """The bearer token of the ``Authorization`` header (never one in the URL, which logs keep)."""
    return cred.credentials if cred is not None else None


@router.get("/v1/rooms/{code}/board.svg", response_class=Response,
            responses={**ERRORS, 200: {"content": {"image/svg+xml": {"schema": {"type": "string"}}},
                                       "description": "the board picture (SVG)"}})
async def room_board(request: Request, code: str, selected: Optional[int] = Query(default=None, ge=1, le=25),
                     token: Optional[str] = Depends(_token)) -> Response:
    """The room's board as SVG, drawn for the seat of the token (a spectator: seat 0's view)."""
    hub = request.app.state.hub
    mem = hub.member(code, token)
    text = board_svg(hub.room(code), mem.seat, selected)
    return Response(text, media_type="image/svg+xml", headers={"Cache-Control": "no-store"})
