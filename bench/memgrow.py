"""What hands leave behind in a server: `python -m app serve` (SQLite, MEMORY_TRACE=1,
app/memtrace.py) under bench/load.py's bots at a human pace for a long window, with a
snapshot every `--every` seconds; each step's growth (RSS, traced, live objects by type) per
hand played in it, and tracemalloc's top groups between the last snapshots. A bounded
structure fills and stops (its step's growth falls to ~0); a leak grows the same every step.

``.venv/bin/python bench/memgrow.py --tables 30 --seconds 480``   # ~10 minutes on two cores

The store's write deadline is raised (STORE_TIMEOUT=60): tracing slows the server, and a
table whose write missed the deadline would restart and close its connections.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench import fleet, load, memory, runs  # noqa: E402
from bench.memtrace import Snapper, report  # noqa: E402


def hands_played(folder: Path) -> int:
    """Hands stored so far (a `hands` row each, from its deal), read from the database."""
    import sqlite3

    db = folder / "omaha.sqlite3"
    with contextlib.closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=30)) as c:
        return int(c.execute("select count(*) from hands").fetchone()[0])


def stopped(event: threading.Event) -> int:
    event.set()
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--tables", type=int, default=30)
    parser.add_argument("--seconds", type=float, default=480.0, help="human-pace window")
    parser.add_argument("--every", type=float, default=60.0, help="seconds between snapshots")
    parser.add_argument("--bots", type=int, default=1)
    parser.add_argument("--no-trace", dest="trace", action="store_false",
                        help="no tracemalloc: RSS and live objects by type only")  # fmt: skip
    args = parser.parse_args(argv)
    fleet.raise_open_files()
    with contextlib.suppress(OSError):
        os.sched_setaffinity(0, fleet.bot_cpus())
    os.environ["MEMORY_TRACE"] = "1"
    os.environ["MEMORY_TRACE_FRAMES"] = "8" if args.trace else "0"
    os.environ["STORE_TIMEOUT"] = "60"
    with memory.sqlite_server() as (target, pids):
        environ = Path(f"/proc/{pids[0]}/environ").read_bytes().split(b"\0")
        entry = next(e for e in environ if e.startswith(b"DATA_DIR="))
        folder = Path(entry.split(b"=", 1)[1].decode())
        snap = Snapper(pids[0], folder)
        hands: dict[int, int] = {}
        stop = threading.Event()

        def take(name: str) -> None:
            snap(name)
            hands[snap.n] = hands_played(folder)

        def go() -> int:
            take("go")

            def every() -> None:
                start = time.monotonic()
                k = 1
                while not stop.wait(max(0.0, start + k * args.every - time.monotonic())):
                    if k * args.every > args.seconds - 2:
                        return
                    take(f"{k * args.every:.0f} s")
                    k += 1

            threading.Thread(target=every, daemon=True).start()
            return 0

        result = runs.drive("server", target, pids, args.tables, args.seconds, load.HUMAN_THINK,
                            args.bots, on_go=go, on_stop=lambda: stopped(stop))  # fmt: skip
        take("end")
        c = result.counters
        print(f"{args.tables} tables, {c.connections} connections, {c.hands} hands, "
              f"{c.actions} actions, checks {'ok' if runs.ok(result) else 'FAILED'}")  # fmt: skip
        print("\nKiB per step: RSS = anonymous (private) + file-backed, of which the hand "
              "evaluator's tables (_pheval); traced by tracemalloc; and per hand")  # fmt: skip
        print(f"{'step':<10} {'hands':>6} {'RSS':>7} {'anon':>7} {'file':>7} {'_pheval':>8} "
              f"{'traced':>7} {'anon/hand':>9} {'traced/hand':>11}")  # fmt: skip
        for n in range(2, snap.n + 1):
            fa, fb = snap.facts(n - 1), snap.facts(n)
            h = max(1, hands[n] - hands[n - 1])
            sa, sb = fa["status_kib"], fb["status_kib"]
            d = {k: sb[k] - sa[k] for k in sb}
            ev = fb["evaluator_kib"] - fa["evaluator_kib"]
            traced = (fb["traced"] - fa["traced"]) / 1024
            print(f"{snap.names[n]:<10} {hands[n] - hands[n - 1]:>6} {d['VmRSS']:>+7} "
                  f"{d['RssAnon']:>+7} {d['RssFile']:>+7} {ev:>+8} {traced:>+7.0f} "
                  f"{d['RssAnon'] / h:>+9.2f} {traced / h:>+11.2f}")  # fmt: skip
        end = snap.facts(snap.n)
        print(f"at the end: RSS {end['rss_kib']} KiB, evaluator's tables resident "
              f"{end['evaluator_kib']} KiB")  # fmt: skip
        last = snap.n - 1  # the window's last (the end's is after the bots left)
        half = max(2, last // 2)
        report(snap, half, last, max(1, hands[last] - hands[half]), "hand")
    return 0


if __name__ == "__main__":
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    sys.exit(main())
