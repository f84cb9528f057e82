"""Driving tables in tests, the one support module of tests/tables: a fake table clock
(time moves when the test says), a harness that runs one table actor on it, viewers that
record what they get or check every message for cards the viewer may not see (an oracle
written independently of app.tables.views), and a random player.

No helper here waits for time to pass: `Table.quiet` (the actor has handled everything and no
timer of it is due) and tests/waits.py's `until` (a condition, checked each turn of the loop) are
waits on conditions; a test moves time on with `FakeClock.advance`."""

from __future__ import annotations

import asyncio
import contextlib
import heapq
import itertools
import json
import random
import re
from collections.abc import Callable
from dataclasses import replace
from types import TracebackType
from typing import Any

from app.poker import ActionKind, HandState, card_str
from app.tables.config import TableConfig
from app.tables.errors import TableError
from app.tables.runtime import Runtime
from app.tables.table import Table
from app.tables.viewer import Viewer
from tests.tables.stores import MemoryTableStore

#: actor tests' tables: no decision clock, no away grace, dealt whoever watches
FAST = Runtime(between_hands=0, clock_enabled=False, away_grace=3600, deal_unwatched=True)


class _Call:
    def __init__(self, callback: Callable[[], None]) -> None:
        self.callback: Callable[[], None] | None = callback

    def cancel(self) -> None:
        self.callback = None

    def run(self) -> None:
        callback, self.callback = self.callback, None
        if callback is not None:
            callback()


class FakeClock:
    """A table clock whose time moves only by `advance` (app.tables.timers.Clock)."""

    def __init__(self, start: float = 1_700_000_000.0) -> None:
        self.time = start
        self._due: list[tuple[float, int, _Call]] = []
        self._order = itertools.count()

    def now(self) -> float:
        return self.time

    def call_at(self, when: float, callback: Callable[[], None]) -> _Call:
        call = _Call(callback)
        if when <= self.time:
            asyncio.get_running_loop().call_soon(call.run)
        else:
            heapq.heappush(self._due, (when, next(self._order), call))
        return call

    def advance(self, seconds: float) -> None:
        """Move time on, running what falls due on the way in order (each at its time)."""
        end = self.time + seconds
        while self._due and self._due[0][0] <= end:
            when, _, call = heapq.heappop(self._due)
            self.time = max(self.time, when)
            call.run()
        self.time = end

    def timeout(self, seconds: float) -> _FakeTimeout:
        return _FakeTimeout(self, seconds)

    async def sleep(self, seconds: float) -> None:
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()

        def wake() -> None:
            if not done.done():
                done.set_result(None)

        self.call_at(self.time + seconds, wake)
        await done


class _FakeTimeout:
    """`asyncio.timeout` that expires when the fake clock reaches it."""

    def __init__(self, clock: FakeClock, seconds: float) -> None:
        self.clock, self.seconds = clock, seconds
        self.inner = asyncio.timeout(None)
        self.call: _Call | None = None

    async def __aenter__(self) -> _FakeTimeout:
        await self.inner.__aenter__()
        loop = asyncio.get_running_loop()
        self.call = self.clock.call_at(self.clock.time + self.seconds,
                                       lambda: self.inner.reschedule(loop.time()))  # fmt: skip
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self.call is not None:
            self.call.cancel()
        await self.inner.__aexit__(kind, error, tb)  # (raises, or returns None)


def on(clock: FakeClock, runtime: Runtime = FAST) -> Runtime:
    return replace(runtime, clock=clock)


class Recorder(Viewer):
    """A viewer that keeps every message it was sent, parsed."""

    def __init__(self, player_id: str | None = None, limit: int = 10**9) -> None:
        super().__init__(player_id, limit=limit)
        self.got: list[dict[str, Any]] = []

    def send_many(self, messages: list[str]) -> None:
        for message in messages:
            self.send(message)

    def send(self, message: dict[str, Any] | str) -> None:
        self.got.append(json.loads(message) if isinstance(message, str) else message)

    def of(self, kind: str) -> list[dict[str, Any]]:
        return [m for m in self.got if m.get("type") == kind]


class Harness:
    """One table actor on a fake clock, its store in memory."""

    def __init__(self, store: MemoryTableStore, table: Table, task: asyncio.Task[None],
                 clock: FakeClock) -> None:  # fmt: skip
        self.store, self.table, self.task, self.clock = store, table, task, clock

    async def sit(self, pid: str, seat: int, buy_in: int = 100) -> dict[str, Any]:
        return await self.table.request("sit", pid, seat=seat, buy_in=buy_in, name=pid)

    async def act(self, action: str, **kw: Any) -> dict[str, Any]:
        hand = self.table.hand
        assert hand is not None and hand.state.actor is not None
        pid = hand.players[hand.state.actor]
        return await self.table.request(
            "act", pid, hand=hand.id, counter=hand.counter, action=action, **kw
        )

    async def passive(self) -> None:
        await passive(self.table)

    async def settle(self) -> None:
        """Until the table has handled everything (a deal it scheduled, say)."""
        await self.table.quiet()

    async def advance(self, seconds: float) -> None:
        """Time passes; then the table handles what fell due."""
        await self.table.quiet()
        self.clock.advance(seconds)
        await self.table.quiet()

    def balance_ok(self) -> bool:
        hand = self.table.hand
        running = hand is not None and not hand.state.complete
        total = 0
        for s in self.table.seats:
            if s is None:
                continue
            if running and hand is not None and s.player_id in hand.players:
                continue
            total += s.stack
        if running and hand is not None:
            total += sum(hand.state.stacks) + sum(hand.state.committed)
        return self.store.balance(self.table.id) == total

    async def stop(self) -> None:
        self.task.cancel()
        await asyncio.gather(self.task, return_exceptions=True)


async def passive(table: Table) -> None:
    """The player to act checks or folds; shows at showdown; votes no."""
    hand = table.hand
    assert hand is not None
    legal = hand.state.legal_actions()
    assert legal is not None and hand.state.actor is not None
    if legal.vote:
        data: dict[str, Any] = {"action": "run-twice", "agree": False}
    elif legal.show:
        data = {"action": "show"}
    else:
        data = {"action": "check" if legal.check else "fold"}
    pid = hand.players[hand.state.actor]
    await table.request("act", pid, hand=hand.id, counter=hand.counter, **data)


async def start(
    config: TableConfig,
    runtime: Runtime = FAST,
    store: MemoryTableStore | None = None,
    table_id: str | None = None,
    clock: FakeClock | None = None,
) -> Harness:
    """A table (new, or `table_id` from `store`) running on `clock` (a new fake one)."""
    store = store or MemoryTableStore()
    clock = clock or FakeClock()
    store.now = clock.now
    if table_id is None:
        table_id = await store.create_table("host", config, "code")
    table = Table(await store.load_table(table_id), store, on(clock, runtime))
    return Harness(store, table, asyncio.create_task(table.run()), clock)


CARD = re.compile(r"^[2-9TJQKA][cdhs]$")
#: a whole JSON string (value or key) that is a card: its opening quote follows `[`, `{`, `,`
#: or `:` (and spaces), so an escaped quote inside a longer string (`"say \"Ah"`) is not one
CARD_IN_JSON = re.compile(r'[\[{,:]\s*"([2-9TJQKA][cdhs])"')


def cards_in_json(text: str) -> set[str]:
    """`cards_in` of a message as the socket carries it, read from its text: the same set as
    parsing it and walking the tree (tests/tables/test_leak.py checks both agree), at a
    fraction of the cost (the leak tests read every message each connection receives)."""
    return set(CARD_IN_JSON.findall(text))


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
    unless folded (mucked at the showdown, it stays theirs to see)."""
    if state is None:
        return set()
    seen = {card_str(c) for run in state.boards for board in run for c in board}
    for p in range(state.n):
        own = player_id is not None and players[p] == player_id
        if state.shown[p] or (own and not state.folded[p]):
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
        # checked as the client receives it: the text (parsed only to report a leak)
        found = cards_in_json(message) if isinstance(message, str) else cards_in(message)
        hand = self.table.hand
        allowed = allowed_cards(
            hand.state if hand else None, self.player_id, hand.players if hand else ()
        )
        self.cards_seen += len(found)
        if isinstance(message, str) and self.messages % 64 == 0:  # the two readings agree
            assert cards_in(json.loads(message)) == found, message
        if found - allowed:
            parsed = json.loads(message) if isinstance(message, str) else message
            self.leaks.append((parsed, found - allowed))
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


async def play_hands(table: Table, hands: int, rng: random.Random, *, chaos: bool = True) -> int:
    """Play until `hands` more hands have ended; random actions, and now and then a top-up,
    a sit-out and back, or a leave and a new seat. Returns the hands played."""
    start = table.hand_number
    stalled = 0
    while True:
        hand = table.hand
        done = (
            table.hand_number - start - (1 if hand is not None and not hand.state.complete else 0)
        )
        if done >= hands:
            return done
        if hand is None or hand.state.complete or hand.state.actor is None:
            await refill(table, rng)
            await table.quiet()
            stalled += 1
            assert stalled < 1000, f"the table stopped dealing after {done} hands"
            continue
        stalled = 0
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
