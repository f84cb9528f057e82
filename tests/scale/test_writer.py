"""The relay's writer (app/scale/writer.py), on a real Redis: what one turn of the event loop
hands over goes in one transaction, sent without waiting for the replies of the one before,
and each stream's entries land in the order they were handed over; a refused entry fails its
own caller only; a lost connection fails what was in flight on it, and the next write takes
another."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable
from contextlib import asynccontextmanager

import pytest
import redis.asyncio as aioredis

from app.scale.keys import STREAM_TTL_MS
from app.scale.writer import Writer


@asynccontextmanager
async def writing(redis_url: str) -> AsyncIterator[tuple[Writer, aioredis.Redis]]:
    client = aioredis.Redis.from_url(redis_url, decode_responses=True)
    await client.flushdb()
    await client.config_resetstat()
    tasks: set[asyncio.Future[None]] = set()

    def spawn(work: Awaitable[None]) -> asyncio.Future[None]:
        task = asyncio.ensure_future(work)
        tasks.add(task)
        return task

    try:
        yield Writer(client, spawn), client
    finally:
        await asyncio.gather(*tasks, return_exceptions=True)
        await client.aclose()


async def transactions(client: aioredis.Redis) -> int:
    """How many EXECs Redis ran since `writing` began."""
    stats = await client.info("commandstats")
    return int(stats.get("cmdstat_exec", {}).get("calls", 0))


def entry(i: int) -> dict[str, str]:
    return {"type": "msg", "n": str(i)}


async def numbers(client: aioredis.Redis, key: str) -> list[int]:
    return [int(fields["n"]) for _, fields in await client.xrange(key)]


async def test_one_turn_is_one_transaction_and_each_stream_keeps_its_order(
    redis_url: str,
) -> None:
    async with writing(redis_url) as (writer, client):
        results = await asyncio.gather(
            writer.add("s:a", [entry(1), entry(2)], 100),
            writer.add("s:b", [entry(1)], 100),
            writer.add("s:a", [entry(3)], 100),
        )
        assert [len(ids) for ids in results] == [2, 1, 1]
        assert await numbers(client, "s:a") == [1, 2, 3]
        assert await numbers(client, "s:b") == [1]
        ids = [entry_id for entry_id, _ in await client.xrange("s:a")]
        assert ids == results[0] + results[2]  # the ids returned are the entries'
        assert await transactions(client) == 1
        assert 0 < await client.pttl("s:a") <= STREAM_TTL_MS
        assert not writer.inflight and not writer.waiting


async def test_writes_are_pipelined_and_in_order(redis_url: str) -> None:
    async with writing(redis_url) as (writer, client):
        calls = []
        for i in range(1, 201):  # one at a time, each in its own turn: many in flight
            calls.append(asyncio.ensure_future(writer.add("s:a", [entry(i)], 1000)))
            if i % 7 == 0:
                await asyncio.sleep(0)
        await asyncio.gather(*calls)
        assert await numbers(client, "s:a") == list(range(1, 201))
        assert 1 < await transactions(client) < 200  # each of several turns' entries


async def test_a_refused_entry_fails_its_caller_only(redis_url: str) -> None:
    async with writing(redis_url) as (writer, client):
        await client.set("not:a:stream", "x")
        good = asyncio.ensure_future(writer.add("s:a", [entry(1)], 100))
        bad = asyncio.ensure_future(writer.add("not:a:stream", [entry(1)], 100))
        await asyncio.wait([good, bad])
        assert len(good.result()) == 1
        with pytest.raises(Exception, match="WRONGTYPE"):
            bad.result()
        assert await numbers(client, "s:a") == [1]


async def test_a_lost_connection_fails_what_was_in_flight_and_the_next_write_reconnects(
    redis_url: str,
) -> None:
    async with writing(redis_url) as (writer, client):
        await writer.add("s:a", [entry(1)], 100)
        held = writer._conn
        assert held is not None
        await held.disconnect()  # as if Redis went away under it
        with pytest.raises(Exception):  # noqa: B017 (whatever the client raises)
            await writer.add("s:a", [entry(2)], 100)
        await writer.add("s:a", [entry(3)], 100)  # a connection afresh (from the pool)
        assert not writer.inflight
        assert (await numbers(client, "s:a"))[-1] == 3


async def test_a_caller_that_gave_up_before_the_send_writes_nothing(redis_url: str) -> None:
    async with writing(redis_url) as (writer, client):
        given_up = asyncio.ensure_future(writer.add("s:a", [entry(1)], 100))
        await asyncio.sleep(0)  # handed over, not sent yet
        given_up.cancel()
        await writer.add("s:b", [entry(1)], 100)
        assert await client.exists("s:a") == 0
