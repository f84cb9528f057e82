"""The table store on SQLAlchemy (SQLite or PostgreSQL): what the table actor writes through.

Each method is one transaction, committed before it returns, so the actor only announces what
is durable. The hot path (`start_hand`, `record_action`, `add_chips`) is declared as rows
(`app.store.rows`) and shares its transaction with other tables' writes pending at the same
moment (group commit, `app.store.group`; on PostgreSQL one statement through asyncpg,
`app.store.group_sql`), and still returns only once that transaction has committed.
See `app.tables.store_protocol.TableStore` for the contract and the ledger identity.
"""

from __future__ import annotations

import uuid
from typing import Any

from sqlalchemy import bindparam, delete, func, select, update
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, AsyncSession, async_sessionmaker

from app import metrics
from app.poker import Action
from app.store import load, preferences, watching
from app.store.deals import DealStore
from app.store.group import Committer, GroupWriter
from app.store.group_sql import (
    FENCE,
    TABLES,
    UPDATE_SEAT,
    CoreGroup,
    PgGroup,
    columns,
    core_params,
)
from app.store.ledger import LedgerStore
from app.store.models import ChatRow, LedgerEntry, Player, SeatRow, TableRow
from app.store.resume import ResumeStore
from app.store.rows import SeatUpdate, action_write, chips_write, deal_write, now, seat_update
from app.tables.config import TableConfig
from app.tables.errors import TableError
from app.tables.hand import Hand
from app.tables.preferences import Preferences
from app.tables.seat import Seat
from app.tables.store_protocol import OwnershipLost, StoredTable

_TABLES = TABLES["tables"]
_TAKE = (
    update(_TABLES)
    .where(_TABLES.c.id == bindparam("b_id"), _TABLES.c.closed_at.is_(None))
    .values(owner_epoch=_TABLES.c.owner_epoch + 1)
    .returning(_TABLES.c.owner_epoch)
)


class SqlTableStore(DealStore, ResumeStore, LedgerStore):
    """`fenced`: every write of a table carries the epoch this process took it with
    (`take_table`), and a table not taken (or dropped) writes nothing. The server is always
    fenced; tests of the store alone may write without taking."""

    def __init__(self, sessions: async_sessionmaker[AsyncSession], *, fenced: bool = False) -> None:
        self.sessions = sessions
        self.fenced = fenced
        #: the tables this process writes for, with the epoch it took each with
        self.epochs: dict[str, int] = {}
        # Every action goes through a plain Core connection, not an ORM session: the session's
        # begin, flush and bulk-statement machinery was a fifth of the server's CPU flat out.
        self.engine: AsyncEngine = sessions.kw["bind"]
        self.group = GroupWriter(self._committer)

    def _committer(self) -> Committer:
        """A group writer's back end: its own asyncpg connection on PostgreSQL."""
        if self.engine.dialect.driver == "asyncpg":
            url = self.engine.url.set(drivername="postgresql")
            return PgGroup(url.render_as_string(hide_password=False))
        return CoreGroup(self.engine)

    async def close(self) -> None:
        """Stop the group writers and close their connections (pending writes are refused)."""
        await self.group.close()

    async def create_table(
        self, host_id: str, config: TableConfig, code: str, table_id: str | None = None
    ) -> str:
        async with self.sessions.begin() as s:
            row = TableRow(
                id=uuid.UUID(table_id) if table_id else uuid.uuid4(),
                code=code,
                host_id=uuid.UUID(host_id),
                config=config.model_dump(mode="json"),
                paused=False,
                hand_number=0,
                owner_epoch=1,
            )
            s.add(row)
        self.epochs[str(row.id)] = 1  # created is taken (`TableStore.create_table`)
        return str(row.id)

    async def open_tables(self) -> list[str]:
        async with self.sessions() as s:
            rows = await s.scalars(select(TableRow.id).where(TableRow.closed_at.is_(None)))
            return [str(r) for r in rows]

    async def tournament_tables(self) -> set[str]:
        async with self.sessions() as s:
            rows = await s.scalars(
                select(TableRow.id).where(
                    TableRow.closed_at.is_(None), TableRow.config["tournament"].as_boolean()
                )
            )
            return {str(r) for r in rows}

    async def take_table(self, table_id: str) -> int:
        async with self.engine.begin() as c:
            epoch = (await c.execute(_TAKE, {"b_id": uuid.UUID(table_id)})).scalar_one_or_none()
        if epoch is None:
            raise TableError("no_such_table", "no such table")
        self.epochs[table_id] = int(epoch)
        return int(epoch)

    def drop_table(self, table_id: str) -> None:
        self.epochs.pop(table_id, None)

    def _epoch(self, table_id: str) -> int | None:
        """The epoch a write of this table carries (None: not fenced); refused at once when
        this process does not hold the table."""
        if not self.fenced:
            return None
        epoch = self.epochs.get(table_id)
        if epoch is None:
            raise OwnershipLost(table_id)
        return epoch

    async def _fence(self, s: AsyncSession | AsyncConnection, table_id: str) -> None:
        """The fence (`group_sql.FENCE`) first in a write's transaction: refused (rolled
        back) unless this process still holds the table's epoch."""
        epoch = self._epoch(table_id)
        if epoch is None:
            return
        result = await s.execute(FENCE, {"b_id": uuid.UUID(table_id), "b_epoch": epoch})
        if result.rowcount != 1:  # type: ignore[attr-defined]
            raise OwnershipLost(table_id)

    async def load_table(self, table_id: str) -> StoredTable:
        return await load.load_table(self.sessions, table_id)

    async def save_table(
        self,
        table_id: str,
        *,
        host_id: str,
        config: TableConfig,
        button: int | None,
        paused: bool,
        hand_number: int,
        next_config: TableConfig | None = None,
        requests: list[dict[str, Any]] | None = None,
        turn_clock: dict[str, Any] | None = None,
    ) -> None:
        async with self.sessions.begin() as s:
            await self._fence(s, table_id)
            await s.execute(
                update(TableRow)
                .where(TableRow.id == uuid.UUID(table_id))
                .values(
                    host_id=uuid.UUID(host_id),
                    config=config.model_dump(mode="json"),
                    button=button,
                    paused=paused,
                    hand_number=hand_number,
                    next_config=next_config.model_dump(mode="json") if next_config else None,
                    requests=requests or None,
                    turn_clock=turn_clock,
                )
            )

    async def close_table(self, table_id: str) -> None:
        async with self.sessions.begin() as s:
            await self._fence(s, table_id)
            await s.execute(
                update(TableRow)
                .where(TableRow.id == uuid.UUID(table_id))
                .values(closed_at=now(), paused=True)
            )

    async def hosted_open_tables(self, host_id: str) -> int:
        async with self.sessions() as s:
            count = await s.scalar(
                select(func.count())
                .select_from(TableRow)
                .where(TableRow.host_id == uuid.UUID(host_id), TableRow.closed_at.is_(None))
            )
            return int(count or 0)

    @staticmethod
    async def _put_seats(
        s: AsyncSession | AsyncConnection, table_id: str, seats: list[Seat]
    ) -> None:
        if seats:
            tid = uuid.UUID(table_id)
            await s.execute(UPDATE_SEAT, [core_params(seat_update(tid, seat)) for seat in seats])

    @staticmethod
    def _ledger(table_id: str, player_id: str, kind: str, amount: int) -> LedgerEntry:
        return LedgerEntry(
            table_id=uuid.UUID(table_id), player_id=uuid.UUID(player_id), kind=kind, amount=amount
        )

    async def seat_player(self, table_id: str, seat: Seat, buy_in: int) -> None:
        async with self.sessions.begin() as s:
            await self._fence(s, table_id)
            self._seat(s, table_id, seat, buy_in)

    async def seat_bot(self, table_id: str, seat: Seat, buy_in: int) -> None:
        """A bot's player row (once per bot: its id is fixed by table and seat) with the
        seat and the buy-in, in one transaction."""
        pid = uuid.UUID(seat.player_id)
        async with self.sessions.begin() as s:
            await self._fence(s, table_id)
            if await s.get(Player, pid) is None:
                s.add(Player(id=pid, display_name=seat.name, session_token_hash=f"bot:{pid}",
                             bot=True))  # fmt: skip
                await s.flush()
            self._seat(s, table_id, seat, buy_in)

    def _seat(self, s: AsyncSession, table_id: str, seat: Seat, buy_in: int) -> None:
        """The seat's row (as the hot path writes it) and its buy-in."""
        row = seat_update(uuid.UUID(table_id), seat)
        # The hot path's columns, and the player's preferences as the seat copied them.
        s.add(SeatRow(**{name: getattr(row, name) for name in columns(SeatUpdate)},
                      auto_muck=seat.auto_muck, always_show=seat.always_show))  # fmt: skip
        s.add(self._ledger(table_id, seat.player_id, "buy_in", buy_in))

    async def save_switches(self, table_id: str, seat: Seat) -> None:
        await self._update_seat(
            table_id,
            seat.number,
            sitting_out=seat.sitting_out,
            sit_out_next=seat.sit_out_next,
            sit_out_next_bb=seat.sit_out_next_bb,
        )

    async def preferences_of(self, player_id: str) -> Preferences:
        return await preferences.preferences_of(self.sessions, player_id)

    async def save_preferences(self, table_id: str, seat: Seat) -> None:
        """The player's preferences and this seat's copy of them, in one transaction."""
        prefs = Preferences(seat.auto_muck, seat.always_show)
        async with self.sessions.begin() as s:
            await self._fence(s, table_id)
            await preferences.write(s, seat.player_id, prefs)
            await s.execute(
                update(SeatRow)
                .where(SeatRow.table_id == uuid.UUID(table_id), SeatRow.number == seat.number)
                .values(auto_muck=prefs.auto_muck, always_show=prefs.always_show)
            )

    async def set_bomb_pot_next(self, table_id: str, on: bool) -> None:
        async with self.sessions.begin() as s:
            await self._fence(s, table_id)
            await s.execute(
                update(TableRow).where(TableRow.id == uuid.UUID(table_id)).values(bomb_pot_next=on)
            )

    async def add_chat(
        self, table_id: str, player_id: str, name: str, seat: int | None, text: str
    ) -> None:
        async with self.sessions.begin() as s:
            await self._fence(s, table_id)
            s.add(
                ChatRow(
                    table_id=uuid.UUID(table_id),
                    player_id=uuid.UUID(player_id),
                    name=name,
                    seat=seat,
                    text=text,
                )
            )

    async def update_seats(self, table_id: str, seats: list[Seat]) -> None:
        async with self.sessions.begin() as s:
            await self._fence(s, table_id)
            await self._put_seats(s, table_id, seats)

    async def add_chips(self, table_id: str, seat: Seat, amount: int, kind: str) -> None:
        """Through the group writer: top-ups come between hands, on many tables at once."""
        write = chips_write(table_id, self._epoch(table_id), seat, amount, kind)
        await self.group.submit(write)

    # Adjustments are a host's occasional command: plain transactions, not the group writer.
    async def adjust(self, table_id: str, seat: Seat, amount: int, reason: str) -> None:
        async with self.sessions.begin() as s:
            await self._fence(s, table_id)
            entry = self._ledger(table_id, seat.player_id, "adjustment", amount)
            entry.reason = reason or None
            s.add(entry)
            await self._put_seats(s, table_id, [seat])
            await self._put_adjust_reason(s, table_id, seat)

    async def hold_adjustment(self, table_id: str, seat: Seat) -> None:
        async with self.sessions.begin() as s:
            await self._fence(s, table_id)
            await self._put_seats(s, table_id, [seat])
            await self._put_adjust_reason(s, table_id, seat)

    @staticmethod
    async def _put_adjust_reason(s: AsyncSession, table_id: str, seat: Seat) -> None:
        await s.execute(
            update(SeatRow)
            .where(SeatRow.table_id == uuid.UUID(table_id), SeatRow.number == seat.number)
            .values(pending_adjust_reason=seat.pending_adjust_reason)
        )

    async def cash_out(self, table_id: str, seat: Seat) -> None:
        tid = uuid.UUID(table_id)
        async with self.sessions.begin() as s:
            await self._fence(s, table_id)
            await s.execute(
                delete(SeatRow).where(SeatRow.table_id == tid, SeatRow.number == seat.number)
            )
            s.add(self._ledger(table_id, seat.player_id, "cash_out", seat.stack))

    async def start_hand(
        self,
        table_id: str,
        hand: Hand,
        deck: list[int],
        seats: list[Seat],
        button: int,
        hand_number: int,
    ) -> None:
        """Through the group writer, like an action: a deal per hand on every table was the
        other transaction of the hot path."""
        write = deal_write(table_id, self._epoch(table_id), hand, deck, seats, button, hand_number)
        await self.group.submit(write)

    async def note_watching(self, table_id: str, visits: list[tuple[str, int, int]]) -> None:
        """Not fenced: who watched is no part of the table's state (a process that lost the
        table since is still right about a hand it dealt). Not through the group writer:
        a plain transaction of its own, at most one a hand (app/store/watching.py)."""
        await watching.note(self.sessions, table_id, visits)

    async def record_action(
        self,
        table_id: str,
        hand: Hand,
        counter: int,
        action: Action,
        final: list[Seat] | None,
        spent: Seat | None = None,
    ) -> None:
        """Group commit (`app.store.group`): returns once the transaction carrying this
        action has committed."""
        write = action_write(table_id, self._epoch(table_id), hand, counter, action, final, spent)
        await self.group.submit(write)
        metrics.ACTIONS.inc()

    async def tables_of(self, player_id: str) -> list[str]:
        """Tables the player hosts or sits at, newest first."""
        pid = uuid.UUID(player_id)
        async with self.sessions() as s:
            seated = select(SeatRow.table_id).where(SeatRow.player_id == pid)
            rows = await s.scalars(
                select(TableRow.id)
                .where(TableRow.closed_at.is_(None))
                .where((TableRow.host_id == pid) | TableRow.id.in_(seated))
                .order_by(TableRow.created_at.desc())
            )
            return [str(r) for r in rows]

    async def table_by_code(self, code: str) -> str | None:
        async with self.sessions() as s:
            tid = await s.scalar(select(TableRow.id).where(TableRow.code == code))
            return str(tid) if tid is not None else None
