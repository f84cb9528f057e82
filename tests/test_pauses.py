"""app/pauses.py: the process's pauses reach /metrics' histograms."""

from __future__ import annotations

import asyncio
import gc
import time

from app import metrics
from app.pauses import Pauses


def _count(h: metrics.Histogram) -> int:
    return sum(h.counts)


def _at_least(h: metrics.Histogram, seconds: float) -> int:
    """Observations in buckets whose lower bound is >= `seconds`."""
    lows = (0.0, *h.bounds)
    return sum(c for low, c in zip(lows, h.counts, strict=True) if low >= seconds)


async def test_a_blocked_loop_and_each_collection_are_counted() -> None:
    pauses = Pauses(period=0.1)
    late_before = _at_least(metrics.LOOP_LATE, 0.1)
    young, full = _count(metrics.GC_YOUNG), _count(metrics.GC_FULL)
    pauses.start()
    try:
        await asyncio.sleep(0)  # the timer is asked for now + 0.1 s
        time.sleep(0.35)  # the loop blocked: the timer wakes >= 0.25 s late
        deadline = asyncio.get_running_loop().time() + 30
        while _at_least(metrics.LOOP_LATE, 0.1) == late_before:
            assert asyncio.get_running_loop().time() < deadline
            await asyncio.sleep(0.05)
        gc.collect(0)
        gc.collect()
    finally:
        await pauses.stop()
    assert _count(metrics.GC_YOUNG) >= young + 1
    assert _count(metrics.GC_FULL) >= full + 1
    # stopped: no more observations
    counted = _count(metrics.GC_FULL)
    gc.collect()
    assert _count(metrics.GC_FULL) == counted


async def test_metrics_show_the_pauses() -> None:
    text = await metrics.render(object())
    for name in ("omaha_gc_young_pause_seconds", "omaha_gc_full_pause_seconds",
                 "omaha_loop_late_seconds"):  # fmt: skip
        assert f"# TYPE {name} histogram" in text
