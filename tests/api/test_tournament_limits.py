"""A tournament's bounds through REST (issue 27, item 7): its tables count against the
per-address and per-host table limits, unfinished tournaments per host are counted in the
database (the same whichever process is asked), and the deal figures need a session."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx
from fastapi import FastAPI

from app.config import Settings
from app.main import create_app
from tests.api.conftest import running
from tests.api.test_tournaments import join, use
from tests.migrated import migrate

SIX = {"starting_stack": 1000, "seats": 2, "payouts": "none"}


@asynccontextmanager
async def server(settings: Settings, **changes: Any) -> AsyncIterator[httpx.AsyncClient]:
    await migrate(settings.effective_database_url)
    async with running(create_app(settings.model_copy(update=changes))) as client:
        yield client


async def field_of(client: httpx.AsyncClient, code: str, players: int) -> None:
    for k in range(players):
        await join(client, f"Player {k}")
        r = await client.post(f"/api/tournaments/{code}/register")
        assert r.status_code == 200, r.text


async def test_a_tournaments_tables_count_per_minute(settings: Settings) -> None:
    async with server(settings, tables_per_minute=3) as client:
        host = await join(client, "Host")
        code = (await client.post("/api/tournaments", json=SIX)).json()["code"]  # one
        await field_of(client, code, 6)  # three tables of two: one too many this minute
        use(client, host)
        r = await client.post(f"/api/tournaments/{code}/start")
        assert r.status_code == 429 and r.json()["detail"]["code"] == "rate_limited", r.text
        state = (await client.get(f"/api/tournaments/{code}")).json()
        assert state["status"] == "registering"


async def test_a_tournaments_tables_count_per_host(settings: Settings) -> None:
    async with server(settings, tables_per_host=2) as client:
        host = await join(client, "Host")
        code = (await client.post("/api/tournaments", json=SIX)).json()["code"]
        await field_of(client, code, 6)
        use(client, host)
        r = await client.post(f"/api/tournaments/{code}/start")
        assert r.status_code == 429 and r.json()["detail"]["code"] == "too_many_tables", r.text
        r = await client.post("/api/tables", json={"name": "Cash"})
        assert r.status_code == 201  # a cash table still fits


async def test_tournaments_per_host_are_counted_for_every_process(settings: Settings) -> None:
    async with server(settings, tournaments_per_host=2) as client:
        await join(client, "Host")
        for _ in range(2):
            assert (await client.post("/api/tournaments", json=SIX)).status_code == 201
        # As if another process directed them: this one holds none of them in memory.
        app: FastAPI = client._transport.app  # type: ignore[attr-defined]
        app.state.tournaments.directors.clear()
        r = await client.post("/api/tournaments", json=SIX)
        assert r.status_code == 429 and r.json()["detail"]["code"] == "too_many_tournaments"


async def test_the_deal_figures_need_a_session(client: httpx.AsyncClient) -> None:
    await join(client, "Host")
    code = (await client.post("/api/tournaments", json=SIX)).json()["code"]
    assert (await client.get(f"/api/tournaments/{code}/deal")).status_code == 200
    client.cookies.clear()
    r = await client.get(f"/api/tournaments/{code}/deal")
    assert r.status_code == 401
