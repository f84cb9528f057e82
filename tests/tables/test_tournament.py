"""A table in tournament mode: the director's commands, and what such a table refuses."""

from __future__ import annotations

from typing import Any

import pytest

from app.tables.config import MAX_CHIPS, TableConfig
from app.tables.errors import TableError
from app.tables.registry import TableRegistry
from app.tables.table import Runtime, Table
from tests.tables.harness import FakeClock
from tests.tables.stores import MemoryTableStore

TOURNAMENT = TableConfig(seats=4, decision_time=0, buy_in_min=MAX_CHIPS, buy_in_max=MAX_CHIPS,
                         tournament=True)  # fmt: skip


async def tournament_table() -> tuple[TableRegistry, Table, MemoryTableStore]:
    store = MemoryTableStore()
    runtime = Runtime(between_hands=0, clock_enabled=False, clock=FakeClock())
    registry = TableRegistry(store, runtime)
    table = await registry.create("host", TOURNAMENT)
    return registry, table, store


async def test_chips_neither_enter_nor_leave_and_the_host_has_no_cash_commands() -> None:
    registry, table, _ = await tournament_table()
    await table.request("t_seat", None, player_id="a", name="A", seat=0, stack=500)
    cash_commands: list[tuple[str, str, dict[str, Any]]] = [
        ("sit", "b", {"seat": 1, "buy_in": 500, "name": "B"}),
        ("top_up", "a", {"amount": 100}),
        ("leave", "a", {}),
        ("sit_out", "a", {}),
        ("adjust", "host", {"seat": 0, "amount": 100}),
        ("set_stakes", "host", {"big_blind": 4}),
        ("add_bot", "host", {"seat": 2}),
        ("remove", "host", {"seat": 0}),
        ("close", "host", {}),
    ]
    for kind, sender, data in cash_commands:
        with pytest.raises(TableError) as refused:
            await table.request(kind, sender, **data)
        assert refused.value.code == "tournament", kind
    seat = table.seat_of("a")
    assert seat is not None and seat.stack == 500 and not seat.sitting_out
    await registry.close()


async def test_the_director_commands_are_not_a_cash_tables() -> None:
    store = MemoryTableStore()
    registry = TableRegistry(store, Runtime(between_hands=0, clock_enabled=False))
    cash = await registry.create("host", TableConfig(seats=4))
    for kind in ("t_seat", "t_unseat", "t_deal", "t_close"):
        with pytest.raises(TableError) as refused:
            await cash.request(kind, None, player_id="a", seat=0, stack=10)
        assert refused.value.code == "unknown_command"
    await registry.close()


async def test_it_deals_only_when_the_director_calls_and_tells_it_each_hand() -> None:
    registry, table, store = await tournament_table()
    events: list[dict[str, Any]] = []
    table.director = events.append
    await table.request("t_seat", None, player_id="a", name="A", seat=0, stack=500)
    await table.request("t_seat", None, player_id="b", name="B", seat=2, stack=300)
    await table.quiet()
    assert table.hand is None  # seated, not dealt: the director calls each deal
    await table.request("t_deal", None, small_blind=25, big_blind=50, ante=0, big_blind_ante=0)
    await table.quiet()
    hand = table.hand
    assert hand is not None and table.config.big_blind == 50
    with pytest.raises(TableError) as refused:
        await table.request("t_unseat", None, player_id="a")
    assert refused.value.code == "hand_running"  # players move between hands
    while not hand.state.complete:  # everyone folds or checks to the end
        legal = hand.state.legal_actions()
        assert legal is not None
        action = "check" if legal.check else "fold"
        if legal.phase.name == "SHOWDOWN":
            action = "muck" if legal.muck else "show"
        await table.request("act", hand.players[legal.player], hand=hand.id,
                            counter=hand.counter, action=action)  # fmt: skip
    await table.quiet()
    assert len(events) == 1 and table.hand is hand  # told, and no hand dealt by itself
    (event,) = events
    assert event["started"] == {"a": 500, "b": 300} or event["started"] == {"b": 300, "a": 500}
    assert sum(event["stacks"].values()) == 800
    # where the blinds were: the director's balancing counts the next big blind from them
    assert event["button"] == hand.button and event["blinds"] == list(hand.blind_seats)
    moved = await table.request("t_unseat", None, player_id="b")
    assert moved["stack"] == event["stacks"]["b"]
    buy_ins = sum(a for t, _, k, a in store.ledger if t == table.id and k == "buy_in")
    cash_outs = sum(a for t, _, k, a in store.ledger if t == table.id and k == "cash_out")
    seat = table.seat_of("a")
    assert seat is not None and buy_ins == seat.stack + cash_outs == 800
    await registry.close()
