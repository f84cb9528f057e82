"""The rows of the table store's hot path, declared once: what a table's deal, action or
top-up writes, as one `TableWrite` of typed rows.

Each row class names the table it writes (`TABLE`) and, for an update, the columns that find
its row (`KEY`); its fields are that table's columns by name, except those in `FENCED_BY`:
the table whose fence the row passes, not written. Both back
ends are built from these declarations (`app.store.group_sql`): SQLAlchemy Core statements on
SQLite, one PostgreSQL statement taking each kind of row as one JSON parameter. A column
added to a row here is written by both; the seat's columns (`SEAT_COLUMNS`) are also what
`load_table` reads back into a `Seat`.

A row holds what is stored, as stored: the deck and the deal already sealed
(`app.store.decks`), ids as UUIDs. Rows are plain dataclasses, built once per write on the
hot path and not changed after: a frozen one costs six times as much to build, and orjson
writes a slotted one three times slower (bench/store_group.py measures the whole write).
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field, fields
from datetime import UTC, datetime
from typing import Any, ClassVar

from app.poker import Action
from app.store.decks import seal, seal_value
from app.tables.hand import Hand, awarded
from app.tables.seat import Seat


def now() -> datetime:
    return datetime.now(UTC)


@dataclass
class Fence:
    """A table a group writes for, and the epoch this process took it with (None: not fenced):
    the write is refused unless the table's `owner_epoch` is still that."""

    TABLE: ClassVar[str] = "tables"
    KEY: ClassVar[tuple[str, ...]] = ("id",)
    FENCED_BY: ClassVar[tuple[str, ...]] = ()
    id: uuid.UUID
    owner_epoch: int | None


@dataclass
class HandInsert:
    """A new hand: its setup (`record`), its sealed deck; its result too if over as dealt."""

    TABLE: ClassVar[str] = "hands"
    KEY: ClassVar[tuple[str, ...]] = ()
    FENCED_BY: ClassVar[tuple[str, ...]] = ()
    id: uuid.UUID
    table_id: uuid.UUID
    number: int
    record: dict[str, Any]
    deck: dict[str, Any]
    result: dict[str, Any] | None
    ended_at: datetime | None
    game: str
    pot: int | None
    deal: dict[str, Any] | None


@dataclass
class HandPlayerInsert:
    """Who was dealt in, by position (the hand's `serial` is the database's: read back)."""

    TABLE: ClassVar[str] = "hand_players"
    KEY: ClassVar[tuple[str, ...]] = ()
    FENCED_BY: ClassVar[tuple[str, ...]] = ()
    hand_id: uuid.UUID
    position: int
    player_id: uuid.UUID


@dataclass
class ButtonUpdate:
    TABLE: ClassVar[str] = "tables"
    KEY: ClassVar[tuple[str, ...]] = ("id",)
    FENCED_BY: ClassVar[tuple[str, ...]] = ()
    id: uuid.UUID
    button: int
    hand_number: int


@dataclass
class ActionInsert:
    TABLE: ClassVar[str] = "hand_actions"
    KEY: ClassVar[tuple[str, ...]] = ()
    FENCED_BY: ClassVar[tuple[str, ...]] = ("table_id",)
    hand_id: uuid.UUID
    counter: int
    player: int
    kind: str
    amount: int | None
    agree: bool | None
    table_id: uuid.UUID


@dataclass
class HandEnd:
    TABLE: ClassVar[str] = "hands"
    KEY: ClassVar[tuple[str, ...]] = ("id",)
    FENCED_BY: ClassVar[tuple[str, ...]] = ("table_id",)
    id: uuid.UUID
    result: dict[str, Any]
    ended_at: datetime
    pot: int
    table_id: uuid.UUID


@dataclass
class LedgerInsert:
    TABLE: ClassVar[str] = "ledger"
    KEY: ClassVar[tuple[str, ...]] = ()
    FENCED_BY: ClassVar[tuple[str, ...]] = ()
    table_id: uuid.UUID
    player_id: uuid.UUID
    kind: str
    amount: int


@dataclass
class SeatUpdate:
    """A seat's stack and flags (its other columns have writes of their own: switches, client
    seed, away, an adjustment's reasons)."""

    TABLE: ClassVar[str] = "seats"
    KEY: ClassVar[tuple[str, ...]] = ("table_id", "number")
    FENCED_BY: ClassVar[tuple[str, ...]] = ()
    table_id: uuid.UUID
    number: int
    player_id: uuid.UUID
    name: str
    stack: int
    sitting_out: bool
    waiting: bool
    post: bool
    time_bank: float
    leaving: bool
    removed: bool
    straddle: bool
    pending_top_up: int
    pending_adjust: int
    missed_blinds: int


#: a seat's columns that are its `Seat` attributes of the same name, as they are
SEAT_COLUMNS = tuple(f.name for f in fields(SeatUpdate) if f.name not in ("table_id", "player_id"))
#: those of them that say where the seat stands in the game (its `status`)
SEAT_FLAGS = ("sitting_out", "waiting", "post", "leaving", "removed")

Row = (
    HandInsert
    | HandPlayerInsert
    | ButtonUpdate
    | ActionInsert
    | HandEnd
    | LedgerInsert
    | SeatUpdate
)


@dataclass(slots=True)
class TableWrite:
    """One table's write through the group writer: a new hand (its row, who was dealt in, the
    button, the seats as dealt), an accepted action (at a hand's end with the result and the
    seats' new stacks), or chips added (a ledger entry and the seat). A group commits at most
    one per table."""

    table_id: uuid.UUID
    epoch: int | None
    hand: HandInsert | None = None
    players: list[HandPlayerInsert] = field(default_factory=list)
    button: ButtonUpdate | None = None
    action: ActionInsert | None = None
    end: HandEnd | None = None
    ledger: LedgerInsert | None = None
    seats: list[SeatUpdate] = field(default_factory=list)


#: each kind of row of a `TableWrite` (its attribute, its class), in the order a group writes
#: them: foreign keys first (a hand before its players, its actions and its end)
ROW_SETS: tuple[tuple[str, type[Row]], ...] = (
    ("hand", HandInsert),
    ("players", HandPlayerInsert),
    ("button", ButtonUpdate),
    ("action", ActionInsert),
    ("end", HandEnd),
    ("ledger", LedgerInsert),
    ("seats", SeatUpdate),
)


def rows_of(writes: list[TableWrite]) -> list[list[Any]]:
    """The writes' rows, one list per kind (`ROW_SETS`' order)."""
    out: list[list[Any]] = []
    for name, _ in ROW_SETS:
        rows: list[Any] = []
        for w in writes:
            value = getattr(w, name)
            if isinstance(value, list):
                rows.extend(value)
            elif value is not None:
                rows.append(value)
        out.append(rows)
    return out


def seat_update(table_id: uuid.UUID, seat: Seat) -> SeatUpdate:
    return SeatUpdate(
        table_id=table_id,
        player_id=uuid.UUID(seat.player_id),
        **{name: getattr(seat, name) for name in SEAT_COLUMNS},
    )


def _stacks(seats: list[Seat]) -> dict[str, Any]:
    return {"stacks": {str(seat.number): seat.stack for seat in seats}}


def deal_write(
    table_id: str,
    epoch: int | None,
    hand: Hand,
    deck: list[int],
    seats: list[Seat],
    button: int,
    hand_number: int,
) -> TableWrite:
    """A new hand; one over as dealt (`hand.state.complete`) is stored ended, with its result:
    `seats` then hold it."""
    tid, hid = uuid.UUID(table_id), uuid.UUID(hand.id)
    over = hand.state.complete
    row = HandInsert(
        id=hid,
        table_id=tid,
        number=hand.number,
        record=hand.record(),
        deck=seal(deck),
        result=_stacks(seats) if over else None,
        ended_at=now() if over else None,
        game=hand.state.config.game.key,
        pot=awarded(hand.state) if over else None,
        deal=seal_value(hand.deal.stored()) if hand.deal is not None else None,
    )
    return TableWrite(
        tid,
        epoch,
        hand=row,
        players=[
            HandPlayerInsert(hid, p, uuid.UUID(player)) for p, player in enumerate(hand.players)
        ],
        button=ButtonUpdate(tid, button, hand_number),
        seats=[seat_update(tid, seat) for seat in seats],
    )


def action_write(
    table_id: str,
    epoch: int | None,
    hand: Hand,
    counter: int,
    action: Action,
    final: list[Seat] | None,
    spent: Seat | None,
) -> TableWrite:
    """An accepted action; with `final` (the hand is over) its result and the seats' new
    stacks; with `spent`, the actor's seat (its time bank used)."""
    tid, hid = uuid.UUID(table_id), uuid.UUID(hand.id)
    row = ActionInsert(
        hid, counter, action.player, str(action.kind), action.amount, action.agree, tid
    )
    end = None
    seats = final if final is not None else [spent] if spent is not None else []
    if final is not None:
        end = HandEnd(hid, _stacks(final), now(), awarded(hand.state), tid)
    return TableWrite(tid, epoch, action=row, end=end, seats=[seat_update(tid, s) for s in seats])


def chips_write(table_id: str, epoch: int | None, seat: Seat, amount: int, kind: str) -> TableWrite:
    """Chips added to a seat (`seat.stack` includes them): a ledger entry and the seat."""
    tid = uuid.UUID(table_id)
    entry = LedgerInsert(tid, uuid.UUID(seat.player_id), kind, amount)
    return TableWrite(tid, epoch, ledger=entry, seats=[seat_update(tid, seat)])
