"""The SQL side of verifiable deals (docs/fairness.md): server seeds per table session,
players' client seeds, and the export of a table's deals for `python -m app verify-deals`.

A mixin of `SqlTableStore` (the contract: `app.tables.store_protocol.TableStore`), so the
table store's own module keeps to its hot path. Seeds are sealed at rest (`decks.Sealed`).
"""

from __future__ import annotations

import asyncio
import uuid
from datetime import UTC, datetime
from typing import Any, cast

from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncSession

from app.history.deals import FORMAT, export_session
from app.store.fenced import FencedWrites
from app.store.models import DealSeedRow, HandRow, TableRow
from app.tables.fairness import HandDeal, ServerSeed
from app.tables.store_protocol import DealSeedStart

#: hands an export holds at most (the newest); a session of a home game is far fewer
EXPORT_HANDS = 5000
#: hands read in one query (each decoded and its deck unsealed on the event loop)
EXPORT_CHUNK = 500


class DealStore(DealSeedStart, FencedWrites):
    async def end_deal_seed(
        self,
        table_id: str,
        seed_id: str | None,
        reveal: bool,
        new: tuple[str, bytes, str] | None = None,
    ) -> None:
        tid = uuid.UUID(table_id)
        async with self.sessions.begin() as s:
            await self._fence(s, table_id)
            if seed_id is not None:
                await s.execute(
                    update(DealSeedRow)
                    .where(DealSeedRow.id == uuid.UUID(seed_id), DealSeedRow.table_id == tid)
                    .values(ended_at=datetime.now(UTC), revealed=reveal)
                )
            if new is not None:
                s.add(DealSeedRow(id=uuid.UUID(new[0]), table_id=tid, seed=new[1].hex(),
                                  seed_hash=new[2]))  # fmt: skip

    async def reveal_seeds(self, table_ids: list[str]) -> None:
        ids = [uuid.UUID(t) for t in table_ids]
        if not ids:
            return
        async with self.sessions.begin() as s:
            configs = await s.execute(
                select(TableRow.id, TableRow.config).where(TableRow.id.in_(ids))
            )
            shown = [tid for tid, config in configs
                     if cast(dict[str, Any], config).get("reveal_seed", True)]  # fmt: skip
            if shown:
                await s.execute(
                    update(DealSeedRow)
                    .where(DealSeedRow.table_id.in_(shown), DealSeedRow.ended_at.is_not(None))
                    .values(revealed=True)
                )

    async def set_client_seed(self, table_id: str, seat: int, seed: str) -> None:
        await self._update_seat(table_id, seat, client_seed=seed)

    @staticmethod
    async def current_seed(s: AsyncSession, table_id: uuid.UUID) -> ServerSeed | None:
        """The table's session seed not yet ended (for `load_table`)."""
        row = await s.scalar(
            select(DealSeedRow)
            .where(DealSeedRow.table_id == table_id, DealSeedRow.ended_at.is_(None))
            .order_by(DealSeedRow.created_at.desc())
            .limit(1)
        )
        return None if row is None else ServerSeed(str(row.id), bytes.fromhex(row.seed))

    async def export_deals(self, table_id: str) -> dict[str, Any]:
        """Every session of the table with its hands' commitments and client seeds, and the
        server seed of each session that ended revealed (docs/fairness.md, the export).

        The hands are read `EXPORT_CHUNK` at a time, and their commitments (52 hashes a hand)
        computed in a thread: 5,000 hands held the event loop for a few hundred ms."""
        tid = uuid.UUID(table_id)
        async with self.sessions() as s:
            query = select(DealSeedRow).where(DealSeedRow.table_id == tid)
            stored = await s.scalars(query.order_by(DealSeedRow.created_at))
            seeds = [(str(row.id), row.seed_hash, bytes.fromhex(row.seed) if row.revealed else None)
                     for row in stored]  # fmt: skip
            rows: list[tuple[str, int, list[int], dict[str, Any]]] = []
            below: int | None = None
            while len(rows) < EXPORT_HANDS:
                hands = (select(HandRow.id, HandRow.number, HandRow.deck, HandRow.deal)
                         .where(HandRow.table_id == tid, HandRow.deal.is_not(None))
                         .order_by(HandRow.number.desc())
                         .limit(min(EXPORT_CHUNK, EXPORT_HANDS - len(rows))))  # fmt: skip
                if below is not None:
                    hands = hands.where(HandRow.number < below)
                chunk = [(str(h), cast(int, n), list(cast(list[int], d)), cast(dict[str, Any], st))
                         for h, n, d, st in await s.execute(hands)]  # fmt: skip
                rows += chunk
                if len(chunk) < EXPORT_CHUNK:
                    break
                below = chunk[-1][1]
        sessions = await asyncio.to_thread(_sessions, seeds, rows)
        return {
            "format": FORMAT,
            "table": table_id,
            "sessions": sessions,
            "complete": len(rows) < EXPORT_HANDS,
        }


def _sessions(
    seeds: list[tuple[str, str, bytes | None]],
    rows: list[tuple[str, int, list[int], dict[str, Any]]],
) -> list[dict[str, Any]]:
    """The export's sessions from the stored seeds and hands (newest first), oldest first."""
    by_seed: dict[str, list[tuple[str, int, HandDeal]]] = {}
    for hand_id, number, deck, stored in reversed(rows):
        deal = HandDeal.from_stored(stored, deck)
        if deal is not None:
            by_seed.setdefault(deal.seed_id, []).append((hand_id, number, deal))
    return [
        export_session(digest, seed, by_seed.get(seed_id, [])) for seed_id, digest, seed in seeds
    ]
