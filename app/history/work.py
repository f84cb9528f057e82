"""Review's CPU work off the event loop: one worker process, a bounded queue.

Equities can take seconds of CPU (an exact hi-lo enumeration, a Monte Carlo over unknown
hands); in the server's process, even on a thread, that would compete with the event loop
for the interpreter. They run in a separate process, at most `QUEUE` jobs waiting or
running per server process: beyond that a request is told `busy` (and asks again later)
instead of queueing without bound. The same job asked for twice while it runs is one job
(`run`, keyed); its CPU part goes to the process (`call`).
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
from collections.abc import Awaitable, Callable, Hashable
from concurrent.futures import ProcessPoolExecutor
from typing import Any, TypeVar

from app.children import BACKGROUND, watch_parent

T = TypeVar("T")

#: jobs waiting or running at once
QUEUE = 8


class Busy(Exception):
    """The queue is full: ask again later."""


class Workers:
    def __init__(self, processes: int = 1, queue: int = QUEUE) -> None:
        self.processes = processes
        self.queue = queue
        self._pool: ProcessPoolExecutor | None = None
        self._running: dict[Hashable, asyncio.Future[Any]] = {}

    def _executor(self) -> ProcessPoolExecutor:
        if self._pool is None:
            # spawn: a clean interpreter (a fork of a process with an event loop, threads
            # and open sockets is not one); niced (`watch_parent`): an equity yields the CPU
            # to the server's event loop
            context = multiprocessing.get_context("spawn")
            self._pool = ProcessPoolExecutor(self.processes, mp_context=context,
                                             initializer=watch_parent,
                                             initargs=(os.getpid(), BACKGROUND))  # fmt: skip
        return self._pool

    def busy(self) -> bool:
        return len(self._running) >= self.queue

    def idle(self) -> bool:
        """No job waits or runs: work nobody asked for yet may start without delaying any."""
        return not self._running

    def running(self, key: Hashable) -> asyncio.Future[Any] | None:
        return self._running.get(key)

    def run(self, key: Hashable, make: Callable[[], Awaitable[T]]) -> asyncio.Future[T]:
        """The job `key`: the one already running for it, else `make()` started. Raises
        `Busy` when `queue` jobs are waiting or running."""
        running = self._running.get(key)
        if running is not None:
            return running
        if self.busy():
            raise Busy("the review worker is busy: ask again in a moment")
        future = asyncio.ensure_future(make())
        self._running[key] = future
        future.add_done_callback(lambda _: self._running.pop(key, None))
        return future

    async def call(self, fn: Callable[..., T], *args: Any) -> T:
        """`fn(*args)` in the worker process (for a job started with `run`)."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor(), fn, *args)

    async def close(self) -> None:
        """Stop: what is stored stays; jobs waiting are dropped."""
        pool, self._pool = self._pool, None
        for future in self._running.values():
            future.cancel()
        if pool is not None:
            # Not waiting: the worker finishes the job in hand (seconds at most) and exits;
            # a stopping server does not wait for an equity nobody will read.
            pool.shutdown(wait=False, cancel_futures=True)


def workers(state: Any) -> Workers:
    """The app's workers (`app.state.review_workers`), made on first use."""
    found: Workers | None = getattr(state, "review_workers", None)
    if found is None:
        found = state.review_workers = Workers()
    return found
