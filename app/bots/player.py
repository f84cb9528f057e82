"""A practice bot: a player that lives inside the server.

It sits at a table like a connection does: a `Viewer` attached to the table, whose outbox it
reads instead of a socket, and commands told into the table's mailbox (`act`, `top_up`),
answered into that outbox like anyone's. It never touches the table's state: what it knows
comes from the messages its seat receives (`Tracker`), what it does is decided by the one
policy (`app.bots.policy.choose_steps`: a slice of its run-outs at a time, the event loop
free between slices) after a think time of a second or two (`Runtime.bot_think`).
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import random
from typing import Any, Protocol

import orjson

from app.bots.policy import SAMPLES, choose_steps, decide
from app.bots.tracker import Tracker
from app.tables.viewer import CLOSE_TOO_SLOW, Viewer

log = logging.getLogger("omaha.bots")
_refs = itertools.count(1)

#: a bot's outbox: it reads it at once, except while it thinks (a hand's worth of messages)
OUTBOX = 4096


class TableDoor(Protocol):
    """The part of a table a bot uses: the same door a WebSocket connection goes through."""

    def tell(
        self, kind: str, sender: str | None, viewer: Viewer, ref: Any, data: dict[str, Any]
    ) -> None: ...

    def post_detach(self, viewer: Viewer) -> None: ...


def think_time(think: float, rng: random.Random) -> float:
    """Between 2/3 and 4/3 of `think` seconds (0: at once)."""
    return think * rng.uniform(2 / 3, 4 / 3) if think > 0 else 0.0


class Bot:
    def __init__(
        self, table: TableDoor, player_id: str, think: float, buy_in: int, samples: int = SAMPLES
    ) -> None:
        self.table = table
        self.player_id = player_id
        self.think = think
        self.samples = samples  # run-outs per decision (BOT_SAMPLES)
        self.buy_in = buy_in  # what it tops up to when busted (0: never, a tournament)
        self.viewer = Viewer(player_id, limit=OUTBOX)
        self.tracker = Tracker(player_id)
        self.rng = random.Random()
        self.errors: list[dict[str, Any]] = []  # refused commands (a test checks there are none)
        self._done: set[tuple[str, int]] = set()

    async def run(self) -> None:
        """Play until the table stops it (cancelled, or its viewer closed by a shutdown). A
        bot that fell behind reconnects, as a browser would, for a fresh snapshot."""
        while True:
            viewer = self.viewer
            self.table.tell("attach", self.player_id, viewer, None, {"viewer": viewer})
            try:
                await self._play(viewer)
            finally:
                self.table.post_detach(viewer)
            if viewer.closed is None or viewer.closed[0] != CLOSE_TOO_SLOW:
                return
            self.viewer = Viewer(self.player_id, limit=OUTBOX)
            self.tracker = Tracker(self.player_id)

    async def _play(self, viewer: Viewer) -> None:
        while viewer.closed is None:
            while not viewer.outbox and viewer.closed is None:
                await viewer.wait()
            turn: dict[str, Any] | None = None
            for raw in viewer.take():
                m = orjson.loads(raw) if isinstance(raw, str) else raw
                try:
                    turn = self._see(m) or turn
                except (KeyError, TypeError, ValueError):  # a message it cannot read: go on
                    log.exception("bot %s: cannot read a %s message", self.player_id, m.get("type"))
            if turn is not None:
                await self._act(turn)

    def _see(self, m: dict[str, Any]) -> dict[str, Any] | None:
        """Track a message; return it if it is a turn this bot should answer."""
        self.tracker.see(m)
        kind = m.get("type")
        if kind == "error":
            self.errors = [*self.errors[-19:], m]  # the latest few
            log.warning("bot %s: refused: %s", self.player_id, m.get("code"))
        elif kind == "snapshot" and m.get("hand") and "legal" in m["hand"]:
            h = m["hand"]
            return {"type": "turn", "hand": h["id"], "counter": h["counter"], "legal": h["legal"]}
        elif kind == "turn" and "legal" in m:
            return m
        elif kind == "hand_ended" or (kind == "seat" and m.get("player_id") == self.player_id):
            self._top_up_if_busted()
        return None

    def _top_up_if_busted(self) -> None:
        t = self.tracker
        if self.buy_in and t.hand is None and t.seat is not None and t.stack == 0:
            self.table.tell("top_up", self.player_id, self.viewer, next(_refs),
                            {"amount": self.buy_in})  # fmt: skip
            t.stack = None  # once per bust: the `seat` record that follows says the new stack

    async def _act(self, turn: dict[str, Any]) -> None:
        key = (turn["hand"], turn["counter"])
        if key in self._done:
            return
        self._done = {key}
        situation = self.tracker.situation(turn)
        think = self.think
        if self.tracker.decision_time > 0:  # never near the clock, however slow it is set
            think = min(think, self.tracker.decision_time / 3)
        await asyncio.sleep(think_time(think, self.rng))
        # Seeded by the decision: the same situation gets the same run-outs (reproducible).
        rng = random.Random(f"{turn['hand']}:{turn['counter']}:{self.player_id}")
        if situation is not None:  # its run-outs a slice at a time: others run between
            steps = choose_steps(situation, rng, self.samples)
            while True:
                try:
                    next(steps)
                except StopIteration as done:
                    action = done.value
                    break
                await asyncio.sleep(0)
        else:  # it cannot tell its hand (never seen): check or fold rather than stall
            action = decide(turn["legal"], 0.0, self.tracker.pot, 1)
        data = {"hand": turn["hand"], "counter": turn["counter"], **action}
        self.table.tell("act", self.player_id, self.viewer, next(_refs), data)
