"""REST: identity cookie, creating and listing tables, the public state, OpenAPI."""

from __future__ import annotations

import httpx


async def test_session_cookie_and_renaming(client: httpx.AsyncClient) -> None:
    # A first visit is not an error: no name yet is a 200 that says so.
    first = await client.get("/api/session")
    assert first.status_code == 200 and first.json() == {"session": None}
    r = await client.post("/api/session", json={"name": "Alice"})
    assert r.status_code == 200
    cookie = r.headers["set-cookie"].lower()
    assert "httponly" in cookie and "samesite=lax" in cookie and "secure" not in cookie
    me = (await client.get("/api/session")).json()
    assert me["name"] == "Alice"
    old = client.cookies["omaha_session"]
    r = await client.post("/api/session", json={"name": "Alicia"})
    # Renaming keeps the player and rotates the token (see test_identity: session fixation).
    assert r.json()["player_id"] == me["player_id"] and "set-cookie" in r.headers
    assert client.cookies["omaha_session"] != old
    assert (await client.post("/api/session", json={"name": ""})).status_code == 422
    assert (await client.post("/api/session", json={"name": "x" * 33})).status_code == 422


async def test_secure_cookie_behind_https(client: httpx.AsyncClient) -> None:
    r = await client.post("https://127.0.0.1/api/session", json={"name": "Bob"})
    assert "secure" in r.headers["set-cookie"].lower()


async def test_create_list_and_read_a_table(client: httpx.AsyncClient) -> None:
    assert (await client.post("/api/tables", json={})).status_code == 401
    await client.post("/api/session", json={"name": "Host"})
    bad = await client.post("/api/tables", json={"game": "six-card-omaha", "seats": 10})
    assert bad.status_code == 422
    body = {"game": "big-o", "betting": "pot-limit", "seats": 6, "small_blind": 1}
    r = await client.post("/api/tables", json=body)
    assert r.status_code == 201
    created = r.json()
    assert len(created["code"]) >= 20 and created["invite_url"].endswith(created["code"])
    mine = (await client.get("/api/tables")).json()
    assert [t["code"] for t in mine] == [created["code"]] and mine[0]["host"] is True
    state = (await client.get(f"/api/tables/{created['code']}")).json()
    assert state["table"]["config"]["game"] == "big-o" and state["hand"] is None
    assert (await client.get("/api/tables/nope")).status_code == 404
    assert (await client.get("/openapi.json")).status_code == 200
    assert (await client.get("/docs")).status_code == 200
    assert (await client.get(f"/t/{created['code']}")).status_code == 200
