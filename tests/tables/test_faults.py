"""The table actor through store faults and restarts (store in memory; the same faults on real
PostgreSQL, Redis and a killed server are in tests/api/test_faults.py).

Accepted means kept: whatever the table answered `ok` to is in the store and comes back with
the table. Tables keep moving: a write that fails or hangs is `unavailable` and changes
nothing, the actor lives on, and its own writes (the clock, the deal) are retried."""

from __future__ import annotations

import asyncio
import copy
from typing import Any

import pytest

from app.tables import registry as registries
from app.tables.config import TableConfig
from app.tables.errors import TableError
from app.tables.registry import TableRegistry
from app.tables.table import Command, Runtime, Table
from app.tables.viewer import Viewer
from tests.tables.harness import FAST, FakeClock, Harness, Recorder, start
from tests.tables.stores import MemoryTableStore, sql_store
from tests.tables.test_table import instant_hand
from tests.waits import until


def table_state(t: Table) -> Any:
    """Everything a command may change, in memory."""
    seats = list(t.seats)
    hand = t.hand.state.fingerprint() if t.hand else None
    return seats, t.config, t.next_config, t.paused, t.host_id, dict(t.requests), hand


async def unavailable_and_unchanged(h: Harness, kind: str, sender: str | None, **data: Any) -> None:
    """`kind` is answered `unavailable` and changes nothing, in memory or in the store."""
    before, stored = table_state(h.table), copy.deepcopy(h.store.tables[h.table.id])
    ledger = list(h.store.ledger)
    with pytest.raises(TableError) as e:
        await h.table.request(kind, sender, **data)
    assert e.value.code == "unavailable", (kind, e.value.code)
    assert table_state(h.table) == before, kind
    assert h.store.tables[h.table.id] == stored and h.store.ledger == ledger, kind
    assert not h.task.done(), f"{kind} ended the actor"


async def test_every_writing_command_during_an_outage_is_unavailable_and_changes_nothing() -> None:
    """Issue 10, item 3: `sit_out` while the database was down crashed the actor (1012 to
    everyone, then 404). Every writing command now does what actions do."""
    h = await start(TableConfig(seats=6, decision_time=0, straddle=True))
    for i, pid in enumerate(("host", "a", "b", "c")):
        await h.sit(pid, i)
    await h.table.request("pause", "host")
    await h.settle()
    assert h.table.hand is not None and not h.table.hand.state.complete
    await h.table.request("sit_out", "c")
    h.store.fail_next = 10**6  # the database is down
    between: list[tuple[str, str, dict[str, Any]]] = [  # valid commands, each needs a write
        ("sit", "d", {"seat": 5, "buy_in": 100, "name": "d"}),
        ("top_up", "c", {"amount": 1}),  # c sits out: not in the hand, credited at once
        ("sit_in", "c", {"post": False}),
        ("leave", "c", {}),
        ("remove", "host", {"seat": 3}),
        ("adjust", "host", {"seat": 3, "amount": 5}),
        ("resume", "host", {}),
        ("set_stakes", "host", {"small_blind": 2, "big_blind": 4}),
        ("transfer_host", "host", {"player_id": "a"}),
        # during the hand: each is kept for its end, so each is a write now
        ("leave", "a", {}),
        ("remove", "host", {"seat": 2}),
        ("top_up", "host", {"amount": 1}),
        ("adjust", "host", {"seat": 1, "amount": -5}),
        ("straddle", "b", {"on": True}),
        ("sit_out", "b", {}),
    ]
    for kind, sender, data in between:
        await unavailable_and_unchanged(h, kind, sender, **data)
    h.store.fail_next = 0  # back: the same commands work, and the hand plays out
    assert (await h.table.request("leave", "a"))["status"] == "after_hand"
    await h.table.request("set_stakes", "host", small_blind=2, big_blind=4)
    while h.table.hand is not None and not h.table.hand.state.complete:
        await h.passive()
    await h.settle()
    assert h.table.seat_of("a") is None
    assert h.table.next_config is not None and h.table.next_config.big_blind == 4
    assert h.balance_ok()
    await h.stop()


async def test_a_frozen_store_is_unavailable_in_time_then_the_table_reloads_what_it_kept() -> None:
    """Item 5: a frozen database left players without an answer for as long as it lasted.
    Now a write that outlives STORE_TIMEOUT is `unavailable`, no other write is taken while
    its outcome is unknown, and when the database thaws and turns out to have stored it, the
    registry reloads the table from the store (memory and store agree again)."""
    store, clock = MemoryTableStore(), FakeClock()
    runtime = Runtime(between_hands=0, clock_enabled=False, store_timeout=0.2, retry_delay=0.05,
                      deal_unwatched=True, clock=clock)  # fmt: skip
    registry = TableRegistry(store, runtime)
    table = await registry.create("host", TableConfig(seats=3, decision_time=0))
    await table.request("pause", "host")
    await table.request("sit", "host", seat=0, buy_in=100, name="host")
    await table.request("sit", "a", seat=1, buy_in=100, name="a")
    store.frozen = asyncio.Event()
    sitting_out = asyncio.ensure_future(table.request("sit_out", "a"))
    await until(lambda: table.busy)  # its write is with the frozen database
    clock.advance(0.2)  # the store's deadline
    with pytest.raises(TableError) as e:
        await sitting_out
    assert e.value.code == "unavailable"
    assert not table.seats[1].sitting_out  # type: ignore[union-attr]
    with pytest.raises(TableError) as e:  # its outcome unknown: no other write meanwhile
        await table.request("resume", "host")
    assert e.value.code == "unavailable" and table.paused
    store.frozen.set()  # it thaws: the sit-out was stored after all
    await until(lambda: registry.tables.get(table.id) not in (None, table)
                and not registry.restoring)  # fmt: skip
    again = registry.get(table.id)
    assert again.seats[1] is not None and again.seats[1].sitting_out
    assert not registry.restoring
    await registry.close()


async def test_a_table_that_cannot_be_loaded_is_retried_until_it_can(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Item 3: a failed restart was never retried (404 until the process restarted)."""
    monkeypatch.setattr(registries, "BACKOFF", (0.0, 0.0))  # retried at once, not in seconds
    store = MemoryTableStore()
    registry = TableRegistry(store, FAST)
    table = await registry.create("host", TableConfig(seats=3, decision_time=0))
    real = store.load_table
    failures = [1, 1, 1]

    async def load(table_id: str) -> Any:
        if failures:
            failures.pop()
            raise OSError("connection refused")
        return await real(table_id)

    store.load_table = load  # type: ignore[method-assign]
    table.post(Command("attach"))  # a bug: the actor fails, the registry restarts it
    await until(lambda: table.id not in registry.tables)
    with pytest.raises(TableError) as e:
        registry.get(table.id)
    assert e.value.code == "unavailable" and table.id in registry.restoring
    await until(lambda: table.id in registry.tables and not registry.restoring)
    assert not failures and not registry.restoring
    await registry.close()


async def test_the_clock_retries_an_automatic_action_it_could_not_store() -> None:
    """Item 4: the timed-out player's automatic action failed during the outage and the clock
    was never re-armed: the hand stayed frozen after the database came back."""
    h = await start(
        TableConfig(seats=3, decision_time=0.3, time_bank=0),
        Runtime(between_hands=30, clock_enabled=True, away_grace=3600, retry_delay=0.05,
                deal_unwatched=True),
    )  # fmt: skip
    await h.sit("host", 0)
    await h.sit("a", 1)
    await h.settle()
    hand = h.table.hand
    assert hand is not None
    h.store.fail_next = 3  # the first tries fail
    await h.advance(0.3)  # the clock acts: not stored
    for _ in range(3):
        assert not hand.state.complete
        await h.advance(0.05)  # and tries again
    assert h.store.tables[h.table.id].hand is None  # stored, ended
    assert hand.state.complete and h.store.fail_next == 0 and h.balance_ok()
    await h.stop()


async def to_big_blind_option(h: Harness) -> tuple[str, int]:
    """Call around pre-flop until the big blind may check; returns who is to act."""
    hand = h.table.hand
    assert hand is not None
    while True:
        legal = hand.state.legal_actions()
        assert legal is not None
        if legal.check:
            return hand.players[legal.player], legal.player
        await h.act("call")


@pytest.mark.parametrize("how", ["leave", "remove", "grace"])
async def test_a_player_gone_on_their_turn_is_folded_not_checked_for(how: str) -> None:
    """Item 7: a leaver was checked for (and could win the pot while absent); a removed
    player, or one whose away grace ran out, on a table without a clock: the hand waited for
    ever. Each is folded when it is their turn (the big blind, who could check)."""
    runtime = Runtime(between_hands=30, clock_enabled=False, away_grace=0.05,
                      deal_unwatched=True)  # fmt: skip
    h = await start(TableConfig(seats=4, decision_time=0), runtime)
    viewers = {pid: Viewer(pid) for pid in ("host", "a", "b")}
    for i, (pid, viewer) in enumerate(viewers.items()):
        await h.table.request("attach", pid, viewer=viewer)
        await h.sit(pid, i)
    await h.settle()
    hand = h.table.hand
    assert hand is not None
    pid, position = await to_big_blind_option(h)
    if how == "leave":
        await h.table.request("leave", pid)
    elif how == "remove":
        host = "host"
        if pid == "host":  # the host does not remove themselves: hand the table over first
            host = next(p for p in viewers if p != pid)
            await h.table.request("transfer_host", "host", player_id=host)
        seat = h.table.seat_of(pid)
        assert seat is not None
        await h.table.request("remove", host, seat=seat.number)
    else:
        await h.table.request("detach", pid, viewer=viewers[pid])
        await h.advance(0.05)  # the away grace runs out
    await h.settle()
    assert hand.state.folded[position]
    while not hand.state.complete:  # the others play on
        await h.passive()
    await h.settle()
    if how != "grace":
        assert h.table.seat_of(pid) is None  # cashed out after the hand
    assert h.balance_ok()
    await h.stop()


async def test_a_restart_keeps_every_command_accepted_mid_hand(database_url: str) -> None:
    """Item 1: leave, remove, set_stakes, pending top-up and adjust, a seat request and a
    straddle choice were answered `ok` mid-hand and forgotten by a restart. On the real
    store (SQLite and PostgreSQL): restored with the table, and each applied once after the
    hand."""
    async with sql_store(database_url) as store:
        host, a, b, c, d = await store.make_players(5)
        config = TableConfig(seats=5, decision_time=0, straddle=True, approval_required=True)
        table_id = await store.create_table(host, config, "code")
        table = Table(await store.load_table(table_id), store, FAST)
        task = asyncio.create_task(table.run())
        await table.request("pause", host)
        await table.request("sit", host, seat=0, buy_in=100, name="host")
        for i, pid in enumerate((a, b, c), start=1):
            assert (await table.request("sit", pid, seat=i, buy_in=100, name=pid))["status"] == (
                "requested"
            )
            await table.request("approve", host, player_id=pid)
        await table.request("resume", host)
        await table.quiet()
        await table.request("pause", host)  # after this hand
        hand = table.hand
        assert hand is not None and not hand.state.complete
        accepted: list[tuple[str, str, dict[str, Any]]] = [
            ("leave", a, {}),
            ("remove", host, {"seat": 2}),
            ("set_stakes", host, {"small_blind": 2, "big_blind": 4}),
            ("top_up", host, {"amount": 50}),
            ("adjust", host, {"seat": 3, "amount": -10}),
            ("straddle", c, {"on": True}),
            ("sit", d, {"seat": 4, "buy_in": 80, "name": "d"}),
        ]
        for kind, sender, data in accepted:
            await table.request(kind, sender, **data)
        task.cancel()  # the process dies: only the store remains
        await asyncio.gather(task, return_exceptions=True)

        loaded = await store.load_table(table_id)
        assert loaded.hand is not None and loaded.hand.elapsed is not None
        assert 0 <= loaded.hand.elapsed < 60  # the clock resumes from here (database time)
        again = Table(loaded, store, FAST)
        seats = again.seats
        assert seats[1] is not None and seats[1].leaving
        assert seats[2] is not None and seats[2].removed
        assert again.next_config is not None and again.next_config.big_blind == 4
        assert seats[0] is not None and seats[0].pending_top_up == 50
        assert seats[3] is not None and seats[3].pending_adjust == -10 and seats[3].straddle
        assert list(again.requests) == [d] and again.requests[d].buy_in == 80
        task = asyncio.create_task(again.run())
        watcher = Viewer(host)
        await again.request("attach", host, viewer=watcher)
        hand = again.hand
        assert hand is not None
        while not hand.state.complete:  # leaver and removed player are folded on their turn
            legal = hand.state.legal_actions()
            assert legal is not None
            pid = hand.players[legal.player]
            action = "check" if legal.check else "call" if legal.call else "fold"
            if legal.vote:
                action = "run-twice"
            elif legal.show:
                action = "show"
            kw = {"agree": False} if action == "run-twice" else {}
            await again.request("act", pid, hand=hand.id, counter=hand.counter, action=action,
                                **kw)  # fmt: skip
        await again.quiet()
        assert again.seats[1] is None and again.seats[2] is None
        top, adjusted = again.seats[0], again.seats[3]
        assert top is not None and top.pending_top_up == 0
        assert adjusted is not None and adjusted.pending_adjust == 0
        stored = await store.load_table(table_id)
        assert {s.number for s in stored.seats} == {0, 3}
        assert all(not (s.pending_top_up or s.pending_adjust) for s in stored.seats)
        total = sum(s.stack for s in stored.seats)
        assert await store.balance(table_id) == total
        assert sorted(await ledger_kinds(store, table_id)) == sorted(
            ["buy_in"] * 4 + ["top_up", "adjustment", "cash_out", "cash_out"]
        )  # each credited once, though the table restarted with them pending
        task.cancel()


async def ledger_kinds(store: Any, table_id: str) -> list[str]:
    import uuid

    from sqlalchemy import select

    from app.store.models import LedgerEntry

    async with store.sessions() as s:
        rows = await s.scalars(
            select(LedgerEntry.kind).where(LedgerEntry.table_id == uuid.UUID(table_id))
        )
        return list(rows)


async def test_the_clock_resumes_with_the_time_that_was_left() -> None:
    """Item 1: after a restart the player to act got a fresh decision time."""
    store = MemoryTableStore()
    runtime = Runtime(between_hands=30, clock_enabled=True, away_grace=3600, deal_unwatched=True)
    h = await start(TableConfig(seats=3, decision_time=2, time_bank=1), runtime, store)
    await h.sit("host", 0)
    await h.sit("a", 1)
    await h.advance(1.25)
    assert h.table.hand is not None
    await h.stop()
    again = await start(TableConfig(), runtime, store, table_id=h.table.id, clock=h.clock)
    await again.settle()
    assert again.table.turn_deadline is not None
    left = again.table.turn_deadline - again.table.now()
    assert left == 0.75, left  # 2 s less the 1.25 s gone, not a fresh 2 s
    await again.stop()


async def test_after_a_restart_absent_players_are_sat_out_and_an_empty_room_deals_nothing() -> None:
    """Item 6: after a restart the away grace was never started (it starts on a disconnect),
    so players who never came back were dealt in and acted for by the clock for ever, and a
    table nobody was connected to dealt hands for ever."""
    store = MemoryTableStore()
    later = Runtime(between_hands=3600, clock_enabled=False, away_grace=3600, deal_unwatched=True)
    h = await start(TableConfig(seats=3, decision_time=0), later, store)
    await h.sit("host", 0)
    await h.sit("a", 1)
    await h.settle()
    while h.table.hand is not None and not h.table.hand.state.complete:
        await h.passive()
    await h.table.request("pause", "host")
    await h.table.request("resume", "host")  # stopped between hands, not paused
    await h.stop()
    number = h.table.hand_number

    runtime = Runtime(between_hands=0, clock_enabled=False, away_grace=0.3)  # deals if watched
    again = await start(TableConfig(), runtime, store, table_id=h.table.id)
    everyone = Recorder()
    await again.table.request("attach", None, viewer=everyone)  # a spectator is not enough
    await again.settle()
    assert again.table.hand_number == number and again.table.idle  # no deal: nobody is here
    tables = [m for m in everyone.got if m["type"] == "table"]
    assert tables and tables[-1]["paused"] and tables[-1]["idle"]  # shown as paused
    host = Viewer("host")
    await again.table.request("attach", "host", viewer=host)  # the host comes back
    await again.settle()
    assert again.table.hand_number == number + 1 and not again.table.idle
    await again.advance(0.3)  # the away grace of the one who is not back runs out
    assert again.table.seat_of("a").sitting_out
    host_seat = again.table.seat_of("host")
    assert host_seat is not None and not host_seat.sitting_out and not host_seat.away
    assert again.balance_ok()
    await again.stop()


async def test_hand_started_of_a_hand_over_as_dealt_carries_the_stacks_before_it() -> None:
    """Item 9: the blinds put a player all in and the hand ended as dealt: its
    `hand_started.stacks` carried the stacks after the hand."""
    h = await start(TableConfig(seats=2, decision_time=0))
    recorder = Recorder()
    await h.table.request("attach", None, viewer=recorder)
    await instant_hand(h.table, "host", "a", h.balance_ok)
    starts = [m for m in recorder.got if m["type"] == "hand_started"]
    ended = [m for m in recorder.got if m["type"] == "hand_ended"]
    # Each hand starts from the stacks the one before left (the first from the seating). A
    # split pot leaves them as they were, so at least one hand must have moved them for the
    # check to tell the stacks before a hand from those after it.
    before, moved = {"0": 100, "1": 1}, False
    for began, end in zip(starts, ended, strict=False):
        dealt = dict(zip(map(str, began["seats"]), began["stacks"], strict=True))
        assert dealt == before, (dealt, before)
        moved |= end["stacks"] != dealt
        before = end["stacks"]
    assert moved


async def test_an_action_frozen_in_the_store_is_unavailable_then_kept_after_the_thaw() -> None:
    """Item 5 on the hot path (the group writer): an action the frozen database already had
    is answered `unavailable` in time; at the thaw it turns out stored and the table reloads
    with it, so the resent action is a `duplicate`, never applied twice."""
    store, clock = MemoryTableStore(), FakeClock()
    runtime = Runtime(between_hands=30, clock_enabled=False, store_timeout=0.2,
                      deal_unwatched=True, clock=clock)  # fmt: skip
    registry = TableRegistry(store, runtime)
    table = await registry.create("host", TableConfig(seats=3, decision_time=0))
    await table.request("sit", "host", seat=0, buy_in=100, name="host")
    await table.request("sit", "a", seat=1, buy_in=100, name="a")
    await table.quiet()
    hand = table.hand
    assert hand is not None and hand.state.actor is not None
    pid, counter = hand.players[hand.state.actor], hand.counter
    store.frozen = asyncio.Event()
    acting = asyncio.ensure_future(
        table.request("act", pid, hand=hand.id, counter=counter, action="call")
    )
    await until(lambda: table.busy)  # its write is with the frozen database
    clock.advance(0.2)  # the store's deadline
    with pytest.raises(TableError) as e:
        await acting
    assert e.value.code == "unavailable" and hand.counter == counter  # not applied here
    store.frozen.set()
    await until(lambda: registry.tables.get(table.id) not in (None, table)
                and not registry.restoring)  # fmt: skip
    again = registry.get(table.id)
    assert again.hand is not None and again.hand.counter == counter + 1  # kept by the store
    with pytest.raises(TableError) as e:
        await again.request("act", pid, hand=hand.id, counter=counter, action="call")
    assert e.value.code == "duplicate"
    await registry.close()


async def test_a_table_stopped_while_the_database_has_its_write_stops() -> None:
    """A hand-over or a shutdown cancels the actor. Cancelled while a write of the group
    writer was in the database's hands, it took the write's doubt for a late answer, went on
    and never ended: a stopping process's drain waited for it to its bound (seen in
    tests/scale/test_sigterm_three.py, logged as a write not answered within 5 s)."""
    h = await start(TableConfig(seats=3, decision_time=0))
    await h.table.request("pause", "host")
    await h.sit("host", 0)
    await h.sit("a", 1)
    h.store.frozen = asyncio.Event()  # the database has the write and has not answered
    topping = asyncio.create_task(h.table.request("top_up", "a", amount=10))
    await until(lambda: h.table.busy)
    assert not topping.done()
    h.task.cancel()
    await asyncio.wait({h.task}, timeout=10)  # a bound, not a pace: it stops at once
    assert h.task.cancelled()
    with pytest.raises(TableError):
        await topping
    h.store.frozen.set()
