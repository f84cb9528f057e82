"""The server's tournaments: one director task each, found by id or invite code, created by
a host and restored from the store at start-up (after the tables)."""

from __future__ import annotations

import asyncio
import logging
import secrets
from typing import Any

from app.tables.errors import TableError
from app.tables.registry import TableRegistry
from app.tournaments.director import Director
from app.tournaments.settings import Settings
from app.tournaments.store import TournamentStore

log = logging.getLogger("omaha.tournaments")


class Hall:
    def __init__(self, store: TournamentStore, tables: TableRegistry, **director: Any) -> None:
        self.store = store
        self.tables = tables
        self.director_options = director
        self.directors: dict[str, Director] = {}
        self.codes: dict[str, str] = {}
        self.tasks: dict[str, asyncio.Task[None]] = {}
        self._later: asyncio.Task[None] | None = None

    def _run(self, director: Director) -> None:
        self.directors[director.id] = director
        self.codes[director.code] = director.id
        task = asyncio.get_running_loop().create_task(director.run(), name=f"t-{director.id}")
        self.tasks[director.id] = task
        task.add_done_callback(lambda t: self._ended(director, t))

    def _ended(self, director: Director, task: asyncio.Task[None]) -> None:
        if not task.cancelled() and task.exception() is not None:
            log.error("tournament %s: the director failed", director.id,
                      exc_info=task.exception())  # fmt: skip

    async def create(self, settings: Settings, host_id: str) -> Director:
        director = Director(settings, host_id, self.tables, store=self.store,
                            code=secrets.token_urlsafe(16), **self.director_options)  # fmt: skip
        await director.create()
        self._run(director)
        return director

    def get(self, code: str) -> Director:
        tid = self.codes.get(code)
        if tid is None:
            raise TableError("no_such_tournament", "no such tournament")
        return self.directors[tid]

    def of_table(self, table_code: str) -> tuple[Director, str] | None:
        """The tournament playing at the table with this invite code, and the table's id (a
        scan of the running tournaments' tables: a home server runs a handful)."""
        for director in self.directors.values():
            for tid in director.tables:
                table = self.tables.tables.get(tid)
                if table is not None and table.code == table_code:
                    return director, tid
        return None

    async def start(self) -> None:
        """Restore every unfinished tournament (its tables are running already). While the
        database does not answer, start-up goes on and this is tried again in the background."""
        try:
            await self._restore()
        except Exception as error:
            log.error("cannot restore the tournaments (%s); trying again", type(error).__name__)
            self._later = asyncio.get_running_loop().create_task(self._restore_later())

    async def _restore_later(self) -> None:
        delay = 1.0
        while True:
            await asyncio.sleep(delay)
            delay = min(30.0, delay * 2)
            try:
                await self._restore()
            except Exception:
                continue
            return

    async def _restore(self) -> None:
        later = False
        for tid in await self.store.unfinished():
            if tid in self.directors:
                continue
            stored = await self.store.load(tid)
            try:
                director = await Director.restore(stored, self.tables, self.store,
                                                  **self.director_options)  # fmt: skip
            except TableError as error:  # a table cannot be loaded yet: try again later
                log.error("tournament %s cannot be restored now (%s)", tid, error.code)
                later = True
                continue
            except Exception:
                log.exception("tournament %s cannot be restored", tid)
                continue
            self._run(director)
        if later:
            raise TableError("unavailable", "some tournaments wait for their tables")

    async def close(self) -> None:
        if self._later is not None:
            self._later.cancel()
        for director in self.directors.values():
            director.stop()
        for task in self.tasks.values():
            task.cancel()
        await asyncio.gather(*self.tasks.values(), return_exceptions=True)
