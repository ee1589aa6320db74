"""``POST /v1/accounts`` (a new account and its token), ``GET /v1/accounts/me`` and
``GET /v1/accounts/me/ratings`` (the account's ratings and its rating history)."""

from __future__ import annotations

from typing import Optional

from fastapi import APIRouter, Depends, Query, Request

from .. import schemas as S
from .common import address, hub, token

__all__ = ["router"]

router = APIRouter()
E = S.ERRORS


@router.post("/v1/accounts", response_model=S.AccountAnswer, status_code=201, responses=E)
async def create_account(request: Request, body: S.AccountRequest) -> dict:
    return hub(request).lobby.create_account(body.name, body.house, address(request))


@router.get("/v1/accounts/me", response_model=S.AccountView, responses=E)
async def account_me(request: Request, bearer: Optional[str] = Depends(token)) -> dict:
    h = hub(request)
    return h.store.account(h.registry.account(bearer)["id"])


@router.get("/v1/accounts/me/ratings", response_model=S.AccountRatings, responses=E)
async def account_ratings(request: Request, bearer: Optional[str] = Depends(token),
                          limit: int = Query(default=50, ge=1, le=500)) -> dict:
    h = hub(request)
    return h.store.ratings_of(h.registry.account(bearer)["id"], limit)
