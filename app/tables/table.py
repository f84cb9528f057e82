"""The table actor: one asyncio task per table owns its seats, button, clock and current hand.

Everything that changes a table arrives as a `Command` in its mailbox and is handled one at a
time by `run`; nothing else mutates a `Table`. The actor awaits only its store (each accepted
action is committed before anyone hears of it), never a socket: it renders each record for
each viewer and drops it in that viewer's bounded outbox (see `Viewer`).

Commands answer through a future: a result dict, or a `TableError` (typed, and the table is
unchanged). Timers (the decision clock, the next hand, the away grace period) post commands
to the mailbox too, carrying what they were armed for, so a stale timer does nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import logging
import secrets
import time
import uuid
from collections import deque
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

import orjson
from pydantic import ValidationError

from app.poker import Action, ActionKind, HandSetup, HandState, IllegalAction, Phase
from app.tables.button import Deal, plan_deal
from app.tables.config import CHAT_MAX, MAX_CHIPS, TableConfig
from app.tables.errors import TableError
from app.tables.hand import Hand
from app.tables.ledger import ledger_lines
from app.tables.names import skeleton
from app.tables.seat import Seat
from app.tables.store import CHAT_KEPT, OwnershipLost, StoredTable, StoreInDoubt, TableStore
from app.tables.viewer import CLOSE_GOING_AWAY, CLOSE_TABLE_CLOSED, Viewer
from app.tables.views import Record, event_records, render, table_view, turn_record

if TYPE_CHECKING:
    from app.bots.player import Bot

log = logging.getLogger("omaha.tables")
T = TypeVar("T")
_shuffler = secrets.SystemRandom()


def _dumps(message: dict[str, Any]) -> str:
    """Compact JSON text; orjson: the actor serialises every record it broadcasts."""
    return orjson.dumps(message).decode()


@dataclass(frozen=True)
class Runtime:
    """Server-wide knobs of every table (from the settings)."""

    between_hands: float = 2.0  # seconds between the end of a hand and the next deal
    away_grace: float = 60.0  # seconds a disconnected player stays seated in before sitting out
    outbox_limit: int = 256  # messages a connection may fall behind before it is closed
    replay_buffer: int = 1024  # at most this many sent records kept for clients to catch up
    clock_enabled: bool = True  # tests switch the decision clock off
    seat_requests: int = 20  # pending seat requests a table keeps (SEAT_REQUESTS_PER_TABLE)
    bot_think: float = 1.5  # seconds a practice bot thinks, on average
    chat_burst: int = 5  # chat messages a player may send within `chat_window` seconds
    chat_window: float = 10.0
    store_timeout: float = 5.0  # seconds a write may take before the command is `unavailable`
    retry_delay: float = 1.0  # seconds before the clock or the dealer tries a failed write again
    deal_unwatched: bool = False  # deal with no seated player connected (tests of the actor)


class Reload(Exception):
    """A write the table gave up on (its deadline passed) was stored after all: the table's
    memory is behind the store, so the registry restarts it from the store."""


@dataclass
class Command:
    kind: str
    player_id: str | None = None
    data: dict[str, Any] = field(default_factory=dict)
    future: asyncio.Future[dict[str, Any]] | None = None
    # Answered into this viewer's outbox instead of a future (`tell`): (viewer, message id).
    reply: tuple[Viewer, Any] | None = None

    def settle(self, result: dict[str, Any], error: TableError | None = None) -> None:
        """Answer the sender: into its outbox (`tell`), or through its future (`request`)."""
        if self.reply is not None:
            viewer, ref = self.reply
            message: dict[str, Any]
            if error is not None:
                message = {"type": "error", "code": error.code, "message": error.message}
            else:
                message = {"type": "ok", "of": self.kind, **result}
            if ref is not None:
                message["id"] = ref
            viewer.send(message)
        elif self.future is not None and not self.future.done():
            if error is not None:
                self.future.set_exception(error)
            else:
                self.future.set_result(result)


@dataclass
class SeatRequest:
    player_id: str
    name: str
    seat: int
    buy_in: int
    post: bool

    def to_json(self) -> dict[str, Any]:
        return {
            "player_id": self.player_id,
            "name": self.name,
            "seat": self.seat,
            "buy_in": self.buy_in,
        }

    def stored(self) -> dict[str, Any]:
        return {**self.to_json(), "post": self.post}

    @classmethod
    def from_stored(cls, data: dict[str, Any]) -> SeatRequest:
        return cls(str(data["player_id"]), str(data["name"]), int(data["seat"]),
                   int(data["buy_in"]), bool(data.get("post", False)))  # fmt: skip


#: seconds between the answer to the command that closed a table and its sockets' closing
CLOSE_GRACE = 0.1


def shuffled_deck() -> list[int]:
    deck = list(range(52))
    _shuffler.shuffle(deck)
    return deck


# Commands a player may send, and the ones only the host may send.
PLAYER_COMMANDS = frozenset(
    {"sit", "top_up", "sit_out", "sit_in", "leave", "straddle", "act", "show", "more_time",
     "sit_out_next", "sit_out_next_bb", "chat"}
)  # fmt: skip
HOST_COMMANDS = frozenset(
    {"approve", "refuse", "pause", "resume", "set_stakes", "remove", "adjust", "transfer_host",
     "add_bot", "bomb_pot_next", "spectator_chat", "close"}
)  # fmt: skip
#: commands that handle a failed write themselves (actions roll the hand back; timers retry)
_SELF_UNDOING = frozenset(
    {"act", "attach", "detach", "timeout", "auto", "grace", "next_hand", "doubt"}
)


class Table:
    def __init__(
        self,
        stored: StoredTable,
        store: TableStore,
        runtime: Runtime | None = None,
        deck_source: Callable[[], list[int]] = shuffled_deck,
    ) -> None:
        self.runtime = runtime or Runtime()
        self.store = store
        self.id = stored.id
        self.code = stored.code
        self.host_id = stored.host_id
        self.config: TableConfig = stored.config
        self.next_config: TableConfig | None = stored.next_config
        self.button = stored.button
        self.paused = stored.paused
        self.hand_number = stored.hand_number
        self.seats: list[Seat | None] = [None] * self.config.seats
        for seat in stored.seats:
            seat.away = True  # nobody is connected yet
            self.seats[seat.number] = seat
        self.hand: Hand | None = None
        if stored.hand is not None:
            h = stored.hand
            self.hand = Hand.replay(h.id, h.number, h.record, h.deck, h.actions)
        seated = {s.player_id for s in stored.seats}
        self.requests: dict[str, SeatRequest] = {}
        for data in stored.requests:  # one approved before a crash is seated already
            request = SeatRequest.from_stored(data)
            if request.player_id not in seated:
                self.requests[request.player_id] = request
        self.viewers: dict[int, Viewer] = {}
        self.mailbox: asyncio.Queue[Command] = asyncio.Queue()
        self.stream = secrets.token_hex(8)
        self.seq = 0
        # What was broadcast, as sent (seq, public text, {player: text with their private
        # part}), since the start of the previous hand: a client that reconnects within it
        # catches up from here, an older one gets a snapshot. Texts and this bound, not the
        # records themselves for 1,024 messages: those were ~1 MiB per table flat out, most
        # of the server's memory per connection (docs/performance.md, Load).
        self.records: deque[tuple[int, str, dict[str, str] | None]] = deque(
            maxlen=self.runtime.replay_buffer
        )
        self._hand_starts: deque[int] = deque(maxlen=2)
        self.turn_deadline: float | None = None
        self._deck_source = deck_source
        self._timer: asyncio.TimerHandle | None = None
        self._bank_started: float | None = None
        self._next_hand_timer: asyncio.TimerHandle | None = None
        self._grace: dict[str, asyncio.TimerHandle] = {}
        self._recovered = stored.hand is not None
        self._elapsed = stored.hand.elapsed if stored.hand is not None else None
        #: a write whose deadline passed while the database still had it (see `_store`)
        self._doubt: asyncio.Future[None] | None = None
        #: no seated player connected: no new hand is dealt (shown as paused) until one is
        self.idle = False
        #: set (and replaced) whenever a seat changes: connections refresh their presence
        self.seat_changes = asyncio.Event()
        self.bomb_pot_next = stored.bomb_pot_next
        self.chat: deque[dict[str, Any]] = deque(stored.chat, maxlen=CHAT_KEPT)
        self._chat_times: dict[str, deque[float]] = {}
        self._bots: dict[str, tuple[Bot, asyncio.Task[None]]] = {}
        self._bot_failures: dict[str, int] = {}
        #: the host closed the table: it deals no more hand (`closing`), then ends (`closed`)
        self.closing = False
        self.closed = False
        #: its process is stopping: the hand in play ends, no other is dealt here
        self.draining = False

    # ------------------------------------------------------------------ outside API
    @staticmethod
    def now() -> float:
        return time.monotonic()

    def seat_of(self, player_id: str) -> Seat | None:
        for seat in self.seats:
            if seat is not None and seat.player_id == player_id:
                return seat
        return None

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

    async def run(self) -> None:
        """The actor loop. An unexpected exception ends it (the registry restarts the table
        from durable state); the command that caused it is answered with an error first."""
        await self._resume()
        while True:
            command = await self.mailbox.get()
            try:
                result = await self._handle(command)
            except TableError as error:
                command.settle({}, error)
                continue
            except (Reload, OwnershipLost):  # the registry reloads it, or drops it (not ours)
                command.settle({}, TableError("unavailable", "the table reloads: reconnect"))
                raise
            except BaseException:
                command.settle({}, TableError("internal", "the table restarts"))
                raise
            command.settle(result)
            if self.closed:
                # After the answer: the host gets `ok` and everyone the `closed` event, then
                # the sockets close with 4410. The pause lets the readers of requested
                # commands queue their answers (commands arriving meanwhile are refused).
                await asyncio.sleep(CLOSE_GRACE)
                self.shutdown(CLOSE_TABLE_CLOSED, "the host closed the table", flush=True)
                return

    def shutdown(
        self, code: int = CLOSE_GOING_AWAY, reason: str = "server stopping", *, flush: bool = False
    ) -> None:
        """Stop the timers, refuse queued commands, close every viewer (`flush`: after what
        is queued for it has been sent)."""
        if self._doubt is not None:
            self._doubt.cancel()
        for handle in (self._timer, self._next_hand_timer, *self._grace.values()):
            if handle is not None:
                handle.cancel()
        for player_id in list(self._bots):
            self._stop_bot(player_id)
        while not self.mailbox.empty():
            command = self.mailbox.get_nowait()
            command.settle({}, TableError("unavailable", "the table is restarting"))
        for viewer in list(self.viewers.values()):
            viewer.close(code, reason, flush=flush)
        self.viewers.clear()

    # ------------------------------------------------------------------- dispatch
    async def _handle(self, c: Command) -> dict[str, Any]:
        if c.kind in HOST_COMMANDS and c.player_id != self.host_id:
            raise TableError("not_host", "only the host can do that")
        handler = getattr(self, f"_on_{c.kind}", None)
        if handler is None:
            raise TableError("unknown_command", f"unknown command {c.kind!r}")
        if c.kind in _SELF_UNDOING:
            result: dict[str, Any] | None = await handler(c)
            return result or {}
        undo = self._checkpoint()
        try:
            result = await handler(c)
        except TableError as error:
            if error.code == "unavailable":
                undo()  # not stored: the table is as it was, and says so
            raise
        return result or {}

    def _checkpoint(self) -> Callable[[], None]:
        """What a seat or host command may change, to put back when its write fails."""
        seats = list(self.seats)
        saved = [(s, {**vars(s), "extra": copy.deepcopy(s.extra)}) for s in seats if s]
        table = (self.host_id, self.config, self.next_config, self.paused, dict(self.requests))

        def undo() -> None:
            self.seats[:] = seats
            for seat, fields in saved:
                vars(seat).update(fields)
            self.host_id, self.config, self.next_config, self.paused, self.requests = table

        return undo

    # ------------------------------------------------------------------ the store
    async def _store(self, write: Coroutine[Any, Any, None], *, queued: bool = False) -> None:
        """Run one write of the store, within `store_timeout`. A refused, failed or late write
        raises `TableError("unavailable")`, and the caller changes nothing.

        A late write is cancelled; if the database already had it (a frozen server commits
        when it thaws) it stays "in doubt" until the database answers, and no other write is
        accepted meanwhile; if it turns out stored, the table reloads (`Reload`).

        `queued`: a write through the group writer (the hot path: every action and deal),
        which hands back its doubt itself (`StoreInDoubt`) when cancelled, so it runs here
        under a timeout; any other write runs in a task of its own, for a cancelled database
        call may hang (a rollback on a frozen connection) and the actor must not."""
        try:
            self._check_doubt()
        except BaseException:
            write.close()  # never started
            raise
        late = "the database did not answer in time; try again"
        if queued:
            try:
                async with asyncio.timeout(self.runtime.store_timeout):
                    await write
            except StoreInDoubt as doubt:
                self._set_doubt(doubt.outcome)
                raise TableError("unavailable", late) from None
            except OwnershipLost:  # another process took the table: this one stops
                raise
            except Exception as error:  # TimeoutError: withdrawn before it was sent
                self._write_failed(error)
                raise TableError("unavailable", "that could not be stored; try again") from None
            return
        task = asyncio.ensure_future(write)
        done, _ = await asyncio.wait((task,), timeout=self.runtime.store_timeout)
        if not done:
            task.cancel()
            self._set_doubt(task)
            raise TableError("unavailable", late)
        failure = task.exception()
        if isinstance(failure, OwnershipLost):
            raise failure
        if failure is not None:
            self._write_failed(failure)
            raise TableError("unavailable", "that could not be stored; try again")

    async def _read(self, query: Coroutine[Any, Any, T]) -> T:
        """A read of the store within `store_timeout`, else `unavailable` (never a hang)."""
        task = asyncio.ensure_future(query)
        done, _ = await asyncio.wait((task,), timeout=self.runtime.store_timeout)
        if not done:
            task.cancel()
        elif (failure := task.exception()) is None:
            return task.result()
        else:
            self._write_failed(failure)
        raise TableError("unavailable", "the database does not answer; try again")

    def _write_failed(self, error: BaseException) -> None:
        # Not `log.exception`: a database error quotes its parameters (a deck, say).
        log.error("table %s: a write failed (%s)", self.id, type(error).__name__)

    def _set_doubt(self, outcome: asyncio.Future[None]) -> None:
        log.error("table %s: the database did not answer a write within %.1f s",
                  self.id, self.runtime.store_timeout)  # fmt: skip
        self._doubt = outcome
        outcome.add_done_callback(lambda _: self.post(Command("doubt")))

    def _check_doubt(self) -> None:
        outcome = self._doubt
        if outcome is None:
            return
        if not outcome.done():
            raise TableError("unavailable", "waiting for the database; try again")
        self._doubt = None
        if outcome.cancelled():
            return  # withdrawn before it reached the database
        error = outcome.exception()
        if isinstance(error, StoreInDoubt):  # a task given up on: its write's own answer
            self._set_doubt(error.outcome)
            self._check_doubt()
        elif isinstance(error, OwnershipLost):
            raise error
        elif error is None:
            raise Reload(f"table {self.id}: a write given up on was stored")

    async def _on_doubt(self, c: Command) -> None:
        self._check_doubt()

    # ---------------------------------------------------------------- broadcasting
    def _emit(self, *records: Record) -> None:
        # Each record is serialised once for everyone who sees only its public part, and once
        # more for each player with a private part (own hole cards, own legal actions): not
        # once per viewer. The text is what goes on the wire.
        sent = []
        for record in records:
            self.seq += 1
            record.public["seq"] = self.seq
            public = _dumps(record.public)
            private = {
                pid: _dumps(render(record, pid))  # views.render: the one redaction rule
                for pid, extra in record.private.items()
                if extra
            } or None
            entry = (self.seq, public, private)
            self.records.append(entry)
            sent.append(entry)
        publics = [public for _, public, _ in sent]
        personal = any(private for _, _, private in sent)
        for viewer in list(self.viewers.values()):
            pid = viewer.player_id
            if personal and pid is not None:
                viewer.send_many([
                    private.get(pid, public) if private else public
                    for _, public, private in sent
                ])  # fmt: skip
            else:
                viewer.send_many(publics)
            if viewer.closed is not None:
                self.viewers.pop(viewer.id, None)

    def _seats_changed(self) -> None:
        changed, self.seat_changes = self.seat_changes, asyncio.Event()
        changed.set()

    def _seat_record(self, seat: Seat) -> Record:
        self._seats_changed()
        return Record(
            {
                "type": "seat",
                "seat": seat.number,
                "player_id": seat.player_id,
                "name": seat.name,
                "stack": seat.stack,
                "status": seat.status,
                "away": seat.away,
                "straddle": seat.straddle,
                "missed": seat.missed,
                "bot": seat.bot,
                "sit_out_next": seat.sit_out_next,
                "sit_out_next_bb": seat.sit_out_next_bb,
            }
        )

    def _table_record(self) -> Record:
        return Record(
            {
                "type": "table",
                "host": self.host_id,
                "paused": self.paused or self.idle,
                "idle": self.idle,
                "bomb_pot_next": self.bomb_pot_next,
                "config": self.config.model_dump(mode="json"),
                "next_config": self.next_config.model_dump(mode="json")
                if self.next_config
                else None,
            }
        )

    # ------------------------------------------------------------------ viewers
    async def _on_attach(self, c: Command) -> dict[str, Any]:
        viewer: Viewer = c.data["viewer"]
        stream, since = c.data.get("stream"), c.data.get("since")
        self.viewers[viewer.id] = viewer
        first = self.records[0][0] if self.records else self.seq + 1
        if (
            stream == self.stream
            and isinstance(since, int)
            and first - 1 <= since <= self.seq
            and self.seq - since < viewer.limit  # more would overflow its outbox
        ):
            pid = viewer.player_id
            for seq, public, private in self.records:
                if seq > since:
                    viewer.send(private.get(pid, public) if private and pid is not None else public)
        else:
            viewer.send(table_view(self, viewer.player_id))
        if viewer.player_id is not None:
            handle = self._grace.pop(viewer.player_id, None)
            if handle is not None:
                handle.cancel()
            seat = self.seat_of(viewer.player_id)
            if seat is not None and seat.away:
                seat.away = False
                self._emit(self._seat_record(seat))
            if seat is not None and self.idle:
                self.idle = False
                self._emit(self._table_record())
                self._schedule_next_hand(0.0)
            if self._bots and viewer.player_id not in self._bots:
                self._schedule_next_hand(0.0)  # bots alone wait for someone to watch them
        return {"seq": self.seq, "stream": self.stream}

    async def _on_detach(self, c: Command) -> None:
        viewer: Viewer = c.data["viewer"]
        self.viewers.pop(viewer.id, None)
        pid = viewer.player_id
        if pid is None or any(v.player_id == pid for v in self.viewers.values()):
            return
        seat = self.seat_of(pid)
        if seat is None or seat.away:
            return
        seat.away = True
        self._emit(self._seat_record(seat))
        self._start_grace(pid, self.runtime.away_grace)

    def _start_grace(self, pid: str, delay: float) -> None:
        handle = self._grace.pop(pid, None)
        if handle is not None:
            handle.cancel()
        self._grace[pid] = asyncio.get_running_loop().call_later(
            delay, self.post, Command("grace", pid)
        )

    async def _on_grace(self, c: Command) -> None:
        """The away grace ran out: sit the player out; fold them if it is their turn."""
        assert c.player_id is not None
        self._grace.pop(c.player_id, None)
        seat = self.seat_of(c.player_id)
        if seat is None or not seat.away or seat.sitting_out:
            return
        seat.sitting_out = True
        try:
            await self._store(self.store.update_seats(self.id, [seat]))
        except TableError:
            seat.sitting_out = False
            self._start_grace(c.player_id, self.runtime.retry_delay)
            return
        self._emit(self._seat_record(seat))
        self._auto_act_if_gone()

    # ------------------------------------------------------------------ seats
    def _hand_running(self) -> bool:
        return self.hand is not None and not self.hand.state.complete

    def _in_hand(self, seat: Seat) -> bool:
        return (
            self._hand_running()
            and self.hand is not None
            and (self.hand.position_of_player(seat.player_id) is not None)
        )

    def _check_buy_in(self, amount: object) -> int:
        if not isinstance(amount, int) or isinstance(amount, bool):
            raise TableError("bad_amount", "a buy-in is a whole number of chips")
        lo, hi = self.config.buy_in_min, self.config.buy_in_max
        if not lo <= amount <= hi:
            raise TableError("bad_buy_in", f"the buy-in is between {lo} and {hi}")
        return amount

    def _free_seat(self, number: object) -> int:
        if (
            not isinstance(number, int)
            or isinstance(number, bool)
            or not (0 <= number < len(self.seats))
        ):
            raise TableError("no_such_seat", f"seats are numbered 0 to {len(self.seats) - 1}")
        if self.seats[number] is not None:
            raise TableError("seat_taken", f"seat {number} is taken")
        return number

    async def _on_sit(self, c: Command) -> dict[str, Any]:
        pid = c.player_id
        if pid is None:
            raise TableError("no_session", "join the server with a name first")
        if self.seat_of(pid) is not None:
            raise TableError("already_seated", "you already have a seat at this table")
        number = self._free_seat(c.data.get("seat"))
        buy_in = self._check_buy_in(c.data.get("buy_in"))
        name = str(c.data.get("name") or "player")[:32]
        post = bool(c.data.get("post", False))
        self._check_name(pid, name)
        if self.config.approval_required and pid != self.host_id:
            if pid in self.requests:
                raise TableError("already_requested", "your seat request is waiting for the host")
            if len(self.requests) >= self.runtime.seat_requests:
                raise TableError(
                    "too_many_requests", "too many seat requests are waiting: try again later"
                )
            request = SeatRequest(pid, name, number, buy_in, post)
            self.requests[pid] = request
            await self._save_table()
            self._emit(Record({"type": "seat_request", **request.to_json()}))
            return {"status": "requested"}
        await self._seat(SeatRequest(pid, name, number, buy_in, post))
        return {"status": "seated", "seat": number}

    def _check_name(self, player_id: str, name: str) -> None:
        """No two players at a table whose names look the same (`names.skeleton`)."""
        mine = skeleton(name)
        others = [s.name for s in self.seats if s is not None and s.player_id != player_id]
        others += [r.name for r in self.requests.values() if r.player_id != player_id]
        if any(skeleton(other) == mine for other in others):
            raise TableError(
                "name_taken", f"someone at this table is already called {name!r}: rename first"
            )

    async def _seat(self, r: SeatRequest) -> None:
        seat = Seat(
            number=r.seat,
            player_id=r.player_id,
            name=r.name,
            stack=r.buy_in,
            post=r.post,
            time_bank=self.config.time_bank,
        )
        seat.away = not any(v.player_id == r.player_id for v in self.viewers.values())
        await self._store(self.store.seat_player(self.id, seat, r.buy_in))
        self.seats[r.seat] = seat
        self._emit(self._seat_record(seat))
        self._schedule_next_hand(0.0)

    async def _on_approve(self, c: Command) -> dict[str, Any]:
        request = self.requests.get(str(c.data.get("player_id")))
        if request is None:
            raise TableError("no_such_request", "no seat request from that player")
        if self.seat_of(request.player_id) is not None:
            del self.requests[request.player_id]
            raise TableError("already_seated", "that player already has a seat")
        self._free_seat(request.seat)
        self._check_name(request.player_id, request.name)
        await self._seat(request)
        del self.requests[request.player_id]
        with contextlib.suppress(TableError):  # a stale stored request is dropped at load
            await self._save_table()
        return {"status": "seated", "seat": request.seat}

    async def _on_refuse(self, c: Command) -> dict[str, Any]:
        request = self.requests.pop(str(c.data.get("player_id")), None)
        if request is None:
            raise TableError("no_such_request", "no seat request from that player")
        await self._save_table()
        self._emit(
            Record({"type": "seat_refused", "player_id": request.player_id, "seat": request.seat})
        )
        return {"status": "refused"}

    def _my_seat(self, c: Command) -> Seat:
        seat = self.seat_of(c.player_id) if c.player_id is not None else None
        if seat is None:
            raise TableError("not_seated", "you have no seat at this table")
        return seat

    def _check_chips(self, amount: object, *, signed: bool = False) -> int:
        if not isinstance(amount, int) or isinstance(amount, bool):
            raise TableError("bad_amount", "an amount is a whole number of chips")
        if abs(amount) > MAX_CHIPS or (amount <= 0 and not signed) or amount == 0:
            raise TableError("bad_amount", "that amount is out of range")
        return amount

    async def _on_top_up(self, c: Command) -> dict[str, Any]:
        seat = self._my_seat(c)
        amount = self._check_chips(c.data.get("amount"))
        if seat.stack + seat.pending_top_up + amount > self.config.buy_in_max:
            raise TableError(
                "over_maximum", f"a top-up may bring a stack to {self.config.buy_in_max} at most"
            )
        if self._in_hand(seat):
            seat.pending_top_up += amount
            await self._save_seats(seat)
            self._emit(self._seat_record(seat))
            return {"status": "after_hand"}
        await self._add_chips(seat, amount, "top_up")
        self._emit(self._seat_record(seat))
        self._schedule_next_hand(0.0)
        return {"status": "done", "stack": seat.stack}

    async def _on_sit_out(self, c: Command) -> dict[str, Any]:
        seat = self._my_seat(c)
        if not seat.sitting_out:
            seat.sitting_out = True
            await self._save_seats(seat)
            self._emit(self._seat_record(seat))
        return {"status": seat.status}

    async def _on_sit_in(self, c: Command) -> dict[str, Any]:
        seat = self._my_seat(c)
        if seat.leaving or seat.removed:
            raise TableError("leaving", "you are leaving this table")
        post = bool(c.data.get("post", False))
        changed = seat.sitting_out or post != seat.post
        if seat.sitting_out:
            seat.sitting_out = False
            # Back before a blind passed: play on; owing one: wait for the big blind or post.
            seat.waiting = seat.waiting or seat.missed_blinds != 0
        if seat.waiting:
            seat.post = post
        if changed:
            await self._save_seats(seat)
            self._emit(self._seat_record(seat))
            self._schedule_next_hand(0.0)
        return {"status": seat.status}

    async def _on_straddle(self, c: Command) -> dict[str, Any]:
        seat = self._my_seat(c)
        if not self.config.straddle:
            raise TableError("no_straddle", "this table does not allow straddles")
        on = bool(c.data.get("on", True))
        if on != seat.straddle:
            seat.straddle = on
            await self._save_seats(seat)
            self._emit(self._seat_record(seat))
        return {"straddle": seat.straddle}

    async def _on_leave(self, c: Command) -> dict[str, Any]:
        pid = c.player_id
        if pid in self.requests:
            del self.requests[pid]
            await self._save_table()
            return {"status": "left"}
        seat = self._my_seat(c)
        if self._in_hand(seat):
            seat.leaving = True
            await self._save_seats(seat)
            self._emit(self._seat_record(seat))
            self._auto_act_if_gone()
            return {"status": "after_hand"}
        await self._cash_out(seat)
        return {"status": "left"}

    async def _save_seats(self, *seats: Seat) -> None:
        await self._store(self.store.update_seats(self.id, list(seats)))

    async def _cash_out(self, seat: Seat) -> None:
        await self._store(self.store.cash_out(self.id, seat))
        handle = self._grace.pop(seat.player_id, None)
        if handle is not None:
            handle.cancel()
        self.seats[seat.number] = None
        if seat.bot:
            self._stop_bot(seat.player_id)
        self._emit(
            Record(
                {
                    "type": "left",
                    "seat": seat.number,
                    "player_id": seat.player_id,
                    "cash_out": seat.stack,
                }
            )
        )

    # ------------------------------------------------------------------ host
    async def _save_table(self) -> None:
        await self._store(
            self.store.save_table(
                self.id,
                host_id=self.host_id,
                config=self.config,
                button=self.button,
                paused=self.paused,
                hand_number=self.hand_number,
                next_config=self.next_config,
                requests=[r.stored() for r in self.requests.values()],
            )
        )

    async def _on_pause(self, c: Command) -> dict[str, Any]:
        self.paused = True
        await self._save_table()
        self._emit(self._table_record())
        return {"paused": True}

    async def _on_resume(self, c: Command) -> dict[str, Any]:
        self.paused = False
        await self._save_table()
        self._emit(self._table_record())
        self._schedule_next_hand(0.0)
        return {"paused": False}

    async def _on_set_stakes(self, c: Command) -> dict[str, Any]:
        allowed = {
            "small_blind",
            "big_blind",
            "big_bet",
            "ante",
            "straddle",
            "bomb_pot_every",
            "bomb_pot_ante",
            "buy_in_min",
            "buy_in_max",
            "run_it_twice",
        }
        changes = {k: v for k, v in c.data.items() if v is not None}
        unknown = set(changes) - allowed
        if unknown:
            raise TableError("bad_config", f"cannot change {', '.join(sorted(unknown))}")
        try:
            new = self.config.with_stakes(**changes)
        except ValidationError as error:
            first = error.errors()[0]
            raise TableError("bad_config", str(first.get("msg", "invalid stakes"))) from None
        if self._hand_running():
            self.next_config = new
        else:
            self.config = new
        await self._save_table()
        self._emit(self._table_record())
        return {"from_next_hand": self.next_config is not None}

    def _target_seat(self, c: Command) -> Seat:
        number = c.data.get("seat")
        if (
            not isinstance(number, int)
            or isinstance(number, bool)
            or not (0 <= number < len(self.seats))
        ):
            raise TableError("no_such_seat", "no such seat")
        seat = self.seats[number]
        if seat is None:
            raise TableError("empty_seat", f"seat {number} is empty")
        return seat

    async def _on_remove(self, c: Command) -> dict[str, Any]:
        seat = self._target_seat(c)
        if self._in_hand(seat):
            seat.removed = True
            await self._save_seats(seat)
            self._emit(self._seat_record(seat))
            self._auto_act_if_gone()
            return {"status": "after_hand"}
        await self._cash_out(seat)
        return {"status": "removed"}

    async def _on_adjust(self, c: Command) -> dict[str, Any]:
        seat = self._target_seat(c)
        amount = self._check_chips(c.data.get("amount"), signed=True)
        # Pending chips count: three adjustments during one hand cannot pass the maximum.
        after = seat.stack + seat.pending_top_up + seat.pending_adjust + amount
        if after < 0 or after > MAX_CHIPS:
            raise TableError("bad_amount", f"a stack stays between 0 and {MAX_CHIPS}")
        if self._in_hand(seat):
            seat.pending_adjust += amount
            await self._save_seats(seat)
            self._emit(self._adjusted_record(seat, amount, c.player_id, pending=True))
            return {"status": "after_hand"}
        await self._add_chips(seat, amount, "adjustment")
        self._emit(self._adjusted_record(seat, amount, c.player_id), self._seat_record(seat))
        self._schedule_next_hand(0.0)
        return {"status": "done", "stack": seat.stack}

    def _adjusted_record(
        self, seat: Seat, amount: int, by: str | None, pending: bool = False
    ) -> Record:
        """Everyone at the table sees a host adjustment: whose stack, by how much, by whom."""
        return Record(
            {
                "type": "adjusted",
                "seat": seat.number,
                "player_id": seat.player_id,
                "amount": amount,
                "by": by,
                "after_hand": pending,
                "stack": seat.stack,
            }
        )

    async def _on_close(self, c: Command) -> dict[str, Any]:
        """The host closes the table: after the current hand everyone is cashed out, no more
        hands are dealt, and the table stops; its hands and ledger stay in the database."""
        if self._hand_running():
            # Stored as a pause, so that after a crash mid-hand no further hand is dealt
            # either (the host then closes again).
            self.paused = True
            await self._save_table()
            self.closing = True
            self._emit(self._table_record(), Record({"type": "closing"}))
            return {"status": "after_hand"}
        self.closing = True
        await self._finish_close()
        return {"status": "closed"}

    async def _close_or_retry(self) -> None:
        """Close after the hand; while the database refuses, try again (like a deal)."""
        try:
            await self._finish_close()
        except TableError:
            self._retry_next_hand()

    async def _finish_close(self) -> None:
        if self._next_hand_timer is not None:
            self._next_hand_timer.cancel()
            self._next_hand_timer = None
        for seat in list(self.seats):
            if seat is not None:
                await self._cash_out(seat)
        self.requests.clear()
        await self._store(self.store.close_table(self.id))
        self.closed = True
        self._emit(Record({"type": "closed"}))  # the actor loop closes the viewers next

    async def _on_transfer_host(self, c: Command) -> dict[str, Any]:
        target = str(c.data.get("player_id"))
        seat = self.seat_of(target)
        if seat is None:
            raise TableError("not_seated", "the new host must have a seat at the table")
        if seat.bot:
            raise TableError("bot_cannot_host", "a practice bot cannot host")
        self.host_id = target
        await self._save_table()
        self._emit(self._table_record())
        return {"host": target}

    # ------------------------------------------------------------------ the hand
    async def _note_missed_blinds(self, missed: dict[int, int]) -> None:
        """Seats sitting out that a blind passed owe it (stored: it survives a restart)."""
        changed = []
        for number, bits in missed.items():
            seat = self.seats[number]
            if seat is not None and seat.missed_blinds | bits != seat.missed_blinds:
                seat.missed_blinds |= bits
                changed.append(seat)
        if changed:
            try:
                await self._store(self.store.update_seats(self.id, changed))
            except TableError:  # kept in memory; stored with the seats' next write
                log.error("table %s: cannot store missed blinds", self.id)
            for seat in changed:
                self._emit(self._seat_record(seat))

    def _schedule_next_hand(self, delay: float, *, even_paused: bool = False) -> None:
        if self._hand_running() or ((self.paused or self.closing) and not even_paused):
            return
        if self.draining:
            return
        if self._next_hand_timer is not None:
            return
        self._next_hand_timer = asyncio.get_running_loop().call_later(
            delay, self.post, Command("next_hand")
        )

    def _retry_next_hand(self) -> None:
        """A write before the deal failed: try again (seats still to settle: even paused)."""
        self._schedule_next_hand(
            max(self.runtime.retry_delay, self.runtime.between_hands), even_paused=True
        )

    def _watched(self) -> bool:
        """Is a seated player connected (or, at a table with bots, anyone watching them)?
        Nobody is dealt in for ever by an empty room."""
        if self.runtime.deal_unwatched:
            return True
        people = [
            v.player_id
            for v in self.viewers.values()
            if v.player_id is not None and v.player_id not in self._bots
        ]
        return any(self.seat_of(p) is not None for p in people) or bool(self._bots and people)

    async def _on_next_hand(self, c: Command) -> None:
        self._next_hand_timer = None
        if self._hand_running():
            return
        try:
            changed = await self._settle_seats()
        except TableError:
            self._retry_next_hand()
            return
        for seat in changed:
            if self.seats[seat.number] is seat:
                self._emit(self._seat_record(seat))
        if self.closing:
            await self._close_or_retry()
            return
        if self.paused or self.draining:
            return
        # Idle: players to deal to, and none of them here (nor anyone watching the bots).
        dealable = sum(1 for s in self.seats if s is not None and s.can_be_dealt()) >= 2
        idle = dealable and not self._watched()
        if idle != self.idle:
            self.idle = idle
            self._emit(self._table_record())
        if idle:
            return
        if self.next_config is not None:
            config, later = self.config, self.next_config
            self.config, self.next_config = later, None
            try:
                await self._save_table()
            except TableError:
                self.config, self.next_config = config, later
                self._retry_next_hand()
                return
            self._emit(self._table_record())
        number = self.hand_number + 1
        try:
            deal = await self._plan(number)  # the players' sit-out switches, a called bomb pot
        except TableError:
            self._retry_next_hand()
            return
        if deal is None:
            return
        dealt = [self.seats[s] for s in deal.order]
        assert all(s is not None for s in dealt)
        seats: list[Seat] = [s for s in dealt if s is not None]
        setup = HandSetup(
            config=self.config.hand_config(deal.bomb_pot),
            stacks=tuple(s.stack for s in seats),
            blinds=deal.blinds,
            antes=deal.antes,
            posts=deal.posts,
            dead=deal.dead,
        )
        deck = self._deck_source()
        hand = Hand(
            id=str(uuid.uuid4()),
            number=number,
            button=deal.button,
            seats=deal.order,
            players=tuple(s.player_id for s in seats),
            state=HandState(setup, deck),
            straddle=deal.straddle,
            blind_seats=deal.blind_seats,
            names=tuple(s.name for s in seats),
            bots=tuple(p for p, s in enumerate(seats) if s.bot),
        )
        flags = [(s.waiting, s.post, s.stack, s.missed_blinds) for s in seats]
        dealt_stacks = [s.stack for s in seats]  # before a hand over as dealt pays out
        for s in seats:
            s.waiting = False
            s.post = False
            s.missed_blinds = 0  # posted, or dealt in as the big blind: settled
        if hand.state.complete:
            # Over as dealt (the blinds put everyone all in): its result is the seats' new
            # stacks, stored with the hand (`start_hand`), as `_apply` does for a last action.
            for p, s in enumerate(seats):
                s.stack = hand.state.stacks[p]
        try:
            await self._store(
                self.store.start_hand(self.id, hand, deck, seats, deal.button, number),
                queued=True,
            )
        except TableError:
            log.error("table %s: cannot store a new hand; retrying", self.id)
            for s, (waiting, post, stack, missed) in zip(seats, flags, strict=True):
                s.waiting, s.post, s.stack, s.missed_blinds = waiting, post, stack, missed
            self._retry_next_hand()
            return
        self.hand, self.button, self.hand_number = hand, deal.button, number
        await self._note_missed_blinds(deal.missed)
        await self._dealt(deal)
        self._hand_starts.append(self.seq + 1)
        while self.records and self.records[0][0] < self._hand_starts[0]:
            self.records.popleft()  # older than the previous hand: a snapshot serves better
        self._emit(
            Record(
                {
                    "type": "hand_started",
                    "hand": hand.id,
                    "number": number,
                    "button": deal.button,
                    "seats": list(deal.order),
                    "stacks": dealt_stacks,
                    "bomb_pot": deal.bomb_pot,
                    "straddle": deal.straddle,
                }
            ),
            *event_records(hand, hand.state.log),
        )
        if hand.state.complete:
            await self._end_hand()
        else:
            self._start_turn()

    def _cancel_clock(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self.turn_deadline = None

    def _gone(self, hand: Hand, position: int) -> bool:
        """Has the player at `position` left the hand's table: left, removed by the host,
        seat taken by someone else, or sat out by the away grace? They are folded."""
        seat = self.seats[hand.seats[position]]
        return (
            seat is None
            or seat.player_id != hand.players[position]
            or seat.leaving
            or seat.removed
            or (seat.sitting_out and seat.away)
        )

    def _start_turn(self, elapsed: float = 0.0) -> None:
        """Announce who acts and arm the clock (or act at once for a player who left).
        `elapsed`: seconds of this decision already gone (a turn resumed after a restart)."""
        hand = self.hand
        assert hand is not None and hand.state.actor is not None
        self._cancel_clock()
        self._bank_started = None
        seat = self.seats[hand.seats[hand.state.actor]]
        gone = self._gone(hand, hand.state.actor)
        bank = seat.time_bank if seat is not None else 0.0
        timeout: float | None = None
        in_bank = False
        if self.runtime.clock_enabled and self.config.decision_time > 0 and not gone:
            left = self.config.decision_time - elapsed
            if left > 0 or seat is None:
                timeout = max(0.0, left)
                self._arm(timeout, hand, "decision")
            else:  # the decision time ran out while the table was down: the bank runs
                seat.time_bank = bank = max(0.0, bank + left)
                self._bank_started = self.now()
                timeout, in_bank = bank, True
                self._arm(bank, hand, "bank")
        self._emit(turn_record(hand, timeout, bank, in_bank))
        if gone:
            self.post(Command("auto", data={"hand": hand.id, "counter": hand.counter}))

    def _arm(self, seconds: float, hand: Hand, stage: str) -> None:
        self.turn_deadline = self.now() + seconds
        self._timer = asyncio.get_running_loop().call_later(
            seconds,
            self.post,
            Command("timeout", data={"hand": hand.id, "counter": hand.counter, "stage": stage}),
        )

    def _auto_act_if_gone(self) -> None:
        hand = self.hand
        if hand is None or hand.state.actor is None:
            return
        if self._gone(hand, hand.state.actor):
            self.post(Command("auto", data={"hand": hand.id, "counter": hand.counter}))

    def _current(self, c: Command) -> Hand | None:
        hand = self.hand
        if hand is None or hand.state.complete:
            return None
        if c.data.get("hand") != hand.id or c.data.get("counter") != hand.counter:
            return None
        return hand

    async def _on_timeout(self, c: Command) -> None:
        hand = self._current(c)
        if hand is None or hand.state.actor is None:
            return
        self._timer = None
        seat = self.seats[hand.seats[hand.state.actor]]
        if c.data.get("stage") == "decision" and seat is not None and seat.time_bank > 0:
            self._start_time_bank(hand, seat)
            return
        await self._auto_act(hand)

    def _start_time_bank(self, hand: Hand, seat: Seat) -> None:
        self._cancel_clock()
        self._bank_started = self.now()
        self._arm(seat.time_bank, hand, "bank")
        self._emit(turn_record(hand, seat.time_bank, seat.time_bank, True))

    async def _on_auto(self, c: Command) -> None:
        hand = self._current(c)
        if hand is not None and hand.state.actor is not None:
            await self._auto_act(hand)

    async def _auto_act(self, hand: Hand) -> None:
        """The clock acts: check if possible, else fold; vote no; muck if allowed, else show.
        A player who is gone (`_gone`) is folded, never checked for. If the action cannot
        be stored, the clock tries again after `retry_delay` (the hand must not freeze)."""
        legal = hand.state.legal_actions()
        assert legal is not None
        p = legal.player
        if legal.phase is Phase.RUN_IT_TWICE:
            action = Action(p, ActionKind.RUN_TWICE, agree=False)
        elif legal.phase is Phase.SHOWDOWN:
            action = Action(p, ActionKind.MUCK if legal.muck else ActionKind.SHOW)
        elif legal.check and not self._gone(hand, p):
            action = Action(p, ActionKind.CHECK)
        else:
            action = Action(p, ActionKind.FOLD)
        try:
            await self._apply(hand, action, auto=True)
        except TableError as error:
            if error.code != "unavailable":
                raise
            self._cancel_clock()
            self._arm(self.runtime.retry_delay, hand, "retry")

    async def _on_act(self, c: Command) -> dict[str, Any]:
        hand = self.hand
        if hand is None or c.data.get("hand") != hand.id:
            raise TableError("stale_hand", "that hand is not the hand being played")
        pid = c.player_id
        position = hand.position_of_player(pid) if pid is not None else None
        if position is None:
            raise TableError("not_in_hand", "you are not in this hand")
        counter = c.data.get("counter")
        if not isinstance(counter, int) or isinstance(counter, bool):
            raise TableError("bad_counter", "the action counter is a whole number")
        try:
            kind = ActionKind(str(c.data.get("action")))
        except ValueError:
            raise TableError("bad_action", "unknown action") from None
        amount, agree = c.data.get("amount"), c.data.get("agree")
        if kind in (ActionKind.BET, ActionKind.RAISE):
            if (
                not isinstance(amount, int)
                or isinstance(amount, bool)
                or not (0 < amount <= MAX_CHIPS)
            ):
                raise TableError("bad_amount", "bet and raise take a whole number of chips")
        else:
            amount = None
        if kind is ActionKind.RUN_TWICE:
            if not isinstance(agree, bool):
                raise TableError("bad_vote", "a run-it-twice vote is agree: true or false")
        else:
            agree = None
        action = Action(position, kind, amount, agree)
        if counter < hand.counter:
            if hand.state.history[counter] == action:
                raise TableError("duplicate", "that action was already applied")
            raise TableError("stale_counter", "the hand has moved on since that action")
        if counter > hand.counter:
            raise TableError("bad_counter", f"the next action is number {hand.counter}")
        if hand.state.complete:
            raise TableError("hand_over", "the hand is over")
        await self._apply(hand, action)  # the engine verifies it there, once
        return {"applied": counter}

    async def _apply(self, hand: Hand, action: Action, auto: bool = False) -> None:
        """Apply a verified action: commit it, then tell everyone, then move on."""
        counter = hand.counter
        seat = self.seats[hand.seats[action.player]]
        try:
            events = hand.state.apply(action)  # an illegal action raises and changes nothing
        except IllegalAction as error:
            raise TableError(error.code, error.message) from None
        bank = seat.time_bank if seat is not None else 0.0
        if seat is not None and self._bank_started is not None:  # the bank is spent (§7)
            seat.time_bank = max(0.0, bank - (self.now() - self._bank_started))
        final: list[Seat] | None = None
        before: dict[int, int] = {}
        if hand.state.complete:
            final = []
            for p, number in enumerate(hand.seats):
                s = self.seats[number]
                if s is not None and s.player_id == hand.players[p]:
                    before[number] = s.stack
                    s.stack = hand.state.stacks[p]
                    final.append(s)
        try:
            await self._store(
                self.store.record_action(self.id, hand, counter, action, final), queued=True
            )
        except TableError:
            log.error("table %s: cannot store an action; it is not applied", self.id)
            hand.state = HandState.replay(
                hand.state.setup, hand.state.deck, hand.state.history[:-1]
            )
            for number, stack in before.items():
                s = self.seats[number]
                if s is not None:
                    s.stack = stack
            if seat is not None:
                seat.time_bank = bank
            raise TableError("unavailable", "the action could not be stored; try again") from None
        self._cancel_clock()
        self._bank_started = None
        self._emit(*event_records(hand, events))
        if hand.state.complete:
            await self._end_hand()
        else:
            self._start_turn()

    async def _add_chips(self, seat: Seat, amount: int, kind: str) -> None:
        """Change a stack and its ledger entry together: if the store refuses, the stack is
        put back, so the table never holds chips the ledger does not."""
        seat.stack += amount
        try:
            await self._store(self.store.add_chips(self.id, seat, amount, kind), queued=True)
        except BaseException:
            seat.stack -= amount
            raise

    async def _settle_seats(self) -> list[Seat]:
        """Apply what waited for the end of the hand: top-ups, adjustments, then cash out
        leavers and removed players. Each is stored with its pending amount or flag cleared
        in the same write, so none is applied twice after a restart; one that cannot be
        stored stays pending (`unavailable` is raised) and is tried again before the next
        deal. Returns the seats changed."""
        changed: list[Seat] = []
        for seat in list(self.seats):
            if seat is None:
                continue
            for kind in ("top_up", "adjustment"):
                pending = seat.pending_top_up if kind == "top_up" else seat.pending_adjust
                if not pending:
                    continue
                if kind == "top_up":
                    amount = min(pending, max(0, self.config.buy_in_max - seat.stack))
                    seat.pending_top_up = 0
                else:
                    amount = min(max(pending, -seat.stack), MAX_CHIPS - seat.stack)
                    seat.pending_adjust = 0
                try:
                    if amount:
                        await self._add_chips(seat, amount, kind)
                    else:
                        await self._save_seats(seat)
                except TableError:
                    if kind == "top_up":
                        seat.pending_top_up = pending
                    else:
                        seat.pending_adjust = pending
                    raise
                changed.append(seat)
            if seat.leaving or seat.removed:
                await self._cash_out(seat)
        return changed

    async def _end_hand(self) -> None:
        """Settle the seats (`_settle_seats`), show them, then schedule the next deal."""
        self._cancel_clock()
        try:
            await self._settle_seats()
        except TableError:
            self._retry_next_hand()  # settles first
        for seat in self.seats:
            if seat is not None:
                self._emit(self._seat_record(seat))
        if self.closing:
            await self._close_or_retry()
            return
        self._schedule_next_hand(self.runtime.between_hands)

    async def _resume(self) -> None:
        """After a (re)start: continue the stored hand where it stopped (its clock with the
        time that was left), or settle and deal. Nobody is connected yet: every seated person
        gets the away grace, as on a disconnect, so one who never returns is sat out."""
        for seat in self.seats:
            if seat is not None and seat.bot:
                self._start_bot(seat)
            elif seat is not None:
                self._start_grace(seat.player_id, self.runtime.away_grace)
        hand = self.hand
        if hand is not None and not hand.state.complete:
            log.info("table %s: hand %s continues after a restart", self.id, hand.number)
            self._start_turn(self._elapsed or 0.0)
        else:
            self._schedule_next_hand(0.0, even_paused=True)  # settles what is pending

    # ----------------------------------------------------------- practice bots
    async def _on_add_bot(self, c: Command) -> dict[str, Any]:
        """Host: seat a practice bot. Its player is fixed by table and seat, so a table
        creates at most one bot player per seat however often bots come and go."""
        number = self._free_seat(c.data.get("seat"))
        buy_in = c.data.get("buy_in")
        buy_in = self.config.buy_in_max if buy_in is None else self._check_buy_in(buy_in)
        player_id = str(uuid.uuid5(uuid.UUID(self.id), f"bot-{number}"))
        if self.seat_of(player_id) is not None:  # cannot happen: its seat was free
            raise TableError("seat_taken", f"seat {number} is taken")
        seat = Seat(
            number=number,
            player_id=player_id,
            name=f"Bot {'ABCDEFGHIJ'[number]}",
            stack=buy_in,
            time_bank=self.config.time_bank,
            bot=True,
            away=True,  # until it attaches, like anyone
            post=True,  # a bot comes in at once: it posts a big blind rather than wait for it
        )
        await self._store(self.store.seat_bot(self.id, seat, buy_in))
        self.seats[number] = seat
        self._emit(self._seat_record(seat))
        self._start_bot(seat)
        self._schedule_next_hand(0.0)
        return {"status": "seated", "seat": number, "player_id": player_id}

    def _start_bot(self, seat: Seat) -> None:
        if seat.player_id in self._bots:
            return
        from app.bots.player import Bot  # here: app.bots imports app.tables (the viewer)

        bot = Bot(
            self, seat.player_id, self.runtime.bot_think, seat.stack or self.config.buy_in_max
        )
        task = asyncio.get_running_loop().create_task(bot.run(), name=f"bot-{seat.player_id}")
        self._bots[seat.player_id] = (bot, task)
        task.add_done_callback(lambda t: self._bot_ended(seat.player_id, t))

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
            self._start_bot(seat)

    def _stop_bot(self, player_id: str) -> None:
        entry = self._bots.pop(player_id, None)
        if entry is not None:
            entry[1].cancel()

    # ----------------------------------------------------------- switches and clock
    async def _on_sit_out_next(self, c: Command) -> dict[str, Any]:
        """Sit out from the next hand on (the current one is played out)."""
        seat = self._my_seat(c)
        seat.sit_out_next = bool(c.data.get("on", True))
        await self._store(self.store.save_switches(self.id, seat))
        self._emit(self._seat_record(seat))
        return {"sit_out_next": seat.sit_out_next}

    async def _on_sit_out_next_bb(self, c: Command) -> dict[str, Any]:
        """Sit out when the big blind would next be this player's."""
        seat = self._my_seat(c)
        seat.sit_out_next_bb = bool(c.data.get("on", True))
        await self._store(self.store.save_switches(self.id, seat))
        self._emit(self._seat_record(seat))
        return {"sit_out_next_bb": seat.sit_out_next_bb}

    async def _plan(self, number: int) -> Deal | None:
        """The next deal after the sit-out switches, and a bomb pot if the host called one."""
        changed: list[Seat] = []
        switches = {s.number: (s.sit_out_next, s.sit_out_next_bb, s.sitting_out)
                    for s in self.seats if s is not None}  # fmt: skip
        for seat in self.seats:
            if seat is not None and seat.sit_out_next:
                seat.sit_out_next, seat.sitting_out = False, True
                changed.append(seat)
        config = self.config
        last_blinds = self.hand.blind_seats if self.hand is not None else (None, None)
        if self.bomb_pot_next:
            config = config.model_copy(update={"bomb_pot_every": 1})
        deal = plan_deal(self.seats, self.button, config, number, last_blinds)
        while deal is not None:
            big = self._big_blind_seat(deal)
            seat = self.seats[big] if big is not None else None
            if seat is None or not seat.sit_out_next_bb:
                break
            seat.sit_out_next_bb, seat.sitting_out = False, True
            changed.append(seat)
            deal = plan_deal(self.seats, self.button, config, number, last_blinds)
        for i, seat in enumerate(changed):
            try:
                await self._store(self.store.save_switches(self.id, seat))
            except TableError:  # not stored: these switches wait for the next try
                for s in changed[i:]:
                    s.sit_out_next, s.sit_out_next_bb, s.sitting_out = switches[s.number]
                raise
            self._emit(self._seat_record(seat))
        if deal is not None and self._bots_alone(deal):
            return None  # nobody to play for: wait for a person (`_on_attach` deals again)
        return deal

    def _bots_alone(self, deal: Deal) -> bool:
        """Only bots would be dealt in and no person is watching: an abandoned practice table
        does not play on by itself."""
        if not all((s := self.seats[n]) is not None and s.bot for n in deal.order):
            return False
        return all(v.player_id is None or v.player_id in self._bots for v in self.viewers.values())

    def _big_blind_seat(self, deal: Deal) -> int | None:
        if deal.bomb_pot:
            return None
        big = [
            seat
            for seat, blind in zip(deal.order, deal.blinds, strict=True)
            if blind == self.config.big_blind and seat != deal.straddle
        ]
        if not big:
            return None
        return big[0] if len(deal.order) == 2 else big[-1]  # heads-up the blinds read (BB, SB)

    async def _dealt(self, deal: Deal) -> None:
        """A hand was dealt: a bomb pot the host called is used up."""
        if self.bomb_pot_next and deal.bomb_pot:
            self.bomb_pot_next = False
            try:
                await self._store(self.store.set_bomb_pot_next(self.id, False))
            except TableError:  # the hand is stored; a restart would call one bomb pot more
                log.error("table %s: cannot store that the bomb pot was used", self.id)
            self._emit(self._table_record())

    async def _on_bomb_pot_next(self, c: Command) -> dict[str, Any]:
        on = bool(c.data.get("on", True))
        await self._store(self.store.set_bomb_pot_next(self.id, on))
        self.bomb_pot_next = on
        self._emit(self._table_record())
        return {"bomb_pot_next": on}

    async def _on_more_time(self, c: Command) -> dict[str, Any]:
        """The player to act starts their time bank now instead of when the decision time
        runs out."""
        hand = self.hand
        position = hand.position_of_player(c.player_id or "") if hand is not None else None
        if hand is None or hand.state.complete or position is None:
            raise TableError("not_in_hand", "you are not in the hand being played")
        if hand.state.actor != position:
            raise TableError("not_your_turn", "it is not your turn")
        seat = self._my_seat(c)
        if self._bank_started is not None:
            raise TableError("in_time_bank", "your time bank is already running")
        if self._timer is None or seat.time_bank <= 0:
            raise TableError("no_time_bank", "there is no time bank to start")
        self._start_time_bank(hand, seat)
        return {"time_bank": round(seat.time_bank, 3)}

    # ----------------------------------------------------------- show after winning
    async def _on_show(self, c: Command) -> dict[str, Any]:
        """The winner of a pot nobody called shows their hand, once, before the next deal.
        It is the hand's last action (stored like any other, so its record keeps it)."""
        hand = self.hand
        if hand is None or c.data.get("hand") != hand.id:
            raise TableError("stale_hand", "that hand is not the last hand")
        position = hand.position_of_player(c.player_id or "")
        if position is None:
            raise TableError("not_in_hand", "you were not in that hand")
        if not hand.state.complete:
            raise TableError("not_over", "during a hand, show at the showdown (act: show)")
        counter, action = hand.counter, Action(position, ActionKind.SHOW)
        try:
            events = hand.state.apply(action)  # the engine says whether it may show
        except IllegalAction as error:
            raise TableError(error.code, error.message) from None
        try:
            await self._store(
                self.store.record_action(self.id, hand, counter, action, None), queued=True
            )
        except TableError:
            log.error("table %s: cannot store a show; it is not applied", self.id)
            hand.state = HandState.replay(
                hand.state.setup, hand.state.deck, hand.state.history[:-1]
            )
            raise TableError("unavailable", "the show could not be stored; try again") from None
        self._emit(*event_records(hand, events))
        return {"shown": True}

    # ----------------------------------------------------------- chat
    async def _on_chat(self, c: Command) -> dict[str, Any]:
        pid = c.player_id
        if pid is None:
            raise TableError("no_session", "join the server with a name first")
        seat = self.seat_of(pid)
        if seat is None and not any(v.player_id == pid for v in self.viewers.values()):
            raise TableError("not_watching", "only players at the table and its watchers chat")
        if seat is None and pid != self.host_id and not self.config.spectator_chat:
            raise TableError("chat_off", "the host has turned spectators' chat off")
        text = str(c.data.get("text", "")).strip()
        if not text or len(text) > CHAT_MAX or not text.isprintable():
            raise TableError(
                "bad_chat", f"a chat message is one line of 1 to {CHAT_MAX} characters"
            )
        now = self.now()
        times = self._chat_times.setdefault(pid, deque(maxlen=self.runtime.chat_burst))
        if len(times) == times.maxlen and now - times[0] < self.runtime.chat_window:
            raise TableError("rate_limited", "too many chat messages: wait a few seconds")
        name = seat.name if seat is not None else str(c.data.get("name") or "spectator")[:32]
        number = seat.number if seat is not None else None
        await self._store(self.store.add_chat(self.id, pid, name, number, text))
        times.append(now)
        if len(self._chat_times) > 4 * len(self.seats) + len(self.viewers):  # bounded
            for old in [p for p, t in self._chat_times.items() if now - t[-1] > 60]:
                del self._chat_times[old]
        entry = {"player_id": pid, "name": name, "seat": number, "text": text}
        self.chat.append(entry)
        self._emit(Record({"type": "chat", **entry}))
        return {"sent": True}

    async def _on_spectator_chat(self, c: Command) -> dict[str, Any]:
        on = bool(c.data.get("on", True))
        self.config = self.config.model_copy(update={"spectator_chat": on})
        if self.next_config is not None:
            self.next_config = self.next_config.model_copy(update={"spectator_chat": on})
        await self._save_table()
        self._emit(self._table_record())
        return {"spectator_chat": on}

    # ----------------------------------------------------------- ledger
    async def _on_ledger(self, c: Command) -> dict[str, Any]:
        """Every player's buy-ins, top-ups, adjustments, cash-outs, stack and net, read in
        the actor so that the figures and the stacks are of one moment (the identity of
        docs/protocol.md section 7 holds on them)."""
        totals = await self._read(self.store.ledger_totals(self.id))
        live: dict[str, tuple[int, int]] = {}  # player -> (stack, chips in the middle)
        for seat in self.seats:
            if seat is not None:
                live[seat.player_id] = (seat.stack, 0)
        hand = self.hand
        if hand is not None and not hand.state.complete:
            for p, player in enumerate(hand.players):
                if player in live:
                    live[player] = (hand.state.stacks[p], hand.state.committed[p])
        return {"players": ledger_lines(totals, live)}


async def load_table(store: TableStore, table_id: str, runtime: Runtime | None = None) -> Table:
    return Table(await store.load_table(table_id), store, runtime)
