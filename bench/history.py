"""Hand-history benchmarks, each figure beside its reference in the same run.

1. The list of one table's hands (10,000 of them, among other tables' hands) through the
   REST API on a throwaway PostgreSQL, first page and filtered and deep pages: with the
   migration's indexes, and the same first page with `ix_hands_table_serial` and
   `ix_hands_serial` dropped (PostgreSQL then sorts the table's hands).
   Target: under 50 ms.
2. All-in equity on the flop, two-way and three-way (four-card Omaha): our exact
   enumeration against pokerkit's `calculate_equities` drawing the same number of run-outs.

    .venv/bin/python bench/history.py [--hands 10000] [--tables 5] [--requests 200]
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

from pydantic import SecretStr

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as a script: make ``app`` and ``tests`` importable
    sys.path.insert(0, str(ROOT))


async def _fill(url: str, tables: list[str], players: list[str], hands: int) -> None:
    """`hands` finished hands on each table, written in bulk (the list reads no JSON, but
    each row carries a real record and deck all the same)."""
    from sqlalchemy import Table, insert, text

    from app.poker import GAMES
    from app.store.db import create_engine
    from app.store.models import HandPlayerRow, HandRow
    from tests.history.gen import random_hand

    rng = random.Random(1)
    samples = [random_hand(rng, game, 1) for game in GAMES for _ in range(3)]
    engine = create_engine(url)
    hands_table: Table = HandRow.__table__  # type: ignore[assignment]
    players_table: Table = HandPlayerRow.__table__  # type: ignore[assignment]
    try:
        for table_id in tables:
            rows, seats = [], []
            for n in range(1, hands + 1):
                stored, hand = samples[n % len(samples)]
                hid = uuid.uuid4()
                rows.append(
                    {
                        "id": hid,
                        "table_id": uuid.UUID(table_id),
                        "number": n,
                        "record": stored.record,
                        "deck": stored.deck,
                        "result": {"stacks": {}},
                        "ended_at": stored.ended_at,
                        "game": hand.state.config.game.key,
                        "pot": rng.randint(3, 2000),
                    }
                )
                for p in range(hand.state.n):
                    seats.append(
                        {"hand_id": hid, "position": p, "player_id": uuid.UUID(players[p])}
                    )
            async with engine.begin() as c:
                for start in range(0, len(rows), 2000):
                    await c.execute(insert(hands_table), rows[start : start + 2000])
            async with engine.begin() as c:
                for start in range(0, len(seats), 5000):
                    await c.execute(insert(players_table), seats[start : start + 5000])
                await c.execute(
                    text(
                        "UPDATE hand_players AS p SET serial = h.serial FROM hands AS h "
                        "WHERE h.id = p.hand_id AND p.serial IS NULL"
                    )
                )
        async with engine.connect() as c:
            await c.execute(text("ANALYZE"))
            await c.commit()
    finally:
        await engine.dispose()


async def _timed(client: Any, url: str, params: dict[str, Any], requests: int) -> list[float]:
    times = []
    for _ in range(requests):
        t0 = time.perf_counter()
        r = await client.get(url, params=params)
        times.append((time.perf_counter() - t0) * 1000)
        assert r.status_code == 200, r.text
    return times


async def _timed_query(store: Any, table_id: str, requests: int) -> list[float]:
    times = []
    for _ in range(requests):
        t0 = time.perf_counter()
        await store.table_hands(table_id, limit=51)
        times.append((time.perf_counter() - t0) * 1000)
    return times


def _row(label: str, times: list[float], reference: float | None = None) -> str:
    p50 = statistics.median(times)
    p95 = sorted(times)[int(len(times) * 0.95) - 1]
    ratio = f"{reference / p50:8.1f}x" if reference else " " * 9
    return f"{label:<52} {p50:8.2f} {p95:8.2f} {ratio}"


async def bench_list(hands: int, tables: int, requests: int) -> None:
    from sqlalchemy import text

    from app.config import Settings
    from app.main import create_app
    from app.store.db import create_engine
    from app.store.history import HistoryStore
    from app.store.migrate import upgrade_connection
    from tests.api.conftest import running
    from tests.servers import postgres_cluster

    with postgres_cluster() as pg, tempfile.TemporaryDirectory() as tmp:
        url = pg.url("postgres")
        engine = create_engine(url)
        async with engine.begin() as c:
            await c.run_sync(upgrade_connection)
        settings = Settings(
            data_dir=Path(tmp), database_url=url, redis_url=None, secret_key=SecretStr("x" * 40)
        )
        app = create_app(settings)
        async with running(app) as client:
            await client.post("/api/session", json={"name": "Host"})
            codes, ids = [], []
            for k in range(tables):
                r = await client.post("/api/tables", json={"name": f"T{k}", "seats": 6})
                codes.append(r.json()["code"])
                ids.append(r.json()["id"])
            players = []
            for k in range(10):
                r = await client.post("/api/session", json={"name": f"P{k}"})
                players.append(r.json()["player_id"])
            t0 = time.perf_counter()
            await _fill(url, ids, players, hands)
            filled = time.perf_counter() - t0
            code = codes[tables // 2]
            path = f"/api/tables/{code}/hands"
            first = await client.get(path, params={"limit": 50})
            middle = first.json()["hands"][0]["number"] - hands // 2
            print(
                f"PostgreSQL {pg.version.rstrip(')')}; {tables} tables x {hands:,} hands "
                f"(filled in {filled:.1f} s); {requests} requests a row, in process (ASGI)"
            )
            print(f"{'list of one table (REST, 50 a page)':<52} {'p50 ms':>8} {'p95 ms':>8}")
            print("-" * 80)
            await _timed(client, path, {"limit": 50}, 20)  # warm up
            rows: list[tuple[str, dict[str, Any]]] = [
                ("first page", {"limit": 50}),
                ("page from the middle (cursor)", {"limit": 50, "cursor": str(middle)}),
                ("game = big-o", {"limit": 50, "game": "big-o"}),
                ("pot >= 1500", {"limit": 50, "min_pot": 1500}),
            ]
            results = {}
            for label, params in rows:
                results[label] = await _timed(client, path, params, requests)
            store = HistoryStore(app.state.sessions)
            table_id = ids[tables // 2]
            query_with = await _timed_query(store, table_id, requests)
            async with engine.begin() as c:
                await c.execute(text("DROP INDEX ix_hands_table_serial"))
                await c.execute(text("DROP INDEX ix_hands_serial"))
                await c.execute(text("ANALYZE hands"))
            without = await _timed(client, path, {"limit": 50}, max(20, requests // 4))
            query_without = await _timed_query(store, table_id, max(20, requests // 4))
            reference = statistics.median(without)
            for label, _ in rows:
                print(_row(label, results[label], reference))
            print(_row("reference: first page without the serial indexes", without))
            print(_row("the query alone (store), first page", query_with,
                       statistics.median(query_without)))  # fmt: skip
            print(_row("reference: the query alone without them", query_without))
            print("(ratio: the reference's p50 over the row's; target: under 50 ms)")
        await engine.dispose()


def bench_equity(seconds: float) -> None:
    from pokerkit import Card as PKCard
    from pokerkit import Deck, OmahaHoldemHand, calculate_equities

    from app.poker.cards import parse_cards
    from app.poker.equity import AllInSpot, equities

    spots = {
        "two-way on the flop (KKx vs QJT9 wrap)": (
            ["KsKd7c2h", "QhJh9s8d"],
            "KcTh3s",
        ),
        "three-way on the flop": (["AsAd7c6c", "KhQhJd9d", "8s8h5c4c"], "8c9hTs"),
    }
    print()
    print(f"{'all-in equity, four-card Omaha':<40} {'ours /s':>9} {'run-outs':>9} "
          f"{'pokerkit /s':>12} {'ratio':>7}")  # fmt: skip
    print("-" * 80)
    for label, (holes, board) in spots.items():
        spot = AllInSpot(
            False,
            {p: parse_cards(h) for p, h in enumerate(holes)},
            (parse_cards(board),),
            ((300, tuple(range(len(holes)))),),
        )
        result = equities(spot)
        count, t0 = 0, time.perf_counter()
        while time.perf_counter() - t0 < seconds:
            equities(spot)
            count += 1
        ours = count / (time.perf_counter() - t0)
        ranges = [[list(PKCard.parse(h))] for h in holes]
        pk_board = list(PKCard.parse(board))
        count, t0 = 0, time.perf_counter()
        while time.perf_counter() - t0 < seconds or count == 0:
            calculate_equities(
                ranges,
                pk_board,
                4,
                5,
                Deck.STANDARD,
                (OmahaHoldemHand,),
                sample_count=result.runouts,
            )
            count += 1
        theirs = count / (time.perf_counter() - t0)
        print(f"{label:<40} {ours:9.1f} {result.runouts:9,} {theirs:12.2f} {ours / theirs:6.0f}x")
    print("(an equity: every run-out of the spot, exact for us, the same number drawn by pokerkit)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--hands", type=int, default=10_000)
    parser.add_argument("--tables", type=int, default=5)
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=5.0, help="per equity figure")
    parser.add_argument("--skip-list", action="store_true")
    args = parser.parse_args()
    print(f"Python {sys.version.split()[0]}")
    if not args.skip_list:
        asyncio.run(bench_list(args.hands, args.tables, args.requests))
    bench_equity(args.seconds)


if __name__ == "__main__":
    main()
