"""What both sides of the relay hold (`app.scale.relay`, which composes them): `Streams`, the
reader and writer of the Redis streams (the client, the keys, the codec, this incarnation,
adding entries, background work), and the constants both read.

`Relay` composes two objects, each with its own state: `Gateway` (app/scale/gateway.py: this
process's connections to tables other processes own) and `Owner` (app/scale/owner.py: other
processes' connections to this process's tables, and answers to their calls). Each holds the
one `Streams`; the gateway hands the calls it reads to the owner through a callback the relay
gives it, so this module imports neither side, and neither side imports the other.

Every entry either side adds goes through `Streams.add_all` (or `add`): encoded once when it
is handed over, then written by the one `Writer` (app/scale/writer.py) with whatever else
this process handed over in the same turn of its event loop, in one `MULTI`/`EXEC`, pipelined
on one connection: a burst of sends takes one round trip and no connection of its own.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
from collections.abc import Awaitable, Sequence
from typing import Any, TypeVar

import redis.asyncio as aioredis

from app.logging import Quiet
from app.scale.keys import Keys
from app.scale.wire import Entry, Wire
from app.scale.writer import Writer

log = logging.getLogger("omaha.relay")
T = TypeVar("T")

#: ms an XREAD waits for entries before looking at the list of streams again
BLOCK_MS = 250
MOVED = "the table moved to another server: reconnect"
#: what the HTTP API reads of a table another process owns (the public view, the facts of
#: a table list, the ledger, the snapshot a table page carries: the one its player's socket
#: would get); nothing else is asked of an owner without a connection
READS = frozenset({"view", "facts", "ledger", "snapshot"})


class Absence:
    """Things seen missing at two looks in a row (a Redis restart loses every key for a
    moment: one look is not enough to call a process gone, or a lease lost)."""

    def __init__(self) -> None:
        self._missing: set[str] = set()

    def twice(self, missing: set[str]) -> set[str]:
        before, self._missing = self._missing, missing
        return missing & before


class Streams:
    """This process's reader and writer of the relay's Redis streams, which both sides hold
    (`Gateway`, `Owner`, composed by `app.scale.relay.Relay`): the client, the keys, the
    codec, this process's incarnation, adding entries and background work."""

    def __init__(self, client: aioredis.Redis, name: str, keys: Keys, wire: Wire) -> None:
        self.client = client
        #: this process's incarnation (`app.scale.identity`)
        self.name = name
        self.keys = keys
        self.wire = wire
        self.quiet = Quiet(log)
        #: set once the relay closes: the readers and writers stop
        self.closing = False
        self._ids = itertools.count(1)
        self.pending: set[asyncio.Future[Any]] = set()
        #: every entry this process adds, pipelined (`add_all`)
        self.writer = Writer(client, self.spawn)

    def number(self) -> int:
        """The next number of this process's connections and calls (one count for both)."""
        return next(self._ids)

    async def add(self, key: str, entry: Entry, maxlen: int) -> str:
        """Add one entry to the stream `key` (kept to about `maxlen`): its id."""
        return (await self.add_all(key, [entry], maxlen))[0]

    async def add_all(self, key: str, entries: Sequence[Entry], maxlen: int) -> list[str]:
        """Add entries to the stream `key` in order, with what else this turn of the loop
        adds (`app.scale.writer`): their ids, or the error of their write (some may have
        been added: entries are numbered, or answered once, so the caller may add them
        again)."""
        return await self.writer.add(key, [self.wire.encode(e) for e in entries], maxlen)

    def spawn(self, work: Awaitable[T]) -> asyncio.Future[T]:
        """Background work whose failure is logged, never left unretrieved."""
        task = asyncio.ensure_future(work)
        self.pending.add(task)
        task.add_done_callback(self._settled)
        return task

    def _settled(self, task: asyncio.Future[Any]) -> None:
        self.pending.discard(task)
        if not task.cancelled() and (error := task.exception()) is not None:
            self.quiet.warn("relay: background work failed (%s)", type(error).__name__)
