"""The table's writes and reads of its store, as data: what the machine asks the actor to store
(`effects.Write`) or read (`effects.Read`). Each knows the one store call it stands for
(`call`), so the machine never calls the store and a test can read what would be stored.

`queued`: through the group writer (the hot path: every action, deal and top-up), which
hands back its doubt itself when it is late (app/tables/writes.py).
"""

from __future__ import annotations

from collections.abc import Coroutine, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from app.poker import Action
from app.tables.clock import TurnClock
from app.tables.config import TableConfig
from app.tables.hand import Hand
from app.tables.preferences import Preferences
from app.tables.seat import Seat, SeatRequest
from app.tables.store_protocol import LedgerTotal, TableStore

Call = Coroutine[Any, Any, None]


@dataclass(slots=True)
class StoreOp:
    queued: ClassVar[bool] = False

    def call(self, store: TableStore, table_id: str) -> Call:
        raise NotImplementedError


@dataclass(slots=True)
class SaveTable(StoreOp):
    """The table's own state, with what applies later (next stakes, seat requests)."""

    host_id: str
    config: TableConfig
    button: int | None
    paused: bool
    hand_number: int
    next_config: TableConfig | None
    requests: Mapping[str, SeatRequest]
    turn_clock: TurnClock | None = None

    def call(self, store: TableStore, table_id: str) -> Call:
        clock = self.turn_clock
        return store.save_table(
            table_id, host_id=self.host_id, config=self.config, button=self.button,
            paused=self.paused, hand_number=self.hand_number, next_config=self.next_config,
            requests=[r.stored() for r in self.requests.values()],
            turn_clock=clock.stored() if clock is not None else None,
        )  # fmt: skip


@dataclass(slots=True)
class CloseTable(StoreOp):
    def call(self, store: TableStore, table_id: str) -> Call:
        return store.close_table(table_id)


@dataclass(slots=True)
class SeatPlayer(StoreOp):
    seat: Seat
    buy_in: int
    bot: bool = False

    def call(self, store: TableStore, table_id: str) -> Call:
        if self.bot:
            return store.seat_bot(table_id, self.seat, self.buy_in)
        return store.seat_player(table_id, self.seat, self.buy_in)


@dataclass(slots=True)
class UpdateSeats(StoreOp):
    """Seat flags and stacks; no chips move."""

    seats: tuple[Seat, ...]

    def call(self, store: TableStore, table_id: str) -> Call:
        return store.update_seats(table_id, list(self.seats))


@dataclass(slots=True)
class AddChips(StoreOp):
    """`seat.stack` includes `amount` already: a `top_up` (or `adjustment`) entry."""

    queued: ClassVar[bool] = True
    seat: Seat
    amount: int
    kind: str

    def call(self, store: TableStore, table_id: str) -> Call:
        return store.add_chips(table_id, self.seat, self.amount, self.kind)


@dataclass(slots=True)
class Adjust(StoreOp):
    """A host's adjustment with its reason; `seat.stack` includes it already."""

    seat: Seat
    amount: int
    reason: str

    def call(self, store: TableStore, table_id: str) -> Call:
        return store.adjust(table_id, self.seat, self.amount, self.reason)


@dataclass(slots=True)
class HoldAdjustment(StoreOp):
    seat: Seat

    def call(self, store: TableStore, table_id: str) -> Call:
        return store.hold_adjustment(table_id, self.seat)


@dataclass(slots=True)
class CashOut(StoreOp):
    seat: Seat

    def call(self, store: TableStore, table_id: str) -> Call:
        return store.cash_out(table_id, self.seat)


@dataclass(slots=True)
class SaveSwitches(StoreOp):
    """A seat's sitting out and its sit-out switches."""

    seat: Seat

    def call(self, store: TableStore, table_id: str) -> Call:
        return store.save_switches(table_id, self.seat)


@dataclass(slots=True)
class SavePreferences(StoreOp):
    """The seat's showdown preferences: the player's, and the seat's copy."""

    seat: Seat

    def call(self, store: TableStore, table_id: str) -> Call:
        return store.save_preferences(table_id, self.seat)


@dataclass(slots=True)
class SetBombPotNext(StoreOp):
    on: bool

    def call(self, store: TableStore, table_id: str) -> Call:
        return store.set_bomb_pot_next(table_id, self.on)


@dataclass(slots=True)
class AddChat(StoreOp):
    player_id: str
    name: str
    seat: int | None
    text: str

    def call(self, store: TableStore, table_id: str) -> Call:
        return store.add_chat(table_id, self.player_id, self.name, self.seat, self.text)


@dataclass(slots=True)
class StartHand(StoreOp):
    """A new hand and its dealt seats (a hand over as dealt: stored ended, with its result)."""

    queued: ClassVar[bool] = True
    hand: Hand
    deck: tuple[int, ...]
    seats: tuple[Seat, ...]
    button: int
    number: int

    def call(self, store: TableStore, table_id: str) -> Call:
        return store.start_hand(
            table_id, self.hand, list(self.deck), list(self.seats), self.button, self.number
        )


@dataclass(slots=True)
class RecordAction(StoreOp):
    """An accepted action; `final`: the hand is over, these seats hold its result; `spent`:
    the seat whose time bank the action used."""

    queued: ClassVar[bool] = True
    hand: Hand
    counter: int
    action: Action
    final: tuple[Seat, ...] | None
    spent: Seat | None = None

    def call(self, store: TableStore, table_id: str) -> Call:
        final = list(self.final) if self.final is not None else None
        return store.record_action(table_id, self.hand, self.counter, self.action, final,
                                   self.spent)  # fmt: skip


@dataclass(slots=True)
class NoteHand(StoreOp):
    """The notes asked for once a hand was over (its rabbit hunt, cards a player showed):
    all of them, kept in the hand's record (app/tables/after.py)."""

    hand_id: str
    after: tuple[dict[str, Any], ...]

    def call(self, store: TableStore, table_id: str) -> Call:
        return store.note_hand(table_id, self.hand_id, [dict(n) for n in self.after])


@dataclass(slots=True)
class StartDealSeed(StoreOp):
    seed_id: str
    seed: bytes
    digest: str

    def call(self, store: TableStore, table_id: str) -> Call:
        return store.start_deal_seed(table_id, self.seed_id, self.seed, self.digest)


@dataclass(slots=True)
class EndDealSeed(StoreOp):
    """End a session's seed (`reveal`: it may be shown), and start the next one (`new`)."""

    seed_id: str | None
    reveal: bool
    new: tuple[str, bytes, str] | None

    def call(self, store: TableStore, table_id: str) -> Call:
        return store.end_deal_seed(table_id, self.seed_id, self.reveal, self.new)


@dataclass(slots=True)
class SetClientSeed(StoreOp):
    seat: int
    seed: str

    def call(self, store: TableStore, table_id: str) -> Call:
        return store.set_client_seed(table_id, self.seat, self.seed)


@dataclass(slots=True)
class SetAway(StoreOp):
    """When the seat's player went away (wall clock), or None: back."""

    seat: int
    since: float | None

    def call(self, store: TableStore, table_id: str) -> Call:
        return store.set_away(table_id, self.seat, self.since)


@dataclass(slots=True)
class NoteWatching(StoreOp):
    """Who watched the hands, `(player, first, last)` each (app/tables/watching.py): a
    `Note`, which the table does not wait for."""

    visits: tuple[tuple[str, int, int], ...]

    def call(self, store: TableStore, table_id: str) -> Call:
        return store.note_watching(table_id, list(self.visits))


@dataclass(slots=True)
class LedgerTotals:
    """A read: every player's ledger totals per kind."""

    def call(self, store: TableStore, table_id: str) -> Coroutine[Any, Any, list[LedgerTotal]]:
        return store.ledger_totals(table_id)

    @staticmethod
    def unread() -> list[LedgerTotal]:
        """What an empty store answers (the machine run alone: `TableMachine.run`)."""
        return []


@dataclass(slots=True)
class PreferencesOf:
    """A read: a player's showdown preferences, for the seat they are taking."""

    player_id: str

    def call(self, store: TableStore, table_id: str) -> Coroutine[Any, Any, Preferences]:
        return store.preferences_of(self.player_id)

    @staticmethod
    def unread() -> Preferences:
        return Preferences()


ReadOp = LedgerTotals | PreferencesOf
