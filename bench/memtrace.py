"""Where a server's memory per connection goes: tracemalloc snapshots of `python -m app serve`
(MEMORY_TRACE=1, app/memtrace.py) diffed between the phases of bench/memory.py's human-pace
run, at a scale where tracemalloc's overhead is tolerable.

``.venv/bin/python bench/memtrace.py --tables 150``        # ~3 minutes on two cores

Snapshots: 1 before anything; 2 after a REST burst alone (6 sessions and one table per
table, as bench/load.py sets up, no WebSocket); 3 when bench/load.py's bots (their own
burst of sessions and tables, then 6 WebSockets a table, seated) are all connected, at the
start of the human-pace window; 4 at a third of the window; 5 at its end; 6 just after, with
a full collection first (what it frees is garbage the tuned collector held). Each diff:
tracemalloc's total beside RSS (the rest is allocator arenas, fragmentation, C buffers), and
the top groups by traceback.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import signal
import sys
import threading
import time
import tracemalloc
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench import bots, fleet, load, runs  # noqa: E402

TOP = 15


def ask_snapshot(pid: int, folder: Path, n: int, collect: bool = False) -> dict[str, Any]:
    """Signal the server `pid` for its snapshot `n` (SIGUSR2: after a full collection) and
    wait, at most 300 s, for its facts in `folder`."""
    os.kill(pid, signal.SIGUSR2 if collect else signal.SIGUSR1)
    done = folder / f"memtrace-{n}.json"
    deadline = time.monotonic() + 300
    while not done.exists():
        if time.monotonic() > deadline:
            raise RuntimeError(f"no snapshot {n}")
        time.sleep(0.1)
    return json.loads(done.read_text())  # type: ignore[no-any-return]


class Snapper:
    def __init__(self, pid: int, folder: Path) -> None:
        self.pid, self.folder, self.n = pid, folder, 0
        self.lock = threading.Lock()
        self.names: dict[int, str] = {}

    def __call__(self, name: str, collect: bool = False) -> int:
        with self.lock:
            self.n += 1
            n = self.n
            self.names[n] = name
            facts = ask_snapshot(self.pid, self.folder, n, collect)
            print(f"snapshot {n} ({name}): RSS {facts['rss_kib'] / 1024:.1f} MiB, traced "
                  f"{facts['traced'] / 2**20:.1f} MiB, gc counts {facts['gc_count']}, took "
                  f"{facts['seconds']:.1f} s", flush=True)  # fmt: skip
            return 0

    def facts(self, n: int) -> dict[str, Any]:
        return json.loads((self.folder / f"memtrace-{n}.json").read_text())  # type: ignore[no-any-return]

    def snapshot(self, n: int) -> tracemalloc.Snapshot:
        return tracemalloc.Snapshot.load(str(self.folder / f"memtrace-{n}.pickle"))


async def rest_burst(base: str, tables: int) -> None:
    """Six sessions and one table per table over REST, as bench/load.py's set-up does."""
    import httpx

    limit = asyncio.Semaphore(4)  # SQLite's one writer, slowed by tracing

    async def one(index: int) -> None:
        async with limit, httpx.AsyncClient(base_url=base, timeout=60) as http:
            tokens = []
            for i in range(bots.SEATS):
                http.cookies.clear()
                r = await http.post("/api/session", json={"name": f"rest{index}-{i}"})
                if r.status_code != 200:
                    raise RuntimeError(f"session: {r.status_code} {r.text[:300]}")
                tokens.append(r.cookies["omaha_session"])
            http.cookies.clear()
            r = await http.post("/api/tables", json={"name": f"rest {index}", "game": "omaha",
                                "seats": bots.SEATS, "buy_in_max": bots.BUY_IN},
                                cookies={"omaha_session": tokens[0]})  # fmt: skip
            r.raise_for_status()

    await asyncio.gather(*(one(i) for i in range(tables)))


def short(frame: tracemalloc.Frame) -> str:
    name = frame.filename
    for cut in ("site-packages/", str(ROOT) + "/", "/lib/python3"):
        if cut in name:
            name = name.split(cut, 1)[1]
    return f"{name}:{frame.lineno}"


def report(snapper: Snapper, a: int, b: int, per: int, what: str) -> None:
    fa, fb = snapper.facts(a), snapper.facts(b)
    rss = (fb["rss_kib"] - fa["rss_kib"]) * 1024
    traced = fb["traced"] - fa["traced"]
    print(f"\n== {snapper.names[a]} -> {snapper.names[b]}: RSS {rss / 2**20:+.1f} MiB, traced "
          f"{traced / 2**20:+.1f} MiB, RSS beyond traced {(rss - traced) / 2**20:+.1f} MiB; "
          f"per {what} ({per}): RSS {rss / 1024 / max(1, per):+.1f} KiB, traced "
          f"{traced / 1024 / max(1, per):+.1f} KiB")  # fmt: skip
    ta, tb = fa["types"], fb["types"]
    assert isinstance(ta, dict) and isinstance(tb, dict)
    diffs = sorted(((tb.get(k, 0) - ta.get(k, 0)) / max(1, per), k) for k in set(ta) | set(tb))
    print(f"  live objects {sum(d for d, _ in diffs):+.1f} per {what}: " + ", ".join(
        f"{k} {d:+.2f}" for d, k in reversed(diffs[-TOP:]) if d > 0))  # fmt: skip
    garbage = fb.get("garbage")
    if isinstance(garbage, dict) and garbage:
        top = sorted(((n, k) for k, n in garbage.items()), reverse=True)[:TOP]
        print(f"  freed by the collection ({fb['freed_objects']} objects): " + ", ".join(
            f"{k} {n}" for n, k in top))  # fmt: skip
    if not (snapper.folder / f"memtrace-{a}.pickle").exists():
        return
    ignore = [tracemalloc.Filter(False, tracemalloc.__file__),
              tracemalloc.Filter(False, "<frozen importlib._bootstrap*>")]  # fmt: skip
    sa = snapper.snapshot(a).filter_traces(ignore)
    sb = snapper.snapshot(b).filter_traces(ignore)
    for stat in sb.compare_to(sa, "traceback")[:TOP]:
        frames = [short(f) for f in stat.traceback if "asyncio/" not in f.filename][-6:]
        print(f"{stat.size_diff / 1024:+9.0f} KiB {stat.count_diff:+8d} blocks "
              f"({stat.size_diff / max(1, per):+7.0f} B per {what}): "
              f"{' < '.join(reversed(frames))}")  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--tables", type=int, default=150)
    parser.add_argument("--seconds", type=float, default=60.0, help="human-pace window")
    parser.add_argument("--bots", type=int, default=2)
    parser.add_argument("--no-trace", dest="trace", action="store_false",
                        help="no tracemalloc: RSS and live objects by type only")  # fmt: skip
    args = parser.parse_args(argv)
    fleet.raise_open_files()
    with contextlib.suppress(OSError):
        os.sched_setaffinity(0, fleet.bot_cpus())
    conns = args.tables * bots.SEATS
    os.environ["MEMORY_TRACE"] = "1"  # bench/load.py's server_env passes it on
    os.environ["MEMORY_TRACE_FRAMES"] = "8" if args.trace else "0"
    with contextlib.ExitStack() as stack:
        # PostgreSQL (fsync off, as the tests run it): SQLite's one writer, slowed by tracing,
        # answers "database is locked" to the bots' burst of sessions.
        backing = stack.enter_context(fleet.backing_servers(durable=False))
        target, pids = stack.enter_context(fleet.table_servers(backing, "omaha_memtrace", False))
        environ = Path(f"/proc/{pids[0]}/environ").read_bytes().split(b"\0")
        entry = next(e for e in environ if e.startswith(b"DATA_DIR="))
        folder = Path(entry.split(b"=", 1)[1].decode())
        folders = [folder]
        snap = Snapper(pids[0], folder)
        snap("start")
        try:
            asyncio.run(rest_burst(target.bases[0], args.tables))
        except Exception:
            print((folders[0] / "server.log").read_text()[-6000:], file=sys.stderr)
            raise
        snap("REST burst")
        timers: list[threading.Timer] = []

        def go() -> int:
            snap("connected")
            for at, name in ((args.seconds / 3, "a third in"), (args.seconds - 3, "window end")):
                timers.append(threading.Timer(at, snap, (name,)))
                timers[-1].start()
            return 0

        try:
            result = runs.drive(
                "server",
                target,
                pids,
                args.tables,
                args.seconds,
                load.HUMAN_THINK,
                args.bots,
                on_go=go,
            )
        except Exception:
            print((folders[0] / "server.log").read_text()[-6000:], file=sys.stderr)
            raise
        for t in timers:
            t.join()
        snap("after, collected", collect=True)
        c = result.counters
        print(f"{args.tables} tables, {c.connections} connections, {c.hands} hands, "
              f"{c.actions} actions, checks {'ok' if runs.ok(result) else 'FAILED'}")  # fmt: skip
        report(snap, 1, 2, args.tables, "table (REST only)")
        report(snap, 2, 3, conns, "connection (REST burst + connect + sit)")
        report(snap, 3, 4, max(1, c.hands), "hand")
        report(snap, 4, 5, max(1, c.hands), "hand")
        report(snap, 5, 6, conns, "connection (freed by a full collection)")
        report(snap, 1, 5, conns, "connection (all)")
    return 0


if __name__ == "__main__":
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    sys.exit(main())
