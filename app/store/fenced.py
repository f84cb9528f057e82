"""What the mixins of `SqlTableStore` (`DealStore`, `ResumeStore`) write through: its
sessions and its fence, and the fenced update of some columns of one seat's row that
`set_away`, `set_client_seed` and `save_switches` each had a copy of.
"""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable
from typing import Any

from sqlalchemy import update
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.store.models import SeatRow


class FencedWrites:
    sessions: async_sessionmaker[AsyncSession]
    #: refuses the write (rolled back) once another process took the table (`SqlTableStore`)
    _fence: Callable[[AsyncSession, str], Awaitable[None]]

    async def _update_seat(self, table_id: str, seat: int, **values: Any) -> None:
        """Set `values` (column: value) on the seat's row, in a fenced transaction of its own."""
        async with self.sessions.begin() as s:
            await self._fence(s, table_id)
            await s.execute(
                update(SeatRow)
                .where(SeatRow.table_id == uuid.UUID(table_id), SeatRow.number == seat)
                .values(**values)
            )
