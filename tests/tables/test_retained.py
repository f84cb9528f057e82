"""What hands leave behind in a table actor: nothing. After a warm-up, playing many more
hands adds no object to what the table holds, apart from what it keeps of the hands by
design: the hand in play and the texts broadcast since the previous hand began (for clients
that reconnect; app/tables/broadcast.py), both bounded. A leak per hand (a record, a timer, an
entry per hand or per seat change kept for good) shows as objects that grow with the hands
played (docs/performance.md, Connections: memory)."""

from __future__ import annotations

import asyncio
import gc
import random
import sys
import types
from collections import Counter
from typing import Any

from app.tables.config import TableConfig
from app.tables.hand import Hand
from app.tables.table import Table
from app.tables.viewer import Viewer
from tests.tables.harness import FAST, Recorder, play_hands
from tests.tables.stores import MemoryTableStore

#: shared by every table, or the test's own: not what the table keeps
_NOT_THE_TABLES = (types.ModuleType, type, types.FunctionType, types.BuiltinFunctionType,
                   types.CodeType, asyncio.AbstractEventLoop, Viewer, Hand)  # fmt: skip


def retained(table: Table) -> tuple[Counter[str], int]:
    """The objects reachable from the table (by type name) and their size, without the
    store, the clock, the viewers (the test's recorders), the hand in play and the
    broadcast texts (bounded by design, checked apart)."""
    kept = (table.broadcast.current, table.broadcast._sealed)
    stop = {id(table.store), id(table.runtime), id(table.clock), *map(id, kept)}
    seen: set[int] = set()
    counts: Counter[str] = Counter()
    size = 0
    todo: list[Any] = [table]
    while todo:
        obj = todo.pop()
        if id(obj) in seen or id(obj) in stop or isinstance(obj, _NOT_THE_TABLES):
            continue
        seen.add(id(obj))
        counts[type(obj).__qualname__] += 1
        size += sys.getsizeof(obj)
        todo.extend(gc.get_referents(obj))
    return counts, size


async def one_more(table: Table, rng: random.Random) -> tuple[Counter[str], int]:
    await play_hands(table, 1, rng)
    return retained(table)


async def test_hands_played_leave_nothing_behind_in_the_table() -> None:
    store = MemoryTableStore()
    players = [f"p{i}" for i in range(7)]
    table_id = await store.create_table(players[0], TableConfig(game="omaha", seats=6), "code")
    table = Table(await store.load_table(table_id), store, FAST)
    table.test_players = players[:6]  # type: ignore[attr-defined]
    task = asyncio.create_task(table.run())
    try:
        for pid in players:  # six seated, one spectator
            await table.request("attach", pid, viewer=Recorder(pid))
        for i, pid in enumerate(players[:6]):
            await table.request("sit", pid, seat=i, buy_in=table.config.buy_in_max, name=pid)
        rng = random.Random(29)
        await play_hands(table, 10, rng)  # warm-up: every kind of record, seat change, timer
        early = [await one_more(table, rng) for _ in range(5)]
        await play_hands(table, 40, rng)
        late = [await one_more(table, rng) for _ in range(5)]
    finally:
        task.cancel()
    # What a table holds varies from hand to hand by a few objects (other stacks, a seat
    # sitting out, a request pending): compared as the least after many more hands against
    # the most before, a leak of one object per hand would be 40 or more.
    least = min(late, key=lambda r: sum(r[0].values()))
    most = max(early, key=lambda r: sum(r[0].values()))
    grown = {k: n - most[0][k] for k, n in least[0].items() if n > most[0][k]}
    assert sum(least[0].values()) - sum(most[0].values()) < 10, grown
    assert min(size for _, size in late) - max(size for _, size in early) < 2048, grown
    # The broadcast texts: those of the hand in play and of the one before, no more.
    starts = table.broadcast._hand_starts
    assert len(starts) == 2
    assert table.records[0][0] == starts[0]
    assert [seq for seq, _, _ in table.records] == list(range(starts[0], table.seq + 1))
