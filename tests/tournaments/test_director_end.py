"""The director's end: once the tournament is finished and its last command answered, the
director's task returns (the hall then keeps it among the finished), however that last command
was answered; a refused one included.

It once did not: a command refused after the finishing hand (a late registration, a host's
pause) skipped the check, the director waited on its mailbox for ever and
`test_late_registration_and_a_re_entry` stalled 60 s waiting for its task (it polls the status,
which says `finished` while the finishing hand's tables are still being closed, and registers
once more: at times that landed in the mailbox behind the finishing hand)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from app.tables.command import Command
from app.tables.errors import TableError
from app.tables.registry import TableRegistry
from app.tables.table import Runtime
from app.tournaments.director import Director, FieldTable
from app.tournaments.entry import Entry
from app.tournaments.places import Standings
from app.tournaments.settings import Settings
from app.tournaments.structure import Level, Schedule
from tests.tables.stores import MemoryTableStore
from tests.tournaments.test_rulings import StubRegistry
from tests.waits import within

SETTINGS = Settings(name="End", schedule=Schedule((Level(25, 50),)), starting_stack=1000,
                    seats=6, late_registration_level=1)  # fmt: skip


class Tables(StubRegistry):
    """Stub tables, and a table store for the seeds revealed at the end."""

    def __init__(self) -> None:
        super().__init__()
        self.store = self
        self.revealed: list[list[str]] = []

    async def reveal_seeds(self, table_ids: list[str]) -> None:
        self.revealed.append(table_ids)


def queued(director: Director, kind: str, sender: str | None, **data: Any) -> asyncio.Future[Any]:
    """A command put in the mailbox now (`request` without waiting): its answer."""
    future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
    director.post(Command(kind, sender, data, future))
    return future


@pytest.mark.parametrize(
    ("kind", "sender", "code"),
    [
        ("register", "later", "registration_closed"),
        ("pause", "host", "not_running"),
        ("no_such_command", "host", "unknown_command"),
    ],
)
async def test_a_command_refused_behind_the_finishing_hand_still_ends_the_director(
    kind: str, sender: str, code: str
) -> None:
    registry = Tables()
    d = Director(SETTINGS, "host", registry, between_hands=0.0)  # type: ignore[arg-type]
    await d.create()
    d.status, d.since = "running", d.clock()
    d.tables["A"] = FieldTable("A", {0: "a", 1: "b"}, {"a": 1000, "b": 1000}, playing=True)
    for n, p in enumerate("ab"):
        d.entries[p] = Entry(p, p.upper(), table="A", seat=n)
        await d.store.add_entry(d.id, d.entries[p])  # the finish stores its places
        d.live[p] = p
    d.standings = Standings(2)
    # Both in the mailbox before the director reads it: the hand that leaves one player, then
    # the command that finds the tournament over.
    d.hand_ended({"table": "A", "hand": 1, "button": 0, "blinds": [0, 1],
                  "started": {"a": 1000, "b": 1000}, "stacks": {"a": 2000, "b": 0}})  # fmt: skip
    answer = queued(d, kind, sender, name="Later")
    task = asyncio.create_task(d.run())
    with pytest.raises(TableError) as refused:
        await answer
    assert refused.value.code == code
    assert d.status == "finished" and d.entries["a"].place == 1 and registry.revealed == [[]]
    assert d.ended, "the director answered its last command and did not end"
    await asyncio.wait_for(task, 5)  # returns at once (the bound only keeps a bug from hanging)
    d.stop()
    with pytest.raises(TableError) as later:
        await d.request("status", "host")
    assert later.value.code == "finished"  # answered at once: nobody reads the mailbox


async def test_a_registration_behind_the_last_hand_through_the_table_actor() -> None:
    """The flaky test's race made certain, with the real table: two bots play heads-up until
    one holds every chip; the table's call to the director for that hand is followed at once
    by a late registration, as the test's polling posted it."""
    schedule = Schedule(tuple(Level(sb, 2 * sb, minutes=1) for sb in (400, 800)))
    runtime = Runtime(between_hands=0, bot_think=0, deal_unwatched=True)
    registry = TableRegistry(MemoryTableStore(), runtime)
    settings = Settings(name="Last", schedule=schedule, starting_stack=1000, seats=6,
                        late_registration_level=2)  # fmt: skip
    director = Director(settings, "host", registry, between_hands=0.0)
    tell = director.hand_ended
    answers: list[asyncio.Future[Any]] = []

    def last_hand(event: dict[str, Any]) -> None:
        tell(event)
        if sum(1 for s in event["stacks"].values() if s) == 1:
            answers.append(queued(director, "register", "later", name="Later", bot=True))

    director.hand_ended = last_hand  # type: ignore[method-assign]  # before its tables open
    task = asyncio.create_task(director.run())
    for k in range(2):
        await director.request("register", f"p{k}", name=f"Bot {k}", bot=True)
    await director.request("start", "host")
    try:
        await within(lambda: answers and answers[0].done(), what="the registration answered")
        assert len(answers) == 1 and isinstance(answers[0].exception(), TableError)
        assert director.status == "finished"
        # Its last command answered: the director has ended (its task returns at once).
        assert director.ended, "the director answered its last command and did not end"
        await asyncio.wait_for(task, 5)
    finally:
        director.stop()
        task.cancel()
        await registry.close()
