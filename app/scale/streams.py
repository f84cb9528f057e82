"""What both sides of the relay hold (`app.scale.relay`, which composes them): `Streams`, the
reader and writer of the Redis streams (the client, the keys, the codec, this incarnation,
adding entries, background work), and the constants both read.

`Relay` composes two objects, each with its own state: `Gateway` (app/scale/gateway.py: this
process's connections to tables other processes own) and `Owner` (app/scale/owner.py: other
processes' connections to this process's tables, and answers to their calls). Each holds the
one `Streams`; the gateway hands the calls it reads to the owner through a callback the relay
gives it, so this module imports neither side, and neither side imports the other.

Every entry either side adds goes through `Streams.add_all` (or `add`): encoded once when it
is handed over, then written with whatever else this process handed over in the same turn
of its event loop, in one `MULTI`/`EXEC` (one round trip, one connection of the pool; a
reader blocked on a stream sees all of it at once). One such write is in flight at a time:
what is handed over meanwhile goes in the next, so the entries of a stream are added in the
order they were handed over, and a burst of sends takes a round trip, not a connection each.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import time
from collections.abc import Awaitable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import redis.asyncio as aioredis

from app.scale.keys import STREAM_TTL_MS, Keys
from app.scale.wire import Entry, Wire

log = logging.getLogger("omaha.relay")
T = TypeVar("T")

#: ms an XREAD waits for entries before looking at the list of streams again
BLOCK_MS = 250
MOVED = "the table moved to another server: reconnect"
#: what the HTTP API reads of a table another process owns (the public view, the facts of
#: a table list, the ledger, the snapshot a table page carries: the one its player's socket
#: would get); nothing else is asked of an owner without a connection
READS = frozenset({"view", "facts", "ledger", "snapshot"})


@dataclass(eq=False)
class _Batch:
    """Entries handed over together for one stream, encoded, and their caller's future."""

    key: str
    fields: list[dict[str, str]]
    maxlen: int
    done: asyncio.Future[list[str]]


class Quiet:
    """One warning per `every` seconds for a failure that repeats (Redis down: every read)."""

    def __init__(self, every: float = 10.0) -> None:
        self.every = every
        self._last: dict[str, float] = {}

    def warn(self, what: str, *args: Any) -> None:
        now = time.monotonic()
        if now - self._last.get(what, -self.every) >= self.every:
            self._last[what] = now
            log.warning(what, *args)


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
        self.quiet = Quiet()
        #: set once the relay closes: the readers and writers stop
        self.closing = False
        self._ids = itertools.count(1)
        self.pending: set[asyncio.Future[Any]] = set()
        #: what was handed over since the write in flight began (`add_all`)
        self._waiting: list[_Batch] = []
        self._writer: asyncio.Future[None] | None = None

    def number(self) -> int:
        """The next number of this process's connections and calls (one count for both)."""
        return next(self._ids)

    async def add(self, key: str, entry: Entry, maxlen: int) -> str:
        """Add one entry to the stream `key` (kept to about `maxlen`): its id."""
        return (await self.add_all(key, [entry], maxlen))[0]

    async def add_all(self, key: str, entries: Sequence[Entry], maxlen: int) -> list[str]:
        """Add entries to the stream `key` in order, with the next write (see the module):
        their ids, or the error of that write (some may have been added: entries are
        numbered, or answered once, so the caller may add them again)."""
        batch = _Batch(key, [self.wire.encode(e) for e in entries], maxlen,
                       asyncio.get_running_loop().create_future())  # fmt: skip
        self._waiting.append(batch)
        if self._writer is None or self._writer.done():
            self._writer = self.spawn(self._write())
        return await batch.done

    async def _write(self) -> None:
        """Write what is waiting, one `MULTI`/`EXEC` at a time, until nothing is."""
        while self._waiting:
            batches = [b for b in self._waiting if not b.done.done()]  # (a caller gave up)
            self._waiting = []
            if not batches:
                continue
            try:
                async with self.client.pipeline(transaction=True) as pipe:
                    for b in batches:
                        for fields in b.fields:
                            pipe.xadd(b.key, fields, maxlen=b.maxlen, approximate=True)  # type: ignore[arg-type]
                    for key in {b.key: None for b in batches}:
                        pipe.pexpire(key, STREAM_TTL_MS)
                    results = await pipe.execute(raise_on_error=False)
            except Exception as error:
                for b in batches:
                    if not b.done.done():
                        b.done.set_exception(error)
                continue
            at = 0
            for b in batches:
                mine, at = results[at : at + len(b.fields)], at + len(b.fields)
                failed = next((r for r in mine if isinstance(r, Exception)), None)
                if b.done.done():
                    continue
                if failed is not None:
                    b.done.set_exception(failed)
                else:
                    b.done.set_result([str(r) for r in mine])

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
