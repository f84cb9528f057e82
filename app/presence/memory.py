"""Presence kept in this process: for a single-process server without Redis."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass


@dataclass
class _Entry:
    seat: int | None
    expires_at: float


class InProcessPresence:
    """Presence in a dict; `clock` (monotonic seconds) can be replaced in tests."""

    def __init__(self, ttl: float = 30.0, clock: Callable[[], float] = time.monotonic) -> None:
        if ttl <= 0:
            raise ValueError("ttl must be positive")
        self.ttl = ttl
        self._clock = clock
        self._tables: dict[str, dict[str, _Entry]] = {}

    def _live(self, table_id: str) -> dict[str, _Entry]:
        entries = self._tables.get(table_id)
        if entries is None:
            return {}
        now = self._clock()
        for session_id in [s for s, e in entries.items() if e.expires_at <= now]:
            del entries[session_id]
        if not entries:
            del self._tables[table_id]
        return entries

    async def connect(self, table_id: str, session_id: str, seat: int | None) -> None:
        entries = self._tables.setdefault(table_id, {})
        entries[session_id] = _Entry(seat=seat, expires_at=self._clock() + self.ttl)

    async def connect_many(self, tables: Mapping[str, Mapping[str, int | None]]) -> None:
        expires_at = self._clock() + self.ttl
        for table_id, sessions in tables.items():
            if sessions:  # no table kept for nobody
                entries = self._tables.setdefault(table_id, {})
                for session_id, seat in sessions.items():
                    entries[session_id] = _Entry(seat=seat, expires_at=expires_at)

    async def heartbeat(self, table_id: str, session_id: str) -> bool:
        entry = self._live(table_id).get(session_id)
        if entry is None:
            return False
        entry.expires_at = self._clock() + self.ttl
        return True

    async def disconnect(self, table_id: str, session_id: str) -> None:
        entries = self._tables.get(table_id)
        if entries is not None:
            entries.pop(session_id, None)
            if not entries:
                del self._tables[table_id]

    async def online(self, table_id: str) -> dict[str, int | None]:
        return {session_id: e.seat for session_id, e in self._live(table_id).items()}

    async def ping(self) -> None:
        return None

    async def close(self) -> None:
        self._tables.clear()
