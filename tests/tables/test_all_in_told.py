"""A hand with an all-in is told as it ends, stored (`Table.on_all_in`: the review worker
computes its equities then, app/api/review.py); a hand without one is not."""

from __future__ import annotations

from app.poker import Betting
from app.tables.config import TableConfig
from tests.tables.harness import Recorder, start
from tests.tables.test_watching import deal, finish


async def test_the_end_of_an_all_in_hand_is_told_once_and_no_other() -> None:
    h = await start(TableConfig(seats=2, decision_time=0, betting=Betting.NO_LIMIT))
    told: list[tuple[str, str, bool]] = []

    def on_all_in(table_id: str, hand_id: str) -> None:
        hand = h.table.hand
        stored = hand is not None and hand.id == hand_id and hand.state.complete
        told.append((table_id, hand_id, stored))

    h.table.on_all_in = on_all_in
    await h.table.request("pause", "host")
    await h.sit("a", 0)
    await h.sit("b", 1)
    await h.table.request("attach", "a", viewer=Recorder("a"))
    await deal(h.table)
    folded = h.table.hand
    assert folded is not None
    await finish(h.table)  # checked and folded: no all-in
    assert told == []
    await deal(h.table)
    shoved = h.table.hand
    assert shoved is not None
    legal = shoved.state.legal_actions()
    assert legal is not None and legal.raise_kind is not None
    await h.act(str(legal.raise_kind), amount=legal.max_to)  # all in, and called
    await h.act("call")
    await finish(h.table)  # (the showdown, if either is asked to show)
    assert shoved.state.complete
    assert told == [(h.table.id, shoved.id, True)], told
    await h.stop()
