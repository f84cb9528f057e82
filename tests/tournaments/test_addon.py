"""The add-on: once per player still in, during its level or the break after it; its chips
are the only ones entering after the start (conserved with them), its price goes into the
prize pool, and it is stored and shown in the standings."""

from __future__ import annotations

import asyncio
from collections import Counter

import pytest

from app.tables.errors import TableError
from app.tables.registry import TableRegistry
from app.tables.table import Runtime
from app.tournaments.director import Director
from app.tournaments.settings import Settings
from app.tournaments.store import MemoryTournamentStore
from app.tournaments.structure import Level, Schedule
from tests.tables.stores import MemoryTableStore

STACK, ADDON, PRICE, POOL = 1000, 500, 10, 30


async def addon_refusal(director: Director, player: str) -> str:
    with pytest.raises(TableError) as error:
        await director.request("addon", player)
    return error.value.code


async def test_the_add_on_once_in_its_window_conserved_and_paid() -> None:
    # Level 1 (0.4 s), a 0.6 s break after it (the add-on's time), then blinds that end it.
    # Nobody connects: the clock checks or folds for everyone, so nobody busts before the
    # blinds force them all in.
    schedule = Schedule((Level(1, 2, minutes=0.4 / 60), Level(500, 1000, minutes=0.5 / 60),
                         Level(2000, 4000, minutes=1)), break_every=1,
                        break_minutes=0.6 / 60)  # fmt: skip
    tables = MemoryTableStore()
    registry = TableRegistry(tables, Runtime(between_hands=0, bot_think=0, deal_unwatched=True))
    store = MemoryTournamentStore()
    settings = Settings(name="addon", schedule=schedule, starting_stack=STACK, seats=6,
                        payouts=(7_000, 3_000), prize_pool=POOL, addon_chips=ADDON,
                        addon_price=PRICE, addon_level=1, decision_time=0.02,
                        time_bank=0)  # fmt: skip
    director = Director(settings, "host", registry, between_hands=0.0, store=store)
    task = asyncio.create_task(director.run())
    for k in range(3):
        await director.request("register", f"p{k}", name=f"Player {k}")
    assert await addon_refusal(director, "p0") == "addon_closed"  # not before the start
    await director.request("start", "host")

    # During level 1: once each, players still in only.
    first = await director.request("addon", "p0")
    assert first["chips"] == ADDON and first["status"] in ("done", "after_hand")
    assert await addon_refusal(director, "p0") == "addon_taken"
    assert await addon_refusal(director, "stranger") == "not_playing"
    assert director.status_view()["addon"]["open"] is True
    # In the break after it: no hand is running, the chips go on the stack at once.
    while not settings.schedule.at(director.elapsed()).on_break or any(
        t.playing for t in director.tables.values()
    ):
        await asyncio.sleep(0.01)
    second = "p1"
    assert (await director.request("addon", second))["status"] == "done"
    table = registry.get(director.entry_of(second).table or "")
    seat = table.seat_of(second)
    assert seat is not None and seat.stack == director.tables[table.id].stacks[second]
    buyers = {"p0", second}
    # Level 2: closed.
    while settings.schedule.at(director.elapsed()).level == 0:
        await asyncio.sleep(0.01)
    third = next(p for p in ("p0", "p1", "p2") if p not in buyers)
    assert await addon_refusal(director, third) == "addon_closed"
    view = director.status_view()
    assert view["prize_pool"] == POOL + 2 * PRICE and sum(view["payouts"]) == POOL + 2 * PRICE
    assert view["addon"]["taken"] == 2 and view["addon"]["open"] is False

    await asyncio.wait_for(task, 60)
    await registry.close()
    # Chips: the stacks plus the add-ons, and nothing else, after every hand.
    total = 3 * STACK + 2 * ADDON
    assert director.chips_in() == total
    chips = [h.chips for h in director.hands if h.chips is not None]
    assert chips[-1] == total and all(c in (3 * STACK, 3 * STACK + ADDON, total) for c in chips)
    ins: Counter[str] = Counter()
    for _table, _player, kind, amount in tables.ledger:
        ins[kind] += amount
    assert ins["buy_in"] == 3 * STACK and ins["top_up"] == 2 * ADDON
    assert ins["cash_out"] == total  # every chip left the table with the players
    # Paid from the pool with the add-ons' price; stored; in the standings.
    assert sum(e.prize for e in director.entries.values()) == POOL + 2 * PRICE
    stored = await store.load(director.id)
    took = {p: p in buyers for p in ("p0", "p1", "p2")}
    assert {e.player_id: e.addon for e in stored.entries} == took
    standings = {r["player_id"]: r["addon"] for r in director.status_view()["standings"]}
    assert standings == took


async def test_no_add_on_when_the_tournament_has_none() -> None:
    registry = TableRegistry(MemoryTableStore(), Runtime(between_hands=0, bot_think=0,
                                                         deal_unwatched=True))  # fmt: skip
    settings = Settings(name="none", schedule=Schedule((Level(1, 2, minutes=1),)),
                        starting_stack=STACK)  # fmt: skip
    director = Director(settings, "host", registry, between_hands=0.0)
    task = asyncio.create_task(director.run())
    for k in range(2):
        await director.request("register", f"p{k}", name=f"Bot {k}", bot=True)
    await director.request("start", "host")
    assert await addon_refusal(director, "p0") == "no_addon"
    assert director.status_view()["addon"] is None
    director.stop()
    task.cancel()
    await registry.close()
