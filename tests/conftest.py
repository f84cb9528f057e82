"""Fixtures shared by the whole suite.

Servers (started once per session, on free loopback ports, removed afterwards):
- `postgres_server`: a throwaway PostgreSQL cluster (`tests.servers.PostgresServer`).
- `postgres_url`: a fresh, empty PostgreSQL database for one test (postgresql+asyncpg URL),
  created and dropped with pytest-postgresql's `DatabaseJanitor`.
- `redis_proc` (pytest-redis) and `redis_url`: a throwaway redis-server; the database is
  flushed after each test.
Databases:
- `sqlite_url`: a file database in the test's tmp_path.
- `database_url`: parametrised over both, so a store test runs on SQLite and PostgreSQL.
Settings:
- `settings`: `Settings` for an in-process server on SQLite in tmp_path (no environment read).
"""

from __future__ import annotations

import asyncio
import inspect
import itertools
import os
import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
import redis
from pydantic import SecretStr
from pytest_postgresql.janitor import DatabaseJanitor
from pytest_redis import factories

from app.config import Settings, get_settings
from tests.servers import (
    PostgresServer,
    missing,
    postgres_cluster,
    redis_executable,
)

_db_numbers = itertools.count(1)


@pytest.fixture(autouse=True)
def _clean_settings(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """No test sees the developer's settings, nor a cached Settings from another test."""
    for name in Settings.model_fields:
        monkeypatch.delenv(name.upper(), raising=False)
    get_settings.cache_clear()
    yield
    get_settings.cache_clear()


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    with postgres_cluster() as server:
        yield server


@pytest.fixture
def postgres_url(postgres_server: PostgresServer) -> Iterator[str]:
    dbname = f"omaha_test_{os.getpid()}_{next(_db_numbers)}"
    janitor = DatabaseJanitor(
        user=postgres_server.user,
        host=postgres_server.host,
        port=postgres_server.port,
        dbname=dbname,
    )
    with janitor:
        yield postgres_server.url(dbname)


@pytest.fixture(scope="session")
def redis_server_executable() -> str:
    executable = redis_executable()
    if executable is None:
        missing("redis-server is not installed (Debian: apt-get install redis-server)")
        raise AssertionError("unreachable")
    return executable


_redis_proc = factories.redis_proc(executable=redis_executable() or "/usr/bin/redis-server")


@pytest.fixture(scope="session")
def redis_proc(redis_server_executable: str, request: pytest.FixtureRequest) -> object:
    """pytest-redis's throwaway redis-server, after checking that one is installed."""
    return request.getfixturevalue("_redis_proc")


@pytest.fixture
def redis_url(redis_proc: object) -> Iterator[str]:
    host, port = redis_proc.host, redis_proc.port  # type: ignore[attr-defined]
    yield f"redis://{host}:{port}/0"
    client = redis.Redis(host=host, port=port)
    client.flushall()
    client.close()


@pytest.fixture
def sqlite_url(tmp_path: Path) -> str:
    return f"sqlite+aiosqlite:///{tmp_path}/omaha.sqlite3"


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request: pytest.FixtureRequest) -> str:
    name = "sqlite_url" if request.param == "sqlite" else "postgres_url"
    return str(request.getfixturevalue(name))


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return Settings(
        data_dir=tmp_path / "data",
        database_url=f"sqlite+aiosqlite:///{tmp_path}/omaha.sqlite3",
        redis_url=None,
        secret_key=SecretStr("x" * 40),
    )


@pytest.fixture
async def tasks_left_to_cancel() -> AsyncIterator[None]:
    """After an async test and its fixtures: its tasks still running are cancelled and given
    30 s to end. One that ignores its cancellation fails the test by name and is let go: the
    loop's close would otherwise wait for it for ever (a whole run once hung that way)."""
    yield
    current = asyncio.current_task()
    left = [t for t in asyncio.all_tasks() if t is not current and not t.done()]
    for task in left:
        task.cancel()
    if left:
        _, stuck = await asyncio.wait(left, timeout=30)
        if stuck:
            for task in stuck:
                asyncio.tasks._unregister_task(task)
            pytest.fail(f"tasks that ignored their cancellation: {[repr(t) for t in stuck]}")


# Modules by their worker time in a full run, slowest first (`pytest --durations`; a rough
# ranking is enough: a module missing here only runs later, in collection order); the
# browser modules together, for they share one browser while they run in a row.
SLOW_FIRST = (
    "tests/e2e/test_tournament.py",
    "tests/e2e/test_tournament_host.py",
    "tests/e2e/test_bots_fill.py",
    "tests/e2e/test_fairness.py",
    "tests/e2e/test_review.py",
    "tests/e2e/test_host.py",
    "tests/e2e/test_afterwards.py",
    "tests/e2e/test_after_hand.py",
    "tests/e2e/test_ledger.py",
    "tests/e2e/test_play.py",
    "tests/e2e/test_showdown.py",
    "tests/e2e/test_reactions.py",
    "tests/e2e/test_first_paint.py",
    "tests/e2e/test_replay.py",
    "tests/e2e/test_frames.py",
    "tests/e2e/test_manners.py",
    "tests/api/test_history.py",
    "tests/bench/test_load_processes.py",
    "tests/poker/test_differential.py",
    "tests/api/test_review.py",
    "tests/api/test_tournament_restart.py",
    "tests/poker/test_evaluation.py",
    "tests/tables/test_leak.py",
    "tests/api/test_review_race.py",
    "tests/bench/test_smoke.py",
    "tests/api/test_slow_client.py",
    "tests/scale/test_tournament_failover.py",
    "tests/api/test_play.py",
    "tests/scale/test_nemesis.py",
    "tests/tables/test_deal_openings.py",
    "tests/bench/test_load_small.py",
    "tests/api/test_ws_security.py",
    "tests/api/test_crash.py",
    "tests/history/test_privacy.py",
    "tests/scale/test_sigterm_three.py",
)


def pytest_runtest_setup(item: pytest.Item) -> None:
    """A test outside tests/e2e first stops the browser the browser modules share
    (tests/e2e/harness.py `SHARED`): the asyncio tests need this thread's event loop free.
    Not a browser module's test without a browser: the module's `browser` is kept for the
    module's next tests."""
    harness = sys.modules.get("tests.e2e.harness")
    if harness is not None and not item.nodeid.startswith("tests/e2e/"):
        harness.SHARED.stop()


def pytest_sessionfinish(session: pytest.Session) -> None:
    harness = sys.modules.get("tests.e2e.harness")
    if harness is not None:
        harness.SHARED.stop()


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """A `long` test is left out unless its variable is set: `make test` deselects the runs
    of minutes to hours (reported as deselected, never as skipped), and setting the variable
    runs them: `OMAHA_RECORDED_RUN=1 pytest -s tests/poker -k recorded`."""
    for item in items:  # every async test ends with its tasks (see tasks_left_to_cancel)
        if isinstance(item, pytest.Function) and inspect.iscoroutinefunction(item.obj):
            item.fixturenames.insert(0, "tasks_left_to_cancel")
    # The slowest modules first (a module kept whole, for its module-scoped fixtures): with
    # `--dist worksteal` each worker runs its share in order and an idle one steals the tail
    # of another's, so long tests started last would make the run's tail long.
    first = {module: rank for rank, module in enumerate(SLOW_FIRST)}
    items.sort(key=lambda item: first.get(item.nodeid.split("::")[0], len(first)))
    kept: list[pytest.Item] = []
    left: list[pytest.Item] = []
    for item in items:
        marker = item.get_closest_marker("long")
        (left if marker is not None and not os.environ.get(marker.args[0]) else kept).append(item)
    if left:
        config.hook.pytest_deselected(items=left)
        items[:] = kept
