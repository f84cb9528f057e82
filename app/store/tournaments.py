"""The tournament store on SQLAlchemy (`app.tournaments.store.TournamentStore`).

`fenced` (the server): every write of a tournament carries the epoch this process took its
director with (`take`) and is refused (`OwnershipLost`, nothing stored) once another process
took it: the same fencing as the tables' (`app.store.tables`), on `tournaments.owner_epoch`."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

from sqlalchemy import delete, func, select, update
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.store.models import TournamentEntryRow, TournamentRow
from app.tables.store_protocol import OwnershipLost
from app.tournaments.entry import Entry
from app.tournaments.store import StoredTournament


class SqlTournamentStore:
    def __init__(self, sessions: async_sessionmaker[AsyncSession], *, fenced: bool = False) -> None:
        self.sessions = sessions
        self.fenced = fenced
        #: the tournaments this process directs, with the epoch it took each with
        self.epochs: dict[str, int] = {}

    async def take(self, tournament_id: str) -> int:
        async with self.sessions.begin() as s:
            epoch = await s.scalar(
                update(TournamentRow)
                .where(TournamentRow.id == uuid.UUID(tournament_id))
                .values(owner_epoch=TournamentRow.owner_epoch + 1)
                .returning(TournamentRow.owner_epoch)
            )
        if epoch is None:
            raise KeyError(tournament_id)
        self.epochs[tournament_id] = int(epoch)
        return int(epoch)

    def drop(self, tournament_id: str) -> None:
        self.epochs.pop(tournament_id, None)

    async def _fence(self, s: AsyncSession, tournament_id: str) -> None:
        """First in a write's transaction: the row is locked and the write refused (rolled
        back) unless this process still holds the tournament's epoch."""
        if not self.fenced:
            return
        epoch = self.epochs.get(tournament_id)
        if epoch is None:
            raise OwnershipLost(tournament_id)
        result = await s.execute(
            update(TournamentRow)
            .where(TournamentRow.id == uuid.UUID(tournament_id))
            .where(TournamentRow.owner_epoch == epoch)
            .values(owner_epoch=TournamentRow.owner_epoch)
        )
        if result.rowcount != 1:  # type: ignore[attr-defined]
            raise OwnershipLost(tournament_id)

    async def create(self, t: StoredTournament) -> None:
        async with self.sessions.begin() as s:
            s.add(TournamentRow(id=uuid.UUID(t.id), code=t.code, host_id=uuid.UUID(t.host_id),
                                settings=t.settings, status=t.status, elapsed=t.elapsed,
                                tables=list(t.tables)))  # fmt: skip

    async def add_entry(self, tournament_id: str, entry: Entry) -> None:
        async with self.sessions.begin() as s:
            await self._fence(s, tournament_id)
            row = TournamentEntryRow(
                tournament_id=uuid.UUID(tournament_id),
                player_id=uuid.UUID(entry.player_id),
                name=entry.name,
                bot=entry.bot,
                place=entry.place,
                prize=entry.prize,
                number=entry.number,
                addon=entry.addon,
            )
            s.add(row)

    async def remove_entry(self, tournament_id: str, player_id: str) -> None:
        async with self.sessions.begin() as s:
            await self._fence(s, tournament_id)
            await s.execute(
                delete(TournamentEntryRow).where(
                    TournamentEntryRow.tournament_id == uuid.UUID(tournament_id),
                    TournamentEntryRow.player_id == uuid.UUID(player_id),
                )
            )

    async def save_state(
        self, tournament_id: str, status: str, elapsed: float, tables: list[str]
    ) -> None:
        finished = datetime.now(UTC) if status == "finished" else None
        async with self.sessions.begin() as s:
            await self._fence(s, tournament_id)
            await s.execute(
                update(TournamentRow)
                .where(TournamentRow.id == uuid.UUID(tournament_id))
                .values(status=status, elapsed=elapsed, tables=list(tables), finished_at=finished)
            )

    async def save_places(self, tournament_id: str, entries: list[Entry]) -> None:
        async with self.sessions.begin() as s:
            await self._fence(s, tournament_id)
            for e in entries:
                await s.execute(
                    update(TournamentEntryRow)
                    .where(
                        TournamentEntryRow.tournament_id == uuid.UUID(tournament_id),
                        TournamentEntryRow.player_id == uuid.UUID(e.player_id),
                        TournamentEntryRow.number == e.number,
                    )
                    .values(place=e.place, prize=e.prize)
                )

    async def save_addon(self, tournament_id: str, entry: Entry) -> None:
        async with self.sessions.begin() as s:
            await s.execute(
                update(TournamentEntryRow)
                .where(
                    TournamentEntryRow.tournament_id == uuid.UUID(tournament_id),
                    TournamentEntryRow.player_id == uuid.UUID(entry.player_id),
                    TournamentEntryRow.number == entry.number,
                )
                .values(addon=entry.addon)
            )

    async def load(self, tournament_id: str) -> StoredTournament:
        tid = uuid.UUID(tournament_id)
        async with self.sessions() as s:
            row = await s.get_one(TournamentRow, tid)
            entries = await s.scalars(
                select(TournamentEntryRow)
                .where(TournamentEntryRow.tournament_id == tid)
                .order_by(TournamentEntryRow.id)
            )
            return StoredTournament(
                id=tournament_id, code=row.code, host_id=str(row.host_id),
                settings=dict(row.settings), status=row.status, elapsed=row.elapsed,
                tables=list(row.tables or []),
                entries=[Entry(str(e.player_id), e.name, e.bot, place=e.place, prize=e.prize,
                               number=e.number, addon=e.addon)
                         for e in entries],
            )  # fmt: skip

    async def find(self, code: str) -> str | None:
        async with self.sessions() as s:
            found = await s.scalar(select(TournamentRow.id).where(TournamentRow.code == code))
            return str(found) if found is not None else None

    async def unfinished(self) -> list[str]:
        async with self.sessions() as s:
            rows = await s.scalars(
                select(TournamentRow.id).where(TournamentRow.status != "finished")
            )
            return [str(r) for r in rows]

    async def hosted(self, host_id: str) -> int:
        async with self.sessions() as s:
            count = await s.scalar(
                select(func.count())
                .select_from(TournamentRow)
                .where(TournamentRow.host_id == uuid.UUID(host_id))
                .where(TournamentRow.status != "finished")
            )
            return int(count or 0)
