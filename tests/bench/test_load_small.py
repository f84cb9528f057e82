"""The small form of bench/load.py: five tables of six bots, flat out for five seconds (ten
under OMAHA_FULL=1), against the server as deployed (``python -m app serve`` in a subprocess)
on the session's throwaway PostgreSQL and redis-server. It asserts correctness only, never
speed: every bot checked every message (sequence, cards it may see, chips conserved at the end
of every hand), no error frame, no connection closed by the server, every hand that started
has ended, and each table's stacks add up to its buy-ins and top-ups."""

from __future__ import annotations

from bench import bots, fleet, load, runs
from tests.servers import PostgresServer
from tests.sizes import sample

TABLES = 5
SECONDS = float(sample(5, 10))


def test_five_tables_play_flat_out_and_stay_correct(
    postgres_server: PostgresServer, redis_url: str
) -> None:
    fleet.raise_open_files()
    backing = fleet.Backing(
        postgres_server.host, postgres_server.port, postgres_server.user, redis_url
    )
    result = runs.run_server(backing, TABLES, SECONDS, think=0.0, processes=1,
                             dbname="omaha_bench_small", commits_figure=False)  # fmt: skip
    c = result.counters
    summary = load.report(result, None, 0.0)
    assert not c.violations, summary
    assert c.errors == 0, summary
    assert c.closed == 0, summary
    assert c.unfinished == 0, summary
    assert c.tables_checked == TABLES, summary
    assert c.connections == TABLES * bots.SEATS, summary
    assert c.hands > 0 and c.actions > 0, summary
