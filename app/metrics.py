"""What `/metrics` reports, in Prometheus' text format (version 0.0.4): counters and a
histogram that the hot path updates (a few integer additions: no lock, one event loop), and
gauges read from the running server when asked.

- `omaha_actions_total`: actions accepted and stored (`rate()` of it: actions per second);
- `omaha_store_write_seconds`: how long a table waited for a write of the hot path (a deal,
  an action, a top-up) to commit, from its submission to the group writer;
- `omaha_store_group_writes`: how many tables' writes each of the group writer's commits
  carried; `omaha_store_commit_seconds`: how long each of those commits took (the database's
  round trip, its fsync included);
- `omaha_gc_young_pause_seconds`, `omaha_gc_full_pause_seconds`: each garbage collection's
  time, and `omaha_loop_late_seconds`: by how much a timer woke late, every 0.1 s (what any
  event waits at a random moment; app/pauses.py): the pauses that stop every table at once;
- `omaha_tables`, `omaha_tournaments`: tables and tournament directors this process runs;
- `omaha_websockets`: WebSocket connections this process holds;
- `omaha_database_connections`: database connections the pool has lent out;
- `omaha_relay_lag_seconds` (several processes): the age of the oldest relay entry this
  process has not read yet (0 when it is up to date), `omaha_relayed_connections` the
  connections relayed to its tables from other processes.

Nothing here carries a card, a name or an id: counts and durations only.
"""

from __future__ import annotations

import bisect
from collections.abc import Awaitable
from typing import Any, cast

#: histogram bounds in seconds: a commit on loopback takes ~1 ms (a few with fsync on),
#: STORE_TIMEOUT is 5 s; fine below 50 ms, where bench/load.py reads its percentiles
WRITE_BUCKETS = (0.0005, 0.001, 0.0015, 0.002, 0.003, 0.004, 0.005, 0.0075, 0.01, 0.015, 0.02,
                 0.03, 0.05, 0.075, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)  # fmt: skip
#: histogram bounds of a group commit's size, in tables' writes (`app.store.group.BATCH` 256)
GROUP_BUCKETS = (1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256)
CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"


class Counter:
    def __init__(self, name: str, help_text: str) -> None:
        self.name, self.help, self.value = name, help_text, 0

    def inc(self, amount: int = 1) -> None:
        self.value += amount

    def lines(self) -> list[str]:
        return [*_header(self.name, self.help, "counter"), f"{self.name} {self.value}"]


class Histogram:
    def __init__(self, name: str, help_text: str, bounds: tuple[float, ...]) -> None:
        self.name, self.help, self.bounds = name, help_text, bounds
        self.counts = [0] * (len(bounds) + 1)  # per bucket (not cumulative); the last: +Inf
        self.sum = 0.0

    def observe(self, value: float) -> None:
        self.counts[bisect.bisect_left(self.bounds, value)] += 1
        self.sum += value

    def lines(self) -> list[str]:
        out = _header(self.name, self.help, "histogram")
        total = 0
        for bound, count in zip((*self.bounds, float("inf")), self.counts, strict=True):
            total += count
            le = "+Inf" if bound == float("inf") else repr(bound)
            out.append(f'{self.name}_bucket{{le="{le}"}} {total}')
        out += [f"{self.name}_sum {self.sum!r}", f"{self.name}_count {total}"]
        return out


def _header(name: str, help_text: str, kind: str) -> list[str]:
    return [f"# HELP {name} {help_text}", f"# TYPE {name} {kind}"]


def gauge(name: str, help_text: str, value: float) -> list[str]:
    return [*_header(name, help_text, "gauge"), f"{name} {value!r}"]


ACTIONS = Counter("omaha_actions_total", "Actions accepted and stored by this process.")
WRITES = Histogram(
    "omaha_store_write_seconds",
    "Seconds a table waited for a write of a deal, an action or chips to commit.",
    WRITE_BUCKETS,
)
GROUP_WRITES = Histogram(
    "omaha_store_group_writes",
    "Tables' writes each commit of the group writer carried.",
    GROUP_BUCKETS,
)
COMMITS = Histogram(
    "omaha_store_commit_seconds",
    "Seconds each commit of the group writer took, from its send to the database's answer.",
    WRITE_BUCKETS,
)
#: bounds of the pauses' histograms (app/pauses.py): a young collection takes well under 1 ms,
#: a full one walks the heap (0.1-1.5 s at 500 tables)
PAUSE_BUCKETS = (0.0002, 0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)
GC_YOUNG = Histogram(
    "omaha_gc_young_pause_seconds",
    "Seconds each young garbage collection (generation 0 or 1) stopped the process.",
    PAUSE_BUCKETS,
)
GC_FULL = Histogram(
    "omaha_gc_full_pause_seconds",
    "Seconds each full garbage collection stopped the process.",
    PAUSE_BUCKETS,
)
LOOP_LATE = Histogram(
    "omaha_loop_late_seconds",
    "Seconds by which a timer asked every 0.1 s woke late (the event loop was busy).",
    PAUSE_BUCKETS,
)


async def relay_lag(relay: Any) -> float:
    """Seconds since the oldest entry this process has not read yet was added, over its
    tables' in streams and its own out stream (Redis stream ids are Redis' time in ms)."""
    streams = relay.positions()
    async with relay.client.pipeline(transaction=False) as pipe:
        pipe.time()
        for key, cursor in streams:
            pipe.xrange(key, min=f"({cursor}", count=1)
        answers = await cast(Awaitable[list[Any]], pipe.execute())
    seconds, micros = answers[0]
    now_ms = int(seconds) * 1000 + int(micros) // 1000
    oldest = [_ms(entries[0][0]) for entries in answers[1:] if entries]
    return max(0.0, (now_ms - min(oldest)) / 1000) if oldest else 0.0


def _ms(entry_id: bytes | str) -> int:
    """The time part of a stream entry's id (`<ms>-<seq>`)."""
    text = entry_id.decode() if isinstance(entry_id, bytes) else entry_id
    return int(text.split("-", 1)[0])


async def render(state: Any) -> str:
    """The text of /metrics for the app whose `app.state` is `state`."""
    lines: list[str] = [*ACTIONS.lines(), *WRITES.lines(), *GROUP_WRITES.lines(), *COMMITS.lines()]
    lines += [*GC_YOUNG.lines(), *GC_FULL.lines(), *LOOP_LATE.lines()]
    tables = getattr(state, "tables", None)
    lines += gauge("omaha_tables", "Tables this process runs.",
                   len(tables.tables) if tables is not None else 0)  # fmt: skip
    hall = getattr(state, "tournaments", None)
    lines += gauge("omaha_tournaments", "Tournaments this process directs.",
                   len(getattr(hall, "directors", {})))  # fmt: skip
    connections = getattr(state, "connections", None)
    held = sum(connections.tables.values()) if connections is not None else 0
    lines += gauge("omaha_websockets", "WebSocket connections this process holds.", held)
    pool = getattr(getattr(state, "engine", None), "pool", None)
    checked_out = getattr(pool, "checkedout", None)
    lines += gauge("omaha_database_connections", "Database connections lent out by the pool.",
                   checked_out() if callable(checked_out) else 0)  # fmt: skip
    relay = getattr(state, "relay", None)
    if relay is not None:
        lines += gauge("omaha_relay_lag_seconds",
                       "Age of the oldest relay entry this process has not read yet.",
                       await relay_lag(relay))  # fmt: skip
        lines += gauge("omaha_relayed_connections",
                       "Connections of other processes relayed to this process's tables.",
                       relay.relayed())  # fmt: skip
    return "\n".join(lines) + "\n"
