"""The tables running in this process: starts one actor task per table, keeps the task
references, and restarts a table whose actor failed, from durable state, without disturbing
the others."""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections.abc import Callable

from app.tables.config import TableConfig
from app.tables.errors import TableError
from app.tables.store import TableStore
from app.tables.table import Runtime, Table, shuffled_deck
from app.tables.viewer import CLOSE_RESTART

log = logging.getLogger("omaha.tables")

#: restarts allowed in a row before a table is left stopped (a bug that fails at once on load)
MAX_RESTARTS = 5


def invite_code() -> str:
    return secrets.token_urlsafe(16)


class TableRegistry:
    def __init__(
        self,
        store: TableStore,
        runtime: Runtime | None = None,
        deck_source: Callable[[], list[int]] = shuffled_deck,
    ) -> None:
        self.store = store
        self.runtime = runtime or Runtime()
        self.deck_source = deck_source
        self.tables: dict[str, Table] = {}
        self.tasks: dict[str, asyncio.Task[None]] = {}
        self._restarts: dict[str, int] = {}
        self._background: set[asyncio.Task[None]] = set()
        self._closing = False
        #: stored open tables not started yet (restored lazily), and the loads under way
        self._stored: set[str] = set()
        self._loading: dict[str, asyncio.Future[Table]] = {}

    async def start(self) -> None:
        """Learn which tables are open and restore them in the background, so start-up (and
        /healthz) does not wait for 10,000 tables to load; a table asked for before its turn
        (`find`) is restored at once. Those with a hand in progress continue it."""
        try:
            table_ids = await self.store.open_tables()
        except Exception:
            log.exception("cannot list the stored tables (is the database migrated?)")
            return
        self._stored = set(table_ids)
        restore = asyncio.get_running_loop().create_task(self._restore_all(table_ids))
        self._background.add(restore)
        restore.add_done_callback(self._background.discard)

    async def _restore_all(self, table_ids: list[str]) -> None:
        for table_id in table_ids:
            if table_id in self._stored:
                try:
                    await self.find(table_id)
                except Exception:
                    log.exception("table %s cannot be restored; it stays stopped", table_id)

    async def find(self, table_id: str) -> Table:
        """The running table, restoring it first if it is stored open but not started yet."""
        table = self.tables.get(table_id)
        if table is not None:
            return table
        loading = self._loading.get(table_id)
        if loading is None:
            if table_id not in self._stored:
                raise TableError("no_such_table", "no such table")
            loading = asyncio.ensure_future(self._launch(table_id))
            self._loading[table_id] = loading

            def loaded(_: asyncio.Future[Table]) -> None:
                self._loading.pop(table_id, None)
                self._stored.discard(table_id)

            loading.add_done_callback(loaded)
        return await asyncio.shield(loading)

    async def create(self, host_id: str, config: TableConfig) -> Table:
        code = invite_code()
        table_id = await self.store.create_table(host_id, config, code)
        return await self._launch(table_id)

    def get(self, table_id: str) -> Table:
        table = self.tables.get(table_id)
        if table is None:
            raise TableError("no_such_table", "no such table")
        return table

    async def _launch(self, table_id: str) -> Table:
        stored = await self.store.load_table(table_id)
        table = Table(stored, self.store, self.runtime, self.deck_source)
        task = asyncio.create_task(table.run(), name=f"table-{table_id}")
        self.tables[table_id] = table
        self.tasks[table_id] = task
        task.add_done_callback(lambda t: self._finished(table_id, table, t))
        return table

    def _finished(self, table_id: str, table: Table, task: asyncio.Task[None]) -> None:
        if self._closing or task.cancelled():
            return
        error = task.exception()
        if error is None and table.closed:  # the host closed it: its records stay stored
            if self.tables.get(table_id) is table:
                del self.tables[table_id]
                self.tasks.pop(table_id, None)
            return
        log.error("table %s failed; restarting it from the database", table_id, exc_info=error)
        table.shutdown(CLOSE_RESTART, "the table restarted: reconnect")
        if self.tables.get(table_id) is table:
            del self.tables[table_id]
            self.tasks.pop(table_id, None)
        restart = asyncio.get_running_loop().create_task(self._restart(table_id))
        self._background.add(restart)
        restart.add_done_callback(self._background.discard)

    async def _restart(self, table_id: str) -> None:
        count = self._restarts.get(table_id, 0) + 1
        self._restarts[table_id] = count
        if count > MAX_RESTARTS:
            log.error("table %s failed %d times in a row; it stays stopped", table_id, count - 1)
            return
        await asyncio.sleep(min(5.0, 0.05 * 2**count))
        try:
            await self._launch(table_id)
        except Exception:
            log.exception("table %s cannot be restored", table_id)
            return
        # A table that then runs a while is healthy again.
        loop = asyncio.get_running_loop()
        loop.call_later(60.0, self._restarts.pop, table_id, None)

    async def close(self) -> None:
        self._closing = True
        for task in self._background:
            task.cancel()
        for table_id, task in list(self.tasks.items()):
            task.cancel()
            self.tables[table_id].shutdown()
        await asyncio.gather(*self.tasks.values(), *self._background, return_exceptions=True)
        self.tasks.clear()
        self.tables.clear()
