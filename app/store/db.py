"""The async engine and session factory, built from one database URL."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sqlalchemy import event, text
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import (
    AsyncEngine,
    AsyncSession,
    async_sessionmaker,
    create_async_engine,
)


def sqlite_path(url: str) -> Path | None:
    """The file behind an SQLite URL, or None for PostgreSQL and in-memory SQLite."""
    parsed = make_url(url)
    if not parsed.drivername.startswith("sqlite"):
        return None
    database = parsed.database
    if not database or database == ":memory:" or database.startswith("file:"):
        return None
    return Path(database)


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    try:
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute("PRAGMA busy_timeout=5000")
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA synchronous=NORMAL")
    finally:
        cursor.close()


def create_engine(url: str, *, echo: bool = False) -> AsyncEngine:
    """An AsyncEngine for `url`; for SQLite, its folder is created and WAL is switched on.

    ``hide_parameters``: a database error quotes its statement's parameters, and a hand's
    row holds its deck; with this an error can be logged without leaking a card."""
    path = sqlite_path(url)
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
    if make_url(url).drivername.startswith("sqlite"):
        engine = create_async_engine(url, echo=echo, hide_parameters=True)
        event.listen(engine.sync_engine, "connect", _sqlite_pragmas)
        return engine
    # Every table commits each action before announcing it: with hundreds of tables the
    # default pool (5 + 10 overflow) is what the actions queue for (bench/load.py: p50 of
    # ~170 ms at 500 tables with the server CPU at 60%): keep 40 open (overflow connections are
    # closed on return, and reconnecting costs more than it saves), up to 50. No pre-ping: it
    # was one more round trip (SELECT 1) on every transaction, i.e. every action. A connection
    # that the database dropped fails its next use instead; SQLAlchemy then discards it, the
    # actor refuses that one action ("unavailable", nothing changed) and the retry gets a
    # fresh connection.
    return create_async_engine(
        url,
        echo=echo,
        hide_parameters=True,
        pool_pre_ping=False,
        pool_size=40,
        max_overflow=10,
        pool_timeout=30,
        # A frozen server (SIGSTOP) accepts the TCP connection and never answers: without a
        # timeout a new connection waits for ever (the actor has its own deadline per write).
        connect_args={"timeout": 5},
    )


def session_factory(engine: AsyncEngine) -> async_sessionmaker[AsyncSession]:
    return async_sessionmaker(engine, expire_on_commit=False)


async def ping(engine: AsyncEngine) -> None:
    """Raise unless the database answers `SELECT 1`."""
    async with engine.connect() as connection:
        await connection.execute(text("SELECT 1"))
