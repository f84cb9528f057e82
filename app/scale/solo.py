"""A server without Redis, or on SQLite, runs alone: it cannot share its tables with another
process (nothing would say which process owns which table). `hold_database` takes a lock
that lasts as long as the process; a second server on the same database is refused at start
with a clear message instead of fighting the first over every table.

- SQLite: an exclusive `flock` on `<database>.lock` beside the database file.
- PostgreSQL without Redis: a session advisory lock, held by a connection of its own.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import logging
import os
import signal
from typing import Any

import asyncpg

from app.store.db import sqlite_path

log = logging.getLogger("omaha")

#: seconds between tries while the database does not answer
RETRY = 2.0

#: the advisory lock key of "a server runs on this database alone" (any fixed 64-bit number)
ADVISORY_KEY = 0x6F6D616861_01

WHY = (
    "another server process is already running on this database; several processes need "
    "PostgreSQL and REDIS_URL (each with its own PROCESS_NAME)"
)


class AnotherProcess(RuntimeError):
    """A second server process on a database that can have only one."""


class DatabaseHold:
    """The lock, released by `release` (or by the process's end)."""

    def __init__(self, fd: int | None = None, connection: Any = None) -> None:
        self.fd = fd
        self.connection = connection
        self.trying: asyncio.Task[None] | None = None

    async def release(self) -> None:
        if self.trying is not None:
            self.trying.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.gather(self.trying, return_exceptions=True)
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None
        if self.connection is not None:
            connection, self.connection = self.connection, None
            try:
                await connection.close(timeout=2)
            except Exception:
                connection.terminate()


async def hold_database(url: str) -> DatabaseHold:
    """Take the database for this process alone; raises `AnotherProcess` if one has it."""
    if url.startswith("sqlite"):
        path = sqlite_path(url)
        if path is None:  # in memory: nobody else can open it
            return DatabaseHold()
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(f"{path}.lock", os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise AnotherProcess(WHY) from None
        return DatabaseHold(fd=fd)
    dsn = "postgresql://" + url.split("://", 1)[1]
    connection = await asyncpg.connect(dsn, timeout=5)
    if not await connection.fetchval("SELECT pg_try_advisory_lock($1)", ADVISORY_KEY):
        await connection.close()
        raise AnotherProcess(WHY)
    return DatabaseHold(connection=connection)


async def hold_when_up(url: str) -> DatabaseHold:
    """`hold_database`, refusing at once if another process has it; while the database does
    not answer, the server starts (it reports not ready) and the hold is tried again in the
    background: should it then find another process there, this one stops (SIGTERM). Until
    then the fencing epoch keeps the two from writing over each other."""
    try:
        return await hold_database(url)
    except AnotherProcess:
        raise
    except Exception as error:
        log.warning("cannot take the database for this process yet (%s); trying again",
                    type(error).__name__)  # fmt: skip
    hold = DatabaseHold()

    async def keep_trying() -> None:
        while True:
            await asyncio.sleep(RETRY)
            try:
                taken = await hold_database(url)
            except AnotherProcess as refused:
                log.error("stopping: %s", refused)
                os.kill(os.getpid(), signal.SIGTERM)
                return
            except Exception:
                continue
            hold.fd, hold.connection = taken.fd, taken.connection
            return

    hold.trying = asyncio.get_running_loop().create_task(keep_trying())
    return hold
