"""Browser client benchmark: ``.venv/bin/python -m bench.client [--hands 200] [--heap-hands 1000]``
(``--loads 5 --think 50``).

Runs a real server process (SQLite, between hands 0 s) and Debian's Chromium with Playwright,
and prints each figure beside its reference from the same run:

1. First load of a table page on loopback: bytes transferred (compressed, headers included)
   and the time from navigation to the snapshot drawn: the page's first contentful paint,
   which is the table the server drew into it (app/api/first_paint.py), against a one-line
   static file of the same server, navigation to its first paint (the same stamp). Beside
   them, the earlier measure: the client's live view drawn (its modules run) against the
   one-line file's load event. Median of 5 cold loads (a new browser context each: empty
   cache).
2. Rendering: from each WebSocket message's arrival to the end of the first frame that
   re-renders the page after it, paint included (`PROBE`, from outside the page's code),
   p50/p95/max over ``--hands`` hands at a six-handed table of protocol bots that act after
   25-75 ms (``--think``, 0: flat out). A spectator's page watches ``--hands`` hands in a
   Chromium with the frame rate unlocked (`UNLOCKED`: a frame begins as soon as one is asked
   for, so the figure is what the page and the browser cost), then another page as many more
   in a Chromium on its 60 Hz frame clock (as a display shows it): one browser at a time, as
   on a player's computer. With the part spent waiting for the frame to
   begin (the display's share) and the messages drawn later than the first frame that began
   after them ("frames late": the client's promise is every message in the next frame). Beside
   them, each browser's CPU while the table is idle and during the hands (an unlocked browser
   must not draw frames while nothing changes). Both split by whether an animation was running
   as the message arrived (a chip in flight: Chromium's frame clock is then already ticking and
   the frame waits for its next tick; `bench.frame_clock` shows it on a plain page), and
   message -> presented: to the frame's presentation (Element Timing of a 1 px image the probe
   puts in each frame it times: Chromium's display feedback).
3. Memory: the page's JS heap (after a forced garbage collection, over CDP) after 100 hands and
   after ``--heap-hands`` hands of the same session, each the median of five, one per hand.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from playwright.sync_api import Page, sync_playwright

from bench.chromium import UNLOCKED, BrowserCpu, traced_frames
from bench.probe import DRAIN, by_motion, hands_seen, settled_heap, watch
from tests.e2e.harness import Bot, Player, launch, server, settable
from tests.e2e.test_games import new_table

#: the bots' mean time to act, in seconds (0: at once)
PACE = {"think": 0.0}


def random_bot(seed: int) -> Any:
    rng = random.Random(seed)

    def policy(legal: dict[str, Any]) -> dict[str, Any]:
        if PACE["think"]:
            time.sleep(PACE["think"] * (0.5 + rng.random()))
        actions = legal["actions"]
        if "run-twice" in actions:
            return {"action": "run-twice", "agree": rng.random() < 0.5}
        if "show" in actions:
            return {"action": "muck" if "muck" in actions and rng.random() < 0.5 else "show"}
        r = rng.random()
        for kind in ("bet", "raise"):
            if kind in actions and r < 0.2:
                return {"action": kind, "amount": rng.choice([legal["min_to"], legal["pot_to"]])}
        if "check" in actions:
            return {"action": "check"}
        return {"action": "fold" if r < 0.4 else "call"}

    return policy


#: when the element marked `elementtiming="first-paint"` was painted (buffered entries), or
#: -1 if it never was within 5 s (the live view replaced the drawing before its first paint)
ELEMENT_PAINTED = """() => new Promise((resolve) => {
  new PerformanceObserver((list) => {
    const e = list.getEntries().find((x) => x.identifier === 'first-paint');
    if (e) resolve(e.renderTime || e.loadTime);
  }).observe({ type: 'element', buffered: true });
  setTimeout(() => resolve(-1), 5000);
})"""


def transferred(page: Page, url: str) -> tuple[int, float, float]:
    """Navigate; return (bytes over the wire, milliseconds to the first contentful paint,
    milliseconds to the page's own mark: the live view drawn, or the reference's load event)."""
    sizes: list[Any] = []
    page.on("requestfinished", lambda r: sizes.append(r))
    response = page.goto(url, wait_until="load")
    page.wait_for_function("() => performance.getEntriesByName('first-contentful-paint').length")
    painted = page.evaluate(
        "() => performance.getEntriesByName('first-contentful-paint')[0].startTime"
    )
    if "/t/" in url:
        # The server draws the table into the page (app/api/first_paint.py): the snapshot is
        # drawn at the first paint that shows the drawing's last element (Element Timing; the
        # first contentful paint, unless the parser let a part of the page be painted first).
        # The live view replaces it once the modules have run: stamped by the page after that
        # frame (style, layout and paint included).
        assert response is not None and b"data-first-paint" in response.body()
        last = page.evaluate(ELEMENT_PAINTED)
        page.wait_for_function("() => window.__omaha && window.__omaha.drawn")
        mark = page.evaluate("() => window.__omaha.drawn")
        # (never painted: the live view was the first to show the table)
        painted = max(painted, last) if last >= 0 else max(painted, mark)
    else:
        mark = page.evaluate("() => performance.getEntriesByType('navigation')[0].loadEventEnd")
    total = 0
    for request in sizes:
        s = request.sizes()
        total += s["responseBodySize"] + s["responseHeadersSize"]
    return total, float(painted), float(mark)


#: seconds the idle table is watched for each browser's CPU
IDLE_S = 3


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--hands", type=int, default=200)
    parser.add_argument("--heap-hands", type=int, default=1000)
    parser.add_argument("--loads", type=int, default=5)
    parser.add_argument("--think", type=float, default=50, help="the bots' mean time to act, ms")
    parser.add_argument("--trace-hands", type=int, default=5, help="hands traced (unlocked)")
    args = parser.parse_args()
    load_start = os.getloadavg()
    traced: dict[str, Any] = {}
    with (
        tempfile.TemporaryDirectory() as tmp,
        server(
            Path(tmp), BETWEEN_HANDS="0", AWAY_GRACE="3600", WS_RATE="1000", WS_BURST="1000"
        ) as base,
        sync_playwright() as pw,
    ):
        browser = launch(pw)
        host = Player(browser, base, "Host")
        host.join()
        code = new_table(host, decision_time=5, seats=6, buy_in_max=10_000, buy_in_min=40)
        page_html = host.page.request.get(base + "/").text()
        reference = base + page_html.split('rel="icon" href="')[1].split('"')[0]

        # 1. First load, cold (each in a new context: nothing cached), table and reference.
        loads: dict[str, list[tuple[int, float, float]]] = {"table": [], "reference": []}
        for _ in range(args.loads):
            for kind, url in (("reference", reference), ("table", f"{base}/t/{code}")):
                context = browser.new_context()
                context.add_cookies(settable(host.context.cookies()))
                loads[kind].append(transferred(context.new_page(), url))
                context.close()
            print(f"  load {len(loads['table'])} of {args.loads}", file=sys.stderr, flush=True)

        print("  loads done", file=sys.stderr, flush=True)
        # 2 and 3. A session at a six-handed table of bots, watched by a spectator's page in a
        # Chromium with the frame rate unlocked (what the page and browser cost), then by one
        # on the 60 Hz frame clock (as a display shows it): one at a time, as a player's
        # computer runs one browser (watched together, each waited for the other's frames).
        unlocked = launch(pw, *UNLOCKED)
        cpus = {"60 Hz": BrowserCpu(unlocked=False), "unlocked": BrowserCpu(unlocked=True)}
        watchers: dict[str, Player] = {}
        for kind, b in (("60 Hz", browser), ("unlocked", unlocked)):
            watchers[kind] = watch(b, base, code, kind)
        # Idle: the table drawn, no hand (the bots are not seated yet).
        watchers["60 Hz"].page.wait_for_timeout(1000)
        idle = {k: c.seconds() for k, c in cpus.items()}
        time.sleep(IDLE_S)
        idle = {k: (c.seconds() - idle[k]) / IDLE_S for k, c in cpus.items()}
        watchers.pop("60 Hz").context.close()  # back for its own session below

        PACE["think"] = args.think / 1000
        bots = [Bot(base, f"Bot{i}", random_bot(i)) for i in range(6)]
        for i, bot in enumerate(bots):
            bot.start(code, i, 10_000)
        latency: dict[str, list[float]] = {}
        wait: dict[str, list[float]] = {}
        own: dict[str, list[float]] = {}
        late: dict[str, int] = {}
        moving: dict[str, list[bool]] = {}
        presented: dict[str, list[float]] = {}
        presented_moving: dict[str, list[bool]] = {}
        busy: dict[str, float] = {}
        session: dict[str, float] = {}
        heap_100 = heap_end = None
        t0 = time.monotonic()
        for kind in ("unlocked", "60 Hz"):
            if kind not in watchers:
                watchers[kind] = watch(browser, base, code, kind)
            page = watchers[kind].page
            # The 60 Hz page stays on for the heap: after 100 of its hands and at the end.
            hands = args.hands if kind == "unlocked" else max(args.heap_hands, args.hands)
            page.evaluate("() => { window.__probe.on = true; }")
            start, cpu, t = hands_seen(page), cpus[kind].seconds(), time.monotonic()
            latency[kind], wait[kind], own[kind], late[kind] = [], [], [], 0
            moving[kind], presented[kind], presented_moving[kind] = [], [], []
            while True:
                played = hands_seen(page) - start
                if played % 50 == 0:
                    print(f"  {kind}: {played} hands", file=sys.stderr, flush=True)
                if played >= args.hands and kind not in session:
                    page.evaluate("() => { window.__probe.on = false; }")
                    page.wait_for_timeout(100)  # the last frame's stamps
                    session[kind] = time.monotonic() - t
                    busy[kind] = (cpus[kind].seconds() - cpu) / session[kind]
                # Taken out of the page as they come, so they do not weigh on its heap.
                drained = page.evaluate(DRAIN)
                latency[kind] += drained["latency"]
                wait[kind] += drained["wait"]
                own[kind] += drained["own"]
                late[kind] += drained["late"]
                moving[kind] += drained["moving"]
                presented[kind] += drained["presented"]
                presented_moving[kind] += drained["presentedMoving"]
                if kind == "60 Hz" and heap_100 is None and played >= 100:
                    heap_100 = settled_heap(page)
                if played >= hands:
                    break
                if kind == "60 Hz" and kind in session:
                    PACE["think"] = 0  # the rest (for the heap) as fast as the bots go
                for bot in bots:  # a busted bot buys back in
                    stack = page.evaluate(
                        f"() => (window.__omaha.ctrl.state.seats[{bots.index(bot)}] || {{}}).stack"
                    )
                    if stack == 0:
                        bot.ws.send('{"type": "top_up", "amount": 1000}')  # type: ignore[union-attr]
                time.sleep(1)
            if kind == "unlocked":
                if args.trace_hands:
                    traced = traced_frames(unlocked, page, args.trace_hands)
                unlocked.close()
            else:
                heap_end = settled_heap(page)
        elapsed = time.monotonic() - t0
        for bot in bots:
            bot.close()
        browser.close()

    def median(kind: str, i: int) -> float:
        return statistics.median(x[i] for x in loads[kind])

    if args.loads:
        t_bytes, r_bytes = median("table", 0), median("reference", 0)
        t_paint, r_paint = median("table", 1), median("reference", 1)
        t_live, r_load = median("table", 2), median("reference", 2)
        print(
            f"first load   table page {t_bytes / 1024:7.1f} KB   one-line file"
            f" {r_bytes / 1024:5.1f} KB   (target: table <= 150 KB)"
        )
        print(
            f"             first paint (the table, drawn by the server) {t_paint:5.0f} ms"
            f"   one-line file's first paint {r_paint:5.0f} ms   ratio {t_paint / r_paint:.2f}"
            f" (target <= 2)   median of {args.loads} cold loads"
        )
        print(
            f"             live view drawn (modules run) {t_live:5.0f} ms   one-line file's load"
            f" event {r_load:5.0f} ms   ratio {t_live / r_load:.2f}   (the earlier measure)"
        )

    def p(xs: list[float], q: float) -> float:
        return xs[min(len(xs) - 1, int(q * len(xs)))]

    lat = {k: sorted(v) for k, v in latency.items()}
    wt = {k: sorted(v) for k, v in wait.items()}
    n = len(lat["60 Hz"])
    print(
        f"rendering    message -> end of the frame that draws it (paint included), {args.hands}"
        f" hands in each browser, one after the other (bots think {args.think} ms):"
    )
    for kind, label in (("unlocked", "frame rate unlocked"), ("60 Hz", "60 Hz frame clock  ")):
        xs, ws = lat[kind], wt[kind]
        target = "   (target p95 <= 16 ms)" if kind == "unlocked" else ""
        print(
            f"  {label}  p50 {p(xs, 0.5):5.1f}  p95 {p(xs, 0.95):5.1f}  max {xs[-1]:6.1f} ms"
            f"   waiting for the frame to begin p50 {p(ws, 0.5):4.1f}, p95 {p(ws, 0.95):4.1f} ms"
            f"   {len(xs)} messages ({len(xs) / session[kind]:.0f}/s)" + target
        )
    for kind in ("unlocked", "60 Hz"):
        print(f"  {kind}: " + by_motion("message -> frame", latency[kind], moving[kind]))
        print(
            f"  {kind}: "
            + by_motion("message -> presented", presented[kind], presented_moving[kind])
        )
    for kind in ("unlocked", "60 Hz"):
        xs = sorted(own[kind])
        print(
            f"  the page's own work ({kind}): handling the message, then its frame from its"
            f" beginning to its paint: p50 {p(xs, 0.5):4.1f}, p95 {p(xs, 0.95):4.1f} ms"
            "   (target p95 <= 4 ms)"
        )
    print(
        f"  frames late at 60 Hz: {100 * late['60 Hz'] / n:.2f}% of messages ({late['60 Hz']})"
        " not drawn in the first frame that began after them (unlocked:"
        f" {100 * late['unlocked'] / max(1, len(lat['unlocked'])):.2f}%)"
    )
    print(
        f"browsers     CPU, % of one core: idle table {IDLE_S} s: 60 Hz {100 * idle['60 Hz']:.1f},"
        f" unlocked {100 * idle['unlocked']:.1f};  during the hands: 60 Hz"
        f" {100 * busy['60 Hz']:.0f}, unlocked {100 * busy['unlocked']:.0f}"
    )
    if traced and traced["renders"]:

        def ps(xs: list[float]) -> str:
            return f"p50 {p(xs, 0.5):4.1f}, p95 {p(xs, 0.95):4.1f} ms"

        cpu = (sum(traced["renders"]) + sum(traced["others"])) / 10 / traced["seconds"]
        print(
            f"  main-thread CPU per frame (Chrome trace, unlocked, {args.trace_hands} hands):"
            f" frames that render {ps(traced['renders'])}; other frames"
            f" {len(traced['others']) / traced['seconds']:.0f}/s; all frames {cpu:.0f}% of a core"
        )

        def mean(xs: list[float]) -> float:
            return sum(xs) / len(xs)

        print(
            "  a render frame's CPU by part, mean (p95) ms: "
            + ", ".join(
                f"{name} {mean(xs):.2f} ({p(xs, 0.95):.2f})"
                for name, xs in traced["phases"].items()
            )
        )
    if heap_100 is not None and heap_end is not None:  # (under 100 hands: no heap figure)
        print(
            f"memory       JS heap after 100 hands {heap_100 / 1e6:.2f} MB, after"
            f" {max(args.heap_hands, args.hands)} hands {heap_end / 1e6:.2f} MB:"
            f" {100 * (heap_end / heap_100 - 1):+.1f}% (target <= +10%)   session {elapsed:.0f} s"
        )

    now = os.getloadavg()
    print(f"load average {load_start[0]:.1f} at the start, {now[0]:.1f} at the end (2 cores)")


if __name__ == "__main__":
    main()
