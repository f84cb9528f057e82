"""A bot process of bench/load.py: its tables set up through the REST API (sat with `post`),
played through the window and drained and checked at its end; the ceiling's groups of six
(bench/ceiling.py's app) paced the same way; `worker`, the process's entry point."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import resource
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent

from bench.bots import BATCH, BUY_IN, SEATS, Counters, Run, Seat, TableBots  # noqa: E402
from bench.fleet import Target, bot_cpus, raise_open_files  # noqa: E402


async def owner_base(target: Target, table_id: str, redis: Any) -> int:
    """The index of the process that owns the table (its lease in Redis)."""
    for _ in range(100):
        name = await redis.get(f"omaha:table:{table_id}:owner")
        if name:  # the owner's incarnation, `<PROCESS_NAME>@<random>` (app/scale/identity.py)
            text = name.decode() if isinstance(name, bytes) else name
            return target.names.index(text.split("@", 1)[0])
        await asyncio.sleep(0.05)
    raise RuntimeError(f"table {table_id} has no owner")


async def setup_table(table: TableBots, target: Target, redis: Any = None,
                      sit: bool = True) -> None:  # fmt: skip
    """Six players join, the first creates the table (through process index % N, placement
    picks its owner), all connect (to the owner; the first round(relayed x 6) seats to
    another process) and sit (unless not `sit`: six spectators)."""
    import httpx

    count = len(target.bases)
    base = target.bases[table.index % count]
    async with httpx.AsyncClient(base_url=base, timeout=60) as http:
        tokens = []
        for i in range(SEATS):
            http.cookies.clear()
            for attempt in range(5):
                try:
                    r = await http.post("/api/session", json={"name": f"bot{table.index}-{i}"})
                except httpx.TransportError:  # a kept-alive connection the server closed
                    # (its header timer, under thousands of set-ups at load ~12): a new one
                    if attempt == 4:
                        raise
                    continue
                if r.status_code != 503:  # `unavailable` says "try again": SQLite busy
                    break
                await asyncio.sleep(0.5 * (attempt + 1))
            r.raise_for_status()
            tokens.append(r.cookies["omaha_session"])
        http.cookies.clear()
        r = await http.post(
            "/api/tables",
            json={"name": f"bench {table.index}", "game": "omaha", "seats": SEATS,
                  "buy_in_max": BUY_IN},
            cookies={"omaha_session": tokens[0]},
        )  # fmt: skip
        r.raise_for_status()
        table.code = r.json()["code"]
        table_id = r.json()["id"]
    table.seats = [Seat(table, i, tokens[i]) for i in range(SEATS)]
    owner = await owner_base(target, table_id, redis) if count > 1 else 0
    relayed = round(target.relayed * SEATS) if count > 1 else 0
    run = table.run
    run.c.owned[target.names[owner]] = run.c.owned.get(target.names[owner], 0) + 1
    run.c.relayed += relayed
    for seat in table.seats:
        index = owner if seat.number >= relayed else (owner + 1) % count
        seat.relayed = index != owner
        base = target.bases[index]
        await seat.connect(base.replace("http", "ws", 1), base)
    if not sit:
        while any(seat.seq is None for seat in table.seats):  # each has its snapshot
            await asyncio.sleep(0.05)
        return
    for seat in table.seats:
        for attempt in range(5):  # `unavailable` says "try again": SQLite under 3,000 sits
            # `post`: dealt in at the next hand, not after the big blind reaches the seat
            # (one waiting seat a hand: a 20 s human-pace window was mostly 2-4 handed, and
            # the seats sat last, the direct ones of a relayed run, had hardly acted)
            reply = await seat.request(type="sit", seat=seat.number, buy_in=BUY_IN, post=True)
            if reply.get("code") != "unavailable":
                break
            await asyncio.sleep(0.5 * (attempt + 1))
        if reply["type"] != "ok":
            raise RuntimeError(f"cannot sit: {reply}")
        seat.stack = BUY_IN


async def drain_table(table: TableBots, timeout: float) -> None:
    """Pause the table (no new hand), let the hand in play finish, check the chips."""
    host = table.seats[0]
    with contextlib.suppress(Exception):
        await host.request(type="pause")
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and table.hands_started - table.hands_ended:
        await asyncio.sleep(0.05)
    await asyncio.sleep(0.2)  # the seat records that follow a hand's end
    run = table.run
    unfinished = table.hands_started - table.hands_ended
    run.c.unfinished += len(unfinished)
    if unfinished:
        run.violation(f"table {table.index}: {len(unfinished)} hands never ended")
    total = sum(table.stacks.values())
    expected = BUY_IN * SEATS + table.top_ups
    if total != expected:
        run.violation(f"table {table.index}: seat stacks add up to {total}, buy-ins and "
                      f"top-ups to {expected}: {table.stacks}")  # fmt: skip
    run.c.tables_checked += 1


async def play(indices: list[int], target: Target, think: float, go: Any, stop: Any,
               ready: Any, seed: int, sit: bool = True) -> Counters:  # fmt: skip
    """Bots at `indices`' tables play through the window; not `sit`: they only watch."""
    run = Run(think, seed)
    tables = [TableBots(run, i) for i in indices]
    limit = asyncio.Semaphore(16)
    redis = None
    if len(target.bases) > 1:
        from redis.asyncio import Redis

        redis = Redis.from_url(target.redis_url)

    async def one(table: TableBots) -> None:
        async with limit:
            await setup_table(table, target, redis, sit)

    await asyncio.gather(*(one(t) for t in tables))
    if redis is not None:
        await redis.aclose()
    run.c.connections = sum(len(t.seats) for t in tables)
    ready.put(len(tables))
    await _wait_event(go)
    cpu0 = _self_cpu()
    run.measuring = True
    await _wait_event(stop)
    run.measuring = False
    run.c.cpu = _self_cpu() - cpu0
    run.draining = True
    if sit:
        await asyncio.gather(*(drain_table(t, 60.0) for t in tables))
    for t in tables:
        for seat in t.seats:
            seat.done = True
    await asyncio.gather(*(s.ws.close() for t in tables for s in t.seats),
                         return_exceptions=True)  # fmt: skip
    return run.c


# ---------------------------------------------------------------- ceiling bots
class CeilingGroup:
    """Six connections to the ceiling app, passing the "action" around like a table: the
    seat whose turn is next sends the next action once it has the whole burst of the last."""

    def __init__(self, run: Run, index: int, fanout: float) -> None:
        self.run = run
        self.index = index
        self.fanout = fanout
        self.credit = 0.0
        self.actor = 0
        self.bursts = 0  # actions sent
        self.sent_at: dict[int, float] = {}  # burst number -> send time
        self.arrivals: dict[int, list[float]] = {}  # burst number -> [seats, last arrival]
        self.conns: list[Any] = []
        self.tasks: set[asyncio.Task[Any]] = set()

    def trigger(self) -> None:
        if self.run.draining:
            return
        self.credit += self.fanout
        k = max(1, int(self.credit))
        self.credit -= k
        self.bursts += 1
        self.sent_at[self.bursts] = time.perf_counter()
        if self.run.measuring:
            self.run.c.sent += 1
            self.run.c.actions += 1
        conn = self.conns[self.actor]
        self.actor = (self.actor + 1) % len(self.conns)
        task = asyncio.ensure_future(conn.send(str(k)))
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    def first(self, burst: int, t: float) -> None:
        got = self.arrivals.get(burst)
        if got is None:
            got = self.arrivals[burst] = [0, t]
        got[0] += 1
        got[1] = max(got[1], t)
        if got[0] == len(self.conns):
            del self.arrivals[burst]
            sent = self.sent_at.pop(burst, None)
            if sent is not None and self.run.measuring:
                self.run.c.latencies.append(got[1] - sent)

    async def read(self, seat: int, ws: Any) -> None:
        from websockets.exceptions import ConnectionClosed

        run = self.run
        in_burst = False
        burst = 0  # every burst reaches every seat, in order: this seat's n-th is the n-th
        try:
            async for raw in ws:
                t = time.perf_counter()
                if run.measuring:
                    run.c.messages += 1
                    run.c.bytes += len(raw)
                m = json.loads(raw)
                if not in_burst:
                    in_burst = True
                    burst += 1
                    self.first(burst, t)
                if m["last"]:
                    in_burst = False
                    if seat == self.actor:
                        delay = run.delay()
                        if delay:
                            asyncio.get_running_loop().call_later(delay, self.trigger)
                        else:
                            self.trigger()
        except ConnectionClosed:
            pass


async def play_ceiling(indices: list[int], base: str, think: float, fanout: float, size: int,
                       go: Any, stop: Any, ready: Any, seed: int,
                       idle: bool = False) -> Counters:  # fmt: skip
    """Groups of six connections to the ceiling app; they pass actions around through the
    window unless `idle`."""
    from websockets.asyncio.client import connect

    run = Run(think, seed)
    groups = [CeilingGroup(run, i, fanout) for i in indices]
    ws_base = base.replace("http", "ws", 1)
    limit = asyncio.Semaphore(64)
    readers: list[asyncio.Task[None]] = []

    async def one(group: CeilingGroup) -> None:
        async with limit:
            for _ in range(SEATS):
                ws = await connect(f"{ws_base}/ws?g={group.index}&size={size}", compression=None,
                                   max_size=2**20, ping_interval=None,
                                   open_timeout=60)  # fmt: skip
                group.conns.append(ws)
        for seat, ws in enumerate(group.conns):
            readers.append(asyncio.create_task(group.read(seat, ws)))

    await asyncio.gather(*(one(g) for g in groups))
    run.c.connections = sum(len(g.conns) for g in groups)
    ready.put(len(groups))
    await _wait_event(go)
    cpu0 = _self_cpu()
    run.measuring = True
    for g in groups if not idle else ():  # tables start at random moments within a think time
        if think > 0:
            asyncio.get_running_loop().call_later(run.rng.uniform(0, think), g.trigger)
        else:
            g.trigger()
    await _wait_event(stop)
    run.measuring = False
    run.c.cpu = _self_cpu() - cpu0
    run.draining = True
    await asyncio.sleep(0.5)
    await asyncio.gather(*(ws.close() for g in groups for ws in g.conns), return_exceptions=True)
    for task in readers:
        task.cancel()
    return run.c


async def _wait_event(event: Any) -> None:
    while not event.is_set():
        await asyncio.sleep(0.02)


def _self_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def worker(kind: str, indices: list[int], target: Target, think: float, fanout: float,
           size: int, go: Any, stop: Any, ready: Any, results: Any, seed: int) -> None:  # fmt: skip
    """One bot process: its tables, on uvloop when installed; its counters to `results`."""
    with contextlib.suppress(OSError):
        os.sched_setaffinity(0, bot_cpus(len(target.bases)))
    raise_open_files()
    try:
        import uvloop

        runner: Any = uvloop.run
    except ImportError:
        runner = asyncio.run
    try:
        if kind in ("server", "server+batch", "server idle"):
            BATCH["on"] = kind == "server+batch"
            counters = runner(play(indices, target, think, go, stop, ready, seed,
                                   sit=kind != "server idle"))  # fmt: skip
        else:
            idle = kind == "ceiling idle"
            counters = runner(play_ceiling(indices, target.bases[0], think, fanout, size, go,
                                           stop, ready, seed, idle))  # fmt: skip
    except BaseException as exc:
        import traceback

        traceback.print_exc()  # drive() raises without it: the cause is here, on stderr
        ready.put(-1)
        counters = Counters()
        counters.violations.append(f"bot process failed: {exc!r}")
    results.put(counters)
