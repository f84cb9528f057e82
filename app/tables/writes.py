"""The actor's side of `effects.Write` and `effects.Read`: each within a deadline on the
table clock; a late write stays "in doubt" until the database answers. A write that fails
raises `TableError("unavailable")` (the machine then puts itself back as it was).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

from app.tables.errors import TableError
from app.tables.ops import ReadOp, StoreOp
from app.tables.store_protocol import OwnershipLost, StoreInDoubt, TableStore
from app.tables.timers import Clock

log = logging.getLogger("omaha.tables")
T = TypeVar("T")
LATE = "the database did not answer in time; try again"


class Reload(Exception):
    """A write the table gave up on (its deadline passed) was stored after all: the table's
    memory is behind the store, so the registry restarts it from the store."""


def _stopping() -> bool:
    """Is the running task asked to stop (a hand-over, a shutdown)? A write given up on hands
    its doubt back as `StoreInDoubt`, not `CancelledError`; taken for a late answer, the
    cancellation was lost and the actor lived on (a drain waited for it to its bound). The
    write stays the database's: committed before the next owner's take, or fenced off."""
    task = asyncio.current_task()
    return task is not None and task.cancelling() > 0


class Writes:
    """One table's writes and reads of its store."""

    def __init__(
        self,
        store: TableStore,
        table_id: str,
        timeout: float,
        clock: Clock,
        on_doubt: Callable[[], None],
    ) -> None:
        self.store, self.table_id, self.timeout, self.clock = store, table_id, timeout, clock
        #: a write whose deadline passed while the database still had it (see `write`)
        self.doubt: asyncio.Future[None] | None = None
        #: the store's calls running in tasks of their own not done yet: a stopping table
        #: leaves them to finish, and its registry waits for them
        self.in_flight: set[asyncio.Future[Any]] = set()
        self._on_doubt = on_doubt  # posts to the actor: the doubt can be settled

    async def write(self, op: StoreOp) -> None:
        """Run one write of the store, within the store's timeout. A refused, failed or late
        write raises `TableError("unavailable")`.

        A late write is cancelled; if the database already had it (a frozen server commits
        when it thaws) it stays "in doubt" until the database answers, and no other write is
        accepted meanwhile; if it turns out stored, the table reloads (`Reload`).

        A queued write goes through the group writer (the hot path: every action and deal),
        which hands back its doubt itself (`StoreInDoubt`) when cancelled, so it runs here
        under a timeout; any other write runs in a task of its own, for a cancelled database
        call may hang (a rollback on a frozen connection) and the actor must not."""
        self.check_doubt()
        write = op.call(self.store, self.table_id)
        if op.queued:
            try:
                async with self.clock.timeout(self.timeout):
                    await write
            except StoreInDoubt as doubt:
                if _stopping():  # cancelled from outside, not late: the actor stops here
                    raise asyncio.CancelledError from None
                self._set_doubt(doubt.outcome)
                raise TableError("unavailable", LATE) from None
            except OwnershipLost:  # another process took the table: this one stops
                raise
            except Exception as error:  # TimeoutError: withdrawn before it was sent
                self._failed(error)
                raise TableError("unavailable", "that could not be stored; try again") from None
            return
        task = self._in_flight(write)
        if not await self._within(task):
            task.cancel()
            self._set_doubt(task)
            raise TableError("unavailable", LATE)
        failure = task.exception()
        if isinstance(failure, OwnershipLost):
            raise failure
        if failure is not None:
            self._failed(failure)
            raise TableError("unavailable", "that could not be stored; try again")

    def background(self, op: StoreOp) -> None:
        """Run a write nobody waits for (an `effects.Note`): in `in_flight` until it is
        done, as any other (a stopping table leaves it to finish); a failure is logged,
        nothing else (it leaves no doubt: the table's state is not in it)."""
        task = self._in_flight(op.call(self.store, self.table_id))
        task.add_done_callback(self._noted)

    def _noted(self, task: asyncio.Future[Any]) -> None:
        if not task.cancelled() and (error := task.exception()) is not None:
            log.error("table %s: a note was not stored (%s)", self.table_id, type(error).__name__)

    async def read(self, op: ReadOp) -> Any:
        """A read of the store within the timeout, else `unavailable` (never a hang)."""
        task = self._in_flight(op.call(self.store, self.table_id))
        if not await self._within(task):
            task.cancel()
        elif (failure := task.exception()) is None:
            return task.result()
        else:
            self._failed(failure)
        raise TableError("unavailable", "the database does not answer; try again")

    async def _within(self, task: asyncio.Future[Any]) -> bool:
        """Whether `task` is done within the store's timeout (it is never cancelled here)."""
        try:
            async with self.clock.timeout(self.timeout):
                await asyncio.wait((task,))
        except TimeoutError:
            pass
        return task.done()

    def _in_flight(self, call: Coroutine[Any, Any, T]) -> asyncio.Future[T]:
        """`call` in a task of its own, kept in `in_flight` until it is done."""
        task = asyncio.ensure_future(call)
        self.in_flight.add(task)
        task.add_done_callback(self._landed)
        return task

    def _landed(self, task: asyncio.Future[Any]) -> None:
        self.in_flight.discard(task)
        if not task.cancelled():
            task.exception()  # retrieved: a table dropped meanwhile never looks at it

    def _failed(self, error: BaseException) -> None:
        # Not `log.exception`: a database error quotes its parameters (a deck, say).
        log.error("table %s: a write failed (%s)", self.table_id, type(error).__name__)

    def _set_doubt(self, outcome: asyncio.Future[None]) -> None:
        log.error("table %s: the database did not answer a write within %.1f s",
                  self.table_id, self.timeout)  # fmt: skip
        self.doubt = outcome
        outcome.add_done_callback(lambda _: self._on_doubt())

    def check_doubt(self) -> None:
        """Refuse while a late write's outcome is unknown; reload if it turned out stored."""
        outcome = self.doubt
        if outcome is None:
            return
        if not outcome.done():
            raise TableError("unavailable", "waiting for the database; try again")
        self.doubt = None
        if outcome.cancelled():
            return  # withdrawn before it reached the database
        error = outcome.exception()
        if isinstance(error, StoreInDoubt):  # a task given up on: its write's own answer
            self._set_doubt(error.outcome)
            self.check_doubt()
        elif isinstance(error, OwnershipLost):
            raise error
        elif error is None:
            raise Reload(f"table {self.table_id}: a write given up on was stored")

    def cancel(self) -> None:
        if self.doubt is not None:
            self.doubt.cancel()
