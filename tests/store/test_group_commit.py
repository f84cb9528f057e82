"""Group commit of actions (`SqlTableStore.record_action`): appends pending at once share one
transaction; each caller returns only after its own append committed, and one bad append
refuses only its own table's action."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import pytest

from app.store import tables as store_tables
from app.store.tables import SqlTableStore, _Write


class Recording(SqlTableStore):
    def __init__(self) -> None:
        self.engine = None  # type: ignore[assignment]
        self._appends = None
        self._appends_loop = None
        self._writers = []
        self._asyncpg = False
        self._dsn = ""
        self.transactions: list[list[int]] = []

    async def _commit_appends(self, batch: list[_Write], link: object = None) -> set[uuid.UUID]:
        await asyncio.sleep(0.01)
        counters = [item.action["counter"] for item in batch if item.action is not None]
        if any(c < 0 for c in counters):
            raise OSError("simulated constraint violation")
        self.transactions.append(counters)
        return set()


async def append(store: Recording, counter: int) -> None:
    loop = asyncio.get_running_loop()
    item = _Write(loop.create_future(), uuid.uuid4(), None, action={"counter": counter})
    store._append_queue(loop).put_nowait(item)
    await item.done


async def test_pending_appends_share_a_transaction(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(store_tables, "APPEND_WRITERS", 1)
    store = Recording()
    await asyncio.gather(*(append(store, n) for n in range(10)))
    assert sorted(c for t in store.transactions for c in t) == list(range(10))
    assert len(store.transactions) < 10  # batched: fewer transactions than actions


async def test_a_bad_append_refuses_only_its_own_action(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(store_tables, "APPEND_WRITERS", 1)
    store = Recording()
    await append(store, 100)  # the writer is busy with this one while the next ones queue
    results: list[Any] = await asyncio.gather(
        *(append(store, n) for n in (1, -1, 2)), return_exceptions=True
    )
    assert results[0] is None and results[2] is None
    assert isinstance(results[1], OSError)
    committed = sorted(c for t in store.transactions for c in t)
    assert committed == [1, 2, 100]
