"""What a running animation costs any page's updates in Chromium, apart from our client:
``.venv/bin/python -m bench.frame_clock [--seconds 8] [--rounds 2]``.

One plain page (no server, no framework) gets a "message" every 40-100 ms and redraws a line
of text for it in the next animation frame, as the client does; it is timed as
`bench.client`'s probe times the table (arrival -> end of the frame that draws it, the wait for
that frame to begin, and the frame's presentation from Element Timing). Each round runs the
page twice on the 60 Hz frame clock, in a new browser each: with nothing else moving, then
with one square moving by a CSS transform animation (which runs on the compositor, no main
thread work of its own).

Read: an idle Chromium begins a frame as soon as one is asked for (a "missed" begin-frame),
while a page with an animation running is already on the frame clock, so its updates wait for
the next vsync, and are presented a frame later. The table's chips in flight are such an
animation: `bench.client_ab` splits its message -> frame figures by whether one was running.
"""

from __future__ import annotations

import argparse
import os

from playwright.sync_api import sync_playwright

from tests.e2e.harness import launch

PIXEL = (
    "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAE"
    "hQGAhKmMIQAAAABJRU5ErkJggg=="
)

PAGE = """<!doctype html><html><head><style>
#box { position: absolute; left: 10px; top: 10px; width: 40px; height: 40px; background: red }
.moving { animation: move 300ms linear infinite }
@keyframes move { from { transform: translateX(0) } to { transform: translateX(200px) } }
</style></head><body><div id="box"></div><p id="line"></p><div id="mark"></div></body></html>"""

RUN = """([moving, pixel]) => {
  const got = window.__got = { frame: [], wait: [], presented: [] };
  const sent = new Map();
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      const t = sent.get(e.identifier);
      if (t != null) { got.presented.push(e.renderTime - t); sent.delete(e.identifier); }
    }
  }).observe({ type: 'element' });
  let n = 0;
  function message() {
    const t = performance.now();
    const name = `m${n++}`;
    requestAnimationFrame(() => {
      const begin = performance.now();
      document.getElementById('line').textContent = `message ${name}`;
      const img = new Image(1, 1);
      img.setAttribute('elementtiming', name);
      img.src = pixel;
      document.getElementById('mark').replaceChildren(img);
      sent.set(name, t);
      const after = new MessageChannel();
      after.port1.onmessage = () => {
        got.frame.push(performance.now() - t);
        got.wait.push(begin - t);
      };
      after.port2.postMessage(0);
    });
    setTimeout(message, 40 + Math.random() * 60);
  }
  if (moving) document.getElementById('box').classList.add('moving');
  setTimeout(message, 50);
}"""


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))] if xs else float("nan")


def measure(seconds: float, rounds: int) -> dict[bool, dict[str, list[float]]]:
    """Each figure's samples, nothing moving (False) and an animation running (True)."""
    runs: dict[bool, dict[str, list[float]]] = {
        m: {"frame": [], "wait": [], "presented": []} for m in (False, True)
    }
    with sync_playwright() as pw:
        for _ in range(rounds):
            for moving in (False, True):
                browser = launch(pw)
                page = browser.new_page()
                page.set_content(PAGE)
                page.evaluate(RUN, [moving, PIXEL])
                page.wait_for_timeout(seconds * 1000)
                got: dict[str, list[float]] = page.evaluate("() => window.__got")
                browser.close()
                for k, xs in got.items():
                    runs[moving][k] += xs
    return runs


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=8)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    load = os.getloadavg()[0]
    runs = measure(args.seconds, args.rounds)

    def row(k: str) -> str:
        still, moved = runs[False][k], runs[True][k]
        return (
            f"p50 {pct(still, 0.5):5.1f} -> {pct(moved, 0.5):5.1f} ms"
            f" ({pct(moved, 0.5) / pct(still, 0.5):.2f}x),"
            f" p95 {pct(still, 0.95):5.1f} -> {pct(moved, 0.95):5.1f} ms"
        )

    print(
        f"a plain page on the 60 Hz frame clock, nothing moving -> one composited animation"
        f" running; {len(runs[False]['frame'])} and {len(runs[True]['frame'])} messages"
    )
    print(f"  message -> end of its frame     {row('frame')}")
    print(f"  waiting for the frame to begin  {row('wait')}")
    print(f"  message -> frame presented      {row('presented')}")
    print(f"load average {load:.1f} -> {os.getloadavg()[0]:.1f} (2 cores)")


if __name__ == "__main__":
    main()
