"""The group writer's figures over a bench window, from the servers' `/metrics`
(app/metrics.py): how many tables' writes each commit carried, how long a commit took, and
how long a table waited for its write's commit (the wait an action pays before its table may
show the next state, DESIGN.md step 4).

`scrape` reads one process's histograms; `window` subtracts a scrape before the window from
one after it (summed over processes); `describe` prints the lines bench/load.py adds to its
report. Percentiles come from the histogram's buckets, linear within a bucket; a maximum is
the bound of the highest bucket that counted one.
"""

from __future__ import annotations

import urllib.request
from dataclasses import dataclass, field

#: the token bench/load.py's servers are given (METRICS_TOKEN): loopback, a throwaway server
TOKEN = "bench-metrics-token"
FIGURES = (
    "omaha_store_group_writes",
    "omaha_store_commit_seconds",
    "omaha_store_write_seconds",
    "omaha_gc_young_pause_seconds",
    "omaha_gc_full_pause_seconds",
    "omaha_loop_late_seconds",
)


@dataclass
class Histogram:
    """Cumulative counts by upper bound (the last +Inf), their sum and count."""

    bounds: list[float] = field(default_factory=list)
    cumulative: list[float] = field(default_factory=list)
    total: float = 0.0
    count: float = 0.0

    def minus(self, earlier: Histogram) -> Histogram:
        if not earlier.bounds:
            return self
        return Histogram(self.bounds, [a - b for a, b in zip(self.cumulative,
                         earlier.cumulative, strict=True)], self.total - earlier.total,
                         self.count - earlier.count)  # fmt: skip

    def plus(self, other: Histogram) -> Histogram:
        if not self.bounds:
            return other
        return Histogram(self.bounds, [a + b for a, b in zip(self.cumulative,
                         other.cumulative, strict=True)], self.total + other.total,
                         self.count + other.count)  # fmt: skip

    def mean(self) -> float:
        return self.total / self.count if self.count else float("nan")

    def quantile(self, q: float) -> float:
        if not self.count:
            return float("nan")
        rank, low, below = q * self.count, 0.0, 0.0
        for bound, cumulative in zip(self.bounds, self.cumulative, strict=True):
            if cumulative >= rank:
                if bound == float("inf"):
                    return low
                inside = cumulative - below
                return low + (bound - low) * ((rank - below) / inside if inside else 1.0)
            low, below = bound, cumulative
        return low

    def maximum(self) -> float:
        for bound, cumulative in zip(self.bounds, self.cumulative, strict=True):
            if cumulative >= self.count:
                return bound
        return float("nan")


def parse(text: str) -> dict[str, Histogram]:
    """The histograms of `FIGURES` in a /metrics text."""
    out = {name: Histogram() for name in FIGURES}
    for line in text.splitlines():
        if line.startswith("#") or not line:
            continue
        key, value = line.rsplit(" ", 1)
        for name in FIGURES:
            h = out[name]
            if key.startswith(name + "_bucket{"):
                le = key.split('le="', 1)[1].split('"', 1)[0]
                h.bounds.append(float(le))
                h.cumulative.append(float(value))
            elif key == name + "_sum":
                h.total = float(value)
            elif key == name + "_count":
                h.count = float(value)
    return out


def scrape(base: str) -> dict[str, Histogram]:
    request = urllib.request.Request(base + "/metrics",
                                     headers={"Authorization": f"Bearer {TOKEN}"})  # fmt: skip
    with urllib.request.urlopen(request, timeout=30) as answer:
        return parse(answer.read().decode())


def window(bases: tuple[str, ...], before: list[dict[str, Histogram]]) -> dict[str, Histogram]:
    """The figures since `before` (one scrape per base, in order), summed over the bases."""
    out = {name: Histogram() for name in FIGURES}
    for base, earlier in zip(bases, before, strict=True):
        now = scrape(base)
        for name in FIGURES:
            out[name] = out[name].plus(now[name].minus(earlier[name]))
    return out


def describe(figures: dict[str, Histogram], seconds: float) -> list[tuple[str, str]]:
    """(what, value) lines for the report."""
    size = figures["omaha_store_group_writes"]
    commit = figures["omaha_store_commit_seconds"]
    wait = figures["omaha_store_write_seconds"]
    if not size.count:
        return [("group commits", "none")]
    ms = 1000.0
    return [
        ("group commits /s", f"{size.count / seconds:,.0f}"),
        ("  writes per commit mean / p50 / max", f"{size.mean():.1f} / {size.quantile(0.5):.1f}"
         f" / <={size.maximum():.0f}"),
        ("  commit time p50 / p99 (ms)",
         f"{commit.quantile(0.5) * ms:.1f} / {commit.quantile(0.99) * ms:.1f}"),
        ("  a write's wait for its commit p50 / p99 (ms)",
         f"{wait.quantile(0.5) * ms:.1f} / {wait.quantile(0.99) * ms:.1f}"),
        ("  a write's wait mean (ms)", f"{wait.mean() * ms:.1f}"),
        *pauses(figures),
    ]  # fmt: skip


def pauses(figures: dict[str, Histogram]) -> list[tuple[str, str]]:
    """The servers' pauses over the window (app/pauses.py): what stops every table at once."""
    young, full = figures["omaha_gc_young_pause_seconds"], figures["omaha_gc_full_pause_seconds"]
    late = figures["omaha_loop_late_seconds"]
    if not late.count:
        return []
    ms = 1000.0
    lines = [("loop late p50 / p99 / max (ms)", f"{late.quantile(0.5) * ms:.1f} / "
              f"{late.quantile(0.99) * ms:.1f} / <={late.maximum() * ms:.0f}"),
             ("young collections: count, p99 / max (ms)", f"{young.count:.0f}, "
              f"{young.quantile(0.99) * ms:.1f} / <={young.maximum() * ms:.1f}")]  # fmt: skip
    if full.count:
        lines.append(("full collections: count, total (ms)",
                      f"{full.count:.0f}, {full.total * ms:.0f}"))  # fmt: skip
    return lines
