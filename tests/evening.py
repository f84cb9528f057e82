"""A short evening on a live server, through the protocol, and what it left to read back.

`play_an_evening`: a cash table (two people and a practice bot, a client seed, a few hands,
a top-up, an adjustment, the seed rotated and revealed) and a sit-and-go played out by the
clock. `Readback` is what a server serves of the cash table (every hand's exports, the
ledger, the deals), to compare two servers of the same data. (A finished tournament is not
served after a restart, app/tournaments/hall.py: its standings are read from the store.)"""

from __future__ import annotations

import asyncio
import random
from dataclasses import dataclass
from typing import Any

from tests.api.live import Client, bot
from tests.waits import within

HANDS = 3
#: levels that end a sit-and-go of two absent players in a few hands (the blinds pass the
#: stacks at once, and every decision times out at once)
FAST_TOURNAMENT = {
    "name": "Sunday",
    "starting_stack": 100,
    "structure": "custom",
    "levels": [{"small_blind": sb, "big_blind": 2 * sb, "minutes": 0.002} for sb in (25, 50, 100)],
    "payouts": [7000, 3000],
    "prize_pool": 100,
    "decision_time": 0.01,
    "time_bank": 0,
}


@dataclass
class Evening:
    host: Client
    guest: Client
    table: str  # the cash table's code
    tournament: str  # the tournament's code

    async def close(self) -> None:
        for c in (self.host, self.guest):
            await c.close()


async def ok(c: Client, **message: Any) -> dict[str, Any]:
    reply = await c.request(**message)
    assert reply["type"] == "ok", (message, reply)
    return reply


def ended(c: Client) -> int:
    return sum(1 for m in c.messages if m["type"] == "hand_ended")


async def play_an_evening(base: str) -> Evening:
    host, guest = Client(base), Client(base)
    await host.join("Host")
    await guest.join("Guest")
    # (a maximum above the three stacks together: the top-up below fits whatever was dealt)
    code = await host.create_table(decision_time=0, seats=3, buy_in_max=400)
    for c in (host, guest):
        await c.connect(code)
    await ok(host, type="sit", seat=0, buy_in=100)
    await ok(guest, type="sit", seat=1, buy_in=100)
    await ok(guest, type="seed", seed="guest's own seed")  # (from the next hand on)
    await ok(host, type="add_bot", seat=2, buy_in=100)
    stop = asyncio.Event()
    # (they play on until stopped: the hand dealt before the pause is played out too)
    players = [asyncio.create_task(bot(c, random.Random(k), 10**6, stop))
               for k, c in enumerate((host, guest))]  # fmt: skip
    try:
        await within(lambda: ended(host) >= HANDS, 120)
        await ok(host, type="pause")
        await within(
            lambda: ended(host) == sum(m["type"] == "hand_started" for m in host.messages), 120
        )
    finally:
        stop.set()
        await asyncio.gather(*players, return_exceptions=True)
    await ok(guest, type="top_up", amount=20)
    await ok(host, type="adjust", seat=1, amount=5, reason="tip from the host")
    await ok(host, type="rotate_seed")

    r = await host.http.post("/api/tournaments", json=FAST_TOURNAMENT)
    assert r.status_code == 201, r.text
    tournament = r.json()["code"]
    for c in (host, guest):
        assert (await c.http.post(f"/api/tournaments/{tournament}/register")).status_code == 200
    assert (await host.http.post(f"/api/tournaments/{tournament}/start")).status_code == 200
    async with asyncio.timeout(120):
        while (await host.http.get(f"/api/tournaments/{tournament}")).json()[
            "status"
        ] != "finished":
            await asyncio.sleep(0.05)
    return Evening(host, guest, code, tournament)


@dataclass
class Readback:
    """What a server answers about the evening, as text: equal for two servers of the same
    data. `hands` maps each hand's number to its PHH and PokerStars exports."""

    hands: dict[int, tuple[str, str]]
    phhs: str
    ledger: dict[str, Any]
    deals: dict[str, Any]


async def read_back(c: Client, table: str) -> Readback:
    async def text(url: str) -> str:
        r = await c.http.get(url)
        assert r.status_code == 200, (url, r.text)
        return r.text

    numbers: list[int] = []
    cursor = None
    while True:
        page = (await c.http.get(f"/api/tables/{table}/hands",
                                 params={"cursor": cursor} if cursor else {})).json()  # fmt: skip
        numbers += [h["number"] for h in page["hands"]]
        if (cursor := page["next"]) is None:
            break
    hands = {}
    for n in numbers:
        hands[n] = (await text(f"/api/hands/{n}/hand.phh"),
                    await text(f"/api/hands/{n}/pokerstars.txt"))  # fmt: skip
    return Readback(
        hands=hands,
        phhs=await text(f"/api/tables/{table}/hands.phhs"),
        ledger=(await c.http.get(f"/api/tables/{table}/ledger")).json(),
        deals=(await c.http.get(f"/api/tables/{table}/deals.json")).json(),
    )
