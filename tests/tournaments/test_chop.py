"""Deals among the players left (issue 27, item 9): applied when all ask for the same on the
same stacks, with the figures shown for them; an ask can be withdrawn and lapses when the
stacks change; the first ask opens deal talks that hold the next deal."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import pytest

from app.tables.errors import TableError
from app.tables.registry import TableRegistry
from app.tables.table import Runtime
from app.tournaments.director import Director
from app.tournaments.icm import icm, whole
from app.tournaments.settings import Settings
from app.tournaments.structure import Level, Schedule
from tests.tables.stores import MemoryTableStore
from tests.waits import within

PLAYERS = ["p0", "p1", "p2"]


@asynccontextmanager
async def three_left(hold: float = 0.0) -> AsyncIterator[Director]:
    """Three players nobody connects for: the clock checks or folds for everyone, so nobody
    busts, and the stacks move only by the blinds. `hold`: the deal talks' seconds."""
    registry = TableRegistry(MemoryTableStore(), Runtime(between_hands=0, deal_unwatched=True))
    settings = Settings(name="deal", schedule=Schedule((Level(1, 2, minutes=5),)),
                        starting_stack=1000, seats=6, payouts=(5_000, 3_000, 2_000),
                        prize_pool=1000, decision_time=0.02, time_bank=0)  # fmt: skip
    director = Director(settings, "host", registry, between_hands=0.0, deal_hold=hold)
    task = asyncio.create_task(director.run())
    try:
        for p in PLAYERS:
            await director.request("register", p, name=f"Player {p}")
        await director.request("start", "host")
        yield director
    finally:
        director.stop()
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        await registry.close()


@pytest.fixture
async def field() -> AsyncIterator[Director]:
    async with three_left() as director:
        yield director


def between_hands(director: Director) -> bool:
    return not any(t.playing for t in director.tables.values())


async def paused(director: Director) -> None:
    await within(lambda: len(director.hands) >= 2)  # the blinds have moved the stacks
    await director.request("pause", "host")
    await within(lambda: between_hands(director))


async def test_a_deal_by_icm_when_everyone_left_agrees(field: Director) -> None:
    await paused(field)
    with pytest.raises(TableError) as bad:
        await field.request("chop", "p0", kind="half")
    assert bad.value.code == "bad_deal"
    with pytest.raises(TableError) as stranger:
        await field.request("chop", "nobody", kind="icm")
    assert stranger.value.code == "not_playing"
    shown = {f["player_id"]: f["icm"] for f in await field.deal_figures()}
    assert await field.request("chop", "p0", kind="icm") == {"votes": 1, "of": 3, "agreed": False}
    await field.request("chop", "p1", kind="icm")
    assert not (await field.request("chop", "p2", kind="chips"))["agreed"]  # not the same
    assert field.status == "paused"
    assert (await field.request("chop", "p2", kind="icm"))["agreed"]
    assert field.status == "finished"  # no hand was being played: at once
    stacks = {p: s for t in field.tables.values() for p, s in t.stacks.items()}
    assert sum(stacks.values()) == 3000 and set(stacks) == set(PLAYERS)
    expected = whole(icm([stacks[p] for p in PLAYERS], [500, 300, 200]))
    assert [field.entries[p].prize for p in PLAYERS] == expected == [shown[p] for p in PLAYERS]
    assert sum(expected) == 1000
    for p in PLAYERS:  # places by stack, equal stacks sharing
        assert field.entries[p].place == 1 + sum(stacks[q] > stacks[p] for q in PLAYERS)


async def test_an_ask_lapses_when_the_stacks_change(field: Director) -> None:
    await paused(field)
    await field.request("chop", "p0", kind="icm")
    await field.request("chop", "p1", kind="icm")
    before = [f["stack"] for f in await field.deal_figures()]
    dealt = len(field.hands)
    await field.request("resume", "host")
    await within(lambda: len(field.hands) >= dealt + 2)  # stacks moved on (blinds at least)
    await field.request("pause", "host")
    await within(lambda: between_hands(field))
    assert [f["stack"] for f in await field.deal_figures()] != before
    # The two asks were for stacks that are gone: the third ask alone agrees nothing.
    last = await field.request("chop", "p2", kind="icm")
    assert last == {"votes": 1, "of": 3, "agreed": False}
    assert field.status == "paused"


async def test_an_ask_can_be_withdrawn(field: Director) -> None:
    await paused(field)
    await field.request("chop", "p0", kind="icm")
    await field.request("chop", "p1", kind="icm")
    assert await field.request("chop", "p1", kind="withdraw") == {"votes": 0, "of": 3,
                                                                  "agreed": False}  # fmt: skip
    assert not (await field.request("chop", "p2", kind="icm"))["agreed"]
    assert field.status == "paused"
    view = field.deal_view("p1")
    assert view is not None and view["votes"] == {"icm": 2, "chips": 0} and view["yours"] is None


async def test_an_ask_holds_the_next_deal_for_the_talks() -> None:
    async with three_left(hold=600) as field:
        await talks(field)


async def talks(field: Director) -> None:
    await within(lambda: len(field.hands) >= 1)
    await field.request("chop", "p0", kind="chips")  # in a hand or between two
    await within(lambda: field.talks_until is not None and between_hands(field))
    held = len(field.hands)
    view = field.deal_view("p0")
    assert view is not None and view["talks"] is not None and view["talks"] > 500
    # The others answer on the stacks the talks hold (p0's ask may have lapsed with a hand).
    for p in PLAYERS:
        await field.request("chop", p, kind="withdraw")
    await within(lambda: len(field.hands) > held)  # nobody asks: dealt at once
    assert field.talks_until is None
    # One call for talks a level each: p0's next ask holds nothing.
    await field.request("chop", "p0", kind="chips")
    await within(lambda: len(field.hands) > held + 2)
    assert field.talks_until is None
