"""``GET /v1/health`` and ``GET /v1/metrics`` (Prometheus's text format)."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import Response

from .. import schemas as S
from ..metrics import CONTENT_TYPE
from .common import hub

__all__ = ["router"]

router = APIRouter()


@router.get("/v1/health", response_model=S.Health)
async def health() -> dict:
    return {"status": "ok"}


@router.get("/v1/metrics", response_class=Response,
            responses={200: {"content": {"text/plain": {"schema": {"type": "string"}}},
                             "description": "Prometheus's text format (tawla.service.metrics)"}})
async def metrics_text(request: Request) -> Response:
    """Actions, their time, errors, rooms and sockets in Prometheus's text format."""
    h = hub(request)
    return Response(h.metrics.render(r.status for r in h.rooms.values()), media_type=CONTENT_TYPE)
