"""A table as stored, read back for its actor after a restart (`SqlTableStore.load_table`):
its settings, seats, chat, the hand in play with its actions and how long its player to act
has had, its session's seed and the last hand's blind seats."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.store.deals import DealStore
from app.store.models import ChatRow, HandActionRow, HandRow, Player, SeatRow, TableRow
from app.store.resume import ResumeStore
from app.store.rows import SEAT_COLUMNS, SEAT_FLAGS
from app.tables.config import TableConfig
from app.tables.seat import Seat, SeatState
from app.tables.store_protocol import CHAT_KEPT, StoredHand, StoredTable


def seconds_between(start: Any, end: Any) -> float | None:
    """Seconds from `start` to `end` (database timestamps; SQLite's may come back as text or
    without a zone), or None when they cannot be compared."""
    try:
        if isinstance(end, str):
            end = datetime.fromisoformat(end)
        if start.tzinfo is None:
            start = start.replace(tzinfo=UTC)
        if end.tzinfo is None:
            end = end.replace(tzinfo=UTC)
        return max(0.0, float((end - start).total_seconds()))
    except (AttributeError, TypeError, ValueError):
        return None


def _seat(r: SeatRow, bot: bool) -> Seat:
    flags = {name: getattr(r, name) for name in SEAT_FLAGS}
    return Seat(
        player_id=str(r.player_id),
        **{name: getattr(r, name) for name in SEAT_COLUMNS if name not in SEAT_FLAGS},
        state=SeatState.from_flags(**flags),
        pending_adjust_reason=r.pending_adjust_reason or "",
        bot=bot,
        sit_out_next=r.sit_out_next,
        sit_out_next_bb=r.sit_out_next_bb,
        auto_muck=r.auto_muck,
        always_show=r.always_show,
        client_seed=r.client_seed or "",
        away_since=r.away_since,
    )


async def _open_hand(s: AsyncSession, table_id: uuid.UUID) -> StoredHand | None:
    row = await s.scalar(
        select(HandRow)
        .where(HandRow.table_id == table_id, HandRow.ended_at.is_(None))
        .order_by(HandRow.number.desc())
        .limit(1)
    )
    if row is None:
        return None
    actions = list(
        await s.scalars(
            select(HandActionRow)
            .where(HandActionRow.hand_id == row.id)
            .order_by(HandActionRow.counter)
        )
    )
    # How long the player to act has had: since the last stored action (or the deal), on the
    # database's clock, which stamped both.
    last = actions[-1].created_at if actions else row.started_at
    now = await s.scalar(select(func.current_timestamp()))
    return StoredHand(
        id=str(row.id),
        number=row.number,
        record=row.record,
        deck=list(row.deck),
        actions=[
            {"player": a.player, "kind": a.kind, "amount": a.amount, "agree": a.agree}
            for a in actions
        ],
        elapsed=seconds_between(last, now),
        deal=row.deal,
    )


async def load_table(sessions: async_sessionmaker[AsyncSession], table_id: str) -> StoredTable:
    tid = uuid.UUID(table_id)
    async with sessions() as s:
        row = await s.get_one(TableRow, tid)
        seats = [
            _seat(r, bot)
            for r, bot in await s.execute(
                select(SeatRow, Player.bot)
                .join(Player, Player.id == SeatRow.player_id)
                .where(SeatRow.table_id == tid)
            )
        ]
        chat = list(
            await s.scalars(
                select(ChatRow)
                .where(ChatRow.table_id == tid)
                .order_by(ChatRow.id.desc())
                .limit(CHAT_KEPT)
            )
        )
        return StoredTable(
            id=str(row.id),
            code=row.code,
            host_id=str(row.host_id),
            config=TableConfig.model_validate(row.config),
            button=row.button,
            paused=row.paused,
            hand_number=row.hand_number,
            seats=seats,
            hand=await _open_hand(s, tid),
            next_config=TableConfig.model_validate(row.next_config) if row.next_config else None,
            requests=list(row.requests or []),
            bomb_pot_next=row.bomb_pot_next,
            deal_seed=await DealStore.current_seed(s, tid),
            last_blinds=await ResumeStore.last_blinds(s, tid),
            turn_clock=row.turn_clock,
            chat=[
                {"player_id": str(c.player_id), "name": c.name, "seat": c.seat, "text": c.text}
                for c in reversed(chat)
            ],
        )
