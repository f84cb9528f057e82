"""The PostgreSQL group write: the store's statement (each kind of row one JSON parameter,
its columns named, `app.store.group_sql.PG_GROUP`) against the statement it replaced (49
positional array parameters, `OLD_GROUP` below, as it stood at commit 9cf6830), in one run.

On a throwaway PostgreSQL (fsync off: the commit's disk time is the same for both and would
only hide the difference), tables of six seats each with a hand in play; each round commits
a group of `--group` tables' writes once with each statement, alternately, every write as
the hot path makes them: an action each, one in six also the hand's end with its six seats,
one in six instead a new hand (its row, six players dealt, the button, six seats). Printed:
the median time of a group's commit (building its parameters, the round trip, PostgreSQL's
work) and of building the parameters alone, each statement beside the other, and the ratio.

    .venv/bin/python bench/store_group.py [--tables 256] [--rounds 300] [--group 1,8,32,128]
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import time
import uuid
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as a script: make ``app`` and ``tests`` importable
    sys.path.insert(0, str(ROOT))

import orjson  # noqa: E402

from app.store.group_sql import PG_GROUP, pg_parameters  # noqa: E402
from app.store.rows import (  # noqa: E402
    ActionInsert,
    ButtonUpdate,
    HandEnd,
    HandInsert,
    HandPlayerInsert,
    SeatUpdate,
    TableWrite,
    now,
    rows_of,
)

OLD_GROUP = """
WITH
fence AS (
    SELECT t.id FROM tables AS t
    JOIN unnest($46::uuid[], $47::bigint[]) AS f (id, epoch)
      ON t.id = f.id AND (f.epoch IS NULL OR t.owner_epoch = f.epoch)
    FOR SHARE OF t
),
new_hands AS (
    INSERT INTO hands (id, table_id, number, record, deck, result, ended_at, game, pot, deal)
    SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::int[], $4::json[], $5::json[],
                         $6::json[], $7::timestamptz[], $39::text[], $40::bigint[],
                         $45::json[])
        AS u (id, table_id, number, record, deck, result, ended_at, game, pot, deal)
    WHERE u.table_id IN (SELECT id FROM fence)
    RETURNING id, serial
),
new_players AS (
    INSERT INTO hand_players (hand_id, position, player_id, serial)
    SELECT u.hand_id, u.position, u.player_id, h.serial
    FROM unnest($41::uuid[], $42::int[], $43::uuid[]) AS u (hand_id, position, player_id)
    JOIN new_hands AS h ON h.id = u.hand_id
),
buttons AS (
    UPDATE tables AS t SET button = u.button, hand_number = u.hand_number
    FROM unnest($8::uuid[], $9::int[], $10::int[]) AS u (id, button, hand_number)
    WHERE t.id = u.id AND u.id IN (SELECT id FROM fence)
),
actions AS (
    INSERT INTO hand_actions (hand_id, counter, player, kind, amount, agree)
    SELECT u.hand_id, u.counter, u.player, u.kind, u.amount, u.agree
    FROM unnest($11::uuid[], $12::int[], $13::int[], $14::text[], $15::bigint[],
                $16::bool[], $48::uuid[])
         AS u (hand_id, counter, player, kind, amount, agree, table_id)
    WHERE u.table_id IN (SELECT id FROM fence)
),
ends AS (
    UPDATE hands AS h SET result = u.result, ended_at = u.ended_at, pot = u.pot
    FROM unnest($17::uuid[], $18::json[], $19::timestamptz[], $44::bigint[], $49::uuid[])
         AS u (id, result, ended_at, pot, table_id)
    WHERE h.id = u.id AND u.table_id IN (SELECT id FROM fence)
),
ledger AS (
    INSERT INTO ledger (table_id, player_id, kind, amount)
    SELECT * FROM unnest($20::uuid[], $21::uuid[], $22::text[], $23::bigint[])
        AS u (table_id, player_id, kind, amount)
    WHERE u.table_id IN (SELECT id FROM fence)
),
seats AS (
    UPDATE seats AS s
    SET player_id = u.player_id, name = u.name, stack = u.stack, sitting_out = u.sitting_out,
        waiting = u.waiting, post = u.post, time_bank = u.time_bank, leaving = u.leaving,
        removed = u.removed, straddle = u.straddle, pending_top_up = u.pending_top_up,
        pending_adjust = u.pending_adjust, missed_blinds = u.missed_blinds
    FROM unnest($24::uuid[], $25::int[], $26::uuid[], $27::text[], $28::bigint[],
                $29::bool[], $30::bool[], $31::bool[], $32::float8[], $33::bool[], $34::bool[],
                $35::bool[], $36::bigint[], $37::bigint[], $38::int[])
         AS u (table_id, number, player_id, name, stack, sitting_out, waiting, post, time_bank,
               leaving, removed, straddle, pending_top_up, pending_adjust, missed_blinds)
    WHERE s.table_id = u.table_id AND s.number = u.number
      AND u.table_id IN (SELECT id FROM fence)
)
SELECT f.id FROM unnest($46::uuid[]) AS f (id) WHERE f.id NOT IN (SELECT id FROM fence)
"""

_SEAT_FIELDS = (
    "player_id", "name", "stack", "sitting_out", "waiting", "post", "time_bank",
    "leaving", "removed", "straddle", "pending_top_up", "pending_adjust", "missed_blinds",
)  # fmt: skip


def _json(value: Any) -> str | None:
    return None if value is None else orjson.dumps(value).decode()


def _columns(rows: list[Any], *names: str) -> list[list[Any]]:
    return [[getattr(row, name) for row in rows] for name in names]


def old_parameters(writes: list[TableWrite]) -> list[Any]:
    """The old statement's 49 arrays, built as its store built them (rows already sealed)."""
    hands, players, buttons, actions, ends, ledger, seats = rows_of(writes)
    hand_columns = _columns(hands, "id", "table_id", "number", "record", "deck", "result",
                            "ended_at", "game", "pot", "deal")  # fmt: skip
    for k in (3, 4, 5, 9):
        hand_columns[k] = [_json(v) for v in hand_columns[k]]
    end_columns = _columns(ends, "id", "result", "ended_at", "pot")
    end_columns[1] = [_json(v) for v in end_columns[1]]
    return [
        *hand_columns[:7],
        *_columns(buttons, "id", "button", "hand_number"),
        *_columns(actions, "hand_id", "counter", "player", "kind", "amount", "agree"),
        *end_columns[:3],
        *_columns(ledger, "table_id", "player_id", "kind", "amount"),
        *_columns(seats, "table_id", "number", *_SEAT_FIELDS),
        *hand_columns[7:9],
        *_columns(players, "hand_id", "position", "player_id"),
        end_columns[3],
        hand_columns[9],
        [w.table_id for w in writes],
        [w.epoch for w in writes],
        [w.table_id for w in writes if w.action is not None],
        [w.table_id for w in writes if w.end is not None],
    ]


class Floor:
    """Tables, their seated players and the hand each is playing; writes as the hot path
    makes them."""

    def __init__(self, tables: list[uuid.UUID], players: dict[uuid.UUID, list[uuid.UUID]],
                 record: dict[str, Any], deck: dict[str, Any]) -> None:  # fmt: skip
        self.tables, self.players, self.record, self.deck = tables, players, record, deck
        self.hands = {t: (uuid.uuid4(), 1) for t in tables}
        self.counters = dict.fromkeys(tables, 0)
        self.rng = random.Random(7)
        self.next = 0

    def seats(self, table: uuid.UUID) -> list[SeatUpdate]:
        return [
            SeatUpdate(table, n, p, f"p{n}", self.rng.randint(1, 400), False, False, False,
                       30.0, False, False, False, 0, 0, 0)
            for n, p in enumerate(self.players[table])
        ]  # fmt: skip

    def deal(self, table: uuid.UUID, number: int) -> TableWrite:
        hid = uuid.uuid4()
        self.hands[table], self.counters[table] = (hid, number), 0
        row = HandInsert(hid, table, number, self.record, self.deck, None, None, "omaha",
                         None, None)  # fmt: skip
        players = [HandPlayerInsert(hid, k, p) for k, p in enumerate(self.players[table])]
        return TableWrite(table, 1, hand=row, players=players,
                          button=ButtonUpdate(table, number % 6, number),
                          seats=self.seats(table))  # fmt: skip

    def group(self, size: int) -> list[TableWrite]:
        writes = []
        for _ in range(size):
            table = self.tables[self.next % len(self.tables)]
            self.next += 1
            hid, number = self.hands[table]
            kind = self.rng.randrange(6)
            if kind == 0:
                writes.append(self.deal(table, number + 1))
                continue
            counter = self.counters[table]
            self.counters[table] += 1
            action = ActionInsert(hid, counter, counter % 6, "call", 4, None, table)
            if kind == 1:
                end = HandEnd(hid, {"stacks": {str(n): 100 for n in range(6)}}, now(), 240, table)
                writes.append(TableWrite(table, 1, action=action, end=end,
                                         seats=self.seats(table)))  # fmt: skip
            else:
                writes.append(TableWrite(table, 1, action=action))
        return writes


async def setup(url: str, count: int) -> tuple[Any, Floor]:
    import asyncpg

    from app.store.db import create_engine
    from app.store.decks import seal
    from app.store.migrate import upgrade_connection
    from tests.history.gen import random_hand

    engine = create_engine(url)
    async with engine.begin() as c:
        await c.run_sync(upgrade_connection)
    await engine.dispose()
    pg = await asyncpg.connect(url.replace("postgresql+asyncpg", "postgresql"))
    _, sample = random_hand(random.Random(3), "omaha", 1)
    tables = [uuid.uuid4() for _ in range(count)]
    seated = {t: [uuid.uuid4() for _ in range(6)] for t in tables}
    host = uuid.uuid4()
    everyone = [host, *(p for ps in seated.values() for p in ps)]
    await pg.executemany("INSERT INTO players (id, display_name, session_token_hash) "
                         "VALUES ($1, 'p', $2)", [(p, str(p)) for p in everyone])  # fmt: skip
    await pg.executemany(
        "INSERT INTO tables (id, code, host_id, config, paused, hand_number, owner_epoch) "
        "VALUES ($1, $2, $3, '{}', false, 1, 1)",
        [(t, str(t)[:32], host) for t in tables],
    )
    await pg.executemany(
        "INSERT INTO seats (table_id, number, player_id, name, stack, sitting_out, waiting, "
        "post, time_bank) VALUES ($1, $2, $3, 'p', 100, false, false, false, 30)",
        [(t, n, p) for t in tables for n, p in enumerate(seated[t])],
    )
    floor = Floor(tables, seated, sample.record(), seal(list(range(52))))
    await pg.executemany(
        "INSERT INTO hands (id, table_id, number, record, deck) VALUES ($1, $2, 1, $3, $4)",
        [(floor.hands[t][0], t, _json(floor.record), _json(floor.deck)) for t in tables],
    )
    await pg.execute("ANALYZE")
    return pg, floor


async def run(tables: int, rounds: int, groups: list[int]) -> None:
    from tests.servers import postgres_cluster

    with postgres_cluster() as server:
        pg, floor = await setup(server.url("postgres"), tables)
        print(f"PostgreSQL {server.version}; {tables} tables; {rounds} groups of each size, "
              "each committed once by each statement, alternately; medians")  # fmt: skip
        print(f"{'tables a group':>14} | {'commit ms: old':>14} {'new':>7} {'new/old':>8} | "
              f"{'parameters us: old':>18} {'new':>7} {'new/old':>8}")  # fmt: skip
        print("-" * 86)
        for size in groups:
            times: dict[str, list[float]] = {"old": [], "new": []}
            build: dict[str, list[float]] = {"old": [], "new": []}
            for r in range(rounds + 10):  # the first ten warm both up
                for name in ("old", "new") if r % 2 else ("new", "old"):
                    writes = floor.group(size)
                    t0 = time.perf_counter()
                    if name == "old":
                        args = old_parameters(writes)
                        t1 = time.perf_counter()
                        refused = await pg.fetch(OLD_GROUP, *args)
                    else:
                        args = pg_parameters(writes)
                        t1 = time.perf_counter()
                        refused = await pg.fetch(PG_GROUP, *args)
                    t2 = time.perf_counter()
                    assert not refused
                    if r >= 10:
                        times[name].append((t2 - t0) * 1000)
                        build[name].append((t1 - t0) * 1e6)
            old, new = statistics.median(times["old"]), statistics.median(times["new"])
            b_old, b_new = statistics.median(build["old"]), statistics.median(build["new"])
            print(f"{size:>14} | {old:>14.3f} {new:>7.3f} {new / old:>8.2f} | "
                  f"{b_old:>18.1f} {b_new:>7.1f} {b_new / b_old:>8.2f}")  # fmt: skip
        actions = await pg.fetchval("SELECT count(*) FROM hand_actions")
        print(f"({actions:,} actions stored in all)")
        await pg.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=256)
    parser.add_argument("--rounds", type=int, default=300)
    parser.add_argument("--group", default="1,8,32,128")
    args = parser.parse_args()
    asyncio.run(run(args.tables, args.rounds, [int(g) for g in args.group.split(",")]))


if __name__ == "__main__":
    main()
