"""Driving table actors in tests: viewers that check every message for cards the viewer may
not see (an oracle written independently of app.tables.views), and a random player."""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import re
from typing import Any

from app.poker import ActionKind, HandState, card_str
from app.tables.errors import TableError
from app.tables.table import Table
from app.tables.viewer import Viewer

CARD = re.compile(r"^[2-9TJQKA][cdhs]$")


def cards_in(message: Any) -> set[str]:
    """Every string in a message that reads as a card."""
    found: set[str] = set()
    stack = [message]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            stack.extend(item.values())
            stack.extend(k for k in item if isinstance(k, str))
        elif isinstance(item, list | tuple):
            stack.extend(item)
        elif isinstance(item, str) and CARD.match(item):
            found.add(item)
    return found


def allowed_cards(
    state: HandState | None, player_id: str | None, players: tuple[str, ...]
) -> set[str]:
    """What a viewer may see right now: the boards dealt, hands shown, and their own hand
    while it is live (not folded, not mucked)."""
    if state is None:
        return set()
    seen = {card_str(c) for run in state.boards for board in run for c in board}
    for p in range(state.n):
        own = player_id is not None and players[p] == player_id
        if state.shown[p] or (own and not state.folded[p] and not state.mucked[p]):
            seen.update(card_str(c) for c in state.hole[p])
    return seen


class CheckedViewer(Viewer):
    """Collects every message and checks it at the moment the actor sends it."""

    def __init__(self, table: Table, player_id: str | None) -> None:
        super().__init__(player_id, limit=10**9)
        self.table = table
        self.messages = 0
        self.cards_seen = 0
        self.leaks: list[tuple[dict[str, Any], set[str]]] = []

    def send_many(self, messages: list[str]) -> None:
        for message in messages:
            self.send(message)

    def send(self, message: dict[str, Any] | str) -> None:
        if isinstance(message, str):  # checked as the client receives it
            message = json.loads(message)
            assert isinstance(message, dict)
        hand = self.table.hand
        allowed = allowed_cards(
            hand.state if hand else None, self.player_id, hand.players if hand else ()
        )
        found = cards_in(message)
        self.cards_seen += len(found)
        if found - allowed:
            self.leaks.append((message, found - allowed))
        self.messages += 1
        # Keep memory flat over thousands of hands: checked, then dropped.


def random_action(state: HandState, rng: random.Random) -> dict[str, Any]:
    legal = state.legal_actions()
    assert legal is not None
    kinds = legal.kinds()
    if ActionKind.RUN_TWICE in kinds:
        return {"action": "run-twice", "agree": rng.random() < 0.6}
    if ActionKind.SHOW in kinds:
        if ActionKind.MUCK in kinds and rng.random() < 0.5:
            return {"action": "muck"}
        return {"action": "show"}
    r = rng.random()
    if legal.raise_kind is not None and r < 0.3:
        amount = rng.choice(
            [legal.min_to, legal.max_to, legal.pot_to, rng.randint(legal.min_to, legal.max_to)]
        )
        return {"action": str(legal.raise_kind), "amount": amount}
    if r < 0.4 and not legal.check:
        return {"action": "fold"}
    if legal.check:
        return {"action": "check"}
    return {"action": "call"}


async def play_hands(
    table: Table, hands: int, rng: random.Random, *, chaos: bool = True, timeout: float = 120
) -> int:
    """Play until `hands` more hands have ended; random actions, and now and then a top-up,
    a sit-out and back, or a leave and a new seat. Returns the hands played."""
    start = table.hand_number
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        hand = table.hand
        done = (
            table.hand_number - start - (1 if hand is not None and not hand.state.complete else 0)
        )
        if done >= hands:
            return done
        if loop.time() > deadline:
            raise AssertionError(f"only {done} hands in {timeout}s")
        if hand is None or hand.state.complete or hand.state.actor is None:
            await refill(table, rng)
            await asyncio.sleep(0.001)
            continue
        pid = hand.players[hand.state.actor]
        data = random_action(hand.state, rng)
        try:
            await table.request("act", pid, hand=hand.id, counter=hand.counter, **data)
        except TableError as error:
            if error.code not in ("stale_hand", "stale_counter", "bad_counter", "hand_over"):
                raise
        if chaos and rng.random() < 0.02:
            await chaos_step(table, rng)


async def chaos_step(table: Table, rng: random.Random) -> None:
    seated = [s for s in table.seats if s is not None]
    if not seated:
        return
    seat = rng.choice(seated)
    what = rng.choice(["top_up", "sit_out", "sit_in", "leave", "adjust"])
    try:
        if what == "top_up":
            room = table.config.buy_in_max - seat.stack - seat.pending_top_up
            if room > 0:
                await table.request("top_up", seat.player_id, amount=rng.randint(1, room))
        elif what == "adjust":
            await table.request(
                "adjust", table.host_id, seat=seat.number, amount=rng.randint(-5, 20) or 1
            )
        elif what in ("sit_out", "sit_in"):
            await table.request(what, seat.player_id, post=rng.random() < 0.5)
        elif what == "leave" and seat.player_id != table.host_id:
            await table.request("leave", seat.player_id)
    except TableError:
        pass


async def refill(table: Table, rng: random.Random) -> None:
    """Keep the table populated: leavers come back to a free seat, the busted top up."""
    for pid in getattr(table, "test_players", []):
        if table.seat_of(pid) is None:
            free = [i for i, s in enumerate(table.seats) if s is None]
            if free:
                with contextlib.suppress(TableError):
                    await table.request(
                        "sit", pid, seat=rng.choice(free), buy_in=table.config.buy_in_max, name=pid
                    )
    for s in table.seats:
        if s is not None and (s.sitting_out or s.stack == 0) and rng.random() < 0.5:
            try:
                if s.stack == 0:
                    await table.request("top_up", s.player_id, amount=table.config.buy_in_min)
                await table.request("sit_in", s.player_id, post=rng.random() < 0.5)
            except TableError:
                pass
