"""What needs no room: ``POST /v1/moves``, ``/v1/evaluate``, ``/v1/best`` and ``/v1/cube``
(the searches run in the hub's bot pool, off the event loop)."""

from __future__ import annotations

import asyncio

from fastapi import APIRouter, Request

from .. import schemas as S
from ..views import best_of, cube_of, evaluation_of, moves_of
from .common import hub

__all__ = ["router"]

router = APIRouter()
E = S.ERRORS


@router.post("/v1/moves", response_model=S.MovesAnswer, responses=E)
async def moves(body: S.MovesRequest) -> dict:
    return moves_of(body.ruleset, body.position, body.dice)


@router.post("/v1/evaluate", response_model=S.EvaluateAnswer, responses=E, response_model_exclude_none=True)
async def evaluate(request: Request, body: S.EvaluateRequest) -> dict:
    return await asyncio.get_running_loop().run_in_executor(
        hub(request).pool, evaluation_of, body.ruleset, body.position, body.dice, body.level)


@router.post("/v1/best", response_model=S.BestAnswer, responses=E)
async def best(request: Request, body: S.BestRequest) -> dict:
    return await asyncio.get_running_loop().run_in_executor(
        hub(request).pool, best_of, body.ruleset, body.position, body.dice, body.level)


@router.post("/v1/cube", response_model=S.CubeAnswer, responses=E)
async def cube(request: Request, body: S.CubeRequest) -> dict:
    return await asyncio.get_running_loop().run_in_executor(
        hub(request).pool, cube_of, body.ruleset, body.position, body.length, body.score, body.cube,
        body.owner, body.crawford, body.level)
