"""The table keeps who watched its hands without being dealt in (app/tables/watching.py):
a visit per stretch of hands, noted as each hand starts and as a spectator comes in during
one, at most one note a hand for a player, never the host's nor a dealt player's; a note
that cannot be stored changes nothing at the table."""

from __future__ import annotations

from app.tables.config import TableConfig
from app.tables.table import Table
from tests.tables.harness import Harness, Recorder, passive, start
from tests.waits import until


async def a_table() -> Harness:
    """Seats a and b dealt in, the host watching; paused: a hand is dealt when asked."""
    h = await start(TableConfig(seats=3, decision_time=0))
    await h.table.request("pause", "host")
    await h.sit("a", 0)
    await h.sit("b", 1)
    for pid in ("host", "a"):
        await h.table.request("attach", pid, viewer=Recorder(pid))
    return h


async def deal(table: Table, host: str = "host") -> int:
    """The next hand dealt (the table paused again: no other follows it)."""
    await table.request("resume", host)
    await table.quiet()
    await table.request("pause", host)
    hand = table.hand
    assert hand is not None and not hand.state.complete
    return hand.number


async def finish(table: Table) -> None:
    """The hand in play checked and folded down to its end."""
    hand = table.hand
    assert hand is not None
    while not hand.state.complete:
        await passive(table)
    await table.quiet()


async def noted(h: Harness) -> list[tuple[str, int, int]]:
    """The visits stored so far (the notes are not waited for by the table: here they are)."""
    await until(lambda: not h.table.in_flight, what="the notes stored")
    return [(pid, first, last) for _, pid, first, last in h.store.watched]


async def test_a_spectator_s_visits_are_noted_as_hands_start_once_a_hand() -> None:
    h = await a_table()
    sam = Recorder("sam")
    await h.table.request("attach", "sam", viewer=sam)
    one = await deal(h.table)
    await finish(h.table)
    two = await deal(h.table)
    # Coming back during a hand already noted writes nothing more.
    await h.table.request("detach", "sam", viewer=sam)
    sam = Recorder("sam")
    await h.table.request("attach", "sam", viewer=sam)
    await finish(h.table)
    assert await noted(h) == [("sam", one, one), ("sam", one, two)]
    # Away for a hand: the next visit is another, begun when they came in (mid-hand).
    await h.table.request("detach", "sam", viewer=sam)
    await deal(h.table)
    await finish(h.table)
    four = await deal(h.table)
    sam = Recorder("sam")
    await h.table.request("attach", "sam", viewer=sam)
    await finish(h.table)
    # Gone before a hand starts and back during it: the visit goes on.
    await h.table.request("detach", "sam", viewer=sam)
    five = await deal(h.table)
    await h.table.request("attach", "sam", viewer=Recorder("sam"))
    await finish(h.table)
    assert await noted(h) == [
        ("sam", one, one), ("sam", one, two), ("sam", four, four), ("sam", four, five),
    ]  # fmt: skip
    # Neither the host (they review every hand of their table) nor a dealt player is noted.
    assert {pid for pid, _, _ in await noted(h)} == {"sam"}
    await h.stop()


async def test_a_seated_player_not_dealt_in_watches_and_a_failed_note_changes_nothing() -> None:
    h = await a_table()
    await h.sit("cy", 2)
    await h.table.request("sit_out", "cy")
    await h.table.request("attach", "cy", viewer=Recorder("cy"))
    h.store.watching_fails = True  # the note is refused: the hand is dealt and plays on
    one = await deal(h.table)
    hand = h.table.hand
    assert hand is not None and "cy" not in hand.players
    await finish(h.table)
    assert hand.state.complete and await noted(h) == []
    h.store.watching_fails = False
    two = await deal(h.table)
    await finish(h.table)
    assert await noted(h) == [("cy", one, two)]  # the visit as the table knows it
    await h.stop()
