"""The table actor: one asyncio task per table owns its seats, button, clock and current hand.

Everything that changes a table arrives as a `Command` in its mailbox and is handled one at a
time by `run`; nothing else mutates a `Table`. The actor awaits only its store (each accepted
action is committed before anyone hears of it), never a socket: it renders each record for
each viewer and drops it in that viewer's bounded outbox (see `Viewer`).

Commands answer through a future: a result dict, or a `TableError` (typed, and the table is
unchanged). Timers (the decision clock, the next hand, the away grace period) post commands
to the mailbox too, carrying what they were armed for, so a stale timer does nothing.

How it is split: `Table` is still the one actor, the one mailbox and the one owner of state;
its behaviour lives in one mixin per concern, each in its own module:

- `seating.Seating`: sit (and seat requests), top-up, sit out and in, leave, cash out, ledger.
- `host.Host`: pause, stakes, remove, adjust, host handover, practice bots, bomb pots, close.
- `clock.Clock`: the decision time, the time bank, the away grace, the clock acting.
- `dealer.Dealer`: the hand: deal, apply actions, end the hand, resume after a restart.
- `seeds.Seeds`: verifiable deals: the session's server seed, client seeds, the reveal.
- `chat.Chat`, `broadcast.Broadcast` (records to viewers, attach/detach), `writes.Writes` (the
  store under a deadline).

Mixins rather than collaborator objects: the handlers keep `self` as the table (the same
`_on_<kind>` dispatch, the same state, no indirection on the hot path), and every mixin
subclasses `state.TableState`, which declares the shared state and the few methods one concern
calls in another, so mypy (strict) checks each module on its own and an unimplemented method
makes `Table` abstract. This module keeps the outside API (post, tell, request), the actor loop,
dispatch and the undo checkpoint.
"""

from __future__ import annotations

import asyncio
import copy
import secrets
import time
from collections import deque
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from app.rate import SlidingWindow
from app.tables.broadcast import Broadcast
from app.tables.chat import Chat
from app.tables.clock import Clock
from app.tables.command import HOST_COMMANDS, PLAYER_COMMANDS, SELF_UNDOING, Command
from app.tables.config import TableConfig
from app.tables.dealer import Dealer
from app.tables.errors import TableError
from app.tables.fairness import HandDeal
from app.tables.hand import Hand
from app.tables.host import Host
from app.tables.runtime import Runtime
from app.tables.seat import Seat, SeatRequest
from app.tables.seating import Seating
from app.tables.seeds import Seeds
from app.tables.store_protocol import CHAT_KEPT, OwnershipLost, StoredTable, TableStore
from app.tables.tournament import TournamentTable
from app.tables.viewer import CLOSE_GOING_AWAY, CLOSE_TABLE_CLOSED, Viewer
from app.tables.writes import Reload, Writes

if TYPE_CHECKING:
    from app.bots.player import Bot

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


#: seconds between the answer to the command that closed a table and its sockets' closing
CLOSE_GRACE = 0.1


class Table(Seating, Host, Clock, Dealer, Seeds, Chat, TournamentTable, Broadcast, Writes):
    """One table's actor: the state (`TableState`) and every concern's handlers."""

    def __init__(
        self,
        stored: StoredTable,
        store: TableStore,
        runtime: Runtime | None = None,
        deck_source: Callable[[], list[int]] | None = None,
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
        self.last_blinds = stored.last_blinds
        self.seats: list[Seat | None] = [None] * self.config.seats
        for seat in stored.seats:
            seat.away = True  # nobody is connected yet
            self.seats[seat.number] = seat
        self.hand: Hand | None = None
        if stored.hand is not None:
            h = stored.hand
            self.hand = Hand.replay(h.id, h.number, h.record, h.deck, h.actions)
            self.hand.deal = HandDeal.from_stored(h.deal, h.deck)
        self.server_seed = stored.deal_seed
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
        #: the store's calls running in tasks of their own (`_store`, `_read`) not done yet:
        #: a stopping table leaves them to finish, and its registry waits for them
        self.in_flight: set[asyncio.Future[Any]] = set()
        #: no seated player connected: no new hand is dealt (shown as paused) until one is
        self.idle = False
        #: set (and replaced) whenever a seat changes: connections refresh their presence
        self.seat_changes = asyncio.Event()
        self.bomb_pot_next = stored.bomb_pot_next
        self.chat: deque[dict[str, Any]] = deque(stored.chat, maxlen=CHAT_KEPT)
        #: each person's chat messages in the last `chat_window` (a burst of `chat_burst`)
        self._chat_rate = SlidingWindow(self.runtime.chat_burst, self.runtime.chat_window)
        self._bots: dict[str, tuple[Bot, asyncio.Task[None]]] = {}
        self._bot_failures: dict[str, int] = {}
        #: the host closed the table: it deals no more hand (`closing`), then ends (`closed`)
        self.closing = False
        self.closed = False
        #: its process is stopping: the hand in play ends, no other is dealt here
        self.draining = False
        self.busy = False
        self.director: Callable[[dict[str, Any]], None] | None = None
        self.deal_called = False

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
            self.busy = True
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
            finally:
                self.busy = False
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

    async def _handle(self, c: Command) -> dict[str, Any]:
        self._check_tournament(c)
        if c.kind in HOST_COMMANDS and c.player_id != self.host_id:
            raise TableError("not_host", "only the host can do that")
        handler = getattr(self, f"_on_{c.kind}", None)
        if handler is None:
            raise TableError("unknown_command", f"unknown command {c.kind!r}")
        if c.kind in SELF_UNDOING:
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


async def load_table(store: TableStore, table_id: str, runtime: Runtime | None = None) -> Table:
    return Table(await store.load_table(table_id), store, runtime)
