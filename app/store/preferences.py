"""The players' showdown preferences (`player_preferences`, migration 0017), by player id:
read when a player sits (the seat copies them) and by the REST API, written by
`set_preference` at a table (with that seat's copy, in one transaction:
`SqlTableStore.save_preferences`) and by `PUT /api/me/preferences`.

One upsert on both back ends (SQLite's and PostgreSQL's `INSERT ... ON CONFLICT DO UPDATE`):
a write never reads first, and two writes of one player never collide on the insert."""

from __future__ import annotations

import uuid

from sqlalchemy import func, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.store.models import PlayerPreferencesRow
from app.tables.preferences import Preferences

_ROW = PlayerPreferencesRow.__table__


async def read(s: AsyncSession, player_id: str) -> Preferences:
    """The player's preferences; the defaults if they never set any."""
    found = (
        await s.execute(
            select(_ROW.c.auto_muck, _ROW.c.always_show).where(
                _ROW.c.player_id == uuid.UUID(player_id)
            )
        )
    ).first()
    return Preferences() if found is None else Preferences(bool(found[0]), bool(found[1]))


async def write(s: AsyncSession, player_id: str, prefs: Preferences) -> None:
    """Store the player's preferences (in the caller's transaction)."""
    insert = postgresql.insert if s.get_bind().dialect.name == "postgresql" else sqlite.insert
    values = {"auto_muck": prefs.auto_muck, "always_show": prefs.always_show}
    statement = insert(PlayerPreferencesRow).values(player_id=uuid.UUID(player_id), **values)
    await s.execute(
        statement.on_conflict_do_update(
            index_elements=[_ROW.c.player_id],
            set_={**values, "updated_at": func.current_timestamp()},
        )
    )


async def preferences_of(sessions: async_sessionmaker[AsyncSession], player_id: str) -> Preferences:
    async with sessions() as s:
        return await read(s, player_id)


async def save(
    sessions: async_sessionmaker[AsyncSession], player_id: str, prefs: Preferences
) -> None:
    """Committed before it returns."""
    async with sessions.begin() as s:
        await write(s, player_id, prefs)
