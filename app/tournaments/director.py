"""The tournament director: one actor per tournament that owns the clock, the field, the
places and the moves. It talks to its tables (table actors in `TableConfig.tournament` mode)
only through commands (`t_seat`, `t_unseat`, `t_deal`, `t_close`) and the event each table
sends it when a hand ends (`Table.director`).

Play goes in rounds: when every table has finished its hand, the director places who busted,
balances or breaks tables (`balance.plan`), then, `between_hands` later, calls the next deal
at every table with the level in force at that moment; so a level starts exactly with the
first hands dealt after its time, and a break or a pause deals nothing until it ends. (A
table that finishes first waits for the others: moves happen between hands everywhere.)

Each job is a mixin in its own module over the shared state (`state.DirectorState`):
`field.Field` (registration, the start, seating), `rounds.Rounds` (deals, hands' ends, places,
moves, the end), `clock.Clock` (pause, resume), `addon.Addon`, `chop.Chop` (deals among the
players left) and `reading.Reading` (what it answers). This module keeps the actor: its
outside API, its loop, its restoring from the store, and its writes.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
import uuid
from collections.abc import Callable, Coroutine
from typing import Any

from app.tables.command import Command
from app.tables.errors import TableError
from app.tables.registry import TableRegistry
from app.tables.store_protocol import OwnershipLost
from app.tournaments.addon import Addon
from app.tournaments.chop import Chop
from app.tournaments.clock import Clock
from app.tournaments.field import Field, draw
from app.tournaments.figures import Figures
from app.tournaments.places import Standings
from app.tournaments.reading import Reading
from app.tournaments.rounds import Rounds
from app.tournaments.settings import Settings
from app.tournaments.state import FieldTable, HandLog
from app.tournaments.store import MemoryTournamentStore, StoredTournament, TournamentStore

__all__ = ["Director", "FieldTable", "HandLog"]

log = logging.getLogger("omaha.tournaments")


class Director(Field, Rounds, Clock, Addon, Chop, Reading):
    def __init__(
        self,
        settings: Settings,
        host_id: str,
        tables: TableRegistry,
        *,
        tournament_id: str | None = None,
        clock: Callable[[], float] = time.monotonic,
        wall: Callable[[], float] = time.time,
        between_hands: float = 2.0,
        shuffle: Callable[[list[str]], None] = draw.shuffle,
        store: TournamentStore | None = None,
        code: str | None = None,
        deal_hold: float = 30.0,
        tables_per_host: int | None = None,
    ) -> None:
        self.id = tournament_id or str(uuid.uuid4())
        self.code = code or secrets.token_urlsafe(16)
        self.store: TournamentStore = store or MemoryTournamentStore()
        self._stored = False  # created in the store (by `run`, before any command)
        self._ended = False
        self.chop_votes = {}
        self.figures = Figures()
        self.deal_hold = deal_hold
        self.tables_per_host = tables_per_host
        self._talks_until: float | None = None
        self._talks_pending = False
        self._talks_called: set[tuple[str, int]] = set()
        self.settings = settings
        self.host_id = host_id
        self.registry = tables
        self.clock = clock
        self.wall = wall
        self.between_hands = between_hands
        self.shuffle = shuffle
        self.status = "registering"  # then running, paused, finished
        self.entries = {}
        self.live = {}
        self.standings = Standings(0)
        self.tables: dict[str, FieldTable] = {}
        self.broken: list[str] = []
        self.table_codes: dict[str, str] = {}  # invite code -> id, of every table it opened
        self.hands: list[HandLog] = []
        self.mailbox: asyncio.Queue[Command] = asyncio.Queue()
        self._elapsed = 0.0  # tournament time before `_since`
        self._since: float | None = None  # the clock when it last started running
        self._timer: asyncio.TimerHandle | None = None
        self._start_timer: asyncio.TimerHandle | None = None
        #: stacks of players between their table and the next (moves, the final table draw)
        self._carried: dict[str, int] = {}
        #: this round's bust-outs at every table (entry -> stack at the start of the hand),
        #: placed together when the round ends (`_place_round`)
        self._round_busts: dict[str, int] = {}

    @classmethod
    async def restore(
        cls, stored: StoredTournament, tables: TableRegistry, store: TournamentStore, **kw: Any
    ) -> Director:
        """The director of a stored tournament after a restart: the field and places from the
        store, each table's seats and stacks from its (restored) table actor, the clock from
        its last stored reading. Run it with `run`; a running tournament deals on."""
        settings = Settings.from_json(stored.settings)
        d = cls(settings, stored.host_id, tables, tournament_id=stored.id, store=store,
                code=stored.code, **kw)  # fmt: skip
        d._stored = True
        d.status, d._elapsed = stored.status, stored.elapsed
        d.entries = {e.key: e for e in stored.entries}
        d.live = {e.player_id: e.key for e in stored.entries if e.place is None}
        placed = {k: e.place for k, e in d.entries.items() if e.place is not None}
        d.standings = Standings(len(d.entries), placed)
        busted: list[tuple[str, str]] = []
        try:
            still_open = await tables.store.tournament_tables()
        except Exception:
            raise TableError("unavailable", "the database does not answer") from None
        for tid in stored.tables:
            if tid not in still_open:
                d.broken.append(tid)  # broken and closed: its seed is revealed at the end
                continue
            try:  # loaded now if the registry has not restored it yet
                table = await tables.find(tid)
            except TableError as error:
                if error.code == "unavailable":
                    raise  # the database does not answer: the hall tries again later
                continue  # closed meanwhile
            seated = [s for s in table.seats if s is not None]
            d.tables[tid] = FieldTable(tid, {s.number: s.player_id for s in seated},
                                       {s.player_id: s.stack for s in seated}, table.button,
                                       playing=table.hand is not None
                                       and not table.hand.state.complete)  # fmt: skip
            tables.directors[tid] = table.director = d.hand_ended
            d.table_codes[table.code] = tid
            for s in seated:
                entry = d.entry_of(s.player_id)
                entry.table, entry.seat = tid, s.number
                if s.stack == 0 and not d.tables[tid].playing and entry.place is None:
                    busted.append((tid, s.player_id))  # out in the hand before the crash
        # Out in the round before the crash (their stacks at its start are not kept: they
        # share); placed with the rest of that round if a table still plays it.
        d._round_busts = {d.live[pid]: 0 for _, pid in busted}
        if not any(t.playing for t in d.tables.values()):
            await d._place_round()
        if d.status == "running":
            d._since = d.clock()
            d._deal_all()
        return d

    @classmethod
    def finished(
        cls, stored: StoredTournament, tables: TableRegistry, store: TournamentStore
    ) -> Director:
        """A finished tournament as stored, to be read (never run): its places and prizes."""
        d = cls(Settings.from_json(stored.settings), stored.host_id, tables,
                tournament_id=stored.id, store=store, code=stored.code)  # fmt: skip
        d._stored = d._ended = True
        d.status, d._elapsed = stored.status, stored.elapsed
        d.entries = {e.key: e for e in stored.entries}
        places = {k: e.place for k, e in d.entries.items() if e.place is not None}
        d.standings = Standings(len(d.entries), places)
        return d

    # ----------------------------------------------------------------- outside API
    def post(self, command: Command) -> None:
        if self.status == "finished" and self._ended:
            command.settle({}, TableError("finished", "the tournament is over"))
            return
        self.mailbox.put_nowait(command)

    async def request(self, kind: str, sender: str | None = None, /, **data: Any) -> dict[str, Any]:
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self.post(Command(kind, sender, data, future))
        return await future

    def hand_ended(self, event: dict[str, Any]) -> None:
        """A table's event (called in the table's task): queued for the director."""
        self.post(Command("hand_ended", data=event))

    async def create(self) -> None:
        """Store the new tournament (before anyone hears of it)."""
        if not self._stored:
            await self.store.create(StoredTournament(self.id, self.code, self.host_id,
                                                     self.settings.to_json()))  # fmt: skip
            self._stored = True

    async def run(self) -> None:
        await self.create()
        self._arm_start()
        while True:
            command = await self.mailbox.get()
            handler = getattr(self, f"_on_{command.kind}", None)
            try:
                if handler is None:
                    raise TableError("unknown_command", f"unknown command {command.kind!r}")
                result = await handler(command)
            except OwnershipLost:  # another process directs it now: this one stops
                command.settle({}, TableError("unavailable", "the tournament moved; try again"))
                raise
            except TableError as error:
                command.settle({}, error)
                continue
            except Exception:  # a bug: answered, logged, and the tournament goes on
                log.exception("tournament %s: %s failed", self.id, command.kind)
                command.settle({}, TableError("internal", "the tournament director failed"))
                continue
            command.settle(result or {})
            if self.status == "finished" and self.mailbox.empty():
                self._ended = True  # later commands are answered at once (`post`)
                return

    def stop(self) -> None:
        for timer in (self._timer, self._start_timer):
            if timer is not None:
                timer.cancel()

    async def _write(self, write: Coroutine[Any, Any, None]) -> None:
        """A store write before the answer: refused (`unavailable`) if it fails."""
        try:
            await write
        except OwnershipLost:
            raise
        except Exception as error:
            log.error("tournament %s: a write failed (%s)", self.id, type(error).__name__)
            raise TableError("unavailable", "that could not be stored; try again") from None

    async def _save_state(self) -> None:
        tables = [*self.tables, *self.broken]  # the broken: to reveal their seeds at the end
        await self._write(self.store.save_state(self.id, self.status, self.elapsed(), tables))
