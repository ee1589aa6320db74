"""Quick pairing: ``POST /v1/seeks`` (wait for an opponent, or be paired at once),
``GET /v1/seeks/{id}`` (waiting, or the room made) and ``DELETE /v1/seeks/{id}``; the seek's
token is the bearer of the last two (:mod:`~tawla.service.seeks`)."""

from __future__ import annotations

from typing import Optional

from fastapi import APIRouter, Depends, Request

from .. import schemas as S
from ..seeks import view
from .common import address, hub, table_options, token

__all__ = ["router"]

router = APIRouter()
E = S.ERRORS


@router.post("/v1/seeks", response_model=S.SeekView, status_code=201, responses=E)
async def seek(request: Request, body: S.SeekRequest, bearer: Optional[str] = Depends(token)) -> dict:
    return await hub(request).seeks.seek(table_options(body), bearer, address(request))


@router.get("/v1/seeks/{seek_id}", response_model=S.SeekView, responses=E)
async def seek_state(request: Request, seek_id: str, bearer: Optional[str] = Depends(token)) -> dict:
    return view(await hub(request).seeks.get(seek_id, bearer))


@router.delete("/v1/seeks/{seek_id}", response_model=S.SeekView, responses=E)
async def cancel(request: Request, seek_id: str, bearer: Optional[str] = Depends(token)) -> dict:
    return await hub(request).seeks.cancel(seek_id, bearer)
