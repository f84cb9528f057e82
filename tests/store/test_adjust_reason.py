"""A host's adjustment keeps its reason (both databases): entered at once between hands with
its reason in the ledger; made during a hand, its reasons wait on the seat, survive a restart
of the table in the middle of that hand, and are entered with the chips when it ends."""

from __future__ import annotations

from app.tables.config import TableConfig
from app.tables.table import Table
from tests.tables.stores import FAST, dealt, paused_with, running, sql_store


async def test_reasons_are_stored_and_survive_a_restart_mid_hand(database_url: str) -> None:
    async with sql_store(database_url) as store:
        host, a = await store.make_players(2)
        table_id = await store.create_table(host, TableConfig(seats=3, decision_time=0), "c")
        async with running(Table(await store.load_table(table_id), store, FAST)) as table:
            await paused_with(table, (host, a), (100, 80), ("host", "a"))
            await table.request("adjust", host, seat=1, amount=15, reason="Paid 15 in cash")
            await table.request("resume", host)
            assert await dealt(table) is not None
            done = await table.request("adjust", host, seat=0, amount=-5, reason="Misdeal")
            assert done["status"] == "after_hand"
            await table.request("adjust", host, seat=0, amount=7, reason="Chip found")
        entered = await store.adjustments(table_id)
        assert [(e.player_id, e.amount, e.reason) for e in entered] == [(a, 15, "Paid 15 in cash")]
        stored = await store.load_table(table_id)
        seat = next(s for s in stored.seats if s.number == 0)
        assert (seat.pending_adjust, seat.pending_adjust_reason) == (2, "Misdeal; Chip found")
        assert stored.hand is not None  # restored in the middle of the hand

        async with running(Table(stored, store, FAST)) as table:
            await table.request("pause", host)
            await table.quiet()
            hand = table.hand
            while hand is not None and not hand.state.complete:  # fold the hand out
                actor = hand.players[hand.state.actor] if hand.state.actor is not None else None
                if actor is not None:
                    await table.request(
                        "act", actor, hand=hand.id, counter=hand.counter, action="fold"
                    )
                await table.quiet()
            assert not table.seats[0] or not table.seats[0].pending_adjust
        entered = await store.adjustments(table_id)
        assert [(e.player_id, e.amount, e.reason) for e in entered] == [
            (a, 15, "Paid 15 in cash"),
            (host, 2, "Misdeal; Chip found"),
        ]
        stored = await store.load_table(table_id)
        seat = next(s for s in stored.seats if s.number == 0)
        assert (seat.pending_adjust, seat.pending_adjust_reason) == (0, "")
        assert await store.balance(table_id) == sum(s.stack for s in stored.seats)
