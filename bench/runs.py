"""One run of bench/load.py's bots against servers started by bench/fleet.py: the bot
processes (bench/play.py) set up, a measured window (the servers' CPU and memory, the group
writer's figures from /metrics), the counters merged into a `Result`; and `ok`, whether its
checks held."""

from __future__ import annotations

import contextlib
import multiprocessing as mp
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench import commits as commits_figures
from bench.bots import Counters
from bench.fleet import (
    PY,
    Backing,
    ProcStat,
    Target,
    ceiling_server,
    commits,
    table_servers,
)
from bench.play import worker


# --------------------------------------------------------------------------- one run
@dataclass
class Result:
    kind: str
    tables: int
    seconds: float
    counters: Counters
    server_cpu: float = 0.0  # CPU seconds in the window
    rss_start_kib: int = 0  # before any bot connected
    rss_end_kib: int = 0
    hwm_kib: int = 0  # peak RSS
    commits: int = 0
    setup_seconds: float = 0.0
    #: the group writer's histograms over the window (bench/commits.py), the servers' sum
    store: dict[str, commits_figures.Histogram] = field(default_factory=dict)

    def rate(self, n: float) -> float:
        return n / self.seconds if self.seconds else 0.0

    def pct(self, q: float) -> float:
        data = sorted(self.counters.latencies)
        if not data:
            return float("nan")
        return data[min(len(data) - 1, int(q * len(data)))] * 1000


def drive(kind: str, target: Target, pids: list[int], tables: int, seconds: float, think: float,
          processes: int, fanout: float = 1.0, size: int = 200,
          on_go: Any = None, on_stop: Any = None) -> Result:  # fmt: skip
    """Start the bot processes against `base`, measure a window, collect their counters."""
    ctx = mp.get_context("spawn")
    go, stop = ctx.Event(), ctx.Event()
    ready, results = ctx.Queue(), ctx.Queue()
    processes = max(1, min(processes, tables))
    chunks = [list(range(i, tables, processes)) for i in range(processes)]
    procs = []
    for n, chunk in enumerate(chunks):
        args = (kind, chunk, target, think, fanout, size, go, stop, ready, results, 1000 * n + 7)
        procs.append(ctx.Process(target=worker, args=args, daemon=True))
    stat = ProcStat(pids)
    rss_start = stat.memory_kib()["VmRSS"]
    t0 = time.monotonic()
    for p in procs:
        p.start()
    try:
        got = 0
        for _ in procs:
            n = ready.get(timeout=600)
            if n < 0:
                raise RuntimeError("a bot process failed while setting up")
            got += n
        setup = time.monotonic() - t0
        time.sleep(0.5)
        before = on_go() if on_go else 0
        cpu0 = stat.cpu()
        start = time.monotonic()
        go.set()
        deadline = start + seconds
        while time.monotonic() < deadline:
            time.sleep(min(0.5, max(0.0, deadline - time.monotonic())))
        stop.set()
        elapsed = time.monotonic() - start
        cpu = stat.cpu() - cpu0
        memory = stat.memory_kib()
        after = on_stop() if on_stop else 0
        total = Counters()
        for _ in procs:
            total.merge(results.get(timeout=180))
    finally:
        stop.set()
        for p in procs:
            p.join(30)
            if p.is_alive():
                p.kill()
    return Result(kind, tables, elapsed, total, cpu, rss_start, memory["VmRSS"],
                  memory["VmHWM"], after - before, setup)  # fmt: skip


def run_server(backing: Backing, tables: int, seconds: float, think: float, processes: int,
               dbname: str = "omaha_bench", profile: str | None = None, servers: int = 1,
               relayed: float = 0.0, batch: bool = False,
               commits_figure: bool = True) -> Result:  # fmt: skip
    """The table server (`servers` processes) under `tables` tables of bots; with `profile`,
    py-spy samples the (first) server through the window and writes collapsed stacks there.
    `commits_figure` false: no database commits figure (0), and none of the 3.5 s of waits
    for pg_stat_database to flush around the window (the tests, which check correctness)."""
    with started_servers(backing, dbname, think <= 0, servers) as running:
        return run_on(running, backing, tables, seconds, think, processes, dbname, profile,
                      relayed, batch, commits_figure)  # fmt: skip


@contextlib.contextmanager
def started_servers(backing: Backing, dbname: str, flat: bool,
                    servers: int = 1) -> Iterator[tuple[Target, list[int]]]:  # fmt: skip
    """A clean Redis, then `table_servers`: for several `run_on` against the same processes
    (a correctness check of several bot runs; `run_server` starts them afresh per run)."""
    import redis

    client = redis.Redis.from_url(backing.redis_url)
    client.flushall()  # no lease, load or process left from an earlier run
    client.close()
    with table_servers(backing, dbname, flat, servers) as running:
        yield running


def run_on(running: tuple[Target, list[int]], backing: Backing, tables: int, seconds: float,
           think: float, processes: int, dbname: str = "omaha_bench",
           profile: str | None = None, relayed: float = 0.0, batch: bool = False,
           commits_figure: bool = True) -> Result:  # fmt: skip
    """`run_server`'s run, on servers already started (`started_servers`)."""
    target = Target(running[0].bases, running[0].names, running[0].redis_url, relayed)
    pids = running[1]
    pid = pids[0]
    if commits_figure:
        time.sleep(2.0)  # pg_stat_database flushes about once a second
    spy: list[subprocess.Popen[bytes]] = []
    scraped: list[dict[str, commits_figures.Histogram]] = []
    store: dict[str, commits_figures.Histogram] = {}

    def go() -> int:
        scraped[:] = [commits_figures.scrape(base) for base in target.bases]
        if profile:
            command = [str(Path(PY).parent / "py-spy"), "record", "--nonblocking",
                       "--format", "raw", "-o", profile, "-d", str(int(seconds)),
                       "-p", str(pid)]  # fmt: skip
            spy.append(subprocess.Popen(command, stdout=subprocess.DEVNULL,
                                        stderr=subprocess.DEVNULL))  # fmt: skip
        return commits(backing, dbname) if commits_figure else 0

    def stop() -> int:
        store.update(commits_figures.window(target.bases, scraped))
        if commits_figure:
            time.sleep(1.5)
        for p in spy:
            p.wait(60)
        return commits(backing, dbname) if commits_figure else 0

    result = drive("server+batch" if batch else "server", target, pids, tables, seconds,
                   think, processes, on_go=go, on_stop=stop)  # fmt: skip
    result.store = store
    return result


def run_ceiling(tables: int, seconds: float, think: float, processes: int, fanout: float,
                size: int) -> Result:  # fmt: skip
    with ceiling_server() as (base, pid):
        return drive("ceiling", Target((base,)), [pid], tables, seconds, think, processes,
                     fanout, size)  # fmt: skip


def ok(result: Result) -> bool:
    c = result.counters
    return not c.violations and not c.errors and not c.closed and not c.unfinished
