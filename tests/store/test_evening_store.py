"""What the host's evening stores is restored with the table (both databases): a bot seat
(its player marked a bot), the sit-out switches, a bomb pot called for the next hand, chat,
and the ledger's totals per player."""

from __future__ import annotations

from app.tables.config import TableConfig
from app.tables.table import Table
from tests.tables.stores import FAST, dealt, paused_with, running, sql_store


async def test_the_evening_survives_a_restart(database_url: str) -> None:
    async with sql_store(database_url) as store:
        host, a = await store.make_players(2)
        table_id = await store.create_table(host, TableConfig(seats=3, decision_time=0), "c")
        async with running(Table(await store.load_table(table_id), store, FAST)) as table:
            await paused_with(table, (host, a), (100, 80), ("host", "a"))
            bot = (await table.request("add_bot", host, seat=2, buy_in=60))["player_id"]
            await table.request("sit_out_next", a)
            await table.request("sit_out_next_bb", host)
            await table.request("bomb_pot_next", host)
            await table.request("chat", a, text="hi", name="a")
            await table.request("top_up", a, amount=20)
        stored = await store.load_table(table_id)
        seats = {s.number: s for s in stored.seats}
        assert seats[2].bot and seats[2].player_id == bot and seats[2].name.startswith("Bot")
        assert not seats[0].bot and not seats[1].bot
        assert seats[1].sit_out_next and not seats[1].sit_out_next_bb
        assert seats[0].sit_out_next_bb and not seats[0].sit_out_next
        assert stored.bomb_pot_next
        assert stored.chat == [{"player_id": a, "name": "a", "seat": 1, "text": "hi"}]
        totals = {
            (t.player_id, t.kind): (t.amount, t.bot) for t in await store.ledger_totals(table_id)
        }
        assert totals == {
            (host, "buy_in"): (100, False),
            (a, "buy_in"): (80, False),
            (a, "top_up"): (20, False),
            (bot, "buy_in"): (60, True),
        }
        # Restored, the table deals the bomb pot with the switches applied, and uses it up.
        async with running(Table(stored, store, FAST)) as table:
            await table.request("resume", host)
            hand = await dealt(table)
            assert hand is not None and hand.state.config.bomb_pot
            assert a not in hand.players  # sat out by "next hand"
            assert hand.bots == (hand.players.index(bot),)
            assert not table.bomb_pot_next
            # The deal's handler stores the bomb pot used up after the hand is on the table:
            # the actor takes the next command only once that handler is done.
            await table.request("view", host)
            assert not (await store.load_table(table_id)).bomb_pot_next
