"""States a tournament could stall in, each shown to move on: every round waits for every
table's hand (hand for hand), so a table whose deal is lost holds the whole field.

- a table refusing the director's call to deal (its store did not answer, or it is being
  restored after a restart): the round goes on without it, or is called again;
- a table whose actor restarted (a bug, or a reload after a write in doubt) between accepting
  the call and dealing: the call lived in the old actor's memory only, so the new one waits
  for a call the director thinks it answered. It tells the director it stands between hands;
  the director, whose call another actor accepted, counts the table's round as over;
- a late registration in a break (it calls a deal at once): the break still ends with a deal;
- a table refusing to take a busted player off, or a moved player on, at the round's end:
  the rest of the round's end is done again before the next deal, nobody lost between tables.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from app.tables import dealer
from app.tables import registry as registries
from app.tables.command import Command
from app.tables.errors import TableError
from app.tables.registry import TableRegistry
from app.tables.table import Runtime
from app.tournaments import field, rounds
from app.tournaments.director import Director, FieldTable
from app.tournaments.entry import Entry
from app.tournaments.places import Standings
from app.tournaments.settings import Settings
from app.tournaments.structure import Level, Schedule
from tests.tables.stores import MemoryTableStore
from tests.tournaments.diagnosis import waited
from tests.tournaments.test_rulings import StubRegistry, StubTable, two_tables


class Refusing(StubTable):
    """A table that refuses its next `refusals` commands of `kind` (`unavailable`)."""

    def __init__(self, refusals: int, kind: str = "t_deal") -> None:
        super().__init__()
        self.refusals, self.kind = refusals, kind

    async def request(self, kind: str, sender: str | None = None, /, **data: Any) -> dict[str, Any]:
        if kind == self.kind and self.refusals:
            self.refusals -= 1
            self.calls.append(("refused", data))
            raise TableError("unavailable", "the store did not answer")
        return await super().request(kind, sender, **data)


def deals(registry: StubRegistry, table: str) -> int:
    return sum(1 for kind, _ in registry.tables[table].calls if kind == "t_deal")


async def test_a_table_refusing_the_deal_does_not_hold_the_other() -> None:
    d, registry = await two_tables()
    registry.tables["A"] = Refusing(1)
    for state in d.tables.values():
        state.playing = False
    await rounds.on_deal_all(d, Command("deal_all"))  # A refuses, B deals: the round is B's
    assert not d.tables["A"].playing and d.tables["B"].playing
    assert [h.table for h in d.hands] == ["B"]
    d.stop()


async def test_every_table_refusing_the_deal_calls_it_again() -> None:
    d, registry = await two_tables()
    for t in "AB":
        registry.tables[t] = Refusing(1)
        d.tables[t].playing = False
    d.between_hands = 0.0
    await rounds.on_deal_all(d, Command("deal_all"))
    assert not any(s.playing for s in d.tables.values()) and not d.hands
    # Nothing is being played, so no hand's end calls the next round: the director does.
    assert d.deal_timer is not None, "no table plays and no deal is called: a stall"
    command = await asyncio.wait_for(d.mailbox.get(), rounds.RETRY + 5)
    assert command.kind == "deal_all"
    await rounds.on_deal_all(d, command)
    assert deals(registry, "A") == deals(registry, "B") == 1 and len(d.hands) == 2
    d.stop()


def restarted(table: str, actor: str) -> Command:
    """A table's word after its actor (re)started with no hand being played."""
    return Command("hand_ended", data={"table": table, "restarted": True, "actor": actor})


async def test_a_table_restarted_after_accepting_the_deal_ends_its_round() -> None:
    d, registry = await two_tables()
    for state in d.tables.values():
        state.playing, state.actor = True, "first"
    a = {"a0": 1000, "a1": 1000, "a2": 1000}
    await rounds.on_hand_ended(d, Command("hand_ended", data={
        "table": "A", "hand": 1, "button": 0, "blinds": [1, 2], "started": a,
        "stacks": {**a, "a0": 0, "a1": 2000}}))  # fmt: skip
    assert d.entries["a0"].place is None  # B still plays the round
    await rounds.on_hand_ended(d, restarted("B", "first"))
    assert d.tables["B"].playing  # the actor that has the call: its hand will end
    await rounds.on_hand_ended(d, restarted("B", "second"))
    # A new actor, whose call was lost: the round is over, its bust placed, the next called.
    assert not d.tables["B"].playing and d.entries["a0"].place == 6
    assert ("t_unseat", {"player_id": "a0"}) in registry.tables["A"].calls
    assert d.deal_timer is not None
    d.stop()


async def test_a_restarted_table_before_its_deal_is_dealt_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Through the table actor and its registry: the table's first deal fails (a bug) after it
    accepted the director's call; the registry restarts it from the store; it deals again."""
    monkeypatch.setattr(registries, "BACKOFF", (0.0, 0.0))  # restarted at once
    planned = dealer.plan
    failures: list[str] = []

    def plan_once(t: Any, number: int) -> Any:
        if not failures:
            failures.append(t.id)
            raise RuntimeError("a bug in the deal")
        return planned(t, number)

    monkeypatch.setattr(dealer, "plan", plan_once)
    runtime = Runtime(between_hands=0, clock_enabled=False, deal_unwatched=True)
    registry = TableRegistry(MemoryTableStore(), runtime)
    settings = Settings(name="Restart", schedule=Schedule((Level(25, 50),)),
                        starting_stack=1000, seats=6)  # fmt: skip
    director = Director(settings, "host", registry, between_hands=0.0)
    task = asyncio.create_task(director.run())
    try:
        for k in range(2):  # people nobody connects: no decision clock, the hand waits
            await director.request("register", f"p{k}", name=f"P {k}")
        [table_id] = (await director.request("start", "host"))["tables"]
        first = registry.get(table_id)
        await waited(director, lambda: failures and registry.tables.get(table_id) not in
                     (None, first), what="the table restarted")  # fmt: skip
        again = registry.get(table_id)
        await waited(director, lambda: again.hand is not None, 30, what="a hand after the restart")
        assert again.hand is not None and again.hand.number == 1 and len(again.hand.players) == 2
        assert director.status == "running" and director.tables[table_id].playing
    finally:
        director.stop()
        task.cancel()
        await registry.close()


async def test_a_late_registration_in_a_break_keeps_the_deal_at_its_end() -> None:
    # Level 1 for a minute, a two-minute break, level 2: five seconds into the break.
    schedule = Schedule((Level(25, 50, minutes=1), Level(50, 100, minutes=1)), break_every=1,
                        break_minutes=2)  # fmt: skip
    now = [0.0]
    registry = StubRegistry()
    settings = Settings(name="Break", schedule=schedule, starting_stack=1000, seats=6,
                        late_registration_level=2)  # fmt: skip
    d = Director(settings, "host", registry, between_hands=0.0,  # type: ignore[arg-type]
                 clock=lambda: now[0])  # fmt: skip
    await d.create()
    d.status, d.since = "running", d.clock()
    d.tables["A"] = FieldTable("A", {0: "a", 1: "b"}, {"a": 1000, "b": 1000})
    for n, p in enumerate("ab"):
        d.entries[p] = Entry(p, p.upper(), table="A", seat=n)
        d.live[p] = p
    d.standings = Standings(2)
    now[0] = 65.0
    assert schedule.at(d.elapsed()).on_break
    late = await field.on_register(d, Command("register", "late", {"name": "Late"}))
    assert late["registered"] == 3 and d.entry_of("late").table == "A"
    command = await asyncio.wait_for(d.mailbox.get(), 5)  # the deal it called, at once
    assert command.kind == "deal_all"
    await rounds.on_deal_all(d, command)
    # It found the break: nothing dealt, the deal called again for the break's end (115 s).
    assert [k for k, _ in registry.tables["A"].calls] == ["t_seat"]
    timer = d.deal_timer
    assert timer is not None
    assert 100 < timer.when() - asyncio.get_running_loop().time() <= 115
    d.stop()


def hand_at(table: str, started: dict[str, int], stacks: dict[str, int]) -> Command:
    return Command("hand_ended", data={"table": table, "hand": 1, "button": 0, "blinds": [1, 2],
                                       "started": started, "stacks": stacks})  # fmt: skip


async def next_deal(d: Director) -> None:
    """The deal the director called (a retry, `rounds.RETRY` from now), carried out."""
    command = await asyncio.wait_for(d.mailbox.get(), rounds.RETRY + 5)
    assert command.kind == "deal_all"
    await rounds.on_deal_all(d, command)


async def test_a_table_refusing_to_take_a_busted_player_off_ends_the_round_later() -> None:
    d, registry = await two_tables()
    d.between_hands = 0.0
    registry.tables["A"] = Refusing(1, "t_unseat")
    a = {"a0": 1000, "a1": 1000, "a2": 1000}
    b = {"b0": 1000, "b1": 1000, "b2": 1000}
    await rounds.on_hand_ended(d, hand_at("A", a, {**a, "a0": 0, "a1": 2000}))
    await rounds.on_hand_ended(d, hand_at("B", b, b))  # the round ends: a0 cannot leave A
    assert d.entries["a0"].place == 6 and d.round_open and d.deal_timer is not None
    await next_deal(d)  # carries the round's end on: a0 leaves, then the deal
    assert "a0" not in d.live and d.entries["a0"].table is None and not d.round_open
    assert d.tables["A"].seats == {1: "a1", 2: "a2"} and d.entries["a0"].place == 6
    assert d.deal_timer is not None  # the next round, called
    await next_deal(d)
    assert [h.table for h in d.hands] == ["A", "B"]
    d.stop()


async def test_a_table_refusing_a_moved_player_loses_nobody() -> None:
    d, registry = await two_tables()  # three seats a table
    d.between_hands = 0.0
    registry.tables["B"] = Refusing(1, "t_seat")
    a = {"a0": 1000, "a1": 1000, "a2": 1000}
    b = {"b0": 1000, "b1": 1000, "b2": 1000}
    await rounds.on_hand_ended(d, hand_at("A", a, a))
    # Two busts at B: one player of A's three moves to B, whose table refuses them once.
    await rounds.on_hand_ended(d, hand_at("B", b, {"b0": 0, "b1": 0, "b2": 3000}))
    assert d.round_open and len(d.carried) == 1
    [moved] = d.carried
    await next_deal(d)
    assert not d.round_open and not d.carried
    seated = {p: t.id for t in d.tables.values() for p in t.seats.values()}
    assert sorted(seated) == sorted(d.live) == sorted(["a0", "a1", "a2", "b2"])
    assert seated[moved] == "B" and d.entries[moved].table == "B"
    assert sorted(len(t.seats) for t in d.tables.values()) == [2, 2]
    d.stop()
