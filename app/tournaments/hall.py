"""The server's tournaments: one director task each, found by id or invite code, created by
a host and restored from the store at start-up (after the tables).

With several processes (`Ownership.shared`) a tournament is directed by exactly one process,
and its tables run on that same process: the director holds a lease of its own
(`omaha:tournament:<id>:owner`, `Leases.of`) and a fencing epoch (`tournaments.owner_epoch`)
that its writes carry; its tables are created here and are never taken by another process's
table sweep (`TableRegistry.adopt`). A process sweeps for unfinished tournaments whose lease
lapsed (their process died or stopped): it takes the lease, bumps the epoch, takes every open
table of the tournament once none is held elsewhere any more, and restores the director from
them (`Director.restore`), so play goes on where it stood."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
from collections import OrderedDict
from typing import Any

from app.tables.errors import TableError
from app.tables.registry import TableRegistry
from app.tables.store_protocol import OwnershipLost
from app.tournaments import figures
from app.tournaments.director import Director
from app.tournaments.settings import Settings
from app.tournaments.store import TournamentStore

log = logging.getLogger("omaha.tournaments")
#: finished tournaments kept in memory for their pages (more are read from the store again)
FINISHED_KEPT = 64


class Hall:
    def __init__(self, store: TournamentStore, tables: TableRegistry, **director: Any) -> None:
        self.store = store
        self.tables = tables
        self.ownership = tables.ownership.of("tournament")
        self.director_options = director
        self.directors: dict[str, Director] = {}
        self.codes: dict[str, str] = {}
        #: finished tournaments, the latest `FINISHED_KEPT`, read-only (their pages' reads)
        self.finished: OrderedDict[str, Director] = OrderedDict()
        self.tasks: dict[str, asyncio.Task[None]] = {}
        self._later: asyncio.Task[None] | None = None
        self._keeper: asyncio.Task[None] | None = None
        self._closing = False
        #: when the leases were last renewed (loop time): past the lease, they may be others'
        self._renewed = 0.0

    def _run(self, director: Director) -> None:
        self.directors[director.id] = director
        self.codes[director.code] = director.id
        task = asyncio.get_running_loop().create_task(director.run(), name=f"t-{director.id}")
        self.tasks[director.id] = task
        task.add_done_callback(lambda t: self._ended(director, t))

    def _ended(self, director: Director, task: asyncio.Task[None]) -> None:
        if task.cancelled() or self._closing:
            return
        error = task.exception()
        if error is None and director.status == "finished":
            self._keep_finished(director)
            return
        if isinstance(error, OwnershipLost):
            log.warning("tournament %s: another process directs it; dropped here", director.id)
            if self.directors.get(director.id) is director:
                asyncio.get_running_loop().create_task(self._lose(director.id))
        elif error is not None:
            log.error("tournament %s: the director failed", director.id, exc_info=error)

    async def create(self, settings: Settings, host_id: str) -> Director:
        director = Director(settings, host_id, self.tables, store=self.store,
                            code=secrets.token_urlsafe(16), **self.director_options)  # fmt: skip
        if not await self.ownership.take(director.id):  # a fresh id: cannot be another's
            raise TableError("unavailable", "the tournament could not be created; try again")
        try:
            await director.create()
            await self.store.take(director.id)
        except BaseException:
            with contextlib.suppress(Exception):
                await self.ownership.release(director.id)
            raise
        self._run(director)
        return director

    def _keep_finished(self, director: Director) -> None:
        """A finished tournament leaves the running ones for the few kept to be read."""
        if self.directors.get(director.id) is director:
            del self.directors[director.id]
            self.tasks.pop(director.id, None)
            self.codes.pop(director.code, None)
        self.finished[director.code] = director
        self.finished.move_to_end(director.code)
        while len(self.finished) > FINISHED_KEPT:
            self.finished.popitem(last=False)

    def get(self, code: str) -> Director:
        tid = self.codes.get(code)
        if tid is None:
            if code in self.finished:
                return self.finished[code]
            raise TableError("no_such_tournament", "no such tournament")
        return self.directors[tid]

    async def find(self, code: str) -> Director:
        """`get`, or a finished tournament read from the store (kept among the finished)."""
        try:
            return self.get(code)
        except TableError:
            if len(code) > 64:
                raise
        try:
            tid = await self.store.find(code)
            stored = await self.store.load(tid) if tid is not None else None
        except Exception:
            raise TableError("unavailable", "the database did not answer") from None
        if stored is None or stored.status != "finished":
            raise TableError("no_such_tournament", "no such tournament")
        director = Director.finished(stored, self.tables, self.store)
        self._keep_finished(director)
        return director

    def of_table(self, table_code: str) -> tuple[Director, str] | None:
        """The tournament playing (or that played, to its end or its table's break) at the
        table with this invite code, and the table's id."""
        for director in (*self.directors.values(), *self.finished.values()):
            tid = director.table_codes.get(table_code)
            if tid is not None:
                return director, tid
        return None

    async def director_elsewhere(self, code: str) -> str:
        """The process directing the tournament of `code`, which is not this one (shared)."""
        tid = await self.store.find(code)
        if tid is None:
            raise TableError("no_such_tournament", "no such tournament")
        owner = (await self.ownership.owners([tid])).get(tid)
        if owner is None or owner == self.ownership.name:
            raise TableError("unavailable", "the tournament is being taken over; try again soon")
        return owner

    async def start(self) -> None:
        """Restore every unfinished tournament (alone: its tables are running already;
        shared: those nobody directs, with their tables, and later those whose director's
        process dies). While the database does not answer, start-up goes on and this is tried
        again in the background."""
        if self.ownership.shared:
            loop = asyncio.get_running_loop()
            self._renewed = loop.time()
            self._keeper = loop.create_task(self._keep())
            return
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
            try:
                await self.store.take(tid)
                stored = await self.store.load(tid)
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

    # ------------------------------------------------------------------ shared
    async def _keep(self) -> None:
        """At once, then every renewal interval: renew the directors' leases, then take the
        tournaments nobody directs."""
        first = True
        while not self._closing:
            if not first:
                await asyncio.sleep(self.tables.renew)
            first = False
            try:
                await self._renew()
                await self._sweep()
            except Exception as error:  # Redis or the database is down: the next round
                log.warning("tournament leases: %s", type(error).__name__)

    async def _renew(self) -> None:
        loop = asyncio.get_running_loop()
        running = [t for t, d in self.directors.items() if d.status != "finished"]
        try:
            kept = await self.ownership.renew(running)
        except Exception:
            if loop.time() - self._renewed > self.tables.lease:
                for tid in running:
                    await self._lose(tid)
            raise
        self._renewed = loop.time()
        for tid in running:
            if tid not in kept:
                log.warning("tournament %s: its lease is another process's; dropped here", tid)
                await self._lose(tid)

    async def _lose(self, tid: str) -> None:
        """Stop directing a tournament another process directs (or will): its director and
        its tables stop here, their leases released."""
        director = self.directors.pop(tid, None)
        self.store.drop(tid)
        task = self.tasks.pop(tid, None)
        if director is None:
            return
        self.codes.pop(director.code, None)
        director.stop()
        if task is not None:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
        for table_id in list(director.tables):
            await self.tables.hand_back(table_id)
        with contextlib.suppress(Exception):
            await self.ownership.release(tid)

    async def _sweep(self) -> None:
        if self.tables.draining or self._closing:
            return
        others = [t for t in await self.store.unfinished() if t not in self.directors]
        for tid, owner in (await self.ownership.owners(others)).items():
            if owner is None and not self._closing and not self.tables.draining:
                await self._take(tid)

    async def _take(self, tid: str) -> None:
        """Direct a tournament nobody directs: once none of its tables is held elsewhere (they
        lapse with their director's process), take its lease, its epoch, its tables."""
        stored = await self.store.load(tid)
        open_tables = await self.tables.store.tournament_tables()
        tables = [t for t in stored.tables if t in open_tables]
        held = await self.tables.ownership.owners(
            [t for t in tables if t not in self.tables.tables]
        )
        if any(owner not in (None, self.ownership.name) for owner in held.values()):
            return  # still running (a process stopping hands them over between hands)
        if not await self.ownership.take(tid):
            return
        adopted: list[str] = []
        try:
            await self.store.take(tid)
            stored = await self.store.load(tid)  # every write of the previous director
            for table_id in stored.tables:
                if table_id in open_tables:
                    await self.tables.adopt(table_id)
                    adopted.append(table_id)
            director = await Director.restore(stored, self.tables, self.store,
                                              **self.director_options)  # fmt: skip
        except Exception as error:
            log.warning("tournament %s cannot be taken now (%s)", tid, type(error).__name__)
            self.store.drop(tid)
            for table_id in adopted:
                await self.tables.hand_back(table_id)
            with contextlib.suppress(Exception):
                await self.ownership.release(tid)
            return
        log.info("tournament %s: nobody directed it; directed by this process now", tid)
        self._run(director)

    async def close(self) -> None:
        self._closing = True
        figures.shutdown()
        for waiting in (self._later, self._keeper):
            if waiting is not None:
                waiting.cancel()
                await asyncio.gather(waiting, return_exceptions=True)
        for director in self.directors.values():
            director.stop()
        for task in self.tasks.values():
            task.cancel()
        await asyncio.gather(*self.tasks.values(), return_exceptions=True)
        # Stopped: another process takes each tournament once its tables are handed over.
        for tid in list(self.directors):
            self.store.drop(tid)
            with contextlib.suppress(Exception):
                await self.ownership.release(tid)
