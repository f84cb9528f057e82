"""Memory per connection: the table server's RSS growth per WebSocket at 3,000 connections
(500 tables x 6), idle and at a human pace, beside the bare WebSocket ceiling's in the same run.

``.venv/bin/python bench/memory.py``                       # ~6 minutes on two cores
``.venv/bin/python bench/memory.py --tables 500 --seconds 60 --postgres``

Each phase gets a fresh ``python -m app serve`` (SQLite in its DATA_DIR by default;
``--postgres``: a throwaway PostgreSQL cluster and redis-server, tests/servers.py), pinned to
CPU 0, the bots of bench/load.py in their own processes on the other CPUs:

1. **idle**: each table is created by one player and watched by six spectators (six
   sessions, no seat taken, no hand dealt);
2. **human pace**: six bots sit at each table and play (bench/load.py's bots, every message
   checked) for the window;
3. the same two on bench/ceiling.py under uvicorn with the server's WebSocket flags: the same
   connections in groups of six, idle, then passing prebuilt messages at the same pace, as many
   per action and of the same size as the server delivered.

Per connection: (peak RSS - RSS before the first connection) / connections, VmHWM and VmRSS
from /proc. So a table's own state (actor, hand, records) is counted in its six connections'
share, as a host sizing a club would count it. "Flat after warm-up": RSS sampled once a second
through the human-pace window; the growth from the end of its first third to its end, per
connection, should be about 0 (hands come and go; nothing accumulates).
Target (issue 29): at most 50 KiB per connection at 3,000 connections.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as a script: make ``app``, ``bench`` and ``tests`` importable
    sys.path.insert(0, str(ROOT))

from bench import fleet, load, runs  # noqa: E402
from bench.bots import SEATS  # noqa: E402

TARGET_KIB = 50.0


@contextlib.contextmanager
def sqlite_server() -> Iterator[tuple[fleet.Target, list[int]]]:
    """``python -m app serve`` on its own SQLite database (migrated at start), as deployed
    without PostgreSQL: no Redis, one process."""
    from tests.servers import free_port

    port = free_port()
    env = fleet.server_env("", "", port, flat=False)
    del env["DATABASE_URL"], env["REDIS_URL"]
    folder = Path(env["DATA_DIR"])
    with open(folder / "server.log", "wb") as log:
        proc = subprocess.Popen([fleet.PY, "-m", "app", "serve"], env=env, cwd=ROOT, stdout=log,
                                stderr=subprocess.STDOUT,
                                preexec_fn=fleet._pin(fleet.server_cpus()))  # fmt: skip
        try:
            fleet.wait_http(f"http://127.0.0.1:{port}/healthz", proc)
            yield fleet.Target((f"http://127.0.0.1:{port}",)), [proc.pid]
        finally:
            fleet._stop(proc)
    text = (folder / "server.log").read_text(errors="replace")
    if "Traceback" in text or "ERROR" in text:
        print("server log, tail:\n" + text[-3000:], file=sys.stderr)
    shutil.rmtree(folder, ignore_errors=True)


class Sampler:
    """RSS of one process once a second in a thread, and its private part (RssAnon: not
    the pages of mapped files); `mark` notes the window's start."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.samples: list[tuple[float, int, int]] = []  # (monotonic, VmRSS, RssAnon KiB)
        self.start = 0.0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.wait(1.0):
            with contextlib.suppress(OSError):
                status = Path(f"/proc/{self.pid}/status").read_text().splitlines()
                kib = {k: int(v.split()[0]) for k, v in (x.split(":", 1) for x in status)
                       if k in ("VmRSS", "RssAnon")}  # fmt: skip
                self.samples.append((time.monotonic(), kib["VmRSS"], kib["RssAnon"]))

    def __enter__(self) -> Sampler:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        self._thread.join(5)

    def mark(self) -> int:
        self.start = time.monotonic()
        return 0

    def window(self, seconds: float) -> tuple[int, int]:
        """The growth of RSS and of its private part from the end of the window's first
        third to its end (KiB)."""
        inside = [s for s in self.samples if self.start <= s[0] <= self.start + seconds + 1]
        if not inside:
            return 0, 0
        third = self.start + seconds / 3
        early = min(inside, key=lambda s: abs(s[0] - third))
        return inside[-1][1] - early[1], inside[-1][2] - early[2]


def measure(kind: str, tables: int, seconds: float, bots: int, postgres: bool,
            fanout: float = 1.0, size: int = 200) -> tuple[runs.Result, int, int]:  # fmt: skip
    """One phase on a fresh server: its result and the growth of RSS and of its private
    part (RssAnon) over the window's last two thirds (KiB)."""
    think = load.HUMAN_THINK
    with contextlib.ExitStack() as stack:
        if kind.startswith("ceiling"):
            base, pid = stack.enter_context(fleet.ceiling_server())
            target, pids = fleet.Target((base,)), [pid]
        elif postgres:
            backing = stack.enter_context(fleet.backing_servers())
            target, pids = stack.enter_context(fleet.table_servers(backing, "omaha_memory", False))
        else:
            target, pids = stack.enter_context(sqlite_server())
        sampler = stack.enter_context(Sampler(pids[0]))
        result = runs.drive(kind, target, pids, tables, seconds, think, bots, fanout, size,
                            on_go=sampler.mark)  # fmt: skip
        drift, private = sampler.window(seconds)
        print(f"{kind}: {per_connection(result):.1f} KiB per connection, peak RSS growth "
              f"(load average {os.getloadavg()[0]:.2f})", flush=True)  # fmt: skip
        return result, drift, private


def per_connection(result: runs.Result) -> float:
    return (result.hwm_kib - result.rss_start_kib) / max(1, result.counters.connections)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--tables", type=int, default=500)
    parser.add_argument("--seconds", type=float, default=60.0, help="window of each phase")
    parser.add_argument("--idle-seconds", type=float, default=10.0)
    parser.add_argument("--bots", type=int, default=None, help="bot processes (default 1-4)")
    parser.add_argument("--postgres", action="store_true",
                        help="PostgreSQL (default durability), Redis; not SQLite")  # fmt: skip
    args = parser.parse_args(argv)
    bots = args.bots or max(1, min(4, args.tables // 100 + 1))
    fleet.raise_open_files()
    with contextlib.suppress(OSError):
        os.sched_setaffinity(0, fleet.bot_cpus())
    print(f"machine: {os.cpu_count()} CPUs, Python {sys.version.split()[0]}, load average "
          f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}; {bots} bot processes; store "
          f"{'PostgreSQL' if args.postgres else 'SQLite'}", flush=True)  # fmt: skip
    idle, _, _ = measure("server idle", args.tables, args.idle_seconds, bots, args.postgres)
    human, drift, private = measure("server", args.tables, args.seconds, bots, args.postgres)
    s = human.counters
    fanout = s.messages / max(1, s.actions) / SEATS
    size = round(s.bytes / max(1, s.messages))
    ceiling_idle, _, _ = measure("ceiling idle", args.tables, args.idle_seconds, bots, False)
    ceiling, ceiling_drift, ceiling_private = measure("ceiling", args.tables, args.seconds,
                                                      bots, False, fanout, size)  # fmt: skip
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    conns = s.connections
    print(f"{args.tables} tables x {SEATS} = {conns} connections; human pace: one action "
          f"every {load.HUMAN_THINK:g} s per table on average, window {human.seconds:.0f} s, "
          f"{s.hands} hands, {human.rate(s.actions):.0f} actions/s")  # fmt: skip
    print(f"{'KiB per connection':<44} {'server':>9} {'ceiling':>9} {'ratio':>6} {'target':>7}")
    print(f"{'-' * 44} {'-' * 9} {'-' * 9} {'-' * 6} {'-' * 7}")

    def row(what: str, a: float, b: float, target: str = "") -> None:
        ratio = f"{a / b:.2f}" if b else ""
        print(f"{what:<44} {a:>9.1f} {b:>9.1f} {ratio:>6} {target:>7}")

    row("idle: peak RSS growth", per_connection(idle), per_connection(ceiling_idle), "<= 50")
    row("human pace: peak RSS growth", per_connection(human), per_connection(ceiling), "<= 50")
    row(
        "human pace: RSS growth at the window's end",
        (human.rss_end_kib - human.rss_start_kib) / max(1, conns),
        (ceiling.rss_end_kib - ceiling.rss_start_kib) / max(1, ceiling.counters.connections),
    )
    row("human pace: RSS growth, last 2/3 of window", drift / max(1, conns),
        ceiling_drift / max(1, ceiling.counters.connections), "~0")  # fmt: skip
    row("  of which private (RssAnon)", private / max(1, conns),
        ceiling_private / max(1, ceiling.counters.connections))  # fmt: skip
    print(f"server RSS before connections {human.rss_start_kib / 1024:.1f} MiB, peak "
          f"{human.hwm_kib / 1024:.1f} MiB (idle: {idle.rss_start_kib / 1024:.1f} -> "
          f"{idle.hwm_kib / 1024:.1f}); ceiling {ceiling.rss_start_kib / 1024:.1f} -> "
          f"{ceiling.hwm_kib / 1024:.1f} MiB")  # fmt: skip
    problems = [r for r in (idle, human, ceiling_idle, ceiling) if not runs.ok(r)]
    for r in problems:
        c = r.counters
        print(f"checks {r.kind}: {len(c.violations)} violations, {c.errors} error frames, "
              f"{c.closed} closed by the server: {c.violations[:3]} "
              f"{c.error_samples[:2]}")  # fmt: skip
    worst = max(per_connection(idle), per_connection(human))
    met = "met" if worst <= TARGET_KIB else "NOT met"
    print(f"target <= {TARGET_KIB:g} KiB per connection: {met}")
    return 1 if problems else 0


if __name__ == "__main__":
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    sys.exit(main())
