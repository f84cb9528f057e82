"""Thirty players at three tables through the actors: balancing, breaking, the final table."""

from __future__ import annotations

import asyncio
from collections import Counter

from app.tables.registry import TableRegistry
from app.tables.store import MemoryTableStore
from app.tables.table import Runtime
from app.tournaments.director import Director
from app.tournaments.settings import Settings
from app.tournaments.structure import Level, Schedule

STACK = 1000
SCHEDULE = Schedule(
    tuple(
        Level(sb, 2 * sb, 0, 2 * sb if i >= 2 else 0, minutes=0.5 / 60)
        for i, sb in enumerate((10, 20, 40, 75, 150, 300, 600, 1200, 2500, 5000, 10_000))
    )
)


async def test_thirty_players_three_tables_to_the_end() -> None:
    store = MemoryTableStore()
    runtime = Runtime(between_hands=0, bot_think=0, deal_unwatched=True)
    registry = TableRegistry(store, runtime)
    settings = Settings(name="Thirty", schedule=SCHEDULE, starting_stack=STACK, seats=10,
                        payouts=(5_000, 3_000, 2_000), prize_pool=300, time_bank=0)  # fmt: skip
    director = Director(settings, "host", registry, between_hands=0.0)
    task = asyncio.create_task(director.run())
    for k in range(30):
        await director.request("register", f"p{k:02}", name=f"Bot {k}", bot=True)
    rounds: list[dict[str, list[str]]] = []
    original = director._balance

    async def balance_and_check() -> None:
        await original()
        # After the moves of every round: what the director and the tables say agree.
        seating: dict[str, list[str]] = {}
        for t in director.tables.values():
            table = registry.get(t.id)
            seated = [s.player_id for s in table.seats if s is not None]
            assert sorted(seated) == sorted(t.seats.values())
            seating[t.id] = seated
        rounds.append(seating)

    director._balance = balance_and_check  # type: ignore[method-assign]
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
