"""The rooms: ``POST /v1/rooms``, joining, a seat's client seed, adding a bot, the state,
actions, the rematch, the finished match's analysis, the room's WebSocket
(:mod:`~tawla.service.sockets`) and ``GET /v1/tables``."""

from __future__ import annotations

from typing import Any, Optional

from fastapi import APIRouter, Depends, Request, WebSocket
from fastapi.responses import HTMLResponse, Response

from ...errors import InvalidAction

from .. import schemas as S
from ..sockets import room_socket
from ..status import RoomStatus
from .common import address, hub, table_options, token

__all__ = ["router"]

router = APIRouter()
E = S.ERRORS


@router.post("/v1/rooms", response_model=S.RoomCreated, status_code=201, responses=E)
async def create_room(request: Request, body: S.RoomRequest, bearer: Optional[str] = Depends(token)) -> dict:
    return hub(request).lobby.create_room(table_options(body), bearer, address(request))


@router.post("/v1/rooms/{code}/join", response_model=S.Joined, responses=E)
async def join(request: Request, code: str, body: Optional[S.JoinRequest] = None,
               bearer: Optional[str] = Depends(token)) -> dict:
    return await hub(request).lobby.join(code, body.name if body is not None else None, bearer,
                                         body.client_seed if body is not None else None)


@router.post("/v1/rooms/{code}/client-seed", response_model=dict[str, Any], responses=E)
async def client_seed(request: Request, code: str, body: S.ClientSeedRequest,
                      bearer: Optional[str] = Depends(token)) -> dict:
    return await hub(request).lobby.set_client_seed(code, bearer, body.client_seed)


@router.post("/v1/rooms/{code}/bots", response_model=S.BotAdded, status_code=201, responses=E)
async def add_bot(request: Request, code: str, body: Optional[S.BotRequest] = None,
                  bearer: Optional[str] = Depends(token)) -> dict:
    return await hub(request).lobby.add_bot(code, bearer, body.level if body is not None else "ply0")


# The room's state is built and encoded once per version (Room.state_json), so these two
# answer the encoded text; the schema still documents it as RoomState.
@router.get("/v1/rooms/{code}", response_model=S.RoomState, responses=E)
async def room_state(request: Request, code: str, bearer: Optional[str] = Depends(token)) -> Response:
    h = hub(request)
    mem = h.member(code, bearer)
    return Response(h.room(code).state_json(mem if mem.seat is not None else None), media_type="application/json")


@router.post("/v1/rooms/{code}/actions", response_model=S.RoomState, responses=E)
async def action(request: Request, code: str, body: S.ActionRequest,
                 bearer: Optional[str] = Depends(token)) -> Response:
    mem, room = await hub(request).actions.act(code, bearer, body.engine_body())
    return Response(room.state_json(mem, with_match=False), media_type="application/json")


@router.post("/v1/rooms/{code}/rematch", response_model=S.RoomState, responses=E)
async def rematch(request: Request, code: str, bearer: Optional[str] = Depends(token)) -> dict:
    return await hub(request).actions.rematch(code, bearer)


@router.get("/v1/tables", response_model=list[S.TableEntry])
async def tables(request: Request) -> list:
    return hub(request).registry.tables()


@router.websocket("/v1/rooms/{code}/ws")
async def socket(ws: WebSocket, code: str) -> None:
    await room_socket(ws, code)


async def _analysis(request: Request, code: str, bearer: Optional[str]) -> tuple[str, str]:
    h = hub(request)
    h.member(code, bearer)
    room = h.room(code)
    m = room.match
    if m is None or room.status != RoomStatus.OVER:
        raise InvalidAction("a match is analysed once it is over")
    return await h.analyses.of(room.code, room.match_no, m.to_match_record())


@router.get("/v1/rooms/{code}/analysis.html", response_class=Response,
            responses={**E, 200: {"content": {"text/html": {"schema": {"type": "string"}}},
                                  "description": "the analysis page (XHTML, UTF-8)"}})
async def analysis_html(request: Request, code: str, bearer: Optional[str] = Depends(token)) -> HTMLResponse:
    """The finished match's analysis as ``tawla analyze --html`` writes it (seats and
    spectators of the room)."""
    return HTMLResponse((await _analysis(request, code, bearer))[0])


@router.get("/v1/rooms/{code}/analysis.json", response_class=Response,
            responses={**E, 200: {"content": {"application/json": {"schema": {"type": "object"}}},
                                  "description": "the analysis of the match, as tawla analyze --json gives one"}})
async def analysis_json(request: Request, code: str, bearer: Optional[str] = Depends(token)) -> Response:
    """The finished match's analysis as ``tawla analyze --json`` gives one match (seats and
    spectators of the room)."""
    return Response((await _analysis(request, code, bearer))[1], media_type="application/json")
