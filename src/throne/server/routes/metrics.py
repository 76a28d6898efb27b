"""`/metrics`: the process's Prometheus metrics (moves, move latency, group commits, live games, sockets,
bot queue) in the text exposition format."""

from __future__ import annotations

from fastapi import APIRouter, Request, Response

from throne.server.auth import hub_of
from throne.server.metrics import CONTENT_TYPE

router = APIRouter()


@router.get("/metrics", include_in_schema=False)
async def metrics(request: Request) -> Response:
    return Response(hub_of(request).metrics.render(), media_type=CONTENT_TYPE)
