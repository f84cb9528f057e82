"""Table leases in a real Redis: taken only when free (or already the taker's incarnation's),
renewed only by their owner (compare-and-extend; an absent one, which a Redis restart lost, is
taken back), released only by their owner (compare-and-set to '': released, and not taken
back), and free again once they lapse; a table's take adds its `Taken` marker to its in
stream in the same step."""

from __future__ import annotations

import asyncio

from app.scale.lease import Leases


async def test_a_lease_has_one_owner_until_it_lapses(redis_url: str) -> None:
    a = Leases.from_url(redis_url, "a", 0.3)
    b = Leases.from_url(redis_url, "b", 0.3)
    try:
        assert await a.take("t1")
        assert not await b.take("t1")
        assert await a.take("t1")  # its own (the same incarnation: a load after a create)
        assert await b.owners(["t1", "t2"]) == {"t1": "a", "t2": None}
        assert await b.renew(["t1"]) == set()  # not b's: untouched
        await b.release("t1")
        assert await a.owners(["t1"]) == {"t1": "a"}
        for _ in range(3):  # renewed past its lease time: still a's
            await asyncio.sleep(0.15)
            assert await a.renew(["t1"]) == {"t1"}
        # absent (Redis restarted): its owner's renewal takes it back; a released lease is
        # free for the others at once (`holders` tells the two apart) and not taken back
        assert await a.renew(["t1", "t2"]) == {"t1", "t2"}
        await a.release("t2")
        assert await b.holders(["t2", "t3"]) == {"t2": "", "t3": None}
        assert await b.owners(["t2"]) == {"t2": None}
        assert await a.renew(["t2"]) == set()
        assert await b.take("t2")
        assert (await b.client.xrange("omaha:table:t2:in"))[-1][1] == {
            "type": "taken",
            "owner": "b",
        }
        assert b.marks["t2"] == (await b.client.xrange("omaha:table:t2:in"))[-1][0]
        # which run of Redis holds them: the same for all, until it restarts
        assert await a.generation() == await b.generation() != ""
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
