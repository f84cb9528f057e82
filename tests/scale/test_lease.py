"""Table leases in a real Redis: taken only when free (or already the taker's incarnation's),
renewed only by their owner (compare-and-extend; an absent one, which a Redis restart lost, is
taken back), released only by their owner (compare-and-set to '': released, and not taken
back), and free again once they lapse; a table's take adds its `Taken` marker to its in
stream in the same step."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable
from typing import cast

from app.scale.lease import Leases

#: a lease no test step outlasts, however loaded the machine: who holds one is never a race
LONG = 60.0
#: a lease the test lets lapse (it sleeps past it: a lower bound, more time changes nothing)
SHORT = 0.3


async def test_a_lease_has_one_owner_until_it_lapses(redis_url: str) -> None:
    a = Leases.from_url(redis_url, "a", LONG)
    b = Leases.from_url(redis_url, "b", LONG)
    brief = Leases.from_url(redis_url, "a", SHORT)  # the same incarnation, on a short lease
    try:
        assert await a.take("t1")
        assert not await b.take("t1")
        assert await a.take("t1")  # its own (the same incarnation: a load after a create)
        assert await b.owners(["t1", "t2"]) == {"t1": "a", "t2": None}
        assert await b.renew(["t1"]) == set()  # not b's: untouched
        await b.release("t1")
        assert await a.owners(["t1"]) == {"t1": "a"}
        # renewed past its lease time: each renewal sets its expiry a lease time from then
        assert await brief.take("t9")
        for _ in range(3):
            await asyncio.sleep(SHORT / 2)
            asked = time.time()
            assert await brief.renew(["t9"]) == {"t9"}
            expires = await cast(Awaitable[int], brief.client.pexpiretime(brief.key("t9")))
            assert expires >= int(asked * 1000) + brief.ms - 1, (expires, asked)
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
        assert await brief.renew(["t1"]) == {"t1"}  # now on the short lease, then not renewed
        await asyncio.sleep(SHORT + 0.1)  # a stops renewing (dead or frozen): it lapses
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
        await brief.close()
