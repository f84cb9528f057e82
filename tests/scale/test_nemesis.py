"""The fault test: real server processes on one PostgreSQL and one redis-server of their own
(loopback), players over the documented protocol (tests/scale/players.py) spread over the
processes (most of them relayed), and a seeded nemesis (tests/scale/nemesis.py) that, one at
a time, SIGKILLs a server (and restarts it later, or at once under the same name, within its
lease), SIGSTOPs one past its lease, SIGTERMs one, restarts or freezes redis-server, and stops
PostgreSQL (fast and immediate). Checked from the database and the players' logs: every `ok`
stored once, no action answered `unavailable` and applied, no connection given another
seat's cards or another connection's answers, no `seq` gap, chips conserved, no card in clear
in Redis and no stream unbounded; every table stores actions again after each fault (its
unavailability per fault kind is printed).

The short run (every `make test`) has two processes and five faults, and checks nothing
against the clock but that each table comes back within a generous bound. The long run:
`OMAHA_NEMESIS_SECONDS=600 pytest -s tests/scale/test_nemesis.py -k long` (three processes,
eight tables of four, every fault kind in turn; `OMAHA_NEMESIS_SEED` to vary the schedule),
which also holds each fault's unavailability to lease + renewal + a few seconds."""

from __future__ import annotations

import asyncio
import os
import random
import time
from pathlib import Path

import asyncpg
import httpx
import pytest

from tests.migrated import migrate
from tests.scale.cluster import Cluster
from tests.scale.nemesis import KINDS, Nemesis, RedisServer
from tests.scale.players import Player, check, describe
from tests.servers import postgres_cluster

SECRET = "n" * 40
SEED = int(os.environ.get("OMAHA_NEMESIS_SEED", "23"))
LONG_SECONDS = float(os.environ.get("OMAHA_NEMESIS_SECONDS", "0"))
#: the short run's lease and renewal, short to make each takeover quick (on a loaded machine
#: a starved process also loses a lease now and then: more takeovers, all of them checked);
#: the long run's, closer to the defaults (10, 2), as its bound is held to them
SHORT, LONG = (2.0, 0.4), (6.0, 1.5)
#: what a loaded test machine adds to lease + renewal: a reconnect, a load, a deal
SLACK = 5.0


async def run(
    tmp_path: Path,
    names: list[str],
    tables: int,
    seats: int,
    kinds: list[str],
    seconds: float,
    lease: tuple[float, float],
) -> None:
    rng, began = random.Random(SEED), time.monotonic()
    with postgres_cluster() as postgres:
        admin = await asyncpg.connect(host=postgres.host, port=postgres.port, user=postgres.user,
                                      database="postgres")  # fmt: skip
        await admin.execute("CREATE DATABASE nemesis")
        await admin.close()
        url = postgres.url("nemesis")
        await migrate(url)
        redis = RedisServer(tmp_path)
        redis.start()
        env = {**os.environ, "DATABASE_URL": url, "REDIS_URL": redis.url, "HOST": "127.0.0.1",
               "SECRET_KEY": SECRET, "DATA_DIR": str(tmp_path / "data"), "BETWEEN_HANDS": "0",
               "AWAY_GRACE": "3600", "LEASE_SECONDS": str(lease[0]), "LEASE_RENEW": str(lease[1]),
               "DRAIN_SECONDS": "3", "LOG_LEVEL": "warning", "SESSIONS_PER_MINUTE": "100000",
               "TABLES_PER_MINUTE": "100000"}  # fmt: skip
        cluster = Cluster(env)
        try:
            for name in names:
                cluster.launch(name)
            for name in names:
                cluster.wait(name)
            print(f"\nready in {time.monotonic() - began:.0f} s")
            players, codes = await seat(cluster, names, tables, seats, rng)
            await play(cluster, redis, postgres, url, players, codes, kinds, seconds, rng, lease)
        finally:
            cluster.close(kill=True)  # what they stored is checked already
            redis.kill()


async def seat(
    cluster: Cluster, names: list[str], tables: int, seats: int, rng: random.Random
) -> tuple[list[Player], dict[str, str]]:
    """Each table's players, player i of table t on process (t + i) mod n (the others in
    turn when it is down): most of them relayed."""

    def where(name: str) -> str:
        return cluster.servers[name].base

    def route(first: int) -> list[str]:
        return [names[(first + k) % len(names)] for k in range(len(names))]

    players: list[Player] = []
    codes: dict[str, str] = {}
    for t in range(tables):
        async with httpx.AsyncClient(base_url=where(names[t % len(names)]), timeout=30) as http:
            host = Player(f"t{t}p0", 0, "", route(t), where, random.Random(rng.random()))
            await host.join()
            http.cookies.set("omaha_session", host.token)
            r = await http.post("/api/tables", json={"decision_time": 0, "seats": seats})
            assert r.status_code == 201, r.text
            code, table_id = r.json()["code"], r.json()["id"]
        codes[code] = table_id
        host.code = code
        players.append(host)
        for i in range(1, seats):
            player = Player(f"t{t}p{i}", i, code, route(t + i), where, random.Random(rng.random()))
            await player.join()
            players.append(player)
    for player in players:
        await player.sit(buy_in=100)
    return players, codes


async def play(
    cluster: Cluster,
    redis: RedisServer,
    postgres: object,
    url: str,
    players: list[Player],
    codes: dict[str, str],
    kinds: list[str],
    seconds: float,
    rng: random.Random,
    lease: tuple[float, float],
) -> None:
    stop = asyncio.Event()
    playing = [asyncio.create_task(p.play(stop)) for p in players]
    nemesis = Nemesis(rng, cluster, redis, postgres, url, list(codes.values()),  # type: ignore[arg-type]
                      *lease)  # fmt: skip
    bound = sum(lease) + SLACK
    nemesis.late_after = bound
    at = {table_id: code for code, table_id in codes.items()}
    nemesis.describe = lambda table_id: describe([p for p in players if p.code == at[table_id]])
    started = time.monotonic()
    try:
        await nemesis.warm_up()
        loop = asyncio.get_running_loop()
        await nemesis.run(kinds, loop.time() + seconds if seconds else float("inf"))
    finally:
        stop.set()
        await asyncio.gather(*playing, return_exceptions=True)
        await nemesis.actions.close()
    for task in playing:
        if not task.cancelled() and task.exception() is not None:
            raise task.exception()  # type: ignore[misc]
    counts = await check(url, codes, players, SECRET)
    logs = "".join(s.log.read_text(errors="replace") for s in cluster.started)
    print(f"\nnemesis (seed {SEED}): {len(nemesis.faults)} faults in "
          f"{time.monotonic() - started:.0f} s; {counts}")  # fmt: skip
    print(f"messages received: {sum(p.received for p in players)}, "
          f"connections: {sum(p.connections for p in players)}")  # fmt: skip
    print("\n".join(["timeline (fault, victim, its length: each table's unavailability):",
                     *nemesis.timeline(), "late tables:", *nemesis.late]))  # fmt: skip
    for kind, (count, median, worst) in nemesis.figures().items():
        print(f"  {kind:22} x{count}: unavailable {median:5.1f} s median, {worst:5.1f} s worst "
              f"(bound {bound:.1f} s)")  # fmt: skip
    assert nemesis.problems == []
    assert counts["violations"] == 0
    assert counts["stored"] > 0 and counts["acts_ok"] > 0
    assert "Task exception was never retrieved" not in logs
    if seconds >= 60:  # the long run: every table back within the bound, after every fault
        late = [(f.kind, round(max(f.unavailable.values()), 1)) for f in nemesis.faults
                if max(f.unavailable.values(), default=0) > bound]  # fmt: skip
        assert late == [], late


async def test_a_short_seeded_run_of_faults_breaks_no_invariant(tmp_path: Path) -> None:
    await run(tmp_path, ["a", "b"], tables=2, seats=3, seconds=0, lease=SHORT,
              kinds=["stop", "redis_freeze", "redis_restart", "pg_immediate", "kill"])  # fmt: skip


@pytest.mark.long("OMAHA_NEMESIS_SECONDS")
async def test_a_long_run_of_every_fault_kind_breaks_no_invariant(tmp_path: Path) -> None:
    await run(tmp_path, ["a", "b", "c"], tables=8, seats=4, kinds=list(KINDS),
              seconds=LONG_SECONDS, lease=LONG)  # fmt: skip
