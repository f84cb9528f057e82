"""Alembic, driven from code: upgrade to head, tell whether a database is at head, and try an
upgrade without keeping it (`dry_run`, for `python -m app migrate --check`)."""

from __future__ import annotations

import shutil
import sqlite3
import tempfile
from dataclasses import dataclass
from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Connection, text
from sqlalchemy.ext.asyncio import AsyncEngine

from app.store import decks
from app.store.db import create_engine, sqlite_path

ALEMBIC_INI = "alembic.ini"


def migrations_dir() -> Path:
    """migrations/ beside the app package (a checkout), else in the working directory."""
    for root in (Path(__file__).resolve().parents[2], Path.cwd()):
        candidate = root / "migrations"
        if (candidate / "env.py").is_file():
            return candidate
    raise FileNotFoundError("cannot find the migrations/ folder (run from the project folder)")


def alembic_config(database_url: str | None = None) -> Config:
    """The Alembic configuration; env.py uses `database_url`, else the settings' URL."""
    folder = migrations_dir()
    ini = folder.parent / ALEMBIC_INI
    config = Config(str(ini)) if ini.is_file() else Config()
    config.set_main_option("script_location", str(folder))
    if database_url is not None:
        config.attributes["database_url"] = database_url
    return config


def head_revisions() -> set[str]:
    return set(ScriptDirectory.from_config(alembic_config()).get_heads())


def upgrade(database_url: str, revision: str = "heads", secret: str | None = None) -> None:
    """Upgrade the database at `database_url`. Runs its own event loop: call it from sync code.
    `secret`: the SECRET_KEY the decks were sealed with (a migration that reads old hands
    opens them: 0006)."""
    if secret is not None:
        decks.use_secret(secret)
    command.upgrade(alembic_config(database_url), revision)


def upgrade_connection(connection: Connection, revision: str = "heads") -> None:
    """Upgrade through an open sync connection, e.g. `await conn.run_sync(upgrade_connection)`."""
    config = alembic_config()
    config.attributes["connection"] = connection
    command.upgrade(config, revision)


def _current(connection: Connection) -> set[str]:
    return set(MigrationContext.configure(connection).get_current_heads())


@dataclass(frozen=True)
class SchemaState:
    current: frozenset[str]
    heads: frozenset[str]

    @property
    def at_head(self) -> bool:
        return self.current == self.heads

    def describe(self) -> str:
        current = ", ".join(sorted(self.current)) or "an empty database (no revision)"
        heads = ", ".join(sorted(self.heads))
        return f"database is at {current}, this server needs {heads}"


async def schema_state(engine: AsyncEngine) -> SchemaState:
    async with engine.connect() as connection:
        current = await connection.run_sync(_current)
    return SchemaState(current=frozenset(current), heads=frozenset(head_revisions()))


def pending(current: frozenset[str]) -> list[tuple[str, str]]:
    """The migrations an upgrade from `current` runs, oldest first: (revision, its title).
    Raises alembic's `CommandError` for a revision this code does not know (a newer one)."""
    script = ScriptDirectory.from_config(alembic_config())
    lower: str | tuple[str, ...] = tuple(sorted(current)) or "base"
    found = list(script.iterate_revisions("heads", lower))
    return [(s.revision, (s.doc or "").splitlines()[0] if s.doc else "") for s in reversed(found)]


#: how long the dry run waits for a table lock on PostgreSQL before it gives up (a running
#: server's writes queue behind a waiting ALTER TABLE: keep that short)
LOCK_TIMEOUT = "2s"


async def dry_run(database_url: str, secret: str | None = None) -> None:
    """Run every pending migration and keep nothing; raises what a migration raised.

    PostgreSQL: in one transaction, rolled back (its DDL is transactional). SQLite: on a copy
    of the file (the driver commits DDL as it goes, so a rollback would not undo it)."""
    if secret is not None:
        decks.use_secret(secret)
    path = sqlite_path(database_url)
    if path is not None:
        await _on_a_copy(path)
        return
    engine = create_engine(database_url)
    try:
        async with engine.connect() as connection:
            transaction = await connection.begin()
            try:
                if connection.dialect.name == "postgresql":
                    await connection.execute(text(f"SET LOCAL lock_timeout = '{LOCK_TIMEOUT}'"))
                await connection.run_sync(upgrade_connection)
            finally:
                await transaction.rollback()
    finally:
        await engine.dispose()


def copy_sqlite(source: Path, target: Path) -> None:
    """sqlite3's backup: a consistent copy even with a server writing to `source`."""
    a, b = sqlite3.connect(source), sqlite3.connect(target)
    try:
        a.backup(b)
    finally:
        a.close()
        b.close()


async def _on_a_copy(path: Path) -> None:
    folder = Path(tempfile.mkdtemp(prefix="omaha-check-"))
    try:
        copy = folder / path.name
        if path.exists():
            copy_sqlite(path, copy)
        engine = create_engine(f"sqlite+aiosqlite:///{copy}")
        try:
            async with engine.begin() as connection:
                await connection.run_sync(upgrade_connection)
        finally:
            await engine.dispose()
    finally:
        shutil.rmtree(folder, ignore_errors=True)
