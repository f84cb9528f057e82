"""What `bench.client` and `bench.client_ab` read of Chromium itself: the switch that unlocks
its frame rate, its processes' CPU time (/proc), and a Chrome trace of the page's frames (each
render frame's main-thread CPU, split by part)."""

from __future__ import annotations

import bisect
import contextlib
import json
import os
import tempfile
import time
from pathlib import Path
from typing import Any

from playwright.sync_api import Browser, Page

from bench.probe import wait_hands

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


def trace_hands(
    browser: Browser, page: Page, path: Path, categories: list[str], hands: int
) -> float:
    """A Chrome trace of `categories` into `path` over the page's next `hands` hands: the
    seconds traced."""
    browser.start_tracing(page=page, path=str(path), categories=categories)
    t = time.monotonic()
    wait_hands(page, hands)
    seconds = time.monotonic() - t
    browser.stop_tracing()
    return seconds


def traced_frames(browser: Browser, page: Page, hands: int) -> dict[str, Any]:
    """The renderer main thread's CPU time (not wall time: robust to a busy machine) per frame
    over `hands` hands, from a Chrome trace: the frames that run the page's render (an
    animation-frame callback: its JavaScript, style, layout, paint and commit) apart from the
    others (animations, the caret), with the seconds traced."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "trace.json"
        seconds = trace_hands(browser, page, path, TRACED, hands)
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
