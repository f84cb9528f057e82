"""Table stores for actor tests: the real SQL store on a migrated database, with helpers."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from app.store.db import create_engine, session_factory
from app.store.migrate import upgrade_connection
from app.store.models import Player
from app.store.tables import SqlTableStore
from app.tables.hand import Hand
from app.tables.table import Runtime, Table

#: store tests' tables: no clock, no away grace, no next hand until a test asks for one
FAST = Runtime(
    between_hands=3600, clock_enabled=False, away_grace=3600, bot_think=0.0, deal_unwatched=True
)


class TestStore(SqlTableStore):
    async def make_players(self, count: int) -> list[str]:
        ids = [uuid.uuid4() for _ in range(count)]
        async with self.sessions.begin() as s:
            for i, pid in enumerate(ids):
                s.add(Player(id=pid, display_name=f"p{i}", session_token_hash=uuid.uuid4().hex))
        return [str(p) for p in ids]

    async def balance(self, table_id: str) -> int:
        return await self.ledger_balance(table_id)


@asynccontextmanager
async def sql_store(url: str) -> AsyncIterator[TestStore]:
    engine = create_engine(url)
    async with engine.begin() as connection:
        await connection.run_sync(upgrade_connection)
    store = TestStore(session_factory(engine))
    try:
        yield store
    finally:
        await store.close()
        await engine.dispose()


@asynccontextmanager
async def running(table: Table) -> AsyncIterator[Table]:
    """The table's actor running for the block, then shut down and stopped."""
    task = asyncio.create_task(table.run())
    try:
        yield table
    finally:
        table.shutdown()
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)


async def dealt(table: Table) -> Hand | None:
    """The table's hand, once it has dealt what it was to deal."""
    await table.quiet()
    return table.hand
