"""The protocol did not move: a scripted evening (tests/tables/session.py: two tables, five
players, every command and event kind the table has) replays to the messages recorded in
recorded_session.json on the commit before the table became a state machine (b8cfe3c: first
recorded on 9cf6830, then again once the seat rules of issue 25 and the server's labels had
landed, once a showdown choice kept its short clock at a table with no decision clock, once
the rabbit hunt's setting and `after_hand` came, and once the host's pause stopped the
hand's clock (`clock_stopped`; the clocked table no longer pauses mid-hand) (issue 26): each
changes messages on purpose; and once the ledger was read after every all-in share was stored,
its adjusted nets before depending on the review worker's speed), apart from ids, seeds and
times. Re-record only
for an intended change of the protocol:
`python -m tests.tables.session tests/tables/recorded_session.json`."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

from fastapi import FastAPI

from tests.tables.harness import FakeClock
from tests.tables.session import Advance, canonical, record, settings_for

RECORDED = Path(__file__).with_name("recorded_session.json")


def fake_clock(app: FastAPI) -> Advance:
    """The tables' clock made a fake one: the clock's time-outs come when the script says."""
    clock = FakeClock()
    registry = app.state.tables
    registry.runtime = replace(registry.runtime, clock=clock)
    return clock.advance


async def test_a_recorded_session_replays_to_the_same_messages(tmp_path: Path) -> None:
    """Recorded on real time; replayed on a fake clock (the same messages either way)."""
    expected = canonical(json.loads(RECORDED.read_text()))
    got = canonical(await record(settings_for(tmp_path), fake_clock))
    assert got.keys() == expected.keys()
    for who in expected:
        for part in ("events", "others"):
            mine, theirs = got[who][part], expected[who][part]
            for i, (m, e) in enumerate(zip(mine, theirs, strict=False)):
                assert m == e, f"{who}'s {part}[{i}] changed:\n got {m}\n was {e}"
            assert len(mine) == len(theirs), (who, part, len(mine), len(theirs))
