"""A finished hand's notes (the rabbit hunt, cards shown by choice: app/tables/after.py) are
stored in its record and come back in review and in both exports, as comments, beside an
unchanged result; the unshown cards stay out of every export."""

from __future__ import annotations

import random
import uuid

from app.history.phh import phh_hand
from app.history.pokerstars import export_hand
from app.history.record import build
from app.poker import Phase, card_str
from app.store.history import HistoryStore
from app.store.models import HandRow
from app.tables.config import TableConfig
from app.tables.table import Table
from tests.history.test_privacy import phh_cards, text_cards
from tests.tables.harness import cards_in
from tests.tables.stores import FAST, dealt, running, sql_store
from tests.tables.test_pace import showdown_seed


async def test_the_notes_of_a_hand_are_stored_reviewed_and_exported(database_url: str) -> None:
    async with sql_store(database_url) as store:
        host, a, b = await store.make_players(3)
        config = TableConfig(seats=3, decision_time=0, rabbit_hunt=True)
        table_id = await store.create_table(host, config, "c")
        async with running(Table(await store.load_table(table_id), store, FAST)) as table:
            await table.request("pause", host)
            for number, pid in enumerate((host, a, b)):
                await table.request("sit", pid, seat=number, buy_in=100, name=f"p{number}")
            await table.request("resume", host)
            hand = await dealt(table)
            assert hand is not None
            await table.request("pause", host)  # the next hand waits: the window stays open
            while not hand.state.complete:
                actor = hand.state.actor
                assert actor is not None
                await table.request("act", hand.players[actor], hand=hand.id,
                                    counter=hand.counter, action="fold")  # fmt: skip
            await table.quiet()
            winner = hand.state.contenders()[0]
            held = [card_str(c) for c in hand.state.hole[winner]]
            rabbit = await table.request("rabbit_hunt", a, hand=hand.id)
            shown = await table.request("show_cards", hand.players[winner], hand=hand.id,
                                        cards=[held[1]])  # fmt: skip
            assert shown["shown"] == [held[1]]
            async with store.sessions() as s:
                row = await s.get_one(HandRow, uuid.UUID(hand.id))
            assert row.record["after"] == [dict(n) for n in hand.after]
            assert row.record["after"][0]["boards"] == rabbit["boards"]
            result = row.result
            assert row.serial is not None  # (given when the hand is stored)
        (stored,) = await HistoryStore(store.sessions).hands([row.serial])
        others = {card_str(c) for p, h in enumerate(hand.state.hole) if p != winner for c in h}
        hidden = others | (set(held) - {held[1]})
        rabbit_cards = set(rabbit["boards"][0])
        for viewer in (None, host):  # a spectator; the host, folded (their own cards apart)
            record = build(stored, viewer, equity=False)
            assert record["rabbit"] == rabbit["boards"]
            winner_seat = next(s for s in record["seats"] if s["position"] == winner)
            assert winner_seat["shown_cards"] == [held[1]] and winner_seat["cards"] is None
            text, phh = export_hand(record), phh_hand(stored, viewer)
            assert f"# Rabbit hunt (not played): [{' '.join(rabbit['boards'][0])}]" in text
            assert f"showed after the hand: [{held[1]}]" in text
            assert "# Rabbit hunt (not played)" in phh and f"[{held[1]}]" in phh
            at = hand.position_of_player(host)
            mine = {card_str(c) for c in hand.state.hole[at or 0]} if viewer == host else set()
            for named in (text_cards(text), phh_cards(phh) | text_cards(phh)):
                assert not (named & hidden) - mine, (named & hidden) - mine
                assert rabbit_cards | {held[1]} <= named
        # the result is the hand's as it ended: no note changed it
        assert result == {"stacks": {str(s.number): s.stack for s in table.seats if s}}


async def test_cards_shown_at_a_showdown_are_stored_reviewed_and_exported_the_rest_hidden(
    database_url: str,
) -> None:
    """A beaten player shows one card instead of mucking (app/tables/showing.py): the note
    is in the stored record (a reload of the table reads it), review and both exports name
    that card and never the rest of the mucked hand, and the result is the muck's."""
    seed = showdown_seed(beaten=True)  # checked down heads-up, the second hand is beaten
    rng = random.Random(seed)

    def deck() -> list[int]:
        cards = list(range(52))
        rng.shuffle(cards)
        return cards

    async with sql_store(database_url) as store:
        host, a = await store.make_players(2)
        config = TableConfig(seats=3, decision_time=0)
        table_id = await store.create_table(host, config, "c")
        table = Table(await store.load_table(table_id), store, FAST, deck)
        async with running(table):
            await table.request("pause", host)
            for number, pid in enumerate((host, a)):
                await table.request("sit", pid, seat=number, buy_in=100, name=f"p{number}")
                await table.request("set_preference", pid, auto_muck=False)
            await table.request("resume", host)
            hand = await dealt(table)
            assert hand is not None
            await table.request("pause", host)  # the next hand waits
            while hand.state.phase is Phase.BETTING:
                legal = hand.state.legal_actions()
                assert legal is not None
                await table.request("act", hand.players[legal.player], hand=hand.id,
                                    counter=hand.counter,
                                    action="check" if legal.check else "call")  # fmt: skip
            await table.quiet()
            legal = hand.state.legal_actions()
            assert legal is not None and legal.phase is Phase.SHOWDOWN and legal.muck
            loser = legal.player
            held = [card_str(c) for c in hand.state.hole[loser]]
            shown = await table.request("show_cards", hand.players[loser], hand=hand.id,
                                        cards=[held[0]])  # fmt: skip
            assert shown == {"shown": [held[0]]}
            number = hand.seats[loser]
            note = {"kind": "show", "seat": number, "cards": [held[0]], "showdown": True}
            reloaded = await store.load_table(table_id)  # a restart mid-showdown reads it back
            assert reloaded.hand is not None and reloaded.hand.record["after"] == [note]
            await table.request("act", hand.players[loser], hand=hand.id,
                                counter=hand.counter, action="muck")  # fmt: skip
            await table.quiet()
            assert hand.state.complete and hand.state.mucked[loser]
            async with store.sessions() as s:
                row = await s.get_one(HandRow, uuid.UUID(hand.id))
            assert row.record["after"] == [note]
        assert row.serial is not None
        (stored,) = await HistoryStore(store.sessions).hands([row.serial])
        hidden = set(held) - {held[0]}
        winner = 1 - loser
        for viewer in (None, hand.players[winner]):  # a spectator; the winner
            record = build(stored, viewer, equity=False)
            seat = next(s for s in record["seats"] if s["position"] == loser)
            assert seat["shown_cards"] == [held[0]] and seat["cards"] is None and seat["mucked"]
            text, phh = export_hand(record), phh_hand(stored, viewer)
            assert f"# p{number} showed at the showdown: [{held[0]}]" in text
            assert "mucks hand" in text and f"[{held[0]}]" in phh
            for named in (cards_in(record), text_cards(text), phh_cards(phh) | text_cards(phh)):
                assert held[0] in named and not named & hidden, named & hidden
