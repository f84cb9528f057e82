"""The suite's waits: for a condition, never for a while.

- `until`: what makes the condition true runs on this event loop (a table on a fake clock):
  checked at each turn of the loop, bounded in turns, not in time.
- `within`: what makes it true runs on real time elsewhere (leases, Redis, a database, another
  process's clients): polled; `seconds` only keeps a broken test from hanging and is no measure
  of speed (a test that means a bound on time says so in its own assertion). The condition may
  be a coroutine function (a database read).
- `within_sync`: the same from a thread that may block (Playwright's sync API, a server thread).

Every wait fails with what it waited for (`what`, or the condition's last value when it is
one worth printing), never with a bare timeout.
"""

from __future__ import annotations

import asyncio
import inspect
import time
from collections.abc import Callable
from typing import Any


async def until(predicate: Callable[[], Any], turns: int = 100_000, what: str = "") -> None:
    for _ in range(turns):
        if predicate():
            return
        await asyncio.sleep(0)
    raise AssertionError(f"{what or 'the condition'} never held in {turns} turns of the loop")


async def within(
    predicate: Callable[[], Any], seconds: float = 60.0, every: float = 0.01, what: str = ""
) -> Any:
    """Wait until `predicate()` (awaited if it returns an awaitable) is truthy; return it."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    while True:
        value = predicate()
        if inspect.isawaitable(value):
            value = await value
        if value:
            return value
        if loop.time() >= deadline:
            raise AssertionError(f"{what or 'the condition'} did not hold within {seconds} s")
        await asyncio.sleep(every)


def within_sync(
    condition: Callable[[], Any], seconds: float = 60.0, every: float = 0.05, what: str = ""
) -> Any:
    """`within` for a thread that may block: the condition is asked every `every` seconds."""
    deadline = time.monotonic() + seconds
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() >= deadline:
            raise AssertionError(f"{what or 'the condition'} did not hold within {seconds} s")
        time.sleep(every)
