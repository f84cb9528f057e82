"""Every route of the app, listed from the app itself: each answer of the JSON API (hand
records, ledgers, exports, sessions, tournaments) carries `Cache-Control: private, no-store`
by default (app/api/headers.py), and every other route is one this test knows, with the
caching it must have. A new route fails here until it is classified below."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import Any

import httpx
from fastapi import FastAPI
from starlette.routing import BaseRoute, Route, WebSocketRoute

from app.api.assets import Assets, generated
from app.api.headers import PERSONAL
from app.main import static_dir
from tests.api.test_history import join, server
from tests.hands import checked_down, store_hand

#: routes outside the JSON API, by path, and the Cache-Control their answers carry (None: no
#: header; nothing personal in them). `/t/{code}` with a session carries the viewer's cards.
NOT_API = {
    "/": "no-cache",
    "/t/{code}": PERSONAL,
    "/h/{number}": "no-cache",
    "/t/{code}/h/{number}": "no-cache",
    "/hands": "no-cache",  # the page alone: the viewer's hands come from /api/hands
    "/players/{player_id}": "no-cache",
    "/signin": "no-cache",  # the page alone: the hand is asked for by the API
    "/tournaments/{code}": "no-cache",
    "/tournaments/{code}/clock": "no-cache",
    "/static/{version}/{path:path}": "public, max-age=31536000, immutable",
    "/healthz": None,
    "/readyz": None,
    "/metrics": PERSONAL,
    "/docs": None,
    "/docs/oauth2-redirect": None,
    "/openapi.json": None,
}
#: the WebSocket endpoint: no HTTP answer to cache
SOCKETS = {"/ws/tables/{code}"}


def routes(app: FastAPI) -> list[BaseRoute]:
    """Every route, those of included routers too (FastAPI keeps them per router)."""
    out: list[BaseRoute] = []
    for route in app.routes:
        included = getattr(route, "original_router", None)
        if included is None:
            out.append(route)
        else:
            assert route.include_context.prefix == ""  # type: ignore[attr-defined]
            out.extend(included.routes)
    return out


def fill(path: str, values: dict[str, str]) -> str:
    def one(match: re.Match[str]) -> str:
        name = match.group(1).split(":")[0]
        return values[name]

    return re.sub(r"\{([^}]+)\}", one, path)


async def test_every_personal_answer_is_private_and_not_stored(tmp_path: Path) -> None:
    async with server(tmp_path, f"sqlite+aiosqlite:///{tmp_path}/omaha.sqlite3") as (_, app):
        host, _ = await join(app, "Host")
        players = [await join(app, name) for name in ("Ann", "Ben")]
        r = await host.post("/api/tables", json={"name": "Friday", "seats": 6})
        table_code, table_id = r.json()["code"], r.json()["id"]
        hand, deck = checked_down((players[0][1], players[1][1]))
        await store_hand(app.state.table_store, table_id, hand, deck)
        listed = (await host.get(f"/api/tables/{table_code}/hands")).json()["hands"]
        number = str(listed[0]["number"])
        r = await host.post("/api/tournaments", json={"name": "Sunday", "decision_time": 0})
        tournament = r.json()["code"]
        for client, _ in players:
            assert (await client.post(f"/api/tournaments/{tournament}/register")).status_code == 200
        assert (await host.post(f"/api/tournaments/{tournament}/start")).status_code == 200
        ann = players[0][0]
        seat_at = (await ann.get(f"/api/tournaments/{tournament}")).json()["your_table"]
        assert seat_at
        version = Assets(static_dir(), generated()).version  # as the server makes it
        leaving, _ = await join(app, "Zed")  # logs out (DELETE /api/session)
        link_id = (await ann.post("/api/session/links")).json()["id"]  # revoked by its DELETE

        checked: dict[str, set[str]] = {}
        for route in routes(app):
            if isinstance(route, WebSocketRoute):
                assert route.path in SOCKETS, f"a new WebSocket route {route.path}"
                continue
            assert isinstance(route, Route), route
            api = route.path.startswith("/api")
            assert api or route.path in NOT_API, (
                f"{route.path} is a new route: say in NOT_API whether its answers are personal"
            )
            tournaments = route.path.startswith(("/api/tournaments", "/tournaments"))
            url = fill(route.path, {
                "code": tournament if tournaments else table_code, "table_code": seat_at,
                "number": number, "action": "pause", "version": version, "path": "js/boot.js",
                "player_id": players[0][1], "at_table": "1", "link_id": link_id,
            })  # fmt: skip
            # Ann: a player in the tournament and at the hands; the host for the table's and
            # the tournament's own commands (`pause`, which changes nothing at the end).
            client = host if route.path.endswith("{action}") or route.path == "/api/tables" else ann
            if route.path == "/api/session" and "DELETE" in (route.methods or set()):
                client = leaving
            for method in sorted((route.methods or set()) - {"HEAD"}):
                answer = await client.request(method, url, **body_of(method, route.path))
                # An answer still being made (an equity: 202 pending, docs/protocol.md) is asked
                # again until it is there; pending or made, it is personal all the same.
                for _ in range(1200):
                    if not (api and method == "GET" and answer.status_code == 202):
                        break
                    assert answer.headers.get("cache-control") == PERSONAL, (method, url)
                    await asyncio.sleep(0.1)
                    answer = await client.request(method, url, **body_of(method, route.path))
                if api:
                    assert answer.headers.get("cache-control") == PERSONAL, (method, url)
                    if method == "GET":  # the data itself, not a refusal, was answered so
                        assert answer.status_code == 200, (url, answer.text)
                else:
                    assert answer.headers.get("cache-control") == NOT_API[route.path], url
                checked.setdefault(route.path, set()).add(method)
        for client in (host, leaving):
            await client.aclose()
        for client, _ in players:
            await client.aclose()
    api_routes = {r.path for r in routes(app) if isinstance(r, Route) and r.path.startswith("/api")}
    assert api_routes <= set(checked)
    # the personal data named by the issue, among them
    assert {"/api/hands/{number}", "/api/tables/{code}/ledger", "/api/tables/{code}/ledger.csv",
            "/api/tables/{code}/hands.phhs", "/api/hands/{number}/pokerstars.txt",
            "/api/tables/{code}/deals.json"} <= api_routes  # fmt: skip


def body_of(method: str, path: str) -> dict[str, Any]:
    if method != "POST":
        return {}
    if path == "/api/session":
        return {"json": {"name": "Ann"}}
    return {"json": {}}


async def test_a_route_that_sets_its_own_cache_control_keeps_it(tmp_path: Path) -> None:
    async with server(tmp_path, f"sqlite+aiosqlite:///{tmp_path}/omaha.sqlite3") as (_, app):
        from fastapi import Response

        @app.get("/api/cacheable")
        async def cacheable() -> Response:
            return Response("{}", headers={"Cache-Control": "public, max-age=60"})

        async with httpx.AsyncClient(
            transport=httpx.ASGITransport(app=app), base_url="http://127.0.0.1"
        ) as client:
            assert (await client.get("/api/cacheable")).headers["cache-control"] == (
                "public, max-age=60"
            )
            refused = await client.get("/api/hands")  # an error is personal too
            assert refused.status_code == 401
            assert refused.headers["cache-control"] == PERSONAL
