"""Without Redis, or on SQLite, a server runs alone: a second process on the same database is
refused at start with a clear message (the first keeps running)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from app.scale.solo import AnotherProcess, hold_database
from tests.api.test_crash import ROOT, server_process
from tests.servers import free_port


async def test_one_hold_per_database(database_url: str) -> None:
    first = await hold_database(database_url)
    with pytest.raises(AnotherProcess, match="another server process"):
        await hold_database(database_url)
    await first.release()
    again = await hold_database(database_url)  # released: the next process may start
    await again.release()


def test_a_second_process_on_the_same_sqlite_database_is_refused(tmp_path: Path) -> None:
    env = {**os.environ, "DATA_DIR": str(tmp_path / "data"), "SECRET_KEY": "s" * 40,
           "HOST": "127.0.0.1", "LOG_LEVEL": "warning"}  # fmt: skip
    env.pop("REDIS_URL", None)
    env.pop("DATABASE_URL", None)
    with server_process({**env, "PORT": str(free_port())}) as first:
        second = subprocess.run(
            [sys.executable, "-m", "app", "serve"], cwd=ROOT,
            env={**env, "PORT": str(free_port())}, capture_output=True, timeout=60,
        )  # fmt: skip
        assert second.returncode != 0
        assert b"another server process is already running on this database" in second.stderr
        assert first.poll() is None
