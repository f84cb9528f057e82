"""The group write's two back ends, both built from the rows' declarations (`app.store.rows`):
each writer of `app.store.group.GroupWriter` commits a group of tables' writes in one
transaction through one of them.

- `CoreGroup` (SQLite): per kind of row one prebuilt Core statement, run as one
  `executemany`, after a fence statement per table.
- `PgGroup` (PostgreSQL): the whole group is ONE statement on the writer's own asyncpg
  connection, each kind of row passed as one JSON parameter (a list of objects, keys named
  as the columns) and written by its own data-modifying CTE from `json_to_recordset`. One
  round trip, atomic on its own (no BEGIN/COMMIT round trips), prepared once per
  connection, none of SQLAlchemy's per-statement work (most of the store's CPU flat out), and
  no column picked by position: a column added to a row is in the statement by its name.

The fence: each write of a table first checks that the table's epoch is still the one this
process took it with, in the write's own transaction. An UPDATE (on SQLite: it also opens the
write transaction) or, on PostgreSQL, FOR SHARE: either holds the table's row until the
commit, so a taker's bump waits for this write, or this write sees the bump (READ COMMITTED
re-checks a locked row's newest version) and writes nothing of that table. The tables
refused are what a commit returns.
"""

from __future__ import annotations

import uuid
from dataclasses import fields
from typing import Any, cast

import asyncpg
import orjson
from sqlalchemy import JSON, Table, bindparam, insert, select, update
from sqlalchemy.dialects import postgresql
from sqlalchemy.ext.asyncio import AsyncEngine
from sqlalchemy.sql.expression import Executable
from sqlalchemy.types import TypeDecorator, TypeEngine

from app.store.models import Base
from app.store.rows import (
    ROW_SETS,
    Fence,
    HandPlayerInsert,
    Row,
    SeatUpdate,
    TableWrite,
    rows_of,
)

#: seconds to open a database connection: a frozen server accepts TCP but never answers
CONNECT_TIMEOUT = 5.0

TABLES: dict[str, Table] = {t.name: t for t in Base.metadata.sorted_tables}
_TABLES, _HANDS = TABLES["tables"], TABLES["hands"]


def columns(row: type[Any]) -> tuple[str, ...]:
    """The row's fields it writes: its table's columns of the same names."""
    table = TABLES[row.TABLE]
    names = tuple(f.name for f in fields(row) if f.name not in row.FENCED_BY)
    missing = [name for name in names if name not in table.c]
    assert not missing, f"{row.__name__}: no column {missing} in {table.name}"
    return names


# ------------------------------------------------------------------------------ SQLite
def _bind_type(kind: TypeEngine[Any]) -> TypeEngine[Any]:
    """A sealed column's rows are sealed already: bound as the plain JSON they are."""
    return JSON() if isinstance(kind, TypeDecorator) else kind


def _core_statement(row: type[Row]) -> Executable:
    table = TABLES[row.TABLE]
    values: dict[str, Any] = {
        name: bindparam(name, type_=_bind_type(table.c[name].type))
        for name in columns(row)
        if name not in row.KEY
    }
    if row is HandPlayerInsert:  # the hand's server-wide number, given as its row was inserted
        values["serial"] = (
            select(_HANDS.c.serial).where(_HANDS.c.id == bindparam("hand_id")).scalar_subquery()
        )
    if not row.KEY:
        return insert(table).values(values)
    keys = [table.c[k] == bindparam("b_" + k) for k in row.KEY]
    return update(table).where(*keys).values(values)


def core_params(row: Row) -> dict[str, Any]:
    """A row as its Core statement's parameters (an update's keys as `b_<column>`)."""
    keys = row.KEY
    return {("b_" + n if n in keys else n): getattr(row, n) for n in columns(type(row))}


#: each kind of row's statement, in `ROW_SETS`' order
CORE_STATEMENTS = tuple(_core_statement(row) for _, row in ROW_SETS)
#: `update_seats`' statement (the same as a group's), for writes outside the group writer
UPDATE_SEAT = CORE_STATEMENTS[[row for _, row in ROW_SETS].index(SeatUpdate)]
FENCE = (
    update(_TABLES)
    .where(_TABLES.c.id == bindparam("b_id"), _TABLES.c.owner_epoch == bindparam("b_epoch"))
    .values(owner_epoch=_TABLES.c.owner_epoch)
)


class CoreGroup:
    """A group's transaction through SQLAlchemy Core (SQLite)."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine

    async def commit(self, writes: list[TableWrite]) -> set[uuid.UUID]:
        async with self.engine.begin() as c:
            refused = set()
            for w in writes:
                if w.epoch is not None:
                    fence = {"b_id": w.table_id, "b_epoch": w.epoch}
                    if (await c.execute(FENCE, fence)).rowcount != 1:
                        refused.add(w.table_id)
            kept = [w for w in writes if w.table_id not in refused]
            for statement, rows in zip(CORE_STATEMENTS, rows_of(kept), strict=True):
                if rows:
                    await c.execute(statement, [core_params(row) for row in rows])
            return refused

    def close(self) -> None:
        return None


# ------------------------------------------------------------------------------ PostgreSQL
_PG = postgresql.dialect()  # type: ignore[no-untyped-call]
#: the statement's parameters: the fence, then each kind of row, one JSON list each
_PARAMETERS: dict[str, type[Any]] = {"fence": Fence, **dict(ROW_SETS)}


def _pg_type(table: Table, name: str) -> str:
    return str(table.c[name].type.compile(dialect=_PG))


def _recordset(what: str) -> str:
    """`json_to_recordset` of the parameter `what`, its columns typed as the table's."""
    row = _PARAMETERS[what]
    table = TABLES[row.TABLE]
    typed = [  # (what a row is fenced by: a table's id)
        f"{f.name} {'uuid' if f.name in row.FENCED_BY else _pg_type(table, f.name)}"
        for f in fields(row)
    ]
    number = list(_PARAMETERS).index(what) + 1
    return f"json_to_recordset(${number}::json) AS u ({', '.join(typed)})"


def _names(row: type[Row], prefix: str = "") -> str:
    return ", ".join(prefix + name for name in columns(row))


def _fenced(row: type[Row]) -> str:
    """Only the rows of tables that passed the fence (a `tables` row is its table's)."""
    return f"u.{'id' if row.TABLE == 'tables' else 'table_id'} IN (SELECT id FROM fence)"


def _insert(cte: str, what: str, returning: str = "") -> str:
    row = _PARAMETERS[what]
    return (
        f"{cte} AS (\n    INSERT INTO {row.TABLE} ({_names(row)})\n"
        f"    SELECT {_names(row, 'u.')} FROM {_recordset(what)}\n"
        f"    WHERE {_fenced(row)}{returning}\n)"
    )


def _update(cte: str, what: str) -> str:
    row = _PARAMETERS[what]
    sets = ", ".join(f"{name} = u.{name}" for name in columns(row) if name not in row.KEY)
    keys = " AND ".join(f"t.{name} = u.{name}" for name in row.KEY)
    return (
        f"{cte} AS (\n    UPDATE {row.TABLE} AS t SET {sets} FROM {_recordset(what)}\n"
        f"    WHERE {keys} AND {_fenced(row)}\n)"
    )


_CTES = (
    f"""fence AS (
    SELECT t.id FROM tables AS t
    JOIN {_recordset("fence")} ON t.id = u.id
      AND (u.owner_epoch IS NULL OR t.owner_epoch = u.owner_epoch)
    FOR SHARE OF t
)""",
    _insert("new_hands", "hand", "\n    RETURNING id, serial"),
    # who was dealt in, with their hand's server-wide number (its row's, just inserted)
    f"""new_players AS (
    INSERT INTO hand_players ({_names(HandPlayerInsert)}, serial)
    SELECT {_names(HandPlayerInsert, "u.")}, h.serial FROM {_recordset("players")}
    JOIN new_hands AS h ON h.id = u.hand_id
)""",
    _update("buttons", "button"),
    _insert("actions", "action"),
    _update("ends", "end"),
    _insert("ledger_entries", "ledger"),
    _update("seat_updates", "seats"),
)
PG_GROUP = (
    "WITH\n"
    + ",\n".join(_CTES)
    + f"\nSELECT u.id FROM {_recordset('fence')} WHERE u.id NOT IN (SELECT id FROM fence)\n"
)


def pg_parameters(writes: list[TableWrite]) -> list[str]:
    """The statement's parameters for a group: each a JSON list (orjson writes the rows'
    dataclasses, UUIDs and times itself)."""
    fence = [Fence(w.table_id, w.epoch) for w in writes]
    return [orjson.dumps(rows).decode() for rows in (fence, *rows_of(writes))]


class PgGroup:
    """A group writer's own asyncpg connection (PostgreSQL), opened on first use and again
    after it broke. Taking a pooled SQLAlchemy connection per transaction (checkout, greenlet,
    reset on return) cost as much CPU as the transaction's statements."""

    def __init__(self, dsn: str) -> None:
        self.dsn = dsn
        self.connection: Any = None

    async def commit(self, writes: list[TableWrite]) -> set[uuid.UUID]:
        if self.connection is None or self.connection.is_closed():
            self.connection = await asyncpg.connect(self.dsn, timeout=CONNECT_TIMEOUT)
        refused = await self.connection.fetch(PG_GROUP, *pg_parameters(writes))
        return {cast(uuid.UUID, row[0]) for row in refused}

    def close(self) -> None:
        if self.connection is not None and not self.connection.is_closed():
            self.connection.terminate()
        self.connection = None
