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
import bisect
import contextlib
import json
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from playwright.sync_api import Browser, Page, sync_playwright

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


# Outside the page's code, before it runs: every WebSocket message's arrival (the start of its
# dispatch on the page's main thread, before the page's own handler) is timed to the end of
# the first frame that re-renders the page after it (`__omaha.renders` counts the page's
# renders) once that frame's style, layout and paint are done (a task posted from the frame
# runs after them). `wait` is the part spent waiting for the next frame to begin, which any
# page pays: the frame clock's share. `late` counts the messages not drawn in the first frame
# that began after them.
#: seconds the idle table is watched for each browser's CPU
IDLE_S = 3

PROBE = """
(() => {
  const probe = window.__probe = {
    on: false, latency: [], wait: [], own: [], moving: [], presented: [], presentedMoving: [],
    late: 0, pending: [], armed: false,
  };
  const renders = () => (window.__omaha && window.__omaha.renders) || 0;
  const counted = () => !!(window.__omaha && 'renders' in window.__omaha); // (older pages: not)
  const raf = window.requestAnimationFrame.bind(window);
  // Each frame the probe runs in gets a new 1 px image with an `elementtiming` name: its
  // entry's renderTime is when that frame was presented (Chromium: the display's feedback).
  const PIXEL = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4'
    + '2mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
  const drawnIn = new Map(); // a frame's image name -> the messages that frame drew
  let frames = 0, box = null;
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      const drawn = drawnIn.get(e.identifier);
      if (!drawn) continue;
      drawnIn.delete(e.identifier);
      drawn.forEach((m) => {
        probe.presented.push(e.renderTime - m.t);
        probe.presentedMoving.push(m.moving);
      });
    }
  }).observe({ type: 'element' });
  const running = () => document.getAnimations().some((a) => a.playState === 'running');
  function frame() {
    probe.armed = false;
    const begin = performance.now();
    const name = `probe-frame-${++frames}`;
    if (!box && document.body) {
      box = document.createElement('div');
      box.style.cssText = 'position:fixed;left:0;top:0;width:1px;height:1px;'
        + 'pointer-events:none;z-index:2147483647';
      document.body.append(box);
    }
    if (box) {
      const img = new Image(1, 1);
      img.setAttribute('elementtiming', name);
      img.src = PIXEL;
      box.replaceChildren(img);
    }
    probe.pending.forEach((m) => {
      if (m.wait == null) { m.wait = begin - m.t; m.begin = begin; }
      m.frames += 1;
    });
    const after = new MessageChannel();
    after.port1.onmessage = () => {
      const end = performance.now();
      const now = renders();
      const drawn = [];
      probe.pending = probe.pending.filter((m) => {
        if (counted() && now === m.renders) return true; // not drawn yet: the next frame
        drawn.push(m);
        probe.latency.push(end - m.t);
        probe.moving.push(m.moving);
        probe.wait.push(m.wait);
        // The page's own work: handling the message, then the frame that draws it, from its
        // beginning to the end of its paint; the wait between the two is the frame clock's.
        probe.own.push((m.handled == null ? 0 : m.handled) + (end - m.begin));
        if (m.frames > 1) probe.late += 1;
        return false;
      });
      if (drawn.length) {
        drawnIn.set(name, drawn);
        // a frame whose image was never presented (a hidden page) is forgotten
        while (drawnIn.size > 100) drawnIn.delete(drawnIn.keys().next().value);
      }
      if (probe.pending.length && !probe.armed) { probe.armed = true; raf(frame); }
    };
    after.port2.postMessage(0);
  }
  const Native = window.WebSocket;
  window.WebSocket = class extends Native {
    constructor(...args) {
      super(...args);
      this.addEventListener('message', (e) => {
        if (!probe.on) return;
        const t = performance.now();
        // A batched frame: every message in it arrived now. A pong draws nothing: not counted.
        const pong = (m) => m.type === 'pong';
        const n = e.data[0] === '['
          ? JSON.parse(e.data).filter((m) => !pong(m)).length
          : Number(!e.data.startsWith('{"type":"pong"'));
        if (!n) return;
        const batch = [];
        // An animation running as it arrives (a chip in flight): the frame clock is then
        // already ticking, and the message waits for its next tick (no frame at once).
        const moving = running();
        for (let i = 0; i < n; i++) {
          batch.push({
            t, renders: renders(), wait: null, frames: 0, handled: null, begin: 0, moving,
          });
        }
        probe.pending.push(...batch);
        // A task posted now runs once every listener of this message (the page's) is done.
        const handled = new MessageChannel();
        handled.port1.onmessage = () => {
          const d = performance.now() - t;
          batch.forEach((m) => { if (m.wait == null || d < m.wait) m.handled = d; });
        };
        handled.port2.postMessage(0);
        if (!probe.armed) { probe.armed = true; raf(frame); }
      });
    }
  };
})();
"""

DRAIN = """() => {
  const p = window.__probe;
  const out = {
    latency: p.latency.splice(0), wait: p.wait.splice(0), own: p.own.splice(0), late: p.late,
    moving: p.moving.splice(0), presented: p.presented.splice(0),
    presentedMoving: p.presentedMoving.splice(0),
  };
  p.late = 0;
  return out;
}"""

# Headless Chromium begins frames on a 60 Hz clock; with this switch it begins one as soon as
# one is asked for (checked: a frame's wait p95 15 ms -> 0.2 ms; `--disable-gpu-vsync` alone
# changes nothing headless). It draws no frame while nothing asks for one.
UNLOCKED = ("--disable-frame-rate-limit",)


class BrowserCpu:
    """The CPU time of one of this process's Chromiums and every process under it (/proc)."""

    def __init__(self, unlocked: bool) -> None:
        # The browser process (a Chromium without `--type=`) under this one, by its switches.
        self.root = next(
            pid
            for pid in _tree(os.getpid())
            if "chrom" in _cmdline(pid)
            and "--type=" not in _cmdline(pid)
            and (UNLOCKED[0] in _cmdline(pid)) == unlocked
        )

    def seconds(self) -> float:
        ticks = 0
        for pid in _tree(self.root):
            with contextlib.suppress(OSError, IndexError):
                f = _stat(pid)
                ticks += int(f[11]) + int(f[12]) + int(f[13]) + int(f[14])  # own + waited children
        return ticks / os.sysconf("SC_CLK_TCK")


def _tree(root: int) -> set[int]:
    parent = {}
    for pid in _pids():
        with contextlib.suppress(OSError, IndexError):
            parent[pid] = int(_stat(pid)[1])
    tree, grown = {root}, True
    while grown:
        more = {pid for pid, pp in parent.items() if pp in tree} - tree
        tree |= more
        grown = bool(more)
    return tree


def _pids() -> set[int]:
    return {int(p) for p in os.listdir("/proc") if p.isdigit()}


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_text(errors="replace")
    except OSError:
        return ""


def _stat(pid: int) -> list[str]:
    # The fields after the command's name (which may hold spaces): state, ppid, ...
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()


def traced_frames(browser: Browser, page: Page, hands: int) -> dict[str, Any]:
    """The renderer main thread's CPU time (not wall time: robust to a busy machine) per frame
    over `hands` hands, from a Chrome trace: the frames that run the page's render (an
    animation-frame callback: its JavaScript, style, layout, paint and commit) apart from the
    others (animations, the caret), with the seconds traced."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "trace.json"
        browser.start_tracing(page=page, path=str(path), categories=TRACED)
        start, t = hands_seen(page), time.monotonic()
        while hands_seen(page) - start < hands:
            time.sleep(0.2)
        seconds = time.monotonic() - t
        browser.stop_tracing()
        events = json.loads(path.read_text())
    events = events["traceEvents"] if isinstance(events, dict) else events
    main = {
        (e["pid"], e["tid"])
        for e in events
        if e.get("name") == "thread_name" and e["args"].get("name") == "CrRendererMain"
    }
    spans = [e for e in events if e.get("ph") == "X" and (e.get("pid"), e.get("tid")) in main]
    callbacks = sorted(e["ts"] for e in spans if e["name"] == "FireAnimationFrame")
    renders: list[float] = []
    others: list[float] = []
    drawing: list[dict[str, Any]] = []
    for f in (e for e in spans if e["name"] == "ProxyMain::BeginMainFrame"):
        i = bisect.bisect_left(callbacks, f["ts"])
        drew = i < len(callbacks) and callbacks[i] <= f["ts"] + f["dur"]
        (renders if drew else others).append(f.get("tdur", f["dur"]) / 1000)
        if drew:
            drawing.append(f)
    return {
        "renders": sorted(renders),
        "others": sorted(others),
        "seconds": seconds,
        "phases": phases(spans, drawing),
    }


#: a render frame's parts, by the trace event that times each (its outermost in the frame)
PHASES = {
    "FireAnimationFrame": "script",  # the page's render: the views, htm, Preact's diff
    "UpdateLayoutTree": "style",
    "Layout": "layout",
    "PrePaint": "pre-paint",
    "Paint": "paint",
    "Layerize": "layerize",
    "Commit": "commit",  # to the compositor thread
}


def phases(spans: list[dict[str, Any]], frames: list[dict[str, Any]]) -> dict[str, list[float]]:
    """Each of `frames`' main-thread CPU split into `PHASES` (ms, sorted, one per frame), the
    rest as "other" (animations, lifecycle bookkeeping). A phase inside another (a style
    recalc forced by script) counts in the outer one."""
    spans = sorted(spans, key=lambda e: (e["ts"], -e["dur"]))
    starts = [e["ts"] for e in spans]
    out: dict[str, list[float]] = {name: [] for name in [*PHASES.values(), "other"]}
    for f in frames:
        end = f["ts"] + f["dur"]
        cpu = dict.fromkeys(out, 0.0)
        inside: list[int] = []  # the end of the phase being walked through
        for e in spans[bisect.bisect_left(starts, f["ts"]) :]:
            if e["ts"] > end:
                break
            while inside and e["ts"] >= inside[-1]:
                inside.pop()
            if e is not f and e["name"] in PHASES and not inside:
                cpu[PHASES[e["name"]]] += e.get("tdur", e["dur"]) / 1000
                inside.append(e["ts"] + e["dur"])
        cpu["other"] = f.get("tdur", f["dur"]) / 1000 - sum(cpu.values())
        for name, ms in cpu.items():
            out[name].append(ms)
    return {name: sorted(xs) for name, xs in out.items()}


#: what `traced_frames` reads (the frames are cc events; thread CPU time, `tdur`, is in each)
TRACED = ["devtools.timeline", "disabled-by-default-devtools.timeline", "blink", "cc"]


def still_and_moving(xs: list[float], moving: list[bool]) -> tuple[list[float], list[float]]:
    """The figures of the messages that arrived with no animation running, and of the others
    (a chip in flight: the frame clock already ticking, so a frame waits for its next tick)."""
    return (
        sorted(x for x, m in zip(xs, moving, strict=True) if not m),
        sorted(x for x, m in zip(xs, moving, strict=True) if m),
    )


def by_motion(label: str, xs: list[float], moving: list[bool]) -> str:
    p = lambda v, q: v[min(len(v) - 1, int(q * len(v)))] if v else float("nan")  # noqa: E731
    still, moved = still_and_moving(xs, moving)
    return (
        f"{label}: all p50 {p(sorted(xs), 0.5):5.1f}, p95 {p(sorted(xs), 0.95):5.1f};"
        f" nothing moving p50 {p(still, 0.5):5.1f}, p95 {p(still, 0.95):5.1f} ms ({len(still)});"
        f" an animation running p50 {p(moved, 0.5):5.1f}, p95 {p(moved, 0.95):5.1f} ms"
        f" ({len(moved)})"
    )


def heap(page: Page) -> int:
    cdp = page.context.new_cdp_session(page)
    cdp.send("HeapProfiler.collectGarbage")
    used = int(cdp.send("Runtime.getHeapUsage")["usedSize"])
    cdp.detach()
    return used


def watch(browser: Browser, base: str, code: str, kind: str) -> Player:
    """A spectator's page on the table, with the probe in it."""
    watcher = Player(browser, base, f"Watch{kind[:2]}")
    watcher.context.add_init_script(PROBE)
    watcher.join(f"/t/{code}")
    watcher.page.wait_for_function("() => window.__omaha.drawn")
    return watcher


def settled_heap(page: Page, samples: int = 5) -> float:
    """The median of `samples` heap sizes, one as each new hand starts: one alone moves with
    what the hand in play holds (flat out, one every 100 hands up to 1,000: 3.29 to 3.72 MB
    and back, with no trend)."""
    sizes: list[int] = []
    last = hands_seen(page)
    while len(sizes) < samples:
        if hands_seen(page) != last:
            sizes.append(heap(page))
            last = hands_seen(page)
        else:
            time.sleep(0.05)
    return statistics.median(sizes)


def hands_seen(page: Page) -> int:
    return int(page.evaluate("() => window.__omaha.ctrl.state.table.hands_played || 0"))


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
                context.add_cookies(host.context.cookies())
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
    p = lambda xs, q: xs[min(len(xs) - 1, int(q * len(xs)))]  # noqa: E731
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
        ps = lambda xs: f"p50 {p(xs, 0.5):4.1f}, p95 {p(xs, 0.95):4.1f} ms"  # noqa: E731
        cpu = (sum(traced["renders"]) + sum(traced["others"])) / 10 / traced["seconds"]
        print(
            f"  main-thread CPU per frame (Chrome trace, unlocked, {args.trace_hands} hands):"
            f" frames that render {ps(traced['renders'])}; other frames"
            f" {len(traced['others']) / traced['seconds']:.0f}/s; all frames {cpu:.0f}% of a core"
        )
        mean = lambda xs: sum(xs) / len(xs)  # noqa: E731
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
