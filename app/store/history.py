"""Reading stored hands for review: lists newest first by cursor, one hand, a table's ledger.

Lists read only the indexed columns (`hands.serial`, `game`, `pot`, `hand_players`), never
the hands' JSON, so a page costs the same on a table of ten hands or a hundred thousand.
The cursor is the last hand number of a page: the next page is the hands numbered below it.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Select, select, update
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.history.record import StoredHand
from app.store.models import (
    HandActionRow,
    HandPlayerRow,
    HandRow,
    Player,
    TableRow,
)

#: The most hands a page, and a session export, may hold.
PAGE_MAX = 200
EXPORT_MAX = 5000


@dataclass(frozen=True)
class HandSummary:
    number: int
    table: str  # the table's name
    code: str  # the table's invite code
    hand_at_table: int
    game: str
    pot: int
    started_at: datetime
    ended_at: datetime

    def to_json(self) -> dict[str, Any]:
        return {
            "number": self.number,
            "table": self.table,
            "code": self.code,
            "hand_at_table": self.hand_at_table,
            "game": self.game,
            "pot": self.pot,
            "started_at": self.started_at.isoformat(),
            "ended_at": self.ended_at.isoformat(),
        }


@dataclass(frozen=True)
class HandAccess:
    """Who may open a hand: its table, the table's host and the players dealt in."""

    table_id: str
    code: str
    host_id: str
    players: tuple[str, ...]


def _list_query(
    game: str | None, min_pot: int | None, cursor: int | None, limit: int
) -> Select[Any]:
    query = (
        select(
            HandRow.serial,
            TableRow.config,
            TableRow.code,
            HandRow.number,
            HandRow.game,
            HandRow.pot,
            HandRow.started_at,
            HandRow.ended_at,
        )
        .join(TableRow, TableRow.id == HandRow.table_id)
        .where(HandRow.ended_at.is_not(None))
        .order_by(HandRow.serial.desc())
        .limit(limit)
    )
    if game is not None:
        query = query.where(HandRow.game == game)
    if min_pot is not None:
        query = query.where(HandRow.pot >= min_pot)
    if cursor is not None:
        query = query.where(HandRow.serial < cursor)
    return query


def _summaries(rows: Any) -> list[HandSummary]:
    return [
        HandSummary(
            number=int(r.serial),
            table=str(r.config.get("name", "")),
            code=r.code,
            hand_at_table=r.number,
            game=r.game or "",
            pot=int(r.pot or 0),
            started_at=r.started_at,
            ended_at=r.ended_at,
        )
        for r in rows
    ]


class HistoryStore:
    def __init__(self, sessions: async_sessionmaker[AsyncSession]) -> None:
        self.sessions = sessions

    async def table_hands(
        self,
        table_id: str,
        *,
        game: str | None = None,
        min_pot: int | None = None,
        cursor: int | None = None,
        limit: int = 50,
    ) -> list[HandSummary]:
        query = _list_query(game, min_pot, cursor, limit).where(
            HandRow.table_id == uuid.UUID(table_id)
        )
        async with self.sessions() as s:
            return _summaries(await s.execute(query))

    async def player_hands(
        self,
        player_id: str,
        *,
        game: str | None = None,
        min_pot: int | None = None,
        cursor: int | None = None,
        limit: int = 50,
    ) -> list[HandSummary]:
        query = _list_query(game, min_pot, cursor, limit).join(
            HandPlayerRow, HandPlayerRow.hand_id == HandRow.id
        )
        query = query.where(HandPlayerRow.player_id == uuid.UUID(player_id))
        if cursor is not None:  # the index is (player_id, serial): bound it there too
            query = query.where(HandPlayerRow.serial < cursor)
        async with self.sessions() as s:
            return _summaries(await s.execute(query))

    async def serial_at(self, table_id: str, at_table: int) -> int | None:
        """The server's number of the table's finished hand `at_table`."""
        async with self.sessions() as s:
            found = await s.scalar(
                select(HandRow.serial).where(
                    HandRow.table_id == uuid.UUID(table_id),
                    HandRow.number == at_table,
                    HandRow.ended_at.is_not(None),
                )
            )
            return int(found) if found is not None else None

    async def serial_of(self, hand_id: str) -> int | None:
        """The server's number of the finished hand `hand_id` (a table's id for it)."""
        async with self.sessions() as s:
            found = await s.scalar(
                select(HandRow.serial).where(
                    HandRow.id == uuid.UUID(hand_id), HandRow.ended_at.is_not(None)
                )
            )
            return int(found) if found is not None else None

    async def summaries(self, numbers: list[int]) -> list[HandSummary]:
        """The list entries of finished hands `numbers`, newest first."""
        if not numbers:
            return []
        query = _list_query(None, None, None, len(numbers)).where(HandRow.serial.in_(numbers))
        async with self.sessions() as s:
            return _summaries(await s.execute(query))

    async def access(self, number: int) -> HandAccess | None:
        """Who may see finished hand `number` (None: no such finished hand)."""
        async with self.sessions() as s:
            row = (
                await s.execute(
                    select(HandRow.id, TableRow.id, TableRow.code, TableRow.host_id)
                    .join(TableRow, TableRow.id == HandRow.table_id)
                    .where(HandRow.serial == number, HandRow.ended_at.is_not(None))
                )
            ).first()
            if row is None:
                return None
            players = await s.scalars(
                select(HandPlayerRow.player_id)
                .where(HandPlayerRow.hand_id == row[0])
                .order_by(HandPlayerRow.position)
            )
            return HandAccess(str(row[1]), row[2], str(row[3]), tuple(str(p) for p in players))

    async def hands(self, numbers: list[int]) -> list[StoredHand]:
        """The stored hands numbered `numbers`, oldest first (deck included: for the
        server's replay only)."""
        if not numbers:
            return []
        async with self.sessions() as s:
            rows = (
                await s.execute(
                    select(HandRow, TableRow.config)
                    .join(TableRow, TableRow.id == HandRow.table_id)
                    .where(HandRow.serial.in_(numbers), HandRow.ended_at.is_not(None))
                    .order_by(HandRow.serial)
                )
            ).all()
            ids = [r[0].id for r in rows]
            actions: dict[uuid.UUID, list[dict[str, Any]]] = {i: [] for i in ids}
            for a in await s.scalars(
                select(HandActionRow)
                .where(HandActionRow.hand_id.in_(ids))
                .order_by(HandActionRow.hand_id, HandActionRow.counter)
            ):
                actions[a.hand_id].append(
                    {"player": a.player, "kind": a.kind, "amount": a.amount, "agree": a.agree}
                )
            player_ids = {uuid.UUID(p) for r in rows for p in r[0].record.get("players", ())}
            names = {
                str(p.id): p.display_name
                for p in await s.scalars(select(Player).where(Player.id.in_(player_ids)))
            }
        out = []
        for row in rows:
            hand: HandRow = row[0]
            config: dict[str, Any] = row[1]
            out.append(
                StoredHand(
                    serial=int(hand.serial or 0),
                    table_name=str(config.get("name", "")),
                    table_seats=int(config.get("seats", 10)),
                    small_blind=int(config.get("small_blind", 0)),
                    started_at=hand.started_at,
                    ended_at=hand.ended_at,
                    record=hand.record,
                    deck=list(hand.deck),
                    actions=actions[hand.id],
                    names=names,
                    at_table=hand.number,
                )
            )
        return out

    async def luck_pending(self, table_id: str) -> list[int]:
        """A table's finished hands whose all-in luck is not stored yet, oldest first."""
        async with self.sessions() as s:
            rows = await s.scalars(
                select(HandRow.serial)
                .where(
                    HandRow.table_id == uuid.UUID(table_id),
                    HandRow.ended_at.is_not(None),
                    HandRow.luck.is_(None),
                )
                .order_by(HandRow.serial)
            )
            return [int(n or 0) for n in rows]

    async def save_luck(self, luck: dict[int, dict[str, float]]) -> None:
        async with self.sessions.begin() as s:
            for number, values in luck.items():
                await s.execute(update(HandRow).where(HandRow.serial == number).values(luck=values))

    async def luck_totals(self, table_id: str) -> dict[str, float]:
        """Each player's all-in luck summed over the table's hands whose luck is stored."""
        total: dict[str, float] = {}
        async with self.sessions() as s:
            rows = await s.scalars(
                select(HandRow.luck).where(
                    HandRow.table_id == uuid.UUID(table_id), HandRow.luck.is_not(None)
                )
            )
            for values in rows:
                for player_id, value in (values or {}).items():
                    total[player_id] = total.get(player_id, 0.0) + float(value)
        return total

    async def table_numbers(
        self,
        table_id: str,
        *,
        since: int | None = None,
        until: int | None = None,
        limit: int | None = EXPORT_MAX,
    ) -> list[int]:
        """The numbers of a table's finished hands, oldest first (at most `limit`)."""
        query = (
            select(HandRow.serial)
            .where(HandRow.table_id == uuid.UUID(table_id), HandRow.ended_at.is_not(None))
            .order_by(HandRow.serial)
            .limit(limit)
        )
        if since is not None:
            query = query.where(HandRow.serial >= since)
        if until is not None:
            query = query.where(HandRow.serial <= until)
        async with self.sessions() as s:
            return [int(n or 0) for n in await s.scalars(query)]
