"""bench/capacity.py's reading of a sweep: the knee is the most tables held at p99 <= 50 ms
before the first count that was not, and the summary states the issue's two targets from it.
(The runs themselves are bench/load.py's, exercised by tests/bench/test_load_*.py.)"""

from __future__ import annotations

from bench import bots, capacity, runs


def run(tables: int, p99_ms: float, violations: int = 0) -> runs.Result:
    counters = bots.Counters(latencies=[p99_ms / 1000] * 100)
    counters.violations = ["v"] * violations
    return runs.Result("server", tables, 20.0, counters)


def point(tables: int, processes: int, p99_ms: float, violations: int = 0) -> capacity.Point:
    return capacity.Point(tables, processes, [run(tables, p99_ms, violations)])


def test_the_knee_is_the_last_count_held_before_the_first_over() -> None:
    points = [point(100, 1, 10), point(250, 1, 40), point(500, 1, 80), point(1000, 1, 45),
              point(100, 2, 8), point(250, 2, 9), point(500, 2, 30)]  # fmt: skip
    assert capacity.knee(points, 1) == 250  # 1,000 held after 500 did not: noise, not capacity
    assert capacity.knee(points, 2) == 500
    assert capacity.knee(points, 3) == 0
    text = capacity.summary(points, [1, 2], "fsync=on", 2.0)
    assert "knee, 1 process(es): 250 tables\n" in text + "\n"
    assert "knee, 2 process(es): 500 tables (the largest count tried: at least this)" in text
    assert "2 processes / 1: 2.00 (target >= 1.6)" in text
    assert "1 process at 1,000 tables: not held" in text


def test_a_point_whose_checks_failed_is_not_held_whatever_its_latency() -> None:
    points = [point(100, 1, 5), point(250, 1, 5, violations=1)]
    assert not points[1].held
    assert capacity.knee(points, 1) == 100
    assert "checks FAILED" in capacity.line(points[1])


def test_a_point_says_how_long_its_writes_waited_for_their_commits() -> None:
    from bench.commits import Histogram

    p = point(250, 1, 40)
    assert "commit wait" not in capacity.line(p)  # not scraped: nothing claimed
    # 100 writes: 90 within 2 ms, 10 within 50 ms
    p.result.store["omaha_store_write_seconds"] = Histogram(
        [0.002, 0.05, float("inf")], [90, 100, 100], 0.5, 100
    )
    assert "(commit wait p50 1.1 p99 45.2 ms)" in capacity.line(p)


def test_a_repeated_point_reads_as_its_median_run() -> None:
    # 100 tables: one run of three stalled on a commit; 250: two of three over
    points = [capacity.Point(100, 1, [run(100, 12), run(100, 61.5), run(100, 14)]),
              capacity.Point(250, 1, [run(250, 30), run(250, 55), run(250, 70)])]  # fmt: skip
    assert [p.p99 for p in points] == [14, 55]
    assert capacity.knee(points, 1) == 100
    assert "(runs' p99: 12.0, 61.5, 14.0)" in capacity.line(points[0])
    # a run whose checks failed fails the point, however fast the others were
    failed = capacity.Point(100, 1, [run(100, 5), run(100, 5, violations=1), run(100, 5)])
    assert not failed.held and "checks FAILED" in capacity.line(failed)
