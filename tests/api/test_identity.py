"""Sessions (a new token whenever a name is chosen, expiry on the server, logout, the __Host-
cookie), the public address (PUBLIC_URL: Host, Origin, invite links, Secure cookies; a
DNS-rebinding page refused), client addresses from a trusted proxy, and the public view."""

from __future__ import annotations

import asyncio
import io
import json
import logging
import socket
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import websockets
from sqlalchemy import update

from app.config import Settings
from app.logging import setup_logging
from app.main import uvicorn_options
from app.store.models import Player
from tests.api.conftest import ClientFactory
from tests.api.live import Client, live_server
from tests.api.test_play import live_settings
from tests.migrated import migrate


def to(base: str) -> socket.socket:
    """A socket to the test server, for a WebSocket whose URL names another host."""
    host, port = base.removeprefix("http://").split(":")
    return socket.create_connection((host, int(port)))


async def test_a_planted_cookie_is_worthless_once_the_victim_picks_a_name(
    client: httpx.AsyncClient,
) -> None:
    attacker = (await client.post("/api/session", json={"name": "Mallory"})).cookies
    planted = attacker["omaha_session"]
    # The victim's browser carries the attacker's cookie and picks a name.
    client.cookies.clear()
    r = await client.post("/api/session", json={"name": "Victim"},
                          headers={"Cookie": f"omaha_session={planted}"})  # fmt: skip
    fresh = r.cookies["omaha_session"]
    assert fresh != planted
    client.cookies.clear()
    old = await client.get("/api/session", headers={"Cookie": f"omaha_session={planted}"})
    assert old.status_code == 200 and old.json() == {"session": None}
    me = await client.get("/api/session", headers={"Cookie": f"omaha_session={fresh}"})
    assert me.status_code == 200 and me.json()["name"] == "Victim"


async def test_sessions_expire_on_the_server_and_logout_forgets_the_token(
    client_for: ClientFactory, settings: Settings
) -> None:
    await migrate(settings.effective_database_url)
    async with client_for(settings.model_copy(update={"session_days": 7})) as client:
        r = await client.post("/api/session", json={"name": "Ann"})
        cookie = r.headers["set-cookie"].lower()
        assert f"max-age={7 * 24 * 3600}" in cookie and "httponly" in cookie
        token = r.cookies["omaha_session"]
        app = client._transport.app  # type: ignore[attr-defined]
        async with app.state.sessions.begin() as s:
            await s.execute(update(Player).values(session_expires_at=datetime.now(UTC)
                                                  - timedelta(seconds=1)))  # fmt: skip
        assert (await client.get("/api/session")).json() == {"session": None}  # expired
        r = await client.post("/api/session", json={"name": "Ann"})
        token = r.cookies["omaha_session"]
        assert (await client.get("/api/session")).status_code == 200
        out = await client.delete("/api/session")
        assert out.status_code == 204 and 'omaha_session=""' in out.headers["set-cookie"]
        client.cookies.clear()
        gone = await client.get("/api/session", headers={"Cookie": f"omaha_session={token}"})
        assert gone.status_code == 200 and gone.json() == {"session": None}


async def test_public_url_gives_the_host_origin_links_and_a_host_only_secure_cookie(
    tmp_path: Path, sqlite_url: str
) -> None:
    public = "https://poker.example.org"
    settings = live_settings(tmp_path, sqlite_url, None).model_copy(update={"public_url": public})
    async with live_server(settings) as base:
        headers = {"Host": "poker.example.org"}
        async with httpx.AsyncClient(base_url=base, headers=headers) as http:
            r = await http.post("/api/session", json={"name": "Host"})
            cookie = r.headers["set-cookie"]
            assert cookie.startswith("__Host-omaha_session=") and "Secure" in cookie
            assert "Path=/" in cookie and "Domain" not in cookie
            token = r.cookies["__Host-omaha_session"]
            http.cookies.clear()
            mine = {"Cookie": f"__Host-omaha_session={token}"}
            created = (await http.post("/api/tables", json={}, headers=mine)).json()
            assert created["invite_url"] == f"{public}/t/{created['code']}"
            assert created["websocket"] == f"wss://poker.example.org/ws/tables/{created['code']}"
            # The old cookie name means nothing here.
            plain = await http.get("/api/session", headers={"Cookie": f"omaha_session={token}"})
            assert plain.json() == {"session": None}
        async with httpx.AsyncClient(base_url=base) as direct:
            refused = await direct.get("/api/session")  # Host: 127.0.0.1:<port>
            assert refused.status_code == 400 and refused.json()["detail"]["code"] == "bad_host"
            assert (await direct.get("/healthz")).status_code == 200  # monitors may ask
        url = f"ws://poker.example.org/ws/tables/{created['code']}"  # Host: poker.example.org
        cookie_header = {"Cookie": f"__Host-omaha_session={token}"}
        async with websockets.connect(url, sock=to(base), origin=public,  # type: ignore[arg-type]
                                      additional_headers=cookie_header) as ws:  # fmt: skip
            assert json.loads(await ws.recv())["type"] == "snapshot"
        for origin in (base, "https://evil.example"):
            try:
                async with websockets.connect(url, sock=to(base), origin=origin,  # type: ignore[arg-type]
                                              additional_headers=cookie_header):  # fmt: skip
                    raise AssertionError("accepted a foreign origin")
            except websockets.InvalidStatus as e:
                assert e.response.status_code == 403


async def test_a_dns_rebinding_page_is_refused(tmp_path: Path, sqlite_url: str) -> None:
    """Without PUBLIC_URL, a page on evil.example whose name resolves to 127.0.0.1 reaches the
    server with Host and Origin both evil.example: same-origin, but not a host we answer."""
    async with live_server(live_settings(tmp_path, sqlite_url, None)) as base:
        victim = Client(base)
        await victim.join("victim")
        code = await victim.create_table()
        port = base.rsplit(":", 1)[1]
        evil = {"Host": f"evil.example:{port}"}
        async with httpx.AsyncClient(base_url=base, headers=evil) as page:
            r = await page.get(f"/api/tables/{code}",
                               headers={"Cookie": f"omaha_session={victim.token}"})  # fmt: skip
            assert r.status_code == 400 and r.json()["detail"]["code"] == "bad_host"
        url = f"ws://evil.example:{port}/ws/tables/{code}"
        try:
            async with websockets.connect(
                url, sock=to(base), origin=f"http://evil.example:{port}",  # type: ignore[arg-type]
                additional_headers={"Cookie": f"omaha_session={victim.token}"},
            ):  # fmt: skip
                raise AssertionError("a rebinding page opened a socket")
        except websockets.InvalidStatus as e:
            assert e.response.status_code == 403
        # The loopback names still work (make run, the browser tests).
        for host in (f"localhost:{port}", f"127.0.0.1:{port}", f"[::1]:{port}"):
            async with httpx.AsyncClient(base_url=base, headers={"Host": host}) as ok:
                assert (await ok.get(f"/api/tables/{code}")).status_code == 200
        await victim.close()


async def test_client_addresses_come_from_a_trusted_proxy_only(
    tmp_path: Path, sqlite_url: str
) -> None:
    saved = logging.getLogger().handlers[:], logging.getLogger().level
    setup_logging("info", "json")
    buffer = io.StringIO()
    handler = logging.getLogger().handlers[0]
    assert isinstance(handler, logging.StreamHandler)
    handler.setStream(buffer)
    try:
        for trusted, expected in (("127.0.0.1", "203.0.113.9"), ("10.9.9.9", "127.0.0.1")):
            settings = live_settings(tmp_path, sqlite_url, None).model_copy(
                update={"forwarded_allow_ips": trusted}
            )
            assert uvicorn_options(settings)["forwarded_allow_ips"] == trusted
            buffer.seek(0)
            buffer.truncate(0)
            async with live_server(settings) as base, httpx.AsyncClient(base_url=base) as http:
                await http.get("/healthz", headers={"X-Forwarded-For": "203.0.113.9"})
            lines = [json.loads(line) for line in buffer.getvalue().splitlines() if line]
            (access,) = [line for line in lines if line.get("event") == "http.request"]
            assert access["client"] == expected and access["msg"].startswith(expected)
    finally:
        root = logging.getLogger()
        root.handlers[:] = saved[0]
        root.setLevel(saved[1])


async def test_the_public_view_names_no_spectator(tmp_path: Path, sqlite_url: str) -> None:
    async with live_server(live_settings(tmp_path, sqlite_url, None)) as base:
        host, watcher = Client(base), Client(base)
        await host.join("host")
        await watcher.join("watcher")
        code = await host.create_table()
        await host.connect(code)
        assert (await host.request(type="sit", seat=0, buy_in=100))["type"] == "ok"
        await watcher.connect(code)
        await watcher.wait_for(lambda m: m["type"] == "snapshot")
        for _ in range(50):
            view = (await watcher.http.get(f"/api/tables/{code}")).json()
            if view["spectators"] == 1 and view["online"]:
                break
            await asyncio.sleep(0.05)
        assert view["online"] == {host.player_id: 0} and view["spectators"] == 1
        assert watcher.player_id not in json.dumps(view)
        await host.close()
        await watcher.close()


async def test_an_adjustment_is_seen_by_everyone_and_in_the_ledger_they_can_read(
    tmp_path: Path, sqlite_url: str
) -> None:
    async with live_server(live_settings(tmp_path, sqlite_url, None)) as base:
        host, a, watcher = Client(base), Client(base), Client(base)
        for name, c in (("host", host), ("a", a), ("watcher", watcher)):
            await c.join(name)
        code = await host.create_table(decision_time=0)
        for seat, c in enumerate((host, a)):
            await c.connect(code)
            if c is host:
                assert (await c.request(type="pause"))["type"] == "ok"
            assert (await c.request(type="sit", seat=seat, buy_in=100))["type"] == "ok"
        await watcher.connect(code)
        await watcher.wait_for(lambda m: m["type"] == "snapshot")
        assert (await host.request(type="adjust", seat=1, amount=-40))["type"] == "ok"
        for c in (a, watcher):
            event = await c.wait_for(lambda m: m["type"] == "adjusted")
            assert (event["seat"], event["amount"], event["by"]) == (1, -40, host.player_id)
            assert event["player_id"] == a.player_id and event["stack"] == 60
        ledger = await a.http.get(f"/api/tables/{code}/ledger")  # a seated non-host reads it
        assert ledger.status_code == 200
        line = next(p for p in ledger.json()["players"] if p["player_id"] == a.player_id)
        assert line["adjustment"] == -40 and line["stack"] == 60
        for c in (host, a, watcher):
            await c.close()
