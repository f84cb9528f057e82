"""/metrics: off without METRICS_TOKEN, for its bearer only with it, under any Host (a
scraper on the compose network), in a text format Prometheus' own parser reads, with figures
that follow real play; and the relay's lag from real Redis streams."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import httpx
import redis.asyncio as aioredis
from prometheus_client.parser import text_string_to_metric_families
from pydantic import SecretStr

from app.metrics import relay_lag
from app.presence import InProcessPresence
from app.scale.keys import Keys
from app.scale.lease import Leases
from app.scale.relay import Relay
from app.scale.wire import Wire
from app.tables.registry import TableRegistry
from tests.api.live import Client, heads_up, live_server
from tests.api.test_play import live_settings
from tests.tables.stores import MemoryTableStore

TOKEN = "a-scraper's-token-0123456789"


def figures(text: str) -> dict[str, float]:
    """Every sample by name (histogram buckets by name and bound), as Prometheus reads it."""
    out: dict[str, float] = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            key = sample.name + (f"{{le={sample.labels['le']}}}" if "le" in sample.labels else "")
            out[key] = sample.value
    return out


async def scrape(base: str, **headers: str) -> httpx.Response:
    async with httpx.AsyncClient(base_url=base) as http:
        return await http.get("/metrics", headers=headers)


async def test_metrics_are_off_unless_a_token_is_set(tmp_path: Path, sqlite_url: str) -> None:
    async with live_server(live_settings(tmp_path, sqlite_url, None)) as base:
        r = await scrape(base, Authorization=f"Bearer {TOKEN}")
        assert r.status_code == 404 and r.json() == {"detail": "Not Found"}  # as no such path
        assert r.headers["cache-control"] == "private, no-store"


async def test_metrics_for_the_bearer_of_the_token_follow_play(
    tmp_path: Path, sqlite_url: str
) -> None:
    settings = live_settings(tmp_path, sqlite_url, None).model_copy(
        update={"metrics_token": SecretStr(TOKEN)}
    )
    async with live_server(settings) as base:
        port = base.rsplit(":", 1)[1]
        for headers in ({}, {"Authorization": "Bearer wrong-token-of-the-same-size"},
                        {"Authorization": TOKEN}):  # fmt: skip
            refused = await scrape(base, **headers)
            assert refused.status_code == 401 and refused.headers["www-authenticate"] == "Bearer"
        # Under the name the compose network gives the app (a name the rest of the server
        # does not answer): answered.
        async with httpx.AsyncClient(base_url=base) as http:
            other = await http.get("/api/tables", headers={"Host": f"app:{port}"})
        assert other.status_code == 400 and other.json()["detail"]["code"] == "bad_host"
        r = await scrape(base, Authorization=f"Bearer {TOKEN}", Host=f"app:{port}")
        assert r.status_code == 200, r.text
        assert r.headers["content-type"] == "text/plain; version=0.0.4; charset=utf-8"
        assert r.headers["cache-control"] == "private, no-store"
        before = figures(r.text)
        assert before["omaha_tables"] == 0 and before["omaha_websockets"] == 0
        assert "omaha_relay_lag_seconds" not in before  # (one process: no relay)

        a, b, _ = await heads_up(base)
        turn = await a.wait_for(lambda m: m["type"] == "turn" and "legal" in m)
        c: Client = a
        if turn["seat"] != 0:
            turn = await b.wait_for(lambda m: m["type"] == "turn" and "legal" in m)
            c = b
        reply = await c.request(type="act", hand=turn["hand"], counter=turn["counter"],
                                action="fold")  # fmt: skip
        assert reply["type"] == "ok", reply
        await a.wait_for(lambda m: m["type"] == "hand_ended")
        during = figures((await scrape(base, Authorization=f"Bearer {TOKEN}")).text)
        for client in (a, b):
            await client.close()

    assert during["omaha_tables"] == 1 and during["omaha_websockets"] == 2
    assert during["omaha_actions_total"] - before["omaha_actions_total"] >= 1
    # the deal and the fold at least (the hot path's writes), each waited for once
    written = during["omaha_store_write_seconds_count"] - before["omaha_store_write_seconds_count"]
    assert written >= 2
    assert (
        during["omaha_store_write_seconds_bucket{le=+Inf}"]
        == (during["omaha_store_write_seconds_count"])
    )
    assert during["omaha_store_write_seconds_sum"] > before["omaha_store_write_seconds_sum"]


def a_relay(client: Any, cursors: dict[str, str], out_cursor: str) -> Relay:
    """A real relay (never started) whose streams have been read up to these ids."""
    relay = Relay(client, Leases(client, "me", 5.0), TableRegistry(MemoryTableStore()),
                  InProcessPresence(), wire=Wire.from_secret("k" * 40), outbox_limit=64,
                  keys=Keys(prefix="test"))  # fmt: skip
    for table_id, cursor in cursors.items():
        relay.owner.read_from(table_id, cursor)
    relay.gateway.out_cursor = out_cursor
    return relay


async def test_the_relay_lag_is_the_age_of_the_oldest_entry_not_read(redis_url: str) -> None:
    client = aioredis.from_url(redis_url)
    try:
        seconds, _ = await client.time()
        now_ms = int(seconds) * 1000
        # Table t1: read up to its first entry; its second came 5 s ago, its third 2 s ago.
        await client.xadd("test:table:t1:in", {"k": "x"}, id=f"{now_ms - 9000}-0")
        await client.xadd("test:table:t1:in", {"k": "x"}, id=f"{now_ms - 5000}-0")
        await client.xadd("test:table:t1:in", {"k": "x"}, id=f"{now_ms - 2000}-0")
        await client.xadd("test:gateway:me:out", {"k": "x"}, id=f"{now_ms - 1000}-0")
        relay = a_relay(client, {"t1": f"{now_ms - 9000}-0"}, f"{now_ms - 1000}-0")
        assert 4.9 <= await relay_lag(relay) < 30
        relay.owner.read_from("t1", f"{now_ms - 2000}-0")  # read everything
        assert await relay_lag(relay) == 0.0
        relay.gateway.out_cursor = "0-0"  # its out stream not read at all: 1 s behind
        assert 0.9 <= await relay_lag(relay) < 30
    finally:
        await client.aclose()
        await asyncio.sleep(0)
