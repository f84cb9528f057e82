"""Backups and restores on a real PostgreSQL: deploy/backup.sh (the compose `backup` service)
dumps a live database (a server running on it, with hands, a tournament and ledgers), keeps
its files for BACKUP_KEEP_DAYS; `python -m app restore` brings the dump into a new database
(and refuses one that is not empty), and a server on the restored database serves the same
evening: every hand's exports the same, every hand replaying to its stacks, every ledger
balancing, the deals verifying (the sealed decks and seeds open with the same SECRET_KEY) and
the tournament's standings. The script's own `restore` does the same into a database it
drops and makes anew."""

from __future__ import annotations

import asyncio
import os
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from pytest_postgresql.janitor import DatabaseJanitor
from sqlalchemy import text

from app.history.deals import verify
from app.replay import replay_session
from app.store.db import create_engine
from app.store.restore import RestoreError, restore
from tests.api.live import Client, live_server
from tests.api.test_play import live_settings
from tests.evening import Readback, play_an_evening, read_back
from tests.servers import PostgresServer
from tests.test_cli import ROOT, run_cli

BACKUP = ROOT / "deploy" / "backup.sh"
DAY = 24 * 3600


@contextmanager
def new_database(server: PostgresServer, name: str) -> Iterator[str]:
    dbname = f"{name}_{os.getpid()}"
    with DatabaseJanitor(user=server.user, host=server.host, port=server.port, dbname=dbname):
        yield server.url(dbname)


def backup_env(server: PostgresServer, dbname: str, folder: Path) -> dict[str, str]:
    assert server.bindir is not None
    return {
        "PATH": f"{server.bindir}:{os.environ['PATH']}",
        "PGHOST": server.host,
        "PGPORT": str(server.port),
        "PGUSER": server.user,
        "PGDATABASE": dbname,
        "BACKUP_DIR": str(folder),
        "BACKUP_KEEP_DAYS": "14",
    }


def backup_sh(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["sh", str(BACKUP), *args], env=env, capture_output=True, text=True,
                          timeout=120, check=False)  # fmt: skip


def settled(readback: Readback, tmp_path: Path) -> None:
    """The evening is whole: every hand replays to its stacks, the ledger balances, every
    deal recomputes."""
    session = tmp_path / "session.phhs"
    session.write_text(readback.phhs)
    replayed = replay_session(str(session))
    assert len(replayed) == len(readback.hands) >= 3
    assert not [r for r in replayed if "error" in r], replayed
    totals = readback.ledger["totals"]
    assert totals["chips_in"] == totals["on_table"] + totals["cashed_out"]
    assert sum(line["net"] for line in readback.ledger["players"]) == 0
    verdict = verify(readback.deals)
    assert verdict.ok and verdict.verified >= 3, verdict.problems


async def rows(url: str, sql: str) -> list[tuple[Any, ...]]:
    engine = create_engine(url)
    try:
        async with engine.connect() as c:
            return [tuple(row) for row in await c.execute(text(sql))]
    finally:
        await engine.dispose()


async def standings(url: str) -> list[tuple[Any, ...]]:
    """The tournament's places and prizes as stored."""
    return await rows(url, "SELECT name, place, prize FROM tournament_entries ORDER BY place")


async def count_hands(url: str) -> int:
    return int((await rows(url, "SELECT count(*) FROM hands"))[0][0])


async def test_a_backup_of_a_live_database_restores_whole(
    postgres_server: PostgresServer, tmp_path: Path
) -> None:
    folder = tmp_path / "backups"
    folder.mkdir()
    # Two earlier backups: one past BACKUP_KEEP_DAYS (removed by the next), one within.
    old, recent = folder / "omaha-20200101T000000Z.dump", folder / "omaha-20200120T000000Z.dump"
    for path, age in ((old, 15 * DAY), (recent, 2 * DAY)):
        path.write_bytes(b"")
        os.utime(path, (time.time() - age, time.time() - age))

    with new_database(postgres_server, "source") as source:
        settings = live_settings(tmp_path, source, None).model_copy(update={"bot_think": 0.0})
        async with live_server(settings) as base:
            evening = await play_an_evening(base)
            before = await read_back(evening.host, evening.table)
            dbname = source.rsplit("/", 1)[1]
            # While the server runs: pg_dump reads one consistent snapshot.
            done = await asyncio.to_thread(
                backup_sh, "once", env=backup_env(postgres_server, dbname, folder)
            )
            assert done.returncode == 0, done.stderr
            await evening.close()
        stored = await count_hands(source)  # the cash table's and the tournament's
        places = await standings(source)
    assert [(place, prize) for _, place, prize in places] == [(1, 70), (2, 30)]
    (dump,) = [p for p in folder.glob("omaha-*.dump") if p not in (old, recent)]
    assert not old.exists() and recent.exists()  # older than 14 days: gone; the other kept
    assert "removing" in done.stdout and str(old) in done.stdout
    settled(before, tmp_path)

    with new_database(postgres_server, "restored") as restored:
        env = {"DATABASE_URL": restored, "PG_BINDIR": str(postgres_server.bindir)}
        result = await asyncio.to_thread(run_cli, "restore", str(dump), env=env, cwd=tmp_path)
        assert result.returncode == 0, result.stderr
        assert f"restored {stored} hands, 2 tables, 1 tournaments" in result.stdout
        with pytest.raises(RestoreError, match="not empty"):  # never over data
            await asyncio.to_thread(restore, dump, restored)

        settings = live_settings(tmp_path, restored, None)
        async with live_server(settings) as base:
            host = Client(base)
            host.http.cookies.update(evening.host.http.cookies)  # the same session, restored
            after = await read_back(host, evening.table)
            await host.close()
        assert await standings(restored) == places
    assert after == before
    settled(after, tmp_path)

    with new_database(postgres_server, "by_script") as target:
        dbname = target.rsplit("/", 1)[1]
        done = await asyncio.to_thread(
            backup_sh, "restore", str(dump), env=backup_env(postgres_server, dbname, folder)
        )
        assert done.returncode == 0, done.stderr
        assert await count_hands(target) == stored
