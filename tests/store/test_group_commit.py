"""Group commit (`app.store.group.GroupWriter`): writes pending at once share one
transaction; each caller returns only after its own write committed, and one bad write
refuses only its own table's write; each commit's size and duration are counted
(app/metrics.py, read by bench/load.py)."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

from app import metrics
from app.store.group import GroupWriter
from app.store.rows import ActionInsert, TableWrite


class Recording:
    """A back end that records each transaction's action counters; a negative counter is a
    write the database refuses. A transaction waits for `release` (when given)."""

    def __init__(self, release: asyncio.Event | None = None) -> None:
        self.transactions: list[list[int]] = []
        self.release = release
        self.started = asyncio.Event()

    async def commit(self, writes: list[TableWrite]) -> set[uuid.UUID]:
        self.started.set()
        if self.release is not None:
            await self.release.wait()
        counters = [w.action.counter for w in writes if w.action is not None]
        if any(c < 0 for c in counters):
            raise OSError("simulated constraint violation")
        self.transactions.append(counters)
        return set()

    def close(self) -> None:
        return None


def action(counter: int) -> TableWrite:
    table, hand = uuid.uuid4(), uuid.uuid4()
    row = ActionInsert(hand, counter, 0, "call", 2, None, table)
    return TableWrite(table, None, action=row)


async def test_pending_writes_share_a_transaction() -> None:
    release = asyncio.Event()
    back_end = Recording(release)
    group = GroupWriter(lambda: back_end, writers=1)
    first = asyncio.ensure_future(group.submit(action(100)))
    await back_end.started.wait()  # the writer is busy with it while the others queue
    rest = [asyncio.ensure_future(group.submit(action(n))) for n in range(10)]
    await asyncio.sleep(0)  # (each queued)
    sizes, commits = list(metrics.GROUP_WRITES.counts), sum(metrics.COMMITS.counts)
    release.set()
    await asyncio.gather(first, *rest)
    assert back_end.transactions == [[100], list(range(10))]  # the ten pending: one
    # Counted: a commit of one write and one of ten (the bucket of bound 12), both timed.
    bounds = metrics.GROUP_WRITES.bounds
    grown = [a - b for a, b in zip(metrics.GROUP_WRITES.counts, sizes, strict=True)]
    assert grown[bounds.index(1)] == 1 and grown[bounds.index(12)] == 1 and sum(grown) == 2
    assert sum(metrics.COMMITS.counts) == commits + 2
    await group.close()


async def test_a_bad_write_refuses_only_its_own_action() -> None:
    release = asyncio.Event()
    back_end = Recording(release)
    group = GroupWriter(lambda: back_end, writers=1)
    first = asyncio.ensure_future(group.submit(action(100)))
    await back_end.started.wait()
    pending = asyncio.gather(*(group.submit(action(n)) for n in (1, -1, 2)),
                             return_exceptions=True)  # fmt: skip
    await asyncio.sleep(0)
    release.set()
    await first
    results: list[Any] = await pending
    assert results[0] is None and results[2] is None
    assert isinstance(results[1], OSError)
    assert sorted(c for t in back_end.transactions for c in t) == [1, 2, 100]
    await group.close()
