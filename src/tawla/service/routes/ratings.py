"""``GET /v1/ratings/{ruleset}``: the leaderboard of a ruleset's rated players (accounts and
bots), for one-point matches (``kind=game``) or longer ones (``kind=match``)."""

from __future__ import annotations

from typing import Literal

from fastapi import APIRouter, Query, Request

from ...rules import get_ruleset
from .. import schemas as S
from .common import hub

__all__ = ["router"]

router = APIRouter()


@router.get("/v1/ratings/{ruleset}", response_model=S.Leaderboard, responses=S.ERRORS)
async def leaderboard(request: Request, ruleset: str, kind: Literal["game", "match"] = "match",
                      limit: int = Query(default=50, ge=1, le=500)) -> dict:
    name = get_ruleset(ruleset).name
    return {"ruleset": name, "kind": kind, "players": hub(request).store.leaderboard(name, kind, limit)}
