"""The table clock: the one source of time for a table actor (its `now`, its timers, its
store deadlines, the pause before it closes its sockets). `RealClock` is the wall clock on
the event loop; a test passes a fake one (tests/tables/harness.py `FakeClock`) and moves it
on itself, so no test of a table waits for time to pass.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from typing import Any, Protocol


class Handle(Protocol):
    def cancel(self) -> None: ...


class Clock(Protocol):
    def now(self) -> float:
        """Seconds (wall clock: an away grace outlasts a restart)."""
        ...

    def call_at(self, when: float, callback: Callable[[], None]) -> Handle:
        """Call `callback` in the event loop once `now()` reaches `when` (soon if past)."""
        ...

    def timeout(self, seconds: float) -> AbstractAsyncContextManager[Any]:
        """`asyncio.timeout` on this clock."""
        ...

    async def sleep(self, seconds: float) -> None: ...


class RealClock:
    def now(self) -> float:
        return time.time()

    def call_at(self, when: float, callback: Callable[[], None]) -> Handle:
        return asyncio.get_running_loop().call_later(max(0.0, when - time.time()), callback)

    def timeout(self, seconds: float) -> AbstractAsyncContextManager[Any]:
        return asyncio.timeout(seconds)

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(seconds)
