"""The fault test's world (tests/scale/test_nemesis.py): a redis-server of its own (to kill,
restart and freeze), PostgreSQL (to stop), server processes (`Cluster`), and a seeded
nemesis that applies one fault at a time and measures how long every table takes to store
an action again after it (its unavailability)."""

from __future__ import annotations

import asyncio
import os
import random
import signal
import subprocess
import time
import uuid
from collections import defaultdict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import redis
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncEngine

from app.store.db import create_engine, session_factory
from app.store.models import HandActionRow, HandRow
from tests.scale.cluster import Cluster, cards_in_redis, stream_lengths
from tests.servers import PostgresServer, free_port, redis_executable, wait_for_port


@dataclass
class RedisServer:
    """redis-server on a fixed port of its own, as docker-compose.yml runs it (no snapshots,
    a memory cap that evicts nothing)."""

    folder: Path
    port: int = field(default_factory=free_port)
    process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        executable = redis_executable()
        assert executable is not None, "redis-server is not installed"
        self.process = subprocess.Popen(
            [executable, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no", "--dir", str(self.folder), "--maxmemory", "256mb",
             "--maxmemory-policy", "noeviction"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        wait_for_port("127.0.0.1", self.port)

    def kill(self) -> None:
        if self.process is not None:
            self.process.send_signal(signal.SIGCONT)
            self.process.kill()
            self.process.wait(10)

    def signal(self, sig: signal.Signals) -> None:
        assert self.process is not None
        os.kill(self.process.pid, sig)


def lease_of(redis_url: str, table_id: str) -> str | None:
    client = redis.Redis.from_url(redis_url, decode_responses=True)
    try:
        value = client.get(f"omaha:table:{table_id}:owner")
        return None if value is None else str(value)
    finally:
        client.close()


def stop_postgres(server: PostgresServer, mode: str) -> None:
    server._pg_ctl("-m", mode, "-w", "stop")


class Actions:
    """When each table stored its actions, read from the database (one engine, made again
    after PostgreSQL comes back)."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.engine: AsyncEngine | None = None

    async def since(self, table_ids: list[str], start: float) -> dict[str, list[float]]:
        """Per table, the times (epoch seconds) of its actions stored after `start`."""
        if self.engine is None:
            self.engine = create_engine(self.url)
        try:
            async with session_factory(self.engine)() as s:
                rows = (await s.execute(
                    select(HandRow.table_id, HandActionRow.created_at)
                    .join(HandActionRow, HandActionRow.hand_id == HandRow.id)
                    .where(HandRow.table_id.in_([uuid.UUID(t) for t in table_ids]),
                           HandActionRow.created_at > datetime.fromtimestamp(start, UTC))
                )).all()  # fmt: skip
        except Exception:
            await self.close()
            raise
        out: dict[str, list[float]] = {t: [] for t in table_ids}
        for table_id, at in rows:
            out[str(table_id)].append(at.timestamp())
        return {t: sorted(times) for t, times in out.items()}

    async def close(self) -> None:
        if self.engine is not None:
            engine, self.engine = self.engine, None
            await engine.dispose()


def stall(times: list[float], since: float) -> float:
    """The longest a table went without storing an action from `since` on (`times`: its
    actions stored after `since`, sorted)."""
    longest, last = 0.0, since
    for at in times:
        if at > since:
            longest = max(longest, at - last)
        last = max(last, at)
    return longest


@dataclass
class Fault:
    kind: str
    started: float
    victim: str = ""
    ended: float = 0.0
    #: per table: the longest it went without storing an action, from the fault (its start
    #: for a server's, its end for Redis's and PostgreSQL's) until it was back after the fault
    unavailable: dict[str, float] = field(default_factory=dict)


KINDS = ("kill", "restart_within_lease", "stop", "term", "redis_restart", "redis_freeze",
         "pg_fast", "pg_immediate")  # fmt: skip


@dataclass
class Nemesis:
    rng: random.Random
    cluster: Cluster
    redis: RedisServer
    postgres: PostgresServer
    url: str
    table_ids: list[str]
    lease: float
    renew: float
    faults: list[Fault] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    actions: Actions = field(init=False)
    #: what is known of a table that did not come back (its players, its lease)
    describe: Callable[[str], str] = lambda table_id: ""
    #: seconds after which a table still waiting is late (noted, with what is known of it)
    late_after: float = float("inf")
    late: list[str] = field(default_factory=list)

    async def warm_up(self) -> None:
        """Every table has stored an action (the players are at it)."""
        await self._recovered(Fault("warm-up", time.time()), 0.0)

    async def run(self, kinds: list[str], until: float) -> None:
        """One fault at a time. `until` infinite: each of `kinds` once, in that order (the
        victims chosen by the seed), leaving the last one's victim down. Else, until `until`
        (loop time): every kind in turn, in a seeded order, before any repeats."""
        loop = asyncio.get_running_loop()
        once = until == float("inf")
        order = list(reversed(kinds)) if once else []
        while True:
            if not order:
                if once:
                    return
                order = list(kinds)
                self.rng.shuffle(order)
            kind = order.pop()
            await self.one(kind, restore=not (once and not order))
            if not once and loop.time() >= until:
                return

    async def one(self, kind: str, *, restore: bool = True) -> None:
        names = sorted(n for n, s in self.cluster.servers.items() if s.alive())
        victim = self.rng.choice(names)
        fault = Fault(kind, time.time(), victim)
        from_end = kind.startswith(("redis", "pg"))
        act: dict[str, Callable[[], Awaitable[None]]] = {
            "kill": lambda: self._kill(victim, restart_at_once=False),
            "restart_within_lease": lambda: self._kill(victim, restart_at_once=True),
            "stop": lambda: self._stop(victim),
            "term": lambda: self._term(victim),
            "redis_restart": self._redis_restart,
            "redis_freeze": self._redis_freeze,
            "pg_fast": lambda: self._pg("fast"),
            "pg_immediate": lambda: self._pg("immediate"),
        }
        await act[kind]()
        fault.ended = time.time()
        await self._recovered(fault, fault.ended if from_end else fault.started)
        self.faults.append(fault)
        if restore:
            await self._restore()
        leaked = await asyncio.to_thread(cards_in_redis, self.redis.url)
        if leaked:
            self.problems.append(f"after {kind}: cards in clear in Redis: {leaked[:3]}")
        lengths = await asyncio.to_thread(stream_lengths, self.redis.url)
        if lengths and max(lengths.values()) > 20_000:
            self.problems.append(f"after {kind}: a stream grew to {max(lengths.values())}")

    async def _kill(self, name: str, *, restart_at_once: bool) -> None:
        self.cluster.signal(name, signal.SIGKILL)
        await asyncio.to_thread(self.cluster.servers[name].process.wait, 30)
        if restart_at_once:  # the same name, well within its lease: a new incarnation
            await asyncio.to_thread(self.cluster.start, name)

    async def _stop(self, name: str) -> None:
        self.cluster.signal(name, signal.SIGSTOP)  # frozen past its lease
        await asyncio.sleep(self.lease + 2 * self.renew + 1)
        self.cluster.signal(name, signal.SIGCONT)

    async def _term(self, name: str) -> None:
        await asyncio.to_thread(self.cluster.stop, name)

    async def _redis_restart(self) -> None:
        self.redis.kill()
        await asyncio.sleep(0.5)
        self.redis.start()

    async def _redis_freeze(self) -> None:
        self.redis.signal(signal.SIGSTOP)
        await asyncio.sleep(3.0)
        self.redis.signal(signal.SIGCONT)

    async def _pg(self, mode: str) -> None:
        await asyncio.to_thread(stop_postgres, self.postgres, mode)
        await asyncio.sleep(2.0)
        await asyncio.to_thread(self.postgres.start)

    async def _restore(self) -> None:
        """Every server runs again (under its own name) before the next fault."""
        for server in list(self.cluster.servers.values()):
            if not server.alive():
                await asyncio.to_thread(self.cluster.start, server.name)

    async def _recovered(self, fault: Fault, since: float, bound: float = 90.0) -> None:
        """Wait until every table stored an action after the fault ended; note the longest
        each went without one from `since` on."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + bound
        late = time.time() < since + self.late_after  # not noted yet
        after = max(since, fault.ended)
        waiting = set(self.table_ids)
        while waiting:
            try:
                seen = await self.actions.since(self.table_ids, since)
            except Exception:  # the database is coming back
                seen = {}
            for table_id, times in seen.items():
                if times and times[-1] > after:
                    waiting.discard(table_id)
            if not waiting:
                fault.unavailable = {t: stall(times, since) for t, times in seen.items()}
                return
            if late and time.time() > since + self.late_after:
                late = False
                for table_id in sorted(waiting):
                    holder = await asyncio.to_thread(lease_of, self.redis.url, table_id)
                    self.late.append(f"{fault.kind} ({fault.victim}): table {table_id[:8]} "
                                     f"(lease {holder}): {self.describe(table_id)}")  # fmt: skip
            if loop.time() > deadline:
                for table_id in sorted(waiting):
                    holder = await asyncio.to_thread(lease_of, self.redis.url, table_id)
                    self.problems.append(f"{fault.kind}: table {table_id} (lease {holder}) never "
                                         f"came back: {self.describe(table_id)}")  # fmt: skip
                return
            await asyncio.sleep(0.2)

    def __post_init__(self) -> None:
        self.actions = Actions(self.url)

    def timeline(self) -> list[str]:
        """One line per fault: when, what, how long it lasted, each table's unavailability."""
        first = self.faults[0].started if self.faults else 0.0
        return [f"{f.started - first:6.1f} s {f.kind} ({f.victim or '-'}), "
                f"{f.ended - f.started:.1f} s: "
                + " ".join(f"{t:.1f}" for t in sorted(f.unavailable.values(), reverse=True))
                for f in self.faults]  # fmt: skip

    def figures(self) -> dict[str, tuple[int, float, float]]:
        """Per fault kind: how many, and the median and worst unavailability (s)."""
        by_kind: dict[str, list[float]] = defaultdict(list)
        for fault in self.faults:
            by_kind[fault.kind].append(max(fault.unavailable.values(), default=0.0))
        out = {}
        for kind, times in sorted(by_kind.items()):
            times.sort()
            out[kind] = (len(times), times[len(times) // 2], times[-1])
        return out
