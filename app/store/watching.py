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
from typing import Any, cast

from sqlalchemy import Integer, Table, Uuid, and_, bindparam, func, select, text, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.store.models import WatchedRow

#: a player's visits kept per table
VISITS = 100

_W = cast(Table, WatchedRow.__table__)
#: (player id, first hand, last hand) of a visit
Visit = tuple[str, int, int]
#: on PostgreSQL the note's commit does not wait for its WAL to reach the disk: who watched is
#: no part of a table's state (a note is never waited for; a failed one is only logged), and a
#: commit of its own a hand on every table was as many fsyncs as the group writer's
#: (bench/load.py). A crash may lose the last fraction of a second of notes, never a table's
#: write, which still waits for its own flush (and flushes these with it).
_NOT_WAITED = text("SET LOCAL synchronous_commit TO OFF")


def _statements(insert: Any) -> tuple[Any, Any]:
    """The two statements, built once with bound parameters `pid`, `tid`, `first`, `last`
    (each call then runs them for all its visits at once). The subqueries read the table
    under another name: never correlated with the row being written."""
    pid, tid = bindparam("pid", type_=Uuid), bindparam("tid", type_=Uuid)
    first, last = bindparam("first", type_=Integer), bindparam("last", type_=Integer)
    other = _W.alias("other")
    theirs = and_(other.c.player_id == pid, other.c.table_id == tid)
    count = select(func.count()).select_from(other).where(theirs).scalar_subquery()
    new = select(pid, tid, first, last).where(count < VISITS)
    columns = ["player_id", "table_id", "first_hand", "last_hand"]
    add = insert(_W).from_select(columns, new).on_conflict_do_nothing()
    newest = (
        select(func.max(other.c.first_hand))
        .where(theirs, other.c.first_hand <= first)
        .scalar_subquery()
    )
    mine = and_(_W.c.player_id == pid, _W.c.table_id == tid)
    move = (
        update(_W)
        .where(mine, _W.c.first_hand == newest, _W.c.last_hand < last)
        .values(last_hand=last)
    )
    return add, move


_BUILT: dict[tuple[str, int], tuple[Any, Any]] = {}


def _built(dialect: str) -> tuple[Any, Any]:
    """The statements for `dialect`, again if `VISITS` changed (a test lowers it)."""
    key = (dialect, VISITS)
    if key not in _BUILT:
        _BUILT[key] = _statements(postgresql.insert if dialect == "postgresql" else sqlite.insert)
    return _BUILT[key]


async def note(
    sessions: async_sessionmaker[AsyncSession], table_id: str, visits: Sequence[Visit]
) -> None:
    """Keep that each player watched the table's hands `first` to `last` (committed before it
    returns; on PostgreSQL not flushed to disk yet, `_NOT_WAITED`). Idempotent, and in any
    order: a visit's last hand only moves on."""
    tid = uuid.UUID(table_id)
    async with sessions.begin() as s:
        dialect = s.get_bind().dialect.name
        add, move = _built(dialect)
        if dialect == "postgresql":
            await s.execute(_NOT_WAITED)
        for player_id, first, last in visits:  # in order: a later visit sees an earlier one
            params = {"pid": uuid.UUID(player_id), "tid": tid, "first": first, "last": last}
            await s.execute(add, params)
            await s.execute(move, params)


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
