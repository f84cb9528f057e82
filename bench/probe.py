"""What `bench.client` and `bench.client_ab` put in a watching page, and read back from it:
the probe (`PROBE`, an init script: each WebSocket message timed to the frame that draws it,
and that frame's presentation), its figures taken out of the page (`DRAIN`), and the page's
heap and hands."""

from __future__ import annotations

import statistics
import time

from playwright.sync_api import Browser, Page

from tests.e2e.harness import Player

# Outside the page's code, before it runs: every WebSocket message's arrival (the start of its
# dispatch on the page's main thread, before the page's own handler) is timed to the end of
# the first frame that re-renders the page after it (`__omaha.renders` counts the page's
# renders) once that frame's style, layout and paint are done (a task posted from the frame
# runs after them). `wait` is the part spent waiting for the next frame to begin, which any
# page pays: the frame clock's share. `late` counts the messages not drawn in the first frame
# that began after them.
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


def still_and_moving(xs: list[float], moving: list[bool]) -> tuple[list[float], list[float]]:
    """The figures of the messages that arrived with no animation running, and of the others
    (a chip in flight: the frame clock already ticking, so a frame waits for its next tick)."""
    return (
        sorted(x for x, m in zip(xs, moving, strict=True) if not m),
        sorted(x for x, m in zip(xs, moving, strict=True) if m),
    )


def by_motion(label: str, xs: list[float], moving: list[bool]) -> str:
    def p(v: list[float], q: float) -> float:
        return v[min(len(v) - 1, int(q * len(v)))] if v else float("nan")

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


def wait_hands(page: Page, hands: int) -> None:
    """Until the page has seen `hands` more hands."""
    start = hands_seen(page)
    while hands_seen(page) - start < hands:
        time.sleep(0.2)


def hands_seen(page: Page) -> int:
    return int(page.evaluate("() => window.__omaha.ctrl.state.table.hands_played || 0"))
