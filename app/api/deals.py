"""REST export of a table's deals for checking them (docs/fairness.md): every session's seed
hash, the seed once revealed, and each hand's client seeds and commitments. Open to whoever
has the table's invite code, like its hand list; it holds no card (the commitments hide them
until the seed is revealed, and a revealed seed was shown to the whole table)."""

from __future__ import annotations

import asyncio
from typing import Any

import orjson
from fastapi import APIRouter, Request
from fastapi.responses import Response

from app.api.bodies import JsonRoute
from app.api.history import _table_id
from app.api.limits import check_rate
from app.api.tables import store, stored

router = APIRouter(tags=["verifiable deals"], route_class=JsonRoute)


@router.get("/api/tables/{code}/deals.json")
async def deals_export(code: str, request: Request) -> Response:
    """The table's deals for `python -m app verify-deals FILE` (the newest 5,000 hands)."""
    await check_rate(request.app.state.read_rate, request, "reads")
    table_id = await _table_id(request, code)
    export: dict[str, Any] = await stored(request, store(request).export_deals(table_id))
    body = await asyncio.to_thread(orjson.dumps, export)  # a few MB at 5,000 hands
    headers = {"Content-Disposition": 'attachment; filename="deals.json"'}
    return Response(body, media_type="application/json", headers=headers)
