"""What both sides of the relay share (`app.scale.relay`, which assembles them): the streams'
names and limits, adding an entry, and the state each side keeps.

`Relay` is one class made of two mixins over `RelayState`: `Gateway` (app/scale/gateway.py:
this process's connections to tables other processes own) and `Owner` (app/scale/owner.py:
other processes' connections to this process's tables, and answers to their calls), so mypy
checks every use of the shared state and of the other side's methods against one declaration.
"""

from __future__ import annotations

import asyncio
import itertools
from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

import orjson
import redis.asyncio as aioredis

from app.presence import Presence
from app.scale.lease import Leases
from app.tables.registry import TableRegistry
from app.tables.viewer import Viewer

if TYPE_CHECKING:
    from app.scale.gateway import RemoteTable
    from app.scale.owner import _Remote
    from app.scale.placement import Placement

#: entries a stream keeps at most (trimmed approximately), and how long an idle one lives
STREAM_MAX = 10_000
STREAM_TTL_MS = 3_600_000
#: ms an XREAD waits for entries before looking at the list of streams again
BLOCK_MS = 250
MOVED = "the table moved to another server: reconnect"
#: what the HTTP API reads of a table another process owns (the public view, the facts of
#: a table list, the ledger, the snapshot a table page carries: the one its player's socket
#: would get); nothing else is asked of an owner without a connection
READS = frozenset({"view", "facts", "ledger", "snapshot"})


def _refusal(code: str, message: str) -> str:
    return orjson.dumps({"code": code, "message": message}).decode()


def _text(message: dict[str, Any] | str) -> str:
    return message if isinstance(message, str) else orjson.dumps(message).decode()


class RelayState(ABC):
    """The relay's state (set in `Relay.__init__`) and what either side calls."""

    client: aioredis.Redis
    leases: Leases
    name: str
    tables: TableRegistry
    presence: Presence
    outbox_limit: int
    reply_timeout: float
    prefix: str
    _ids: itertools.count[int]
    #: gateway side: this process's relayed connections, by connection id
    local: dict[str, tuple[RemoteTable, Viewer]]
    _conn_of: dict[int, str]  # viewer.id -> connection id
    #: owner side: the connections of other gateways on this process's tables
    remote: dict[str, _Remote]
    #: owner side: per table, the id of the last entry read from its in stream
    cursors: dict[str, str]
    _tasks: list[asyncio.Task[None]]
    _pending: set[asyncio.Task[Any]]
    _out_cursor: str
    _replies: dict[str, asyncio.Future[dict[str, Any]]]
    _closing: bool
    #: where new tables go (`app.scale.placement`): its load is published with the mark
    placement: Placement | None
    #: a tournament's read or action asked by another process (`app.api.tournaments`)
    on_tournament: Callable[[dict[str, str]], Awaitable[dict[str, Any]]] | None
    #: every live process, scored with the time its mark lapses (Redis time, ms)
    alive_set: str

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

    # ------------------------------------------------------------------ the other side's
    @abstractmethod
    async def _alive(self) -> None: ...

    @abstractmethod
    async def _called(self, fields: dict[str, str]) -> None: ...

    @abstractmethod
    def _end_remote(self, conn: str) -> None: ...
