"""`/healthz`: the process is up. `/readyz`: the database and presence backend answer."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from app.api.deps import EngineDep, PresenceDep
from app.store.db import ping

router = APIRouter(tags=["health"])
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


@router.get("/readyz")
async def readyz(engine: EngineDep, presence: PresenceDep) -> JSONResponse:
    database, presence_state = await asyncio.gather(
        _check("database", ping(engine)), _check("presence", presence.ping())
    )
    checks = {"database": database, "presence": presence_state}
    ready = all(value == "ok" for value in checks.values())
    return JSONResponse(
        {"status": "ready" if ready else "unavailable", "checks": checks},
        status_code=200 if ready else 503,
    )
