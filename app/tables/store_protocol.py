"""The table store's contract: what the table actor needs from durable storage (`TableStore`),
the values it reads back, and the failures it must tell apart.

The actor writes through this interface and waits for each write to be committed before it
tells anyone. `app.store.tables.SqlTableStore` is the real one (SQLite or PostgreSQL);
tests of the actor alone use `tests.tables.stores.MemoryTableStore`, which keeps the same
contract in memory.

The ledger: every chip that enters a table is a `buy_in`, `top_up` or `adjustment` entry,
every chip that leaves it a `cash_out`. Seat stacks are stored as they stand between hands
(during a hand, as the hand started), so at every committed moment
``buy-ins + top-ups + adjustments - cash-outs == sum of stored seat stacks``, and the stored
stacks of the players in a hand equal their live stacks plus the chips in the middle.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from app.poker import Action
from app.tables.config import TableConfig
from app.tables.fairness import ServerSeed
from app.tables.hand import Hand
from app.tables.preferences import Preferences
from app.tables.seat import Seat

LEDGER_IN = ("buy_in", "top_up", "adjustment")
#: chat messages a table keeps, and reloads after a restart, for its snapshot
CHAT_KEPT = 100


class StoreInDoubt(Exception):
    """A write whose caller gave up waiting (it was cancelled) after the database had it: it
    may yet be stored. `outcome` is done when the database has answered: a result if it was
    stored, an exception if not. A write cancelled before it reached the database raises
    `CancelledError` as usual: it is certainly not stored."""

    def __init__(self, outcome: asyncio.Future[None]) -> None:
        super().__init__("the database has not answered this write yet")
        self.outcome = outcome


class OwnershipLost(Exception):
    """The database refused a table's write: its fencing epoch moved on (another process took
    the table). Nothing of the write is stored, and the table must stop: it is not its own."""

    def __init__(self, table_id: str) -> None:
        super().__init__(f"table {table_id} is owned by another process now")
        self.table_id = table_id


@dataclass
class StoredHand:
    id: str
    number: int
    record: dict[str, Any]
    deck: list[int]
    actions: list[dict[str, Any]]
    #: seconds since its last action (or its deal) when it was loaded: the clock resumes there
    elapsed: float | None = None
    #: its deck's commitments' salts and seeds (`HandDeal.stored`), None if dealt before them
    deal: dict[str, Any] | None = None


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
    next_config: TableConfig | None = None
    requests: list[dict[str, Any]] = field(default_factory=list)
    bomb_pot_next: bool = False
    chat: list[dict[str, Any]] = field(default_factory=list)  # the latest, oldest first
    deal_seed: ServerSeed | None = None  # the session's server seed, not yet ended
    #: the last hand's blind seats (the dead button's next hand after a restart between hands)
    last_blinds: tuple[int | None, int | None] = (None, None)
    #: the hand's turn clock across the host's pause (`clock.TurnClock.stored`), if any
    turn_clock: dict[str, Any] | None = None


@dataclass(frozen=True)
class LedgerTotal:
    """One player's total of one kind of ledger entry at a table."""

    player_id: str
    name: str
    bot: bool
    kind: str
    amount: int


@dataclass(frozen=True)
class Adjustment:
    """One host adjustment entered in the ledger, with its reason."""

    player_id: str
    name: str
    amount: int
    reason: str


class TableStore(Protocol):
    async def create_table(
        self, host_id: str, config: TableConfig, code: str, table_id: str | None = None
    ) -> str:
        """A new table (its id given, or a new one); returns its id. Created is taken: the
        table's epoch is this store's (as after `take_table`), so its creator runs it at once
        from what it gave, without `load_table`."""
        ...

    async def open_tables(self) -> list[str]: ...

    async def tournament_tables(self) -> set[str]:
        """The open tables of tournaments (`TableConfig.tournament`): with several processes
        they run where their director runs, taken with it (`app.tournaments.hall`)."""
        ...

    async def load_table(self, table_id: str) -> StoredTable: ...

    async def take_table(self, table_id: str) -> int:
        """Become the table's writer: bump its fencing epoch and return it. Every later write
        of the table carries it and is refused (`OwnershipLost`) once another process took
        the table. Call before `load_table`: the load then sees every write of the previous
        owner that was not refused."""
        ...

    def drop_table(self, table_id: str) -> None:
        """Stop writing for the table: its writes from now on are refused."""

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
        """Store the table's own state, with what applies later (next stakes, requests) and
        the clock of the hand's turn across a pause (`clock.TurnClock`)."""

    async def close_table(self, table_id: str) -> None:
        """Mark the table closed (not restored again); its hands and ledger stay."""

    async def hosted_open_tables(self, host_id: str) -> int:
        """How many open tables this player hosts."""
        ...

    async def seat_player(self, table_id: str, seat: Seat, buy_in: int) -> None:
        """Insert the seat (its stack is the buy-in) and a `buy_in` ledger entry."""

    async def update_seats(self, table_id: str, seats: list[Seat]) -> None:
        """Store seat flags and stacks; no chips move (no ledger entry)."""

    async def add_chips(self, table_id: str, seat: Seat, amount: int, kind: str) -> None:
        """`seat.stack` already includes `amount`; record it as `top_up` or `adjustment`."""

    async def adjust(self, table_id: str, seat: Seat, amount: int, reason: str) -> None:
        """`seat.stack` already includes `amount`: an `adjustment` ledger entry with its
        reason, and the seat (its waiting adjustment and reasons too), in one write."""

    async def hold_adjustment(self, table_id: str, seat: Seat) -> None:
        """Store the seat's adjustment waiting for the end of the hand, with its reasons."""

    async def adjustments(self, table_id: str) -> list[Adjustment]:
        """The table's adjustments in the order they were entered."""
        ...

    async def cash_out(self, table_id: str, seat: Seat) -> None:
        """Record a `cash_out` of `seat.stack` and free the seat."""

    async def seat_bot(self, table_id: str, seat: Seat, buy_in: int) -> None:
        """`seat_player` for a practice bot: also creates its player (marked a bot) if new."""

    async def save_switches(self, table_id: str, seat: Seat) -> None:
        """Store a seat's sitting out and its sit-out switches."""

    async def preferences_of(self, player_id: str) -> Preferences:
        """The player's showdown preferences (the defaults if they never set any): a seat
        copies them when the player sits."""
        ...

    async def save_preferences(self, table_id: str, seat: Seat) -> None:
        """The seat's showdown preferences, as the player's (for every table they sit at
        from then on) and as this seat's copy, in one transaction."""

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
        self,
        table_id: str,
        hand: Hand,
        counter: int,
        action: Action,
        final: list[Seat] | None,
        spent: Seat | None = None,
    ) -> None:
        """Append an accepted action; with `final` (the hand is over) also store the result
        and the seats' new stacks, in the same transaction. `spent`: the actor's seat when
        the action used time bank, stored with it (a restart mid-hand keeps it spent)."""

    async def note_hand(self, table_id: str, hand_id: str, after: list[dict[str, Any]]) -> None:
        """Keep in a stored hand's record (`after`) what was asked for once it was over:
        its rabbit hunt and the cards players chose to show. Never its result."""

    async def start_deal_seed(self, table_id: str, seed_id: str, seed: bytes, digest: str) -> None:
        """Store a table session's server seed (sealed) before its hash is published."""

    async def end_deal_seed(
        self,
        table_id: str,
        seed_id: str | None,
        reveal: bool,
        new: tuple[str, bytes, str] | None = None,
    ) -> None:
        """End a session's seed (`reveal`: it may be shown from now on), and start the next
        session's seed `(id, seed, hash)` in the same transaction."""

    async def reveal_seeds(self, table_ids: list[str]) -> None:
        """Reveal the ended seeds of these closed tables (a tournament's broken tables, kept
        sealed until the tournament ends), those of tables that reveal their seeds."""

    async def set_client_seed(self, table_id: str, seat: int, seed: str) -> None:
        """Store a seated player's latest client seed."""

    async def set_away(self, table_id: str, seat: int, since: float | None) -> None:
        """Store when the seat's player went away (`time.time()`), or None: they are here."""

    async def note_watching(self, table_id: str, visits: list[tuple[str, int, int]]) -> None:
        """Keep that each `(player, first, last)` watched the table's hands `first` to `last`
        (at their numbers at the table) without being dealt in: a visit's last hand only
        moves on; a player's visits at a table are bounded (app/store/watching.py)."""


class DealSeedStart:
    """Shared by the stores: a session's first server seed is `end_deal_seed` with no seed
    to end (one write either way)."""

    #: the store's own: end a seed and start the next one in one write
    end_deal_seed: Callable[[str, str | None, bool, tuple[str, bytes, str]], Awaitable[None]]

    async def start_deal_seed(self, table_id: str, seed_id: str, seed: bytes, digest: str) -> None:
        await self.end_deal_seed(table_id, None, False, (seed_id, seed, digest))
