"""What the host and strangers can do to a table, bounded and visible: adjustments announced to
everyone and kept under the chip maximum, closing a table, pending seat requests, and names
that look alike."""

from __future__ import annotations

import pytest

from app.tables.config import MAX_CHIPS, TableConfig
from app.tables.errors import TableError
from app.tables.registry import TableRegistry
from app.tables.table import CLOSE_GRACE, Runtime
from app.tables.viewer import CLOSE_TABLE_CLOSED
from tests.tables.harness import FakeClock, Harness, Recorder, on, start
from tests.tables.stores import MemoryTableStore
from tests.waits import until


async def attach(h: Harness, player_id: str | None) -> Recorder:
    viewer = Recorder(player_id)
    await h.table.request("attach", player_id, viewer=viewer)
    return viewer


async def finish_hand(h: Harness) -> None:
    while h.table.hand is not None and not h.table.hand.state.complete:
        await h.passive()
    await h.settle()


async def test_an_adjustment_is_announced_to_everyone_at_the_table() -> None:
    h = await start(TableConfig(seats=4, decision_time=0))
    await h.table.request("pause", "host")
    await h.sit("host", 0)
    await h.sit("a", 1)
    spectator, player = await attach(h, None), await attach(h, "a")
    await h.table.request("adjust", "host", seat=1, amount=-30)
    for viewer in (spectator, player):
        (event,) = viewer.of("adjusted")
        assert event["seat"] == 1 and event["player_id"] == "a" and event["amount"] == -30
        assert event["by"] == "host" and event["stack"] == 70 and event["after_hand"] is False
    # During a hand it is announced at once, applied after the hand.
    await h.table.request("resume", "host")
    await h.settle()
    assert h.table.hand is not None
    await h.table.request("adjust", "host", seat=0, amount=25)
    (event,) = [e for e in spectator.of("adjusted") if e["seat"] == 0]
    assert event["after_hand"] is True and event["amount"] == 25 and event["by"] == "host"
    await h.stop()


async def test_pending_adjustments_respect_the_chip_maximum() -> None:
    h = await start(TableConfig(seats=4, decision_time=0))
    await h.sit("host", 0)
    await h.sit("a", 1)
    await h.settle()
    assert h.table.hand is not None  # adjustments now wait for the hand's end
    await h.table.request("adjust", "host", seat=1, amount=MAX_CHIPS - 100)
    for _ in range(2):
        with pytest.raises(TableError) as refused:
            await h.table.request("adjust", "host", seat=1, amount=MAX_CHIPS)
        assert refused.value.code == "bad_amount"
    with pytest.raises(TableError):
        await h.table.request("adjust", "host", seat=1, amount=1)
    await h.table.request("pause", "host")
    await finish_hand(h)
    seat = h.table.seats[1]
    assert seat is not None and seat.stack <= MAX_CHIPS
    assert h.balance_ok()
    await h.stop()


async def test_the_host_closes_a_table_after_the_hand_and_its_records_stay() -> None:
    h = await start(TableConfig(seats=4, decision_time=0))
    await h.sit("host", 0)
    await h.sit("a", 1)
    watcher = await attach(h, "a")
    await h.settle()
    assert h.table.hand is not None
    with pytest.raises(TableError) as refused:
        await h.table.request("close", "a")
    assert refused.value.code == "not_host"
    assert (await h.table.request("close", "host"))["status"] == "after_hand"
    assert (await h.store.load_table(h.table.id)).paused  # a crash now deals no more hands
    await finish_hand(h)
    await until(lambda: h.table.closed)
    assert not h.task.done()  # the answers are sent first
    h.clock.advance(CLOSE_GRACE)
    await h.task  # then it ends
    assert h.table.closed and h.task.done() and h.task.exception() is None
    assert all(seat is None for seat in h.table.seats)  # everyone cashed out
    assert h.store.balance(h.table.id) == 0  # chips conserved: all of them left as cash-outs
    assert h.table.id in h.store.closed and h.table.id not in await h.store.open_tables()
    assert watcher.closed is not None and watcher.closed[0] == CLOSE_TABLE_CLOSED
    assert watcher.of("closed"), "everyone is told"
    assert [k for _, _, k, _ in h.store.ledger].count("cash_out") == 2  # the records stay


async def test_a_closed_table_leaves_the_registry_and_is_not_restored() -> None:
    store, clock = MemoryTableStore(), FakeClock()
    registry = TableRegistry(store, on(clock))
    table = await registry.create("host", TableConfig(decision_time=0))
    assert (await table.request("close", "host"))["status"] == "closed"
    clock.advance(CLOSE_GRACE)
    await registry.tasks[table.id]
    await until(lambda: table.id not in registry.tables)  # its done callback
    again = TableRegistry(store, on(clock))
    await again.start()
    with pytest.raises(TableError):
        await again.find(table.id)
    await registry.close()
    await again.close()


async def test_pending_seat_requests_are_bounded() -> None:
    runtime = Runtime(between_hands=0, clock_enabled=False, away_grace=3600, seat_requests=2)
    h = await start(TableConfig(seats=6, approval_required=True, decision_time=0), runtime)
    for n, pid in enumerate(("a", "b")):
        assert (await h.sit(pid, n + 1))["status"] == "requested"
    with pytest.raises(TableError) as refused:
        await h.sit("c", 3)
    assert refused.value.code == "too_many_requests"
    await h.table.request("refuse", "host", player_id="a")
    assert (await h.sit("c", 3))["status"] == "requested"
    await h.stop()


@pytest.mark.parametrize(
    "twin", ["alice", "ALICE", " Alice ", "Аlice", "Alíce", "A1ice", "Al\u0131ce", "Ａｌｉｃｅ"]
)
async def test_no_two_players_whose_names_look_the_same(twin: str) -> None:
    h = await start(TableConfig(seats=4, decision_time=0, approval_required=True))
    await h.table.request("sit", "a", seat=1, buy_in=100, name="Alice")  # a request counts too
    with pytest.raises(TableError) as refused:
        await h.table.request("sit", "b", seat=2, buy_in=100, name=twin)
    assert refused.value.code == "name_taken"
    assert (await h.table.request("sit", "c", seat=3, buy_in=100, name="Bob"))["status"]
    await h.stop()
