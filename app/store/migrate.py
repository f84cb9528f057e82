"""Alembic, driven from code: upgrade to head, and tell whether a database is at head."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Connection
from sqlalchemy.ext.asyncio import AsyncEngine

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


def upgrade(database_url: str, revision: str = "heads") -> None:
    """Upgrade the database at `database_url`. Runs its own event loop: call it from sync code."""
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
