"""Two registries (two processes) on one PostgreSQL and one Redis: a table runs where its
lease is; an owner that stops renewing (frozen) loses it to the other's sweep, its next write
is refused by the epoch and it drops the table; the other continues the hand at the same
counter, and the database holds no action of the stale owner after the takeover."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import pytest
from sqlalchemy import select

from app.scale.lease import Leases
from app.store.models import HandActionRow
from app.tables.config import TableConfig
from app.tables.errors import TableError
from app.tables.registry import TableRegistry
from tests.store.test_fencing import two_processes
from tests.tables.harness import FAST
from tests.tables.stores import MemoryTableStore
from tests.waits import within

LEASE, RENEW = 0.6, 0.1


@asynccontextmanager
async def registry(
    store: object, redis_url: str, name: str, lease: float = LEASE
) -> AsyncIterator[TableRegistry]:
    leases = Leases.from_url(redis_url, name, lease)
    tables = TableRegistry(store, FAST, ownership=leases, lease=lease, renew=RENEW)  # type: ignore[arg-type]
    try:
        yield tables
    finally:
        await tables.close()
        await leases.close()


async def test_a_frozen_owner_loses_its_table_and_writes_nothing_after(
    postgres_url: str, redis_url: str
) -> None:
    long = 60.0  # no lease lapses by itself in the test: a's lapses when the test says
    async with (
        two_processes(postgres_url) as (first, second),
        registry(first, redis_url, "a", long) as a,
        registry(second, redis_url, "b", long) as b,
    ):
        host, guest = await first.make_players(2)
        table = await a.create(host, TableConfig(seats=2, decision_time=0))
        with pytest.raises(TableError) as elsewhere:
            await b.find(table.id)  # a's, while its lease holds
        assert elsewhere.value.code == "unavailable"
        await table.request("sit", host, seat=0, buy_in=100, name="host")
        await table.request("sit", guest, seat=1, buy_in=100, name="guest")
        await within(lambda: table.hand is not None and table.hand.state.actor is not None)
        hand = table.hand
        assert hand is not None
        await table.request("act", hand.players[hand.state.actor or 0], hand=hand.id,
                            counter=0, action="call")  # fmt: skip
        # b renews and sweeps from now on; a does neither: it stands for a frozen process,
        # whose lease lapses (expires in Redis) now rather than after a wall-clock wait
        # that a loaded machine could outlast before the hand above was under way.
        await b.start()
        leases = a.ownership
        assert isinstance(leases, Leases)
        assert await leases.client.pexpire(leases.key(table.id), 1)

        # b's sweep takes the lapsed lease at its next round.
        await within(lambda: table.id in b.tables)
        moved = b.tables[table.id]
        assert moved.hand is not None and moved.hand.id == hand.id and moved.hand.counter == 1

        # a wakes up and writes: refused by the epoch; a drops the table, answering no `ok`.
        actor = hand.players[hand.state.actor or 0]
        with pytest.raises(TableError) as refused:
            await table.request("act", actor, hand=hand.id, counter=1, action="check")
        assert refused.value.code == "unavailable"
        await within(lambda: table.id not in a.tables)

        await moved.request("act", actor, hand=hand.id, counter=1, action="check")
        async with second.sessions() as s:
            rows = list(
                await s.scalars(
                    select(HandActionRow.counter).where(HandActionRow.hand_id == uuid.UUID(hand.id))
                )
            )
        assert sorted(rows) == [0, 1]  # the stale owner's check is not among them
        assert await second.ledger_balance(table.id) == await second.stacks_total(table.id)


async def test_a_stopping_process_releases_its_tables_to_the_others(
    postgres_url: str, redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    long = 60.0  # a lease that cannot lapse within the test: what b takes was released
    async with (
        two_processes(postgres_url) as (first, second),
        registry(second, redis_url, "b", long) as b,
    ):
        host, _ = await first.make_players(2)
        async with registry(first, redis_url, "a", long) as a:
            await a.start()
            table = await a.create(host, TableConfig(seats=2))
            sweeps: list[float | None] = []
            sweep = b.keeper.sweep

            async def counted() -> None:
                await sweep()
                sweeps.append(a.keeper.renewed)

            monkeypatch.setattr(b.keeper, "sweep", counted)
            await b.start()
            # b's sweeps see the table, a renewing it between them (counted, not timed: a
            # loaded machine runs fewer of either in a given time)
            await within(lambda: len(set(sweeps)) >= 3, what="three sweeps of b, a renewing")
            assert table.id in a.tables and table.id not in b.tables  # renewed: still a's
        # a closed: its lease is released (not absent: taken at once, not after a look's
        # wait), so b takes the table at a sweep, long before the lease would have lapsed.
        assert (await b.ownership.holders([table.id]))[table.id] in ("", "b")
        await within(lambda: table.id in b.tables, long / 4)


async def test_a_stopping_process_hands_a_table_over_after_its_hand_s_last_write(
    redis_url: str,
) -> None:
    """A hand is complete once its last action is applied, while the action's write is still
    in the database's hands: a drain that handed the table over then cut the write, and the
    player who acted got an error for an action that was stored."""
    store = MemoryTableStore()
    async with registry(store, redis_url, "a") as a:
        table = await a.create("host", TableConfig(seats=2, decision_time=0))
        await table.request("sit", "host", seat=0, buy_in=100, name="host")
        await table.request("sit", "guest", seat=1, buy_in=100, name="guest")
        await within(lambda: table.hand is not None and table.hand.state.actor is not None)
        hand = table.hand
        assert hand is not None and hand.state.actor is not None
        store.frozen = asyncio.Event()  # the fold's write waits for the database
        actor = hand.players[hand.state.actor]
        folding = asyncio.create_task(
            table.request("act", actor, hand=hand.id, counter=0, action="fold")
        )
        await within(lambda: hand.state.complete)
        draining = asyncio.create_task(a.drain(10))
        for _ in range(20):  # the drain looks at its tables (every 50 ms: one look at least)
            await asyncio.sleep(0)
        assert table.id in a.tables and not folding.done()  # not handed over mid-write
        store.frozen.set()
        assert (await folding) == {"applied": 0}
        await asyncio.wait_for(draining, 5)
        assert table.id not in a.tables and not store.tables[table.id].hand
