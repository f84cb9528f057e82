"""`python -m app restore FILE`: a backup (pg_dump's custom format, as the compose `backup`
service writes them) into the PostgreSQL database of DATABASE_URL, then upgraded to this
server's schema (a backup made by an older version is migrated like the database it was).

Stop the server first. The database must be empty: `createdb` a new one (or drop and create
the old one: the compose `backup` service's `restore` does). Never into one with tables: what
the backup lacks (a newer migration's tables, hands played since) would stay beside what it
brings. pg_restore runs in one transaction: a restore that fails changes nothing. The password
goes to pg_restore in its environment, never on a command line (which others can read).
"""

from __future__ import annotations

import asyncio
import glob
import os
import shutil
import subprocess
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from sqlalchemy import text
from sqlalchemy.engine import URL, make_url
from sqlalchemy.ext.asyncio import AsyncConnection

from app.store.db import create_engine
from app.store.migrate import upgrade

T = TypeVar("T")


class RestoreError(Exception):
    """Why nothing was restored (or, after pg_restore, why the upgrade failed)."""


@dataclass(frozen=True)
class Restored:
    revision: str
    players: int
    tables: int
    hands: int
    tournaments: int

    def describe(self) -> str:
        return (
            f"restored {self.hands} hands, {self.tables} tables, {self.tournaments} "
            f"tournaments and {self.players} players; the database is at {self.revision}"
        )


def pg_tool(name: str) -> str:
    """pg_restore (or pg_dump...): PG_BINDIR, PATH, else the newest /usr/lib/postgresql/*/bin
    (Debian installs them there). A pg_restore older than the pg_dump that wrote the file
    refuses it: use the server's own version or newer."""
    if folder := os.environ.get("PG_BINDIR"):
        return str(Path(folder) / name)
    if found := shutil.which(name):
        return found

    def version(path: str) -> float:
        try:
            return float(Path(path).parent.parent.name)
        except ValueError:
            return 0.0

    installed = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"), key=version)
    if installed:
        return installed[-1]
    raise RestoreError(f"{name} is not installed (Debian: apt-get install postgresql-client)")


def libpq(database_url: str) -> tuple[str, dict[str, str]]:
    """The URL for libpq's tools without its password, and the environment carrying it."""
    url: URL = make_url(database_url)
    if not url.drivername.startswith("postgresql"):
        raise RestoreError("restore needs PostgreSQL (DATABASE_URL=postgresql://...); an "
                           "SQLite database is restored by copying its file back")  # fmt: skip
    env = {"PGPASSWORD": url.password} if url.password else {}
    plain = url.set(drivername="postgresql", password=None)
    return plain.render_as_string(hide_password=False), env


async def _read(database_url: str, work: Callable[[AsyncConnection], Awaitable[T]]) -> T:
    engine = create_engine(database_url)
    try:
        async with engine.connect() as c:
            return await work(c)
    finally:
        await engine.dispose()


async def _tables_in(c: AsyncConnection) -> list[str]:
    rows = await c.execute(
        text("SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY 1")
    )
    return [str(r[0]) for r in rows]


async def _counts(c: AsyncConnection) -> Restored:
    async def count(table: str) -> int:
        return int((await c.execute(text(f"SELECT count(*) FROM {table}"))).scalar_one())

    versions = await c.execute(text("SELECT version_num FROM alembic_version"))
    revision = ", ".join(sorted(str(r[0]) for r in versions))
    return Restored(revision, await count("players"), await count("tables"),
                    await count("hands"), await count("tournaments"))  # fmt: skip


def restore(file: Path, database_url: str, secret: str | None = None) -> Restored:
    """Restore `file` into `database_url` and upgrade it to head (`secret`: the SECRET_KEY
    its decks were sealed with, for a migration that reads them). Raises `RestoreError`."""
    if not file.is_file():
        raise RestoreError(f"{file}: no such file")
    target, env = libpq(database_url)
    tool = pg_tool("pg_restore")
    present = asyncio.run(_read(database_url, _tables_in))
    if present:
        raise RestoreError(
            f"the database is not empty ({len(present)} tables: {', '.join(present[:3])}...): "
            "restore into a new one (createdb NAME, then DATABASE_URL=.../NAME)"
        )
    listed = subprocess.run([tool, "--list", str(file)], capture_output=True, text=True,
                            timeout=600, check=False)  # fmt: skip
    if listed.returncode != 0:
        raise RestoreError(f"{file} is not a backup pg_restore can read: {listed.stderr.strip()}")
    done = subprocess.run(
        [tool, "--no-owner", "--no-privileges", "--exit-on-error", "--single-transaction",
         "--dbname", target, str(file)],
        capture_output=True, text=True, timeout=3600, check=False,
        env={**os.environ, **env},
    )  # fmt: skip
    if done.returncode != 0:
        raise RestoreError(f"pg_restore failed (nothing restored): {done.stderr.strip()}")
    try:
        upgrade(database_url, secret=secret)
    except Exception as error:
        raise RestoreError(f"restored, but the upgrade to this version failed: {error}") from error
    return asyncio.run(_read(database_url, _counts))
