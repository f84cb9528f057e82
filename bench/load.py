"""Load: how many tables one server process holds, against the bare WebSocket ceiling.

``.venv/bin/python bench/load.py --tables 500 --seconds 60 --pace human``
``.venv/bin/python bench/load.py --tables 100 --seconds 30 --pace flat``
``.venv/bin/python bench/load.py --pace human --tables 500 --seconds 20 --compare-processes 1,2``
``.venv/bin/python bench/load.py --pace flat --tables 20 --processes 2 --compare-relayed 0,0.5``

PostgreSQL runs with its default durability (fsync and synchronous_commit on) unless
``--fsync-off``; the report prints them. ``--processes N`` runs N server processes on the one
database and Redis (server i pinned to CPU i % CPUs, the bots then on every CPU); each table's
seats connect to its owner, or ``--relayed F`` of them to another process. The compare modes
run several such configurations in one invocation and print them side by side.

One run:
1. starts a throwaway PostgreSQL cluster and redis-server on loopback (tests/servers.py);
2. migrates a fresh database and starts the server as deployed: ``python -m app serve``
   (uvicorn, one worker) pinned to CPU 0, configured only through its environment variables;
3. starts bot processes (pinned to the other CPUs) that create N tables of six seats through
   the REST API, connect 6 x N WebSockets and play: each bot answers every ``turn`` that carries
   its legal actions with a random legal action after a think time (0 flat out; a human pace
   averages one action every 2 s per table). Bots speak docs/protocol.md and nothing else;
4. measures a window of ``--seconds`` once every seat is seated, then pauses every table, lets
   the hands in play finish, checks them and stops everything;
5. runs the bare ceiling (bench/ceiling.py) with the same uvicorn flags, the same connections
   in groups of six, the same pacing, the same number of messages per action and the same
   average message size as the server run delivered;
6. prints one table, server and ceiling side by side.

Every bot checks every message: the per-connection sequence has no holes; no card it may not
see (a card string in any message must be its own hole card, a board card or a shown card of
the current hand); hole cards only for its own seat; nothing shown for a folded seat; the
stacks at ``hand_ended`` add up to those at ``hand_started``; at the end each table's seat
stacks add up to its buy-ins and top-ups, every hand started has ended, and the shown cards,
boards and hole cards of a table never collide. Any violation fails the run (exit code 1).

Latency: the bot that acts records the send time; every seat of the table (all six are in the
same bot process) records the arrival of the first numbered message after the ``turn`` it
answers; latency is the last arrival minus the send, ``time.perf_counter`` in one process.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as a script: make ``app`` and ``tests`` importable
    sys.path.insert(0, str(ROOT))

from bench import commits as commits_figures  # noqa: E402
from bench.bots import SEATS, Counters  # noqa: E402
from bench.fleet import backing_servers, bot_cpus, durability, raise_open_files, server_cpus  # noqa: E402
from bench.runs import Result, ok, run_ceiling, run_server  # noqa: E402

HUMAN_THINK = 2.0  # seconds: one action every 2 s per table on average


# --------------------------------------------------------------------------- report
def report(server: Result, ceiling: Result | None, think: float) -> str:
    s = server.counters
    conns = s.connections
    pace = (
        "flat out (think 0)"
        if think <= 0
        else f"human pace (one action every {think:g} s per table on average)"
    )
    lines = [
        f"{server.tables} tables x {SEATS} seats = {conns} connections; {pace}; window "
        f"{server.seconds:.1f} s (setup {server.setup_seconds:.1f} s)",
        f"{'figure':<44} {'server':>14} {'ceiling':>14} {'ratio':>7}",
        f"{'-' * 44} {'-' * 14} {'-' * 14} {'-' * 7}",
    ]

    def row(what: str, a: float | None, b: float | None, fmt: str = ",.0f",
            ratio: bool = False) -> None:  # fmt: skip
        left = "" if a is None else format(a, fmt)
        right = "" if b is None else format(b, fmt)
        r = f"{a / b:.2f}" if ratio and a is not None and b else ""
        lines.append(f"{what:<44} {left:>14} {right:>14} {r:>7}")

    c = ceiling.counters if ceiling else None
    row("actions processed /s", server.rate(s.actions), ceiling.rate(c.actions) if c and
        ceiling else None, ratio=True)  # fmt: skip
    row("per-seat messages delivered /s", server.rate(s.messages),
        ceiling.rate(c.messages) if c and ceiling else None, ratio=True)  # fmt: skip
    row("per-seat WebSocket frames delivered /s", server.rate(s.frames),
        ceiling.rate(c.messages) if c and ceiling else None, ratio=True)  # fmt: skip
    row("  messages per action per seat", s.messages / max(1, s.actions) / SEATS,
        c.messages / max(1, c.actions) / SEATS if c else None, ".2f")  # fmt: skip
    row("  average message size (bytes)", s.bytes / max(1, s.messages),
        c.bytes / max(1, c.messages) if c else None)  # fmt: skip
    for q in (0.50, 0.95, 0.99):
        row(f"latency p{int(q * 100)} (ms), action to last seat", server.pct(q),
            ceiling.pct(q) if ceiling else None, ".1f")  # fmt: skip
    row("latency max (ms)", max(s.latencies, default=0) * 1000,
        max(c.latencies, default=0) * 1000 if c else None, ".1f")  # fmt: skip
    row("hands completed", s.hands, None)
    row("hands completed /s", server.rate(s.hands), None, ",.1f")
    row("server CPU (% of one core)", 100 * server.server_cpu / server.seconds,
        100 * ceiling.server_cpu / ceiling.seconds if ceiling else None, ".0f")  # fmt: skip
    row("bots' CPU (% of one core, all bot processes)", 100 * s.cpu / server.seconds,
        100 * c.cpu / ceiling.seconds if c and ceiling else None, ".0f")  # fmt: skip
    row("server RSS before connections (MiB)", server.rss_start_kib / 1024,
        ceiling.rss_start_kib / 1024 if ceiling else None, ".1f")  # fmt: skip
    row("server peak RSS (MiB)", server.hwm_kib / 1024,
        ceiling.hwm_kib / 1024 if ceiling else None, ".1f")  # fmt: skip
    grown = server.hwm_kib - server.rss_start_kib
    row("peak RSS growth per table (KiB)", grown / max(1, server.tables),
        (ceiling.hwm_kib - ceiling.rss_start_kib) / max(1, ceiling.tables) if ceiling else None,
        ".1f")  # fmt: skip
    row("peak RSS growth per connection (KiB)", grown / max(1, conns),
        (ceiling.hwm_kib - ceiling.rss_start_kib) / max(1, c.connections) if c and ceiling
        else None, ".1f")  # fmt: skip
    row("peak RSS per connection, all of it (KiB)", server.hwm_kib / max(1, conns),
        ceiling.hwm_kib / max(1, c.connections) if c and ceiling else None, ".1f")  # fmt: skip
    row("database commits /s", server.rate(server.commits), None, ",.0f")
    if server.store:
        for what, value in commits_figures.describe(server.store, server.seconds):
            lines.append(f"{what:<44} {value:>14}")
    lines.append("")
    lines.append(f"checks: {s.tables_checked} tables checked, {s.errors} error frames, "
                 f"{len(s.violations)} violations, {s.closed} connections closed by the "
                 f"server, {s.unfinished} hands unfinished")  # fmt: skip
    for v in s.violations[:10]:
        lines.append(f"  violation: {v}")
    for e in s.error_samples[:5]:
        lines.append(f"  error frame: {e}")
    return "\n".join(lines)


def _q(data: list[float], q: float) -> float:
    data = sorted(data)
    return data[min(len(data) - 1, int(q * len(data)))] * 1000 if data else float("nan")


def relay_split(c: Counters) -> list[str]:
    """Where a relayed run's added latency goes, from the bots' own clocks: the way out (a
    message's last relayed seat after its last direct seat, same table, same bot process)
    and the way in (the direct seats' latency when the acting seat is relayed, against
    when it is direct; their p50s' and p99s' difference)."""
    if not c.out_hops:
        return []
    direct, relayed = c.direct_seats[False], c.direct_seats[True]
    lines = [f"{'  relay out: last relayed - last direct':<40} p50 {_q(c.out_hops, 0.5):.1f}"
             f"  p99 {_q(c.out_hops, 0.99):.1f} ms ({len(c.out_hops)} messages)"]  # fmt: skip
    if direct and relayed:
        lines.append(
            f"{'  relay in: direct seats, relayed - direct':<40} "
            f"p50 {_q(relayed, 0.5) - _q(direct, 0.5):+.1f}  "
            f"p99 {_q(relayed, 0.99) - _q(direct, 0.99):+.1f} ms "
            f"(actor direct p50 {_q(direct, 0.5):.1f}, relayed {_q(relayed, 0.5):.1f})"
        )
    return lines


def side_by_side(results: list[tuple[str, Result]], think: float, settings: str) -> str:
    """Several runs of the same configuration side by side (1 and 2 processes; direct and
    relayed), the last column's ratio to the first."""
    first = results[0][1]
    pace = "flat out (think 0)" if think <= 0 else f"human pace (think {think:g} s)"
    width = max(14, *(len(label) for label, _ in results))
    lines = [
        f"{first.tables} tables x {SEATS} seats; {pace}; window {first.seconds:.0f} s each",
        f"PostgreSQL: {settings}",
        f"{'figure':<40} " + " ".join(f"{label:>{width}}" for label, _ in results)
        + f" {'ratio':>7}",
        f"{'-' * 40} " + " ".join("-" * width for _ in results) + f" {'-' * 7}",
    ]  # fmt: skip

    def row(what: str, get: Any, fmt: str = ",.0f") -> None:
        values = [float(get(r)) for _, r in results]
        ratio = f"{values[-1] / values[0]:.2f}" if values[0] else ""
        lines.append(f"{what:<40} " + " ".join(f"{format(v, fmt):>{width}}" for v in values)
                     + f" {ratio:>7}")  # fmt: skip

    row("actions processed /s", lambda r: r.rate(r.counters.actions))
    row("per-seat messages delivered /s", lambda r: r.rate(r.counters.messages))
    for q in (0.50, 0.95, 0.99):
        row(f"latency p{int(q * 100)} (ms), action to last seat", lambda r, q=q: r.pct(q), ".1f")
    for q in (0.50, 0.99):  # what the last run adds to the first (the relay's target: ms)
        added = results[-1][1].pct(q) - first.pct(q)
        lines.append(f"{f'  p{int(q * 100)} added (ms), last - first':<40} {added:>{width}.1f}")
    row("latency max (ms)", lambda r: max(r.counters.latencies, default=0) * 1000, ".1f")
    lines += relay_split(results[-1][1].counters)
    row("hands completed /s", lambda r: r.rate(r.counters.hands), ",.1f")
    row("servers' CPU (% of one core, all)", lambda r: 100 * r.server_cpu / r.seconds)
    row("bots' CPU (% of one core, all)", lambda r: 100 * r.counters.cpu / r.seconds)
    row("servers' peak RSS (MiB, all)", lambda r: r.hwm_kib / 1024, ".1f")
    row("database commits /s", lambda r: r.rate(r.commits))
    lines.append("")
    for label, r in results:
        c = r.counters
        owned = ", ".join(f"{n} {name}" for name, n in sorted(c.owned.items()))
        lines.append(f"{label}: tables owned {owned}; {c.relayed} of {c.connections} "
                     f"connections relayed; {c.connect_retries} set-up connections "
                     "refused and tried again")  # fmt: skip
    for label, r in results:
        c = r.counters
        lines.append(f"checks {label}: {c.tables_checked} tables checked, {c.errors} error "
                     f"frames, {len(c.violations)} violations, {c.closed} closed by the "
                     f"server, {c.unfinished} hands unfinished")  # fmt: skip
        for v in c.violations[:5]:
            lines.append(f"  violation: {v}")
        for e in c.error_samples[:3]:
            lines.append(f"  error frame: {e}")
    return "\n".join(lines)


def fractions(text: str) -> list[float]:
    return [float(x) for x in text.split(",")]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--tables", type=int, default=100)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--pace", choices=("flat", "human"), default="flat")
    parser.add_argument("--think", type=float, default=None,
                        help="mean think time per action (s); overrides --pace")  # fmt: skip
    parser.add_argument("--bots", type=int, default=None,
                        help="bot processes (default: 1 per 100 tables, 1 to 4)")  # fmt: skip
    parser.add_argument("--no-ceiling", action="store_true")
    parser.add_argument("--batch", choices=("off", "on", "both"), default="off",
                        help="bots ask for batched frames; both: a run without, then one with "
                        "(the ceiling once, for the run without)")  # fmt: skip
    parser.add_argument("--profile", metavar="FILE",
                        help="py-spy the server through the window (collapsed stacks)")  # fmt: skip
    parser.add_argument("--processes", type=int, default=1,
                        help="server processes on one database and one Redis")  # fmt: skip
    parser.add_argument("--relayed", type=float, default=0.0,
                        help="fraction of each table's seats connected to a process that "
                             "does not own it (needs --processes 2 or more)")  # fmt: skip
    parser.add_argument("--compare-processes", metavar="N,M", default=None,
                        help="run the same load on N then M processes, one table")  # fmt: skip
    parser.add_argument("--compare-relayed", metavar="F,G", default=None,
                        help="run the same load on --processes (at least 2) with these "
                             "relayed fractions, one table")  # fmt: skip
    parser.add_argument(
        "--fsync-off",
        action="store_true",
        help="PostgreSQL without fsync/full_page_writes (as the tests run it)",
    )
    args = parser.parse_args(argv)
    think = args.think if args.think is not None else (0.0 if args.pace == "flat" else HUMAN_THINK)
    bots = args.bots or max(1, min(4, args.tables // 100 + 1))
    runs: list[tuple[str, int, float]] = []  # label, server processes, relayed fraction
    if args.compare_processes:
        for n in (int(x) for x in args.compare_processes.split(",")):
            runs.append((f"{n} process{'es' if n > 1 else ''}", n, args.relayed))
    elif args.compare_relayed:
        for f in fractions(args.compare_relayed):
            runs.append((f"{round(f * SEATS)}/6 relayed", max(2, args.processes), f))
    else:
        runs.append(("server", args.processes, args.relayed))
    raise_open_files()
    # PostgreSQL and redis-server inherit this: CPU 1 (with the bots when one server process
    # has CPU 0 to itself); server process i is pinned to CPU i % CPUs, and when there are
    # several the bots run on every CPU: on 2 cores servers and bots compete.
    with contextlib.suppress(OSError):
        os.sched_setaffinity(0, bot_cpus())
    print(f"machine: {os.cpu_count()} CPUs, Python {sys.version.split()[0]}, load average "
          f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}; {bots} bot processes",
          flush=True)  # fmt: skip
    for label, n, f in runs:
        pins = ", ".join(f"p{i} on CPU {sorted(server_cpus(i, n))}" for i in range(n))
        print(f"{label}: {n} server process(es), {pins}; bots on CPU {sorted(bot_cpus(n))}; "
              f"{round(f * SEATS) if n > 1 else 0} of 6 seats per table relayed",
              flush=True)  # fmt: skip
    results: list[tuple[str, Result]] = []
    with backing_servers(durable=not args.fsync_off) as backing:
        settings = durability(backing)
        for label, n, f in runs:
            results.append(
                (
                    label,
                    run_server(
                        backing,
                        args.tables,
                        args.seconds,
                        think,
                        bots,
                        profile=args.profile,
                        servers=n,
                        relayed=f,
                        batch=args.batch == "on",
                    ),
                )
            )
        batched = None
        if args.batch == "both" and len(runs) == 1:
            batched = run_server(backing, args.tables, args.seconds, think, bots,
                                 dbname="omaha_bench_batch", servers=runs[0][1],
                                 relayed=runs[0][2], batch=True)  # fmt: skip
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    if len(runs) > 1:
        print(side_by_side(results, think, settings), flush=True)
        return 0 if all(ok(r) for _, r in results) else 1
    server = results[0][1]
    ceiling = None
    if not args.no_ceiling:
        s = server.counters
        fanout = s.messages / max(1, s.actions) / SEATS
        size = round(s.bytes / max(1, s.messages))
        ceiling = run_ceiling(args.tables, args.seconds, think, bots, fanout, size)
    print(f"PostgreSQL: {settings}")
    print(report(server, ceiling, think), flush=True)
    if batched is not None:
        print("\nthe same with batched frames (?batch=1), against the ceiling above:")
        print(report(batched, ceiling, think), flush=True)
        print(compare(server, batched))
    return 0 if ok(server) and (batched is None or ok(batched)) else 1


def compare(plain: Result, batched: Result) -> str:
    """Batched against plain frames, from the same invocation: ratios (batched / plain)."""
    a, b = plain.counters, batched.counters

    def per_action(r: Result) -> float:
        return r.server_cpu / max(1, r.counters.actions) * 1e6

    speed = batched.rate(b.actions) / max(1e-9, plain.rate(a.actions))
    cpu = per_action(batched) / max(1e-9, per_action(plain))
    frames = (a.frames / max(1, a.messages), b.frames / max(1, b.messages))
    return "\n".join([
        "batched / plain frames, same invocation:",
        f"  actions processed /s     {speed:.2f}",
        f"  server CPU per action    {cpu:.2f}  ({per_action(plain):.0f} -> "
        f"{per_action(batched):.0f} us)",
        f"  frames per message       {frames[0]:.2f} -> {frames[1]:.2f}",
        f"  latency p50 / p95 (ms)   {plain.pct(0.5):.1f} / {plain.pct(0.95):.1f} -> "
        f"{batched.pct(0.5):.1f} / {batched.pct(0.95):.1f}",
    ])  # fmt: skip


if __name__ == "__main__":
    sys.exit(main())
