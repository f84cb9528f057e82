"""Table stores for actor tests: the store contract in memory (`MemoryTableStore`), the real
SQL store on a migrated database (`sql_store`), and helpers to run a table on either."""

from __future__ import annotations

import asyncio
import copy
import time
import uuid
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from typing import Any

from app.poker import Action
from app.store.db import create_engine, session_factory
from app.store.models import Player
from app.store.tables import SqlTableStore
from app.tables.config import TableConfig
from app.tables.fairness import ServerSeed
from app.tables.hand import Hand, action_to_json
from app.tables.preferences import Preferences
from app.tables.seat import Seat
from app.tables.store_protocol import (
    LEDGER_IN,
    Adjustment,
    DealSeedStart,
    LedgerTotal,
    StoredHand,
    StoredTable,
    StoreInDoubt,
)
from app.tables.table import Runtime, Table
from tests.migrated import migrate
from tests.sizes import BOT_SAMPLES

#: store tests' tables: no clock, no away grace, no next hand until a test asks for one
FAST = Runtime(
    between_hands=3600,
    clock_enabled=False,
    away_grace=3600,
    bot_think=0.0,
    deal_unwatched=True,
    bot_samples=BOT_SAMPLES,
)


class TestStore(SqlTableStore):
    async def make_players(self, count: int) -> list[str]:
        ids = [uuid.uuid4() for _ in range(count)]
        async with self.sessions.begin() as s:
            for i, pid in enumerate(ids):
                s.add(Player(id=pid, display_name=f"p{i}", session_token_hash=uuid.uuid4().hex))
        return [str(p) for p in ids]

    async def balance(self, table_id: str) -> int:
        return await self.ledger_balance(table_id)


@asynccontextmanager
async def sql_store(url: str) -> AsyncIterator[TestStore]:
    await migrate(url)
    engine = create_engine(url)
    store = TestStore(session_factory(engine))
    try:
        yield store
    finally:
        await store.close()
        await engine.dispose()


@asynccontextmanager
async def running(table: Table) -> AsyncIterator[Table]:
    """The table's actor running for the block, then shut down and stopped."""
    task = asyncio.create_task(table.run())
    try:
        yield table
    finally:
        table.shutdown()
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)


async def paused_with(
    table: Table, players: Sequence[str], buy_ins: Sequence[int] = (), names: Sequence[str] = ()
) -> None:
    """The host (the first player) pauses the table, so nothing is dealt while the seats fill,
    and each player sits in seat order: seat i, buy-in `buy_ins[i]` (100) named `names[i]`
    (p<i>)."""
    await table.request("pause", players[0])
    for i, pid in enumerate(players):
        buy_in = buy_ins[i] if i < len(buy_ins) else 100
        name = names[i] if i < len(names) else f"p{i}"
        await table.request("sit", pid, seat=i, buy_in=buy_in, name=name)


async def dealt(table: Table) -> Hand | None:
    """The table's hand, once it has dealt what it was to deal."""
    await table.quiet()
    return table.hand


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
        #: the time a hand's `elapsed` is measured in (a test gives its fake clock's)
        self.now: Callable[[], float] = time.monotonic
        self._later: set[asyncio.Task[None]] = set()
        self.closed: set[str] = set()
        self.players: dict[str, tuple[str, bool]] = {}  # player -> (name, bot)
        self.preferences: dict[str, Preferences] = {}  # player -> showdown preferences
        self.after_end: list[tuple[str, dict[str, Any]]] = []  # actions after a hand ended
        self.notes: dict[str, list[dict[str, Any]]] = {}  # each hand's `after` notes
        self.epochs: dict[str, int] = {}
        self.seeds: dict[str, dict[str, Any]] = {}  # server seeds by id
        self.watched: list[tuple[str, str, int, int]] = []  # table, player, first, last hand
        self.watching_fails = False

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
            self._last_write[table_id] = self.now()

    async def create_table(
        self, host_id: str, config: TableConfig, code: str, table_id: str | None = None
    ) -> str:
        table_id = table_id or str(uuid.uuid4())
        self.tables[table_id] = StoredTable(table_id, code, host_id, config)
        self.epochs[table_id] = 1  # created is taken
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
            stored.hand.elapsed = self.now() - self._last_write[table_id]
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
        turn_clock: dict[str, Any] | None = None,
    ) -> None:
        requests = copy.deepcopy(requests or [])
        turn_clock = copy.deepcopy(turn_clock)

        def apply() -> None:
            t = self.tables[table_id]
            t.host_id, t.config, t.button, t.paused = host_id, config, button, paused
            t.hand_number, t.next_config, t.requests = hand_number, next_config, requests
            t.turn_clock = turn_clock

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

    async def preferences_of(self, player_id: str) -> Preferences:
        return self.preferences.get(player_id, Preferences())

    async def save_preferences(self, table_id: str, seat: Seat) -> None:
        seat = copy.deepcopy(seat)

        def apply() -> None:
            self.preferences[seat.player_id] = Preferences(seat.auto_muck, seat.always_show)
            self._put_seat(table_id, seat)

        await self._write(apply)

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
            t = self.tables[table_id]
            t.seats = [s._replace(client_seed=seed) if s.number == seat else s for s in t.seats]

        await self._write(apply)

    async def note_hand(self, table_id: str, hand_id: str, after: list[dict[str, Any]]) -> None:
        after = copy.deepcopy(after)

        def apply() -> None:
            self.notes[hand_id] = after

        await self._write(apply)

    async def set_away(self, table_id: str, seat: int, since: float | None) -> None:
        def apply() -> None:
            t = self.tables[table_id]
            t.seats = [s._replace(away_since=since) if s.number == seat else s for s in t.seats]

        await self._write(apply)

    async def note_watching(self, table_id: str, visits: list[tuple[str, int, int]]) -> None:
        """Kept as noted, in `watched` (not through `_write`: a failure a test set up for a
        table's write is never taken by a note; `watching_fails` makes these fail)."""
        if self.watching_fails:
            raise OSError("simulated database failure")
        self.watched.extend((table_id, *visit) for visit in visits)

    def balance(self, table_id: str) -> int:
        """Chips that entered the table minus chips that left it."""
        total = 0
        for t, _, kind, amount in self.ledger:
            if t == table_id:
                total += amount if kind in LEDGER_IN else -amount
        return total
