"""Where a client's CPU goes while a table plays, by thread, from a Chrome trace:
``.venv/bin/python -m bench.trace_threads SPEC [--hands 6] [--locked]``.

SPEC is a version of static/ as `bench.client_ab` takes it (a git revision, a directory, or
``.``). One server and one six-handed table of `bench.client`'s bots (think 50 ms); a
spectator's page in a Chromium with the frame rate unlocked (``--locked``: 60 Hz) is traced
over ``--hands`` hands. Printed: each busy thread's CPU (the renderer's main and compositor
threads, raster workers, the display compositor in the GPU process) in % of a core; the
display compositor's draws a second and their cost; the page's frames that render and those
besides (animations), and how long a frame asked for by the page waits for its callback,
while chips fly and otherwise. Used to find what the chips in flight cost
(docs/performance.md, "Chips in flight, traced").
"""

from __future__ import annotations

import argparse
import bisect
import collections
import contextlib
import json
import tempfile
from pathlib import Path
from typing import Any

from playwright.sync_api import sync_playwright

from bench.chromium import UNLOCKED, trace_hands
from bench.client import PACE, random_bot
from bench.client_ab import site_root
from bench.probe import wait_hands, watch
from tests.e2e import harness
from tests.e2e.harness import Bot, Player, launch, server
from tests.e2e.test_games import new_table

CATEGORIES = [
    "devtools.timeline", "disabled-by-default-devtools.timeline", "blink", "blink.animations",
    "cc", "viz", "gpu", "toplevel", "benchmark",
]  # fmt: skip
BUSY = ("CrRendererMain", "Compositor", "ThreadPoolForegroundWorker", "VizCompositorThread")


def trace(spec: str, hands: int, locked: bool, path: Path) -> float:
    """Trace `hands` hands of a table served with `spec`'s static/; the seconds traced."""
    with contextlib.ExitStack() as stack, sync_playwright() as pw:
        browser = launch(pw) if locked else launch(pw, *UNLOCKED)
        tmp = Path(stack.enter_context(tempfile.TemporaryDirectory()))
        here, harness.ROOT = harness.ROOT, site_root(spec, tmp)
        try:
            base = stack.enter_context(
                server(tmp, BETWEEN_HANDS="0", AWAY_GRACE="3600", WS_RATE="1000", WS_BURST="1000")
            )
        finally:
            harness.ROOT = here
        host = Player(browser, base, "Host")
        host.join()
        code = new_table(host, decision_time=5, seats=6, buy_in_max=10_000, buy_in_min=40)
        PACE["think"] = 0.05
        bots = [Bot(base, f"Bot{i}", random_bot(i)) for i in range(6)]
        for i, bot in enumerate(bots):
            bot.start(code, i, 10_000)
        page = watch(browser, base, code, "unlocked").page
        wait_hands(page, 2)  # past the first hands' joins
        seconds = trace_hands(browser, page, path, CATEGORIES, hands)
        for bot in bots:
            bot.close()
    return seconds


def report(path: Path, seconds: float) -> None:
    events = json.loads(path.read_text())
    events = events["traceEvents"] if isinstance(events, dict) else events
    names = {
        (e["pid"], e["tid"]): e["args"]["name"] for e in events if e.get("name") == "thread_name"
    }
    spans = [e for e in events if e.get("ph") == "X"]

    def thread(e: dict[str, Any]) -> str | None:
        return names.get((e["pid"], e["tid"]))

    cpu: collections.Counter[str] = collections.Counter()
    for e in spans:
        name = thread(e)
        if "toplevel" in e.get("cat", "") and name in BUSY:
            cpu[name] += e.get("tdur", e["dur"]) / 1000
    print(f"{seconds:.1f} s traced; CPU, % of a core:")
    for name in BUSY:
        print(f"  {name:28} {cpu[name] / 10 / seconds:5.1f}")
    draws = [e for e in spans if e["name"] == "Display::DrawAndSwap"]
    if draws:
        each = sum(e.get("tdur", e["dur"]) for e in draws) / 1000 / len(draws)
        print(f"display compositor: {len(draws) / seconds:.0f} draws a second, {each:.2f} ms each")
    main = sorted((e for e in spans if thread(e) == "CrRendererMain"), key=lambda e: e["ts"])
    fired = sorted(e["ts"] for e in main if e["name"] == "FireAnimationFrame")
    renders = others = 0
    for f in (e for e in main if e["name"] == "ProxyMain::BeginMainFrame"):
        i = bisect.bisect_left(fired, f["ts"])
        if i < len(fired) and fired[i] <= f["ts"] + f["dur"]:
            renders += 1
        else:
            others += 1
    print(f"page frames a second: {renders / seconds:.1f} render, {others / seconds:.1f} besides")
    asked = [e["ts"] for e in events if e.get("name") == "RequestAnimationFrame"]
    print("a frame asked for -> its callback, p50 / p95 ms:", waits(events, asked, fired))


def waits(events: list[Any], asked: list[int], fired: list[int]) -> str:
    """p50 / p95 of the wait from each requestAnimationFrame to the next callback, while a
    chips' animation runs and otherwise."""
    begun: dict[str, int] = {}
    flying: list[tuple[int, int]] = []
    for e in events:
        if e.get("name") != "Animation" or e["ph"] not in "be":
            continue
        key = e["id2"]["local"]
        if e["ph"] == "b" and "chips" in str(e["args"].get("data", {}).get("displayName", "")):
            begun[key] = e["ts"]
        elif e["ph"] == "e" and key in begun:
            flying.append((begun.pop(key), e["ts"]))
    during: list[float] = []
    other: list[float] = []
    for r in asked:
        i = bisect.bisect_left(fired, r)
        if i < len(fired):
            inside = any(a <= r <= b for a, b in flying)
            (during if inside else other).append((fired[i] - r) / 1000)

    def q(xs: list[float], p: float) -> float:
        return sorted(xs)[int(p * len(xs))] if xs else float("nan")

    return (
        f"during a flight {q(during, 0.5):.1f} / {q(during, 0.95):.1f} ({len(during)}),"
        f" otherwise {q(other, 0.5):.1f} / {q(other, 0.95):.1f} ({len(other)})"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("spec", help="a git revision, a directory, or '.'")
    parser.add_argument("--hands", type=int, default=6)
    parser.add_argument("--locked", action="store_true", help="the 60 Hz frame clock")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "trace.json"
        seconds = trace(args.spec, args.hands, args.locked, path)
        report(path, seconds)


if __name__ == "__main__":
    main()
