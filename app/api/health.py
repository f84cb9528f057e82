"""`/healthz`: the process is up. `/readyz`: the database and presence backend answer, and
every stored table is loaded (none waits for the database)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from app.api.bodies import JsonRoute
from app.api.deps import EngineDep, PresenceDep
from app.store.db import ping

router = APIRouter(tags=["health"], route_class=JsonRoute)
log = logging.getLogger("omaha.health")
CHECK_TIMEOUT = 2.0


@router.get("/healthz")
async def healthz() -> dict[str, str]:
    return {"status": "ok"}


async def _check(name: str, probe: Awaitable[None]) -> str:
    try:
        await asyncio.wait_for(probe, CHECK_TIMEOUT)
    except Exception as error:  # any failure means "not ready"; say which kind
        log.warning("readiness check %s failed: %s", name, type(error).__name__)
        return f"error: {type(error).__name__}"
    return "ok"


def _tables(request: Request) -> str:
    """ "ok", or how many stored tables wait to be loaded (the registry retries them)."""
    registry = getattr(request.app.state, "tables", None)
    waiting = registry.restoring if registry is not None else set()
    if not waiting:
        return "ok"
    if "*" in waiting:
        return "restoring: the stored tables cannot be listed yet"
    return f"restoring: {len(waiting)} table(s) wait for the database"


@router.get("/readyz")
async def readyz(request: Request, engine: EngineDep, presence: PresenceDep) -> JSONResponse:
    database, presence_state = await asyncio.gather(
        _check("database", ping(engine)), _check("presence", presence.ping())
    )
    checks = {"database": database, "presence": presence_state, "tables": _tables(request)}
    ready = all(value == "ok" for value in checks.values())
    return JSONResponse(
        {"status": "ready" if ready else "unavailable", "checks": checks},
        status_code=200 if ready else 503,
    )
