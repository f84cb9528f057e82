"""bench/load.py's reading of a run, without a run: the relay's added latency split in two,
and a server log's errors reduced to the first of each kind."""

from __future__ import annotations

from bench import bots, fleet, load


def test_the_relay_split_reads_the_way_out_and_the_way_in() -> None:
    c = bots.Counters()
    assert load.relay_split(c) == []  # nothing relayed: nothing claimed
    c.out_hops = [0.002] * 90 + [0.010] * 10
    c.direct_seats = {False: [0.003] * 100, True: [0.005] * 100}
    out, way_in = load.relay_split(c)
    assert "p50 2.0  p99 10.0 ms (100 messages)" in out
    assert "p50 +2.0  p99 +2.0 ms (actor direct p50 3.0, relayed 5.0)" in way_in


def test_a_burst_of_one_failure_reads_as_its_first_line_and_its_cause() -> None:
    lines = [
        "2026-12-07 16:47:52,800 ERROR omaha.tables: table 91dfff64-a7ae-45c9-a12a-959f5fedaf3c:"
        " the database did not answer a write within 5.0 s",
        *(f"2026-12-07 16:47:52,8{i:02d} ERROR omaha.tables: table {i:08x}-a7ae-45c9-a12a-"
          f"959f5fedaf3c: cannot store an action; it is not applied" for i in range(50)),
    ]  # fmt: skip
    kinds = fleet.first_of_each_kind(lines)
    assert len(kinds) == 2 and kinds[0] == lines[0] and kinds[1] == lines[1], kinds
