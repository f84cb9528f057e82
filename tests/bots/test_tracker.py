"""The tracker reads the protocol's messages into what the player knows: checked against the
table's own hand state at every turn of a bot, for bots playing every game."""

from __future__ import annotations

import asyncio
from typing import Any

import orjson
import pytest

from app.bots.player import Bot
from app.bots.tracker import Tracker
from app.poker import card_str
from app.tables.config import TableConfig
from app.tables.table import Runtime, Table
from app.tables.viewer import CLOSE_TOO_SLOW, Viewer
from tests.tables.stores import MemoryTableStore

FAST = Runtime(
    between_hands=0, clock_enabled=False, away_grace=3600, bot_think=0.0, deal_unwatched=True
)


class Checking(Viewer):
    """A second connection of a bot's player: tracks every message as it is sent and compares
    the tracker with the hand state at each of the player's turns."""

    def __init__(self, table: Table, player_id: str) -> None:
        super().__init__(player_id, limit=10**9)
        self.table = table
        self.tracker = Tracker(player_id)
        self.turns = 0

    def send_many(self, messages: list[str]) -> None:
        for message in messages:
            self.send(message)

    def send(self, message: dict[str, Any] | str) -> None:
        m = orjson.loads(message) if isinstance(message, str) else message
        self.tracker.see(m)
        if m.get("type") == "turn" and "legal" in m:
            self.check(m)

    def check(self, turn: dict[str, Any]) -> None:
        hand = self.table.hand
        assert hand is not None
        state = hand.state
        situation = self.tracker.situation(turn)
        if state.phase != "betting":
            return
        assert situation is not None
        me = hand.players.index(self.player_id or "")
        assert situation.pot == state.pot_total()
        assert situation.hole == tuple(card_str(c) for c in state.hole[me])
        assert situation.opponents == len(state.contenders()) - 1
        boards = tuple(tuple(card_str(c) for c in b) for b in state.boards[0])
        assert situation.boards == boards
        self.turns += 1


@pytest.mark.parametrize(
    "config",
    [
        {"game": "omaha", "straddle": True, "ante": 1},
        {"game": "big-o", "boards": 2, "run_it_twice": True},
        {"game": "courchevel-hi-lo", "betting": "fixed-limit", "bomb_pot_every": 2},
        {"game": "six-card-omaha", "betting": "no-limit"},
    ],
)
async def test_the_tracker_knows_what_the_table_holds(config: dict[str, Any]) -> None:
    store = MemoryTableStore()
    table_id = await store.create_table(
        "host", TableConfig(seats=4, decision_time=0, **config), "c"
    )
    table = Table(await store.load_table(table_id), store, FAST)
    task = asyncio.create_task(table.run())
    try:
        await table.request("pause", "host")
        bots = [(await table.request("add_bot", "host", seat=s))["player_id"] for s in range(4)]
        checking = Checking(table, bots[0])
        await table.request("attach", bots[0], viewer=checking)
        await table.request("attach", "host", viewer=Viewer("host", limit=10**9))  # watching
        await table.request("resume", "host")
        for _ in range(3000):
            if table.hand_number >= 12 and table.hand and table.hand.state.complete:
                break
            await asyncio.sleep(0.005)
        assert table.hand_number >= 12
        assert checking.turns >= 10
        for bot, _ in table._bots.values():
            assert not bot.errors
    finally:
        table.shutdown()
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)


async def test_a_bot_that_falls_behind_reconnects_and_plays_on() -> None:
    store = MemoryTableStore()
    table_id = await store.create_table("host", TableConfig(seats=2, decision_time=0), "c")
    table = Table(await store.load_table(table_id), store, FAST)
    task = asyncio.create_task(table.run())
    try:
        await table.request("pause", "host")
        first = (await table.request("add_bot", "host", seat=0))["player_id"]
        await table.request("add_bot", "host", seat=1)
        await table.request("attach", "host", viewer=Viewer("host", limit=10**9))  # watching
        await table.request("resume", "host")
        for _ in range(2000):
            if table.hand_number >= 3:
                break
            await asyncio.sleep(0.005)
        bot, _ = table._bots[first]
        old = bot.viewer
        old.close(CLOSE_TOO_SLOW, "too slow")  # as if its outbox had overflowed
        played = table.hand_number
        for _ in range(2000):
            if table.hand_number >= played + 3:
                break
            await asyncio.sleep(0.005)
        assert table.hand_number >= played + 3  # no clock: only a playing bot moves it on
        assert bot.viewer is not old and bot.viewer.id in table.viewers
    finally:
        table.shutdown()
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)


async def test_bots_alone_play_only_while_a_person_watches() -> None:
    store = MemoryTableStore()
    table_id = await store.create_table("host", TableConfig(seats=2, decision_time=0), "c")
    table = Table(await store.load_table(table_id), store, FAST)
    task = asyncio.create_task(table.run())
    try:
        for seat in range(2):
            await table.request("add_bot", "host", seat=seat)
        await table.quiet()  # what the seats set off has been handled: no timer due, no mail
        assert table.hand_number == 0  # seated, posting, and nobody to play for
        assert not table.core.clock.deadlines  # nor will be: only an `attach` deals again
        person = Viewer("host", limit=10**9)
        await table.request("attach", "host", viewer=person)
        for _ in range(2000):
            if table.hand_number >= 3:
                break
            await asyncio.sleep(0.005)
        assert table.hand_number >= 3
        await table.request("detach", "host", viewer=person)
        for _ in range(2000):  # the hand in play is played out, then no more
            if table.hand is None or table.hand.state.complete:
                break
            await asyncio.sleep(0.005)
        played = table.hand_number
        await table.quiet()  # the next hand's timer fired and dealt nothing
        assert table.hand_number == played
        assert not table.core.clock.deadlines
    finally:
        table.shutdown()
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)


async def test_a_bot_that_fails_is_started_again(monkeypatch: pytest.MonkeyPatch) -> None:
    failed: list[str] = []
    real = Bot._act

    async def once(self: Bot, turn: dict[str, Any]) -> None:
        if not failed:
            failed.append(self.player_id)
            raise RuntimeError("a bug in a bot")
        await real(self, turn)

    monkeypatch.setattr(Bot, "_act", once)
    store = MemoryTableStore()
    table_id = await store.create_table("host", TableConfig(seats=2, decision_time=0), "c")
    table = Table(await store.load_table(table_id), store, FAST)
    task = asyncio.create_task(table.run())
    try:
        for seat in range(2):
            await table.request("add_bot", "host", seat=seat)
        await table.request("attach", "host", viewer=Viewer("host", limit=10**9))
        for _ in range(2000):
            if table.hand_number >= 3:
                break
            await asyncio.sleep(0.005)
        assert failed and table.hand_number >= 3  # no clock: only a restarted bot plays on
        assert table._bot_failures == {failed[0]: 1}
    finally:
        table.shutdown()
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
