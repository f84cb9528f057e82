"""Group commit: the hot path's writes (deals, actions, top-ups) of every table pending at
the same moment share one transaction, and each caller still returns only once its own
write has committed.

A write waits in a queue that a few writer tasks drain, each committing everything pending
(up to `batch` tables' writes) in one transaction through its own back end
(`app.store.group_sql`). A table has at most one write pending (its actor awaits it), so
its order is kept. One bad write must not refuse the others: a group that fails is retried
one write at a time.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from app import metrics
from app.store.rows import TableWrite
from app.tables.store_protocol import OwnershipLost, StoreInDoubt

#: transactions writing at once. Two, not four: fewer, larger transactions cost less CPU per
#: action, and one commit on loopback takes ~1 ms, so two writers keep up with 500 tables
#: (bench/load.py)
WRITERS = 2
#: tables' writes one transaction carries at most
BATCH = 256


class Committer(Protocol):
    """A writer's back end: commits a group in one transaction and returns the tables whose
    epoch moved on (nothing of theirs was written)."""

    async def commit(self, writes: list[TableWrite]) -> set[uuid.UUID]: ...

    def close(self) -> None: ...


@dataclass(eq=False)
class Pending:
    """A write waiting for its commit."""

    write: TableWrite
    done: asyncio.Future[None]
    #: handed to the database (its outcome is the database's now), or withdrawn before that
    sent: bool = False
    withdrawn: bool = False
    #: the database's answer, for a caller that gave up waiting after the write was sent
    outcome: asyncio.Future[None] | None = None

    def settle(self, error: Exception | None) -> None:
        for future in (self.outcome, self.done):
            if future is None or future.done():  # its actor gave up on it (or was cancelled)
                continue
            if error is None:
                future.set_result(None)
            else:
                future.set_exception(error)

    def settle_fenced(self, refused: set[uuid.UUID]) -> None:
        table_id = self.write.table_id
        self.settle(OwnershipLost(str(table_id)) if table_id in refused else None)


class GroupWriter:
    """The queue and its writer tasks (started on first use, on the running loop); each
    writer has its own back end, made by `committer`."""

    def __init__(
        self, committer: Callable[[], Committer], writers: int | None = None, batch: int = BATCH
    ) -> None:
        self.committer, self.writers, self.batch = committer, writers, batch
        self._queue: asyncio.Queue[Pending] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._tasks: list[asyncio.Task[None]] = []

    async def submit(self, write: TableWrite) -> None:
        """Queue the write and wait for its commit. Cancelled (the actor gave up waiting)
        before a writer took it, it is withdrawn: certainly never stored. Cancelled after, it
        raises `StoreInDoubt` with the future of the database's answer."""
        loop = asyncio.get_running_loop()
        item = Pending(write, loop.create_future())
        self._queue_of(loop).put_nowait(item)
        start = time.perf_counter()
        try:
            await item.done
        except asyncio.CancelledError:
            if not item.sent:
                item.withdrawn = True
                raise
            item.outcome = loop.create_future()
            raise StoreInDoubt(item.outcome) from None
        metrics.WRITES.observe(time.perf_counter() - start)

    def _queue_of(self, loop: asyncio.AbstractEventLoop) -> asyncio.Queue[Pending]:
        if self._queue is None or self._loop is not loop:
            queue: asyncio.Queue[Pending] = asyncio.Queue()
            self._queue, self._loop = queue, loop
            writers = self.writers or WRITERS
            self._tasks = [loop.create_task(self._drain(queue)) for _ in range(writers)]
        return self._queue

    async def close(self) -> None:
        """Stop the writers and close their back ends (pending writes are refused)."""
        tasks, self._tasks, self._queue = self._tasks, [], None
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.wait(tasks)

    async def _drain(self, queue: asyncio.Queue[Pending]) -> None:
        back_end = self.committer()
        try:
            while True:
                group = [await queue.get()]
                while len(group) < self.batch and not queue.empty():
                    group.append(queue.get_nowait())
                group = [item for item in group if not item.withdrawn]
                if group:
                    await self._commit(back_end, group)
        finally:
            back_end.close()
            while not queue.empty():
                queue.get_nowait().settle(ConnectionError("the store is closing"))

    @staticmethod
    async def _commit(back_end: Committer, group: list[Pending]) -> None:
        for item in group:
            item.sent = True
        try:
            refused = await _timed(back_end, [item.write for item in group])
        except Exception as error:
            if len(group) == 1:
                group[0].settle(error)
                return
            for item in group:  # each on its own
                try:
                    refused = await _timed(back_end, [item.write])
                except Exception as own:
                    item.settle(own)
                else:
                    item.settle_fenced(refused)
        else:
            for item in group:
                item.settle_fenced(refused)


async def _timed(back_end: Committer, writes: list[TableWrite]) -> set[uuid.UUID]:
    """`back_end.commit`, its size and duration counted (app/metrics.py)."""
    start = time.perf_counter()
    refused = await back_end.commit(writes)
    metrics.COMMITS.observe(time.perf_counter() - start)
    metrics.GROUP_WRITES.observe(len(writes))
    return refused
