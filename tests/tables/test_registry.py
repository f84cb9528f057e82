"""The registry: a table whose actor fails is restarted from the store; the others go on."""

from __future__ import annotations

from typing import NoReturn

import pytest

from app.tables import registry as registries
from app.tables.config import TableConfig
from app.tables.errors import TableError
from app.tables.registry import TableRegistry
from app.tables.table import Runtime
from app.tables.viewer import CLOSE_RESTART, Viewer
from tests.tables.stores import MemoryTableStore
from tests.waits import until


async def test_a_failing_table_restarts_from_the_store_without_disturbing_others(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(registries, "BACKOFF", (0.0, 0.0))  # restarted at once, not in 0.1 s
    store = MemoryTableStore()
    runtime = Runtime(between_hands=0, clock_enabled=False, deal_unwatched=True)
    registry = TableRegistry(store, runtime)
    first = await registry.create("h", TableConfig(seats=3, decision_time=0))
    other = await registry.create("h", TableConfig(seats=3, decision_time=0))
    for t in (first, other):
        await t.request("sit", "h", seat=0, buy_in=100, name="h")
        await t.request("sit", "a", seat=1, buy_in=100, name="a")
        await t.quiet()
    assert first.hand is not None and other.hand is not None
    hand = first.hand
    actor = hand.players[hand.state.actor or 0]
    await first.request("act", actor, hand=hand.id, counter=0, action="call")
    watcher = Viewer("a")
    closed: list[int] = []
    watcher.on_close = lambda code, reason: closed.append(code)
    await first.request("attach", "a", viewer=watcher)

    with pytest.raises(TableError) as e:  # a bug: an attach without its viewer
        await first.request("attach")
    assert e.value.code == "internal"
    await until(lambda: registry.tables.get(first.id) not in (None, first))
    restarted = registry.get(first.id)
    assert restarted is not first
    assert closed == [CLOSE_RESTART]  # its viewers reconnect for a snapshot
    assert restarted.hand is not None and restarted.hand.id == hand.id
    assert restarted.hand.counter == 1
    assert registry.get(other.id) is other and not registry.tasks[other.id].done()
    await registry.close()


async def test_a_created_table_runs_from_what_was_stored_without_a_load() -> None:
    """A new table's load, after its row was stored, could time out on a busy database: the
    host got a 500 and the table stayed stored and open, never running (404 to its code until
    the process restarted), counting towards the host's tables. Created is taken: nothing is
    read back, so nothing after the row's write can fail."""
    store = MemoryTableStore()

    async def no_load(table_id: str) -> NoReturn:
        raise TimeoutError("the database is too busy to read")

    store.load_table = no_load  # type: ignore[method-assign]
    registry = TableRegistry(store, Runtime(between_hands=0, clock_enabled=False))
    config = TableConfig(seats=3, decision_time=0)
    table = await registry.create("h", config)
    assert registry.get(table.id) is table and await registry.find(table.id) is table
    assert store.epochs[table.id] == 1  # written with the epoch the store created it with
    assert (table.id, table.code) == (store.tables[table.id].id, store.tables[table.id].code)
    assert table.config == config and table.host_id == "h"
    assert (await table.request("sit", "h", seat=0, buy_in=100, name="h"))["status"] == "seated"
    assert store.tables[table.id].seats[0].player_id == "h"  # its writes are stored
    await registry.close()
