"""The relay's gateway side: a WebSocket on this process whose table another process owns
(`RemoteTable`), its commands to the owner's in stream and the owner's messages back from this
process's out stream; requests to other processes (a table's read, a tournament's) and their
answers."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable
from typing import Any, cast

import orjson

from app.scale.streams import BLOCK_MS, MOVED, READS, RelayState
from app.tables.errors import TableError
from app.tables.viewer import CLOSE_RESTART, Viewer

log = logging.getLogger("omaha.relay")


class RemoteTable:
    """What the WebSocket endpoint holds for a table another process owns: the same calls as
    a `Table` (`request("attach")`, `tell`, `post_detach`), relayed."""

    def __init__(self, relay: Gateway, table_id: str, owner: str | None, code: str = "") -> None:
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


class Gateway(RelayState):
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
