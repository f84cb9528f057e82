"""The tables running in this process: starts one actor task per table, keeps the task
references, and restarts a table whose actor failed, from durable state, without disturbing
the others. A table that cannot be loaded (the database is down) is tried again with backoff
until it can; `restoring` says which are waiting (`/readyz` reports them).

A table runs in one actor, by construction: every start goes through `load`, which returns
the running table, or joins the load under way, and only otherwise launches one (`_start`
is the one place an actor is made, and refuses a second).

With several processes (`Ownership.shared`), a table runs where its lease is: a process takes
a table only when its lease is free (bumping the table's fencing epoch before loading it),
and drops a table whose lease or epoch it lost; its `LeaseKeeper` renews the leases and sweeps
for tables nobody holds (app/tables/leasing.py)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine
from typing import Any

from app.scale.lease import Ownership, SoleLeases
from app.tables.config import TableConfig
from app.tables.errors import TableError
from app.tables.leasing import LeaseKeeper
from app.tables.store_protocol import OwnershipLost, StoredTable, TableStore
from app.tables.table import Reload, Runtime, Table
from app.tables.viewer import CLOSE_RESTART

log = logging.getLogger("omaha.tables")

#: restarts allowed in a row before a table is left stopped (a bug that fails at once on load)
MAX_RESTARTS = 5
#: seconds between tries to load a table while the database is down: doubling up to the last
BACKOFF = (0.05, 5.0)


def invite_code() -> str:
    return secrets.token_urlsafe(16)


class Elsewhere(TableError):
    """The table is owned by another process."""

    def __init__(self) -> None:
        super().__init__("unavailable", "the table runs on another server; try again soon")


#: what the connections of a table this process lost are told (they reconnect and resume)
MOVED = "the table moved to another server: reconnect"


class TableRegistry:
    def __init__(
        self,
        store: TableStore,
        runtime: Runtime | None = None,
        deck_source: Callable[[], list[int]] | None = None,
        ownership: Ownership | None = None,
        *,
        lease: float = 10.0,
        renew: float = 2.0,
    ) -> None:
        self.store = store
        self.ownership: Ownership = ownership or SoleLeases()
        self.lease, self.renew = lease, renew
        self._keeper: asyncio.Task[None] | None = None
        #: called with a table's id once its lease is taken, before its epoch is (the relay
        #: reads the table's commands from there on)
        self.on_take: Callable[[str], Awaitable[None]] | None = None
        #: tables being taken and loaded right now
        self.launching: set[str] = set()
        #: stopping (`drain`): no table is taken any more
        self.draining = False
        #: shared: renews the leases, sweeps for tables nobody holds (app/tables/leasing.py)
        self.keeper = LeaseKeeper(self)
        self.runtime = runtime or Runtime()
        self.deck_source = deck_source
        self.tables: dict[str, Table] = {}
        #: told when a table's all-in hand ended (`Table.on_all_in`: the app's review)
        self.on_all_in: Callable[[str, str], None] | None = None
        #: tournament tables' directors (`Table.director`), by table
        self.directors: dict[str, Callable[[dict[str, Any]], None]] = {}
        #: the tournament tables this process may run: its directors' (shared, the others run
        #: where their director runs, and are taken with it: `adopt`)
        self.adoptable: set[str] = set()
        self.tasks: dict[str, asyncio.Task[None]] = {}
        self._restarts: dict[str, int] = {}
        self._background: set[asyncio.Task[None]] = set()
        self.closing = False
        #: stored open tables not running yet (restored lazily), and the loads under way
        self._stored: set[str] = set()
        self.loading: dict[str, asyncio.Future[Table]] = {}
        #: tables waiting to be loaded (the database did not answer); "*" while the list of
        #: tables itself could not be read
        self.restoring: set[str] = set()

    async def start(self) -> None:
        """Learn which tables are open and restore them in the background, so start-up (and
        /healthz) does not wait for 10,000 tables to load; a table asked for before its turn
        (`find`) is restored at once. Those with a hand in progress continue it. While the
        database is down, the list and each table are tried again with backoff."""
        if self.ownership.shared:
            self._keeper = asyncio.get_running_loop().create_task(self.keeper.run())
        try:
            async with asyncio.timeout(self.runtime.store_timeout):
                table_ids = await self.own_kind(await self.store.open_tables())
        except Exception as error:
            log.error("cannot list the stored tables (%s: is the database up and migrated?); "
                      "trying again", type(error).__name__)  # fmt: skip
            self.restoring.add("*")
            self._in_background(self._start_later())
            return
        self._begin(table_ids)

    async def own_kind(self, table_ids: list[str]) -> list[str]:
        """Shared, the tables a process takes by itself: not the tournaments' (their director
        takes them, `adopt`)."""
        if not self.ownership.shared:
            return table_ids
        followers = await self.store.tournament_tables()
        return [t for t in table_ids if t not in followers or t in self.adoptable]

    def _begin(self, table_ids: list[str]) -> None:
        self._stored.update(t for t in table_ids if t not in self.tables)
        self._in_background(self._restore_all(table_ids))

    async def _start_later(self) -> None:
        delay = BACKOFF[0]
        while not self.closing:
            await asyncio.sleep(delay)
            delay = min(BACKOFF[1], delay * 2)
            try:
                async with asyncio.timeout(self.runtime.store_timeout):
                    table_ids = await self.own_kind(await self.store.open_tables())
            except Exception:
                continue
            self.restoring.discard("*")
            self._begin(table_ids)
            return

    async def _restore_all(self, table_ids: list[str]) -> None:
        for table_id in table_ids:
            if table_id in self._stored and table_id not in self.restoring:
                try:
                    await self.load(table_id)
                except TableError:  # another process owns it (or it closed meanwhile)
                    self._stored.discard(table_id)
                except Exception as error:
                    self._retry(table_id, error)

    def _retry(self, table_id: str, error: BaseException) -> None:
        """A load failed (the database is down): try again in the background until it loads."""
        if table_id in self.restoring or self.closing:
            return
        log.error("table %s cannot be loaded now (%s); trying again",
                  table_id, type(error).__name__)  # fmt: skip
        self.restoring.add(table_id)
        self._in_background(self._restore(table_id))

    def _in_background(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.get_running_loop().create_task(work)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    async def find(self, table_id: str) -> Table:
        """The running table, restoring it first if it is stored open but not started yet."""
        table = self.tables.get(table_id)
        if table is not None:
            return table
        # Alone, every open table is known from the start; shared, another process may have
        # created it, or owned it until now: the lease says.
        if table_id not in self._stored and not self.ownership.shared:
            self.get(table_id)  # raises: unavailable while restoring, else no such table
        if table_id in self.restoring:
            raise TableError("unavailable", "the table is being restored; try again soon")
        if self.ownership.shared and table_id not in self.loading:
            holder = (await self.ownership.holders([table_id])).get(table_id)
            if holder is None:
                await self.keeper.look()
                if not self.keeper.vacant(holder):
                    raise TableError("unavailable", "the table is changing hands; try again soon")
        try:
            return await self.load(table_id)
        except TableError:
            raise
        except Exception as error:
            self._retry(table_id, error)
            raise TableError("unavailable", "the table is being restored; try again soon") from None

    async def load(self, table_id: str) -> Table:
        """The running table, else load it once, however many ask for it at the same time
        (a find, a sweep, a restore, an adoption, a create)."""
        running = self.tables.get(table_id)
        if running is not None:
            return running
        loading = self.loading.get(table_id)
        if loading is None:
            loading = asyncio.ensure_future(self._launch(table_id))
            self.loading[table_id] = loading

            def loaded(done: asyncio.Future[Table]) -> None:
                self.loading.pop(table_id, None)
                if not done.cancelled() and done.exception() is None:
                    self._stored.discard(table_id)
                    self.restoring.discard(table_id)

            loading.add_done_callback(loaded)
        return await asyncio.shield(loading)

    async def create(self, host_id: str, config: TableConfig) -> Table:
        if self.draining:
            raise Elsewhere()
        code = invite_code()
        # Its lease first: another process's sweep must not take a table being created.
        table_id = str(uuid.uuid4())
        if not await self.ownership.take(table_id):
            raise Elsewhere()
        if config.tournament:  # its director's: runs here, with it
            self.adoptable.add(table_id)
        async with self._readying(table_id, timeout=None):
            await self.store.create_table(host_id, config, code, table_id)
        # Created is taken (the store wrote it with this process's epoch): it runs from what
        # was just stored, with no load after the row exists. A load that timed out there
        # answered 500 for a table that then stayed stored and open, never running.
        return self._start(table_id, StoredTable(table_id, code, host_id, config))

    def get(self, table_id: str) -> Table:
        table = self.tables.get(table_id)
        if table is None:
            if table_id in self.restoring or "*" in self.restoring:
                raise TableError("unavailable", "the table is being restored; try again soon")
            raise TableError("no_such_table", "no such table")
        return table

    async def _launch(self, table_id: str) -> Table:
        """Take the table (its lease, then its epoch: the load sees every write the previous
        owner made, and none it makes later is stored) and run it. Only `load` calls it."""
        if self.draining:
            raise Elsewhere()
        if not await self.ownership.take(table_id):
            raise Elsewhere()
        if self.ownership.shared and table_id not in self.adoptable:
            try:
                follower = table_id in await self.store.tournament_tables()
            except BaseException:
                with contextlib.suppress(Exception):
                    await self.ownership.release(table_id)
                raise
            if follower:  # a tournament's table runs with its director, elsewhere or soon
                with contextlib.suppress(Exception):
                    await self.ownership.release(table_id)
                raise TableError("unavailable", "the table is being restored; try again soon")
        async with self._readying(table_id, timeout=self.runtime.store_timeout):
            await self.store.take_table(table_id)
            stored = await self.store.load_table(table_id)
        return self._start(table_id, stored)

    @contextlib.asynccontextmanager
    async def _readying(self, table_id: str, timeout: float | None) -> AsyncIterator[None]:
        """A table whose lease was just taken, readied (created or loaded) to run: taken, not
        running yet (`launching`: the relay keeps its cursor); the process's `on_take` first;
        on any failure what was taken is given back (its rows' cache, its lease)."""
        self.launching.add(table_id)
        try:
            async with asyncio.timeout(timeout):
                if self.on_take is not None:
                    await self.on_take(table_id)
                yield
        except BaseException:
            self.store.drop_table(table_id)
            with contextlib.suppress(Exception):
                await self.ownership.release(table_id)
            raise
        finally:
            self.launching.discard(table_id)

    def _start(self, table_id: str, stored: StoredTable) -> Table:
        """The one place a table's actor is made: never a second one beside a running one."""
        if table_id in self.tables:
            raise RuntimeError(f"table {table_id} runs already: a second actor is refused")
        table = Table(stored, self.store, self.runtime, self.deck_source)
        table.director = self.directors.get(table_id)  # a tournament's, after a restart too
        table.on_all_in = self.on_all_in
        task = asyncio.create_task(table.run(), name=f"table-{table_id}")
        self.tables[table_id] = table
        self.tasks[table_id] = task
        task.add_done_callback(lambda t: self._finished(table_id, table, t))
        return table

    def _finished(self, table_id: str, table: Table, task: asyncio.Task[None]) -> None:
        if self.closing or task.cancelled():
            return
        error = task.exception()
        if isinstance(error, OwnershipLost) and self.ownership.shared:
            log.warning("table %s: another process took it; dropped here", table_id)
            if self.tables.get(table_id) is table:
                self.lost(table_id)
            return
        if error is None and table.closed:  # the host closed it: its records stay stored
            if self.tables.get(table_id) is table:
                del self.tables[table_id]
                self.tasks.pop(table_id, None)
            return
        table.shutdown(CLOSE_RESTART, "the table restarted: reconnect")
        if self.tables.get(table_id) is table:
            del self.tables[table_id]
            self.tasks.pop(table_id, None)
        self._stored.add(table_id)
        if isinstance(error, Reload):  # not a failure: its memory was behind the store
            log.warning("table %s reloads from the database: %s", table_id, error)
            self.restoring.add(table_id)
            self._in_background(self._restore(table_id, 0.0))
            return
        log.error("table %s failed; restarting it from the database", table_id, exc_info=error)
        count = self._restarts.get(table_id, 0) + 1
        self._restarts[table_id] = count
        if count > MAX_RESTARTS:
            log.error("table %s failed %d times in a row; it stays stopped", table_id, count - 1)
            self._stored.discard(table_id)
            return
        self.restoring.add(table_id)
        self._in_background(self._restore(table_id, min(BACKOFF[1], BACKOFF[0] * 2**count)))
        # A table that then runs a while is healthy again.
        asyncio.get_running_loop().call_later(60.0, self._restarts.pop, table_id, None)

    async def _restore(self, table_id: str, delay: float = BACKOFF[0]) -> None:
        """Load the table until it loads: while the database is down, with backoff."""
        while not self.closing:
            await asyncio.sleep(delay)
            delay = min(BACKOFF[1], max(BACKOFF[0], delay * 2))
            if table_id in self.tables:
                break
            try:
                await self.load(table_id)
            except TableError:  # another process owns it now (or it closed)
                self._stored.discard(table_id)
                break
            except Exception as error:
                log.warning("table %s cannot be loaded yet (%s); trying again in %.1f s",
                            table_id, type(error).__name__, delay)  # fmt: skip
                continue
            break
        self.restoring.discard(table_id)

    # ------------------------------------------------------------------ ownership
    def fresh(self) -> bool:
        """Are this process's leases known to be its own (`LeaseKeeper.fresh`)?"""
        return self.keeper.fresh()

    def lost(self, table_id: str) -> None:
        """Another process took the table (its epoch, or its marker in the relay, says so):
        stop it here, and release the lease if it is still this process's."""
        self.drop(table_id)

        async def release() -> None:
            with contextlib.suppress(Exception):
                await self.ownership.release(table_id)

        if not self.closing:
            self._in_background(release())

    def drop(self, table_id: str) -> None:
        """Stop running a table another process owns now: its writes are refused from here
        on, its connections are told to reconnect (they resume where it runs now)."""
        self.store.drop_table(table_id)
        table = self.tables.pop(table_id, None)
        task = self.tasks.pop(table_id, None)
        if task is not None:
            task.cancel()
        if table is not None:
            table.shutdown(CLOSE_RESTART, MOVED)
        self._stored.discard(table_id)

    async def adopt(self, table_id: str) -> Table:
        """Take a table of a tournament whose director this process runs (or is taking)."""
        self.adoptable.add(table_id)
        table = self.tables.get(table_id)
        return table if table is not None else await self.load(table_id)

    async def hand_back(self, table_id: str) -> None:
        """Stop running a tournament's table and release it (its director went elsewhere)."""
        self.adoptable.discard(table_id)
        self.directors.pop(table_id, None)
        if table_id in self.tables:
            await self._hand_over(table_id)
        else:
            with contextlib.suppress(Exception):
                await self.ownership.release(table_id)

    async def drain(self, timeout: float) -> None:
        """Stopping, with other processes to take over: no table deals a new hand; each is
        handed over (stopped, its lease released, its connections told to reconnect) once
        its hand in play has ended, within `timeout`; the others' sweeps take them between
        hands. Alone, there is nobody to hand over to: nothing to wait for."""
        if not self.ownership.shared:
            return
        self.draining = True
        for table in self.tables.values():
            table.draining = True
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while self.tables and loop.time() < deadline:
            for table_id, table in list(self.tables.items()):
                # Between commands: a hand is complete once its last action is applied, while
                # that action's write (and the seats' settling) may still be under way.
                if not table.busy and (table.hand is None or table.hand.state.complete):
                    await self._hand_over(table_id)
            await asyncio.sleep(0.05)
        if self.tables:
            log.warning("%d tables still had a hand in play after %.0f s; stopping them",
                        len(self.tables), timeout)  # fmt: skip

    async def _hand_over(self, table_id: str) -> None:
        task = self.tasks.get(table_id)
        self.drop(table_id)
        if task is not None:
            await asyncio.gather(task, return_exceptions=True)
        with contextlib.suppress(Exception):
            await self.ownership.release(table_id)
        log.info("table %s handed over between hands", table_id)

    async def close(self) -> None:
        self.closing = True
        if self._keeper is not None:
            self._keeper.cancel()
            await asyncio.gather(self._keeper, return_exceptions=True)
        for waiting in self._background:  # restores sleeping between tries
            waiting.cancel()
        # The loads under way end first (each within the store's timeout), and their tables
        # stop below with the others. `load` shields a load from whoever awaits it: the
        # restores cancelled above left it running, and it started its table after this
        # close, writing on after the engine was disposed.
        await asyncio.gather(*self.loading.values(), return_exceptions=True)
        for table_id, task in list(self.tasks.items()):
            task.cancel()
            self.tables[table_id].shutdown()
        await asyncio.gather(*self.tasks.values(), *self._background, return_exceptions=True)
        # A table's store calls run in tasks of their own, not cancelled with it: they end
        # before the engine is disposed, else one returns its connection to the disposed
        # pool, where nothing closes it.
        calls = [call for table in self.tables.values() for call in table.in_flight]
        await asyncio.gather(*calls, return_exceptions=True)
        # Stopped: the others may take these tables at once, not after the lease.
        for table_id in list(self.tables):
            self.store.drop_table(table_id)
            with contextlib.suppress(Exception):
                await self.ownership.release(table_id)
        self.tasks.clear()
        self.tables.clear()
