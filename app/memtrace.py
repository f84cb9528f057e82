"""Opt-in memory tracing for measuring (MEMORY_TRACE=1; off by default): tracemalloc from
start-up, and a snapshot on a signal, for bench/memtrace.py to diff.

SIGUSR1 writes `<DATA_DIR>/memtrace-<n>.pickle` (tracemalloc's own format: sizes and
tracebacks of file names and line numbers, never the memory's contents, so no card or token)
and then `<DATA_DIR>/memtrace-<n>.json` (RSS, tracemalloc's total, gc counts, live objects
by type) once the snapshot is complete. SIGUSR2 does the same after a full garbage
collection: what it frees was garbage the tuned collector (app/__main__.py's `tune_gc`)
still held, counted by type.
"""

from __future__ import annotations

import asyncio
import gc
import json
import signal
import time
import tracemalloc
from pathlib import Path


def start(frames: int) -> None:
    """Trace allocations with `frames` of traceback each (8 reach our code from uvicorn's
    and asyncio's); 0: none (tracemalloc's own ~16 bytes a block would skew RSS)."""
    if frames:
        tracemalloc.start(frames)


def rss_kib() -> int:
    return status_kib()["VmRSS"]


def status_kib() -> dict[str, int]:
    """VmRSS and its parts, RssAnon (private: the heap, Python's arenas) and RssFile (pages
    of mapped files: the code, and the hand evaluator's lookup tables as they are read)."""
    out = {"VmRSS": 0, "RssAnon": 0, "RssFile": 0}
    for line in Path("/proc/self/status").read_text().splitlines():
        key = line.split(":", 1)[0]
        if key in out:
            out[key] = int(line.split()[1])
    return out


def mapped_kib(part: str) -> int:
    """Resident KiB of the mappings of files whose path contains `part` (/proc/self/smaps)."""
    total, inside = 0, False
    for line in Path("/proc/self/smaps").read_text().splitlines():
        if line[:1] in "0123456789abcdef" and "-" in line.split(" ", 1)[0]:
            inside = part in line
        elif inside and line.startswith("Rss:"):
            total += int(line.split()[1])
    return total


def type_counts(objects: list[object] | None = None) -> dict[str, int]:
    """Live objects the collector tracks (or `objects`), by type name, outside the heap
    frozen at start-up (`tune_gc`): diffed between two snapshots, what each connection or
    hand adds."""
    counts: dict[str, int] = {}
    for obj in gc.get_objects() if objects is None else objects:
        name = type(obj).__qualname__
        if name in ("coroutine", "function", "method", "Task"):  # which ones, not just how many
            inner = obj.get_coro() if isinstance(obj, asyncio.Task) else obj
            name += ":" + getattr(getattr(inner, "__func__", inner), "__qualname__", "?")
        counts[name] = counts.get(name, 0) + 1
    return counts


def install(folder: Path) -> None:
    """Snapshot handlers on the running loop (taken on the loop: nothing else runs meanwhile)."""
    loop = asyncio.get_running_loop()
    count = [0]

    def snap(collect: bool) -> None:
        count[0] += 1
        n = count[0]
        garbage: dict[str, int] = {}
        freed = 0
        if collect:  # what the collection frees, by type: who makes the cycles
            gc.set_debug(gc.DEBUG_SAVEALL)
            try:
                freed = gc.collect()
                garbage = type_counts(gc.garbage)
            finally:
                gc.set_debug(0)
                gc.garbage.clear()
                gc.collect()  # the cycles kept for counting, freed now
        started = time.monotonic()
        if tracemalloc.is_tracing():
            tracemalloc.take_snapshot().dump(str(folder / f"memtrace-{n}.pickle"))
        traced, peak = tracemalloc.get_traced_memory()
        facts = {"n": n, "collected": collect, "freed_objects": freed,
                 "garbage": garbage,
                 "rss_kib": rss_kib(), "status_kib": status_kib(),
                 "evaluator_kib": mapped_kib("_pheval"), "types": type_counts(), "traced": traced,
                 "traced_peak": peak, "gc_count": gc.get_count(),
                 "frozen": gc.get_freeze_count(),
                 "seconds": time.monotonic() - started}  # fmt: skip
        part = folder / f"memtrace-{n}.json.part"
        part.write_text(json.dumps(facts))
        part.rename(folder / f"memtrace-{n}.json")  # the bench waits for this name

    loop.add_signal_handler(signal.SIGUSR1, snap, False)
    loop.add_signal_handler(signal.SIGUSR2, snap, True)
