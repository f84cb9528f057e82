"""Migrations on both databases: they reach head, and they build what the models describe."""

from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import Connection, inspect, text

from app.store.db import create_engine
from app.store.migrate import head_revisions, schema_state, upgrade_connection
from app.store.models import Base


def _diff(connection: Connection) -> list[object]:
    return list(compare_metadata(MigrationContext.configure(connection), Base.metadata))


def _tables(connection: Connection) -> set[str]:
    return set(inspect(connection).get_table_names())


async def test_upgrade_to_head_matches_the_models(database_url: str) -> None:
    engine = create_engine(database_url)
    try:
        before = await schema_state(engine)
        assert not before.at_head and not before.current

        async with engine.begin() as connection:
            await connection.run_sync(upgrade_connection)

        after = await schema_state(engine)
        assert after.at_head and after.current == head_revisions()
        async with engine.connect() as connection:
            assert await connection.run_sync(_diff) == []
            assert set(Base.metadata.tables) <= await connection.run_sync(_tables)
    finally:
        await engine.dispose()


async def test_upgrade_is_idempotent(database_url: str) -> None:
    engine = create_engine(database_url)
    try:
        for _ in range(2):
            async with engine.begin() as connection:
                await connection.run_sync(upgrade_connection)
        assert (await schema_state(engine)).at_head
    finally:
        await engine.dispose()


async def test_constraints_follow_the_naming_convention(database_url: str) -> None:
    engine = create_engine(database_url)
    try:
        async with engine.begin() as connection:
            await connection.run_sync(upgrade_connection)

        def names(connection: Connection) -> tuple[str | None, list[str | None]]:
            inspector = inspect(connection)
            pk = inspector.get_pk_constraint("players")["name"]
            uniques = [u["name"] for u in inspector.get_unique_constraints("players")]
            return pk, uniques

        async with engine.connect() as connection:
            pk, uniques = await connection.run_sync(names)
        if engine.dialect.name == "postgresql":  # SQLite does not keep primary key names
            assert pk == "pk_players"
        assert uniques == ["uq_players_session_token_hash"]
    finally:
        await engine.dispose()


async def test_sqlite_runs_with_wal_and_foreign_keys(sqlite_url: str) -> None:
    engine = create_engine(sqlite_url)
    try:
        async with engine.connect() as connection:
            journal: str = (await connection.execute(text("PRAGMA journal_mode"))).scalar_one()
            foreign_keys: int = (await connection.execute(text("PRAGMA foreign_keys"))).scalar_one()
        assert (journal, foreign_keys) == ("wal", 1)
    finally:
        await engine.dispose()
