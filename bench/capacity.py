"""Capacity: the number of tables swept at a human pace for one and for two server processes,
each point's action latency, and the knee (the most tables held at p99 <= 50 ms).

``.venv/bin/python -m bench.capacity --tables 100,250,500,1000 --processes 1,2 --seconds 20``

Each point is one `bench/load.py` run (its servers, bots, checks and latency, PostgreSQL at
its default durability unless ``--fsync-off``), on fresh server processes and a fresh
database. The process counts alternate at each table count, so a point's columns share the
machine's state of that moment: compare them side by side, not across invocations. A process
count whose p99 has passed ``--give-up`` times the target is not run at larger counts (its
knee is behind it; the sweep spends its time where the curve is still open).

One commit stall (PostgreSQL's background work, the VM's fsync) moves a run's p99 by tens of
ms: with ``--repeat N`` each point is run N times (the process counts still alternating) and
reads as its median run by p99, so one stall does not end a knee; every run's checks must
pass.

Issue 29's target: 2 processes hold at least 1.6 times the tables of 1 at p99 <= 50 ms, and
1 process holds 1,000 tables there.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as a script: make ``bench`` and ``app`` importable
    sys.path.insert(0, str(ROOT))

from bench import fleet, load, runs  # noqa: E402

TARGET_P99_MS = 50.0
TARGET_RATIO = 1.6
TARGET_ONE = 1000


@dataclass
class Point:
    tables: int
    processes: int
    #: the point's runs (``--repeat``), in the order they ran
    results: list[runs.Result]

    @property
    def result(self) -> runs.Result:
        """The median run by p99 (of an even number, the lower middle one): what the point
        reads as, its other figures included."""
        ranked = sorted(self.results, key=lambda r: r.pct(0.99))
        return ranked[(len(ranked) - 1) // 2]

    @property
    def p99(self) -> float:
        return self.result.pct(0.99)

    @property
    def held(self) -> bool:
        return all(runs.ok(r) for r in self.results) and self.p99 <= TARGET_P99_MS


def knee(points: list[Point], processes: int) -> int:
    """The most tables held at p99 <= target, below the first count that was not (a point
    held after one that failed is noise on the way down, not capacity); 0 if none."""
    best = 0
    for p in sorted((p for p in points if p.processes == processes), key=lambda p: p.tables):
        if not p.held:
            break
        best = p.tables
    return best


def sweep(tables: list[int], processes: list[int], seconds: float, think: float,
          durable: bool, give_up: float, repeat: int = 1) -> tuple[list[Point], str]:  # fmt: skip
    points: list[Point] = []
    open_counts = set(processes)
    with fleet.backing_servers(durable=durable) as backing:
        settings = fleet.durability(backing)
        for t in sorted(tables):
            now = {n: Point(t, n, []) for n in processes if n in open_counts}
            for i in range(repeat):
                for n, point in now.items():
                    bots = max(1, min(4, t // 100 + 1))
                    dbname = f"omaha_cap_{n}_{t}_{i}"
                    result = runs.run_server(backing, t, seconds, think, bots, dbname=dbname,
                                             servers=n)  # fmt: skip
                    point.results.append(result)
                    if repeat > 1:
                        print(f"  run {i + 1} of {repeat}: "
                              + line(Point(t, n, [result])).strip(), flush=True)  # fmt: skip
            for n, point in now.items():
                points.append(point)
                print(line(point), flush=True)
                failed = not all(runs.ok(r) for r in point.results)
                if failed or point.p99 > give_up * TARGET_P99_MS:
                    open_counts.discard(n)
    return points, settings


def line(p: Point) -> str:
    r = p.result
    c = r.counters
    failed = not all(runs.ok(x) for x in p.results)
    state = "held" if p.held else ("checks FAILED" if failed else "over")
    spread = ""
    if len(p.results) > 1:  # every run's p99, in the order they ran
        spread = "  (runs' p99: " + ", ".join(f"{x.pct(0.99):.1f}" for x in p.results) + ")"
    return (f"{p.tables:>6} tables  {p.processes} process{'es' if p.processes > 1 else '  '}"
            f"  p50 {r.pct(0.5):7.1f}  p95 {r.pct(0.95):7.1f}  p99 {p.p99:7.1f} ms"
            f"  {r.rate(c.actions):7.1f} actions/s  servers {100 * r.server_cpu / r.seconds:4.0f}"
            f" % of a core  {state}{_commit_wait(r)}{spread}")  # fmt: skip


def _commit_wait(r: runs.Result) -> str:
    """A write's wait for its commit over the window (p50 / p99), the servers' loop lateness
    (p99) and full collections: which of them the tail is (bench/commits.py; app/pauses.py;
    absent when the servers were not scraped)."""
    wait = r.store.get("omaha_store_write_seconds")
    if wait is None or not wait.count:
        return ""
    ms = 1000.0
    text = f"  (commit wait p50 {wait.quantile(0.5) * ms:.1f} p99 {wait.quantile(0.99) * ms:.1f}"
    late, full = r.store.get("omaha_loop_late_seconds"), r.store.get("omaha_gc_full_pause_seconds")
    if late is not None and late.count:
        text += f"; loop late p99 {late.quantile(0.99) * ms:.1f}"
    if full is not None and full.count:
        text += f"; {full.count:.0f} full GC {full.total * ms:.0f}"
    return text + " ms)"


def summary(points: list[Point], processes: list[int], settings: str, think: float) -> str:
    lines = ["", f"human pace (think {think:g} s); PostgreSQL: {settings}"]
    lines += [line(p) for p in sorted(points, key=lambda p: (p.processes, p.tables))]
    knees = {n: knee(points, n) for n in processes}
    tried = {n: max((p.tables for p in points if p.processes == n), default=0) for n in processes}
    for n in processes:
        at_end = knees[n] and knees[n] == tried[n]  # every count tried was held
        lines.append(f"knee, {n} process(es): {knees[n]:,} tables"
                     + (" (the largest count tried: at least this)" if at_end else ""))  # fmt: skip
    if 1 in knees and len(processes) > 1:
        top = max(processes)
        ratio = knees[top] / knees[1] if knees[1] else float("nan")
        lines.append(f"{top} processes / 1: {ratio:.2f} (target >= {TARGET_RATIO})")
    if 1 in knees:
        lines.append(f"1 process at {TARGET_ONE:,} tables: "
                     + ("held" if knees[1] >= TARGET_ONE else "not held")
                     + f" (target: held at p99 <= {TARGET_P99_MS:g} ms)")  # fmt: skip
    return "\n".join(lines)


def counts(text: str) -> list[int]:
    return [int(x) for x in text.split(",") if x]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=counts, default=counts("100,250,500,1000"))
    parser.add_argument("--processes", type=counts, default=counts("1,2"))
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--think", type=float, default=load.HUMAN_THINK)
    parser.add_argument(
        "--give-up",
        type=float,
        default=4.0,
        help="stop a process count once its p99 passes this many times 50 ms",
    )
    parser.add_argument(
        "--repeat",
        type=int,
        default=1,
        help="run each point this many times; it reads as its median run by p99",
    )
    parser.add_argument("--fsync-off", action="store_true")
    args = parser.parse_args(argv)
    if args.repeat < 1:
        parser.error("--repeat is at least 1")
    fleet.raise_open_files()
    with contextlib.suppress(OSError):
        os.sched_setaffinity(0, fleet.bot_cpus())
    print(f"machine: {os.cpu_count()} CPUs, load average "
          f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)  # fmt: skip
    points, settings = sweep(args.tables, args.processes, args.seconds, args.think,
                             not args.fsync_off, args.give_up, args.repeat)  # fmt: skip
    print(summary(points, args.processes, settings, args.think))
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0 if all(runs.ok(r) for p in points for r in p.results) else 1


if __name__ == "__main__":
    sys.exit(main())
