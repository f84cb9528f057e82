"""The review index: each finished hand's facts per player (app.history.stats), written to
`hand_stats` the first time a list or a statistic needs them, a batch at a time.

The facts come from the spectator's record of the hand (`build(stored, None)`): no card
but the shown ones is in it. Each batch is a few milliseconds per hand of replay, on a
thread; one batch runs at a time in a process.
"""

from __future__ import annotations

import asyncio
from typing import Any

from app.history.record import StoredHand, build
from app.history.stats import as_row, facts
from app.store.history import HistoryStore
from app.store.review import INDEX_BATCH, ReviewStore

#: batches a request may wait for before it answers with what is indexed so far
BATCHES_PER_REQUEST = 3


def fact_rows(hands: list[StoredHand]) -> list[dict[str, Any]]:
    rows = []
    for stored in hands:
        record = build(stored, None, equity=False)
        players = stored.record["players"]
        by_seat = {s["seat"]: s["position"] for s in record["seats"]}
        for f in facts(record):
            row = as_row(f)
            row["serial"] = stored.serial
            row["player_id"] = players[by_seat[f.seat]]
            rows.append(row)
    return rows


class Index:
    def __init__(self, history: HistoryStore, review: ReviewStore) -> None:
        self.history = history
        self.review = review
        self.lock = asyncio.Lock()

    async def ensure(self, *, table_id: str | None = None, player_id: str | None = None) -> bool:
        """Index the hands of a table (or that a player may review) that have no facts yet,
        up to `BATCHES_PER_REQUEST` batches. True when none is left."""
        async with self.lock:
            for _ in range(BATCHES_PER_REQUEST):
                pending = await self.review.unindexed(table_id=table_id, player_id=player_id)
                if not pending:
                    return True
                hands = await self.history.hands(pending)
                await self.review.save_facts(await asyncio.to_thread(fact_rows, hands))
                if len(pending) < INDEX_BATCH:
                    return True
            return False
