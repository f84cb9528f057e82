"""Presence's periodic refresh, per connection (before: each connection's `keep_online`
wrote itself every third of the TTL) and per process (now: the `Keeper`'s one
`connect_many` a period), side by side: N connections over T tables, a window of P periods,
against the in-process presence and a throwaway redis-server. Counted in the window: the
backend's calls, Redis's commands (INFO commandstats) and this process's CPU seconds.

``.venv/bin/python bench/presence_refresh.py``   # 3,000 connections, 500 tables: ~30 s

The "before" loop is the one of app/presence/keeper.py at 962103f, kept here verbatim but for
its presence argument. Nothing else runs: the figures are the refresh alone.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import sys
import time
from collections import Counter
from collections.abc import Callable, Coroutine, Mapping
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as a script: make ``app`` and ``tests`` importable
    sys.path.insert(0, str(ROOT))

import redis.asyncio as aioredis  # noqa: E402

from app.presence import InProcessPresence, RedisPresence  # noqa: E402
from app.presence.base import Presence  # noqa: E402
from app.presence.keeper import Flag, Keeper, keep_online  # noqa: E402
from bench import fleet  # noqa: E402
from tests.presence.test_keeper import FakeTable  # noqa: E402


class Counted:
    """A presence that counts the calls made to it."""

    def __init__(self, inner: Presence) -> None:
        self.inner, self.ttl, self.calls = inner, inner.ttl, Counter[str]()

    async def connect(self, table_id: str, session_id: str, seat: int | None) -> None:
        self.calls["connect"] += 1
        await self.inner.connect(table_id, session_id, seat)
        self.calls["connect answered"] += 1

    async def connect_many(self, tables: Mapping[str, Mapping[str, int | None]]) -> None:
        self.calls["connect_many"] += 1
        await self.inner.connect_many(tables)

    async def disconnect(self, table_id: str, session_id: str) -> None:
        await self.inner.disconnect(table_id, session_id)


async def per_connection(
    presence: Any, table: Any, player_id: str, entry: str, stop: Flag, on_seat: Any = None
) -> None:
    """Before: app/presence/keeper.py's keep_online at 962103f."""
    loop = asyncio.get_running_loop()
    sent: object = ()  # nothing sent yet
    due = 0.0
    while not stop.is_set():
        changed = table.seat_changes
        seat = table.seat_of(player_id)
        number = seat.number if seat else None
        if number != sent and on_seat is not None:
            on_seat(number)
        if number != sent or loop.time() >= due:
            with contextlib.suppress(Exception):
                await presence.connect(table.id, entry, number)
            sent, due = number, loop.time() + max(0.5, presence.ttl / 3)
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(max(0.0, due - loop.time())):  # no task per wait
                await changed.wait()


async def run(
    way: str, backend: Presence, redis: aioredis.Redis | None, args: argparse.Namespace
) -> dict[str, float]:
    await backend.connect_many({"warm": {"up": None}})  # its script loaded before the window
    await backend.disconnect("warm", "up")
    presence = Counted(backend)
    keeper = Keeper(presence)  # type: ignore[arg-type]
    tables = [FakeTable(f"t{i}") for i in range(args.tables)]
    stops, tasks = [], []
    for n in range(args.connections):
        table = tables[n % args.tables]
        player = f"p{n}"
        table.seats[player] = n // args.tables % 6
        stop = Flag()
        entry = f"{player}/x"
        if way == "before":
            work: Coroutine[Any, Any, None] = per_connection(presence, table, player, entry, stop)
        else:
            work = keep_online(keeper, table, player, entry, stop)
        stops.append(stop)
        tasks.append(asyncio.create_task(work))
    while presence.calls["connect answered"] < args.connections:  # every first write done
        await asyncio.sleep(0.05)
    presence.calls.clear()
    if redis is not None:
        await redis.config_resetstat()
    cpu, wall = time.process_time(), time.monotonic()
    # Half a period more: a window's edges fall between refreshes, for both ways.
    await asyncio.sleep((args.periods + 0.5) * keeper.period)
    figures: dict[str, float] = {
        "backend calls": presence.calls["connect"] + presence.calls["connect_many"],
        "connect (per connection)": presence.calls["connect"],
        "connect_many (per process)": presence.calls["connect_many"],
        "CPU seconds": time.process_time() - cpu,
        "window seconds": time.monotonic() - wall,
    }
    if redis is not None:
        stats = await redis.info("commandstats")
        figures["Redis EVALSHA (sent)"] = stats.get("cmdstat_evalsha", {}).get("calls", 0)
        figures["Redis commands, in scripts too"] = sum(s["calls"] for s in stats.values())
    for stop in stops:
        stop.set()
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    await keeper.close()
    return figures


async def main_async(args: argparse.Namespace) -> None:
    with fleet.redis_server() as url:
        watcher = aioredis.Redis.from_url(url, decode_responses=True)
        makers: dict[str, Callable[[], Presence]] = {
            "in process": lambda: InProcessPresence(ttl=args.ttl),
            "redis": lambda: RedisPresence.from_url(url, ttl=args.ttl),
        }
        print(f"{args.connections} connections over {args.tables} tables, TTL {args.ttl} s "
              f"(a refresh every {max(0.5, args.ttl / 3):.2f} s), a window of {args.periods} "
              "refresh periods", flush=True)  # fmt: skip
        for name, make in makers.items():
            results = {}
            for way in ("before", "after"):
                backend = make()
                results[way] = await run(way, backend, watcher if name == "redis" else None, args)
                await backend.close()
                await watcher.flushall()
            print(f"\n{name:<31} {'before':>10} {'after':>10}")
            for key in results["before"]:
                before, after = results["before"][key], results["after"][key]
                digits = 2 if "seconds" in key else 0
                print(f"{key:<31} {before:>10.{digits}f} {after:>10.{digits}f}")
        await watcher.aclose()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--connections", type=int, default=3000)
    parser.add_argument("--tables", type=int, default=500)
    parser.add_argument("--ttl", type=float, default=3.0, help="seconds (a period is a third)")
    parser.add_argument("--periods", type=int, default=5)
    args = parser.parse_args(argv)
    asyncio.run(main_async(args))
    return 0


if __name__ == "__main__":
    sys.exit(main())
