"""The SQL side of a table's ledger, read: every player's totals per kind, the host's
adjustments with their reasons, and the balance the ledger identity checks
(`app.tables.store_protocol`). A mixin of `SqlTableStore`; its entries are written by the
store's writes."""

from __future__ import annotations

import uuid
from typing import Any

from sqlalchemy import Select, func, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.store.models import LedgerEntry, Player, SeatRow
from app.tables.store_protocol import LEDGER_IN, Adjustment, LedgerTotal


def _ledger_of(table_id: str, *columns: Any) -> Select[Any]:
    """A table's ledger entries: the player, their name, then `columns`."""
    return (
        select(LedgerEntry.player_id, Player.display_name, *columns)
        .join(Player, Player.id == LedgerEntry.player_id)
        .where(LedgerEntry.table_id == uuid.UUID(table_id))
    )


class LedgerStore:
    sessions: async_sessionmaker[AsyncSession]

    async def ledger_totals(self, table_id: str) -> list[LedgerTotal]:
        async with self.sessions() as s:
            rows = await s.execute(
                _ledger_of(
                    table_id, Player.bot, LedgerEntry.kind, func.sum(LedgerEntry.amount)
                ).group_by(LedgerEntry.player_id, Player.display_name, Player.bot, LedgerEntry.kind)
            )
            return [
                LedgerTotal(str(pid), name, bool(bot), kind, int(total))
                for pid, name, bot, kind, total in rows
            ]

    async def adjustments(self, table_id: str) -> list[Adjustment]:
        async with self.sessions() as s:
            rows = await s.execute(
                _ledger_of(table_id, LedgerEntry.amount, LedgerEntry.reason)
                .where(LedgerEntry.kind == "adjustment")
                .order_by(LedgerEntry.id)
            )
            return [
                Adjustment(str(pid), name, int(amount), reason or "")
                for pid, name, amount, reason in rows
            ]

    # -------------------------------------------------------------- for checks and tests
    async def ledger_balance(self, table_id: str) -> int:
        """Chips that entered the table minus chips that left it."""
        tid = uuid.UUID(table_id)
        async with self.sessions() as s:
            rows = await s.execute(
                select(LedgerEntry.kind, func.sum(LedgerEntry.amount))
                .where(LedgerEntry.table_id == tid)
                .group_by(LedgerEntry.kind)
            )
            return sum(int(total) * (1 if kind in LEDGER_IN else -1) for kind, total in rows)

    async def stacks_total(self, table_id: str) -> int:
        async with self.sessions() as s:
            total = await s.scalar(
                select(func.coalesce(func.sum(SeatRow.stack), 0)).where(
                    SeatRow.table_id == uuid.UUID(table_id)
                )
            )
            return int(total or 0)
