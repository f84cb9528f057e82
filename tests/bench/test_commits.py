"""bench/commits.py: the group writer's figures over a window, read from two /metrics texts
as app/metrics.py writes them."""

from __future__ import annotations

import math

from app.metrics import COMMITS, GROUP_BUCKETS, GROUP_WRITES, WRITE_BUCKETS, WRITES, Histogram
from bench import commits


def text(*histograms: Histogram) -> str:
    return "\n".join(line for h in histograms for line in h.lines()) + "\n"


def test_the_window_s_figures_are_the_difference_of_two_scrapes() -> None:
    sizes = Histogram(GROUP_WRITES.name, "", GROUP_BUCKETS)
    took = Histogram(COMMITS.name, "", WRITE_BUCKETS)
    waits = Histogram(WRITES.name, "", WRITE_BUCKETS)
    for written in (50, 50, 50):  # before the window
        sizes.observe(written)
    before = commits.parse(text(sizes, took, waits))
    for written in (1, 2, 3, 3, 20):
        sizes.observe(written)
        took.observe(0.004)
    for wait in [0.0012] * 98 + [0.04, 0.04]:
        waits.observe(wait)
    after = commits.parse(text(sizes, took, waits))
    window = {name: after[name].minus(before[name]) for name in commits.FIGURES}
    size = window[GROUP_WRITES.name]
    assert size.count == 5 and math.isclose(size.mean(), 29 / 5)
    assert 2 < size.quantile(0.5) <= 3 and size.maximum() == 24  # the bucket holding 20
    assert 1.0e-3 < window[WRITES.name].quantile(0.5) <= 1.5e-3
    assert 0.03 < window[WRITES.name].quantile(0.99) <= 0.05
    lines = dict(commits.describe(window, 5.0))
    assert lines["group commits /s"] == "1"
    assert lines["  writes per commit mean / p50 / max"].startswith("5.8 / ")


def test_no_commit_in_the_window_says_so() -> None:
    empty = commits.parse(text(Histogram(GROUP_WRITES.name, "", GROUP_BUCKETS)))
    assert commits.describe(empty, 5.0) == [("group commits", "none")]


def test_the_servers_pauses_are_described_when_scraped() -> None:
    from app.metrics import GC_FULL, GC_YOUNG, LOOP_LATE, PAUSE_BUCKETS

    young = Histogram(GC_YOUNG.name, "", PAUSE_BUCKETS)
    full = Histogram(GC_FULL.name, "", PAUSE_BUCKETS)
    late = Histogram(LOOP_LATE.name, "", PAUSE_BUCKETS)
    assert commits.pauses(commits.parse(text(young, full, late))) == []  # nothing timed
    for _ in range(99):
        late.observe(0.0001)
        young.observe(0.0003)
    late.observe(0.3)
    full.observe(0.3)
    lines = dict(commits.pauses(commits.parse(text(young, full, late))))
    assert lines["loop late p50 / p99 / max (ms)"].endswith("<=500"), lines
    assert lines["full collections: count, total (ms)"] == "1, 300", lines
    assert lines["young collections: count, p99 / max (ms)"].startswith("99, "), lines
