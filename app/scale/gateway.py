"""The relay's gateway side: a WebSocket on this process whose table another process owns
(`RemoteTable`), its entries to the table's in stream and the owner's back from this
incarnation's own stream; requests to other processes (a table's read, a tournament's, a
table to place) and their answers.

Each relayed connection (`RelayedConnection`) numbers its commands from 1, so that an entry
added twice (an `XADD` that timed out and was sent again, having run after all) is applied
once; its owner numbers what it sends back the same way, so a repeat is dropped here and a
gap (an entry lost in a Redis restart, or trimmed) closes the connection (1012: the client
resumes with `stream`/`since`) instead of leaving a hole. A command whose entry cannot be
added is tried again until it is, or for `reply_timeout` at most: then its fate is unknown
and the connection is closed (1012), never answered `unavailable` (docs/protocol.md)."""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict, deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from app.scale.keys import IN_MAX, OUT_MAX
from app.scale.streams import BLOCK_MS, MOVED, READS, Streams
from app.scale.wire import (
    Answer,
    Attach,
    Attached,
    Call,
    Closed,
    Command,
    Detach,
    Entry,
    Hello,
    InEntry,
    Malformed,
    Message,
    Place,
    Read,
    Refusal,
    Seated,
    TournamentCall,
)
from app.tables.errors import TableError
from app.tables.viewer import CLOSE_RESTART, Viewer

if TYPE_CHECKING:
    from app.tables.handle import TableHandle
    from app.tables.table import Table

log = logging.getLogger("omaha.relay")

UNREACHABLE = "the table cannot be reached: reconnect"
GAP = "messages were lost on the way: reconnect"
#: recently ended connections remembered (an owner still sending to one is told to detach)
GONE_KEPT = 4096
#: seconds between two detaches sent for one ended connection its owner still sends to
GONE_RESEND = 5.0


@dataclass(frozen=True)
class RemoteSeat:
    number: int


@dataclass(eq=False)
class RelayedConnection:
    """A connection on this process attached to a table another process owns."""

    conn: str
    table: RemoteTable
    viewer: Viewer
    #: the last command numbered, and the last of the owner's numbered entries received
    commands: int = 0
    received: int = 0
    seat: int | None = None
    attached: bool = False
    #: set once the owner attached it, or it was closed
    settled: asyncio.Event = field(default_factory=asyncio.Event)
    #: entries for the table's in stream, added in order (those queued, at once)
    queue: deque[InEntry] = field(default_factory=deque)
    sender: asyncio.Future[None] | None = None


class RemoteTable:
    """What the WebSocket endpoint holds for a table another process owns (a `TableHandle`):
    the same calls as a `Table`, relayed to `owner` (an incarnation)."""

    def __init__(self, gateway: Gateway, table_id: str, owner: str | None, code: str = "") -> None:
        self.gateway = gateway
        self.id = table_id
        self.owner = owner
        self.code = code
        self.connection: RelayedConnection | None = None

    def seat_of(self, player_id: str) -> RemoteSeat | None:
        """The seat of this connection's player, as its owner last said."""
        connection = self.connection
        if connection is None or connection.viewer.player_id != player_id:
            return None
        return None if connection.seat is None else RemoteSeat(connection.seat)

    async def request(self, kind: str, sender: str | None = None, /, **data: Any) -> dict[str, Any]:
        if kind != "attach":
            return await self.gateway.ask(self, kind, sender, data)
        stream, since = data.get("stream"), data.get("since")
        await self.gateway.attach(self, sender, data["viewer"], stream, since)
        return {}

    def tell(
        self, kind: str, sender: str | None, viewer: Viewer, ref: Any, data: dict[str, Any]
    ) -> None:
        self.gateway.command(self, viewer, kind, ref, data)

    def post_detach(self, viewer: Viewer) -> None:
        self.gateway.detach(self, viewer)


if TYPE_CHECKING:  # both kinds of table are a `TableHandle` (mypy checks this return)

    def handles(local: Table, remote: RemoteTable) -> tuple[TableHandle, TableHandle]:
        return local, remote


class Gateway:
    """This process's relayed connections (to tables other processes own) and its calls to
    other processes, over `streams`; what other processes ask of this one (read on its out
    stream) goes to `on_call` (the owner's `called`)."""

    def __init__(
        self,
        streams: Streams,
        *,
        reply_timeout: float,
        on_call: Callable[[Call], Awaitable[None]],
    ) -> None:
        self.streams = streams
        self.reply_timeout = reply_timeout
        self.on_call = on_call
        #: this process's relayed connections, by connection id
        self.local: dict[str, RelayedConnection] = {}
        self._conn_of: dict[int, str] = {}  # viewer.id -> connection id
        #: ended connections: their table and when a detach was last sent for them
        self._gone: OrderedDict[str, tuple[str, float]] = OrderedDict()
        #: the id of the last entry read from this process's out stream
        self.out_cursor = "0-0"
        self._replies: dict[str, asyncio.Future[Entry]] = {}

    async def begin(self) -> None:
        """Mark this process's out stream: what its reader reads is from this mark on."""
        streams = self.streams
        self.out_cursor = await streams.add(streams.keys.out(streams.name), Hello(), OUT_MAX)

    def tables(self) -> list[str]:
        """The tables this process's relayed connections are on."""
        return sorted({r.table.id for r in self.local.values()})

    def close_all(self, code: int, why: str) -> None:
        """Close every relayed connection's socket here (the relay is stopping)."""
        for relayed in list(self.local.values()):
            relayed.viewer.close(code, why)

    async def attach(
        self,
        table: RemoteTable,
        player_id: str | None,
        viewer: Viewer,
        stream: str | None,
        since: int | None,
    ) -> None:
        """Ask the owner to attach this connection; returns once it has (its snapshot, or
        what it missed, is in the viewer's outbox); raises `TimeoutError` if it did not."""
        conn = f"{self.streams.name}/{self.streams.number()}"
        relayed = RelayedConnection(conn, table, viewer)
        table.connection = relayed
        self.local[conn] = relayed
        self._conn_of[viewer.id] = conn
        entry = Attach(conn, self.streams.name, table.owner or "", player_id, stream, since)
        self._queue(relayed, entry)
        async with asyncio.timeout(self.reply_timeout):
            await relayed.settled.wait()
        if not relayed.attached and not viewer.outbox:
            raise TableError("unavailable", (viewer.closed or (0, "not attached"))[1])

    def command(
        self, table: RemoteTable, viewer: Viewer, kind: str, ref: Any, data: dict[str, Any]
    ) -> None:
        relayed = self.local.get(self._conn_of.get(viewer.id, ""))
        if relayed is None or viewer.closed is not None:
            return
        relayed.commands += 1
        self._queue(relayed, Command(relayed.conn, relayed.commands, kind, ref, data))

    def detach(self, table: RemoteTable, viewer: Viewer) -> None:
        conn = self._conn_of.pop(viewer.id, None)
        relayed = self.local.pop(conn, None) if conn is not None else None
        if relayed is None:
            return
        self._forget(relayed.conn, table.id)
        self._queue(relayed, Detach(relayed.conn))

    def _queue(self, relayed: RelayedConnection, entry: InEntry) -> None:
        relayed.queue.append(entry)
        if relayed.sender is None or relayed.sender.done():
            relayed.sender = self.streams.spawn(self._send(relayed))

    async def _send(self, relayed: RelayedConnection) -> None:
        """Add the connection's entries in order, all those queued at once, until Redis takes
        them (their numbers make a repeat harmless); after `reply_timeout` of failures, give
        up and close."""
        key, loop = self.streams.keys.table_in(relayed.table.id), asyncio.get_running_loop()
        failing: float | None = None
        delay = 0.05
        while relayed.queue and not self.streams.closing:
            entries = list(relayed.queue)
            try:
                await self.streams.add_all(key, entries, IN_MAX)
            except Exception as error:
                failing = failing if failing is not None else loop.time()
                if loop.time() - failing > self.reply_timeout:
                    log.warning("relay: %s gave up on %s (%s)", relayed.conn, key,
                                type(error).__name__)  # fmt: skip
                    relayed.queue.clear()
                    self._close(relayed, CLOSE_RESTART, UNREACHABLE)
                    return
                await asyncio.sleep(delay)
                delay = min(1.0, delay * 2)
                continue
            for _ in entries:  # (what was queued meanwhile is behind them)
                relayed.queue.popleft()
            failing, delay = None, 0.05

    def _forget(self, conn: str, table_id: str) -> None:
        self._gone[conn] = (table_id, asyncio.get_running_loop().time())
        while len(self._gone) > GONE_KEPT:
            self._gone.popitem(last=False)

    def _orphan(self, conn: str) -> None:
        """An owner sends to a connection that ended here: its detach was lost (Redis was
        down, or restarted): send it again, now and then."""
        gone = self._gone.get(conn)
        now = asyncio.get_running_loop().time()
        if gone is None or now - gone[1] < GONE_RESEND:
            return
        self._gone[conn] = (gone[0], now)
        key = self.streams.keys.table_in(gone[0])
        self.streams.spawn(self.streams.add(key, Detach(conn), IN_MAX))

    async def ask(
        self, table: RemoteTable, kind: str, sender: str | None, data: dict[str, Any]
    ) -> dict[str, Any]:
        """A read (`READS`) of the owner's table: its result, or its `TableError`."""
        if kind not in READS:
            raise TableError("unknown_command", f"{kind!r} is not relayed")
        try:
            return await self.call(
                self.streams.keys.table_in(table.id),
                lambda reply: Read(reply, self.streams.name, kind, sender, data),
                self.reply_timeout,
                IN_MAX,
            )
        except TimeoutError:
            raise TableError("unavailable", "the table did not answer; try again") from None

    async def call(
        self, key: str, make: Callable[[str], Entry], timeout: float, maxlen: int = OUT_MAX
    ) -> dict[str, Any]:
        """Add a request (made with its reply id) to a stream; its answer on this process's
        stream, or its `TableError`; `TimeoutError` after `timeout`."""
        reply = f"{self.streams.name}/r{self.streams.number()}"
        future: asyncio.Future[Entry] = asyncio.get_running_loop().create_future()
        self._replies[reply] = future
        try:
            async with asyncio.timeout(timeout):
                await self.streams.add(key, make(reply), maxlen)
                answer = await future
        finally:
            self._replies.pop(reply, None)
        if isinstance(answer, Refusal):
            raise TableError(answer.code, answer.message)
        assert isinstance(answer, Answer)
        return answer.result

    async def ask_director(
        self, owner: str, code: str, what: str, player_id: str | None, name: str
    ) -> dict[str, Any]:
        """A read or an action of a tournament another process directs, answered by it."""
        try:
            return await self.call(
                self.streams.keys.out(owner),
                lambda reply: TournamentCall(reply, self.streams.name, code, what, player_id, name),
                self.reply_timeout,
            )
        except TimeoutError:
            raise TableError("unavailable", "the tournament did not answer") from None

    async def read_out(self) -> None:
        """Route the owners' entries to this gateway's connections, trimming what was read
        (what this stream holds is in flight: nothing stays in Redis once delivered)."""
        streams = self.streams
        key = streams.keys.out(streams.name)
        trim: str | None = None
        while not streams.closing:
            try:
                async with streams.client.pipeline(transaction=False) as pipe:
                    if trim is not None:
                        pipe.xtrim(key, minid=trim, approximate=False)
                    pipe.xread({key: self.out_cursor}, count=512, block=BLOCK_MS)
                    found = (await pipe.execute())[-1]
            except Exception as error:
                streams.quiet.warn("relay: cannot read %s (%s)", key, type(error).__name__)
                await asyncio.sleep(0.5)
                continue
            trim = None
            for _, entries in found or ():
                for entry_id, fields in entries:
                    self.out_cursor = trim = entry_id
                    try:
                        self.route(streams.wire.decode(fields))
                    except Malformed as bad:
                        streams.quiet.warn("relay: an entry of %s is unreadable (%s)", key, bad)
                    except Exception:
                        log.exception("relay: an entry of %s failed", key)

    def route(self, entry: Entry) -> None:
        """One entry of this process's out stream, where it goes."""
        if isinstance(entry, Place | TournamentCall):  # another process asks
            self.streams.spawn(self.on_call(entry))
            return
        if isinstance(entry, Answer | Refusal):
            future = self._replies.get(entry.reply)
            if future is not None and not future.done():
                future.set_result(entry)
            return
        if not isinstance(entry, Message | Attached | Seated | Closed):
            return  # Hello, or an in-stream entry that has no business here
        relayed = self.local.get(entry.conn)
        if relayed is None:
            self._orphan(entry.conn)
            return
        if isinstance(entry, Closed) and entry.n == 0:  # from an owner it is not attached to
            self._close(relayed, entry.code, entry.reason)
            return
        if entry.n <= relayed.received:
            return  # a repeat (a batch sent again after a timeout)
        if entry.n != relayed.received + 1:
            self._close(relayed, CLOSE_RESTART, GAP)
            return
        relayed.received = entry.n
        if isinstance(entry, Message):
            relayed.viewer.send(entry.text)
        elif isinstance(entry, Closed):
            self._close(relayed, entry.code, entry.reason)
        else:
            relayed.seat = entry.seat
            if isinstance(entry, Attached):
                relayed.attached = True
                relayed.settled.set()

    def _close(self, relayed: RelayedConnection, code: int, why: str) -> None:
        """Close a relayed connection (what it has been sent still goes out first)."""
        relayed.viewer.close(code, why, flush=True)
        relayed.settled.set()

    def owners_seen(self, owners: dict[str, str | None], vanished: set[str]) -> None:
        """Close the relayed connections of a table whose owner changed (another
        incarnation: moved or restarted), or whose lease is gone (absent twice): they resume
        where it runs now."""
        for relayed in list(self.local.values()):
            now = owners.get(relayed.table.id)
            changed = now is not None and now != relayed.table.owner
            if changed or relayed.table.id in vanished:
                self._close(relayed, CLOSE_RESTART, MOVED)

    def restart_all(self, why: str) -> None:
        """Close every relayed connection (1012: they resume; entries may have been lost)."""
        for relayed in list(self.local.values()):
            self._close(relayed, CLOSE_RESTART, why)
