"""bench/probe.py's probe on a live table page (the benchmark itself is not in `make test`):
every message it times is drawn by a frame, each tagged with whether an animation ran as it
arrived, and the frames it times are presented (their Element Timing entries come back)."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import Browser

from bench.client import random_bot
from bench.probe import DRAIN, still_and_moving, watch
from tests.e2e.conftest import BotFactory, PlayerFactory
from tests.e2e.test_games import new_table

ENOUGH = "() => window.__probe.latency.length >= 30 && window.__probe.presented.length >= 10"


def test_the_probe_times_messages_to_their_frame_and_presentation(
    players: PlayerFactory, bots: BotFactory, browser: Browser, base: str
) -> None:
    host = players("Host")
    host.join()
    code = new_table(host, decision_time=5, seats=3, buy_in_max=10_000, buy_in_min=40)
    watcher = watch(browser, base, code, "probe")  # its own context: the probe stays in it
    try:
        watcher.page.evaluate("() => { window.__probe.on = true; }")
        for i in range(3):
            bots(f"Bot{i}", random_bot(i)).start(code, i, 1_000)
        watcher.page.wait_for_function(ENOUGH, timeout=120_000)
        got: dict[str, Any] = watcher.page.evaluate(DRAIN)
    finally:
        watcher.context.close()
    n = len(got["latency"])
    assert n >= 30 and len(got["wait"]) == len(got["own"]) == len(got["moving"]) == n
    assert all(x >= 0 for x in got["latency"] + got["wait"] + got["own"] + got["presented"])
    # A message is drawn no sooner than its frame began.
    assert all(lat >= w for lat, w in zip(got["latency"], got["wait"], strict=True))
    assert len(got["presented"]) == len(got["presentedMoving"]) >= 10
    assert all(isinstance(m, bool) for m in got["moving"] + got["presentedMoving"])
    still, moving = still_and_moving(got["latency"], got["moving"])
    assert len(still) + len(moving) == n
    assert not watcher.errors, watcher.errors
