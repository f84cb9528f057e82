"""Verifiable deals at the table (app.tables.seeds, app.tables.fairness): the server seed's hash
published before the first hand, client seeds (typed errors, stored before the ok), the deck
of each hand from deal-v1, commitments and openings that survive a restart, and the reveal
when the host rotates the seed or closes the table."""

from __future__ import annotations

import hashlib
from typing import Any

import pytest

from app.poker.cards import parse_card
from app.poker.fairness import Opening, deal_deck, merkle_root, salts, verify_opening
from app.tables.config import TableConfig
from app.tables.errors import TableError
from app.tables.table import CLOSE_GRACE
from tests.tables.harness import Harness, Recorder, start
from tests.tables.stores import MemoryTableStore


def opening(data: dict[str, Any]) -> Opening:
    return Opening(data["position"], parse_card(data["card"]), bytes.fromhex(data["salt"]))


async def seated(config: TableConfig | None = None, store: MemoryTableStore | None = None
                 ) -> tuple[Harness, Recorder, Recorder]:  # fmt: skip
    h = await start(config or TableConfig(seats=4, decision_time=0), store=store)
    host, a = Recorder("host"), Recorder("a")
    for v in (host, a):
        await h.table.request("attach", v.player_id, viewer=v)
    await h.table.request("pause", "host")  # seat both before the first deal
    await h.sit("host", 0)
    await h.sit("a", 2)
    return h, host, a


async def test_the_seed_hash_is_published_before_the_first_hand_and_the_deck_follows_the_seeds(
) -> None:  # fmt: skip
    h, host, a = await seated()
    seed = h.table.server_seed
    assert seed is not None
    digest = hashlib.sha256(seed.seed).hexdigest()
    assert h.table.store.seeds[seed.id]["hash"] == digest  # type: ignore[attr-defined]
    snapshot = host.of("snapshot")[0]
    assert snapshot["table"]["deal_seed"] == {"scheme": "deal-v1", "seed_hash": digest,
                                              "reveal": True}  # fmt: skip
    assert (await h.table.request("seed", "a", seed="alice's dice"))["seed"] == "alice's dice"
    await h.table.request("seed", "host", seed="h0st")
    await h.table.request("resume", "host")
    await h.settle()
    hand = h.table.hand
    assert hand is not None and hand.number == 1
    # Seat order (host in seat 0, a in seat 2), not the order of dealing.
    expected = deal_deck(seed.seed, h.table.id, 1, ["h0st", "alice's dice"])
    assert list(hand.state.deck) == expected
    started = a.of("hand_started")[0]
    deal = started["deal"]
    assert deal["seed_hash"] == digest and deal["scheme"] == "deal-v1"
    leaves = [bytes.fromhex(c) for c in deal["commitments"]]
    assert len(leaves) == 52 and merkle_root(leaves).hex() == deal["root"]
    # Each player's own hole cards come with their openings, which verify.
    hole = next(m for m in a.of("hole_cards") if "cards" in m)
    assert [o["card"] for o in hole["openings"]] == hole["cards"]
    assert all(verify_opening(leaves, opening(o)) for o in hole["openings"])
    assert [o["salt"] for o in hole["openings"]] == [
        salts(seed.seed, h.table.id, 1)[o["position"]].hex() for o in hole["openings"]
    ]
    # Nobody gets an opening of another's hole cards.
    others = [m for m in a.of("hole_cards") if m["seat"] != 2]
    assert others and all("openings" not in m and "cards" not in m for m in others)
    await h.stop()


async def test_client_seeds_are_checked_and_stored_before_the_ok() -> None:
    store = MemoryTableStore()
    h, _, _ = await seated(store=store)
    for bad in ["", "x" * 65, "tab\there", "é", 7, None]:
        with pytest.raises(TableError) as e:
            await h.table.request("seed", "a", seed=bad)
        assert e.value.code == "bad_seed"
    with pytest.raises(TableError) as e:
        await h.table.request("seed", "watcher", seed="abc")
    assert e.value.code == "not_seated"
    store.fail_next = 1
    with pytest.raises(TableError) as e:
        await h.table.request("seed", "a", seed="lost")
    assert e.value.code == "unavailable"
    seat = h.table.seat_of("a")
    assert seat is not None and seat.client_seed == ""  # unchanged
    await h.table.request("seed", "a", seed="~kept 1~")
    await h.stop()
    again = await start(TableConfig(), store=store, table_id=h.table.id)
    seat = again.table.seat_of("a")
    assert seat is not None and seat.client_seed == "~kept 1~"
    assert again.table.server_seed == h.table.server_seed  # the session goes on
    await again.stop()


async def test_a_restarted_table_resends_the_same_commitments_and_openings() -> None:
    store = MemoryTableStore()
    h, _, a = await seated(store=store)
    await h.table.request("resume", "host")
    await h.settle()
    await h.act("call")
    await h.act("check")  # the flop is dealt
    hand = h.table.hand
    assert hand is not None and not hand.state.complete and hand.state.boards[0][0]
    started = a.of("hand_started")[-1]
    board = a.of("board")[-1]
    live = {o["position"]: o for m in [*a.of("hole_cards"), board] for o in m.get("openings", [])}
    await h.stop()
    again = await start(TableConfig(), store=store, table_id=h.table.id)
    viewer = Recorder("a")
    await again.table.request("attach", "a", viewer=viewer)
    snap = viewer.of("snapshot")[0]["hand"]
    assert snap["deal"] == started["deal"]
    resent = {o["position"]: o for o in snap["openings"]}
    assert resent == live and len(resent) == 4 + 3
    # A spectator's snapshot opens the board only.
    watcher = Recorder(None)
    await again.table.request("attach", None, viewer=watcher)
    assert {o["position"] for o in watcher.of("snapshot")[0]["hand"]["openings"]} == {
        o["position"] for o in board["openings"]
    }
    await again.stop()


async def test_rotating_the_seed_reveals_it_between_hands_only() -> None:
    h, _host, a = await seated()
    old = h.table.server_seed
    assert old is not None
    await h.table.request("resume", "host")
    await h.settle()
    with pytest.raises(TableError) as e:
        await h.table.request("rotate_seed", "host")
    assert e.value.code == "hand_running"
    with pytest.raises(TableError) as e:
        await h.table.request("rotate_seed", "a")
    assert e.value.code == "not_host"
    assert not a.of("seed_revealed")
    await h.table.request("pause", "host")
    while h.table.hand is not None and not h.table.hand.state.complete:
        await h.passive()
    answer = await h.table.request("rotate_seed", "host")
    new = h.table.server_seed
    assert new is not None and new != old and answer["seed_hash"] == new.hash
    revealed = a.of("seed_revealed")[-1]
    assert revealed["seed"] == old.seed.hex()
    assert hashlib.sha256(bytes.fromhex(revealed["seed"])).hexdigest() == revealed["seed_hash"]
    assert a.of("deal_seed")[-1]["seed_hash"] == new.hash
    # Hand 1's deck is recomputed from the revealed seed.
    assert list(h.table.hand.state.deck) == deal_deck(  # type: ignore[union-attr]
        bytes.fromhex(revealed["seed"]), h.table.id, 1, ["", ""]
    )
    await h.table.request("resume", "host")
    await h.settle()
    assert a.of("hand_started")[-1]["deal"]["seed_hash"] == new.hash
    await h.stop()


async def test_closing_reveals_the_seed_unless_the_table_keeps_it() -> None:
    for reveal in (True, False):
        h, _, a = await seated(TableConfig(seats=4, decision_time=0, reveal_seed=reveal))
        seed = h.table.server_seed
        assert seed is not None
        assert (await h.table.request("close", "host"))["status"] == "closed"
        h.clock.advance(CLOSE_GRACE)
        await h.task
        shown = a.of("seed_revealed")
        assert [m["seed"] for m in shown] == ([seed.seed.hex()] if reveal else [])
        assert h.table.store.seeds[seed.id]["revealed"] is reveal  # type: ignore[attr-defined]
        assert a.got[-1]["type"] == "closed"
