"""The app behind a real Caddy with the shipped site configuration (deploy/caddy/omaha.caddy):
HTTPS from Caddy's internal CA, HTTP redirected to it, the Secure `__Host-` session cookie,
a hand played over a WebSocket through the proxy, and forwarded addresses believed from the
proxy alone (a client elsewhere that sends X-Forwarded-For is not believed).

All on loopback: the app on 127.0.0.1 trusts X-Forwarded-For from 127.0.0.1, where Caddy
connects from; the test's clients connect from other loopback addresses (127.0.0.3 to Caddy,
127.0.0.2 straight to the app), so the address the app believes tells who it believed."""

from __future__ import annotations

import asyncio
import json
import logging
import random
from http.cookies import SimpleCookie
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest
import websockets
from pydantic import SecretStr

from app.bots.policy import random_action
from app.config import Settings
from tests.api.live import live_server
from tests.deploy.caddy import proxy_for
from tests.servers import free_port

SPOOFED = "203.0.113.9"


def settings_for(tmp_path: Path, public_url: str) -> Settings:
    return Settings(
        data_dir=tmp_path / "data",
        database_url=f"sqlite+aiosqlite:///{tmp_path}/omaha.sqlite3",
        secret_key=SecretStr("s" * 40),
        public_url=public_url,
        forwarded_allow_ips="127.0.0.1",
        between_hands=0,
    )


def believed(caplog: pytest.LogCaptureFixture, path: str) -> list[str]:
    """The client address the app logged for each request to `path` (app/logging.py)."""
    return [
        getattr(r, "client", "")
        for r in caplog.records
        if r.name == "omaha.access" and getattr(r, "path", "") == path
    ]


async def join(http: httpx.AsyncClient, name: str) -> tuple[str, SimpleCookie]:
    r = await http.post("/api/session", json={"name": name})
    assert r.status_code == 200, r.text
    cookie = SimpleCookie(r.headers["set-cookie"])
    return r.json()["player_id"], cookie


async def play_one_hand(sockets: list[Any], players: list[str]) -> dict[str, Any]:
    """Both players act on their turns (random legal actions) until the hand ends."""
    rng = random.Random(3)
    queue: asyncio.Queue[tuple[int, dict[str, Any]]] = asyncio.Queue()

    async def read(k: int) -> None:
        async for raw in sockets[k]:
            data = json.loads(raw)
            for message in data if isinstance(data, list) else [data]:
                await queue.put((k, message))

    readers = [asyncio.create_task(read(k)) for k in range(len(sockets))]
    try:
        async with asyncio.timeout(60):
            while True:
                k, message = await queue.get()
                if message["type"] == "hand_ended":
                    return message
                if message["type"] == "turn" and "legal" in message:
                    action = random_action(message["legal"], rng)
                    await sockets[k].send(
                        json.dumps(
                            {
                                "type": "act",
                                "hand": message["hand"],
                                "counter": message["counter"],
                                **action,
                            }
                        )
                    )
    finally:
        for task in readers:
            task.cancel()
        await asyncio.gather(*readers, return_exceptions=True)


async def test_https_websocket_play_and_forwarded_addresses_through_caddy(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="omaha.access")
    http_port, https_port = free_port(), free_port()
    public = f"https://localhost:{https_port}"
    async with live_server(settings_for(tmp_path, public)) as direct:
        app_port = int(direct.rsplit(":", 1)[1])
        async with proxy_for(tmp_path / "caddy", app_port, http_port, https_port) as ca:
            # TLS: only Caddy's internal CA is trusted by this client, and it verifies.
            outside = httpx.AsyncHTTPTransport(verify=ca, local_address="127.0.0.3")
            async with httpx.AsyncClient(transport=outside, base_url=public) as http:
                r = await http.get("/healthz", headers={"X-Forwarded-For": SPOOFED})
                assert r.status_code == 200 and r.json() == {"status": "ok"}
                assert r.headers["strict-transport-security"] == "max-age=31536000"
                # The address Caddy saw, not the one the client claimed.
                assert believed(caplog, "/healthz") == ["127.0.0.3"]

                # Plain HTTP is redirected to HTTPS.
                plain = httpx.AsyncHTTPTransport(local_address="127.0.0.3")
                async with httpx.AsyncClient(transport=plain) as insecure:
                    r = await insecure.get(f"http://localhost:{http_port}/t/abc")
                assert r.status_code in (301, 308)
                # (Caddy 2.6 leaves out a non-default HTTPS port; on 443 there is none)
                to = urlsplit(r.headers["location"])
                assert (to.scheme, to.hostname, to.path) == ("https", "localhost", "/t/abc")

                # The session cookie: __Host-, Secure, Path=/, no Domain, HttpOnly.
                ann, ann_cookie = await join(http, "Ann")
                morsel = ann_cookie["__Host-omaha_session"]
                assert morsel["secure"] and morsel["httponly"] and morsel["path"] == "/"
                assert not morsel["domain"]
                http.cookies.clear()
                ben, ben_cookie = await join(http, "Ben")
                http.cookies.clear()
                http.cookies["__Host-omaha_session"] = morsel.value
                r = await http.post("/api/tables", json={"decision_time": 0, "seats": 2})
                assert r.status_code == 201, r.text
                code = r.json()["code"]
                assert r.json()["websocket"] == f"wss://localhost:{https_port}/ws/tables/{code}"

                # A hand over WebSockets through the proxy (wss, the public Origin).
                sockets = []
                for cookie in (ann_cookie, ben_cookie):
                    value = cookie["__Host-omaha_session"].value
                    sockets.append(
                        await websockets.connect(
                            r.json()["websocket"],
                            ssl=ca,
                            origin=public,  # type: ignore[arg-type]
                            additional_headers={"Cookie": f"__Host-omaha_session={value}"},
                        )
                    )
                try:
                    for seat, ws in enumerate(sockets):
                        await ws.send(
                            json.dumps({"type": "sit", "id": seat, "seat": seat, "buy_in": 100})
                        )
                    ended = await play_one_hand(sockets, [ann, ben])
                finally:
                    for ws in sockets:
                        await ws.close()
                assert sum(ended["stacks"].values()) == 200  # every chip still there
                ledger = await http.get(f"/api/tables/{code}/ledger")
                totals = ledger.json()["totals"]
                assert totals["chips_in"] == 200 == totals["on_table"] + totals["cashed_out"]

        # Straight to the app from another address, claiming to be someone else: the app
        # believes the connection's own address, not the header.
        caplog.clear()
        elsewhere = httpx.AsyncHTTPTransport(local_address="127.0.0.2")
        async with httpx.AsyncClient(transport=elsewhere, base_url=direct) as http:
            r = await http.get(
                "/healthz", headers={"X-Forwarded-For": SPOOFED, "X-Forwarded-Proto": "https"}
            )
            assert r.status_code == 200
        assert believed(caplog, "/healthz") == ["127.0.0.2"]
