"""The gateway's reader of its own stream (app/scale/gateway.py), on a real Redis: an entry it
cannot read (not sealed, sealed under another SECRET_KEY, not an entry at all) is skipped and
the reader goes on; what it has read is trimmed, so a delivered message (a reconnect's
snapshot as much as any) does not stay in Redis."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import redis.asyncio as aioredis
from redis.typing import EncodableT, FieldT

from app.presence import InProcessPresence
from app.scale.lease import Leases
from app.scale.relay import Relay
from app.scale.wire import Message, Wire
from app.tables.registry import TableRegistry
from tests.scale.test_numbering import relayed
from tests.tables.stores import MemoryTableStore

WIRE = Wire.from_secret("k" * 40)


def fields(entry: dict[str, str]) -> dict[FieldT, EncodableT]:
    """An encoded entry as redis-py's `xadd` is typed to take it (a dict, so invariant)."""
    return {key: value for key, value in entry.items()}


@asynccontextmanager
async def reading(redis_url: str) -> AsyncIterator[tuple[Relay, aioredis.Redis]]:
    client = aioredis.Redis.from_url(redis_url, decode_responses=True)
    relay = Relay(client, Leases(client, "g@1", 5.0), TableRegistry(MemoryTableStore()),
                  InProcessPresence(), wire=WIRE, outbox_limit=64)  # fmt: skip
    reader = asyncio.create_task(relay.gateway.read_out())
    try:
        yield relay, client
    finally:
        relay.streams.closing = True
        reader.cancel()
        await asyncio.gather(reader, return_exceptions=True)
        await client.aclose()


async def received(relay: Relay, conn: str, count: int) -> None:
    connection = relay.gateway.local[conn]
    async with asyncio.timeout(10):
        while connection.received < count:
            await connection.viewer.wait()


async def test_the_gateway_reads_past_what_it_cannot_read_and_trims_what_it_read(
    redis_url: str,
) -> None:
    async with reading(redis_url) as (relay, client):
        c = relayed(relay.gateway, "g@1/1")
        out = relay.keys.out("g@1")
        await client.xadd(out, {"type": "msg", "conn": c.conn, "n": "1", "text": "in clear"})
        await client.xadd(out, {"nonsense": "1"})
        await client.xadd(
            out, fields(Wire.from_secret("z" * 40).encode(Message(c.conn, 1, "other")))
        )
        await client.xadd(out, fields(WIRE.encode(Message(c.conn, 1, "snapshot"))))
        await client.xadd(out, fields(WIRE.encode(Message(c.conn, 2, "next"))))
        await received(relay, c.conn, 2)
        assert c.viewer.take() == ["snapshot", "next"] and c.viewer.closed is None
        await client.xadd(out, fields(WIRE.encode(Message(c.conn, 3, "third"))))
        await received(relay, c.conn, 3)
        async with asyncio.timeout(10):  # the next read trims up to what was read
            while await client.xlen(out) > 1:
                await asyncio.sleep(0.05)
        assert [f["type"] for _, f in await client.xrange(out)] == ["msg"]  # the last one
