"""A seat request seen from its requester (issue 26, item 5): the snapshot says it is pending,
`cancel_request` withdraws it (told to everyone, so the host's list drops it), and a cancel
with nothing pending is a typed error that changes nothing."""

from __future__ import annotations

import pytest

from app.tables.config import TableConfig
from app.tables.errors import TableError
from tests.tables.harness import Recorder, start


async def test_the_requester_sees_the_request_and_may_cancel_it() -> None:
    h = await start(TableConfig(seats=4, approval_required=True, decision_time=0))
    await h.sit("host", 0)
    assert (await h.sit("a", 2))["status"] == "requested"

    mine = Recorder("a")
    await h.table.request("attach", "a", viewer=mine)
    [snapshot] = mine.of("snapshot")
    assert snapshot["you"]["request"] == {"player_id": "a", "name": "a", "seat": 2, "buy_in": 100}
    assert "requests" not in snapshot  # the list of everyone's requests stays the host's
    other = Recorder("b")
    await h.table.request("attach", "b", viewer=other)
    assert other.of("snapshot")[0]["you"]["request"] is None

    host = Recorder("host")
    await h.table.request("attach", "host", viewer=host)
    assert (await h.table.request("cancel_request", "a"))["status"] == "cancelled"
    await h.settle()
    told = host.of("seat_request_cancelled")
    assert [(m["player_id"], m["seat"]) for m in told] == [("a", 2)]
    assert "a" not in h.table.requests
    with pytest.raises(TableError) as refused:
        await h.table.request("approve", "host", player_id="a")
    assert refused.value.code == "no_such_request"
    assert h.table.seats[2] is None
    await h.stop()


async def test_a_cancel_without_a_request_is_refused_and_changes_nothing() -> None:
    h = await start(TableConfig(seats=4, approval_required=True, decision_time=0))
    await h.sit("host", 0)
    await h.sit("b", 1)
    seq = h.table.seq
    for who in ("a", "host"):  # nobody asked; the host is seated without asking
        with pytest.raises(TableError) as refused:
            await h.table.request("cancel_request", who)
        assert refused.value.code == "no_such_request"
    assert list(h.table.requests) == ["b"] and h.table.seq == seq
    await h.stop()


async def test_leaving_with_a_request_withdraws_it_for_everyone() -> None:
    h = await start(TableConfig(seats=4, approval_required=True, decision_time=0))
    await h.sit("host", 0)
    await h.sit("a", 3)
    host = Recorder("host")
    await h.table.request("attach", "host", viewer=host)
    assert (await h.table.request("leave", "a"))["status"] == "left"
    await h.settle()
    assert [m["player_id"] for m in host.of("seat_request_cancelled")] == ["a"]
    assert not h.table.requests
    await h.stop()
