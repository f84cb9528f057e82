"""The bot player against a recording door (no table): what it tells the table, and when."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Generator
from typing import Any

import pytest

from app.bots import player, policy
from app.bots.player import Bot, think_time
from app.tables.viewer import Viewer
from tests.waits import within


class Door:
    def __init__(self) -> None:
        self.told: list[tuple[str, dict[str, Any]]] = []

    def tell(
        self, kind: str, sender: str | None, viewer: Viewer, ref: Any, data: dict[str, Any]
    ) -> None:
        self.told.append((kind, data))

    def post_detach(self, viewer: Viewer) -> None:
        self.told.append(("detach", {}))


async def read(bot: Bot) -> None:
    """Until the bot has read every message sent it: it takes them all at once and sees each
    without waiting, unless one is a new turn (then it thinks: wait for its act instead)."""
    await within(lambda: not bot.viewer.outbox, 30, what="the bot's reading")


SNAPSHOT = {
    "type": "snapshot",
    "table": {"config": {"game": "omaha", "boards": 1, "decision_time": 3}},
    "you": {"seat": 1},
    "seats": [None, {"stack": 50}],
    "hand": None,
}


async def test_a_busted_bot_tops_up_once_to_its_buy_in() -> None:
    door = Door()
    bot = Bot(door, "b", think=0.0, buy_in=120)
    task = asyncio.create_task(bot.run())
    bot.viewer.send(SNAPSHOT)
    bot.viewer.send({"type": "seat", "seat": 1, "player_id": "b", "stack": 0})
    bot.viewer.send({"type": "seat", "seat": 0, "player_id": "x", "stack": 0})  # not its own
    await read(bot)
    assert [k for k, _ in door.told] == ["attach", "top_up"]
    assert door.told[1][1] == {"amount": 120}
    bot.viewer.send({"type": "hand_ended", "hand": None})  # nothing new: no second top-up
    await read(bot)
    assert [k for k, _ in door.told] == ["attach", "top_up"]
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)
    assert door.told[-1][0] == "detach"


async def test_a_bot_answers_its_turn_once_with_the_turn_it_was_given() -> None:
    door = Door()
    bot = Bot(door, "b", think=0.0, buy_in=100)
    task = asyncio.create_task(bot.run())
    bot.viewer.send(SNAPSHOT)
    bot.viewer.send({"type": "hand_started", "hand": "h", "seats": [1, 0], "stacks": [50, 50]})
    for seat, amount in ((1, 1), (0, 2)):  # the blinds: a pot of 3, 1 to call
        bot.viewer.send({"type": "forced_bet", "hand": "h", "seat": seat, "amount": amount})
    bot.viewer.send({"type": "hole_cards", "hand": "h", "seat": 1,
                     "cards": ["As", "Ad", "Kh", "Kd"]})  # fmt: skip
    turn = {
        "type": "turn",
        "hand": "h",
        "counter": 0,
        "seat": 1,
        "legal": {
            "actions": ["fold", "call", "raise"],
            "call": 1,
            "min_to": 4,
            "max_to": 6,
            "pot_to": 6,
        },
    }
    bot.viewer.send(turn)
    await within(lambda: any(kind == "act" for kind, _ in door.told), 30, what="the act")
    bot.viewer.send(dict(turn))  # the same turn again (a duplicate): answered once
    await read(bot)
    acts = [data for kind, data in door.told if kind == "act"]
    assert len(acts) == 1
    assert acts[0]["hand"] == "h" and acts[0]["counter"] == 0
    assert acts[0]["action"] in ("call", "raise")  # aces and kings are not folded
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)


def test_think_time_is_around_the_setting() -> None:
    import random

    rng = random.Random(1)
    times = [think_time(1.5, rng) for _ in range(200)]
    assert min(times) >= 1.0 and max(times) <= 2.0
    assert think_time(0.0, rng) == 0.0


@pytest.mark.parametrize("samples", [policy.SAMPLES, 60])
async def test_a_bots_decision_lets_the_event_loop_run_between_slices_of_its_run_outs(
    monkeypatch: pytest.MonkeyPatch, samples: int
) -> None:
    """300 run-outs take a few milliseconds to a dozen (Big O, six-handed, two boards): all
    at once they held every table of the process for as long. Another task runs between each
    slice of `policy.STEP` run-outs. A bot draws as many run-outs as it is given
    (BOT_SAMPLES)."""
    ticks, seen = 0, []

    async def ticker() -> None:
        nonlocal ticks
        while True:
            ticks += 1
            await asyncio.sleep(0)

    def recording(situation: Any, rng: Any, n: int) -> Generator[None, None, dict[str, Any]]:
        steps = policy.choose_steps(situation, rng, n)
        while True:
            seen.append(ticks)
            try:
                next(steps)
            except StopIteration as done:
                action: dict[str, Any] = done.value
                return action
            yield None

    monkeypatch.setattr(player, "choose_steps", recording)
    door = Door()
    bot = Bot(door, "b", think=0.0, buy_in=100, samples=samples)
    tasks = [asyncio.create_task(bot.run()), asyncio.create_task(ticker())]
    bot.viewer.send(SNAPSHOT)
    bot.viewer.send({"type": "hand_started", "hand": "h", "seats": [1, 0], "stacks": [50, 50]})
    bot.viewer.send({"type": "hole_cards", "hand": "h", "seat": 1,
                     "cards": ["As", "Ad", "Kh", "Kd"]})  # fmt: skip
    legal = {"actions": ["check", "bet"], "min_to": 2, "max_to": 3, "pot_to": 3}
    bot.viewer.send({"type": "turn", "hand": "h", "counter": 0, "seat": 1, "legal": legal})
    await within(lambda: any(kind == "act" for kind, _ in door.told), 30, what="the act")
    assert len(seen) == samples // policy.STEP + 1  # a slice at a time, then the action
    assert all(b > a for a, b in itertools.pairwise(seen)), seen  # the ticker ran
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
