"""The bots of bench/load.py: six seats of a table in one process, each a WebSocket that
speaks docs/protocol.md and nothing else, answers its turns with a random legal action, and
checks every message it gets (sequence, the cards it may see, chips conserved); the counters
a bot process sends back."""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import re
import time
from dataclasses import dataclass, field
from typing import Any

from app.bots.policy import random_action  # the bots' one policy module

SEATS = 6
BUY_IN = 200
CARD_IN_TEXT = re.compile(r'"([2-9TJQKA][cdhs])"')
#: the bots ask for batched frames (`?batch=1`, docs/protocol.md): set per bot process
BATCH = {"on": False}


# --------------------------------------------------------------------------- bots
@dataclass
class Counters:
    """What one bot process saw in the measured window (and the checks over the whole run)."""

    actions: int = 0  # `ok` answers to `act`
    sent: int = 0  # actions sent
    messages: int = 0  # messages received, all seats
    frames: int = 0  # WebSocket frames they came in (fewer with `--batch`)
    bytes: int = 0
    hands: int = 0  # hands ended (counted once per table)
    latencies: list[float] = field(default_factory=list)
    #: with relayed seats (`split`): the last relayed seat's arrival minus the last direct
    #: seat's, and the last direct seat's latency by whether the acting seat was relayed
    out_hops: list[float] = field(default_factory=list)
    direct_seats: dict[bool, list[float]] = field(default_factory=lambda: {False: [], True: []})
    errors: int = 0
    error_samples: list[str] = field(default_factory=list)
    violations: list[str] = field(default_factory=list)
    closed: int = 0  # connections the server closed before the end
    unfinished: int = 0  # hands started but not ended after the drain
    tables_checked: int = 0
    cpu: float = 0.0
    connections: int = 0
    owned: dict[str, int] = field(default_factory=dict)  # tables per owning process
    relayed: int = 0  # connections to a process that does not own their table
    connect_retries: int = 0  # set-up connections refused (403: "try again") and retried

    def merge(self, other: Counters) -> None:
        for name, n in other.owned.items():
            self.owned[name] = self.owned.get(name, 0) + n
        for name in ("actions", "sent", "messages", "frames", "bytes", "hands", "errors", "closed",
                     "unfinished", "tables_checked", "connections", "relayed",
                     "connect_retries"):  # fmt: skip
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.cpu += other.cpu
        self.latencies += other.latencies
        self.out_hops += other.out_hops
        for relayed_actor, figures in other.direct_seats.items():
            self.direct_seats[relayed_actor] += figures
        self.error_samples += other.error_samples[: max(0, 10 - len(self.error_samples))]
        self.violations += other.violations[: max(0, 50 - len(self.violations))]


class Run:
    """The state of one bot process: the window, the pace, the counters."""

    def __init__(self, think: float, seed: int) -> None:
        self.think = think
        self.rng = random.Random(seed)
        self.measuring = False
        self.draining = False
        self.c = Counters()

    def violation(self, text: str) -> None:
        if len(self.c.violations) < 50:
            self.c.violations.append(text[:400])
        else:
            self.c.violations[-1] = "... and more"

    def delay(self) -> float:
        if self.draining or self.think <= 0:
            return 0.0
        return self.think * self.rng.uniform(0.5, 1.5)


class TableBots:
    """The six seats of one table, in one process: shared latency bookkeeping and the
    table-wide checks."""

    def __init__(self, run: Run, index: int) -> None:
        self.run = run
        self.index = index
        self.code = ""
        self.seats: list[Seat] = []
        self.sent_at: dict[tuple[str, int], float] = {}
        #: key -> [seats arrived, last arrival, last direct seat's, last relayed seat's]
        self.arrivals: dict[tuple[str, int], list[float]] = {}
        self.relayed_actor: dict[tuple[str, int], bool] = {}
        self.top_ups = 0
        self.hands_started: set[str] = set()
        self.hands_ended: set[str] = set()
        # per hand: seat -> own hole cards, boards, shown cards (table-wide cross-check)
        self.hole: dict[str, dict[int, tuple[str, ...]]] = {}
        self.boards: dict[str, set[str]] = {}
        self.shown: dict[str, dict[int, tuple[str, ...]]] = {}
        self.ended_seen: dict[str, int] = {}
        self.stacks: dict[int, int] = {}  # seat -> stack, as the host's connection last saw it

    def arrive(self, key: tuple[str, int], t: float, relayed: bool = False) -> None:
        got = self.arrivals.get(key)
        if got is None:
            got = self.arrivals[key] = [0, t, 0.0, 0.0]
        got[0] += 1
        got[1] = max(got[1], t)
        got[3 if relayed else 2] = max(got[3 if relayed else 2], t)
        if got[0] >= len(self.seats):
            del self.arrivals[key]
            sent = self.sent_at.pop(key, None)
            relayed_actor = self.relayed_actor.pop(key, False)
            if sent is not None and self.run.measuring:
                c = self.run.c
                c.latencies.append(got[1] - sent)
                if got[2] and got[3]:  # both kinds of seat: the relay's hops apart
                    c.out_hops.append(got[3] - got[2])
                    c.direct_seats[relayed_actor].append(got[2] - sent)

    def hand_checked(self, hand: str) -> None:
        """Once every seat has seen the hand end: cards across seats never collide."""
        self.ended_seen[hand] = self.ended_seen.get(hand, 0) + 1
        if self.ended_seen[hand] < len(self.seats):
            return
        del self.ended_seen[hand]
        hole = self.hole.pop(hand, {})
        boards = self.boards.pop(hand, set())
        shown = self.shown.pop(hand, {})
        seen: set[str] = set()
        for cards in hole.values():
            if seen & set(cards):
                self.run.violation(f"table {self.index} hand {hand}: hole cards dealt twice")
            seen |= set(cards)
        if seen & boards:
            self.run.violation(f"table {self.index} hand {hand}: a board card is a hole card")
        for seat, cards in shown.items():
            if seat in hole and set(cards) != set(hole[seat]):
                self.run.violation(f"table {self.index} hand {hand}: seat {seat} shown "
                                   f"{cards}, dealt {hole[seat]}")  # fmt: skip


class Seat:
    """One bot: a WebSocket to its table, a seat, random legal actions."""

    def __init__(self, table: TableBots, number: int, token: str) -> None:
        self.table = table
        self.run = table.run
        self.number = number
        self.token = token
        self.ws: Any = None
        self.relayed = False  # connected to a process that does not own the table
        self.seq: int | None = None
        self.awaiting: tuple[str, int] | None = None
        self.hand: str | None = None
        self.allowed: set[str] = set()
        self.folded: set[int] = set()
        self.start_total = 0
        self.stack = 0
        self.pending: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self.next_id = 1
        self.acting: tuple[str, int] | None = None
        self.done = False
        self.reader: asyncio.Task[None] | None = None
        self.tasks: set[asyncio.Task[Any]] = set()

    async def connect(self, ws_base: str, origin: str) -> None:
        """Connect, trying again as the browser client does when the server closes before
        accepting (an HTTP 403: the table's lookup failed or it is changing hands, "come back
        in a moment"; under a relayed set-up on a busy machine a lookup can time out)."""
        from websockets.asyncio.client import connect
        from websockets.exceptions import InvalidStatus

        for attempt in range(6):
            try:
                self.ws = await connect(
                    f"{ws_base}/ws/tables/{self.table.code}" + ("?batch=1" if BATCH["on"] else ""),
                    origin=origin,  # type: ignore[arg-type]
                    additional_headers={"Cookie": f"omaha_session={self.token}"},
                    compression=None,
                    max_size=2**20,
                    ping_interval=None,
                    open_timeout=60,
                )
                break
            except InvalidStatus as refused:
                if refused.response.status_code != 403 or attempt == 5:
                    raise
                self.run.c.connect_retries += 1
                await asyncio.sleep(0.5 * (attempt + 1))
        self.reader = asyncio.create_task(self.read())

    async def request(self, **message: Any) -> dict[str, Any]:
        ref = self.next_id
        self.next_id += 1
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self.pending[ref] = future
        await self.ws.send(json.dumps({"id": ref, **message}))
        return await asyncio.wait_for(future, 60)

    async def read(self) -> None:
        from websockets.exceptions import ConnectionClosed

        try:
            async for raw in self.ws:
                self.handle(raw)
        except ConnectionClosed:
            pass
        except Exception as exc:  # a bug in the checks must not hang the run
            self.run.violation(f"bot crashed: {exc!r}")
        finally:
            if not self.done:
                self.run.c.closed += 1
                code = getattr(self.ws, "close_code", None)
                self.run.violation(f"table {self.table.index} seat {self.number}: the server "
                                   f"closed the connection ({code})")  # fmt: skip
            for future in self.pending.values():
                if not future.done():
                    future.set_exception(ConnectionError("closed"))

    def handle(self, raw: str | bytes) -> None:
        t = time.perf_counter()
        run = self.run
        if run.measuring:
            run.c.frames += 1
            run.c.bytes += len(raw)
        data = json.loads(raw)
        if not isinstance(data, list):
            self.message(data, raw, t)
            return
        for m in data:  # a batched frame: each message in order, its own text for the checks
            self.message(m, json.dumps(m), t)

    def message(self, m: dict[str, Any], raw: str | bytes, t: float) -> None:
        run = self.run
        if run.measuring:
            run.c.messages += 1
        kind = m["type"]
        table = self.table
        if kind in ("ok", "error", "pong"):
            future = self.pending.pop(m.get("id", -1), None)
            if kind == "error":
                run.c.errors += 1
                if len(run.c.error_samples) < 10:
                    run.c.error_samples.append(str(raw)[:200])
            elif m.get("of") == "act" and run.measuring:
                run.c.actions += 1
            if future is not None and not future.done():
                future.set_result(m)
            return
        seq = m.get("seq")
        if kind == "snapshot":
            self.seq = seq
            self.snapshot(m)
        elif seq is not None:
            if self.seq is not None and seq != self.seq + 1:
                run.violation(f"table {table.index} seat {self.number}: seq {seq} after "
                              f"{self.seq}")  # fmt: skip
            self.seq = seq
            if self.awaiting is not None:
                table.arrive(self.awaiting, t, self.relayed)
                self.awaiting = None
        # (the hand's id: every kind below carries one; a snapshot's is not this one's)
        hand: str = m.get("hand", "") if kind != "snapshot" else ""
        if kind == "hand_started":
            self.hand = hand
            self.allowed = set()
            self.folded = set()
            self.start_total = sum(m["stacks"])
            if self.number == 0:
                table.hands_started.add(hand)
            if self.number in m["seats"]:
                self.stack = m["stacks"][m["seats"].index(self.number)]
        elif kind == "hole_cards":
            cards = m.get("cards")
            if cards is not None:
                if m["seat"] != self.number:
                    run.violation(f"table {table.index} seat {self.number}: got the hole cards "
                                  f"of seat {m['seat']}")  # fmt: skip
                else:
                    self.allowed.update(cards)
                    table.hole.setdefault(hand, {})[self.number] = tuple(cards)
        elif kind == "board":
            self.allowed.update(m["cards"])
            table.boards.setdefault(hand, set()).update(m["cards"])
        elif kind == "shown":
            if m["seat"] in self.folded:
                run.violation(f"table {table.index}: folded seat {m['seat']} shown to "
                              f"seat {self.number}")  # fmt: skip
            self.allowed.update(m["cards"])
            table.shown.setdefault(hand, {})[m["seat"]] = tuple(m["cards"])
        elif kind == "acted" and m["action"] == "fold":
            self.folded.add(m["seat"])
        # The card check: every card string anywhere in the message must be visible to us.
        if kind != "snapshot":
            for card in CARD_IN_TEXT.findall(raw if isinstance(raw, str) else raw.decode()):
                if card not in self.allowed:
                    run.violation(f"table {table.index} seat {self.number}: {kind} carries "
                                  f"{card}, which it may not see: {str(raw)[:200]}")  # fmt: skip
                    break
        if kind == "turn":
            key = (m["hand"], m["counter"])
            self.awaiting = key
            if "legal" in m:
                if m["seat"] != self.number:
                    run.violation(f"table {table.index} seat {self.number}: legal actions of "
                                  f"seat {m['seat']}")  # fmt: skip
                elif self.acting != key:
                    self.acting = key
                    action = random_action(m["legal"], run.rng)
                    delay = run.delay()
                    if delay:
                        asyncio.get_running_loop().call_later(delay, self.act, key, action)
                    else:
                        self.act(key, action)
        elif kind == "hand_ended":
            stacks = {int(k): v for k, v in m["stacks"].items()}
            if sum(stacks.values()) != self.start_total:
                run.violation(f"table {table.index} hand {hand}: chips not conserved: "
                              f"{self.start_total} at the start, {stacks} at the end")  # fmt: skip
            if self.number == 0:
                table.hands_ended.add(hand)
                if run.measuring:
                    run.c.hands += 1
            table.hand_checked(hand)
            self.hand = None
            if self.number in stacks:
                self.stack = stacks[self.number]
                if self.stack == 0 and not run.draining:
                    self.spawn(self.top_up())
        elif kind == "seat" and self.number == 0:
            table.stacks[m["seat"]] = m["stack"]
        elif kind == "left" and self.number == 0:
            table.stacks.pop(m["seat"], None)

    def snapshot(self, m: dict[str, Any]) -> None:
        hand = m.get("hand")
        self.allowed = set()
        if self.number == 0:
            for s in m["seats"]:
                if s is not None:
                    self.table.stacks[s["seat"]] = s["stack"]
        if hand is None:
            return
        self.hand = hand["id"]
        for run_boards in hand["boards"]:
            for board in run_boards:
                self.allowed.update(board)
        for p in hand["players"]:
            if "cards" in p:
                if p["shown"] or p["seat"] == self.number:
                    self.allowed.update(p["cards"])
                else:
                    self.run.violation(f"table {self.table.index} seat {self.number}: snapshot "
                                       f"carries the cards of seat {p['seat']}")  # fmt: skip
        for card in CARD_IN_TEXT.findall(json.dumps(m)):
            if card not in self.allowed:
                self.run.violation(f"table {self.table.index}: snapshot carries {card}")
                break

    def act(self, key: tuple[str, int], action: dict[str, Any]) -> None:
        self.table.sent_at[key] = time.perf_counter()
        self.table.relayed_actor[key] = self.relayed
        if self.run.measuring:
            self.run.c.sent += 1
        message = {"type": "act", "id": 0, "hand": key[0], "counter": key[1], **action}
        self.spawn(self._send(json.dumps(message)))

    def spawn(self, coroutine: Any) -> None:
        task = asyncio.ensure_future(coroutine)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def _send(self, text: str) -> None:
        with contextlib.suppress(Exception):
            await self.ws.send(text)

    async def top_up(self) -> None:
        with contextlib.suppress(Exception):
            reply = await self.request(type="top_up", amount=BUY_IN)
            if reply["type"] == "ok" and reply.get("status") == "done":
                self.table.top_ups += BUY_IN
            elif reply["type"] == "ok":
                self.run.violation(f"table {self.table.index}: a top-up after the hand")
