"""Test databases at the schema's head without running every migration for each of them.

Running the twenty migrations costs about 0.2 s of CPU on SQLite, and the suite made a few
hundred databases that way; a copy of a file migrated once per process (sqlite3's backup)
costs 0.01 s. PostgreSQL databases still run the migrations: a copy of a template database
(`CREATE DATABASE ... TEMPLATE`, then dropping the one the fixture made) cost the server as
much CPU as the migrations save (measured: 0.6-0.8 s of the machine's CPU a database either
way). What the migrations themselves do is tested where they run: tests/store/
test_migrations.py and test_upgrades.py, the servers of tests/test_cli.py, and every
PostgreSQL case.
"""

from __future__ import annotations

import atexit
import shutil
import tempfile
from pathlib import Path

from app.store.db import create_engine, sqlite_path
from app.store.migrate import copy_sqlite, upgrade_connection

_template: list[Path] = []


async def upgrade(url: str) -> None:
    """Run the migrations on the database at `url`."""
    engine = create_engine(url)
    try:
        async with engine.begin() as connection:
            await connection.run_sync(upgrade_connection)
    finally:
        await engine.dispose()


async def sqlite_at_head() -> Path:
    """An SQLite file at head, made once per process (removed when the process exits)."""
    if not _template:
        path = Path(tempfile.mkdtemp(prefix="omaha-head-")) / "head.sqlite3"
        atexit.register(shutil.rmtree, path.parent, ignore_errors=True)
        await upgrade(f"sqlite+aiosqlite:///{path}")
        _template.append(path)
    return _template[0]


async def migrate(url: str) -> None:
    """Bring the new database at `url` to head: a new SQLite file is a copy of one migrated
    before; anything else runs the migrations."""
    path = sqlite_path(url)
    if path is None or (path.exists() and path.stat().st_size > 0):
        await upgrade(url)
    else:
        path.parent.mkdir(parents=True, exist_ok=True)
        copy_sqlite(await sqlite_at_head(), path)
