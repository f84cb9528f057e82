"""What a tournament director needs from the database, and that contract in memory (tests).
The SQL implementation is `app.store.tournaments.SqlTournamentStore`."""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any, Protocol

from app.tournaments.entry import Entry


@dataclass
class StoredTournament:
    id: str
    code: str
    host_id: str
    settings: dict[str, Any]
    status: str = "registering"
    elapsed: float = 0.0
    tables: list[str] = field(default_factory=list)
    entries: list[Entry] = field(default_factory=list)


class TournamentStore(Protocol):
    async def create(self, t: StoredTournament) -> None: ...

    async def take(self, tournament_id: str) -> int:
        """Become the tournament's writer (its director runs here): bump its fencing epoch.
        A later write carrying an older epoch is refused (`OwnershipLost`)."""
        ...

    def drop(self, tournament_id: str) -> None:
        """This process directs the tournament no more: its writes are refused here."""

    async def add_entry(self, tournament_id: str, entry: Entry) -> None: ...

    async def remove_entry(self, tournament_id: str, player_id: str) -> None: ...

    async def save_state(
        self, tournament_id: str, status: str, elapsed: float, tables: list[str]
    ) -> None:
        """Where the tournament stands, its clock and its tables."""

    async def save_places(self, tournament_id: str, entries: list[Entry]) -> None:
        """The places (and prizes) of these entries."""

    async def save_addon(self, tournament_id: str, entry: Entry) -> None:
        """Whether this entry bought the add-on."""

    async def load(self, tournament_id: str) -> StoredTournament: ...

    async def find(self, code: str) -> str | None:
        """The tournament with this invite code."""

    async def unfinished(self) -> list[str]:
        """Tournaments to restore at start-up."""

    async def hosted(self, host_id: str) -> int:
        """How many unfinished tournaments this player hosts (counted in the database: the
        same for every process)."""


class MemoryTournamentStore:
    def __init__(self) -> None:
        self.tournaments: dict[str, StoredTournament] = {}
        self.epochs: dict[str, int] = {}

    async def take(self, tournament_id: str) -> int:
        self.epochs[tournament_id] = self.epochs.get(tournament_id, 0) + 1
        return self.epochs[tournament_id]

    def drop(self, tournament_id: str) -> None:
        return None

    async def create(self, t: StoredTournament) -> None:
        self.tournaments[t.id] = copy.deepcopy(t)

    async def add_entry(self, tournament_id: str, entry: Entry) -> None:
        self.tournaments[tournament_id].entries.append(copy.copy(entry))

    async def remove_entry(self, tournament_id: str, player_id: str) -> None:
        t = self.tournaments[tournament_id]
        t.entries = [e for e in t.entries if e.player_id != player_id]

    async def save_state(
        self, tournament_id: str, status: str, elapsed: float, tables: list[str]
    ) -> None:
        t = self.tournaments[tournament_id]
        t.status, t.elapsed, t.tables = status, elapsed, list(tables)

    async def save_places(self, tournament_id: str, entries: list[Entry]) -> None:
        by_key = {e.key: e for e in self.tournaments[tournament_id].entries}
        for e in entries:
            stored = by_key[e.key]
            stored.place, stored.prize = e.place, e.prize

    async def save_addon(self, tournament_id: str, entry: Entry) -> None:
        stored = next(e for e in self.tournaments[tournament_id].entries if e.key == entry.key)
        stored.addon = entry.addon

    async def load(self, tournament_id: str) -> StoredTournament:
        return copy.deepcopy(self.tournaments[tournament_id])

    async def find(self, code: str) -> str | None:
        return next((t.id for t in self.tournaments.values() if t.code == code), None)

    async def unfinished(self) -> list[str]:
        return [t.id for t in self.tournaments.values() if t.status != "finished"]

    async def hosted(self, host_id: str) -> int:
        return sum(1 for t in self.tournaments.values()
                   if t.host_id == host_id and t.status != "finished")  # fmt: skip
