"""Issue 25's tournament rulings through the director (a stub for its tables where the rule is
the director's, the table actor where it is the table's): the dead button, the same hand at
different tables, hand-for-hand, the heads-up fixed-limit cap, late and moved players."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from app.tables.button import plan_deal, seat_dealt
from app.tables.command import Command
from app.tables.config import MAX_CHIPS, TableConfig
from app.tables.registry import TableRegistry
from app.tables.seat import Seat, SeatState
from app.tables.table import Runtime
from app.tournaments import rounds, seating
from app.tournaments.director import Director, FieldTable
from app.tournaments.entry import Entry
from app.tournaments.places import Standings
from app.tournaments.settings import Settings
from app.tournaments.structure import Level, Schedule
from tests.tables.stores import MemoryTableStore

LEVEL = Level(25, 50)
SETTINGS = Settings(name="Rulings", schedule=Schedule((LEVEL,)), starting_stack=1000, seats=3,
                    payouts=(6_500, 3_500), prize_pool=100)  # fmt: skip


class StubTable:
    """A table actor as the director sees it: the commands it was sent."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, dict[str, Any]]] = []

    async def request(self, kind: str, sender: str | None = None, /, **data: Any) -> dict[str, Any]:
        self.calls.append((kind, data))
        return {"hand": len(self.calls), "stack": 0, "seat": data.get("seat")}


class StubRegistry:
    def __init__(self) -> None:
        self.tables: dict[str, StubTable] = defaultdict(StubTable)
        self.directors: dict[str, Any] = {}

    def get(self, table_id: str) -> StubTable:
        return self.tables[table_id]


async def two_tables() -> tuple[Director, StubRegistry]:
    """Six players at two tables of three, a hand being played at each."""
    registry = StubRegistry()
    d = Director(SETTINGS, "host", registry, between_hands=60.0)  # type: ignore[arg-type]
    await d.create()
    d.status, d.since = "running", d.clock()
    for t in "AB":
        seats = {n: f"{t.lower()}{n}" for n in range(3)}
        d.tables[t] = FieldTable(t, seats, {p: 1000 for p in seats.values()}, 0, playing=True)
        for n, p in seats.items():
            d.entries[p] = Entry(p, p.upper(), table=t, seat=n)
            d.live[p] = p
    d.standings = Standings(6)
    return d, registry


def ended_with(table: str, button: int, blinds: list[int], started: dict[str, int],
               stacks: dict[str, int]) -> Command:  # fmt: skip
    """A hand's end as a table tells it, with the hand's button and blind seats."""
    data = {"table": table, "hand": 1, "button": button, "blinds": blinds,
            "started": started, "stacks": stacks}  # fmt: skip
    return Command("hand_ended", data=data)


def ended(table: str, started: dict[str, int], stacks: dict[str, int]) -> Command:
    return Command("hand_ended", data={"table": table, "hand": 1, "button": 0,
                                       "started": started, "stacks": stacks})  # fmt: skip


async def test_bust_outs_in_the_same_hand_at_different_tables_are_ranked_by_their_stacks() -> None:
    """Players eliminated in the same hand are ranked by their chips at its start, the larger
    stack finishing better; equal stacks share (PokerStars: "During hand-for-hand play, two or
    more players eliminated during a single 'synchronized' hand are treated as having been
    eliminated simultaneously"; TDA RP-8). The tables play in lockstep, so a round is one hand:
    at the bubble, the 900 stack that went out first (table A) finishes above the 100 stack."""
    d, _ = await two_tables()
    await rounds.on_hand_ended(d, ended("A", {"a0": 900, "a1": 1100, "a2": 1000},
                                        {"a0": 0, "a1": 2000, "a2": 1000}))  # fmt: skip
    assert d.entries["a0"].place is None  # the round is not over: B is still playing
    await rounds.on_hand_ended(d, ended("B", {"b0": 100, "b1": 1900, "b2": 1000},
                                        {"b0": 0, "b1": 2000, "b2": 1000}))  # fmt: skip
    # (each read again: mypy keeps the narrowing to None above across the await)
    assert tuple(d.entries[pid].place for pid in ("a0", "b0")) == (5, 6)
    assert "a0" not in d.live and "b0" not in d.live
    d.stop()


async def test_hand_for_hand_is_shown_when_the_bubble_is_near() -> None:
    """TDA RP-8 (hand for hand). Every round is played hand for hand (each table one hand,
    then all wait); `hand_for_hand` tells the players the bubble is near: no more players left
    than the paid places plus one per table."""
    d, _ = await two_tables()
    assert not d.hand_for_hand() and d.status_view()["hand_for_hand"] is False  # 6 left
    await rounds.on_hand_ended(d, ended("A", {"a0": 900}, {"a0": 0, "a1": 2000, "a2": 1000}))
    await rounds.on_hand_ended(d, ended("B", {"b0": 100}, {"b0": 0, "b1": 2000, "b2": 1000}))
    assert d.hand_for_hand() and d.status_view()["hand_for_hand"] is True  # 4 left, 2 paid
    d.stop()


async def test_equal_stacks_out_in_the_same_hand_share_the_places_and_their_prizes() -> None:
    """Equal stacks share: they split the prizes of the places they cover, in whole units,
    the odd ones one each to the earliest entries (docs/rules.md)."""
    d, _ = await two_tables()
    for t in "AB":
        x = t.lower()
        started = {f"{x}0": 500, f"{x}1": 1500, f"{x}2": 1000}
        await rounds.on_hand_ended(d, ended(t, started, {f"{x}0": 0, f"{x}1": 2000, f"{x}2": 1000}))
    assert d.entries["a0"].place == d.entries["b0"].place == 5
    d.stop()


def test_tournament_tables_play_a_dead_button() -> None:
    """TDA 32: "Tournament play will use a dead button." The big blind busts: the next player
    posts the big blind, nobody skips it (with a moving button seat 3 would)."""
    d = Director(SETTINGS, "host", StubRegistry())  # type: ignore[arg-type]
    config = seating.table_config(d, LEVEL, 0).with_stakes(seats=5)
    assert config.dead_button and config.tournament
    table = [Seat(n, f"p{n}", f"p{n}", 1000, SeatState.PLAYING) for n in range(5)]
    first = plan_deal(table, 4, config, 1)
    assert first is not None and first.blind_seats == (1, 2)
    for n in first.order:
        table[n] = seat_dealt(table[n])
    seats = list[Seat | None](table)
    seats[2] = None  # the big blind busts
    deal = plan_deal(seats, first.button, config, 2, first.blind_seats)
    assert deal is not None and deal.blind_seats == (2, 3) and deal.button == 1


async def test_the_fixed_limit_cap_holds_heads_up_until_the_event_is_down_to_two() -> None:
    """TDA 48: "In limit play, there is a limit to raises even when heads-up until the event is
    down to 2 players; the house limit applies." (The house limit, ours: no cap heads-up.)"""
    d, registry = await two_tables()
    for t in d.tables.values():
        t.playing = False
    await rounds.on_deal_all(d, Command("deal_all"))
    assert all(data["cap_heads_up"] for t in registry.tables.values() for _, data in t.calls)
    del d.tables["B"]
    d.tables["A"].seats = {0: "a0", 1: "a1"}
    d.tables["A"].playing = False
    d.live = {"a0": "a0", "a1": "a1"}
    await rounds.on_deal_all(d, Command("deal_all"))
    kind, data = registry.tables["A"].calls[-1]
    assert kind == "t_deal" and data["cap_heads_up"] is False
    d.stop()


TOURNAMENT = TableConfig(seats=4, decision_time=0, buy_in_min=MAX_CHIPS, buy_in_max=MAX_CHIPS,
                         tournament=True, dead_button=True)  # fmt: skip


async def test_a_late_or_moved_player_is_not_dealt_in_between_the_button_and_the_sb() -> None:
    """TDA 10-A: "New players entering the tournament and players from broken tables can get
    any seat including the small or big blind or the button and be dealt in except between the
    SB and button." Through the table actor: a player seated there waits a hand."""
    registry = TableRegistry(MemoryTableStore(), Runtime(between_hands=0, clock_enabled=False))
    table = await registry.create("host", TOURNAMENT)
    table.director = lambda event: None
    for pid, seat in (("a", 0), ("b", 1), ("c", 3)):
        await table.request("t_seat", None, player_id=pid, name=pid, seat=seat, stack=500)
    await table.request("t_deal", None, small_blind=5, big_blind=10)
    await table.quiet()  # the deal (or the hand's end) handled, no timer due
    hand = table.hand
    assert hand is not None and hand.button == 0 and hand.blind_seats == (1, 3)
    while not hand.state.complete:  # folds around to the big blind
        legal = hand.state.legal_actions()
        assert legal is not None
        await table.request("act", hand.players[legal.player], hand=hand.id,
                            counter=hand.counter, action="fold")  # fmt: skip
    await table.quiet()
    # Next hand: the button on seat 1, the small blind 3, the big blind 0: seat 2 lies between
    # the button and the small blind.
    await table.request("t_seat", None, player_id="late", name="late", seat=2, stack=500)
    await table.request("t_deal", None, small_blind=5, big_blind=10)
    await table.quiet()
    second = table.hand
    assert second is not None and second is not hand
    assert (second.button, second.blind_seats) == (1, (3, 0))
    assert 2 not in second.seats and "late" not in second.players
    await registry.close()


async def test_a_move_to_a_table_whose_blinds_busted_takes_the_next_big_blind() -> None:
    """TDA 11-A through the director, at the table of the thirty-player test's failure: at B
    the small and big blind (seats 4, 5) bust in the same hand, and B is short by two. The
    big blind goes on from seat 5 (dead button): 6 posts it next, then a player at 7, so the
    player due the big blind at A (from its big blind 3, seat 5) moves to 7; counted from
    the button moved on over the players left, they were sent to 1, four hands from it."""
    registry = StubRegistry()
    settings = Settings(name="Ten", schedule=Schedule((LEVEL,)), starting_stack=1000, seats=10,
                        payouts=(6_500, 3_500), prize_pool=100)  # fmt: skip
    d = Director(settings, "host", registry, between_hands=60.0)  # type: ignore[arg-type]
    await d.create()
    d.status, d.since = "running", d.clock()
    at = {"A": (0, 1, 2, 3, 5, 7, 9), "B": (0, 2, 4, 5, 6, 8, 9)}
    for t, numbers in at.items():
        seats = {n: f"{t.lower()}{n}" for n in numbers}
        d.tables[t] = FieldTable(t, seats, {p: 1000 for p in seats.values()}, playing=True)
        for n, p in seats.items():
            d.entries[p] = Entry(p, p.upper(), table=t, seat=n)
            d.live[p] = p
    d.standings = Standings(14)
    a = {f"a{n}": 1000 for n in at["A"]}
    await rounds.on_hand_ended(d, ended_with("A", 1, [2, 3], a, a))
    b = {f"b{n}": 1000 for n in at["B"]}
    busted = {**b, "b4": 0, "b5": 0, "b6": 3000}
    await rounds.on_hand_ended(d, ended_with("B", 3, [4, 5], b, busted))
    seated = [data for kind, data in registry.tables["B"].calls if kind == "t_seat"]
    assert [(s["player_id"], s["seat"]) for s in seated] == [("a5", 7)]
    assert d.tables["B"].big_blind == 5
    d.stop()
