"""The table's writes and reads of its store, each within a deadline; a late write stays
"in doubt" until the database answers. A write that fails raises `TableError("unavailable")`
and the caller changes nothing.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine
from typing import TYPE_CHECKING, Any, TypeVar

from app.tables.errors import TableError
from app.tables.seat import Seat
from app.tables.store import OwnershipLost, StoreInDoubt

if TYPE_CHECKING:
    pass


from app.tables.command import Command
from app.tables.state import TableState

log = logging.getLogger("omaha.tables")
T = TypeVar("T")


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


class Writes(TableState):
    async def _store(self, write: Coroutine[Any, Any, None], *, queued: bool = False) -> None:
        """Run one write of the store, within `store_timeout`. A refused, failed or late write
        raises `TableError("unavailable")`, and the caller changes nothing.

        A late write is cancelled; if the database already had it (a frozen server commits
        when it thaws) it stays "in doubt" until the database answers, and no other write is
        accepted meanwhile; if it turns out stored, the table reloads (`Reload`).

        `queued`: a write through the group writer (the hot path: every action and deal),
        which hands back its doubt itself (`StoreInDoubt`) when cancelled, so it runs here
        under a timeout; any other write runs in a task of its own, for a cancelled database
        call may hang (a rollback on a frozen connection) and the actor must not."""
        try:
            self._check_doubt()
        except BaseException:
            write.close()  # never started
            raise
        late = "the database did not answer in time; try again"
        if queued:
            try:
                async with asyncio.timeout(self.runtime.store_timeout):
                    await write
            except StoreInDoubt as doubt:
                if _stopping():  # cancelled from outside, not late: the actor stops here
                    raise asyncio.CancelledError from None
                self._set_doubt(doubt.outcome)
                raise TableError("unavailable", late) from None
            except OwnershipLost:  # another process took the table: this one stops
                raise
            except Exception as error:  # TimeoutError: withdrawn before it was sent
                self._write_failed(error)
                raise TableError("unavailable", "that could not be stored; try again") from None
            return
        task = self._in_flight(write)
        done, _ = await asyncio.wait((task,), timeout=self.runtime.store_timeout)
        if not done:
            task.cancel()
            self._set_doubt(task)
            raise TableError("unavailable", late)
        failure = task.exception()
        if isinstance(failure, OwnershipLost):
            raise failure
        if failure is not None:
            self._write_failed(failure)
            raise TableError("unavailable", "that could not be stored; try again")

    async def _read(self, query: Coroutine[Any, Any, T]) -> T:
        """A read of the store within `store_timeout`, else `unavailable` (never a hang)."""
        task = self._in_flight(query)
        done, _ = await asyncio.wait((task,), timeout=self.runtime.store_timeout)
        if not done:
            task.cancel()
        elif (failure := task.exception()) is None:
            return task.result()
        else:
            self._write_failed(failure)
        raise TableError("unavailable", "the database does not answer; try again")

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

    def _write_failed(self, error: BaseException) -> None:
        # Not `log.exception`: a database error quotes its parameters (a deck, say).
        log.error("table %s: a write failed (%s)", self.id, type(error).__name__)

    def _set_doubt(self, outcome: asyncio.Future[None]) -> None:
        log.error("table %s: the database did not answer a write within %.1f s",
                  self.id, self.runtime.store_timeout)  # fmt: skip
        self._doubt = outcome

        outcome.add_done_callback(lambda _: self.post(Command("doubt")))

    def _check_doubt(self) -> None:
        outcome = self._doubt
        if outcome is None:
            return
        if not outcome.done():
            raise TableError("unavailable", "waiting for the database; try again")
        self._doubt = None
        if outcome.cancelled():
            return  # withdrawn before it reached the database
        error = outcome.exception()
        if isinstance(error, StoreInDoubt):  # a task given up on: its write's own answer
            self._set_doubt(error.outcome)
            self._check_doubt()
        elif isinstance(error, OwnershipLost):
            raise error
        elif error is None:
            raise Reload(f"table {self.id}: a write given up on was stored")

    async def _on_doubt(self, c: Command) -> None:
        self._check_doubt()

    async def _save_table(self) -> None:
        await self._store(
            self.store.save_table(
                self.id,
                host_id=self.host_id,
                config=self.config,
                button=self.button,
                paused=self.paused,
                hand_number=self.hand_number,
                next_config=self.next_config,
                requests=[r.stored() for r in self.requests.values()],
            )
        )

    async def _save_seats(self, *seats: Seat) -> None:
        await self._store(self.store.update_seats(self.id, list(seats)))
