"""The table actor: one asyncio task per table runs its mailbox and executes what its state
machine (app/tables/machine.py) says, in one place (`_execute`, `_meet`).

Everything that changes a table arrives in its mailbox as a `Command` and is handled one at
a time by `run`; nothing else mutates a table. The actor parses each into a typed command,
hands it to the machine with the table clock's time, and executes the steps that come back:
the effects (records to every viewer's bounded outbox, timers armed on the clock, commands
to itself, bots, the director), then the step's need (a write awaited within its deadline,
a read, a viewer's welcome), whose outcome the machine takes before going on. So whatever
the table answers `ok` to is stored before the answer, and a write that fails leaves the
machine as it was (the machine's own rule). The actor awaits only its store, never a
socket.

Commands answer through a future: a result dict, or a `TableError` (typed, and the table is
unchanged), or into the sender's outbox (`tell`). Timers post `Fire` to the mailbox when
their time comes, which the machine takes only if it is still the timer's.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import orjson

from app.bots.player import Bot
from app.poker import Card
from app.tables.broadcast import Broadcast
from app.tables.clock import Timer
from app.tables.command import Command
from app.tables.commands import (
    HOST_COMMANDS,
    PLAYER_COMMANDS,
    Attach,
    Detach,
    Fire,
    Start,
    TableCommand,
    parse,
)
from app.tables.config import TableConfig
from app.tables.core import Reply, TableCore
from app.tables.effects import (
    AllInEnded,
    Arm,
    Cancel,
    Effect,
    Emit,
    Need,
    Note,
    Post,
    Read,
    StartBot,
    StopBot,
    TellDirector,
    Write,
)
from app.tables.errors import TableError
from app.tables.fairness import ServerSeed
from app.tables.hand import Hand
from app.tables.machine import TableMachine
from app.tables.runtime import Runtime
from app.tables.seat import Seat, SeatRequest
from app.tables.store_protocol import OwnershipLost, StoredTable, TableStore
from app.tables.timers import Handle
from app.tables.viewer import CLOSE_GOING_AWAY, CLOSE_TABLE_CLOSED, Viewer
from app.tables.views import table_view
from app.tables.writes import Reload, Writes

__all__ = [
    "CLOSE_GRACE",
    "HOST_COMMANDS",
    "PLAYER_COMMANDS",
    "Command",
    "Reload",
    "Runtime",
    "SeatRequest",
    "Table",
    "load_table",
]

log = logging.getLogger("omaha.tables")

#: seconds between the answer to the command that closed a table and its sockets' closing
CLOSE_GRACE = 0.1


class _Doubt:
    """A late write's outcome is known: settle it (`Writes.check_doubt`)."""


Mail = Command | TableCommand | _Doubt


class Table:
    """One table's actor: its mailbox, its machine, its viewers, timers, bots and store."""

    def __init__(
        self,
        stored: StoredTable,
        store: TableStore,
        runtime: Runtime | None = None,
        deck_source: Callable[[], list[Card]] | None = None,
    ) -> None:
        self.runtime = runtime or Runtime()
        self.store = store
        self.clock = self.runtime.clock
        self.core = TableCore(stored, self.runtime, deck_source)
        self.machine = TableMachine(self.core)
        self.mailbox: asyncio.Queue[Mail] = asyncio.Queue()
        self.broadcast = Broadcast(self.runtime.replay_buffer)
        self.writes = Writes(store, stored.id, self.runtime.store_timeout, self.clock,
                             lambda: self.mailbox.put_nowait(_Doubt()))  # fmt: skip
        self._timers: dict[Timer, Handle] = {}
        self._bots: dict[str, tuple[Bot, asyncio.Task[None]]] = {}
        self._bot_failures: dict[str, int] = {}
        #: the actor is handling a command (a stopping process hands the table over between two)
        self.busy = False
        #: a tournament table's director: told when a hand ends
        self.director: Callable[[dict[str, Any]], None] | None = None
        #: told `(table id, hand id)` when a hand with an all-in ended, stored: it must only
        #: start something (the review worker's equities), never wait nor raise
        self.on_all_in: Callable[[str, str], None] | None = None
        self._waiting = False  # on an empty mailbox
        self._changed = asyncio.Event()

    # ------------------------------------------------------------- what others read
    @property
    def id(self) -> str:
        return self.core.id

    @property
    def code(self) -> str:
        return self.core.code

    @property
    def host_id(self) -> str:
        return self.core.kept.host_id

    @property
    def config(self) -> TableConfig:
        return self.core.kept.config

    @property
    def next_config(self) -> TableConfig | None:
        return self.core.kept.next_config

    @property
    def button(self) -> int | None:
        return self.core.kept.button

    @property
    def paused(self) -> bool:
        return self.core.kept.paused

    @property
    def hand_number(self) -> int:
        return self.core.kept.hand_number

    @property
    def seats(self) -> tuple[Seat | None, ...]:
        return self.core.kept.seats.seats

    @property
    def hand(self) -> Hand | None:
        return self.core.hand

    @property
    def last_blinds(self) -> tuple[int | None, int | None]:
        """The last hand's blind seats (the one in memory, else as stored at a restart)."""
        hand = self.core.hand
        return hand.blind_seats if hand is not None else self.core.kept.last_blinds

    @property
    def requests(self) -> Mapping[str, SeatRequest]:
        return self.core.kept.requests

    @property
    def server_seed(self) -> ServerSeed | None:
        return self.core.kept.server_seed

    @property
    def bomb_pot_next(self) -> bool:
        return self.core.kept.bomb_pot_next

    @property
    def chat(self) -> Iterable[dict[str, Any]]:
        return self.core.kept.chat

    @property
    def idle(self) -> bool:
        return self.core.idle

    @property
    def closing(self) -> bool:
        return self.core.closing

    @property
    def closed(self) -> bool:
        return self.core.closed

    @property
    def draining(self) -> bool:
        return self.core.draining

    @draining.setter
    def draining(self, value: bool) -> None:
        """Its process stops: the hand in play ends, no other is dealt here."""
        self.core.draining = value

    @property
    def turn_deadline(self) -> float | None:
        return self.core.clock.turn_deadline

    @property
    def turn_stopped_left(self) -> float | None:
        return self.core.clock.stopped_left

    @property
    def turn_bank(self) -> tuple[float, bool] | None:
        return self.core.clock.bank_news

    @property
    def viewers(self) -> dict[int, Viewer]:
        return self.broadcast.viewers

    @property
    def stream(self) -> str:
        return self.broadcast.stream

    @property
    def seq(self) -> int:
        return self.broadcast.seq

    @property
    def records(self) -> list[tuple[int, str, dict[str, str] | None]]:
        """What was sent since the previous hand began (seq, public text, private texts)."""
        return self.broadcast.kept()

    @property
    def seat_changes(self) -> asyncio.Event:
        return self.broadcast.seat_changes

    @property
    def in_flight(self) -> set[asyncio.Future[Any]]:
        return self.writes.in_flight

    def now(self) -> float:
        return self.clock.now()

    def seat_of(self, player_id: str) -> Seat | None:
        return self.core.seat_of(player_id)

    def hand_running(self) -> bool:
        return self.core.hand_running()

    # ------------------------------------------------------------- the mailbox
    def post(self, command: Command) -> None:
        self.mailbox.put_nowait(command)

    def post_detach(self, viewer: Viewer) -> None:
        """A connection ended (no answer needed; safe to call from a finally block)."""
        self.post(Command("detach", viewer.player_id, {"viewer": viewer}))

    def tell(
        self, kind: str, sender: str | None, viewer: Viewer, ref: Any, data: dict[str, Any]
    ) -> None:
        """Send a command whose answer (`ok` with the result, or the `error`) goes to `viewer`'s
        outbox after whatever the command broadcast, as `request`'s caller would send it; the
        sender does not wait. The hot path (every action): no future, no timer, no second
        wake-up of the connection's reader per action."""
        self.post(Command(kind, sender, data, reply=(viewer, ref)))

    async def request(self, kind: str, sender: str | None = None, /, **data: Any) -> dict[str, Any]:
        """Send a command from player `sender` and wait for its answer; raises `TableError`
        when refused (and then nothing changed)."""
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self.post(Command(kind, sender, data, future))
        return await future

    async def quiet(self) -> None:
        """Wait until the table has handled everything in its mailbox and no timer of it is
        due, or it closed (tests wait on this condition, never for a while)."""
        while not (self._waiting and self.mailbox.empty() and not self._due()) and not self.closed:
            self._changed.clear()
            await self._changed.wait()

    def _due(self) -> bool:
        now = self.clock.now()
        return any(at <= now for at in self.core.clock.deadlines.values())

    async def run(self) -> None:
        """The actor loop. An unexpected exception ends it (the registry restarts the table
        from durable state); the command that caused it is answered with an error first."""
        await self._do(Start())
        while True:
            if self.mailbox.empty():
                self._waiting = True
                self._changed.set()
            item = await self.mailbox.get()
            self._waiting = False
            self.busy = True
            try:
                result = await self._handle(item)
            except TableError as error:
                _settle(item, {}, error)
                continue
            except (Reload, OwnershipLost):  # the registry reloads it, or drops it (not ours)
                _settle(item, {}, TableError("unavailable", "the table reloads: reconnect"))
                raise
            except BaseException:
                _settle(item, {}, TableError("internal", "the table restarts"))
                raise
            finally:
                self.busy = False
            _settle(item, result)
            if self.core.closed:
                self._changed.set()
                # After the answer: the host gets `ok` and everyone the `closed` event, then
                # the sockets close with 4410. The pause lets the readers of requested
                # commands queue their answers (commands arriving meanwhile are refused).
                await self.clock.sleep(CLOSE_GRACE)
                self.shutdown(CLOSE_TABLE_CLOSED, "the host closed the table", flush=True)
                return

    def shutdown(
        self, code: int = CLOSE_GOING_AWAY, reason: str = "server stopping", *, flush: bool = False
    ) -> None:
        """Stop the timers, refuse queued commands, close every viewer (`flush`: after what
        is queued for it has been sent)."""
        self.writes.cancel()
        for handle in self._timers.values():
            handle.cancel()
        self._timers.clear()
        for player_id in list(self._bots):
            self._stop_bot(player_id)
        while not self.mailbox.empty():
            _settle(self.mailbox.get_nowait(), {},
                    TableError("unavailable", "the table is restarting"))  # fmt: skip
        for viewer in list(self.viewers.values()):
            viewer.close(code, reason, flush=flush)
        self.viewers.clear()

    async def _handle(self, item: Mail) -> dict[str, Any]:
        if isinstance(item, _Doubt):
            self.writes.check_doubt()
            return {}
        if isinstance(item, TableCommand):  # one the table posted itself
            return await self._do(item) or {}
        data = item.data
        if item.kind == "view":
            # The snapshot `player_id` would get on connecting, serialised here (one moment
            # of the table), without attaching: the table page embeds it.
            return {"snapshot": orjson.dumps(table_view(self, item.player_id))}
        if item.kind == "attach":
            viewer: Viewer = data["viewer"]
            self.viewers[viewer.id] = viewer
            stream, since = data.get("stream"), data.get("since")
            await self._do(Attach(
                sender=viewer.player_id, viewer=viewer.id,
                stream=stream if isinstance(stream, str) else None,
                since=since if isinstance(since, int) else None,
            ))  # fmt: skip
            return {"seq": self.seq, "stream": self.stream}
        if item.kind == "detach":
            viewer = data["viewer"]
            self.viewers.pop(viewer.id, None)
            return await self._do(Detach(sender=viewer.player_id, viewer=viewer.id)) or {}
        return await self._do(parse(item.kind, item.player_id, data)) or {}

    async def _do(self, command: TableCommand) -> Reply:
        """Run one command through the machine: execute its effects, meet its needs."""
        machine = self.machine
        step = machine.handle(command, self.clock.now())
        while True:
            self._execute(step.effects)
            need = step.need
            if need is None:
                break
            try:
                value = await self._meet(need)
            except TableError as error:
                step = machine.fail(error, self.clock.now())
            else:
                step = machine.resume(value, self.clock.now())
        if step.error is not None:
            raise step.error
        return step.result

    async def _meet(self, need: Need) -> Any:
        if isinstance(need, Write):
            await self.writes.write(need.op)
            return None
        if isinstance(need, Read):
            return await self.writes.read(need.op)
        viewer = self.viewers.get(need.viewer)
        if viewer is not None:
            self.broadcast.welcome(viewer, need.stream, need.since,
                                   lambda pid: table_view(self, pid))  # fmt: skip
        return None

    def _execute(self, effects: list[Effect]) -> None:
        for effect in effects:
            if isinstance(effect, Emit):
                for viewer_id in self.broadcast.emit(effect.records, effect.hand_start):
                    self.core.watchers.pop(viewer_id, None)
            elif isinstance(effect, Arm):
                self._arm(effect.timer, effect.at)
            elif isinstance(effect, Cancel):
                handle = self._timers.pop(effect.timer, None)
                if handle is not None:
                    handle.cancel()
            elif isinstance(effect, Post):
                self.mailbox.put_nowait(effect.command)
            elif isinstance(effect, Note):
                self.writes.background(effect.op)
            elif isinstance(effect, TellDirector):
                if self.director is not None:
                    self.director(effect.event)
            elif isinstance(effect, AllInEnded):
                if self.on_all_in is not None:
                    self.on_all_in(self.id, effect.hand_id)
            elif isinstance(effect, StartBot):
                self._start_bot(effect.player_id, effect.buy_in)
            elif isinstance(effect, StopBot):
                self._stop_bot(effect.player_id)

    def _arm(self, timer: Timer, at: float) -> None:
        old = self._timers.pop(timer, None)
        if old is not None:
            old.cancel()
        fire = Fire(timer=timer, at=at)
        self._timers[timer] = self.clock.call_at(at, lambda: self.mailbox.put_nowait(fire))

    # ------------------------------------------------------------- practice bots
    def _start_bot(self, player_id: str, buy_in: int) -> None:
        if player_id in self._bots:
            return
        bot = Bot(self, player_id, self.runtime.bot_think, buy_in, self.runtime.bot_samples)
        task = asyncio.get_running_loop().create_task(bot.run(), name=f"bot-{player_id}")
        self._bots[player_id] = (bot, task)
        task.add_done_callback(lambda t: self._bot_ended(player_id, t))

    def _bot_ended(self, player_id: str, task: asyncio.Task[None]) -> None:
        """A bot that failed (a bug) is started again while its seat is still a bot's, a few
        times at most (then the clock acts for it, as for anyone who stopped playing)."""
        if task.cancelled() or task.exception() is None:
            return
        log.error("table %s: bot %s failed", self.id, player_id, exc_info=task.exception())
        entry = self._bots.get(player_id)
        seat = self.seat_of(player_id)
        self._bot_failures[player_id] = failures = self._bot_failures.get(player_id, 0) + 1
        if entry is not None and entry[1] is task and seat is not None and failures <= 3:
            del self._bots[player_id]
            self._start_bot(player_id, self.core.bot_buy_in(seat))

    def _stop_bot(self, player_id: str) -> None:
        entry = self._bots.pop(player_id, None)
        if entry is not None:
            entry[1].cancel()


def _settle(item: Mail, result: dict[str, Any], error: TableError | None = None) -> None:
    if isinstance(item, Command):
        item.settle(result, error)


async def load_table(store: TableStore, table_id: str, runtime: Runtime | None = None) -> Table:
    return Table(await store.load_table(table_id), store, runtime)
