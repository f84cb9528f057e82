"""Table leases in a real Redis: taken only when free (or already the taker's), renewed only
by their owner (compare-and-extend), released only by their owner (compare-and-delete),
and free again once they lapse."""

from __future__ import annotations

import asyncio

from app.scale.lease import Leases


async def test_a_lease_has_one_owner_until_it_lapses(redis_url: str) -> None:
    a = Leases.from_url(redis_url, "a", 0.3)
    b = Leases.from_url(redis_url, "b", 0.3)
    try:
        assert await a.take("t1")
        assert not await b.take("t1")
        assert await a.take("t1")  # its own: a restarted process under the same name
        assert await b.owners(["t1", "t2"]) == {"t1": "a", "t2": None}
        assert await b.renew(["t1"]) == set()  # not b's: untouched
        await b.release("t1")
        assert await a.owners(["t1"]) == {"t1": "a"}
        for _ in range(3):  # renewed past its lease time: still a's
            await asyncio.sleep(0.15)
            assert await a.renew(["t1", "t2"]) == {"t1"}
        assert not await b.take("t1")
        await asyncio.sleep(0.4)  # a stops renewing (dead or frozen): it lapses
        assert await a.owners(["t1"]) == {"t1": None}
        assert await b.take("t1")
        assert await a.renew(["t1"]) == set()  # a, awake again, learns it lost it
        await a.release("t1")
        assert await a.owners(["t1"]) == {"t1": "b"}
        await b.release("t1")
        assert await a.owners(["t1"]) == {"t1": None}
    finally:
        await a.close()
        await b.close()
