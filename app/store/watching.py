"""The hands a player watched (`watched`, migration 0018): a row per visit, the first and the
last hand number at the table that the player watched without being dealt in.

The table notes them as hands start (and as a spectator comes in during a hand:
app/tables/watching.py): a visit that goes on moves its last hand on, a new one is a row.
A player has at most `VISITS` rows at a table; beyond, their last visit grows to take in the
next (the hands between are listed as watched: they are the table's, which whoever watches
may open). So a stranger's comings and goings are bounded, whatever they send.

Two statements, both writes (on SQLite a transaction that read first and then writes is
refused when another wrote meanwhile): the insert of a new visit (none if it is there, or
the player has `VISITS` already), then the last hand of the newest visit that began at or
before it moved on (never back).
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import cast

from sqlalchemy import Integer, Table, Uuid, and_, func, literal, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.store.models import WatchedRow

#: a player's visits kept per table
VISITS = 100

_W = cast(Table, WatchedRow.__table__)
#: (player id, first hand, last hand) of a visit
Visit = tuple[str, int, int]


async def note(
    sessions: async_sessionmaker[AsyncSession], table_id: str, visits: Sequence[Visit]
) -> None:
    """Keep that each player watched the table's hands `first` to `last` (committed before it
    returns). Idempotent, and in any order: a visit's last hand only moves on."""
    tid = uuid.UUID(table_id)
    async with sessions.begin() as s:
        dialect = s.get_bind().dialect.name
        insert = postgresql.insert if dialect == "postgresql" else sqlite.insert
        for player_id, first, last in visits:
            pid = uuid.UUID(player_id)
            mine = and_(_W.c.player_id == pid, _W.c.table_id == tid)
            # The subqueries read the table under another name: never correlated with the
            # row being written.
            other = _W.alias("other")
            theirs = and_(other.c.player_id == pid, other.c.table_id == tid)
            count = select(func.count()).select_from(other).where(theirs).scalar_subquery()
            new = select(
                literal(pid, Uuid), literal(tid, Uuid), literal(first, Integer),
                literal(last, Integer),
            ).where(count < VISITS)  # fmt: skip
            columns = ["player_id", "table_id", "first_hand", "last_hand"]
            await s.execute(insert(_W).from_select(columns, new).on_conflict_do_nothing())
            newest = (
                select(func.max(other.c.first_hand))
                .where(theirs, other.c.first_hand <= first)
                .scalar_subquery()
            )
            await s.execute(
                update(_W)
                .where(mine, _W.c.first_hand == newest, _W.c.last_hand < last)
                .values(last_hand=last)
            )


async def visits_of(
    sessions: async_sessionmaker[AsyncSession], player_id: str, table_id: str
) -> list[tuple[int, int]]:
    """The player's visits to the table, (first, last), in order."""
    async with sessions() as s:
        rows = await s.execute(
            select(_W.c.first_hand, _W.c.last_hand)
            .where(_W.c.player_id == uuid.UUID(player_id), _W.c.table_id == uuid.UUID(table_id))
            .order_by(_W.c.first_hand)
        )
        return [(int(r.first_hand), int(r.last_hand)) for r in rows]
