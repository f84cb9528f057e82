"""app/__main__.py's collector thresholds (`tune_gc`): the young generation stays small when
the objects that die are old ones.

A young collection runs when allocations minus deallocations pass the first threshold. A
server at a human pace makes bursts of short-lived objects (an action's events, views,
futures) and a few that wait (a timer, a hand's records), while older waiting objects die:
the count rises by a burst and falls back, and with a threshold above the bursts it never
fires while the waiting objects pile up in the young generation, for one long collection.
"""

from __future__ import annotations

import gc
import random
from collections import deque
from typing import Any

from app.__main__ import GC_THRESHOLDS

#: the thresholds before: bursts under 1,000 never fired a collection
BEFORE = (1_000, 10, 1_000)


def young_peak(thresholds: tuple[int, int, int], ticks: int = 20_000) -> int:
    """The most objects in the young generation, at any collection's start or at the end,
    under a seeded load of bursts (up to 200 short-lived objects), two survivors a tick and
    two old objects dying."""
    rng = random.Random(29)
    peaks: list[int] = []

    def watch(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            peaks.append(len(gc.get_objects(0)))

    waiting: deque[list[int]] = deque([] for _ in range(20_000))
    saved = gc.get_threshold()
    gc.collect()
    gc.freeze()  # as `tune_gc`: what exists now is never scanned
    gc.set_threshold(*thresholds)
    gc.callbacks.append(watch)
    try:
        for _ in range(ticks):
            burst: list[list[object]] = [[] for _ in range(rng.randrange(200))]
            waiting.append([])
            waiting.append([])
            del burst
            waiting.popleft()
            waiting.popleft()
        peaks.append(len(gc.get_objects(0)))
    finally:
        gc.callbacks.remove(watch)
        gc.set_threshold(*saved)
        gc.unfreeze()
    return max(peaks)


def test_young_collections_stay_small_when_old_objects_die() -> None:
    tuned, before = young_peak(GC_THRESHOLDS), young_peak(BEFORE)
    assert before >= 15_000, before  # the pile-up: every object still waiting (20,000)
    assert tuned < 2_000, (tuned, before)  # (316 on CPython 3.11)


def test_full_collections_stay_rare() -> None:
    # a full collection walks the whole heap (0.5-1.5 s at 3,000 connections): at least as
    # many net allocations between two of them as before
    first, second, third = GC_THRESHOLDS
    assert first * second * third >= BEFORE[0] * BEFORE[1] * BEFORE[2]
