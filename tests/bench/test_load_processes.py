"""bench/load.py on two server processes (one PostgreSQL with its default durability, one
redis-server), briefly: the comparison has a column per run, the tables are spread over both
processes, half of each table's seats are relayed in the second run (both runs on the same
two processes, started once), and every bot check holds (no violation, no error frame,
every hand ended)."""

from __future__ import annotations

from bench import fleet, load, runs
from tests.sizes import sample

TABLES = 4
SECONDS = float(sample(2, 4))


def test_two_processes_side_by_side_with_relayed_seats() -> None:
    fleet.raise_open_files()
    with fleet.backing_servers(durable=True) as backing:
        settings = fleet.durability(backing)

        # Both runs on the same two server processes (their start is most of a run here):
        # the second's tables are new, placed and checked like the first's.
        with runs.started_servers(backing, "omaha_bench", True, servers=2) as running:

            def run(relayed: float) -> runs.Result:  # correctness only: no commits figure
                return runs.run_on(running, backing, TABLES, SECONDS, 0.0, 1, relayed=relayed,
                                   commits_figure=False)  # fmt: skip

            results = [("direct", run(0.0)), ("relayed", run(0.5))]
    text = load.side_by_side(results, 0.0, settings)
    # Placement used both processes. Counted over both runs: the second run's tables go to the
    # process the first left less loaded, which may be one process for all of them.
    owned = set(results[0][1].counters.owned) | set(results[1][1].counters.owned)
    assert owned == {"p0", "p1"}, text
    assert "fsync=on" in text and "synchronous_commit=on" in text, text
    header = next(line for line in text.splitlines() if line.startswith("figure"))
    assert "direct" in header and "relayed" in header, text
    for label, result in results:
        c = result.counters
        assert runs.ok(result), text
        assert not c.violations and c.errors == 0 and c.unfinished == 0, text
        assert c.tables_checked == TABLES and c.actions > 0, text
        assert c.relayed == (0 if label == "direct" else TABLES * 3), text
    # the relayed run's added latency split into the way out and the way in
    assert not results[0][1].counters.out_hops and results[1][1].counters.out_hops, text
    assert "relay out: last relayed - last direct" in text, text
    assert "relay in: direct seats, relayed - direct" in text, text  # both kinds of actor
