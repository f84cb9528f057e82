"""A whole sit-and-go through the actors: a director and a table actor, six bots, a fast
clock, until one player holds every chip."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

import pytest

from app.tables.errors import TableError
from app.tables.registry import TableRegistry
from app.tables.table import Runtime, Table
from app.tournaments.director import Director
from app.tournaments.entry import Entry
from app.tournaments.settings import Settings
from app.tournaments.store import MemoryTournamentStore
from app.tournaments.structure import Level, Schedule
from tests.tables.stores import MemoryTableStore
from tests.tournaments.diagnosis import played_out, waited

STACK = 1500
#: fast levels (0.15 s) and a break after the third; blinds that soon force everyone all in
SCHEDULE = Schedule(
    tuple(
        Level(sb, 2 * sb, 0, 2 * sb if i >= 2 else 0, minutes=0.15 / 60)
        for i, sb in enumerate((10, 20, 40, 75, 150, 300, 600, 1200, 2500))
    ),
    break_every=3,
    break_minutes=0.1 / 60,
)


async def play_sit_and_go(players: int = 6) -> tuple[Director, list[dict[str, Any]], Table]:
    store = MemoryTableStore()
    runtime = Runtime(between_hands=0, bot_think=0, deal_unwatched=True, away_grace=0.05)
    registry = TableRegistry(store, runtime)
    settings = Settings(
        name="Friday SNG", schedule=SCHEDULE, starting_stack=STACK, seats=6,
        payouts=(6_500, 3_500), prize_pool=60, decision_time=5, time_bank=0)  # fmt: skip
    director = Director(settings, "host", registry, between_hands=0.0)
    task = asyncio.create_task(director.run())
    for k in range(players):
        await director.request("register", f"p{k}", name=f"Bot {k}", bot=True)
    started = await director.request("start", "host")
    [table_id] = started["tables"]
    table = registry.get(table_id)
    events: list[dict[str, Any]] = []
    forward = table.director
    assert forward is not None

    def record(event: dict[str, Any]) -> None:
        # Read in the table's task, as the hand ends: what the table really dealt.
        hand = table.hand
        assert hand is not None
        events.append({**event, "big_blind": table.config.big_blind,
                       "blind_seats": hand.blind_seats, "button": hand.button,
                       "dealt": len(hand.players)})  # fmt: skip
        forward(event)

    table.director = record
    await played_out(director, task, 120)
    await registry.close()
    return director, events, table


async def test_a_six_player_sit_and_go_to_the_end() -> None:
    director, events, table = await play_sit_and_go()
    total = 6 * STACK
    assert director.status == "finished"
    # The chip total is the same after every hand.
    assert events and all(sum(e["stacks"].values()) == total for e in events)
    assert all(h.chips == total for h in director.hands)
    # Places: everyone placed once; the last one holds every chip.
    maybe = {p: e.place for p, e in director.entries.items()}
    places = {p: place for p, place in maybe.items() if place is not None}
    assert places.keys() == maybe.keys()  # every entry has its place
    winner = next(p for p, place in places.items() if place == 1)
    assert {p: s for p, s in events[-1]["stacks"].items() if s} == {winner: total}
    # Busting order decides: out in an earlier hand = a worse place; in one hand, the larger
    # starting stack the better place, equal stacks the same place.
    out_at: dict[str, int] = {}
    for k, e in enumerate(events):
        busted = {p: e["started"][p] for p, s in e["stacks"].items() if s == 0}
        for p in busted:
            out_at[p] = k
        for a in busted:
            for b in busted:
                if busted[a] > busted[b]:
                    assert places[a] < places[b]
                elif busted[a] == busted[b]:
                    assert places[a] == places[b]
    for a in out_at:
        for b in out_at:
            if out_at[a] < out_at[b]:
                assert places[a] > places[b]
    assert sorted(places.values())[0] == 1 and max(places.values()) <= 6
    assert len(out_at) == 5
    # Payouts: 65/35 of 60, to first and second.
    prizes = {e.place: e.prize for e in director.entries.values()}
    assert prizes[1] == 39 and sum(e.prize for e in director.entries.values()) == 60
    # Each level starts exactly at the first hand dealt after its time, never in a break.
    starts = SCHEDULE.starts()
    for h in director.hands:
        moment = SCHEDULE.at(h.elapsed)
        assert not moment.on_break
        assert h.level == moment.level
        assert all(h.elapsed < starts[lv] for lv in range(h.level + 1, len(starts)))
    levels = [h.level for h in director.hands]
    assert levels == sorted(levels) and len(set(levels)) >= 3, levels
    for level in set(levels) - {0}:
        first = next(h for h in director.hands if h.level == level)
        before = [h for h in director.hands if h.elapsed < first.elapsed]
        assert before and all(h.elapsed < starts[level] <= first.elapsed for h in before)
    # What the table dealt is the director's level.
    dealt = {e["hand"]: e for e in events}
    for h in director.hands:
        assert dealt[h.number]["big_blind"] == SCHEDULE.levels[h.level].big_blind
    assert table.closed


async def test_heads_up_the_button_posts_the_small_blind() -> None:
    director, events, _ = await play_sit_and_go(players=2)
    assert director.status == "finished" and events
    assert all(e["dealt"] == 2 and e["blind_seats"][0] == e["button"] for e in events)
    buttons = [e["button"] for e in events]
    assert len(set(buttons)) == 2 or len(buttons) == 1  # the button moves hand to hand


async def start(
    schedule: Schedule,
    bots: int,
    people: int = 0,
    decision_time: float = 5,
    clock: Callable[[], float] = time.monotonic,
) -> tuple[Director, TableRegistry, asyncio.Task[None], Table]:
    runtime = Runtime(between_hands=0, bot_think=0, deal_unwatched=True, away_grace=0.05)
    registry = TableRegistry(MemoryTableStore(), runtime)
    settings = Settings(name="t", schedule=schedule, starting_stack=STACK, seats=6,
                        decision_time=decision_time, time_bank=0)  # fmt: skip
    director = Director(settings, "host", registry, between_hands=0.0, clock=clock)
    task = asyncio.create_task(director.run())
    for k in range(bots):
        await director.request("register", f"bot{k}", name=f"Bot {k}", bot=True)
    for k in range(people):
        await director.request("register", f"human{k}", name=f"Human {k}")
    [table_id] = (await director.request("start", "host"))["tables"]
    return director, registry, task, registry.get(table_id)


async def test_a_break_deals_nothing_until_it_ends() -> None:
    # Level 1 for 0.1 s, then a 0.4 s break, then level 2: no hand starts in the break.
    schedule = Schedule((Level(1, 2, minutes=0.1 / 60), Level(10_000, 20_000, minutes=1)),
                        break_every=1, break_minutes=0.4 / 60)  # fmt: skip
    # The tournament's clock is the test's: level 1 lasts until the test ends it, whatever
    # the machine's speed (on real time, a loaded machine could deal the first hand late).
    now = [0.0]
    director, registry, task, _ = await start(schedule, bots=6, clock=lambda: now[0])
    await waited(director, lambda: director.hands, what="a hand dealt in level 1")
    now[0] = 0.2  # the break
    loop = asyncio.get_running_loop()

    def break_waited() -> bool:
        """Every hand in play ended; a round found the break and waits for its end (a timer
        ahead, not the round's own call, due at once). Or a hand was dealt in the break."""
        timer = director.deal_timer
        waiting = timer is not None and timer.when() > loop.time()
        idle = not any(s.playing for s in director.tables.values())
        return (idle and waiting) or any(h.elapsed >= 0.1 for h in director.hands)

    await waited(director, break_waited, what="the round waiting for the break's end")
    now[0] = 0.6  # level 2: the timer's round deals it
    await played_out(director, task, 30)
    await registry.close()
    times = [h.elapsed for h in director.hands]
    assert any(t < 0.1 for t in times)
    assert not [t for t in times if 0.1 <= t < 0.5]
    after = [h for h in director.hands if h.elapsed >= 0.5]
    assert after and after[0].level == 1  # dealt as the break ended, at the next level


async def test_pausing_stops_the_clock_and_the_deals() -> None:
    # Nobody connects: the clock checks or folds for everyone, so nobody busts and the
    # tournament cannot end under the test (three bots all in could end it in 0.1 s).
    schedule = Schedule((Level(1, 2, minutes=1),))
    director, registry, task, table = await start(schedule, bots=0, people=3, decision_time=0.01)
    await waited(director, lambda: len(director.hands) >= 2, what="two hands dealt")
    await director.request("pause", "host")
    frozen = director.elapsed()
    await waited(director, lambda: not any(s.playing for s in director.tables.values())
                 and director.deal_timer is None,
                 what="the hand being played ended, and no deal called")  # fmt: skip
    dealt = len(director.hands)
    # A command the director answers after the round it was in (the deal it would call), and
    # the table done with whatever it was sent: what the pause let through is here now.
    await director.request("status", "host")
    await table.quiet()
    assert director.elapsed() == frozen
    assert len(director.hands) == dealt and not table.hand_running()
    await director.request("resume", "host")
    await waited(director, lambda: len(director.hands) > dealt, what="a deal after the resume")
    assert director.elapsed() > frozen
    director.stop()
    task.cancel()
    await registry.close()


async def test_the_host_ends_a_level_or_a_break_at_once() -> None:
    # Level 1 for 0.1 s, then hour-long breaks and levels: only the host moves the clock on.
    hour = 60.0
    schedule = Schedule((Level(1, 2, minutes=0.1 / 60), Level(5, 10, minutes=hour),
                         Level(25, 50, minutes=hour)),
                        break_every=1, break_minutes=hour)  # fmt: skip
    starts = schedule.starts()
    director, registry, task, _ = await start(schedule, bots=0, people=3, decision_time=0.01)
    await waited(director, lambda: director.status_view()["on_break"], what="the first break")
    await waited(director, lambda: not any(s.playing for s in director.tables.values()),
                 what="the hand being played ended")  # fmt: skip
    with pytest.raises(TableError) as refused:
        await director.request("next_level", "human0")
    assert refused.value.code == "not_host"
    # The break ends at once: the next round deals level 2.
    dealt = len(director.hands)
    assert await director.request("next_level", "host") == {"elapsed": starts[1], "level": 2}
    await waited(director, lambda: len(director.hands) > dealt, what="a deal after the break")
    assert director.hands[-1].level == 1
    # Paused: the clock jumps to level 3's start (past the break after level 2) and stays.
    await director.request("pause", "host")
    assert (await director.request("next_level", "host"))["level"] == 3
    assert director.elapsed() == starts[2] and director.status == "paused"
    assert director.status_view()["level"] == 3
    await director.request("resume", "host")
    await waited(director, lambda: director.hands[-1].level == 2, what="a deal at level 3")
    with pytest.raises(TableError) as refused:
        await director.request("next_level", "host")
    assert refused.value.code == "last_level"
    director.stop()
    task.cancel()
    await registry.close()


async def test_a_disconnected_player_is_blinded_away_never_removed() -> None:
    # Nobody connects for "human0": the clock acts for them (check, else fold) until busted.
    schedule = Schedule(tuple(Level(sb, 2 * sb, minutes=0.2 / 60)
                              for sb in (25, 50, 100, 200, 400, 800, 1600)))  # fmt: skip
    director, registry, task, table = await start(schedule, bots=2, people=1,
                                                  decision_time=0.02)  # fmt: skip
    seen: list[bool] = []
    forward = table.director
    assert forward is not None

    def record(event: dict[str, Any]) -> None:
        hand = table.hand
        assert hand is not None
        if "human0" in event["started"]:
            seen.append("human0" in hand.players)
            seat = table.seat_of("human0")
            assert seat is not None and seat.away and not seat.sitting_out
        forward(event)

    table.director = record
    await played_out(director, task, 60)
    await registry.close()
    human = director.entries["human0"]
    # Placed at the end, never removed: busted, or (all in by the blinds, the others knocked
    # out by each other) even the winner.
    assert human.place is not None
    assert seen and all(seen)  # dealt into every hand while they had chips


async def test_the_director_restarts_from_the_store_and_plays_on() -> None:
    store = MemoryTournamentStore()
    registry = TableRegistry(MemoryTableStore(), Runtime(between_hands=0, bot_think=0.002,
                                                         deal_unwatched=True))  # fmt: skip
    schedule = Schedule(tuple(Level(sb, 2 * sb, minutes=0.3 / 60)
                              for sb in (10, 25, 50, 100, 200, 400, 800, 1600)))  # fmt: skip
    settings = Settings(name="r", schedule=schedule, starting_stack=STACK, seats=6,
                        payouts=(10_000,), prize_pool=6)  # fmt: skip
    first = Director(settings, "host", registry, between_hands=0.0, store=store)
    task = asyncio.create_task(first.run())
    for k in range(6):
        await first.request("register", f"p{k}", name=f"Bot {k}", bot=True)
    await first.request("start", "host")
    await waited(first, lambda: len(first.hands) >= 5, what="five hands dealt")
    task.cancel()  # the director's process dies; the tables play the hand out and wait
    first.stop()
    await waited(first, lambda: not any(registry.get(t).hand_running() for t in first.tables),
                 what="the hands played out")  # fmt: skip
    stored = await store.load(first.id)
    assert stored.status == "running" and stored.tables == list(first.tables)
    assert [e.player_id for e in stored.entries] == [f"p{k}" for k in range(6)]
    second = await Director.restore(stored, registry, store, between_hands=0.0)
    assert second.elapsed() >= 0 and second.status == "running"
    await played_out(second, asyncio.create_task(second.run()), 60)
    await registry.close()
    final = await store.load(first.id)
    assert final.status == "finished"
    places = sorted(e.place for e in final.entries if e.place is not None)
    assert len(places) == 6 and places[0] == 1
    assert [e.prize for e in final.entries if e.place == 1] == [6]


async def late_field(
    reentries: int, first_level: float = 1.5, field: int = 3
) -> tuple[Director, TableRegistry, asyncio.Task[None]]:
    # Level 1 (big blinds, for busts) lasts `first_level` s; registration stays open through it.
    schedule = Schedule((Level(100, 200, minutes=first_level / 60),
                         Level(400, 800, minutes=0.3 / 60),
                         Level(2000, 4000, minutes=1)))  # fmt: skip
    runtime = Runtime(between_hands=0, bot_think=0, deal_unwatched=True)
    registry = TableRegistry(MemoryTableStore(), runtime)
    settings = Settings(name="late", schedule=schedule, starting_stack=1000, seats=6,
                        late_registration_level=1, reentries=reentries)  # fmt: skip
    # The tournament's clock is the hands dealt (a tenth of a second each), so a level lasts
    # so many hands however busy the machine is.
    hands: list[object] = []
    director = Director(settings, "host", registry, between_hands=0.0,
                        clock=lambda: 0.1 * len(hands))  # fmt: skip
    hands = director.hands  # type: ignore[assignment]
    task = asyncio.create_task(director.run())
    for k in range(field):
        await director.request("register", f"p{k}", name=f"Bot {k}", bot=True)
    await director.request("start", "host")
    return director, registry, task


async def first_bust(director: Director, seconds: float) -> str:
    def out() -> list[Entry]:
        return [e for e in director.entries.values() if e.place is not None]

    return str((await waited(director, out, seconds, what="a first bust"))[0].player_id)


async def test_late_registration_and_a_re_entry() -> None:
    # The first bust comes well before the first level's end, even on a busy machine.
    director, registry, task = await late_field(reentries=1, first_level=6)
    late = await director.request("register", "late", name="Late", bot=True)
    assert late == {"registered": 4, "entry": 1}
    assert director.entry_of("late").table is not None  # seated at once
    busted = await first_bust(director, 60)
    again = await director.request("register", busted, name="Again", bot=True)
    assert again["entry"] == 2 and director.entry_of(busted).number == 2
    assert director.standings.entries == 5
    # Registration closes with the first level (or the tournament was over before: its
    # clock stopped then).
    await waited(director, lambda: director.status == "finished"
                 or director.settings.schedule.at(director.elapsed()).level > 0,
                 what="the first level's end")  # fmt: skip
    with pytest.raises(TableError) as closed:
        await director.request("register", "later", name="Later", bot=True)
    assert closed.value.code in ("registration_closed", "finished")
    await played_out(director, task, 60)
    await registry.close()
    # Five entries, each placed once; the re-entered player twice; every chip to the winner.
    assert len(director.entries) == 5
    places = sorted(e.place for e in director.entries.values() if e.place is not None)
    assert len(places) == 5 and places[0] == 1
    assert len([e for e in director.entries.values() if e.player_id == busted]) == 2
    chips = [h.chips for h in director.hands if h.chips is not None]
    assert chips[-1] == 5 * 1000 and all(c in (3000, 4000, 5000) for c in chips)


async def test_no_re_entry_beyond_the_limit() -> None:
    # A long first level: registration is still open when the first player busts, however
    # slow the machine (a bust after the level would be refused as `registration_closed`).
    # Six players: with three, one hand busted two of them about once in 60 runs, the
    # tournament was over and the answer was `finished` (it failed CI that way).
    director, registry, task = await late_field(reentries=0, first_level=30, field=6)
    with pytest.raises(TableError) as twice:
        await director.request("register", "p0", name="X")
    assert twice.value.code == "already_registered"
    busted = await first_bust(director, 25)
    assert director.status == "running"
    with pytest.raises(TableError) as refused:
        await director.request("register", busted, name="Again", bot=True)
    assert refused.value.code == "no_reentry"
    director.stop()
    task.cancel()
    await registry.close()
