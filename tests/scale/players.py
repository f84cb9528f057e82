"""Players for the fault test (tests/scale/test_nemesis.py): each speaks the documented protocol
over its own WebSocket to one of several processes, acts on every turn offered to it, tops up
when busted, reconnects (resuming with `stream`/`since`) whenever its connection ends, and
logs every send and every answer. A top-up is sent again while the player's seat is told
empty: answered `unavailable` or `rate_limited` (nothing done), or lost with its connection
and not applied (a snapshot or a `seat` record tells): a client that gave up on it would
leave the table with too few stacks to deal to, waiting for ever. What each connection
receives is checked as it comes:

- every `seq` follows the one before (after a snapshot, or a resume, from where it stood);
- every answer with an `id` answers one sent on that same connection;
- a `turn` with `legal`, and a snapshot's `you` and `legal`, are this player's own;
- every card seen is noted with its hand, to be checked against the stored hand afterwards.

`check` then holds the logs against the database: every action answered `ok` (or found
`duplicate`) is stored, as sent, once; every stored action was sent by the player of its seat;
none is stored that every send of was refused (`unavailable` then applied); every card a
player saw was theirs to see; chips are conserved; each top-up `ok` is in the ledger."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import random
import uuid
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import httpx
import websockets
from sqlalchemy import select

from app.bots.policy import random_action
from app.store.db import create_engine, session_factory
from app.store.models import HandActionRow, HandRow, LedgerEntry
from tests.api.test_play import allowed_for, replay_table
from tests.tables.harness import cards_in

#: answers after which an action is not sent again (it was applied, or the hand moved on)
SETTLED = {"ok", "duplicate", "stale_counter", "stale_hand", "hand_over", "not_your_turn",
           "bad_counter"}  # fmt: skip
#: answers after which nothing was done: a top-up is sent again
REFUSED = {"unavailable", "rate_limited"}


@dataclass
class Send:
    ref: str
    kind: str
    key: tuple[str, int] | None  # (hand, counter) of an action
    action: dict[str, Any] | None
    answer: str | None = None  # "ok", or the error's code; None: never answered
    status: str | None = None  # an `ok`'s status (a top-up: "done", or "after_hand")


#: seconds without a message before a ping, and without its pong before a reconnect (a real
#: client's way to leave a socket to a frozen server)
QUIET, DEAD = 1.0, 2.0


@dataclass
class Player:
    name: str
    seat: int
    code: str
    route: list[str]  # the processes it connects to, in turn (the first is its own)
    where: Callable[[str], str]  # a process's base URL now (a restart listens elsewhere)
    rng: random.Random
    token: str = ""
    player_id: str = ""
    sends: dict[str, Send] = field(default_factory=dict)
    #: per (hand, counter): the action this player chose (it sends the same each time)
    chosen: dict[tuple[str, int], dict[str, Any]] = field(default_factory=dict)
    #: (hand id, cards) for every message that showed cards
    seen: list[tuple[str, frozenset[str]]] = field(default_factory=list)
    violations: list[str] = field(default_factory=list)
    connections: int = 0
    received: int = 0
    stream: str | None = None
    seq: int | None = None
    ws: Any = None
    _ids: itertools.count[int] = field(default_factory=lambda: itertools.count(1))
    _pending: dict[tuple[str, int], str] = field(default_factory=dict)  # key -> ref in flight
    _topping: bool = False  # a top-up is in flight
    _busted: bool = False  # a top-up is to send
    _stack: int | None = None  # this player's seat's stack as last told
    _turn: tuple[str, int, dict[str, Any]] | None = None

    async def join(self) -> None:
        async with httpx.AsyncClient(base_url=self.where(self.route[0]), timeout=30) as http:
            r = await http.post("/api/session", json={"name": self.name})
            r.raise_for_status()
            self.player_id, self.token = r.json()["player_id"], r.cookies["omaha_session"]

    async def send(self, kind: str, key: tuple[str, int] | None = None, **data: Any) -> str:
        ref = f"{self.name}-{self.connections}-{next(self._ids)}"
        action = self.chosen.get(key) if key is not None else None
        self.sends[ref] = Send(ref, kind, key, action)
        await self.ws.send(json.dumps({"type": kind, "id": ref, **data}))
        return ref

    async def sit(self, buy_in: int) -> None:
        """Connect and take the seat (before any fault)."""
        await self._connect(self.where(self.route[0]))
        ref = await self.send("sit", seat=self.seat, buy_in=buy_in)
        while self.sends[ref].answer is None:
            self._on(json.loads(await self.ws.recv()))
        assert self.sends[ref].answer == "ok", self.sends[ref]

    async def _connect(self, base: str) -> None:
        url = base.replace("http", "ws", 1) + f"/ws/tables/{self.code}"
        if self.stream is not None and self.seq is not None:
            url += f"?stream={self.stream}&since={self.seq}"
        self.ws = await websockets.connect(
            url, origin=base, additional_headers={"Cookie": f"omaha_session={self.token}"},  # type: ignore[arg-type]
            compression=None, max_size=2**22, open_timeout=10,
        )  # fmt: skip
        self.connections += 1
        self._connected()

    def _connected(self) -> None:
        self._pending.clear()  # what was in flight has an unknown outcome now
        if self._topping:  # so has a top-up: sent again unless the table tells it applied
            self._topping, self._busted = False, self._stack == 0

    async def play(self, stop: asyncio.Event) -> None:
        """Play until `stop`, reconnecting (to each base in turn) whenever a connection ends."""
        attempt = 0
        while not stop.is_set():
            if self.ws is None:
                base = self.where(self.route[attempt % len(self.route)])
                attempt += 1
                try:
                    await self._connect(base)
                except (OSError, websockets.WebSocketException, TimeoutError):
                    await asyncio.sleep(0.2)
                    continue
            with contextlib.suppress(websockets.ConnectionClosed, OSError):
                await self._read(stop)
            self.ws = None
            await asyncio.sleep(0.1 + 0.2 * self.rng.random())

    async def _read(self, stop: asyncio.Event) -> None:
        loop = asyncio.get_running_loop()
        heard, pinged = loop.time(), None
        while not stop.is_set():
            try:
                async with asyncio.timeout(0.5):
                    raw = await self.ws.recv()
            except TimeoutError:
                now = loop.time()
                if pinged is not None and now - pinged > DEAD:
                    break  # a frozen server: reconnect elsewhere
                if pinged is None and now - heard > QUIET:
                    pinged = now
                    await self.ws.send(json.dumps({"type": "ping"}))
                await self._resend_refused()
                continue
            heard, pinged = loop.time(), None
            data = json.loads(raw)
            for message in data if isinstance(data, list) else [data]:
                self._on(message)
            await self._act()
        await self.ws.close()

    def _violation(self, what: str) -> None:
        self.violations.append(f"{self.name} (connection {self.connections}): {what}")

    def _on(self, m: dict[str, Any]) -> None:
        self.received += 1
        kind = m.get("type")
        if kind == "snapshot":
            self.stream, self.seq = m["stream"], m["seq"]
            if m["you"]["player_id"] != self.player_id:
                self._violation(f"a snapshot for {m['you']['player_id']}")
            seats = m.get("seats") or []
            mine = seats[self.seat] if self.seat < len(seats) else None
            if mine is not None and mine.get("player_id") == self.player_id:
                self._told_stack(mine["stack"])
            hand = m.get("hand") or {}
            if "legal" in hand:
                if hand.get("actor") != self.seat:
                    self._violation(f"legal actions for seat {hand.get('actor')}")
                self._turn = (hand["id"], hand["counter"], hand["legal"])
        elif "seq" in m:
            if self.seq is None or m["seq"] != self.seq + 1:
                self._violation(f"seq {m['seq']} after {self.seq}")
            self.seq = m["seq"]
        if kind in ("ok", "error") and "id" in m:
            sent = self.sends.get(m["id"])
            if sent is None or not m["id"].startswith(f"{self.name}-{self.connections}-"):
                self._violation(f"an answer to {m['id']}, not sent on this connection")
            else:
                sent.answer = "ok" if kind == "ok" else m["code"]
                sent.status = m.get("status")
                if sent.key is not None and self._pending.get(sent.key) == sent.ref:
                    del self._pending[sent.key]
                if sent.kind == "top_up":
                    self._topping = False
                    if sent.answer in REFUSED:  # nothing changed: still to do
                        self._busted = self._stack == 0
        if kind == "turn" and "legal" in m:
            if m["seat"] != self.seat:
                self._violation(f"legal actions for seat {m['seat']}")
            self._turn = (m["hand"], m["counter"], m["legal"])
        if kind == "hand_ended" and str(self.seat) in m.get("stacks", {}):
            # topped up between hands (the replay's chain of stacks) when busted
            self._told_stack(m["stacks"][str(self.seat)])
        if kind == "seat" and m.get("seat") == self.seat and m.get("player_id") == self.player_id:
            self._told_stack(m["stack"])
        found = cards_in(m)
        if found:
            hand_id = (m.get("hand") or {}).get("id") if kind == "snapshot" else m.get("hand")
            self.seen.append((str(hand_id), frozenset(found)))

    def _told_stack(self, stack: int) -> None:
        """The table told this seat's stack: busted, a top-up is to send (unless one is in
        flight: its answer says whether it is still to do)."""
        self._stack = stack
        if not self._topping:
            self._busted = stack == 0

    async def _act(self) -> None:
        if self._busted and not self._topping:
            self._busted, self._topping = False, True
            await self.send("top_up", amount=100)
        if self._turn is None:
            return
        hand, counter, legal = self._turn
        key = (hand, counter)
        if key in self._pending:
            return
        answers = [s.answer for s in self.sends.values() if s.key == key]
        if any(a in SETTLED for a in answers):
            return
        action = self.chosen.setdefault(key, random_action(legal, self.rng))
        self._pending[key] = await self.send("act", key, hand=hand, counter=counter, **action)

    async def _resend_refused(self) -> None:
        """An action answered `unavailable` (nothing changed) is sent again (a fresh turn
        would not come: the table is as it was)."""
        if self._turn is not None and (self._turn[0], self._turn[1]) not in self._pending:
            await self._act()


def describe(players: list[Player]) -> str:
    """Where each of these players stands (for a table that did not come back)."""
    lines = []
    for p in players:
        last = [(x.kind, x.key and x.key[1], x.answer) for x in list(p.sends.values())[-3:]]
        lines.append(f"{p.name}: connection {p.connections} {'open' if p.ws else 'closed'}, "
                     f"seq {p.seq}, turn {p._turn and p._turn[:2]}, pending {p._pending}, "
                     f"last sends {last}")  # fmt: skip
    return "; ".join(lines)


def _explained(sends: list[Send]) -> bool:
    """Could these sends of one action have had it applied? One was answered `ok` or
    `duplicate`, or one never got an answer (its fate unknown to the player)."""
    return any(s.answer in (None, "ok", "duplicate") for s in sends)


#: what the table does on its own at a showdown (app/tables/pace.py)
SHOWDOWN = frozenset({"show", "muck"})


async def check(
    url: str, table_ids: dict[str, str], players: list[Player], secret: str
) -> dict[str, int]:
    """The players' logs against the database (see the module's docstring); returns counts."""
    violations = [v for p in players for v in p.violations]
    engine = create_engine(url)
    counts = {"acts_ok": 0, "stored": 0, "unavailable": 0, "cards_seen": 0, "hands": 0}
    try:
        sessions = session_factory(engine)
        for code, table_id in table_ids.items():
            seated = {p.seat: p for p in players if p.code == code}
            try:
                replayed = await replay_table(url, table_id, secret=secret)
            except AssertionError as failed:  # a stored hand that does not replay
                violations.append(f"table {code}: {failed}")
                continue
            counts["hands"] += len(replayed["hands"])
            if replayed["balance"] != replayed["stacks_total"]:
                violations.append(f"table {code}: chips not conserved {replayed['balance']}")
            async with sessions() as s:
                rows: Any = (await s.execute(
                    select(HandActionRow, HandRow.record).join(HandRow)
                    .where(HandRow.table_id == uuid.UUID(table_id)))).all()  # fmt: skip
                ledger = list(await s.scalars(select(LedgerEntry).where(
                    LedgerEntry.table_id == uuid.UUID(table_id))))  # fmt: skip
            stored = {}
            for row, record in rows:
                seat = record["seats"][row.player]
                action = {"action": row.kind}
                if row.amount is not None:
                    action["amount"] = row.amount
                if row.agree is not None:
                    action["agree"] = row.agree
                stored[(str(row.hand_id), row.counter)] = (seat, action)
            counts["stored"] += len(stored)
            for key, (seat, action) in stored.items():
                player = seated.get(seat)
                if (player is None or key not in player.chosen) and action["action"] in SHOWDOWN:
                    # the table's own show or muck at the showdown (the rules' or the
                    # player's preference: docs/rules.md), never offered to the player; the
                    # replay above checked it is one the rules allow there
                    counts["shown_by_table"] = counts.get("shown_by_table", 0) + 1
                    continue
                if player is None or player.chosen.get(key) != action:
                    violations.append(f"{code} {key}: stored {action}, sent by nobody")
                    continue
                sends = [x for x in player.sends.values() if x.key == key]
                if not _explained(sends):
                    violations.append(f"{code} {key}: applied, yet every send was refused: "
                                      f"{[x.answer for x in sends]}")  # fmt: skip
            for player in seated.values():
                for sent in player.sends.values():
                    if sent.kind != "act" or sent.key is None:
                        continue
                    counts["acts_ok"] += sent.answer == "ok"
                    counts["unavailable"] += sent.answer == "unavailable"
                    if sent.answer in ("ok", "duplicate"):
                        there = stored.get(sent.key)
                        if there != (player.seat, sent.action):
                            violations.append(f"{code} {sent.key}: {sent.answer} for "
                                              f"{sent.action}, stored {there}")  # fmt: skip
                for hand_id, cards in player.seen:
                    counts["cards_seen"] += len(cards)
                    if hand_id not in replayed["hands"]:
                        violations.append(f"{player.name}: cards of an unknown hand {hand_id}")
                        continue
                    state, seats = replayed["hands"][hand_id]
                    if not cards <= allowed_for(state, seats, player.seat):
                        violations.append(f"{player.name} saw {sorted(cards)} of {hand_id}")
                topped = [x for x in player.sends.values() if x.kind == "top_up"]
                rows_up = sum(1 for e in ledger if e.kind == "top_up"
                              and str(e.player_id) == player.player_id)  # fmt: skip
                done = sum(1 for x in topped if x.answer == "ok" and x.status == "done")
                oks = sum(1 for x in topped if x.answer == "ok")
                unknown = sum(1 for x in topped if x.answer is None)
                if not done <= rows_up <= oks + unknown:
                    violations.append(f"{player.name}: {oks} top-ups ok (+{unknown} unknown), "
                                      f"{rows_up} stored")  # fmt: skip
    finally:
        await engine.dispose()
    counts["violations"] = len(violations)
    answers = Counter(x.answer for p in players for x in p.sends.values())
    counts.update({f"answered {k}": v for k, v in answers.items() if k is not None})
    counts["unanswered"] = answers[None]
    if violations:
        print("\n".join(violations[:50]))
    return counts
