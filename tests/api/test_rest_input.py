"""Hostile REST bodies get a typed 422, never a 500: lone surrogates, NaN, Infinity, 1e400,
strings for numbers and booleans, control characters in names; and nothing is created."""

from __future__ import annotations

import httpx
import pytest

JSON = {"content-type": "application/json"}

BAD_TABLES = [
    '{"decision_time": NaN}',
    '{"decision_time": Infinity}',
    '{"time_bank": -Infinity}',
    '{"decision_time": 1e400}',
    '{"small_blind": NaN}',
    '{"big_blind": 1e400}',
    '{"name": "\\ud800"}',
    '{"game": "\\udfff"}',
    '{"name": "bad\\u0000name"}',
    '{"name": "two\\r\\nlines"}',
    '{"name": "\\u202egnp.exe"}',
    '{"seats": "6"}',
    '{"seats": 6.0}',
    '{"straddle": "yes"}',
    '{"run_it_twice": 1}',
    '{"approval_required": "true"}',
    '{"decision_time": "30"}',
    '{"small_blind": true}',
]


@pytest.mark.parametrize("body", BAD_TABLES)
async def test_hostile_table_settings_get_a_typed_422(client: httpx.AsyncClient, body: str) -> None:
    await client.post("/api/session", json={"name": "host"})
    r = await client.post("/api/tables", content=body.encode(), headers=JSON)
    assert r.status_code == 422, r.text
    assert r.json()["detail"]["code"] == "bad_request"
    assert (await client.get("/api/tables")).json() == []  # nothing was created


@pytest.mark.parametrize(
    "body",
    [
        '{"name": "\\ud800"}',
        '{"name": "a\\ud83d"}',
        '{"name": NaN}',
        '{"name": 1e400}',
        '{"name": "\\u0000"}',
        '{"name": "zero\\u200bwidth"}',
        '{"name": "\\ufeff"}',
        '{"name": "x", "admin": true}',
        '{"name": "' + "é" * 33 + '"}',
    ],
)
async def test_hostile_names_get_a_typed_422(client: httpx.AsyncClient, body: str) -> None:
    r = await client.post("/api/session", content=body.encode(), headers=JSON)
    assert r.status_code == 422, r.text
    assert r.json()["detail"]["code"] == "bad_request"
    assert (await client.get("/api/session")).json() == {"session": None}


async def test_good_settings_and_names_still_pass(client: httpx.AsyncClient) -> None:
    r = await client.post("/api/session", json={"name": "  Ame\u0301lie "})
    assert r.json()["name"] == "Amélie"
    body = {"name": "Friday 🂡", "seats": 6, "decision_time": 20, "straddle": True}
    r = await client.post("/api/tables", json=body)
    assert r.status_code == 201, r.text
