"""What both sides of the relay share (`app.scale.relay`, which assembles them): the keys, the
codec, adding entries, background work, and the state each side keeps.

`Relay` is one class made of two mixins over `RelayState`: `Gateway` (app/scale/gateway.py:
this process's connections to tables other processes own) and `Owner` (app/scale/owner.py:
other processes' connections to this process's tables, and answers to their calls), so mypy
checks every use of the shared state and of the other side's methods against one declaration.
What only one side keeps is declared on that side, so this module imports neither.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import time
from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

import redis.asyncio as aioredis

from app.presence import Presence
from app.scale.keys import STREAM_TTL_MS, Keys
from app.scale.lease import Leases
from app.scale.wire import Call, Entry, Wire
from app.tables.registry import TableRegistry

if TYPE_CHECKING:
    from app.scale.placement import Placement

log = logging.getLogger("omaha.relay")

#: ms an XREAD waits for entries before looking at the list of streams again
BLOCK_MS = 250
MOVED = "the table moved to another server: reconnect"
#: what the HTTP API reads of a table another process owns (the public view, the facts of
#: a table list, the ledger, the snapshot a table page carries: the one its player's socket
#: would get); nothing else is asked of an owner without a connection
READS = frozenset({"view", "facts", "ledger", "snapshot"})


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


class RelayState(ABC):
    """The relay's state (set in `Relay.__init__`) and what either side calls."""

    client: aioredis.Redis
    leases: Leases
    #: this process's incarnation (`app.scale.identity`)
    name: str
    keys: Keys
    wire: Wire
    tables: TableRegistry
    presence: Presence
    outbox_limit: int
    reply_timeout: float
    _ids: itertools.count[int]
    _tasks: list[asyncio.Task[None]]
    _pending: set[asyncio.Task[Any]]
    _replies: dict[str, asyncio.Future[Entry]]
    _closing: bool
    quiet: Quiet
    #: where new tables go (`app.scale.placement`): its load is published with the mark
    placement: Placement | None
    #: a tournament's read or action asked by another process (`app.api.tournaments`)
    on_tournament: Callable[[Any], Awaitable[dict[str, Any]]] | None

    async def _add(self, key: str, entry: Entry, maxlen: int) -> str:
        async with self.client.pipeline(transaction=False) as pipe:
            pipe.xadd(key, self.wire.encode(entry), maxlen=maxlen, approximate=True)  # type: ignore[arg-type]
            pipe.pexpire(key, STREAM_TTL_MS)
            added, _ = await pipe.execute()
        return str(added)

    def _spawn(self, work: Awaitable[Any]) -> None:
        """Background work whose failure is logged, never left unretrieved."""
        task = asyncio.ensure_future(work)
        self._pending.add(task)
        task.add_done_callback(self._settled)

    def _settled(self, task: asyncio.Task[Any]) -> None:
        self._pending.discard(task)
        if not task.cancelled() and (error := task.exception()) is not None:
            self.quiet.warn("relay: background work failed (%s)", type(error).__name__)

    # ------------------------------------------------------------------ the other side's
    @abstractmethod
    async def _called(self, call: Call) -> None: ...

    @abstractmethod
    def _end_remote(self, conn: str, why: str | None = None) -> None: ...
