"""`GET /metrics`: the server's figures in Prometheus' text format (app/metrics.py), off
unless METRICS_TOKEN is set, and then to the bearer of that token only (compared in constant
time). Any Host may ask (app/api/hosts.py): a scraper on the compose network says app:8000."""

from __future__ import annotations

import hmac

from fastapi import APIRouter, HTTPException, Request, Response

from app.api.bodies import JsonRoute
from app.api.deps import SettingsDep
from app.metrics import CONTENT_TYPE, render

router = APIRouter(tags=["operating"], include_in_schema=False, route_class=JsonRoute)


@router.get("/metrics")
async def metrics(request: Request, settings: SettingsDep) -> Response:
    if settings.metrics_token is None:  # off: as if there were no such path
        raise HTTPException(404)
    expected = f"Bearer {settings.metrics_token.get_secret_value()}".encode()
    given = request.headers.get("authorization", "").encode("latin-1", "replace")
    if not hmac.compare_digest(given, expected):
        raise HTTPException(
            401,
            detail={"code": "no_token", "message": "send Authorization: Bearer <METRICS_TOKEN>"},
            headers={"WWW-Authenticate": "Bearer"},
        )
    return Response(await render(request.app.state), media_type=CONTENT_TYPE)
