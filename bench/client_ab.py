"""The client's figures for two versions of static/, side by side in one run:
``.venv/bin/python -m bench.client_ab A B [--hands 40] [--loads 5] [--think 50]``.

A and B are each a git revision (its static/, e.g. ``a178539``), a directory (a static/ or a
checkout holding one), or ``.`` (this checkout as it stands). Both are served by this
checkout's server code, one server each (SQLite, no pause between hands), so that only the
client differs. Measured as `bench.client` measures (its probe, stamps and heap), interleaved
so that both are under the same load:

1. First load, cold: bytes, the first paint (and its ratio to the one-line file of the same
   server), loads alternating A, B, B, A, ...
2. Each server has its own six-handed table of the same protocol bots, both playing all the
   time; a spectator's page watches ``--hands`` hands of A's table, then of B's, in a Chromium
   with the frame rate unlocked, then of B's and A's on the 60 Hz frame clock: message ->
   frame, the page's own work, frames late, the browser's CPU.
   Then ``--trace-hands`` more hands of the unlocked page in a Chrome trace: the renderer main
   thread's CPU time (not wall time) of each frame that renders (`bench.client.traced_frames`),
   and the frames drawn besides (CSS animations on the main thread).
3. The JS heap of each 60 Hz page after its hands (median of five forced-GC samples, one per
   hand).

The load average is printed at the start and the end: run it twice, in both orders, on a
shared machine, and read the B/A column.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from playwright.sync_api import Cookie, Page, sync_playwright

from bench.chromium import UNLOCKED, BrowserCpu, traced_frames
from bench.client import PACE, random_bot, transferred
from bench.probe import DRAIN, hands_seen, settled_heap, still_and_moving, watch
from tests.e2e import harness
from tests.e2e.harness import Bot, Player, launch, server, settable
from tests.e2e.test_games import new_table

HERE = harness.ROOT


@dataclass
class Site:
    """One version of the client, its server and its table."""

    spec: str
    base: str = ""
    code: str = ""
    reference: str = ""
    cookies: list[Cookie] = field(default_factory=list)
    bots: list[Bot] = field(default_factory=list)
    loads: dict[str, list[tuple[int, float, float]]] = field(
        default_factory=lambda: {"table": [], "reference": []}
    )
    hands: dict[str, dict[str, Any]] = field(default_factory=dict)
    heap: float = 0.0
    trace: dict[str, Any] = field(default_factory=dict)


def site_root(spec: str, into: Path) -> Path:
    """A checkout to run a server from: this one (``.``), else a copy of this one's app beside
    the static/ asked for (the server serves the static/ beside its app package)."""
    if spec == ".":
        return HERE
    root = into / "site"
    root.mkdir()
    shutil.copytree(HERE / "app", root / "app", ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("migrations", "alembic.ini"):
        (root / name).symlink_to(HERE / name)
    given = Path(spec)
    if given.is_dir():
        shutil.copytree(given / "static" if (given / "static").is_dir() else given, root / "static")
    else:
        tar = subprocess.run(
            ["git", "-C", str(HERE), "archive", spec, "static"], check=True, capture_output=True
        ).stdout
        subprocess.run(["tar", "-x", "-C", str(root)], input=tar, check=True)
    return root


def watch_hands(page: Page, hands: int, cpu: BrowserCpu, bots: list[Bot]) -> dict[str, Any]:
    """The probe's figures over `hands` hands of the table the page watches."""
    page.evaluate("() => { window.__probe.on = true; }")
    start, cpu0, t = hands_seen(page), cpu.seconds(), time.monotonic()
    got: dict[str, Any] = {
        "latency": [], "wait": [], "own": [], "late": 0, "moving": [], "presented": [],
        "presentedMoving": [],
    }  # fmt: skip
    while True:
        played = hands_seen(page) - start
        if played >= hands:
            page.evaluate("() => { window.__probe.on = false; }")
            page.wait_for_timeout(100)  # the last frame's stamps
        drained = page.evaluate(DRAIN)
        for k in got:
            got[k] += drained[k]
        if played >= hands:
            break
        for i, bot in enumerate(bots):  # a busted bot buys back in
            if page.evaluate(f"() => (window.__omaha.ctrl.state.seats[{i}] || {{}}).stack") == 0:
                bot.ws.send('{"type": "top_up", "amount": 1000}')  # type: ignore[union-attr]
        time.sleep(1)
    seconds = time.monotonic() - t
    got["cpu"] = (cpu.seconds() - cpu0) / seconds
    got["rate"] = len(got["latency"]) / seconds
    return got


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("versions", nargs=2, help="A B: git revisions, directories, or '.'")
    parser.add_argument("--hands", type=int, default=40)
    parser.add_argument("--loads", type=int, default=5)
    parser.add_argument("--think", type=float, default=50, help="the bots' mean time to act, ms")
    parser.add_argument("--trace-hands", type=int, default=5, help="hands traced (unlocked)")
    args = parser.parse_args()
    sites = [Site(spec) for spec in args.versions]
    load_start = os.getloadavg()
    with contextlib.ExitStack() as stack, sync_playwright() as pw:
        browser = launch(pw)
        unlocked = launch(pw, *UNLOCKED)
        cpus = {"60 Hz": BrowserCpu(unlocked=False), "unlocked": BrowserCpu(unlocked=True)}
        for site in sites:
            tmp = Path(stack.enter_context(tempfile.TemporaryDirectory()))
            harness.ROOT = site_root(site.spec, tmp)  # the server runs from that root
            try:
                site.base = stack.enter_context(
                    server(
                        tmp, BETWEEN_HANDS="0", AWAY_GRACE="3600", WS_RATE="1000", WS_BURST="1000"
                    )
                )
            finally:
                harness.ROOT = HERE
            host = Player(browser, site.base, "Host")
            host.join()
            site.code = new_table(host, decision_time=5, seats=6, buy_in_max=10_000, buy_in_min=40)
            home = host.page.request.get(site.base + "/").text()
            site.reference = site.base + home.split('rel="icon" href="')[1].split('"')[0]
            site.cookies = host.context.cookies()

        # 1. First loads, cold, alternating A B, B A, ...
        for i in range(args.loads):
            for site in sites if i % 2 == 0 else sites[::-1]:
                for kind, url in (
                    ("reference", site.reference),
                    ("table", f"{site.base}/t/{site.code}"),
                ):
                    context = browser.new_context()
                    context.add_cookies(settable(site.cookies))
                    site.loads[kind].append(transferred(context.new_page(), url))
                    context.close()
            print(f"  load {i + 1} of {args.loads}", file=sys.stderr, flush=True)

        # 2 and 3. Both tables play all the time; one page watches at a time.
        PACE["think"] = args.think / 1000
        for site in sites:
            site.bots = [Bot(site.base, f"Bot{i}", random_bot(i)) for i in range(6)]
            for i, bot in enumerate(site.bots):
                bot.start(site.code, i, 10_000)
        for kind, b in (("unlocked", unlocked), ("60 Hz", browser)):
            for site in sites if kind == "unlocked" else sites[::-1]:
                watcher = watch(b, site.base, site.code, kind)
                print(f"  {site.spec}: {kind}", file=sys.stderr, flush=True)
                site.hands[kind] = watch_hands(watcher.page, args.hands, cpus[kind], site.bots)
                if kind == "unlocked" and args.trace_hands:
                    site.trace = traced_frames(b, watcher.page, args.trace_hands)
                if kind == "60 Hz":
                    site.heap = settled_heap(watcher.page)
                watcher.context.close()
        for site in sites:
            for bot in site.bots:
                bot.close()
        browser.close()
        unlocked.close()
    report(sites, args, load_start, os.getloadavg())


def report(sites: list[Site], args: Any, load_start: Any, load_end: Any) -> None:
    def p(xs: list[float], q: float) -> float:
        return sorted(xs)[min(len(xs) - 1, int(q * len(xs)))]

    def med(site: Site, kind: str, i: int) -> float:
        return statistics.median(x[i] for x in site.loads[kind])

    def col(f: Callable[[Site], float]) -> list[float]:
        return [f(s) for s in sites]

    rows: list[tuple[str, list[float], str]] = [
        ("first load, KB", col(lambda s: med(s, "table", 0) / 1024), "<= 150"),
        ("first paint, ms", col(lambda s: med(s, "table", 1)), ""),
        ("  its one-line reference, ms", col(lambda s: med(s, "reference", 1)), ""),
        ("  ratio to it", col(lambda s: med(s, "table", 1) / med(s, "reference", 1)), "<= 2"),
    ]

    def split(kind: str, figure: str, flags: str, which: int, q: float) -> list[float]:
        def parts(s: Site) -> tuple[list[float], list[float]]:
            return still_and_moving(s.hands[kind][figure], s.hands[kind][flags])

        return col(lambda s: p(parts(s)[which], q) if parts(s)[which] else float("nan"))

    def share(kind: str) -> list[float]:
        return col(lambda s: sum(s.hands[kind]["moving"]) / max(1, len(s.hands[kind]["moving"])))

    def cpu(kind: str) -> list[float]:
        return col(lambda s: 100 * s.hands[kind]["cpu"])

    for kind in ("unlocked", "60 Hz"):

        def fig(k: str, q: float, kind: str = kind) -> list[float]:
            return col(lambda s: p(s.hands[kind][k], q))

        rows += [
            (f"message -> frame p50, {kind}, ms", fig("latency", 0.5), ""),
            (f"message -> frame p95, {kind}, ms", fig("latency", 0.95), ""),
            (f"  frame wait p95, {kind}, ms", fig("wait", 0.95), ""),
            (f"  p50, nothing moving, {kind}, ms", split(kind, "latency", "moving", 0, 0.5), ""),
            (f"  p50, an animation running, {kind}", split(kind, "latency", "moving", 1, 0.5), ""),
            (f"  share arriving mid-animation, {kind}", share(kind), ""),
            (f"message -> presented p50, {kind}, ms", fig("presented", 0.5), ""),
            (f"message -> presented p95, {kind}, ms", fig("presented", 0.95), ""),
            (
                f"  p50, nothing moving, {kind}",
                split(kind, "presented", "presentedMoving", 0, 0.5),
                "",
            ),
            (
                f"  p50, an animation running, {kind}",
                split(kind, "presented", "presentedMoving", 1, 0.5),
                "",
            ),
            (f"own work p50, {kind}, ms", fig("own", 0.5), ""),
            (f"own work p95, {kind}, ms", fig("own", 0.95), "<= 4"),
            (
                f"browser CPU, {kind}, % of a core",
                cpu(kind),
                "",
            ),
        ]

    def late(s: Site) -> float:
        late: int = s.hands["60 Hz"]["late"]
        return 100 * late / max(1, len(s.hands["60 Hz"]["latency"]))

    rows += [
        ("frames late at 60 Hz, %", col(late), "<= 1"),
        ("JS heap at the end, MB", col(lambda s: s.heap / 1e6), ""),
    ]
    # the CPU time of the renderer's main thread, from a trace
    if all(s.trace and s.trace["renders"] for s in sites):

        def frames(s: Site) -> float:
            renders: list[float] = s.trace["renders"]
            others: list[float] = s.trace["others"]
            return sum(renders) + sum(others)

        rows += [
            ("render frame CPU p50 (trace), ms", col(lambda s: p(s.trace["renders"], 0.5)), ""),
            ("render frame CPU p95 (trace), ms", col(lambda s: p(s.trace["renders"], 0.95)), ""),
            (
                "other frames per s (trace)",
                col(lambda s: len(s.trace["others"]) / s.trace["seconds"]),
                "",
            ),
            (
                "all frames' CPU (trace), % of a core",
                col(lambda s: frames(s) / 10 / s.trace["seconds"]),
                "",
            ),
        ]

        # a render frame's CPU by part (bench.client.phases), the mean over its frames
        def phase(name: str) -> list[float]:
            return col(lambda s: statistics.fmean(s.trace["phases"][name]))

        rows += [
            (f"  render frame: {name}, mean ms", phase(name), "")
            for name in sites[0].trace["phases"]
        ]
    a, b = sites
    print(
        f"A = {a.spec}   B = {b.spec}   {args.hands} hands per page, bots think {args.think} ms,"
        f" {args.loads} cold loads each   load average {load_start[0]:.1f} -> {load_end[0]:.1f}"
    )
    print(f"{'':38} {'A':>9} {'B':>9} {'B/A':>6}   target")
    for name, (x, y), target in rows:
        print(f"{name:38} {x:9.2f} {y:9.2f} {y / x if x else float('nan'):6.2f}   {target}")
    counts = [len(s.hands[k]["latency"]) for s in sites for k in ("unlocked", "60 Hz")]
    print(f"messages timed (A unlocked, A 60 Hz, B unlocked, B 60 Hz): {counts}")


if __name__ == "__main__":
    main()
