"""The relay's owner side: the connections of other processes' gateways to the tables this
process owns (attached, told their commands, what the table sends them forwarded to each
gateway's own stream), the reads of those tables, and the calls of other processes (a table
to place here, a tournament directed here).

A table's in stream is read from its `Taken` marker on (added with the lease, in one step):
- an `Attach` is applied by the owner it names alone (the lease holder its gateway saw), so
  one connection is attached by one owner, never by an old and a new one at once;
- a `Command` by the owner its connection is attached to, once (by its number), in order;
- another owner's `Taken` marker means the table was taken from this process: it stops
  reading the stream there and drops the table;
- a process that has not renewed its leases within a lease (it was frozen) applies nothing
  until it has (`TableRegistry.fresh`)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from app.presence import Presence, connection_id
from app.presence.keeper import Keeper, keep_online
from app.scale.keys import OUT_MAX
from app.scale.streams import BLOCK_MS, MOVED, READS, Streams
from app.scale.wire import (
    Answer,
    Attach,
    Attached,
    Call,
    Closed,
    Command,
    Detach,
    Malformed,
    Message,
    Place,
    Read,
    Refusal,
    Seated,
    Taken,
    ToConnection,
    message_text,
)
from app.tables.errors import TableError
from app.tables.registry import TableRegistry
from app.tables.table import Table
from app.tables.viewer import CLOSE_RESTART, Viewer
from app.tables.views import table_view

if TYPE_CHECKING:
    from app.scale.placement import Placement

log = logging.getLogger("omaha.relay")

GAP = "commands were lost on the way: reconnect"


def facts(table: Table) -> dict[str, Any]:
    """What a list of tables shows of one (`app.api.tables.summary`)."""
    return {
        "id": table.id,
        "code": table.code,
        "config": table.config.model_dump(mode="json"),
        "seated": sum(1 for s in table.seats if s is not None),
        "host_id": table.host_id,
        "hand_running": table.hand is not None and not table.hand.state.complete,
    }


def gateway_of(conn: str) -> str:
    """The incarnation whose connection this is (`<incarnation>/<number>`)."""
    return conn.split("/", 1)[0]


@dataclass(eq=False)
class RemoteViewer:
    """A connection on another process's gateway, attached to a table this process owns."""

    conn: str
    table_id: str
    gateway: str
    viewer: Viewer
    #: the last of its gateway's numbered commands applied; the last entry numbered to it
    applied: int = 0
    sent: int = 0
    #: its seat as last sent (None: watching), and seat news not sent yet
    seat: int | None = None
    news: list[tuple[bool, int | None]] = field(default_factory=list)
    tasks: list[asyncio.Task[None]] = field(default_factory=list)
    stop: asyncio.Event = field(default_factory=asyncio.Event)
    #: the task keeping it online, while it waits for a seat change (cancelled to end it)
    keeping: asyncio.Task[None] | None = None

    def seated(self, seat: int | None, *, first: bool = False) -> None:
        if first or seat != self.seat:
            self.seat = seat
            self.news.append((first, seat))
            self.viewer.nudge()

    def numbered(self, batch: list[dict[str, Any] | str]) -> list[ToConnection]:
        """The entries for what the table sent (then the seat news), numbered on."""
        entries: list[ToConnection] = []
        for message in batch:
            self.sent += 1
            entries.append(Message(self.conn, self.sent, message_text(message)))
        for first, seat in self.news:
            self.sent += 1
            entries.append((Attached if first else Seated)(self.conn, self.sent, seat))
        self.news.clear()
        return entries


class Owner:
    """Other processes' connections to the tables this process runs (`tables`), and the
    answers to other processes' reads and calls, over `streams`."""

    def __init__(
        self,
        streams: Streams,
        tables: TableRegistry,
        presence: Presence,
        *,
        outbox_limit: int,
        reply_timeout: float,
        keeper: Keeper | None = None,
    ) -> None:
        self.streams = streams
        self.tables = tables
        #: the app's (one refresh for every connection of the process), or one of its own
        self.keeper = keeper if keeper is not None else Keeper(presence)
        self.outbox_limit = outbox_limit
        self.reply_timeout = reply_timeout
        #: the connections of other gateways on this process's tables
        self.remote: dict[str, RemoteViewer] = {}
        #: per table, the id of the last entry read from its in stream
        self.cursors: dict[str, str] = {}
        #: where new tables go (`app.scale.placement`): its load is published with the mark
        self.placement: Placement | None = None
        #: a tournament's read or action asked by another process (`app.api.tournaments`)
        self.on_tournament: Callable[[Any], Awaitable[dict[str, Any]]] | None = None

    def read_from(self, table_id: str, mark: str) -> None:
        """A table taken here: the entries of its in stream after `mark` are this owner's."""
        self.cursors[table_id] = mark

    def gateways(self) -> list[str]:
        """The gateways of the remote connections on this process's tables."""
        return sorted({r.gateway for r in self.remote.values()})

    def stop_all(self) -> list[asyncio.Task[None]]:
        """Stop every remote connection's work (the relay is closing): the tasks to wait on."""
        tasks: list[asyncio.Task[None]] = []
        for remote in list(self.remote.values()):
            remote.stop.set()
            for task in remote.tasks:
                task.cancel()
            tasks += remote.tasks
        return tasks

    async def read_in(self) -> None:
        """Apply the entries of the in streams of this process's tables, in order, trimming
        what was applied."""
        io = self.streams
        trims: dict[str, str] = {}
        while not io.closing:
            running = self.tables.tables
            for table_id in [t for t in self.cursors if t not in running]:
                if table_id not in self.tables.launching:  # dropped, not being taken
                    del self.cursors[table_id]
            of_key = {io.keys.table_in(t): t for t in self.cursors if t in running}
            if not of_key or not self.tables.fresh():
                await asyncio.sleep(BLOCK_MS / 1000)
                continue
            streams = {key: self.cursors[t] for key, t in of_key.items()}
            try:
                async with io.client.pipeline(transaction=False) as pipe:
                    for key, last in trims.items():
                        pipe.xtrim(key, minid=last, approximate=False)
                    pipe.xread(streams, count=256, block=BLOCK_MS)  # type: ignore[arg-type]
                    found = (await pipe.execute())[-1]
            except Exception as error:
                io.quiet.warn("relay: cannot read the tables' streams (%s)",
                              type(error).__name__)  # fmt: skip
                await asyncio.sleep(0.5)
                continue
            trims = {}
            for key, entries in found or ():
                if (read := of_key.get(key)) is None:
                    continue
                for entry_id, fields in entries:
                    if read not in self.cursors:
                        break  # taken from this process: nothing after the marker is its
                    self.cursors[read] = trims[key] = entry_id
                    try:
                        self._apply(read, fields)
                    except Exception:
                        log.exception("relay: an entry of table %s failed", read)

    def _apply(self, table_id: str, fields: dict[str, str]) -> None:
        try:
            entry = self.streams.wire.decode(fields)
        except Malformed as bad:
            self.streams.quiet.warn("relay: an entry of table %s is unreadable (%s)", table_id, bad)
            return
        table = self.tables.tables.get(table_id)
        if table is None:
            return
        if isinstance(entry, Taken):
            if entry.owner != self.streams.name:
                log.warning("table %s: taken by %s; dropped here", table_id, entry.owner)
                del self.cursors[table_id]
                self.tables.lost(table_id)
        elif isinstance(entry, Attach):
            if entry.owner == self.streams.name and entry.conn not in self.remote:
                self._attach(table, entry)
        elif isinstance(entry, Command):
            self.command(table, entry)
        elif isinstance(entry, Detach):
            known = self.remote.get(entry.conn)
            if known is not None and known.table_id == table_id:
                self.end_remote(entry.conn)
        elif isinstance(entry, Read):
            self.streams.spawn(self._answer(table, entry))

    def _attach(self, table: Table, entry: Attach) -> None:
        remote = RemoteViewer(entry.conn, table.id, entry.gateway,
                              Viewer(entry.player, limit=self.outbox_limit))  # fmt: skip
        self.remote[entry.conn] = remote
        remote.tasks.append(asyncio.ensure_future(self._forward(remote)))
        remote.tasks.append(asyncio.ensure_future(self._attached(table, remote, entry)))

    def command(self, table: Table, entry: Command) -> None:
        """A gateway's numbered command for a connection attached here: applied once, in order."""
        remote = self.remote.get(entry.conn)
        if remote is None or remote.table_id != table.id:  # attached elsewhere, or gone
            closed = Closed(entry.conn, 0, CLOSE_RESTART, MOVED)
            streams = self.streams
            streams.spawn(streams.add(streams.keys.out(gateway_of(entry.conn)), closed, OUT_MAX))
            return
        viewer = remote.viewer
        if entry.n <= remote.applied or viewer.closed is not None:
            return  # a repeat (its entry added twice), or a connection closing
        if entry.n != remote.applied + 1:
            viewer.close(CLOSE_RESTART, GAP, flush=True)
            return
        remote.applied = entry.n
        table.tell(entry.kind, viewer.player_id, viewer, entry.ref, entry.data)

    async def called(self, call: Call) -> None:
        """Answer another process: a new table here (`Place`), or a tournament's read or
        action (`TournamentCall`) for a tournament this process directs."""
        answer: Answer | Refusal
        try:
            if isinstance(call, Place):
                if self.placement is None:
                    raise TableError("unavailable", "no placement here")
                result = await self.placement.place(call)
            else:
                if self.on_tournament is None:
                    raise TableError("no_such_tournament", "no such tournament")
                result = await self.on_tournament(call)
            answer = Answer(call.reply, result)
        except TableError as refused:
            answer = Refusal(call.reply, refused.code, refused.message)
        except Exception as error:
            log.warning("relay: a call failed (%s)", type(error).__name__)
            answer = Refusal(call.reply, "unavailable", "that could not be done")
        await self.streams.add(self.streams.keys.out(call.gateway), answer, OUT_MAX)

    async def _answer(self, table: Table, read: Read) -> None:
        answer: Answer | Refusal
        try:
            if read.kind == "view":
                result = table_view(table, None)
            elif read.kind == "facts":
                result = facts(table)
            elif read.kind == "snapshot":  # the table page's (app/api/table_page.py): its own
                async with asyncio.timeout(self.reply_timeout):
                    seen = await table.request("view", read.player)
                result = {"snapshot": seen["snapshot"].decode()}  # as its socket gets it
            elif read.kind in READS:
                async with asyncio.timeout(self.reply_timeout):
                    result = await table.request(read.kind, read.player, **read.args)
            else:
                raise TableError("unknown_command", f"{read.kind!r} is not relayed")
            answer = Answer(read.reply, result)
        except TableError as refused:
            answer = Refusal(read.reply, refused.code, refused.message)
        except TimeoutError:
            answer = Refusal(read.reply, "unavailable", "the table did not answer")
        await self.streams.add(self.streams.keys.out(read.gateway), answer, OUT_MAX)

    async def _attached(self, table: Table, remote: RemoteViewer, entry: Attach) -> None:
        viewer = remote.viewer
        try:
            async with asyncio.timeout(self.reply_timeout):
                await table.request("attach", viewer.player_id, viewer=viewer,
                                    stream=entry.stream, since=entry.since)  # fmt: skip
        except (TableError, TimeoutError):
            viewer.close(1011, "the table did not answer", flush=True)
            return
        player = viewer.player_id
        seat = table.seat_of(player) if player is not None else None
        remote.seated(seat.number if seat is not None else None, first=True)
        if player is not None and not remote.stop.is_set():
            entry_id = connection_id(player)
            remote.keeping = asyncio.current_task()
            try:
                await keep_online(self.keeper, table, player, entry_id, remote.stop,
                                  on_seat=remote.seated)  # fmt: skip
            finally:  # ended or cancelled (`end_remote`, the relay closing): offline at once
                remote.keeping = None
                await self.keeper.disconnect(table.id, entry_id)

    def end_remote(self, conn: str, why: str | None = None) -> None:
        """Detach a remote connection; `why`: also tell its gateway to close it (it may be
        alive after all: its mark was missed)."""
        remote = self.remote.pop(conn, None)
        if remote is None:
            return
        remote.stop.set()
        if remote.keeping is not None:  # its keeper waits for a seat change: end it now
            remote.keeping.cancel()
        table = self.tables.tables.get(remote.table_id)
        if table is not None:
            table.post_detach(remote.viewer)
        remote.viewer.close(1000, "detached")
        if why is not None:
            closed = Closed(conn, 0, CLOSE_RESTART, why)
            key = self.streams.keys.out(remote.gateway)
            self.streams.spawn(self.streams.add(key, closed, OUT_MAX))

    async def _forward(self, remote: RemoteViewer) -> None:
        """The owner's writer for a remote connection: its outbox to its gateway's stream,
        each batch sent again until Redis takes it (numbered: a repeat is dropped there)."""
        viewer, key = remote.viewer, self.streams.keys.out(remote.gateway)
        try:
            while True:
                while not viewer.outbox and not remote.news and viewer.closed is None:
                    await viewer.wait()
                batch = viewer.take()
                entries = remote.numbered(batch)
                ended = viewer.closed is not None and not batch
                if ended and self.remote.get(remote.conn) is remote:  # closed here
                    code, reason = viewer.closed or (1000, "")
                    remote.sent += 1
                    entries.append(Closed(remote.conn, remote.sent, code, reason[:120]))
                if entries and not await self._deliver(remote, key, entries):
                    return
                if ended:
                    return
        finally:
            if self.remote.get(remote.conn) is remote:
                self.end_remote(remote.conn)

    async def _deliver(self, remote: RemoteViewer, key: str, entries: list[ToConnection]) -> bool:
        """Add a batch in one MULTI/EXEC, with the other connections' of this turn
        (`Streams.add_all`: the gateway's blocked XREAD sees the whole burst at once, so a
        connection that asked for batched frames gets it as one frame), until Redis takes
        it; False if the connection ended meanwhile."""
        delay = 0.05
        while True:
            try:
                await self.streams.add_all(key, entries, OUT_MAX)
                return True
            except Exception as error:
                if remote.stop.is_set() or self.streams.closing:
                    return False
                self.streams.quiet.warn("relay: cannot forward to %s (%s)", remote.gateway,
                                        type(error).__name__)  # fmt: skip
                await asyncio.sleep(delay)
                delay = min(1.0, delay * 2)

    def gateways_seen(self, gone: set[str]) -> None:
        """Detach the remote connections of gateways that are gone (their mark missed twice)."""
        for conn, remote in list(self.remote.items()):
            if remote.gateway in gone:
                self.end_remote(conn, MOVED)
