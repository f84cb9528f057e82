"""The process's pauses, for `/metrics`: the two things that stop every table at once.

- Each garbage collection's time, young (generations 0 and 1) and full (2) apart
  (`gc.callbacks`): a full one walks every object made since start-up (`app.__main__`
  freezes what start-up made).
- The event loop's lateness: a timer asks to wake every `PERIOD` and records by how much it
  overshot. A timer is late by what ran before it (callbacks, collections, a blocking call),
  so the figures are what any event (an action, a commit's answer) waits at a moment picked
  at random; uvloop's timers have 1 ms resolution, so under ~1 ms reads as noise.
"""

from __future__ import annotations

import asyncio
import gc
import time
from typing import Any

from app import metrics

#: seconds between the lateness timer's wake-ups (a sleeping task: no cost worth naming)
PERIOD = 0.1


class _Collections:
    """A `gc.callbacks` entry that times each collection."""

    def __init__(self) -> None:
        self._began = 0.0

    def __call__(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self._began = time.perf_counter()
            return
        took = time.perf_counter() - self._began
        (metrics.GC_FULL if info.get("generation") == 2 else metrics.GC_YOUNG).observe(took)


async def _lateness(period: float) -> None:
    loop = asyncio.get_running_loop()
    while True:
        asked = loop.time() + period
        await asyncio.sleep(period)
        metrics.LOOP_LATE.observe(max(0.0, loop.time() - asked))


class Pauses:
    """Watching from `start` to `stop` (the app's lifespan)."""

    def __init__(self, period: float = PERIOD) -> None:
        self.period = period
        self._callback = _Collections()
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        gc.callbacks.append(self._callback)
        self._task = asyncio.get_running_loop().create_task(_lateness(self.period))

    async def stop(self) -> None:
        if self._callback in gc.callbacks:
            gc.callbacks.remove(self._callback)
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
            self._task = None
