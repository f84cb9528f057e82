"""The table actor alone (store in memory): seats, host controls, the clock, idempotent
actions, leaving mid-hand, slow viewers and recovery from the store."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from typing import Any

import pytest
from sqlalchemy import select

from app.poker import HandState
from app.store.models import HandRow
from app.tables.config import TableConfig
from app.tables.errors import TableError
from app.tables.hand import Hand, action_from_json, setup_from_json
from app.tables.seat import MISSED_BIG, Seat
from app.tables.table import Runtime, Table
from app.tables.viewer import CLOSE_TOO_SLOW, Viewer
from tests.tables.harness import FakeClock, Harness, Recorder, on, start
from tests.tables.stores import MemoryTableStore, sql_store


@pytest.fixture
async def h() -> AsyncIterator[Harness]:
    harness = await start(TableConfig(seats=4, decision_time=0))
    yield harness
    await harness.stop()


async def test_buy_in_limits_and_seats(h: Harness) -> None:
    with pytest.raises(TableError) as e:
        await h.sit("host", 0, buy_in=10)
    assert e.value.code == "bad_buy_in"
    await h.sit("host", 0)
    refusals: list[tuple[dict[str, Any], str]] = [
        ({"seat": 0}, "seat_taken"), ({"seat": 9}, "no_such_seat"), ({"seat": "x"}, "no_such_seat")
    ]  # fmt: skip
    for bad, code in refusals:
        with pytest.raises(TableError) as e:
            await h.table.request("sit", "a", buy_in=100, **bad)
        assert e.value.code == code
    with pytest.raises(TableError) as e:
        await h.sit("host", 1)
    assert e.value.code == "already_seated"
    assert h.table.hand is None  # one player: no deal
    await h.sit("a", 2)
    await h.settle()
    assert h.table.hand is not None and h.balance_ok()


async def test_duplicate_and_stale_actions_change_nothing(h: Harness) -> None:
    await h.sit("host", 0)
    await h.sit("a", 1)
    await h.settle()
    hand = h.table.hand
    assert hand is not None
    pid = hand.players[hand.state.actor or 0]
    await h.table.request("act", pid, hand=hand.id, counter=0, action="call")
    before = hand.state.fingerprint()
    for data, code in [
        ({"hand": hand.id, "counter": 0, "action": "call"}, "duplicate"),
        ({"hand": hand.id, "counter": 0, "action": "fold"}, "stale_counter"),
        ({"hand": "old", "counter": 1, "action": "check"}, "stale_hand"),
        ({"hand": hand.id, "counter": 7, "action": "check"}, "bad_counter"),
        ({"hand": hand.id, "counter": 1, "action": "raise", "amount": -5}, "bad_amount"),
        ({"hand": hand.id, "counter": 1, "action": "dance"}, "bad_action"),
    ]:
        sender = pid if data["counter"] == 0 else hand.players[hand.state.actor or 0]
        with pytest.raises(TableError) as e:
            await h.table.request("act", sender, **data)
        assert e.value.code == code
    # Out of turn: the other player.
    other = hand.players[1 - (hand.state.actor or 0)]
    with pytest.raises(TableError) as e:
        await h.table.request("act", other, hand=hand.id, counter=1, action="check")
    assert e.value.code == "not_your_turn"
    assert hand.state.fingerprint() == before
    assert len(h.store.tables[h.table.id].hand.actions) == 1  # type: ignore[union-attr]


async def test_host_controls(h: Harness) -> None:
    await h.sit("host", 0)
    with pytest.raises(TableError) as e:
        await h.table.request("pause", "a")
    assert e.value.code == "not_host"
    await h.table.request("pause", "host")
    await h.sit("a", 1)
    await h.settle()
    assert h.table.hand is None  # paused: no deal
    await h.table.request("set_stakes", "host", small_blind=2, big_blind=4)
    assert h.table.config.big_blind == 4
    with pytest.raises(TableError) as e:
        await h.table.request("set_stakes", "host", small_blind=10, big_blind=4)
    assert e.value.code == "bad_config"
    await h.table.request("adjust", "host", seat=1, amount=-30)
    assert h.table.seats[1] is not None and h.table.seats[1].stack == 70
    await h.table.request("transfer_host", "host", player_id="a")
    assert h.table.host_id == "a"
    with pytest.raises(TableError):
        await h.table.request("resume", "host")
    await h.table.request("resume", "a")
    await h.settle()
    assert h.table.hand is not None and h.table.hand.state.setup.config.small_bet == 4
    # Stakes changed during a hand apply from the next one.
    await h.table.request("set_stakes", "a", small_blind=1, big_blind=2)
    assert h.table.config.big_blind == 4 and h.table.next_config is not None
    await h.table.request("remove", "a", seat=0)
    assert h.table.seats[0] is not None and h.table.seats[0].removed
    while h.table.hand is not None and not h.table.hand.state.complete:
        await h.act("fold")
    await h.settle()
    assert h.table.seats[0] is None and h.balance_ok()
    assert h.table.config.big_blind == 2


async def test_seat_requests_need_the_host() -> None:
    h = await start(TableConfig(seats=4, approval_required=True, decision_time=0))
    await h.sit("host", 0)
    assert (await h.sit("a", 1))["status"] == "requested"
    assert h.table.seats[1] is None
    await h.sit("b", 2)
    with pytest.raises(TableError):
        await h.table.request("approve", "a", player_id="a")
    await h.table.request("refuse", "host", player_id="b")
    await h.table.request("approve", "host", player_id="a")
    assert h.table.seats[1] is not None and h.table.seats[2] is None
    await h.stop()


async def test_leaving_mid_hand_folds_when_reached_then_cashes_out(h: Harness) -> None:
    await h.sit("host", 0)
    await h.sit("a", 1)
    await h.sit("b", 2)
    await h.settle()
    hand = h.table.hand
    assert hand is not None
    actor = hand.players[hand.state.actor or 0]
    leaver = next(p for p in hand.players if p != actor)
    await h.table.request("leave", leaver)
    assert h.table.seat_of(leaver) is not None  # still seated until the hand ends
    await h.act("call")
    await h.settle()
    position = hand.players.index(leaver)
    if hand.state.complete or hand.state.folded[position]:
        pass
    while not hand.state.complete:
        await h.passive()
        await h.settle()
    assert hand.state.folded[position] or hand.state.complete
    await h.settle()
    assert h.table.seat_of(leaver) is None
    assert ("code" in h.table.code) and h.balance_ok()


async def test_clock_uses_time_bank_then_checks_or_folds() -> None:
    h = await start(
        TableConfig(seats=3, decision_time=0.05, time_bank=0.05),
        Runtime(between_hands=30, clock_enabled=True, away_grace=3600, deal_unwatched=True),
    )
    await h.sit("host", 0)
    await h.sit("a", 1)
    await h.settle()
    hand = h.table.hand
    assert hand is not None
    first = hand.state.actor
    await h.advance(0.05)  # the decision time runs out: the bank runs
    assert not hand.state.complete and h.table.turn_deadline == h.clock.now() + 0.05
    await h.advance(0.06)
    # Pre-flop the small blind faces a bet: folded by the clock after decision + bank.
    assert hand.state.complete and hand.state.folded[first or 0]
    seat = h.table.seat_of(hand.players[first or 0])
    # The bank ran out before the clock acted: it is spent (§7), not back in full for the next
    # decision (it was, so an absent player cost decision time plus the whole bank each time).
    assert seat is not None and seat.time_bank == 0.0
    stored = {s.player_id: s for s in h.store.tables[h.table.id].seats}
    assert stored[seat.player_id].time_bank == 0.0
    await h.stop()


async def test_away_player_is_sat_out_after_grace() -> None:
    h = await start(
        TableConfig(seats=3, decision_time=0),
        Runtime(between_hands=30, clock_enabled=False, away_grace=0.05, deal_unwatched=True),
    )
    viewer = Viewer("a")
    await h.table.request("attach", "a", viewer=viewer)
    await h.sit("a", 1)
    assert not h.table.seats[1].away  # type: ignore[union-attr]
    await h.table.request("detach", "a", viewer=viewer)
    assert h.table.seats[1].away  # type: ignore[union-attr]
    await h.advance(0.04)
    assert not h.table.seats[1].sitting_out  # type: ignore[union-attr]
    await h.advance(0.01)
    assert h.table.seats[1].sitting_out  # type: ignore[union-attr]
    await h.stop()


async def test_a_viewer_that_falls_behind_is_closed_without_blocking(h: Harness) -> None:
    slow = Viewer("x", limit=5)
    closed: list[int] = []
    slow.on_close = lambda code, reason: closed.append(code)
    fast = Viewer("y", limit=10**6)
    for v in (slow, fast):
        await h.table.request("attach", v.player_id, viewer=v)
    await h.sit("host", 0)
    await h.sit("a", 1)
    await h.settle()
    assert closed == [CLOSE_TOO_SLOW] and slow.id not in h.table.viewers
    assert len(fast.outbox) > 5


async def test_restart_from_store_continues_the_hand() -> None:
    store = MemoryTableStore()
    h = await start(TableConfig(seats=3, decision_time=0), store=store)
    await h.sit("host", 0)
    await h.sit("a", 1)
    await h.settle()
    await h.act("call")
    hand = h.table.hand
    assert hand is not None
    fingerprint = hand.state.fingerprint()
    await h.stop()
    again = await start(TableConfig(), store=store, table_id=h.table.id)
    restored = again.table.hand
    assert restored is not None and restored.id == hand.id
    assert restored.state.fingerprint() == fingerprint
    stored = store.tables[h.table.id].hand
    assert stored is not None
    replay = HandState.replay(setup_from_json(stored.record["setup"]), stored.deck,
                              [action_from_json(a) for a in stored.actions])  # fmt: skip
    assert replay.fingerprint() == fingerprint
    await again.act("check")
    assert again.balance_ok()
    await again.stop()


async def test_a_failed_write_is_not_applied(h: Harness) -> None:
    await h.sit("host", 0)
    await h.sit("a", 1)
    await h.settle()
    hand = h.table.hand
    assert hand is not None
    before = hand.state.fingerprint()
    h.store.fail_next = 1
    with pytest.raises(TableError) as e:
        await h.act("call")
    assert e.value.code == "unavailable"
    assert hand.state.fingerprint() == before
    await h.act("call")
    assert hand.counter == 1


async def test_a_hand_that_cannot_be_stored_is_not_dealt(caplog: pytest.LogCaptureFixture) -> None:
    store = MemoryTableStore()
    runtime = Runtime(between_hands=0.01, clock_enabled=False, deal_unwatched=True)
    h = await start(TableConfig(seats=3, decision_time=0), store=store, runtime=runtime)
    real = store.start_hand
    failures = [1]

    async def failing(
        table_id: str,
        hand: Hand,
        deck: list[int],
        seats: list[Seat],
        button: int,
        hand_number: int,
    ) -> None:
        if failures:
            failures.pop()
            raise OSError("INSERT ... [parameters: deck]")
        await real(table_id, hand, deck, seats, button, hand_number)

    store.start_hand = failing  # type: ignore[method-assign]
    await h.sit("host", 0)
    await h.sit("a", 1)
    await h.settle()
    assert h.table.hand is None  # not dealt: nothing was stored
    assert h.table.seats[1].waiting  # type: ignore[union-attr]
    assert all("[" not in r.getMessage() for r in caplog.records)  # no deck in the log
    await h.advance(1.0)  # retried
    assert h.table.hand is not None and h.table.hand.number == 1
    await h.stop()


async def test_a_hand_over_as_dealt_pays_the_seats_and_the_next_one_follows() -> None:
    """The blinds put a 1-chip player all in: the hand ends as dealt, with no action. Its
    result must reach the seats and the store as a last action's does; it did not (the seats
    kept their stacks, so every next hand was the same instant hand, dealt forever with no
    turn: the stall in tests/api/test_slow_client.py)."""
    h = await start(TableConfig(seats=2, decision_time=0))
    await instant_hand(h.table, "host", "a", lambda: h.balance_ok())


async def test_a_hand_over_as_dealt_is_stored_ended_in_sql(sqlite_url: str) -> None:
    async with sql_store(sqlite_url) as store:
        host, a = await store.make_players(2)
        table_id = await store.create_table(host, TableConfig(seats=2, decision_time=0), "c")
        table = Table(await store.load_table(table_id), store, on(FakeClock()))
        task = asyncio.create_task(table.run())
        await instant_hand(table, host, a, lambda: True)
        hand = table.hand
        assert hand is not None
        in_play = 0 if hand.state.complete else sum(hand.state.committed)
        on_seats = sum(s.stack for s in table.seats if s is not None)
        if not hand.state.complete:  # a hand under way: its players' stacks are the dealt ones
            on_seats = sum(hand.state.stacks) + in_play
        assert await store.balance(table_id) == on_seats
        async with store.sessions() as session:
            open_hands = list(
                await session.scalars(select(HandRow.id).where(HandRow.ended_at.is_(None)))
            )
        assert open_hands == ([] if hand.state.complete else [uuid.UUID(hand.id)])
        task.cancel()


async def instant_hand(table: Table, host: str, a: str, balance_ok: Any) -> None:
    recorder = Recorder()
    await table.request("attach", None, viewer=recorder)
    await table.request("pause", host)
    await table.request("sit", host, seat=0, buy_in=100, name="host")
    await table.request("sit", a, seat=1, buy_in=40, name="a")
    await table.request("adjust", host, seat=1, amount=-39)
    await table.request("resume", host)
    await table.quiet()
    # Each hand before the last ended as dealt (all in from the blinds): a second one comes
    # when the all-in player doubled up, a third only after a split pot (about 1 % each).
    assert 1 <= table.hand_number <= 6  # not dealing instant hands in a loop
    hand = table.hand
    assert hand is not None
    busted = any(s is not None and s.stack == 0 for s in table.seats)
    assert busted or (not hand.state.complete and hand.state.actor is not None)
    # Each hand_ended is followed by seat records carrying the same stacks.
    ended = 0
    for i, m in enumerate(recorder.got):
        if m["type"] == "hand_ended":
            ended += 1
            seats = [r for r in recorder.got[i + 1 : i + 3] if r["type"] == "seat"]
            assert {str(r["seat"]): r["stack"] for r in seats} == m["stacks"]
    assert ended >= 1
    assert ended == table.hand_number - (0 if hand.state.complete else 1)
    stored = await table.store.load_table(table.id)
    assert {s.number: s.stack for s in stored.seats} == {
        s.number: s.stack for s in table.seats if s is not None
    }
    assert stored.hand is None or (stored.hand.id == hand.id and not hand.state.complete)
    assert balance_ok()


async def test_a_reconnecting_client_catches_up_from_the_previous_hand_on() -> None:
    """The table keeps what it sent since the previous hand began: a client that missed
    less catches up message by message (its own hole cards, nobody else's); one that missed
    more gets a snapshot."""
    h = await start(TableConfig(seats=2, decision_time=0))
    everything = Recorder()
    await h.table.request("attach", None, viewer=everything)
    await h.sit("host", 0)
    await h.sit("a", 1)
    for _ in range(3):
        await h.settle()  # the next deal
        await h.act("fold")
    await h.settle()
    starts = [m["seq"] for m in everything.got if m["type"] == "hand_started"]
    assert len(starts) >= 3
    assert h.table.records[0][0] == starts[-2]  # kept: the previous hand on, no more

    since = starts[-2] - 1
    back = Recorder("a")
    await h.table.request("attach", "a", viewer=back, stream=h.table.stream, since=since)
    assert [m["seq"] for m in back.got] == list(range(since + 1, h.table.seq + 1))
    hole = [m for m in back.got if m["type"] == "hole_cards"]
    a_seat = h.table.seat_of("a")
    assert a_seat is not None and hole
    assert all(("cards" in m) == (m["seat"] == a_seat.number) for m in hole)
    public = {m["seq"]: m for m in everything.got}  # the rest: what everyone got
    for m in back.got:
        if m["type"] not in ("hole_cards", "turn"):
            # the winner of an uncontested pot is told, alone, that they may show it
            mine = {"can_show": True} if m["type"] == "hand_ended" and "can_show" in m else {}
            if m["type"] == "seat" and m["player_id"] == "a":  # and their own preferences
                mine = {"preferences": m["preferences"]}
            if m["type"] == "after_hand" and "show_cards" in m:  # and their cards to show
                mine = {"show_cards": m["show_cards"]}
            assert m == {**public[m["seq"]], **mine}

    older = Recorder("a")
    await h.table.request("attach", "a", viewer=older, stream=h.table.stream, since=since - 1)
    assert older.got[0]["type"] == "snapshot"
    small = Recorder("a", limit=3)  # more to catch up than its outbox holds: a snapshot
    await h.table.request("attach", "a", viewer=small, stream=h.table.stream, since=since)
    assert small.got[0]["type"] == "snapshot"
    await h.stop()


async def test_an_action_told_is_answered_in_the_outbox_after_its_events(h: Harness) -> None:
    """`tell` (the WebSocket reader's path for actions): the answer goes to the sender's
    outbox after the events the action caused; a refused one is an error and changes nothing."""
    await h.sit("host", 0)
    await h.sit("a", 1)
    await h.settle()
    hand = h.table.hand
    assert hand is not None and hand.state.actor is not None
    pid = hand.players[hand.state.actor]
    box = Recorder(pid)
    await h.table.request("attach", pid, viewer=box)
    box.got.clear()
    before = hand.state.fingerprint()
    h.table.tell("act", pid, box, "r1", {"hand": hand.id, "counter": 0, "action": "check"})
    h.table.tell("act", pid, box, "r2", {"hand": hand.id, "counter": 0, "action": "call"})
    await h.settle()
    first = box.got[0]
    assert first == {"type": "error", "code": "cannot_check", "message": first["message"],
                     "id": "r1"}  # fmt: skip
    types = [m["type"] for m in box.got[1:]]
    assert types[0] == "acted" and "turn" in types and types[-1] == "ok"
    assert box.got[-1] == {"type": "ok", "of": "act", "applied": 0, "id": "r2"}
    assert hand.state.fingerprint() != before and hand.counter == 1


async def _play_passively_until(h: Harness, done: Any, hands: int = 12) -> None:
    for _ in range(hands * 6):
        if done():
            return
        hand = h.table.hand
        if hand is not None and not hand.state.complete:
            await h.passive()
        await h.settle()
    assert done()


async def test_missed_blinds_are_owed_on_return_and_survive_a_restart() -> None:
    # Robert's (Buttons and Blinds): a player who misses a blind waits for the big blind or
    # posts what he owes; one back before any blind passed him plays at once.
    store = MemoryTableStore()
    h = await start(TableConfig(seats=4, decision_time=0), store=store)
    await h.sit("host", 0)
    await h.sit("a", 1)
    await h.sit("b", 2)

    def seat() -> Seat:
        s = h.table.seats[2]
        assert s is not None
        return s

    await _play_passively_until(h, lambda: not seat().waiting)  # b has been dealt in
    assert (await h.table.request("sit_out", "b"))["status"] == "sitting_out"
    back = await h.table.request("sit_in", "b")
    assert back["status"] == "playing"  # no blind passed: no need to wait
    await h.table.request("sit_out", "b")
    recorder = Recorder()
    await h.table.request("attach", None, viewer=recorder)
    await _play_passively_until(h, lambda: seat().missed_blinds == MISSED_BIG)
    await h.settle()
    told = [m for m in recorder.got if m["type"] == "seat" and m["seat"] == 2]
    assert told[-1]["missed"] == ["big_blind"]  # the seat is told what it owes
    stored = {s.number: s for s in store.tables[h.table.id].seats}
    assert stored[2].missed_blinds == MISSED_BIG  # stored as it happened
    await h.stop()
    again = await start(TableConfig(), store=store, table_id=h.table.id)
    h = again
    assert seat().missed_blinds == MISSED_BIG
    assert (await again.table.request("sit_in", "b", post=True))["status"] == "posting"
    await _play_passively_until(
        again, lambda: 2 in (again.table.hand.seats if again.table.hand else ())
    )
    hand = again.table.hand
    assert hand is not None
    position = hand.seats.index(2)
    setup = hand.state.setup
    assert setup.per_player(setup.blinds, "")[position] == 2 or setup.posts[position] == 2
    assert seat().missed_blinds == 0 and again.balance_ok()
    await again.stop()
