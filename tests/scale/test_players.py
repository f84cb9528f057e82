"""The fault test's players (tests/scale/players.py) as clients: what they send again. No
server: a player is fed the messages a table would send and its sends are read back."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from tests.scale.players import Player


class Socket:
    """What a player sends, kept."""

    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []

    async def send(self, text: str) -> None:
        self.sent.append(json.loads(text))

    def top_ups(self) -> list[dict[str, Any]]:
        return [m for m in self.sent if m["type"] == "top_up"]


def busted_player() -> tuple[Player, Socket]:
    """Player t0p1 on seat 1, connected, who has just lost a hand's all-in: its stack is 0."""
    p = Player("t0p1", 1, "code", ["a"], lambda name: "http://a", random.Random(1))
    p.player_id, p.ws, p.connections = "p1", Socket(), 1
    p._on({"type": "snapshot", "stream": "s", "seq": 1, "you": {"player_id": "p1"},
           "seats": [None, seat(100), None], "hand": None})  # fmt: skip
    p._on({"type": "hand_ended", "seq": 2, "hand": "h", "stacks": {"0": 300, "1": 0, "2": 0}})
    p._on({"type": "seat", "seq": 3, **seat(0)})
    return p, p.ws


def seat(stack: int) -> dict[str, Any]:
    return {"seat": 1, "player_id": "p1", "stack": stack}


@pytest.mark.parametrize("refused", ["unavailable", "rate_limited"])
async def test_a_top_up_refused_with_nothing_done_is_sent_again(refused: str) -> None:
    """The short fault run stalled: PostgreSQL went down as a hand ended with two of three
    players busted; both top-ups were answered `unavailable` (nothing changed) and neither
    was sent again, so the table, one stack left to deal to, rightly waited for ever."""
    p, ws = busted_player()
    await p._act()
    (first,) = ws.top_ups()
    p._on({"type": "error", "code": refused, "id": first["id"]})
    await p._act()
    assert len(ws.top_ups()) == 2  # sent again
    second = ws.top_ups()[1]
    p._on({"type": "seat", "seq": 4, **seat(100)})  # the table tells, then answers
    p._on({"type": "ok", "id": second["id"], "status": "done"})
    await p._act()
    assert len(ws.top_ups()) == 2  # done: once


async def test_a_top_up_lost_with_its_connection_is_sent_again_unless_it_was_applied() -> None:
    for applied in (False, True):
        p, ws = busted_player()
        await p._act()
        assert len(ws.top_ups()) == 1
        p.connections += 1  # the connection ended before the answer: reconnected
        p._connected()
        p._on({"type": "snapshot", "stream": "s", "seq": 4, "you": {"player_id": "p1"},
               "seats": [None, seat(100 if applied else 0), None], "hand": None})  # fmt: skip
        await p._act()
        assert len(ws.top_ups()) == (1 if applied else 2), applied


async def test_a_top_up_in_flight_is_not_sent_twice() -> None:
    """The seats told at the hand's end (stack 0) come after the top-up was sent on its
    `hand_ended`: its answer, not they, says whether it is still to do."""
    p, ws = busted_player()
    p._busted, p._stack = False, 100  # as before the hand ended
    p._on({"type": "hand_ended", "seq": 4, "hand": "h2", "stacks": {"1": 0}})
    await p._act()
    p._on({"type": "seat", "seq": 5, **seat(0)})
    await p._act()
    assert len(ws.top_ups()) == 1
