"""Thirty players at three tables through the actors: balancing, breaking, the final table;
and the big blind across moves.

The rule checked for moves (from the TDA's balancing rule: the player moved is the one who
would post the big blind next where they sit, and goes to the worst seat where they land,
the one that posts the big blind soonest). Play goes in rounds (every table deals one hand,
then players move), and each hand dealt is recorded: its seats, players, small and big blind
seats. For every player P moved between two rounds from table A to table B (to balance, or
because A broke; the final table's draw is a fresh draw and is left out):

1. Not doubled (balancing moves): P does not post the big blind both in their last hand at
   A and in their first hand at B. (From a broken table P draws any free seat, the big
   blind's too: TDA 10-A, docs/rules.md, Breaking a table.)
2. Not skipped, the landing (balancing moves): clockwise from the big blind of B's first hand
   with P to P's seat, no seat left free at B has a player seated between it and P's seat:
   sitting there, P would have posted the big blind sooner. (A free seat before that big
   blind is not counted: sitting between the last button and the small blind would only
   have made P the button or the small blind.) The big blind goes on from the last big
   blind's seat, even when its player busted: the dead button (TDA 32).
3. Not skipped, at the new table: P is dealt in at once (in every round) unless P's seat lies
   between the button and the small blind (TDA 10-A: P then waits for the button to pass,
   and only then), and in B's hands
   from P's arrival the big blind never passes P's seat without P posting it, while the
   players at B stay those of P's first hand there (a bust moves the button on past the
   seats it emptied: docs/protocol.md section 7, and may so skip a big blind, moved or not).
"""

from __future__ import annotations

import asyncio
import itertools
from collections import Counter, defaultdict
from dataclasses import dataclass
from typing import Any

import pytest

from app.tables.registry import TableRegistry
from app.tables.table import Runtime
from app.tournaments import rounds as play
from app.tournaments.director import Director
from app.tournaments.settings import Settings
from app.tournaments.state import Tournament
from app.tournaments.structure import Level, Schedule
from tests.tables.stores import MemoryTableStore

STACK = 1000
SCHEDULE = Schedule(
    tuple(
        Level(sb, 2 * sb, 0, 2 * sb if i >= 2 else 0, minutes=0.5 / 60)
        for i, sb in enumerate((10, 20, 40, 75, 150, 300, 600, 1200, 2500, 5000, 10_000))
    )
)


async def test_thirty_players_three_tables_to_the_end(monkeypatch: pytest.MonkeyPatch) -> None:
    store = MemoryTableStore()
    runtime = Runtime(between_hands=0, bot_think=0, deal_unwatched=True)
    registry = TableRegistry(store, runtime)
    settings = Settings(name="Thirty", schedule=SCHEDULE, starting_stack=STACK, seats=10,
                        payouts=(5_000, 3_000, 2_000), prize_pool=300, time_bank=0)  # fmt: skip
    # The tournament's clock is the hands played (a tenth of a second each: five hands a
    # level), so the blinds rise with play, not with how busy the machine is.
    dealt: dict[tuple[str, int], Dealt] = {}
    director = Director(settings, "host", registry, between_hands=0.0,
                        clock=lambda: 0.1 * len(dealt))  # fmt: skip
    dealt = record_hands(director, registry, dealt)
    task = asyncio.create_task(director.run())
    for k in range(30):
        await director.request("register", f"p{k:02}", name=f"Bot {k}", bot=True)
    rounds: list[dict[str, list[str]]] = []
    original = play.balance

    async def balance_and_check(t: Tournament) -> None:
        await original(t)
        # After the moves of every round: what the director and the tables say agree.
        seating: dict[str, list[str]] = {}
        for field_table in director.tables.values():
            table = registry.get(field_table.id)
            seated = [s.player_id for s in table.seats if s is not None]
            assert sorted(seated) == sorted(field_table.seats.values())
            seating[field_table.id] = seated
        rounds.append(seating)

    monkeypatch.setattr(play, "balance", balance_and_check)
    started = await director.request("start", "host")
    assert len(started["tables"]) == 3
    await asyncio.wait_for(task, 240)
    await registry.close()

    assert director.status == "finished"
    assert len(rounds) > 10
    for seating in rounds:
        sizes = [len(p) for p in seating.values()]
        assert max(sizes) - min(sizes) <= 1, seating  # balanced after every round
        everyone = [p for players in seating.values() for p in players]
        assert len(everyone) == len(set(everyone))  # nobody seated twice
        assert set(everyone) <= set(director.entries)  # nobody lost on a move: see below
    moves = check_big_blinds(director, dealt)
    assert moves >= 5, moves  # balancing and breaking moved players, and each was checked
    assert any(len(seating) == 2 for seating in rounds)  # a table broke
    assert any(len(seating) == 1 for seating in rounds)  # the final table formed
    assert all(h.chips == 30 * STACK for h in director.hands)  # chips conserved
    places = Counter(e.place for e in director.entries.values())
    assert None not in places and places[1] == 1
    # places 1..30 each given once (players busting together with equal stacks share one,
    # and the places they cover are then skipped)
    ranked = sorted(e.place for e in director.entries.values() if e.place is not None)
    assert ranked[0] == 1 and len(ranked) == 30
    for k, place in enumerate(ranked):
        assert place <= k + 1
    assert sum(e.prize for e in director.entries.values()) == 300
    # Each table's ledger: chips in = chips out (stacks went with the players).
    ins: dict[str, int] = Counter()
    for table_id, _player, kind, amount in store.ledger:
        ins[table_id] += amount if kind == "buy_in" else -amount if kind == "cash_out" else 0
    assert all(v == 0 for v in ins.values()), ins


@dataclass(frozen=True)
class Dealt:
    """One hand as dealt at a table: position order, the button last."""

    table: str
    size: int
    seats: tuple[int, ...]
    players: tuple[str, ...]
    small: int | None
    big: int
    button: int
    occupants: dict[int, str]  # every seated player by seat, dealt in or waiting


def record_hands(
    director: Director, registry: TableRegistry, dealt: dict[tuple[str, int], Dealt]
) -> dict[tuple[str, int], Dealt]:
    """Each hand at its end, by (table, hand number), as the table dealt it, into `dealt`."""
    tell = director.hand_ended

    def record(event: dict[str, Any]) -> None:
        table = registry.get(str(event["table"]))
        hand = table.hand
        assert hand is not None and hand.blind_seats[1] is not None
        dealt[(table.id, hand.number)] = Dealt(table.id, len(table.seats), hand.seats,
                                               hand.players, *hand.blind_seats,  # type: ignore[arg-type]
                                               hand.button,
                                               {s.number: s.player_id for s in table.seats
                                                if s is not None})  # fmt: skip
        tell(event)

    director.hand_ended = record  # type: ignore[method-assign]
    return dealt


def between(start: int, end: int, size: int) -> list[int]:
    """Seats strictly after `start` and before `end`, clockwise."""
    return [(start + k) % size for k in range(1, (end - start) % size)]


def check_big_blinds(director: Director, dealt: dict[tuple[str, int], Dealt]) -> int:
    """Check the rule of the module's docstring for every move; the number of moves."""
    # The rounds, in the order dealt: a round is the hands dealt at the same moment. That
    # does not hang on scheduling: the director reads the clock once a round for all its
    # deals (`rounds.on_deal_all`), and deals the next round only after every hand of this
    # one ended and was recorded, so the clock (the hands recorded) has moved on.
    rounds: list[dict[str, Dealt]] = []
    for k, h in enumerate(director.hands):
        if k == 0 or h.elapsed != director.hands[k - 1].elapsed:
            assert k == 0 or h.elapsed > director.hands[k - 1].elapsed
            rounds.append({})
        assert h.table not in rounds[-1], "a table dealt twice in one round"
        rounds[-1][h.table] = dealt[(h.table, h.number)]
    where: dict[str, list[tuple[int, Dealt]]] = defaultdict(list)  # player -> (round, hand)
    for r, hands in enumerate(rounds):
        for hand in hands.values():
            for p in hand.players:
                where[p].append((r, hand))
    moves = 0
    for p, seen in where.items():
        for (r0, before), (r1, after) in itertools.pairwise(seen):
            for r in range(r0 + 1, r1):  # not dealt in: waiting between button and SB
                hand = rounds[r][after.table]
                assert hand.small is not None
                seat = next(n for n, q in hand.occupants.items() if q == p)
                assert seat in between(hand.button, hand.small, hand.size), (p, r)
            if before.table == after.table:
                assert r1 == r0 + 1, (p, r0, r1)  # dealt in every round where they sit
                continue
            if len(rounds[r0]) > 1 and len(rounds[r1]) == 1:
                continue  # the final table's draw
            moves += 1
            bb = after.players[after.seats.index(after.big)]
            posted_before = before.players[before.seats.index(before.big)] == p
            broke = before.table not in rounds[r1]
            doubled = posted_before and bb == p
            assert broke or not doubled, f"{p}: a doubled big blind {before} {after}"
            seat = after.seats[after.players.index(p)]
            free = set(range(after.size)) - set(after.occupants)  # a waiting player's is not
            passed = {f for f in set(between(after.big, seat, after.size)) & free
                      if set(between(f, seat, after.size)) & set(after.seats)}  # fmt: skip
            assert broke or not passed, f"{p} sat at {seat}, after the free seats {passed}: {after}"
            # The big blind at B from P's arrival: it never passes P's seat unpaid.
            previous = after.small
            assert previous is not None  # a tournament posts both blinds (moving button)
            for r in range(r1, len(rounds)):
                later = rounds[r].get(after.table)
                if later is None or set(later.players) != set(after.players):
                    break  # someone busted or moved: the moving button may jump (see above)
                assert seat not in between(previous, later.big, later.size), f"{p} skipped"
                if later.big == seat:
                    break
                previous = later.big
    return moves
