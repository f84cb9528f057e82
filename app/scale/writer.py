"""The relay's one writer of stream entries (`Streams.add_all` hands it what both sides add).

What a turn of the event loop hands over is written in one `MULTI`/`EXEC` (one round trip; a
reader blocked on a stream sees all of it at once, so a connection that asked for batched
frames gets a burst as one frame), and sent at once, on one connection of the pool that the
writer keeps: the replies of what is in flight are read by a second task, in order, so a
burst waits neither for a free connection nor for the reply to the burst before it. Redis
runs what one connection sends in the order it was sent, so the entries of a stream are added
in the order they were handed over.

If the connection fails, every transaction in flight on it fails (its entries may or may not
have been added: the relay's entries are numbered or answered once, so their callers add
them again) and the next write takes a connection afresh.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import redis.asyncio as aioredis
from redis.exceptions import ResponseError

from app.scale.keys import STREAM_TTL_MS


@dataclass(eq=False)
class Batch:
    """Entries handed over together for one stream, encoded, and their caller's future."""

    key: str
    fields: list[dict[str, str]]
    maxlen: int
    done: asyncio.Future[list[str]]


@dataclass(eq=False)
class _Sent:
    """One transaction on the connection: its batches and how many commands it queued."""

    batches: list[Batch]
    queued: int


class Writer:
    """Writes the batches handed over (`add`) to Redis, pipelined on one connection."""

    def __init__(
        self, client: aioredis.Redis, spawn: Callable[[Awaitable[None]], asyncio.Future[None]]
    ) -> None:
        self.client = client
        self.spawn = spawn
        #: what was handed over and not sent yet
        self.waiting: list[Batch] = []
        #: what was sent on `_conn`, oldest first, whose replies are not read yet
        self.inflight: deque[_Sent] = deque()
        self._conn: Any = None
        self._sender: asyncio.Future[None] | None = None
        self._reader: asyncio.Future[None] | None = None

    async def add(self, key: str, fields: list[dict[str, str]], maxlen: int) -> list[str]:
        """Add entries (encoded) to the stream `key`, in order, kept to about `maxlen`: their
        ids, or the error of their transaction (see the module)."""
        batch = Batch(key, fields, maxlen, asyncio.get_running_loop().create_future())
        self.waiting.append(batch)
        if self._sender is None or self._sender.done():
            self._sender = self.spawn(self._send())
        return await batch.done

    async def _send(self) -> None:
        """Send what is waiting, a transaction at a time, without waiting for replies."""
        while self.waiting:
            batches = [b for b in self.waiting if not b.done.done()]  # (a caller gave up)
            self.waiting = []
            if not batches:
                continue
            commands: list[tuple[Any, ...]] = [("MULTI",)]
            for b in batches:
                for fields in b.fields:
                    pairs = [x for pair in fields.items() for x in pair]
                    commands.append(("XADD", b.key, "MAXLEN", "~", b.maxlen, "*", *pairs))
            commands += [("PEXPIRE", key, STREAM_TTL_MS) for key in {b.key: 0 for b in batches}]
            commands.append(("EXEC",))
            conn = None
            try:
                conn = await self._connection()
                sent = _Sent(batches, len(commands) - 2)
                self.inflight.append(sent)
                if self._reader is None or self._reader.done():
                    self._reader = self.spawn(self._receive(conn))
                await conn.send_packed_command(conn.pack_commands(commands), check_health=False)
            except Exception as error:
                if conn is None:  # no connection: nothing of this was sent
                    _fail(batches, error)
                else:
                    self._broken(conn, error)

    async def _connection(self) -> Any:
        if self._conn is None:
            pool: Any = self.client.connection_pool
            self._conn = await pool.get_connection()
        return self._conn

    async def _receive(self, conn: Any) -> None:
        """Read the replies of what was sent on `conn`, in order, to their callers."""
        while self.inflight and self._conn is conn:
            sent = self.inflight[0]
            try:
                results = await _exec_reply(conn, sent.queued)
            except ResponseError as refused:  # the transaction was refused as a whole
                self.inflight.popleft()
                _fail(sent.batches, refused)
                continue
            except Exception as error:
                self._broken(conn, error)
                break
            self.inflight.popleft()
            at = 0
            for b in sent.batches:
                mine, at = results[at : at + len(b.fields)], at + len(b.fields)
                failed = next((r for r in mine if isinstance(r, Exception)), None)
                if b.done.done():
                    continue
                if failed is not None:
                    b.done.set_exception(failed)
                else:
                    b.done.set_result([r if isinstance(r, str) else r.decode() for r in mine])
        if self.inflight and self._conn is not None and self._conn is not conn:
            self._reader = self.spawn(self._receive(self._conn))  # sent on its successor

    def _broken(self, conn: Any, error: Exception) -> None:
        """The connection failed: what is in flight on it fails; the next write takes
        another."""
        if self._conn is not conn:
            return
        self._conn = None
        while self.inflight:
            _fail(self.inflight.popleft().batches, error)
        self.spawn(self._drop(conn))

    async def _drop(self, conn: Any) -> None:
        with contextlib.suppress(Exception):
            await conn.disconnect()
        await self.client.connection_pool.release(conn)


async def _exec_reply(conn: Any, queued: int) -> list[Any]:
    """The replies of one `MULTI`, its `queued` commands and `EXEC`: EXEC's, with the error
    of any command Redis refused to queue in its place (`ResponseError` if EXEC was aborted)."""
    await conn.read_response()  # MULTI: OK
    errors: dict[int, ResponseError] = {}
    for i in range(queued):
        try:
            await conn.read_response()  # QUEUED
        except ResponseError as refused:
            errors[i] = refused
    results = await conn.read_response()
    if not isinstance(results, list):
        raise ResponseError(f"EXEC answered {results!r}")
    for i in sorted(errors):
        results.insert(i, errors[i])
    return results


def _fail(batches: list[Batch], error: Exception) -> None:
    for b in batches:
        if not b.done.done():
            b.done.set_exception(error)
