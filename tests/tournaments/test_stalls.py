"""States a tournament could stall in, each shown to move on: every round waits for every
table's hand (hand for hand), so a table whose deal is lost holds the whole field.

- a table refusing the director's call to deal (its store did not answer, or it is being
  restored after a restart): the round goes on without it, or is called again;
"""

from __future__ import annotations

import asyncio
from typing import Any

from app.tables.command import Command
from app.tables.errors import TableError
from app.tournaments import rounds
from tests.tournaments.test_rulings import StubRegistry, StubTable, two_tables


class Refusing(StubTable):
    """A table that refuses its next `refusals` deals (`unavailable`)."""

    def __init__(self, refusals: int) -> None:
        super().__init__()
        self.refusals = refusals

    async def request(self, kind: str, sender: str | None = None, /, **data: Any) -> dict[str, Any]:
        if kind == "t_deal" and self.refusals:
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
