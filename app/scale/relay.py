"""The relay: a WebSocket on a process that does not own its table talks to the owner
through Redis Streams. The protocol is unchanged for the client: the owner's table renders
every message for the connection as for a local one (sequence, resume, redaction), and the
gateway writes those texts to the socket as they come.

- In, per table: `omaha:table:<id>:in`, entries `attach` (the connection's id, its gateway,
  player, name, stream and since), `cmd` (the connection's id, the message's type, `id` and
  data), `detach`, and `req`: a read of the HTTP API (`READS`), answered to its gateway.
  The owner reads the streams of its tables from the moment it took each (a marker it adds
  at the take), so an entry is applied once, by one owner, or never (it
  came before the take: the gateway then learns the owner changed and its client resumes).
- Out, per gateway: `omaha:gateway:<name>:out`, entries `m` (one message's text), `x` (close
  code and reason), `q` or `e` (a read's result or error), each addressed to one connection
  (or read). A gateway reads only its own stream:
  it never holds a message, nor a card, meant for a connection elsewhere.
- Every process marks itself alive (`omaha:process:<name>`, renewed with its leases); an owner
  detaches the connections of a gateway that is gone. A gateway watches the owners of the
  tables it relays: when one changes, its connections there are closed with 1012 and resume
  (by the client) where the table runs now.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, cast

import orjson
import redis.asyncio as aioredis

from app.presence import Presence, connection_id
from app.presence.keeper import keep_online
from app.scale.lease import Leases
from app.scale.placement import Placement
from app.tables.errors import TableError
from app.tables.registry import Elsewhere, TableRegistry
from app.tables.table import Table
from app.tables.viewer import CLOSE_RESTART, Viewer
from app.tables.views import table_view

log = logging.getLogger("omaha.relay")

#: entries a stream keeps at most (trimmed approximately), and how long an idle one lives
STREAM_MAX = 10_000
STREAM_TTL_MS = 3_600_000
#: ms an XREAD waits for entries before looking at the list of streams again
BLOCK_MS = 250
MOVED = "the table moved to another server: reconnect"
#: what the HTTP API reads of a table another process owns (the public view, the facts of
#: a table list, the ledger); nothing else is asked of an owner without a connection
READS = frozenset({"view", "facts", "ledger"})


def _refusal(code: str, message: str) -> str:
    return orjson.dumps({"code": code, "message": message}).decode()


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


async def find_or_relay(
    relay: Relay | None, registry: TableRegistry, table_id: str, code: str = ""
) -> Table | RemoteTable:
    """The table if it runs here (or can: its lease is free), else a relay to its owner."""
    try:
        return await registry.find(table_id)
    except Elsewhere:
        if relay is None:
            raise
        owner = (await relay.leases.owners([table_id])).get(table_id)
        return RemoteTable(relay, table_id, owner, code)


def _text(message: dict[str, Any] | str) -> str:
    return message if isinstance(message, str) else orjson.dumps(message).decode()


@dataclass
class _Remote:
    """A connection on another gateway, attached to a table this process owns."""

    table_id: str
    gateway: str
    viewer: Viewer
    tasks: list[asyncio.Task[None]] = field(default_factory=list)
    stop: asyncio.Event = field(default_factory=asyncio.Event)


class RemoteTable:
    """What the WebSocket endpoint holds for a table another process owns: the same calls as
    a `Table` (`request("attach")`, `tell`, `post_detach`), relayed."""

    def __init__(self, relay: Relay, table_id: str, owner: str | None, code: str = "") -> None:
        self.relay = relay
        self.id = table_id
        self.owner = owner
        self.code = code

    def seat_of(self, player_id: str) -> None:
        return None  # the owner keeps the connection's presence, with its seat

    async def request(self, kind: str, sender: str | None = None, /, **data: Any) -> dict[str, Any]:
        if kind != "attach":
            return await self.relay.ask(self, kind, sender, data)
        await self.relay.attach(self, sender, data["viewer"], data.get("stream"), data.get("since"))
        return {}

    def tell(
        self, kind: str, sender: str | None, viewer: Viewer, ref: Any, data: dict[str, Any]
    ) -> None:
        self.relay.command(self, viewer, kind, ref, data)

    def post_detach(self, viewer: Viewer) -> None:
        self.relay.detach(self, viewer)


class Relay:
    def __init__(
        self,
        client: aioredis.Redis,
        leases: Leases,
        tables: TableRegistry,
        presence: Presence,
        *,
        outbox_limit: int,
        reply_timeout: float = 15.0,
        prefix: str = "omaha",
    ) -> None:
        self.client = client
        self.leases = leases
        self.name = leases.name
        self.tables = tables
        self.presence = presence
        self.outbox_limit = outbox_limit
        self.reply_timeout = reply_timeout
        self.prefix = prefix
        self._ids = itertools.count(1)
        #: gateway side: this process's relayed connections, by connection id
        self.local: dict[str, tuple[RemoteTable, Viewer]] = {}
        self._conn_of: dict[int, str] = {}  # viewer.id -> connection id
        #: owner side: the connections of other gateways on this process's tables
        self.remote: dict[str, _Remote] = {}
        #: owner side: per table, the id of the last entry read from its in stream
        self.cursors: dict[str, str] = {}
        self._tasks: list[asyncio.Task[None]] = []
        self._pending: set[asyncio.Task[Any]] = set()
        self._out_cursor = "0-0"
        self._replies: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self._closing = False
        #: where new tables go (`app.scale.placement`): its load is published with the mark
        self.placement: Placement | None = None
        #: a tournament's read or action asked by another process (`app.api.tournaments`)
        self.on_tournament: Callable[[dict[str, str]], Awaitable[dict[str, Any]]] | None = None
        #: every live process, scored with the time its mark lapses (Redis time, ms)
        self.alive_set = f"{prefix}:processes"

    # ------------------------------------------------------------------ keys
    def in_key(self, table_id: str) -> str:
        return f"{self.prefix}:table:{table_id}:in"

    def out_key(self, gateway: str) -> str:
        return f"{self.prefix}:gateway:{gateway}:out"

    def alive_key(self, name: str) -> str:
        return f"{self.prefix}:process:{name}"

    async def _add(self, key: str, entry: dict[str, str]) -> str:
        async with self.client.pipeline(transaction=False) as pipe:
            pipe.xadd(key, entry, maxlen=STREAM_MAX, approximate=True)  # type: ignore[arg-type]
            pipe.pexpire(key, STREAM_TTL_MS)
            added, _ = await pipe.execute()
        return str(added)

    def _spawn(self, work: Awaitable[Any]) -> None:
        task = asyncio.ensure_future(work)
        self._pending.add(task)
        task.add_done_callback(self._pending.discard)

    # ------------------------------------------------------------------ lifecycle
    async def start(self) -> None:
        self._out_cursor = await self._add(self.out_key(self.name), {"hello": "1"})
        await self._alive()
        loop = asyncio.get_running_loop()
        self._tasks = [
            loop.create_task(self._read_out()),
            loop.create_task(self._read_in()),
            loop.create_task(self._watch()),
        ]

    async def close(self) -> None:
        self._closing = True
        for task in self._tasks:
            task.cancel()
        for remote in list(self.remote.values()):
            remote.stop.set()
            for task in remote.tasks:
                task.cancel()
        for _, viewer in list(self.local.values()):
            viewer.close(CLOSE_RESTART, "server stopping")
        pending = [*self._tasks, *self._pending]
        pending += [t for r in self.remote.values() for t in r.tasks]
        if pending:  # bounded: a cancellation can be swallowed inside the Redis client
            await asyncio.wait(pending, timeout=5)
        with contextlib.suppress(Exception):
            await cast(Awaitable[int], self.client.delete(self.alive_key(self.name)))
            await cast(Awaitable[int], self.client.zrem(self.alive_set, self.name))
            if self.placement is not None:
                await self.placement.forget()
        await self.client.aclose()

    async def taken(self, table_id: str) -> None:
        """A hook of the registry, at the take (before the epoch bump): entries from here on
        are this owner's to apply."""
        self.cursors[table_id] = await self._add(self.in_key(table_id), {"k": "taken"})

    async def _alive(self) -> None:
        now = await cast(Awaitable[tuple[int, int]], self.client.time())
        lapse = now[0] * 1000 + now[1] // 1000 + self.leases.ms
        async with self.client.pipeline(transaction=False) as pipe:
            pipe.set(self.alive_key(self.name), "1", px=self.leases.ms)
            pipe.zadd(self.alive_set, {self.name: lapse})
            if self.placement is not None:
                pipe.hset(self.placement.key, self.name, str(self.placement.load()))
            await pipe.execute()

    async def others_alive(self) -> bool:
        """Is another server process alive (to hand this one's tables over to)?"""
        try:
            now = await cast(Awaitable[tuple[int, int]], self.client.time())
            ms = now[0] * 1000 + now[1] // 1000
            names = await cast(
                Awaitable[list[str]], self.client.zrangebyscore(self.alive_set, ms, "+inf")
            )
        except Exception:
            return False
        return any(name != self.name for name in names)

    # ------------------------------------------------------------------ gateway side
    async def attach(
        self,
        table: RemoteTable,
        player_id: str | None,
        viewer: Viewer,
        stream: str | None,
        since: int | None,
    ) -> None:
        """Ask the owner to attach this connection; returns once its first message (the
        snapshot, or what it missed) came back; raises `TimeoutError` if none did."""
        conn = f"{self.name}/{next(self._ids)}"
        self.local[conn] = (table, viewer)
        self._conn_of[viewer.id] = conn
        entry = {"k": "attach", "c": conn, "g": self.name, "p": player_id or "",
                 "s": stream or "", "n": "" if since is None else str(since)}  # fmt: skip
        await self._add(self.in_key(table.id), entry)
        async with asyncio.timeout(self.reply_timeout):
            while not viewer.outbox and viewer.closed is None:
                viewer.wake.clear()
                await viewer.wake.wait()
        if viewer.closed is not None and not viewer.outbox:
            raise TableError("unavailable", viewer.closed[1])

    def command(
        self, table: RemoteTable, viewer: Viewer, kind: str, ref: Any, data: dict[str, Any]
    ) -> None:
        conn = self._conn_of.get(viewer.id)
        if conn is None:
            return
        entry = {"k": "cmd", "c": conn, "t": kind, "i": orjson.dumps(ref).decode(),
                 "d": orjson.dumps(data).decode()}  # fmt: skip
        self._spawn(self._send_or_fail(table, viewer, ref, entry))

    async def _send_or_fail(
        self, table: RemoteTable, viewer: Viewer, ref: Any, entry: dict[str, str]
    ) -> None:
        try:
            await self._add(self.in_key(table.id), entry)
        except Exception:
            why = "the table cannot be reached; try again"
            message: dict[str, Any] = {"type": "error", "code": "unavailable", "message": why}
            if ref is not None:
                message["id"] = ref
            viewer.send(message)

    async def ask(
        self, table: RemoteTable, kind: str, sender: str | None, data: dict[str, Any]
    ) -> dict[str, Any]:
        """A read (`READS`) of the owner's table: its result, or its `TableError`."""
        if kind not in READS:
            raise TableError("unknown_command", f"{kind!r} is not relayed")
        entry = {"k": "req", "g": self.name, "t": kind, "p": sender or "",
                 "d": orjson.dumps(data).decode()}  # fmt: skip
        try:
            return await self.call(self.in_key(table.id), entry, self.reply_timeout)
        except TimeoutError:
            raise TableError("unavailable", "the table did not answer; try again") from None

    async def call(self, key: str, entry: dict[str, str], timeout: float) -> dict[str, Any]:
        """Add a request to a stream (its reply id as `c`); its answer on this process's
        stream, or its `TableError`; `TimeoutError` after `timeout`."""
        reply = f"{self.name}/r{next(self._ids)}"
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._replies[reply] = future
        try:
            await self._add(key, {**entry, "c": reply})
            async with asyncio.timeout(timeout):
                return await future
        finally:
            self._replies.pop(reply, None)

    def detach(self, table: RemoteTable, viewer: Viewer) -> None:
        conn = self._conn_of.pop(viewer.id, None)
        if conn is None:
            return
        self.local.pop(conn, None)
        self._spawn(self._add(self.in_key(table.id), {"k": "detach", "c": conn}))

    async def _read_out(self) -> None:
        """Route the owners' messages to this gateway's connections."""
        key = self.out_key(self.name)
        while not self._closing:
            try:
                found = await self.client.xread({key: self._out_cursor}, count=512, block=BLOCK_MS)
            except Exception as error:
                log.warning("relay: cannot read %s (%s)", key, type(error).__name__)
                await asyncio.sleep(0.5)
                continue
            for _, entries in found or ():
                for entry_id, fields in entries:
                    self._out_cursor = entry_id
                    if fields.get("k") in ("place", "tour"):  # another process asks
                        self._spawn(self._called(fields))
                        continue
                    future = self._replies.get(fields.get("c", ""))
                    if future is not None and not future.done():
                        if "q" in fields:
                            future.set_result(orjson.loads(fields["q"]))
                        else:
                            why = orjson.loads(fields.get("e", "{}"))
                            future.set_exception(TableError(why.get("code", "internal"),
                                                            why.get("message", "")))  # fmt: skip
                        continue
                    local = self.local.get(fields.get("c", ""))
                    if local is None:
                        continue
                    viewer = local[1]
                    if "m" in fields:
                        viewer.send(fields["m"])
                    elif "x" in fields:
                        viewer.close(int(fields["x"]), fields.get("r", ""), flush=True)

    async def _watch(self) -> None:
        """Every renewal interval: mark this process alive; close the relayed connections
        of a table whose owner changed (they resume where it runs now); detach the remote
        connections of gateways that are gone."""
        while not self._closing:
            await asyncio.sleep(self.tables.renew)
            try:
                await self._alive()
                tables = {t.id: t for t, _ in self.local.values()}
                owners = await self.leases.owners(list(tables))
                for table, viewer in list(self.local.values()):
                    if owners.get(table.id) != table.owner:
                        viewer.close(CLOSE_RESTART, MOVED, flush=True)
                gateways = sorted({r.gateway for r in self.remote.values()})
                if gateways:
                    alive = await cast(
                        Awaitable[list[Any]],
                        self.client.mget([self.alive_key(g) for g in gateways]),
                    )
                    gone = {g for g, a in zip(gateways, alive, strict=True) if a is None}
                    for conn, remote in list(self.remote.items()):
                        if remote.gateway in gone:
                            self._end_remote(conn)
            except Exception as error:
                log.warning("relay: watch failed (%s)", type(error).__name__)

    # ------------------------------------------------------------------ owner side
    async def _read_in(self) -> None:
        """Apply the entries of the in streams of this process's tables, in order."""
        while not self._closing:
            running = self.tables.tables
            for table_id in [t for t in self.cursors if t not in running]:
                if table_id not in self.tables.launching:  # dropped, not being taken
                    del self.cursors[table_id]
            streams = {
                self.in_key(t): c for t, c in self.cursors.items() if t in self.tables.tables
            }
            if not streams:
                await asyncio.sleep(BLOCK_MS / 1000)
                continue
            try:
                found = await self.client.xread(streams, count=256, block=BLOCK_MS)  # type: ignore[arg-type]
            except Exception as error:
                log.warning("relay: cannot read the tables' streams (%s)", type(error).__name__)
                await asyncio.sleep(0.5)
                continue
            for key, entries in found or ():
                table_id = key.split(":")[2]
                for entry_id, fields in entries:
                    self.cursors[table_id] = entry_id
                    try:
                        self._apply(table_id, fields)
                    except Exception:
                        log.exception("relay: an entry of table %s failed", table_id)

    def _apply(self, table_id: str, fields: dict[str, str]) -> None:
        kind, conn = fields.get("k"), fields.get("c", "")
        table = self.tables.tables.get(table_id)
        if table is None or kind == "taken":
            return
        if kind == "attach":
            viewer = Viewer(fields["p"] or None, limit=self.outbox_limit)
            remote = _Remote(table_id, fields["g"], viewer)
            self.remote[conn] = remote
            since = int(fields["n"]) if fields["n"] else None
            remote.tasks.append(asyncio.ensure_future(self._forward(conn, remote)))
            remote.tasks.append(
                asyncio.ensure_future(self._attach(table, remote, fields["s"] or None, since))
            )
        elif kind == "cmd":
            known = self.remote.get(conn)
            if known is None or known.table_id != table_id:  # attached to a former owner
                self._spawn(self._add(self.out_key(conn.split("/")[0]), {"c": conn,
                            "x": str(CLOSE_RESTART), "r": MOVED}))  # fmt: skip
                return
            data = orjson.loads(fields["d"])
            table.tell(fields["t"], known.viewer.player_id, known.viewer,
                       orjson.loads(fields["i"]), data)  # fmt: skip
        elif kind == "detach":
            self._end_remote(conn)
        elif kind == "req":
            self._spawn(self._answer(table, conn, fields))

    async def ask_director(
        self, owner: str, code: str, what: str, player_id: str | None, name: str
    ) -> dict[str, Any]:
        """A read or an action of a tournament another process directs, answered by it."""
        entry = {"k": "tour", "g": self.name, "o": code, "w": what, "p": player_id or "",
                 "n": name}  # fmt: skip
        try:
            return await self.call(self.out_key(owner), entry, self.reply_timeout)
        except TimeoutError:
            raise TableError("unavailable", "the tournament did not answer") from None

    async def _called(self, fields: dict[str, str]) -> None:
        """Answer another process: a new table here (`place`), or a tournament's read or
        action (`tour`) for a tournament this process directs."""
        reply, out = fields["c"], self.out_key(fields["g"])
        try:
            if fields["k"] == "place":
                if self.placement is None:
                    raise TableError("unavailable", "no placement here")
                result = await self.placement.place(fields)
            else:
                if self.on_tournament is None:
                    raise TableError("no_such_tournament", "no such tournament")
                result = await self.on_tournament(fields)
            answer = {"c": reply, "q": orjson.dumps(result).decode()}
        except TableError as refused:
            answer = {"c": reply, "e": _refusal(refused.code, refused.message)}
        except Exception as error:
            log.warning("relay: a call failed (%s)", type(error).__name__)
            answer = {"c": reply, "e": _refusal("unavailable", "that could not be done")}
        await self._add(out, answer)

    async def _answer(self, table: Table, reply: str, fields: dict[str, str]) -> None:
        kind, out = fields["t"], self.out_key(fields["g"])
        answer: dict[str, str]
        try:
            if kind == "view":
                result = table_view(table, None)
            elif kind == "facts":
                result = facts(table)
            elif kind in READS:
                async with asyncio.timeout(self.reply_timeout):
                    result = await table.request(kind, fields["p"] or None,
                                                 **orjson.loads(fields["d"]))  # fmt: skip
            else:
                raise TableError("unknown_command", f"{kind!r} is not relayed")
            answer = {"c": reply, "q": orjson.dumps(result).decode()}
        except TableError as refused:
            answer = {"c": reply, "e": _refusal(refused.code, refused.message)}
        except TimeoutError:
            answer = {"c": reply, "e": _refusal("unavailable", "the table did not answer")}
        await self._add(out, answer)

    async def _attach(
        self, table: Any, remote: _Remote, stream: str | None, since: int | None
    ) -> None:
        viewer = remote.viewer
        try:
            async with asyncio.timeout(self.reply_timeout):
                await table.request("attach", viewer.player_id, viewer=viewer, stream=stream,
                                    since=since)  # fmt: skip
        except (TableError, TimeoutError):
            viewer.close(1011, "the table did not answer", flush=True)
            return
        if viewer.player_id is not None:
            entry = connection_id(viewer.player_id)
            await keep_online(self.presence, table, viewer.player_id, entry, remote.stop)
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.presence.disconnect(table.id, entry), 2.0)

    def _end_remote(self, conn: str) -> None:
        remote = self.remote.pop(conn, None)
        if remote is None:
            return
        remote.stop.set()
        table = self.tables.tables.get(remote.table_id)
        if table is not None:
            table.post_detach(remote.viewer)
        remote.viewer.close(1000, "detached")

    async def _forward(self, conn: str, remote: _Remote) -> None:
        """The owner's writer for a remote connection: its outbox to its gateway's stream."""
        viewer, key = remote.viewer, self.out_key(remote.gateway)
        try:
            while True:
                while not viewer.outbox and viewer.closed is None:
                    viewer.wake.clear()
                    await viewer.wake.wait()
                batch = viewer.take()
                if not batch:
                    break
                # MULTI/EXEC: the gateway's blocked XREAD sees the whole burst at once (without
                # it, Redis wakes the reader after the first XADD), so a connection that asked
                # for batched frames gets it as one frame.
                async with self.client.pipeline(transaction=True) as pipe:
                    for message in batch:
                        pipe.xadd(key, {"c": conn, "m": _text(message)}, maxlen=STREAM_MAX,
                                  approximate=True)  # fmt: skip
                    pipe.pexpire(key, STREAM_TTL_MS)
                    await pipe.execute()
            if viewer.closed is not None and conn in self.remote:  # closed here, not detached
                code, reason = viewer.closed
                await self._add(key, {"c": conn, "x": str(code), "r": reason[:120]})
        except Exception as error:
            log.warning("relay: cannot forward to %s (%s)", remote.gateway, type(error).__name__)
        finally:
            if conn in self.remote:
                self._end_remote(conn)
