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

import asyncio
import copy
import time
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from app.poker import Action
from app.tables.config import TableConfig
from app.tables.fairness import ServerSeed
from app.tables.hand import Hand, action_to_json
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
        """A new table (its id given, or a new one); returns its id."""
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
    ) -> None:
        """Store the table's own state, with what applies later (next stakes, requests)."""

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


class DealSeedStart:
    """Shared by the stores: a session's first server seed is `end_deal_seed` with no seed
    to end (one write either way)."""

    #: the store's own: end a seed and start the next one in one write
    end_deal_seed: Callable[[str, str | None, bool, tuple[str, bytes, str]], Awaitable[None]]

    async def start_deal_seed(self, table_id: str, seed_id: str, seed: bytes, digest: str) -> None:
        await self.end_deal_seed(table_id, None, False, (seed_id, seed, digest))


class MemoryTableStore(DealSeedStart):
    """The store contract in memory (tests of the actor alone). Writes can be made to fail."""

    def __init__(self) -> None:
        self.tables: dict[str, StoredTable] = {}
        self.ledger: list[tuple[str, str, str, int]] = []  # table, player, kind, amount
        self.reasons: list[tuple[str, str, int, str]] = []  # table, player, amount, reason
        self.fail_next = 0
        #: while set, every write waits for this event first: a database that froze with the
        #: write already sent (given up on, it raises `StoreInDoubt` and is stored at the thaw)
        self.frozen: asyncio.Event | None = None
        self._last_write: dict[str, float] = {}
        self._later: set[asyncio.Task[None]] = set()
        self.closed: set[str] = set()
        self.players: dict[str, tuple[str, bool]] = {}  # player -> (name, bot)
        self.after_end: list[tuple[str, dict[str, Any]]] = []  # actions after a hand ended
        self.epochs: dict[str, int] = {}
        self.seeds: dict[str, dict[str, Any]] = {}  # server seeds by id

    async def _write(self, apply: Callable[[], None], table_id: str | None = None) -> None:
        frozen = self.frozen
        if frozen is not None:
            try:
                await frozen.wait()
            except asyncio.CancelledError:
                outcome: asyncio.Future[None] = asyncio.get_running_loop().create_future()

                async def at_thaw() -> None:
                    await frozen.wait()
                    try:
                        self._commit(apply, table_id)
                    except Exception as error:
                        outcome.set_exception(error)
                    else:
                        outcome.set_result(None)

                later = asyncio.get_running_loop().create_task(at_thaw())
                self._later.add(later)
                later.add_done_callback(self._later.discard)
                raise StoreInDoubt(outcome) from None
        self._commit(apply, table_id)

    def _commit(self, apply: Callable[[], None], table_id: str | None) -> None:
        if self.fail_next:
            self.fail_next -= 1
            raise OSError("simulated database failure")
        apply()
        if table_id is not None:
            self._last_write[table_id] = time.monotonic()

    async def create_table(
        self, host_id: str, config: TableConfig, code: str, table_id: str | None = None
    ) -> str:
        table_id = table_id or str(uuid.uuid4())
        self.tables[table_id] = StoredTable(table_id, code, host_id, config)
        return table_id

    async def open_tables(self) -> list[str]:
        return [t for t in self.tables if t not in self.closed]

    async def tournament_tables(self) -> set[str]:
        return {t for t in await self.open_tables() if self.tables[t].config.tournament}

    async def take_table(self, table_id: str) -> int:
        self.epochs[table_id] = self.epochs.get(table_id, 0) + 1
        return self.epochs[table_id]

    def drop_table(self, table_id: str) -> None:
        return None

    async def load_table(self, table_id: str) -> StoredTable:
        stored = copy.deepcopy(self.tables[table_id])
        if stored.hand is not None and table_id in self._last_write:
            stored.hand.elapsed = time.monotonic() - self._last_write[table_id]
        return stored

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
        requests = copy.deepcopy(requests or [])

        def apply() -> None:
            t = self.tables[table_id]
            t.host_id, t.config, t.button, t.paused = host_id, config, button, paused
            t.hand_number, t.next_config, t.requests = hand_number, next_config, requests

        await self._write(apply)

    async def close_table(self, table_id: str) -> None:
        await self._write(lambda: self.closed.add(table_id))

    async def hosted_open_tables(self, host_id: str) -> int:
        return sum(
            1 for t in self.tables.values() if t.host_id == host_id and t.id not in self.closed
        )

    def _put_seat(self, table_id: str, seat: Seat) -> None:
        t = self.tables[table_id]
        t.seats = [s for s in t.seats if s.number != seat.number] + [copy.deepcopy(seat)]

    # Each write takes its values when called, as a SQL statement's parameters are: the
    # actor may change (or put back) its seats while the write waits.
    async def seat_player(self, table_id: str, seat: Seat, buy_in: int) -> None:
        seat = copy.deepcopy(seat)

        def apply() -> None:
            self._put_seat(table_id, seat)
            self.players.setdefault(seat.player_id, (seat.name, seat.bot))
            self.ledger.append((table_id, seat.player_id, "buy_in", buy_in))

        await self._write(apply)

    async def seat_bot(self, table_id: str, seat: Seat, buy_in: int) -> None:
        await self.seat_player(table_id, seat, buy_in)

    async def save_switches(self, table_id: str, seat: Seat) -> None:
        seat = copy.deepcopy(seat)
        await self._write(lambda: self._put_seat(table_id, seat))

    async def set_bomb_pot_next(self, table_id: str, on: bool) -> None:
        def apply() -> None:
            self.tables[table_id].bomb_pot_next = on

        await self._write(apply)

    async def add_chat(
        self, table_id: str, player_id: str, name: str, seat: int | None, text: str
    ) -> None:
        entry = {"player_id": player_id, "name": name, "seat": seat, "text": text}
        await self._write(lambda: self.tables[table_id].chat.append(entry))

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
        seats = copy.deepcopy(seats)

        def apply() -> None:
            for seat in seats:
                self._put_seat(table_id, seat)

        await self._write(apply)

    async def add_chips(self, table_id: str, seat: Seat, amount: int, kind: str) -> None:
        seat = copy.deepcopy(seat)

        def apply() -> None:
            self._put_seat(table_id, seat)
            self.ledger.append((table_id, seat.player_id, kind, amount))

        await self._write(apply)

    async def adjust(self, table_id: str, seat: Seat, amount: int, reason: str) -> None:
        seat = copy.deepcopy(seat)

        def apply() -> None:
            self._put_seat(table_id, seat)
            self.ledger.append((table_id, seat.player_id, "adjustment", amount))
            self.reasons.append((table_id, seat.player_id, amount, reason))

        await self._write(apply)

    async def hold_adjustment(self, table_id: str, seat: Seat) -> None:
        seat = copy.deepcopy(seat)
        await self._write(lambda: self._put_seat(table_id, seat))

    async def adjustments(self, table_id: str) -> list[Adjustment]:
        return [
            Adjustment(player, self.players.get(player, (player[:8], False))[0], amount, reason)
            for t, player, amount, reason in self.reasons
            if t == table_id
        ]

    async def cash_out(self, table_id: str, seat: Seat) -> None:
        seat = copy.deepcopy(seat)

        def apply() -> None:
            t = self.tables[table_id]
            t.seats = [s for s in t.seats if s.number != seat.number]
            self.ledger.append((table_id, seat.player_id, "cash_out", seat.stack))

        await self._write(apply)

    async def start_hand(
        self,
        table_id: str,
        hand: Hand,
        deck: list[int],
        seats: list[Seat],
        button: int,
        hand_number: int,
    ) -> None:
        stored = StoredHand(hand.id, hand.number, hand.record(), list(deck), [],
                            deal=hand.deal.stored() if hand.deal is not None else None)  # fmt: skip
        over, seats = hand.state.complete, copy.deepcopy(seats)

        def apply() -> None:
            t = self.tables[table_id]
            t.hand = None if over else stored
            t.button, t.hand_number, t.last_blinds = button, hand_number, hand.blind_seats
            for seat in seats:
                self._put_seat(table_id, seat)

        await self._write(apply, table_id)

    async def record_action(
        self,
        table_id: str,
        hand: Hand,
        counter: int,
        action: Action,
        final: list[Seat] | None,
        spent: Seat | None = None,
    ) -> None:
        final = copy.deepcopy(final)
        spent = copy.deepcopy(spent)
        stored = action_to_json(action)

        def apply() -> None:
            t = self.tables[table_id]
            if t.hand is None and hand.state.complete and final is None:
                self.after_end.append((hand.id, stored))  # a show after it ended
                return
            assert t.hand is not None and t.hand.id == hand.id
            assert len(t.hand.actions) == counter, "actions are stored in order, once each"
            t.hand.actions.append(stored)
            if final is not None:
                t.hand = None
                for seat in final:
                    self._put_seat(table_id, seat)
            elif spent is not None:
                self._put_seat(table_id, spent)

        await self._write(apply, table_id)

    async def end_deal_seed(
        self,
        table_id: str,
        seed_id: str | None,
        reveal: bool,
        new: tuple[str, bytes, str] | None = None,
    ) -> None:
        def apply() -> None:
            t = self.tables[table_id]
            if seed_id is not None:
                self.seeds[seed_id]["ended"], self.seeds[seed_id]["revealed"] = True, reveal
            t.deal_seed = None
            if new is not None:
                self.seeds[new[0]] = {"table": table_id, "seed": new[1], "hash": new[2],
                                      "ended": False, "revealed": False}  # fmt: skip
                t.deal_seed = ServerSeed(new[0], new[1])

        await self._write(apply)

    async def reveal_seeds(self, table_ids: list[str]) -> None:
        def apply() -> None:
            for seed in self.seeds.values():
                table = self.tables.get(seed["table"])
                if seed["table"] in table_ids and seed["ended"] and table is not None:
                    seed["revealed"] = seed["revealed"] or table.config.reveal_seed

        await self._write(apply)

    async def set_client_seed(self, table_id: str, seat: int, seed: str) -> None:
        def apply() -> None:
            for s in self.tables[table_id].seats:
                if s.number == seat:
                    s.client_seed = seed

        await self._write(apply)

    async def set_away(self, table_id: str, seat: int, since: float | None) -> None:
        def apply() -> None:
            for s in self.tables[table_id].seats:
                if s.number == seat:
                    s.away_since = since

        await self._write(apply)

    def balance(self, table_id: str) -> int:
        """Chips that entered the table minus chips that left it."""
        total = 0
        for t, _, kind, amount in self.ledger:
            if t == table_id:
                total += amount if kind in LEDGER_IN else -amount
        return total
