"""The presence interface both backends keep."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol


class Presence(Protocol):
    """Who is online at each table.

    - `connect` marks a session online at a table (in a seat, or None for a spectator) for
      `ttl` seconds; connecting again replaces the seat and restarts the clock.
    - `connect_many` does what `connect` does for each session of each table it is given
      (table -> session -> seat): the periodic refresh of all of one process's connections
      (`app.presence.keeper`), one script per table and one round trip for all in Redis.
    - `heartbeat` restarts the clock; it returns False when the session is not online there
      (never connected, disconnected or expired), and then changes nothing.
    - `disconnect` removes the session at once; removing an absent one is not an error.
    - `online` maps each session online at the table to its seat; expired entries are gone.
    """

    ttl: float

    async def connect(self, table_id: str, session_id: str, seat: int | None) -> None: ...

    async def connect_many(self, tables: Mapping[str, Mapping[str, int | None]]) -> None: ...

    async def heartbeat(self, table_id: str, session_id: str) -> bool: ...

    async def disconnect(self, table_id: str, session_id: str) -> None: ...

    async def online(self, table_id: str) -> dict[str, int | None]: ...

    async def ping(self) -> None:
        """Raise unless the backend answers."""
        ...

    async def close(self) -> None: ...
