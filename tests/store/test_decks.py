"""Decks at rest (both databases): what the database holds is sealed (no card number list, a
fresh nonce each time), the table reads it back, another SECRET_KEY cannot, and decks stored
before encryption are still read and then sealed."""

from __future__ import annotations

import json
import uuid

import pytest
from cryptography.exceptions import InvalidTag
from sqlalchemy import select, text

from app.store import decks
from app.store.models import HandRow
from app.tables.config import TableConfig
from app.tables.table import Table
from tests.tables.stores import FAST, dealt, running, sql_store


def test_seal_and_unseal_known_answers() -> None:
    decks.use_secret("k" * 40)
    deck = list(range(52))
    one, two = decks.seal(deck), decks.seal(deck)
    assert one["v"] == 1 and one["n"] != two["n"] and one["c"] != two["c"]  # fresh nonces
    assert decks.unseal(one) == deck == decks.unseal(two)
    assert decks.unseal(list(deck)) == deck  # stored before encryption: read as it is
    assert decks.derive_key("k" * 40) == decks.derive_key("k" * 40) != decks.derive_key("j" * 40)
    decks.use_secret("j" * 40)
    with pytest.raises(InvalidTag):
        decks.unseal(one)


async def test_the_database_holds_no_deck_in_the_clear(database_url: str) -> None:
    decks.use_secret("s" * 40)
    async with sql_store(database_url) as store:
        host, a = await store.make_players(2)
        table_id = await store.create_table(host, TableConfig(seats=2, decision_time=0), "c")
        async with running(Table(await store.load_table(table_id), store, FAST)) as table:
            await table.request("sit", host, seat=0, buy_in=100, name="h")
            await table.request("sit", a, seat=1, buy_in=100, name="a")
            assert await dealt(table) is not None
            assert table.hand is not None
            deck = list(table.hand.state.deck)
            async with store.engine.connect() as c:
                raw: object = (await c.execute(text("SELECT deck FROM hands"))).scalar_one()
            stored = json.loads(raw) if isinstance(raw, str) else raw
            assert isinstance(stored, dict) and set(stored) == {"v", "n", "c"}
            assert json.dumps(deck)[1:-1] not in str(raw)
            # The table reads it back: a restart continues the same hand from the same deck.
            restored = await store.load_table(table_id)
            assert restored.hand is not None and restored.hand.deck == deck


async def test_decks_stored_before_encryption_are_read_then_sealed(database_url: str) -> None:
    decks.use_secret("s" * 40)
    async with sql_store(database_url) as store:
        host, _ = await store.make_players(2)
        table_id = await store.create_table(host, TableConfig(seats=2), "c")
        deck = list(range(51, -1, -1))
        record = {"setup": {}, "seats": [], "players": [], "button": 0, "straddle": None}
        sqlite = store.engine.dialect.name == "sqlite"  # keeps a UUID as 32 hex digits
        hand_id, tid = uuid.uuid4(), uuid.UUID(table_id)
        async with store.engine.begin() as c:  # a row as the server wrote it before 0005
            await c.execute(
                text("INSERT INTO hands (id, table_id, number, record, deck) "
                     "VALUES (:id, :table, 1, :record, :deck)"),
                {"id": hand_id.hex if sqlite else hand_id, "table": tid.hex if sqlite else tid,
                 "record": json.dumps(record), "deck": json.dumps(deck)},
            )  # fmt: skip
        async with store.sessions() as s:
            row = (await s.scalars(select(HandRow))).one()
            assert row.deck == deck  # readable as it is
        assert await decks.seal_legacy_decks(store.engine) == 1
        assert await decks.seal_legacy_decks(store.engine) == 0
        async with store.engine.connect() as c:
            raw: object = (await c.execute(text("SELECT deck FROM hands"))).scalar_one()
        assert "51, 50, 49" not in str(raw) and "51,50,49" not in str(raw)
        async with store.sessions() as s:
            row = (await s.scalars(select(HandRow))).one()
            assert row.deck == deck
