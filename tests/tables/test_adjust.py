"""The reason of a host's adjustment (app.tables.adjust): bounded and one line, refused with a
typed error that changes nothing, announced with the adjustment, joined while it waits for
the end of a hand."""

from __future__ import annotations

import pytest

from app.tables.adjust import REASON_MAX, REASONS_MAX, clean_reason, join_reasons
from app.tables.config import TableConfig
from app.tables.errors import TableError
from tests.tables.harness import start
from tests.tables.test_host_bounds import attach


@pytest.mark.parametrize(
    ("given", "kept"),
    [
        (None, ""),
        ("", ""),
        ("  Paid in cash  ", "Paid in cash"),
        ("x" * REASON_MAX, "x" * REASON_MAX),
    ],
)
def test_a_reason_is_trimmed(given: str | None, kept: str) -> None:
    assert clean_reason(given) == kept


@pytest.mark.parametrize("given", ["x" * (REASON_MAX + 1), "two\nlines", "tab\there", 5, ["a"]])
def test_a_bad_reason_is_refused(given: object) -> None:
    with pytest.raises(TableError) as refused:
        clean_reason(given)
    assert refused.value.code == "bad_reason"


def test_waiting_reasons_are_joined_and_bounded() -> None:
    assert join_reasons("", "Misdeal") == "Misdeal"
    assert join_reasons("Misdeal", "") == "Misdeal"
    assert join_reasons("Misdeal", "Chip found") == "Misdeal; Chip found"
    long = join_reasons("a" * REASON_MAX, "b" * REASON_MAX)
    for _ in range(3):
        long = join_reasons(long, "c" * REASON_MAX)
    assert len(long) == REASONS_MAX and long.endswith("…")


async def test_the_reason_is_announced_and_a_bad_one_changes_nothing() -> None:
    h = await start(TableConfig(seats=4, decision_time=0))
    await h.table.request("pause", "host")
    await h.sit("host", 0)
    await h.sit("a", 1)
    viewer = await attach(h, "a")
    stack = h.table.seats[1].stack  # type: ignore[union-attr]
    with pytest.raises(TableError) as refused:
        await h.table.request("adjust", "host", seat=1, amount=10, reason="x" * 101)
    assert refused.value.code == "bad_reason"
    assert h.table.seats[1].stack == stack  # type: ignore[union-attr]
    assert not viewer.of("adjusted")
    await h.table.request("adjust", "host", seat=1, amount=10, reason="Rebuy paid in cash")
    (event,) = viewer.of("adjusted")
    assert event["reason"] == "Rebuy paid in cash" and event["amount"] == 10
    assert [(a.amount, a.reason) for a in await h.store.adjustments(h.table.id)] == [
        (10, "Rebuy paid in cash")
    ]
    assert h.balance_ok()
    h.task.cancel()
