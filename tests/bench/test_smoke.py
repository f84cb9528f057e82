"""A small run of each benchmark that has no test of its own (bench/load.py has
test_load_small.py and test_load_processes.py): each prints its figures beside its
reference. Speed is never asserted here, only that every row is measured on both sides."""

from __future__ import annotations

import asyncio

import pytest

from bench import bots, engine, frame_clock, history, presence_refresh, runs


def test_engine_rows_have_both_engines() -> None:
    rows = engine.bench_evaluation(deals=300, pokerkit_deals=10)
    rows += engine.bench_hands(hands=20, pokerkit_hands=5)
    assert len(rows) == 8
    for row in rows:
        assert row.ours_per_s > 0 and row.reference_per_s and row.ratio, row
    table = engine.format_table(rows)
    assert "Whole hand, pot-limit Omaha" in table and "Whole hand, fixed-limit" in table


def test_ceiling_delivers_to_every_seat() -> None:
    result = runs.run_ceiling(2, 2.0, 0.0, 1, 3.5, 140)
    c = result.counters
    assert c.connections == 2 * bots.SEATS
    assert c.actions > 0 and c.latencies
    assert c.errors == 0 and c.closed == 0


def test_equity_is_printed_beside_pokerkit(capsys: pytest.CaptureFixture[str]) -> None:
    history.bench_equity(0.05)
    out = capsys.readouterr().out
    assert "two-way on the flop" in out and "three-way on the flop" in out
    assert out.count("x\n") >= 2  # a ratio on each row


def test_history_list_is_printed_beside_its_reference(
    capsys: pytest.CaptureFixture[str],
) -> None:
    asyncio.run(history.bench_list(hands=30, tables=1, requests=3))
    out = capsys.readouterr().out
    assert "first page" in out and "reference: first page without the serial indexes" in out


def test_frame_clock_times_both_pages() -> None:
    runs = frame_clock.measure(seconds=1.5, rounds=1)
    for moving in (False, True):
        got = runs[moving]
        assert len(got["frame"]) == len(got["wait"]) >= 5, (moving, got)
        assert got["presented"], moving  # Element Timing answered for its frames
        assert all(f >= w >= 0 for f, w in zip(got["frame"], got["wait"], strict=True))


def test_presence_refresh_counts_both_ways(capsys: pytest.CaptureFixture[str]) -> None:
    presence_refresh.main(
        ["--connections", "30", "--tables", "5", "--ttl", "1.5", "--periods", "1"]
    )
    out = capsys.readouterr().out
    rows = [line.split() for line in out.splitlines() if line.startswith("backend calls")]
    assert len(rows) == 2, out  # in process and Redis
    for row in rows:
        before, after = float(row[-2]), float(row[-1])
        # every connection's own timer fired at least once in the window; the keeper's one
        # call a period covers them all
        assert before >= 30 > after >= 1, out
