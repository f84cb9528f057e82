"""Migration 0006 on both databases: hands stored before it get numbers, game, pot and
players; hands stored after get the next numbers from the database itself."""

from __future__ import annotations

import random
import uuid

import sqlalchemy as sa
from sqlalchemy import insert, select, update

from app.store.db import create_engine
from app.store.migrate import upgrade_connection
from app.store.models import HandPlayerRow, HandRow
from app.tables.hand import action_to_json, awarded
from tests.history.gen import random_hand

# The tables as revision 0002 left them (the models have moved on since).
PLAYERS = sa.table(
    "players", sa.column("id", sa.Uuid()), sa.column("display_name", sa.String()),
    sa.column("session_token_hash", sa.String()),
)  # fmt: skip
TABLES = sa.table(
    "tables", sa.column("id", sa.Uuid()), sa.column("code", sa.String()),
    sa.column("host_id", sa.Uuid()), sa.column("config", sa.JSON()),
    sa.column("paused", sa.Boolean()), sa.column("hand_number", sa.Integer()),
)  # fmt: skip
HANDS = sa.table(
    "hands", sa.column("id", sa.Uuid()), sa.column("table_id", sa.Uuid()),
    sa.column("number", sa.Integer()), sa.column("record", sa.JSON()),
    sa.column("deck", sa.JSON()), sa.column("started_at", sa.DateTime()),
    sa.column("ended_at", sa.DateTime()),
)  # fmt: skip
ACTIONS = sa.table(
    "hand_actions", sa.column("hand_id", sa.Uuid()), sa.column("counter", sa.Integer()),
    sa.column("player", sa.Integer()), sa.column("kind", sa.String()),
    sa.column("amount", sa.BigInteger()), sa.column("agree", sa.Boolean()),
)  # fmt: skip


async def test_old_hands_are_numbered_and_new_ones_follow(database_url: str) -> None:
    engine = create_engine(database_url)
    try:
        async with engine.begin() as c:
            await c.run_sync(upgrade_connection, "0002")
        rng = random.Random(4)
        host, table_id = uuid.uuid4(), uuid.uuid4()
        players = [str(uuid.uuid4()) for _ in range(4)]
        hands = [random_hand(rng, "omaha", n, players)[1] for n in (1, 2)]
        hands_t = HANDS
        async with engine.begin() as c:
            for pid in [host, *map(uuid.UUID, players)]:
                await c.execute(
                    insert(PLAYERS).values(
                        id=pid, display_name="p", session_token_hash=uuid.uuid4().hex
                    )
                )
            await c.execute(
                insert(TABLES).values(
                    id=table_id, code="c", host_id=host, config={}, paused=False, hand_number=0
                )
            )
            for k, hand in enumerate(hands, start=1):
                hid = uuid.uuid4()
                # only the columns of 0002: the table as it was
                await c.execute(
                    insert(hands_t).values(
                        {hands_t.c.id: hid, hands_t.c.table_id: table_id, hands_t.c.number: k,
                         hands_t.c.record: hand.record(), hands_t.c.deck: list(hand.state.deck)}
                    )
                )  # fmt: skip
                for counter, action in enumerate(hand.state.history):
                    await c.execute(
                        insert(ACTIONS).values(
                            hand_id=hid, counter=counter, **action_to_json(action)
                        )
                    )
            await c.execute(update(HANDS).values(ended_at=HANDS.c.started_at))
        async with engine.begin() as c:
            await c.run_sync(upgrade_connection)  # to head: the later migrations keep the data too
        async with engine.connect() as c:
            rows = (await c.execute(select(HandRow).order_by(HandRow.number))).all()
            assert [r.serial for r in rows] == [1, 2]
            assert [r.game for r in rows] == ["omaha", "omaha"]
            assert [r.pot for r in rows] == [awarded(h.state) for h in hands]
            seated = (await c.execute(select(HandPlayerRow.serial, HandPlayerRow.player_id))).all()
            assert sorted((s, str(p)) for s, p in seated) == sorted(
                (k, p) for k, h in enumerate(hands, start=1) for p in h.players
            )
        async with engine.begin() as c:  # a new hand: the database numbers it
            await c.execute(
                insert(HANDS).values(
                    id=uuid.uuid4(), table_id=table_id, number=3, record={}, deck=[]
                )
            )
        async with engine.connect() as c:
            serial = await c.scalar(select(HandRow.serial).where(HandRow.number == 3))
            assert serial == 3
    finally:
        await engine.dispose()
