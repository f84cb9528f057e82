"""A deal's figures (the chip chop and ICM, in whole units) for the stacks of the players left,
computed once per change of stacks and never on the event loop when they cost more than about
a millisecond: exact ICM for ten players and ten paid places is most of a second of CPU, so it
runs in one worker process shared by the server's tournaments (started at the first need)."""

from __future__ import annotations

import asyncio
import multiprocessing
import os
from concurrent.futures import BrokenExecutor, ProcessPoolExecutor

from app.children import BACKGROUND, watch_parent
from app.tables.errors import TableError
from app.tournaments.icm import chip_chop, cost, icm, whole

#: at most this many steps (`icm.cost`) are computed at once, on the loop (about a millisecond)
INLINE_COST = 100

Stacks = tuple[int, ...]
Deal = tuple[tuple[int, ...], tuple[int, ...]]  # chip chop, ICM (whole units, in stack order)

_pool: ProcessPoolExecutor | None = None


def compute(stacks: Stacks, prizes: Stacks) -> Deal:
    """The figures themselves (in the worker, or at once when cheap)."""
    return tuple(whole(chip_chop(stacks, prizes))), tuple(whole(icm(stacks, prizes)))


def _worker() -> ProcessPoolExecutor:
    global _pool
    if _pool is None:
        # spawn, not fork: the server's process has threads (database drivers) and an event loop
        # and niced: a long computation yields the CPU to the server's own process
        context = multiprocessing.get_context("spawn")
        _pool = ProcessPoolExecutor(1, mp_context=context, initializer=watch_parent,
                                    initargs=(os.getpid(), BACKGROUND))  # fmt: skip
    return _pool


def shutdown() -> None:
    """Stop the worker (the server stops); the next need starts another."""
    global _pool
    pool, _pool = _pool, None
    if pool is not None:
        pool.shutdown(wait=False, cancel_futures=True)


class Figures:
    """The figures of one tournament's latest stacks: one computation per change of stacks,
    shared by every request that asks meanwhile, and one at a time (a change of stacks while
    one is computed waits for it: the worker's queue holds one per tournament at most)."""

    def __init__(self) -> None:
        self._key: tuple[Stacks, Stacks] | None = None
        self._result: asyncio.Future[Deal] | None = None

    def ready(self, stacks: Stacks, prizes: Stacks) -> Deal | None:
        """The figures of these stacks if they are known now (else they are started)."""
        future = self._start(stacks, prizes)
        if future is not None and future.done() and _usable(future):
            return future.result()
        return None

    async def of(self, stacks: Stacks, prizes: Stacks) -> Deal:
        while (future := self._start(stacks, prizes)) is None:
            assert self._result is not None
            await asyncio.wait([self._result])  # the older stacks' figures: then these
        try:
            return await asyncio.shield(future)
        except (BrokenExecutor, RuntimeError):  # the worker died: the next ask starts another
            shutdown()
            raise TableError(
                "unavailable", "the deal figures could not be made; try again"
            ) from None

    def _start(self, stacks: Stacks, prizes: Stacks) -> asyncio.Future[Deal] | None:
        key = (stacks, prizes)
        known = self._result
        if known is not None:
            if key == self._key and (not known.done() or _usable(known)):
                return known
            if not known.done():
                return None
        loop = asyncio.get_running_loop()
        future: asyncio.Future[Deal]
        if cost(len(stacks), len(prizes)) <= INLINE_COST:
            future = loop.create_future()
            future.set_result(compute(stacks, prizes))
        else:
            try:
                future = loop.run_in_executor(_worker(), compute, stacks, prizes)
            except (BrokenExecutor, RuntimeError) as error:  # the worker died, or shut down
                shutdown()
                future = loop.create_future()
                future.set_exception(error)
            # read by someone or not, its failure is not logged as never retrieved
            future.add_done_callback(_usable)
        self._key, self._result = key, future
        return future


def _usable(future: asyncio.Future[Deal]) -> bool:
    return not future.cancelled() and future.exception() is None
