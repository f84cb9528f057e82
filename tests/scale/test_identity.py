"""A process's claim on its PROCESS_NAME (app/scale/identity.py), in a real Redis: a name held
by a live process is refused at once when that process runs on this machine, and after one
lease of renewals when it runs elsewhere; an ended holder's name is taken at once (a restart)
and its incarnation returned, to be declared gone; a lapsed claim is free."""

from __future__ import annotations

import asyncio
import subprocess
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import replace

import pytest
import redis.asyncio as aioredis

from app.scale.identity import Holder, NameClaim, NameTaken, _started, name_of, new_incarnation

MS = 300


@asynccontextmanager
async def client(redis_url: str) -> AsyncIterator[aioredis.Redis]:
    redis = aioredis.Redis.from_url(redis_url, decode_responses=True)
    try:
        yield redis
    finally:
        await redis.aclose()


@contextmanager
def another_process() -> Iterator[subprocess.Popen[bytes]]:
    child = subprocess.Popen(["sleep", "60"])
    try:
        yield child
    finally:
        child.kill()
        child.wait()


def holder_of(pid: int, incarnation: str) -> Holder:
    here = Holder.here(incarnation)
    return replace(here, pid=pid, started=_started(pid) or 0)


def test_an_incarnation_is_its_name_and_a_random_part() -> None:
    first, second = new_incarnation("app2"), new_incarnation("app2")
    assert first != second and name_of(first) == name_of(second) == "app2"


async def test_a_live_holder_on_this_machine_is_refused_at_once_an_ended_one_taken(
    redis_url: str,
) -> None:
    async with client(redis_url) as redis:
        with another_process() as child:
            first = NameClaim(redis, "a", holder_of(child.pid, "a@1"), MS)
            assert await first.take() is None and await first.keep()
            second = NameClaim(redis, "a", Holder.here("a@2"), MS)
            with pytest.raises(NameTaken, match="PROCESS_NAME"):
                await asyncio.wait_for(second.take(), 1)  # no waiting for a lease: it runs
        # The holder's process ended (killed, out of memory): a restart takes the name at
        # once and learns whose it was; the ended one's renewal finds it taken.
        assert await asyncio.wait_for(second.take(), 1) == "a@1"
        assert not await first.keep()
        assert await second.keep()


async def test_a_holder_elsewhere_is_refused_while_it_renews_and_free_once_it_lapses(
    redis_url: str,
) -> None:
    async with client(redis_url) as redis:
        elsewhere = replace(Holder.here("a@1"), host="another-host")
        first = NameClaim(redis, "a", elsewhere, MS)
        assert await first.take() is None

        async def renewing() -> None:
            while True:
                await first.keep()
                await asyncio.sleep(MS / 4000)

        keeper = asyncio.create_task(renewing())
        try:
            second = NameClaim(redis, "a", Holder.here("a@2"), MS)
            with pytest.raises(NameTaken):
                await asyncio.wait_for(second.take(poll=0.02), 5)
        finally:
            keeper.cancel()
        # It stops renewing (dead, frozen, or a lost network): the claim lapses, the name
        # is free, and nothing ended here that could be declared gone.
        assert await asyncio.wait_for(second.take(poll=0.02), 5) is None
        assert not await first.keep()
        await second.release()
        assert await first.keep()  # released: free for whoever comes
