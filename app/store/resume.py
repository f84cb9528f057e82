"""The SQL side of what a table resumes with after a restart, beyond its seats and open hand:
when each seat's player went away (the away grace continues), and the last hand's blind
seats (the dead button places the next hand from them); and the notes kept in a hand's
record once it is over (its rabbit hunt, cards shown by choice: app/tables/after.py).

A mixin of `SqlTableStore` (the table store contract, `app.tables.store_protocol.TableStore`).
"""

from __future__ import annotations

import uuid
from typing import Any

from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncSession

from app.store.fenced import FencedWrites
from app.store.models import HandRow


class ResumeStore(FencedWrites):
    async def set_away(self, table_id: str, seat: int, since: float | None) -> None:
        await self._update_seat(table_id, seat, away_since=since)

    async def note_hand(self, table_id: str, hand_id: str, after: list[dict[str, Any]]) -> None:
        """The record's `after` notes, in a fenced transaction of its own."""
        hid = uuid.UUID(hand_id)
        async with self.sessions.begin() as s:
            await self._fence(s, table_id)
            record = await s.scalar(select(HandRow.record).where(HandRow.id == hid))
            if record is None:
                raise LookupError(f"no stored hand {hand_id}")
            await s.execute(
                update(HandRow).where(HandRow.id == hid).values(record={**record, "after": after})
            )

    @staticmethod
    async def last_blinds(s: AsyncSession, table_id: uuid.UUID) -> tuple[int | None, int | None]:
        """The blind seats of the table's last hand (its record), for `load_table`."""
        record = await s.scalar(
            select(HandRow.record)
            .where(HandRow.table_id == table_id)
            .order_by(HandRow.number.desc())
            .limit(1)
        )
        blinds = (record or {}).get("blind_seats") or (None, None)
        return blinds[0], blinds[1]
