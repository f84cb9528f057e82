"""Personal sign-in links: another device becomes the same player (the same hands, ledger
and tables) with a link used once, before it expires, unless revoked; the token is in no
log; the first device keeps its own session."""

from __future__ import annotations

import logging
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import update

from app.store.models import SignInLinkRow
from tests.api.test_history import join, server, store_hands

#: what GET /api/session answers a device signed out (200: a new visitor is no error)
SIGNED_OUT = {"session": None}


def device(app: FastAPI) -> httpx.AsyncClient:
    return httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app),
        base_url="http://127.0.0.1",
    )


def token_of(url: str) -> str:
    assert "/signin#" in url
    return url.split("#", 1)[1]


async def test_a_link_signs_another_device_in_once(
    database_url: str, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    async with server(tmp_path, database_url) as (http, app):
        ann, ann_id = await join(app, "Ann")
        others = [await join(app, name) for name in ("Ben", "Cat")]
        r = await ann.post("/api/tables", json={"name": "Friday", "seats": 6})
        code, table_id = r.json()["code"], r.json()["id"]
        await store_hands(app, table_id, [ann_id, *(pid for _, pid in others)])

        made = await ann.post("/api/session/links")
        assert made.status_code == 201 and made.headers["cache-control"] == "private, no-store"
        link = made.json()
        token = token_of(link["url"])
        assert link["state"] == "waiting" and link["qr"].startswith("data:image/svg+xml")
        listed = (await ann.get("/api/session/links")).json()
        assert [x["id"] for x in listed] == [link["id"]] and "url" not in listed[0]

        phone = device(app)
        assert (await phone.get("/api/session")).json() == SIGNED_OUT
        signed = await phone.post("/api/session/redeem", json={"token": token})
        assert signed.status_code == 200 and signed.json() == {"player_id": ann_id, "name": "Ann"}
        assert (await phone.get("/api/session")).json()["player_id"] == ann_id
        # The same hands, tables and ledger on both devices; the first is still signed in.
        assert (await phone.get("/api/hands")).json()["hands"] == (
            await ann.get("/api/hands")
        ).json()["hands"]
        assert [t["code"] for t in (await phone.get("/api/tables")).json()] == [code]
        assert (await ann.get("/api/session")).status_code == 200
        # Once only.
        again = device(app)
        second = await again.post("/api/session/redeem", json={"token": token})
        assert second.status_code == 404 and second.json()["detail"]["code"] == "no_such_link"
        assert (await ann.get("/api/session/links")).json()[0]["state"] == "used"
        # Never in a log (nor the session token it gave).
        cookie = next(iter(phone.cookies.values()))
        for record in caplog.records:
            assert token not in record.getMessage() and cookie not in record.getMessage()

        # Renaming on the phone renames the player and keeps the first device signed in.
        assert (await phone.post("/api/session", json={"name": "Annie"})).status_code == 200
        assert (await ann.get("/api/session")).json()["name"] == "Annie"
        # Logging out on the phone leaves the first device signed in.
        assert (await phone.delete("/api/session")).status_code == 204
        assert (await phone.get("/api/session")).json() == SIGNED_OUT
        assert (await ann.get("/api/session")).status_code == 200

        # Revoked: unusable; and revoking a used link ends the session it opened.
        tablet = device(app)
        used = (await ann.post("/api/session/links")).json()
        assert await tablet.post("/api/session/redeem", json={"token": token_of(used["url"])})
        assert (await tablet.get("/api/session")).status_code == 200
        assert (await ann.delete(f"/api/session/links/{used['id']}")).status_code == 204
        assert (await tablet.get("/api/session")).json() == SIGNED_OUT
        unused = (await ann.post("/api/session/links")).json()
        assert (await ann.delete(f"/api/session/links/{unused['id']}")).status_code == 204
        r = await again.post("/api/session/redeem", json={"token": token_of(unused["url"])})
        assert r.status_code == 404
        # Someone else's link cannot be revoked by another player.
        ben = others[0][0]
        theirs = (await ben.post("/api/session/links")).json()
        assert (await ann.delete(f"/api/session/links/{theirs['id']}")).status_code == 404
        assert (await ann.delete(f"/api/session/links/{uuid.uuid4()}")).status_code == 404

        # Expired: unusable.
        late = (await ann.post("/api/session/links")).json()
        async with app.state.sessions.begin() as s:
            await s.execute(
                update(SignInLinkRow)
                .where(SignInLinkRow.id == uuid.UUID(late["id"]))
                .values(expires_at=datetime.now(UTC) - timedelta(seconds=1))
            )
        r = await again.post("/api/session/redeem", json={"token": token_of(late["url"])})
        assert r.status_code == 404
        # Bounded: five links may wait at once.
        for _ in range(5):
            await ann.post("/api/session/links")
        too_many = await ann.post("/api/session/links")
        assert too_many.status_code == 429 and too_many.json()["detail"]["code"] == "too_many_links"
        # Bad input changes nothing.
        for body in ({"token": ""}, {"token": "x" * 200}, {"token": 5}, {}, {"token": "a", "b": 1}):
            r = await again.post("/api/session/redeem", json=body)
            assert r.status_code in (404, 422) and r.json()["detail"]["code"]
        assert (await again.get("/api/session")).json() == SIGNED_OUT
        assert (await http.post("/api/session/links")).status_code == 401
        for client in (ann, phone, again, tablet, *(c for c, _ in others)):
            await client.aclose()
