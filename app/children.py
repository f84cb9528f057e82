"""Worker processes that end with their server.

A server killed with SIGKILL (the OOM killer, `kill -9`, a crash test) cannot stop its pool:
a spawned worker is left to init and waits on its queue for ever (one was found still running
after a test run). Each worker watches its parent from a daemon thread and exits once the
parent is gone; `os.getppid()` is asked once a second, which costs nothing measurable.
"""

from __future__ import annotations

import os
import threading
import time

#: seconds between two looks at the parent
EVERY = 1.0
#: a worker's niceness: its long computations (an equity, a deal's figures) yield the CPU to
#: the server's event loop, which shares the cores (at full six-seat tables the review worker
#: computing all-in equities at normal priority made the loop late by ~40 ms at p99)
BACKGROUND = 10


def watch_parent(parent: int, nice: int = BACKGROUND) -> None:
    """A pool's `initializer`: exit when the process `parent` (the server) is gone; `nice`
    lowers the worker's priority so that a long computation yields to the server."""
    if nice:
        os.nice(nice)

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(EVERY)
        os._exit(0)  # nothing to flush: results go only to the parent that is gone

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()
