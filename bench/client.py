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
   25-75 ms (``--think``, 0: flat out), the page watching as a spectator; beside it, the part
   spent waiting for the frame to begin (the frame clock's share, which any page pays), and
   the same figures for a second spectator's page, the same client without batched frames
   (its socket's `batch=1` taken out), watching the same hands.
3. Memory: the page's JS heap (after a forced garbage collection, over CDP) after 100 hands and
   after ``--heap-hands`` hands of the same session.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from playwright.sync_api import Page, sync_playwright

from tests.e2e.harness import Bot, Player, launch, server
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
        # The server draws the table into the page (app/api/first_paint.py): its first paint
        # is the snapshot drawn. The live view replaces it once the modules have run: stamped
        # by the page after that frame (style, layout and paint included).
        assert response is not None and b"data-first-paint" in response.body()
        page.wait_for_function("() => window.__omaha && window.__omaha.drawn")
        mark = page.evaluate("() => window.__omaha.drawn")
    else:
        mark = page.evaluate("() => performance.getEntriesByType('navigation')[0].loadEventEnd")
    total = 0
    for request in sizes:
        s = request.sizes()
        total += s["responseBodySize"] + s["responseHeadersSize"]
    return total, float(painted), float(mark)


# Outside the page's code, before it runs: every WebSocket message's arrival (the start of its
# dispatch on the page's main thread, before the page's own handler) is timed to the end of
# the first frame that re-renders the page after it (`__omaha.renders` counts the page's
# renders) once that frame's style, layout and paint are done (a task posted from the frame
# runs after them). `wait` is the part spent waiting for the next frame to begin, which any
# page pays: the frame clock's share.
PROBE = """
(() => {
  const probe = window.__probe = { on: false, latency: [], wait: [], pending: [], armed: false };
  const renders = () => (window.__omaha && window.__omaha.renders) || 0;
  const counted = () => !!(window.__omaha && 'renders' in window.__omaha); // (older pages: not)
  const raf = window.requestAnimationFrame.bind(window);
  function frame() {
    probe.armed = false;
    const begin = performance.now();
    probe.pending.forEach((m) => { if (m.wait == null) { m.wait = begin - m.t; } });
    const after = new MessageChannel();
    after.port1.onmessage = () => {
      const end = performance.now();
      const now = renders();
      probe.pending = probe.pending.filter((m) => {
        if (counted() && now === m.renders) return true; // not drawn yet: the next frame
        probe.latency.push(end - m.t);
        probe.wait.push(m.wait);
        return false;
      });
      if (probe.pending.length && !probe.armed) { probe.armed = true; raf(frame); }
    };
    after.port2.postMessage(0);
  }
  const Native = window.WebSocket;
  window.WebSocket = class extends Native {
    constructor(url, ...rest) {
      // The reference page: the same client without batched frames (`batch=1` taken out).
      if (window.__probeNoBatch) {
        url = String(url).replace(/([?&])batch=1(&|$)/, '$1').replace(/[?&]$/, '');
      }
      super(url, ...rest);
      this.addEventListener('message', (e) => {
        if (!probe.on) return;
        const t = performance.now();
        // A batched frame: every message in it arrived now.
        const n = e.data[0] === '[' ? JSON.parse(e.data).length : 1;
        for (let i = 0; i < n; i++) probe.pending.push({ t, renders: renders(), wait: null });
        if (!probe.armed) { probe.armed = true; raf(frame); }
      });
    }
  };
})();
"""

DRAIN = "() => ({ latency: window.__probe.latency.splice(0), wait: window.__probe.wait.splice(0) })"


def heap(page: Page) -> int:
    cdp = page.context.new_cdp_session(page)
    cdp.send("HeapProfiler.collectGarbage")
    used = int(cdp.send("Runtime.getHeapUsage")["usedSize"])
    cdp.detach()
    return used


def hands_seen(page: Page) -> int:
    return int(page.evaluate("() => window.__omaha.ctrl.state.table.hands_played || 0"))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--hands", type=int, default=200)
    parser.add_argument("--heap-hands", type=int, default=1000)
    parser.add_argument("--loads", type=int, default=5)
    parser.add_argument("--think", type=float, default=50, help="the bots' mean time to act, ms")
    args = parser.parse_args()
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
                context.add_cookies(host.context.cookies())
                loads[kind].append(transferred(context.new_page(), url))
                context.close()

        print("  loads done", file=sys.stderr, flush=True)
        # 2 and 3. A session at a six-handed table of bots, the page watching.
        PACE["think"] = args.think / 1000
        bots = [Bot(base, f"Bot{i}", random_bot(i)) for i in range(6)]
        for i, bot in enumerate(bots):
            bot.start(code, i, 10_000)
        # Two spectators' pages: the client as it is (batched frames), and beside it the same
        # client without them (the reference), watching the same hands.
        watchers = {}
        for kind in ("batched", "unbatched"):
            watcher = Player(browser, base, f"Watch{kind[:2]}")
            if kind == "unbatched":
                watcher.context.add_init_script("window.__probeNoBatch = true")
            watcher.context.add_init_script(PROBE)
            watcher.join(f"/t/{code}")
            watcher.page.wait_for_function("() => window.__omaha.drawn")
            watchers[kind] = watcher.page
        page = watchers["batched"]
        for p_ in watchers.values():
            p_.evaluate("() => { window.__probe.on = true; }")
        start = hands_seen(page)
        heap_100 = None
        latency: dict[str, list[float]] = {k: [] for k in watchers}
        wait: dict[str, list[float]] = {k: [] for k in watchers}
        session = 0.0
        t0 = time.monotonic()
        while True:
            played = hands_seen(page) - start
            if played % 50 == 0:
                print(f"  {played} hands", file=sys.stderr, flush=True)
            if played >= args.hands and not session:
                for p_ in watchers.values():
                    p_.evaluate("() => { window.__probe.on = false; }")
                page.wait_for_timeout(100)  # the last frame's stamps
                session = time.monotonic() - t0
                PACE["think"] = 0  # the rest (for the heap) as fast as the bots go
                watchers["unbatched"].context.close()  # the heap is the batched page's
                del watchers["unbatched"]
            # Taken out of the page as they come, so they do not weigh on its heap.
            for kind, p_ in watchers.items():
                drained = p_.evaluate(DRAIN)
                latency[kind] += drained["latency"]
                wait[kind] += drained["wait"]
            if heap_100 is None and played >= 100:
                heap_100 = heap(page)
            if played >= max(args.heap_hands, args.hands):
                break
            for bot in bots:  # a busted bot buys back in
                stack = page.evaluate(
                    f"() => (window.__omaha.ctrl.state.seats[{bots.index(bot)}] || {{}}).stack"
                )
                if stack == 0:
                    bot.ws.send('{"type": "top_up", "amount": 1000}')  # type: ignore[union-attr]
            time.sleep(1)
        heap_end = heap(page)
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
    p = lambda xs, q: xs[min(len(xs) - 1, int(q * len(xs)))]  # noqa: E731
    for kind in ("batched", "unbatched"):
        lat, wt = sorted(latency[kind]), sorted(wait[kind])
        label = "rendering   " if kind == "batched" else "  reference "
        print(
            f"{label} {kind} frames: message -> end of the frame that draws it, {args.hands}"
            f" hands, {len(lat)} messages ({len(lat) / session:.0f}/s, bots think"
            f" {args.think} ms): p50 {p(lat, 0.5):.1f} ms, p95 {p(lat, 0.95):.1f} ms,"
            f" max {lat[-1]:.1f} ms" + ("   (target p95 <= 16 ms)" if kind == "batched" else "")
        )
        print(
            f"             of which waiting for that frame to begin (the frame clock, any page):"
            f" p50 {p(wt, 0.5):.1f} ms, p95 {p(wt, 0.95):.1f} ms   (one frame at 60 Hz: 16.7 ms)"
        )
    assert heap_100 is not None
    print(
        f"memory       JS heap after 100 hands {heap_100 / 1e6:.2f} MB, after"
        f" {max(args.heap_hands, args.hands)} hands {heap_end / 1e6:.2f} MB:"
        f" {100 * (heap_end / heap_100 - 1):+.1f}% (target <= +10%)   session {elapsed:.0f} s"
    )


if __name__ == "__main__":
    main()
