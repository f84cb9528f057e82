"""What the table actor needs from durable storage, and an in-memory version of it.

The actor writes through this interface and waits for each write to be committed before it
tells anyone. `app.store.repository.SqlTableStore` is the real one (SQLite or PostgreSQL);
`MemoryTableStore` keeps the same contract in a dict, for tests of the actor alone.

The ledger: every chip that enters a table is a `buy_in`, `top_up` or `adjustment` entry,
every chip that leaves it a `cash_out`. Seat stacks are stored as they stand between hands
(during a hand, as the hand started), so at every committed moment
``buy-ins + top-ups + adjustments - cash-outs == sum of stored seat stacks``, and the stored
stacks of the players in a hand equal their live stacks plus the chips in the middle.
"""

from __future__ import annotations

import copy
import uuid
from dataclasses import dataclass, field
from typing import Any, Protocol

from app.poker import Action
from app.tables.config import TableConfig
from app.tables.hand import Hand, action_to_json
from app.tables.seat import Seat

LEDGER_IN = ("buy_in", "top_up", "adjustment")
#: chat messages a table keeps, and reloads after a restart, for its snapshot
CHAT_KEPT = 100


@dataclass
class StoredHand:
    id: str
    number: int
    record: dict[str, Any]
    deck: list[int]
    actions: list[dict[str, Any]]


@dataclass
class StoredTable:
    id: str
    code: str
    host_id: str
    config: TableConfig
    button: int | None = None
    paused: bool = False
    hand_number: int = 0
    seats: list[Seat] = field(default_factory=list)
    hand: StoredHand | None = None
    bomb_pot_next: bool = False
    chat: list[dict[str, Any]] = field(default_factory=list)  # the latest, oldest first


@dataclass(frozen=True)
class LedgerTotal:
    """One player's total of one kind of ledger entry at a table."""

    player_id: str
    name: str
    bot: bool
    kind: str
    amount: int


class TableStore(Protocol):
    async def create_table(self, host_id: str, config: TableConfig, code: str) -> str: ...

    async def open_tables(self) -> list[str]: ...

    async def load_table(self, table_id: str) -> StoredTable: ...

    async def save_table(
        self,
        table_id: str,
        *,
        host_id: str,
        config: TableConfig,
        button: int | None,
        paused: bool,
        hand_number: int,
    ) -> None: ...

    async def seat_player(self, table_id: str, seat: Seat, buy_in: int) -> None:
        """Insert the seat (its stack is the buy-in) and a `buy_in` ledger entry."""

    async def update_seats(self, table_id: str, seats: list[Seat]) -> None:
        """Store seat flags and stacks; no chips move (no ledger entry)."""

    async def add_chips(self, table_id: str, seat: Seat, amount: int, kind: str) -> None:
        """`seat.stack` already includes `amount`; record it as `top_up` or `adjustment`."""

    async def cash_out(self, table_id: str, seat: Seat) -> None:
        """Record a `cash_out` of `seat.stack` and free the seat."""

    async def seat_bot(self, table_id: str, seat: Seat, buy_in: int) -> None:
        """`seat_player` for a practice bot: also creates its player (marked a bot) if new."""

    async def save_switches(self, table_id: str, seat: Seat) -> None:
        """Store a seat's sitting out and its sit-out switches."""

    async def set_bomb_pot_next(self, table_id: str, on: bool) -> None:
        """Store whether the next hand is a bomb pot called by the host."""

    async def add_chat(
        self, table_id: str, player_id: str, name: str, seat: int | None, text: str
    ) -> None:
        """Store a chat message."""

    async def ledger_totals(self, table_id: str) -> list[LedgerTotal]:
        """Every player's ledger totals per kind, with their name and whether a bot."""

    async def start_hand(
        self,
        table_id: str,
        hand: Hand,
        deck: list[int],
        seats: list[Seat],
        button: int,
        hand_number: int,
    ) -> None:
        """Store a new hand and the dealt seats; a hand over as dealt (`hand.state.complete`)
        is stored ended, with its result: the seats' stacks are then already its result."""

    async def record_action(
        self, table_id: str, hand: Hand, counter: int, action: Action, final: list[Seat] | None
    ) -> None:
        """Append an accepted action; with `final` (the hand is over) also store the result
        and the seats' new stacks, in the same transaction."""


class MemoryTableStore:
    """The store contract in memory (tests of the actor alone). Writes can be made to fail."""

    def __init__(self) -> None:
        self.tables: dict[str, StoredTable] = {}
        self.ledger: list[tuple[str, str, str, int]] = []  # table, player, kind, amount
        self.fail_next = 0
        self.players: dict[str, tuple[str, bool]] = {}  # player -> (name, bot)
        self.after_end: list[tuple[str, dict[str, Any]]] = []  # actions after a hand ended

    def _check(self) -> None:
        if self.fail_next:
            self.fail_next -= 1
            raise OSError("simulated database failure")

    async def create_table(self, host_id: str, config: TableConfig, code: str) -> str:
        table_id = str(uuid.uuid4())
        self.tables[table_id] = StoredTable(table_id, code, host_id, config)
        return table_id

    async def open_tables(self) -> list[str]:
        return list(self.tables)

    async def load_table(self, table_id: str) -> StoredTable:
        return copy.deepcopy(self.tables[table_id])

    async def save_table(
        self,
        table_id: str,
        *,
        host_id: str,
        config: TableConfig,
        button: int | None,
        paused: bool,
        hand_number: int,
    ) -> None:
        self._check()
        t = self.tables[table_id]
        t.host_id, t.config, t.button, t.paused, t.hand_number = (
            host_id,
            config,
            button,
            paused,
            hand_number,
        )

    def _put_seat(self, table_id: str, seat: Seat) -> None:
        t = self.tables[table_id]
        t.seats = [s for s in t.seats if s.number != seat.number] + [copy.deepcopy(seat)]

    async def seat_player(self, table_id: str, seat: Seat, buy_in: int) -> None:
        self._check()
        self._put_seat(table_id, seat)
        self.players.setdefault(seat.player_id, (seat.name, seat.bot))
        self.ledger.append((table_id, seat.player_id, "buy_in", buy_in))

    async def seat_bot(self, table_id: str, seat: Seat, buy_in: int) -> None:
        await self.seat_player(table_id, seat, buy_in)

    async def save_switches(self, table_id: str, seat: Seat) -> None:
        self._check()
        self._put_seat(table_id, seat)

    async def set_bomb_pot_next(self, table_id: str, on: bool) -> None:
        self._check()
        self.tables[table_id].bomb_pot_next = on

    async def add_chat(
        self, table_id: str, player_id: str, name: str, seat: int | None, text: str
    ) -> None:
        self._check()
        entry = {"player_id": player_id, "name": name, "seat": seat, "text": text}
        self.tables[table_id].chat.append(entry)

    async def ledger_totals(self, table_id: str) -> list[LedgerTotal]:
        totals: dict[tuple[str, str], int] = {}
        for t, player, kind, amount in self.ledger:
            if t == table_id:
                totals[player, kind] = totals.get((player, kind), 0) + amount
        return [
            LedgerTotal(player, *self.players.get(player, (player[:8], False)), kind, amount)
            for (player, kind), amount in totals.items()
        ]

    async def update_seats(self, table_id: str, seats: list[Seat]) -> None:
        self._check()
        for seat in seats:
            self._put_seat(table_id, seat)

    async def add_chips(self, table_id: str, seat: Seat, amount: int, kind: str) -> None:
        self._check()
        self._put_seat(table_id, seat)
        self.ledger.append((table_id, seat.player_id, kind, amount))

    async def cash_out(self, table_id: str, seat: Seat) -> None:
        self._check()
        t = self.tables[table_id]
        t.seats = [s for s in t.seats if s.number != seat.number]
        self.ledger.append((table_id, seat.player_id, "cash_out", seat.stack))

    async def start_hand(
        self,
        table_id: str,
        hand: Hand,
        deck: list[int],
        seats: list[Seat],
        button: int,
        hand_number: int,
    ) -> None:
        self._check()
        t = self.tables[table_id]
        t.hand = StoredHand(hand.id, hand.number, hand.record(), list(deck), [])
        if hand.state.complete:
            t.hand = None
        t.button, t.hand_number = button, hand_number
        for seat in seats:
            self._put_seat(table_id, seat)

    async def record_action(
        self, table_id: str, hand: Hand, counter: int, action: Action, final: list[Seat] | None
    ) -> None:
        self._check()
        t = self.tables[table_id]
        if t.hand is None and hand.state.complete and final is None:
            self.after_end.append((hand.id, action_to_json(action)))  # a show after it ended
            return
        assert t.hand is not None and t.hand.id == hand.id
        assert len(t.hand.actions) == counter, "actions are stored in order, once each"
        t.hand.actions.append(action_to_json(action))
        if final is not None:
            t.hand = None
            for seat in final:
                self._put_seat(table_id, seat)

    def balance(self, table_id: str) -> int:
        """Chips that entered the table minus chips that left it."""
        total = 0
        for t, _, kind, amount in self.ledger:
            if t == table_id:
                total += amount if kind in LEDGER_IN else -amount
        return total
