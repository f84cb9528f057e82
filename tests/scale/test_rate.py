"""Per-address creation limits shared by every server process through Redis: N processes
allow an address the limit in all, not N times it; with Redis silent, each process still
counts alone (bounded, never open)."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

import httpx
import pytest
import redis.asyncio as aioredis

from app.rate import SharedWindow
from tests.scale.test_failover import environment, processes
from tests.servers import free_port


async def test_two_processes_share_one_window(redis_url: str) -> None:
    a, b = aioredis.Redis.from_url(redis_url), aioredis.Redis.from_url(redis_url)
    try:
        first = SharedWindow(a, 5, "sessions", window=1.0)
        second = SharedWindow(b, 5, "sessions", window=1.0)
        admitted = [await (first if i % 2 else second).admit("10.0.0.1") for i in range(10)]
        assert admitted == [True] * 5 + [False] * 5
        assert await first.admit("10.0.0.2")  # another address has its own window
        assert await SharedWindow(a, 5, "tables", window=1.0).admit("10.0.0.1")  # its own
        await asyncio.sleep(1.05)  # the window slid past every stamp
        assert await second.admit("10.0.0.1")
        assert await a.pttl("omaha:rate:sessions:10.0.0.1") <= 1000  # never kept longer
    finally:
        await a.aclose()
        await b.aclose()


async def test_redis_silent_each_process_counts_alone(caplog: pytest.LogCaptureFixture) -> None:
    gone = aioredis.Redis(host="127.0.0.1", port=free_port(), socket_connect_timeout=0.2)
    limiter = SharedWindow(gone, 3, "sessions", timeout=0.5)
    with caplog.at_level(logging.WARNING, logger="omaha.limits"):
        admitted = [await limiter.admit("10.0.0.1") for _ in range(5)]
    assert admitted == [True, True, True, False, False]
    warned = [r for r in caplog.records if "alone" in r.getMessage()]
    assert len(warned) == 1, "said once, not once per request"
    await gone.aclose()


async def test_sessions_limit_holds_across_two_server_processes(
    tmp_path: Path, postgres_url: str, redis_url: str
) -> None:
    env = await environment(tmp_path, postgres_url, redis_url)
    env["SESSIONS_PER_MINUTE"] = "4"
    with processes(env, "a", "b") as procs:
        statuses = []
        for i in range(8):  # one address, alternating between the processes
            base = procs["a" if i % 2 else "b"][1]
            async with httpx.AsyncClient(base_url=base) as http:
                r = await http.post("/api/session", json={"name": f"p{i}"})
                statuses.append(r.status_code)
                if r.status_code == 429:
                    assert r.json()["detail"]["code"] == "rate_limited"
        assert statuses == [200] * 4 + [429] * 4, statuses
