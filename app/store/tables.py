"""The table store on SQLAlchemy (SQLite or PostgreSQL): what the table actor writes through.

Each method is one transaction, committed before it returns, so the actor only announces what
is durable. The hot path (`start_hand`, `record_action`, `add_chips`) shares its transaction
with other tables' writes pending at the same moment (group commit; on PostgreSQL one
statement through asyncpg), and still returns only once that transaction has committed.
See `app.tables.store.TableStore` for the contract and the ledger identity.
"""

from __future__ import annotations

import asyncio
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, cast

import asyncpg
import orjson
from sqlalchemy import Select, Table, bindparam, delete, func, insert, select, update
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, AsyncSession, async_sessionmaker

from app.poker import Action
from app.store.deals import DealStore
from app.store.decks import seal, seal_value
from app.store.models import (
    ChatRow,
    HandActionRow,
    HandPlayerRow,
    HandRow,
    LedgerEntry,
    Player,
    SeatRow,
    TableRow,
)
from app.store.resume import ResumeStore
from app.tables.config import TableConfig
from app.tables.errors import TableError
from app.tables.hand import Hand, awarded
from app.tables.seat import Seat, SeatState
from app.tables.store import (
    CHAT_KEPT,
    LEDGER_IN,
    Adjustment,
    LedgerTotal,
    OwnershipLost,
    StoredHand,
    StoredTable,
    StoreInDoubt,
)


def _now() -> datetime:
    return datetime.now(UTC)


def _seconds_between(start: Any, end: Any) -> float | None:
    """Seconds from `start` to `end` (database timestamps; SQLite's may come back as text or
    without a zone), or None when they cannot be compared."""
    try:
        if isinstance(end, str):
            end = datetime.fromisoformat(end)
        if start.tzinfo is None:
            start = start.replace(tzinfo=UTC)
        if end.tzinfo is None:
            end = end.replace(tzinfo=UTC)
        return max(0.0, float((end - start).total_seconds()))
    except (AttributeError, TypeError, ValueError):
        return None


def _seat_row(table_id: uuid.UUID, seat: Seat) -> dict[str, object]:
    return {
        "table_id": table_id,
        "number": seat.number,
        "player_id": uuid.UUID(seat.player_id),
        "name": seat.name,
        "stack": seat.stack,
        "sitting_out": seat.sitting_out,
        "waiting": seat.waiting,
        "post": seat.post,
        "time_bank": seat.time_bank,
        "leaving": seat.leaving,
        "removed": seat.removed,
        "straddle": seat.straddle,
        "pending_top_up": seat.pending_top_up,
        "pending_adjust": seat.pending_adjust,
        "missed_blinds": seat.missed_blinds,
    }


# The hot path (every action, every hand's start and end) runs prebuilt Core statements with
# bound parameters: building `insert(...).values(...)` per call, through the ORM, cost more
# CPU than the rest of an action together (bench/load.py, docs/performance.md).
_ACTIONS = cast(Table, HandActionRow.__table__)
_SEATS = cast(Table, SeatRow.__table__)
_HANDS = cast(Table, HandRow.__table__)
_TABLES = cast(Table, TableRow.__table__)
_HAND_PLAYERS = cast(Table, HandPlayerRow.__table__)
_INSERT_HAND = insert(_HANDS)
# The hand's server-wide number is the database's (migration 0006): read back from its row.
_INSERT_HAND_PLAYER = insert(_HAND_PLAYERS).values(
    hand_id=bindparam("hand_id"),
    position=bindparam("position"),
    player_id=bindparam("player_id"),
    serial=select(_HANDS.c.serial).where(_HANDS.c.id == bindparam("hand_id")).scalar_subquery(),
)
_INSERT_ACTION = insert(_ACTIONS)
_INSERT_LEDGER = insert(cast(Table, LedgerEntry.__table__))
_SEAT_FIELDS = (
    "player_id", "name", "stack", "sitting_out", "waiting", "post", "time_bank",
    "leaving", "removed", "straddle", "pending_top_up", "pending_adjust", "missed_blinds",
)  # fmt: skip
_UPDATE_SEAT = (
    update(_SEATS)
    .where(_SEATS.c.table_id == bindparam("b_table_id"), _SEATS.c.number == bindparam("b_number"))
    .values({name: bindparam(name) for name in _SEAT_FIELDS})
)
_MOVE_BUTTON = (
    update(_TABLES)
    .where(_TABLES.c.id == bindparam("b_id"))
    .values(button=bindparam("button"), hand_number=bindparam("hand_number"))
)
# The fence: each write of a table first checks, in its own transaction, that the table's
# epoch is still the one this process took it with. An UPDATE (not a SELECT): it takes the
# row's lock until the commit, so a taker's bump waits for this write, or this write sees the
# bump and changes nothing; and on SQLite it is what opens the write transaction.
_FENCE = (
    update(_TABLES)
    .where(_TABLES.c.id == bindparam("b_id"), _TABLES.c.owner_epoch == bindparam("b_epoch"))
    .values(owner_epoch=_TABLES.c.owner_epoch)
)
_TAKE = (
    update(_TABLES)
    .where(_TABLES.c.id == bindparam("b_id"), _TABLES.c.closed_at.is_(None))
    .values(owner_epoch=_TABLES.c.owner_epoch + 1)
    .returning(_TABLES.c.owner_epoch)
)
_END_HAND = (
    update(_HANDS)
    .where(_HANDS.c.id == bindparam("b_id"))
    .values(result=bindparam("result"), ended_at=bindparam("ended_at"), pot=bindparam("pot"))
)

# The same writes for asyncpg itself (PostgreSQL): a group's transaction is ONE statement,
# each kind of row passed as arrays and written by its own data-modifying CTE. One round
# trip, atomic on its own (no BEGIN/COMMIT round trips), prepared once per connection, and
# none of SQLAlchemy's per-statement work, which was most of the store's CPU flat out.
# Rows of one batch never collide: a batch holds at most one write per table.
# `fence` is `_FENCE` for every table of the batch ($46 ids, $47 the epochs they were taken
# with; null: not fenced): FOR SHARE holds each row until the commit, so a taker's bump
# waits for this statement, or this statement sees the bump (READ COMMITTED re-checks a
# locked row's newest version) and writes nothing of that table. The tables it refused are
# what the statement returns.
_PG_GROUP = """
WITH
fence AS (
    SELECT t.id FROM tables AS t
    JOIN unnest($46::uuid[], $47::bigint[]) AS f (id, epoch)
      ON t.id = f.id AND (f.epoch IS NULL OR t.owner_epoch = f.epoch)
    FOR SHARE OF t
),
new_hands AS (
    INSERT INTO hands (id, table_id, number, record, deck, result, ended_at, game, pot, deal)
    SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::int[], $4::json[], $5::json[],
                         $6::json[], $7::timestamptz[], $39::text[], $40::bigint[],
                         $45::json[])
        AS u (id, table_id, number, record, deck, result, ended_at, game, pot, deal)
    WHERE u.table_id IN (SELECT id FROM fence)
    RETURNING id, serial
),
new_players AS (
    INSERT INTO hand_players (hand_id, position, player_id, serial)
    SELECT u.hand_id, u.position, u.player_id, h.serial
    FROM unnest($41::uuid[], $42::int[], $43::uuid[]) AS u (hand_id, position, player_id)
    JOIN new_hands AS h ON h.id = u.hand_id
),
buttons AS (
    UPDATE tables AS t SET button = u.button, hand_number = u.hand_number
    FROM unnest($8::uuid[], $9::int[], $10::int[]) AS u (id, button, hand_number)
    WHERE t.id = u.id AND u.id IN (SELECT id FROM fence)
),
actions AS (
    INSERT INTO hand_actions (hand_id, counter, player, kind, amount, agree)
    SELECT u.hand_id, u.counter, u.player, u.kind, u.amount, u.agree
    FROM unnest($11::uuid[], $12::int[], $13::int[], $14::text[], $15::bigint[],
                $16::bool[], $48::uuid[])
         AS u (hand_id, counter, player, kind, amount, agree, table_id)
    WHERE u.table_id IN (SELECT id FROM fence)
),
ends AS (
    UPDATE hands AS h SET result = u.result, ended_at = u.ended_at, pot = u.pot
    FROM unnest($17::uuid[], $18::json[], $19::timestamptz[], $44::bigint[], $49::uuid[])
         AS u (id, result, ended_at, pot, table_id)
    WHERE h.id = u.id AND u.table_id IN (SELECT id FROM fence)
),
ledger AS (
    INSERT INTO ledger (table_id, player_id, kind, amount)
    SELECT * FROM unnest($20::uuid[], $21::uuid[], $22::text[], $23::bigint[])
        AS u (table_id, player_id, kind, amount)
    WHERE u.table_id IN (SELECT id FROM fence)
),
seats AS (
    UPDATE seats AS s
    SET player_id = u.player_id, name = u.name, stack = u.stack, sitting_out = u.sitting_out,
        waiting = u.waiting, post = u.post, time_bank = u.time_bank, leaving = u.leaving,
        removed = u.removed, straddle = u.straddle, pending_top_up = u.pending_top_up,
        pending_adjust = u.pending_adjust, missed_blinds = u.missed_blinds
    FROM unnest($24::uuid[], $25::int[], $26::uuid[], $27::text[], $28::bigint[],
                $29::bool[], $30::bool[], $31::bool[], $32::float8[], $33::bool[], $34::bool[],
                $35::bool[], $36::bigint[], $37::bigint[], $38::int[])
         AS u (table_id, number, player_id, name, stack, sitting_out, waiting, post, time_bank,
               leaving, removed, straddle, pending_top_up, pending_adjust, missed_blinds)
    WHERE s.table_id = u.table_id AND s.number = u.number
      AND u.table_id IN (SELECT id FROM fence)
)
SELECT f.id FROM unnest($46::uuid[]) AS f (id) WHERE f.id NOT IN (SELECT id FROM fence)
"""


def _columns(rows: list[dict[str, Any]], *names: str) -> list[list[Any]]:
    """Rows as one list per column (the arrays `_PG_GROUP` takes)."""
    return [[row[name] for row in rows] for name in names]


def _json(value: Any) -> str | None:
    return None if value is None else orjson.dumps(value).decode()


def _ledger_of(table_id: str, *columns: Any) -> Select[Any]:
    """A table's ledger entries: the player, their name, then `columns`."""
    return (
        select(LedgerEntry.player_id, Player.display_name, *columns)
        .join(Player, Player.id == LedgerEntry.player_id)
        .where(LedgerEntry.table_id == uuid.UUID(table_id))
    )


@dataclass
class _Write:
    """One table's write waiting for its commit: a new hand (its row, the button, the seats
    as dealt), or an accepted action (at a hand's end with the result and the seats' new
    stacks, in the same transaction)."""

    done: asyncio.Future[None]
    #: the table, and the epoch it was taken with (None: not fenced)
    table_id: uuid.UUID
    epoch: int | None
    hand: dict[str, Any] | None = None
    players: list[dict[str, Any]] = field(default_factory=list)
    button: dict[str, Any] | None = None
    action: dict[str, Any] | None = None
    end: dict[str, Any] | None = None
    ledger: dict[str, Any] | None = None
    seats: list[dict[str, Any]] = field(default_factory=list)
    #: handed to the database (its outcome is the database's now), or withdrawn before that
    sent: bool = False
    withdrawn: bool = False
    #: the database's answer, for a caller that gave up waiting after the write was sent
    outcome: asyncio.Future[None] | None = None

    async def submitted(self, queue: asyncio.Queue[_Write]) -> None:
        """Queue this write and wait for its commit. Cancelled (the actor gave up waiting)
        before a writer took it, it is withdrawn: certainly never stored. Cancelled after,
        it raises `StoreInDoubt` with the future of the database's answer."""
        queue.put_nowait(self)
        try:
            await self.done
        except asyncio.CancelledError:
            if not self.sent:
                self.withdrawn = True
                raise
            self.outcome = asyncio.get_running_loop().create_future()
            raise StoreInDoubt(self.outcome) from None


#: group commit: transactions writing at once, and tables' writes one of them carries at most.
#: Two, not four: fewer, larger transactions cost less CPU per action, and one commit on
#: loopback takes ~1 ms, so two writers keep up with 500 tables (bench/load.py).
APPEND_WRITERS = 2
#: seconds to open a database connection: a frozen server accepts TCP but never answers
CONNECT_TIMEOUT = 5.0
APPEND_BATCH = 256


def _rows(batch: list[_Write]) -> tuple[list[dict[str, Any]], ...]:
    """The batch's rows by kind: hands, players dealt, buttons, actions, ends, ledger, seats."""
    return (
        [w.hand for w in batch if w.hand is not None],
        [row for w in batch for row in w.players],
        [w.button for w in batch if w.button is not None],
        [w.action for w in batch if w.action is not None],
        [w.end for w in batch if w.end is not None],
        [w.ledger for w in batch if w.ledger is not None],
        [row for w in batch for row in w.seats],
    )


def _settle_fenced(item: _Write, refused: set[uuid.UUID]) -> None:
    _settle(item, OwnershipLost(str(item.table_id)) if item.table_id in refused else None)


def _settle(item: _Write, error: Exception | None) -> None:
    for future in (item.outcome, item.done):
        if future is None or future.done():  # its actor gave up on it (or was cancelled)
            continue
        if error is None:
            future.set_result(None)
        else:
            future.set_exception(error)


class _Link:
    """A group writer's own asyncpg connection (PostgreSQL), opened on first use and again
    after it broke. Taking a pooled SQLAlchemy connection per transaction (checkout, greenlet,
    reset on return) cost as much CPU as the transaction's statements."""

    def __init__(self, dsn: str) -> None:
        self.dsn = dsn
        self.connection: Any = None

    async def get(self) -> Any:
        if self.connection is None or self.connection.is_closed():
            self.connection = await asyncpg.connect(self.dsn, timeout=CONNECT_TIMEOUT)
        return self.connection

    def close(self) -> None:
        if self.connection is not None and not self.connection.is_closed():
            self.connection.terminate()
        self.connection = None


class SqlTableStore(DealStore, ResumeStore):
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
        self._asyncpg = self.engine.dialect.driver == "asyncpg"
        self._dsn = self.engine.url.set(drivername="postgresql").render_as_string(
            hide_password=False
        )
        self._appends: asyncio.Queue[_Write] | None = None
        self._appends_loop: asyncio.AbstractEventLoop | None = None
        self._writers: list[asyncio.Task[None]] = []

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
            )
            s.add(row)
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
        """`_FENCE` first in a write's transaction: refused (rolled back) unless this process
        still holds the table's epoch."""
        epoch = self._epoch(table_id)
        if epoch is None:
            return
        result = await s.execute(_FENCE, {"b_id": uuid.UUID(table_id), "b_epoch": epoch})
        if result.rowcount != 1:  # type: ignore[attr-defined]
            raise OwnershipLost(table_id)

    async def load_table(self, table_id: str) -> StoredTable:
        tid = uuid.UUID(table_id)
        async with self.sessions() as s:
            row = await s.get_one(TableRow, tid)
            seats = [
                Seat(
                    number=r.number,
                    player_id=str(r.player_id),
                    name=r.name,
                    stack=r.stack,
                    state=SeatState.from_flags(
                        sitting_out=r.sitting_out,
                        waiting=r.waiting,
                        post=r.post,
                        leaving=r.leaving,
                        removed=r.removed,
                    ),
                    time_bank=r.time_bank,
                    straddle=r.straddle,
                    pending_top_up=r.pending_top_up,
                    pending_adjust=r.pending_adjust,
                    pending_adjust_reason=r.pending_adjust_reason or "",
                    missed_blinds=r.missed_blinds,
                    bot=bot,
                    sit_out_next=r.sit_out_next,
                    sit_out_next_bb=r.sit_out_next_bb,
                    client_seed=r.client_seed or "",
                    away_since=r.away_since,
                )
                for r, bot in await s.execute(
                    select(SeatRow, Player.bot)
                    .join(Player, Player.id == SeatRow.player_id)
                    .where(SeatRow.table_id == tid)
                )
            ]
            chat = list(
                await s.scalars(
                    select(ChatRow)
                    .where(ChatRow.table_id == tid)
                    .order_by(ChatRow.id.desc())
                    .limit(CHAT_KEPT)
                )
            )
            hand: StoredHand | None = None
            open_hand = await s.scalar(
                select(HandRow)
                .where(HandRow.table_id == tid, HandRow.ended_at.is_(None))
                .order_by(HandRow.number.desc())
                .limit(1)
            )
            if open_hand is not None:
                actions = list(
                    await s.scalars(
                        select(HandActionRow)
                        .where(HandActionRow.hand_id == open_hand.id)
                        .order_by(HandActionRow.counter)
                    )
                )
                # How long the player to act has had: since the last stored action (or the
                # deal), on the database's clock, which stamped both.
                last = actions[-1].created_at if actions else open_hand.started_at
                now = await s.scalar(select(func.current_timestamp()))
                hand = StoredHand(
                    id=str(open_hand.id),
                    number=open_hand.number,
                    record=open_hand.record,
                    deck=list(open_hand.deck),
                    actions=[
                        {"player": a.player, "kind": a.kind, "amount": a.amount, "agree": a.agree}
                        for a in actions
                    ],
                    elapsed=_seconds_between(last, now),
                    deal=open_hand.deal,
                )
            deal_seed = await self.current_seed(s, tid)
            last_blinds = await self.last_blinds(s, tid)
            return StoredTable(
                id=str(row.id),
                code=row.code,
                host_id=str(row.host_id),
                config=TableConfig.model_validate(row.config),
                button=row.button,
                paused=row.paused,
                hand_number=row.hand_number,
                seats=seats,
                hand=hand,
                next_config=TableConfig.model_validate(row.next_config)
                if row.next_config
                else None,
                requests=list(row.requests or []),
                bomb_pot_next=row.bomb_pot_next,
                deal_seed=deal_seed,
                last_blinds=last_blinds,
                chat=[
                    {
                        "player_id": str(c.player_id),
                        "name": c.name,
                        "seat": c.seat,
                        "text": c.text,
                    }
                    for c in reversed(chat)
                ],
            )

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
                )
            )

    async def close_table(self, table_id: str) -> None:
        async with self.sessions.begin() as s:
            await self._fence(s, table_id)
            await s.execute(
                update(TableRow)
                .where(TableRow.id == uuid.UUID(table_id))
                .values(closed_at=_now(), paused=True)
            )

    async def hosted_open_tables(self, host_id: str) -> int:
        async with self.sessions() as s:
            count = await s.scalar(
                select(func.count())
                .select_from(TableRow)
                .where(TableRow.host_id == uuid.UUID(host_id), TableRow.closed_at.is_(None))
            )
            return int(count or 0)

    async def _put_seats(
        self, s: AsyncSession | AsyncConnection, table_id: str, seats: list[Seat]
    ) -> None:
        if not seats:
            return
        await s.execute(_UPDATE_SEAT, self._seat_params(table_id, seats))

    @staticmethod
    def _seat_params(table_id: str, seats: list[Seat]) -> list[dict[str, Any]]:
        tid = uuid.UUID(table_id)
        rows = []
        for seat in seats:
            values = _seat_row(tid, seat)
            row = {name: values[name] for name in _SEAT_FIELDS}
            row["b_table_id"], row["b_number"] = tid, seat.number
            rows.append(row)
        return rows

    def _ledger(self, table_id: str, player_id: str, kind: str, amount: int) -> LedgerEntry:
        return LedgerEntry(
            table_id=uuid.UUID(table_id), player_id=uuid.UUID(player_id), kind=kind, amount=amount
        )

    async def seat_player(self, table_id: str, seat: Seat, buy_in: int) -> None:
        async with self.sessions.begin() as s:
            await self._fence(s, table_id)
            s.add(SeatRow(**_seat_row(uuid.UUID(table_id), seat)))
            s.add(self._ledger(table_id, seat.player_id, "buy_in", buy_in))

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
            s.add(SeatRow(**_seat_row(uuid.UUID(table_id), seat)))
            s.add(self._ledger(table_id, seat.player_id, "buy_in", buy_in))

    async def save_switches(self, table_id: str, seat: Seat) -> None:
        await self._update_seat(
            table_id,
            seat.number,
            sitting_out=seat.sitting_out,
            sit_out_next=seat.sit_out_next,
            sit_out_next_bb=seat.sit_out_next_bb,
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

    async def ledger_totals(self, table_id: str) -> list[LedgerTotal]:
        async with self.sessions() as s:
            rows = await s.execute(
                _ledger_of(
                    table_id, Player.bot, LedgerEntry.kind, func.sum(LedgerEntry.amount)
                ).group_by(LedgerEntry.player_id, Player.display_name, Player.bot, LedgerEntry.kind)
            )
            return [
                LedgerTotal(str(pid), name, bool(bot), kind, int(total))
                for pid, name, bot, kind, total in rows
            ]

    async def update_seats(self, table_id: str, seats: list[Seat]) -> None:
        async with self.sessions.begin() as s:
            await self._fence(s, table_id)
            await self._put_seats(s, table_id, seats)

    async def add_chips(self, table_id: str, seat: Seat, amount: int, kind: str) -> None:
        """Through the group writer: top-ups come between hands, on many tables at once."""
        loop = asyncio.get_running_loop()
        ledger = {
            "table_id": uuid.UUID(table_id),
            "player_id": uuid.UUID(seat.player_id),
            "kind": kind,
            "amount": amount,
        }
        item = _Write(
            loop.create_future(),
            uuid.UUID(table_id),
            self._epoch(table_id),
            ledger=ledger,
            seats=self._seat_params(table_id, [seat]),
        )
        await item.submitted(self._append_queue(loop))

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

    async def adjustments(self, table_id: str) -> list[Adjustment]:
        async with self.sessions() as s:
            rows = await s.execute(
                _ledger_of(table_id, LedgerEntry.amount, LedgerEntry.reason)
                .where(LedgerEntry.kind == "adjustment")
                .order_by(LedgerEntry.id)
            )
            return [
                Adjustment(str(pid), name, int(amount), reason or "")
                for pid, name, amount, reason in rows
            ]

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
        tid = uuid.UUID(table_id)
        over = hand.state.complete  # over as dealt: stored ended, `seats` hold its result
        row = {
            "id": uuid.UUID(hand.id),
            "table_id": tid,
            "number": hand.number,
            "record": hand.record(),
            "deck": list(deck),
            "result": {"stacks": {str(seat.number): seat.stack for seat in seats}}
            if over
            else None,
            "ended_at": _now() if over else None,
            "game": hand.state.config.game.key,
            "pot": awarded(hand.state) if over else None,
            "deal": hand.deal.stored() if hand.deal is not None else None,
        }
        players = [
            {"hand_id": row["id"], "position": p, "player_id": uuid.UUID(player)}
            for p, player in enumerate(hand.players)
        ]
        loop = asyncio.get_running_loop()
        item = _Write(
            loop.create_future(),
            tid,
            self._epoch(table_id),
            hand=row,
            players=players,
            button={"b_id": tid, "button": button, "hand_number": hand_number},
            seats=self._seat_params(table_id, seats),
        )
        await item.submitted(self._append_queue(loop))

    async def record_action(
        self,
        table_id: str,
        hand: Hand,
        counter: int,
        action: Action,
        final: list[Seat] | None,
        spent: Seat | None = None,
    ) -> None:
        """Group commit: the append waits in a queue that a few writer tasks drain, each
        committing everything pending (up to `APPEND_BATCH` tables' actions) in one
        transaction; this returns once the transaction carrying this action has committed.
        A table has at most one append pending (its actor awaits it), so order is kept."""
        hid = uuid.UUID(hand.id)
        row = {
            "hand_id": hid,
            "counter": counter,
            "player": action.player,
            "kind": str(action.kind),
            "amount": action.amount,
            "agree": action.agree,
        }
        end: dict[str, Any] | None = None
        seats: list[dict[str, Any]] = []
        if final is not None:
            result = {"stacks": {str(seat.number): seat.stack for seat in final}}
            end = {"b_id": hid, "result": result, "ended_at": _now(), "pot": awarded(hand.state)}
            seats = self._seat_params(table_id, final)
        elif spent is not None:
            seats = self._seat_params(table_id, [spent])
        loop = asyncio.get_running_loop()
        item = _Write(
            loop.create_future(),
            uuid.UUID(table_id),
            self._epoch(table_id),
            action=row,
            end=end,
            seats=seats,
        )
        await item.submitted(self._append_queue(loop))

    def _append_queue(self, loop: asyncio.AbstractEventLoop) -> asyncio.Queue[_Write]:
        if self._appends is None or self._appends_loop is not loop:
            queue: asyncio.Queue[_Write] = asyncio.Queue()
            self._appends, self._appends_loop = queue, loop
            self._writers = [
                loop.create_task(self._write_appends(queue)) for _ in range(APPEND_WRITERS)
            ]
        return self._appends

    async def close(self) -> None:
        """Stop the group writers and close their connections (pending writes are refused)."""
        writers, self._writers, self._appends = self._writers, [], None
        for task in writers:
            task.cancel()
        if writers:
            await asyncio.wait(writers)

    async def _write_appends(self, queue: asyncio.Queue[_Write]) -> None:
        link = _Link(self._dsn) if self._asyncpg else None
        try:
            while True:
                batch = [await queue.get()]
                while len(batch) < APPEND_BATCH and not queue.empty():
                    batch.append(queue.get_nowait())
                batch = [item for item in batch if not item.withdrawn]
                if not batch:
                    continue
                for item in batch:
                    item.sent = True
                try:
                    refused = await self._commit_appends(batch, link)
                except Exception as error:
                    if len(batch) == 1:
                        _settle(batch[0], error)
                        continue
                    # One bad write must not refuse the others: each on its own.
                    for item in batch:
                        try:
                            refused = await self._commit_appends([item], link)
                        except Exception as own:
                            _settle(item, own)
                        else:
                            _settle_fenced(item, refused)
                else:
                    for item in batch:
                        _settle_fenced(item, refused)
        finally:
            if link is not None:
                link.close()
            while not queue.empty():
                _settle(queue.get_nowait(), ConnectionError("the store is closing"))

    async def _commit_appends(
        self, batch: list[_Write], link: _Link | None = None
    ) -> set[uuid.UUID]:
        """One transaction for the batch: each kind of row in one `executemany`, in an order
        that keeps foreign keys (a batch holds at most one write per table, and a hand's row
        was committed before its first action was accepted). Returns the tables whose epoch
        moved on: nothing of theirs was written."""
        if link is not None:
            pg = await link.get()
            return await self._commit_asyncpg(pg, batch)
        async with self.engine.begin() as c:
            refused = set()
            for w in batch:
                if w.epoch is not None:
                    fence = {"b_id": w.table_id, "b_epoch": w.epoch}
                    if (await c.execute(_FENCE, fence)).rowcount != 1:
                        refused.add(w.table_id)
            batch = [w for w in batch if w.table_id not in refused]
            for statement, rows in zip(
                (_INSERT_HAND, _INSERT_HAND_PLAYER, _MOVE_BUTTON, _INSERT_ACTION, _END_HAND,
                 _INSERT_LEDGER, _UPDATE_SEAT),
                _rows(batch),
                strict=True,
            ):  # fmt: skip
                if rows:
                    await c.execute(statement, rows)
            return refused

    @staticmethod
    async def _commit_asyncpg(pg: Any, batch: list[_Write]) -> set[uuid.UUID]:
        hands, players, buttons, actions, ends, ledger, seats = _rows(batch)
        hand_columns = _columns(hands, "id", "table_id", "number", "record", "deck", "result",
                                "ended_at", "game", "pot", "deal")  # fmt: skip
        hand_columns[4] = [seal(v) for v in hand_columns[4]]  # the ORM type does it otherwise
        hand_columns[9] = [_json(None if v is None else seal_value(v)) for v in hand_columns[9]]
        for k in (3, 4, 5):
            hand_columns[k] = [_json(v) for v in hand_columns[k]]
        end_columns = _columns(ends, "b_id", "result", "ended_at", "pot")
        end_columns[1] = [_json(v) for v in end_columns[1]]
        refused = await pg.fetch(
            _PG_GROUP,
            *hand_columns[:7],
            *_columns(buttons, "b_id", "button", "hand_number"),
            *_columns(actions, "hand_id", "counter", "player", "kind", "amount", "agree"),
            *end_columns[:3],
            *_columns(ledger, "table_id", "player_id", "kind", "amount"),
            *_columns(seats, "b_table_id", "b_number", *_SEAT_FIELDS),
            *hand_columns[7:9],
            *_columns(players, "hand_id", "position", "player_id"),
            end_columns[3],
            hand_columns[9],
            [w.table_id for w in batch],
            [w.epoch for w in batch],
            [w.table_id for w in batch if w.action is not None],
            [w.table_id for w in batch if w.end is not None],
        )
        return {row[0] for row in refused}

    # -------------------------------------------------------------- for checks and tests
    async def ledger_balance(self, table_id: str) -> int:
        """Chips that entered the table minus chips that left it."""
        tid = uuid.UUID(table_id)
        async with self.sessions() as s:
            rows = await s.execute(
                select(LedgerEntry.kind, func.sum(LedgerEntry.amount))
                .where(LedgerEntry.table_id == tid)
                .group_by(LedgerEntry.kind)
            )
            return sum(int(total) * (1 if kind in LEDGER_IN else -1) for kind, total in rows)

    async def stacks_total(self, table_id: str) -> int:
        async with self.sessions() as s:
            total = await s.scalar(
                select(func.coalesce(func.sum(SeatRow.stack), 0)).where(
                    SeatRow.table_id == uuid.UUID(table_id)
                )
            )
            return int(total or 0)

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
