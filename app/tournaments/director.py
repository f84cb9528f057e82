"""The tournament director: one actor per tournament that owns the clock, the field, the
places and the moves. It talks to its tables (table actors in `TableConfig.tournament` mode)
only through commands (`t_seat`, `t_unseat`, `t_deal`, `t_close`) and the event each table
sends it when a hand ends (`Table.director`).

Play goes in rounds: when every table has finished its hand, the director places who busted,
balances or breaks tables (`balance.plan`), then, `between_hands` later, calls the next deal
at every table with the level in force at that moment; so a level starts exactly with the
first hands dealt after its time, and a break or a pause deals nothing until it ends. (A
table that finishes first waits for the others: moves happen between hands everywhere.)
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import secrets
import time
import uuid
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from typing import Any

from app.tables.command import Command
from app.tables.config import MAX_CHIPS, TableConfig
from app.tables.errors import TableError
from app.tables.registry import TableRegistry
from app.tables.store_protocol import OwnershipLost
from app.tournaments.balance import TableSeats, plan
from app.tournaments.entry import Entry
from app.tournaments.icm import MAX_PLAYERS as MAX_ICM_PLAYERS
from app.tournaments.icm import chip_chop, icm, whole
from app.tournaments.payouts import preset, prizes, split
from app.tournaments.places import Standings
from app.tournaments.settings import Settings
from app.tournaments.store import MemoryTournamentStore, StoredTournament, TournamentStore
from app.tournaments.structure import Level

log = logging.getLogger("omaha.tournaments")
_draw = secrets.SystemRandom()


@dataclass
class FieldTable:
    """What the director knows of one of its tables between hands."""

    id: str
    seats: dict[int, str] = field(default_factory=dict)  # seat -> player
    stacks: dict[str, int] = field(default_factory=dict)
    button: int | None = None
    playing: bool = False  # a deal was called and its hand has not ended yet


@dataclass(frozen=True)
class HandLog:
    """One hand as the director saw it: which table, the level dealt, the tournament time of
    the deal, and the chips in play when it ended."""

    table: str
    number: int
    level: int
    elapsed: float
    chips: int | None = None


class Director:
    def __init__(
        self,
        settings: Settings,
        host_id: str,
        tables: TableRegistry,
        *,
        tournament_id: str | None = None,
        clock: Callable[[], float] = time.monotonic,
        between_hands: float = 2.0,
        shuffle: Callable[[list[str]], None] = _draw.shuffle,
        store: TournamentStore | None = None,
        code: str | None = None,
    ) -> None:
        self.id = tournament_id or str(uuid.uuid4())
        self.code = code or secrets.token_urlsafe(16)
        self.store: TournamentStore = store or MemoryTournamentStore()
        self._stored = False  # created in the store (by `run`, before any command)
        self._ended = False
        self.chop_votes: dict[str, str] = {}  # player left -> the deal they asked for
        self.settings = settings
        self.host_id = host_id
        self.registry = tables
        self.clock = clock
        self.between_hands = between_hands
        self.shuffle = shuffle
        self.status = "registering"  # then running, paused, finished
        self.entries: dict[str, Entry] = {}  # by `Entry.key`
        self.live: dict[str, str] = {}  # player -> the key of their entry still in play
        self.standings = Standings(0)
        self.tables: dict[str, FieldTable] = {}
        self.hands: list[HandLog] = []
        self.mailbox: asyncio.Queue[Command] = asyncio.Queue()
        self._elapsed = 0.0  # tournament time before `_since`
        self._since: float | None = None  # the clock when it last started running
        self._timer: asyncio.TimerHandle | None = None
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
        for tid in stored.tables:
            try:  # loaded now if the registry has not restored it yet
                table = await tables.find(tid)
            except TableError as error:
                if error.code == "unavailable":
                    raise  # the database does not answer: the hall tries again later
                continue  # broken and closed
            seated = [s for s in table.seats if s is not None]
            d.tables[tid] = FieldTable(tid, {s.number: s.player_id for s in seated},
                                       {s.player_id: s.stack for s in seated}, table.button,
                                       playing=table.hand is not None
                                       and not table.hand.state.complete)  # fmt: skip
            tables.directors[tid] = table.director = d.hand_ended
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

    def elapsed(self) -> float:
        """Seconds of tournament time: the clock stops while paused."""
        if self._since is None:
            return self._elapsed
        return self._elapsed + self.clock() - self._since

    async def create(self) -> None:
        """Store the new tournament (before anyone hears of it)."""
        if not self._stored:
            await self.store.create(StoredTournament(self.id, self.code, self.host_id,
                                                     self.settings.to_json()))  # fmt: skip
            self._stored = True

    async def run(self) -> None:
        await self.create()
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
        if self._timer is not None:
            self._timer.cancel()

    # ------------------------------------------------------------------ the field
    async def _on_register(self, c: Command) -> dict[str, Any]:
        pid = c.player_id
        if pid is None:
            raise TableError("no_session", "join the server with a name first")
        late = self.status in ("running", "paused")
        if not (self.status == "registering" or (late and self.late_registration_open())):
            raise TableError("registration_closed", "registration is closed")
        if pid in self.live:
            raise TableError("already_registered", "you are registered already")
        number = 1 + sum(1 for e in self.entries.values() if e.player_id == pid)
        if number - 1 > self.settings.reentries:
            raise TableError("no_reentry", "no more re-entries for you in this tournament")
        if len(self.entries) >= self.settings.max_players:
            raise TableError("full", "the tournament is full")
        name = str(c.data.get("name") or "player")[:32]
        entry = Entry(pid, name, bot=bool(c.data.get("bot", False)), number=number)
        await self._write(self.store.add_entry(self.id, entry))
        self.entries[entry.key] = entry
        self.live[pid] = entry.key
        if late:  # seated at once where there is room (a new table if there is none)
            self.standings.entries += 1
            await self._seat_late(pid)
        elif self.settings.start_when_full and len(self.entries) == self.settings.max_players:
            with contextlib.suppress(TableError):  # registered either way
                await self._on_start(Command("start", self.host_id))
        return {"registered": len(self.entries), "entry": number}

    def late_registration_open(self) -> bool:
        """Late registration (and re-entry) is open until the end of level
        `late_registration_level` (1 is the first level; 0: none)."""
        moment = self.settings.schedule.at(self.elapsed())
        return moment.level < self.settings.late_registration_level

    async def _seat_late(self, pid: str) -> None:
        open_seats = [t for t in self.tables.values() if len(t.seats) < self.settings.seats]
        if open_seats:  # a table drawn among the shortest, then a seat (TDA 8-A)
            fewest = min(len(t.seats) for t in open_seats)
            target = _draw.choice([t.id for t in open_seats if len(t.seats) == fewest])
        else:
            level = self.settings.schedule.levels[self.settings.schedule.at(self.elapsed()).level]
            config = self._table_config(level, len(self.tables))
            table = await self.registry.create(self.host_id, config)
            self.registry.directors[table.id] = table.director = self.hand_ended
            self.tables[table.id] = FieldTable(table.id)
            target = table.id
            await self._save_state()
        await self._seat(pid, target, None, self.settings.starting_stack)
        if not any(t.playing for t in self.tables.values()) and self.status == "running":
            self._deal_all(self.between_hands)

    async def _on_unregister(self, c: Command) -> dict[str, Any]:
        pid = str(c.player_id)
        if self.status != "registering" or pid not in self.entries:
            raise TableError("not_registered", "you are not registered (or it has started)")
        await self._write(self.store.remove_entry(self.id, pid))
        del self.entries[pid]
        del self.live[pid]
        return {"registered": len(self.entries)}

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
        await self._write(self.store.save_state(self.id, self.status, self.elapsed(),
                                                list(self.tables)))  # fmt: skip

    async def _on_start(self, c: Command) -> dict[str, Any]:
        """Draw the seats at random, seat everyone with the starting stack, start the clock
        and deal."""
        if c.player_id != self.host_id:
            raise TableError("not_host", "only the host can do that")
        if self.status != "registering":
            raise TableError("started", "the tournament has started")
        if len(self.entries) < 2:
            raise TableError("too_few", "a tournament needs two players at least")
        players = list(self.live)
        self.shuffle(players)
        count = math.ceil(len(players) / self.settings.seats)
        level = self.settings.schedule.levels[0]
        for t in range(count):
            table = await self.registry.create(self.host_id, self._table_config(level, t))
            self.registry.directors[table.id] = table.director = self.hand_ended
            self.tables[table.id] = FieldTable(table.id)
        ids = list(self.tables)
        for k, pid in enumerate(players):  # round robin: table sizes within one
            await self._seat(pid, ids[k % count], None, self.settings.starting_stack)
        self.standings = Standings(len(players))
        self.status = "running"
        self._since = self.clock()
        await self._save_state()
        self._deal_all()
        return {"tables": ids}

    def _table_config(self, level: Level, number: int) -> TableConfig:
        s = self.settings
        return TableConfig(
            name=f"{s.name} {number + 1}"[:40],
            game=s.game,
            betting=s.betting,
            small_blind=level.small_blind,
            big_blind=level.big_blind,
            ante=level.ante,
            big_blind_ante=level.big_blind_ante,
            seats=s.seats,
            buy_in_min=MAX_CHIPS,  # nobody buys in: the director seats players with stacks
            buy_in_max=MAX_CHIPS,
            decision_time=s.decision_time,
            time_bank=s.time_bank,
            cap_heads_up=True,
            dead_button=True,  # TDA 32: "Tournament play will use a dead button."
            tournament=True,
        )

    async def _seat(self, pid: str, table_id: str, seat: int | None, stack: int) -> None:
        state = self.tables[table_id]
        if seat is None:
            free = [n for n in range(self.settings.seats) if n not in state.seats]
            seat = free[_draw.randrange(len(free))]
        entry = self.entry_of(pid)
        await self.registry.get(table_id).request(
            "t_seat", None, player_id=pid, name=entry.name, seat=seat, stack=stack, bot=entry.bot
        )
        state.seats[seat] = pid
        state.stacks[pid] = stack
        entry.table, entry.seat = table_id, seat

    # ------------------------------------------------------------------- the add-on
    def addon_open(self) -> bool:
        """The add-on can be bought while its level (`Settings.addon_at`), or the break after
        it, is on the clock."""
        if not self.settings.addon_chips or self.status not in ("running", "paused"):
            return False
        return self.settings.schedule.at(self.elapsed()).level == self.settings.addon_at() - 1

    async def _on_addon(self, c: Command) -> dict[str, Any]:
        """A player still in buys the add-on, once: stored, then the chips go on their stack
        at their table (at once between hands, else when the hand ends: `t_addon`)."""
        pid = str(c.player_id)
        if not self.settings.addon_chips:
            raise TableError("no_addon", "this tournament has no add-on")
        if pid not in self.live:
            raise TableError("not_playing", "only players still in can take the add-on")
        if not self.addon_open():
            raise TableError("addon_closed", f"the add-on is taken during level "
                             f"{self.settings.addon_at()} or the break after it")  # fmt: skip
        entry = self.entry_of(pid)
        if entry.addon:
            raise TableError("addon_taken", "you have taken the add-on already")
        if entry.table is None:
            raise TableError("hand_running", "you are moving between tables; try again")
        chips = self.settings.addon_chips
        entry.addon = True
        try:
            await self._write(self.store.save_addon(self.id, entry))
            result = await self.registry.get(entry.table).request(
                "t_addon", None, player_id=pid, amount=chips
            )
        except TableError:
            entry.addon = False
            with contextlib.suppress(Exception):
                await self.store.save_addon(self.id, entry)
            raise
        state = self.tables[entry.table]
        if result.get("status") == "done":  # else the hand's end tells the director
            state.stacks[pid] = int(result["stack"])
        return {"chips": chips, "status": result.get("status")}

    def chips_in(self) -> int:
        """Every chip that entered: the starting stacks of all entries and the add-ons."""
        addons = sum(1 for e in self.entries.values() if e.addon)
        return len(self.entries) * self.settings.starting_stack + addons * self.settings.addon_chips

    def prize_pool(self) -> int:
        """The nominal prize pool: the host's, and the add-ons' price."""
        addons = sum(1 for e in self.entries.values() if e.addon)
        return self.settings.prize_pool + addons * self.settings.addon_price

    # ------------------------------------------------------------------- the clock
    async def _on_pause(self, c: Command) -> dict[str, Any]:
        if c.player_id != self.host_id:
            raise TableError("not_host", "only the host can do that")
        if self.status != "running":
            raise TableError("not_running", "the tournament is not running")
        self._elapsed, self._since = self.elapsed(), None
        self.status = "paused"
        try:
            await self._save_state()
        except TableError:
            self.status, self._since = "running", self.clock()
            raise
        return {"elapsed": self._elapsed}

    async def _on_resume(self, c: Command) -> dict[str, Any]:
        if c.player_id != self.host_id:
            raise TableError("not_host", "only the host can do that")
        if self.status != "paused":
            raise TableError("not_paused", "the tournament is not paused")
        self.status = "running"
        self._since = self.clock()
        try:
            await self._save_state()
        except TableError:
            self.status, self._since = "paused", None
            raise
        self._deal_all()
        return {"elapsed": self._elapsed}

    def _deal_all(self, delay: float = 0.0) -> None:
        if self._timer is not None:
            self._timer.cancel()
        self._timer = asyncio.get_running_loop().call_later(delay, self.post, Command("deal_all"))

    async def _on_deal_all(self, c: Command) -> None:
        """Deal every table between hands (with two players or more) at the level in force
        now; on a break, come back when it ends."""
        self._timer = None
        if self.status != "running" or any(t.playing for t in self.tables.values()):
            return
        if (kind := self._chop_agreed()) is not None:
            await self._finish(kind)
            return
        elapsed = self.elapsed()  # one reading: the level and the hand's time agree
        moment = self.settings.schedule.at(elapsed)
        if moment.on_break:
            assert moment.remaining is not None
            self._deal_all(moment.remaining)
            return
        level = self.settings.schedule.levels[moment.level]
        # The clock's reading, stored once a round: after a crash the level goes on from
        # here, not from the start (a failed write is tried again with the next round).
        with contextlib.suppress(TableError):
            await self._save_state()
        for state in self.tables.values():
            if len(state.seats) < 2:
                continue
            table = self.registry.get(state.id)
            # TDA 48: the fixed-limit cap holds heads-up until the event is down to two.
            result = await table.request(
                "t_deal", None, small_blind=level.small_blind, big_blind=level.big_blind,
                ante=level.ante, big_blind_ante=level.big_blind_ante,
                cap_heads_up=len(self.live) > 2)  # fmt: skip
            state.playing = True
            self.hands.append(HandLog(state.id, int(result["hand"]), moment.level, elapsed))

    # ----------------------------------------------------------- hands and places
    async def _on_hand_ended(self, c: Command) -> None:
        event = c.data
        state = self.tables.get(str(event["table"]))
        if state is None:
            return
        state.playing = False
        stacks: dict[str, int] = {str(p): int(s) for p, s in event["stacks"].items()}
        started: dict[str, int] = {str(p): int(s) for p, s in event["started"].items()}
        state.stacks = stacks
        state.button = event.get("button")
        for k in range(len(self.hands) - 1, -1, -1):  # the chips when this hand ended
            h = self.hands[k]
            if h.table == state.id and h.number == event["hand"]:
                total = sum(sum(t.stacks.values()) for t in self.tables.values())
                self.hands[k] = HandLog(h.table, h.number, h.level, h.elapsed, total)
                break
        for p, stack in stacks.items():
            if stack == 0 and p in self.live:
                self._round_busts[self.live[p]] = started.get(p, 0)
        if any(t.playing for t in self.tables.values()):
            return  # the round ends with the last table's hand
        await self._place_round()
        if self.standings.left == 1:
            await self._finish()
            return
        if (kind := self._chop_agreed()) is not None:
            await self._finish(kind)  # the players left agreed a deal
            return
        await self._balance()
        self._deal_all(self.between_hands)

    async def _place_round(self) -> None:
        """Place the round's bust-outs and take them off their tables. Every table plays one
        hand a round and the next round waits for all (hand for hand), so they went out in
        the same hand: the larger stack at its start finishes better, equal stacks share
        (`Standings.bust`; TDA RP-8, PokerStars' "synchronized" hand)."""
        busts, self._round_busts = self._round_busts, {}
        if not busts:
            return
        out = [self.entries[key] for key in busts]
        for key, place in self.standings.bust(busts).items():
            self.entries[key].place = place
        with contextlib.suppress(TableError):  # in memory; all stored again at the end
            await self._write(self.store.save_places(self.id, out))
        for entry in out:
            pid, table_id = entry.player_id, entry.table
            if table_id is not None and table_id in self.tables:
                await self.registry.get(table_id).request("t_unseat", None, player_id=pid)
                state = self.tables[table_id]
                state.seats = {n: q for n, q in state.seats.items() if q != pid}
                state.stacks.pop(pid, None)
            entry.table = entry.seat = None
            del self.live[pid]

    async def _balance(self) -> None:
        """Moves between hands: balance, break tables, draw the final table."""
        seats = [TableSeats(t.id, self.settings.seats, dict(t.seats), t.button)
                 for t in self.tables.values()]  # fmt: skip
        players = [p for t in self.tables.values() for p in t.seats.values()]
        self.shuffle(players)
        decided = plan(seats, players, rng=_draw)  # TDA 10-B: a broken table's seats drawn
        if decided.final is not None:
            final_id, draw = decided.final
            for t in list(self.tables.values()):
                for pid in list(t.seats.values()):
                    await self._unseat(t.id, pid)
            for seat, pid in draw.items():
                await self._seat(pid, final_id, seat, self._carried.pop(pid))
        for move in decided.moves:
            await self._unseat(move.from_table, move.player)
            await self._seat(
                move.player, move.to_table, move.to_seat, self._carried.pop(move.player)
            )
        for gone in decided.broken:
            await self.registry.get(gone).request("t_close")
            del self.tables[gone]

    async def _unseat(self, table_id: str, pid: str) -> None:
        result = await self.registry.get(table_id).request("t_unseat", None, player_id=pid)
        state = self.tables[table_id]
        state.seats = {n: p for n, p in state.seats.items() if p != pid}
        state.stacks.pop(pid, None)
        self._carried[pid] = int(result["stack"])

    async def _finish(self, chop: str | None = None) -> None:
        """One player holds every chip (or those left agreed a `chop`): places, prizes, the
        results stored, the tables closed."""
        amounts = split(self.prize_pool(), self.payouts())
        chopped: dict[str, int] = {}
        if chop is not None:
            chopped = self._chop(chop, amounts)
        else:
            winner = next(k for k, e in self.entries.items() if e.place is None)
            self.standings.win(winner)
            self.entries[winner].place = 1
        # Shared places' odd units go to the earliest entries (`prizes`): registration order.
        places = {k: self.standings.places[k] for k in self.entries if k in self.standings.places}
        for key, prize in prizes(places, amounts).items():
            self.entries[key].prize = chopped.get(key, prize)
        self._elapsed, self._since = self.elapsed(), None
        self.status = "finished"
        self.stop()
        for _ in range(3):  # the results must be stored: try a few times
            try:
                await self._write(self.store.save_places(self.id, list(self.entries.values())))
                await self._save_state()
                break
            except TableError:
                await asyncio.sleep(1.0)
        for t in self.tables.values():
            table = self.registry.get(t.id)
            for pid in list(t.seats.values()):
                await table.request("t_unseat", None, player_id=pid)
            await table.request("t_close")
            self.registry.directors.pop(t.id, None)

    # ------------------------------------------------------------------ deals
    async def _on_chop(self, c: Command) -> dict[str, Any]:
        """A player left asks for (or agrees to) a deal: `kind` `icm` or `chips` (the figures
        of `deal_figures`). When every player left has asked for the same kind, it is applied
        once the hands being played end."""
        pid = str(c.player_id)
        kind = c.data.get("kind")
        if kind not in ("icm", "chips"):
            raise TableError("bad_deal", "a deal is icm or chips")
        if pid not in self.live or self.status not in ("running", "paused"):
            raise TableError("not_playing", "only players still in can ask for a deal")
        if len(self.live) > MAX_ICM_PLAYERS:
            raise TableError("bad_deal", f"a deal is made by {MAX_ICM_PLAYERS} players at most")
        self.chop_votes[pid] = str(kind)
        agreed = self._chop_agreed()
        if agreed is not None and not any(t.playing for t in self.tables.values()):
            await self._finish(agreed)
        return {"votes": sum(1 for p in self.live if self.chop_votes.get(p) == kind),
                "of": len(self.live), "agreed": agreed is not None}  # fmt: skip

    def _chop_agreed(self) -> str | None:
        kinds = {self.chop_votes.get(p) for p in self.live}
        if len(kinds) == 1 and (kind := kinds.pop()) is not None and len(self.live) >= 2:
            return kind
        return None

    def _chop(self, kind: str, amounts: list[int]) -> dict[str, int]:
        """Place the players left by their stacks (equal stacks share a place) and give each
        their figure of the deal: the prizes of the places left, shared by ICM or by chips."""
        stacks = {p: s for t in self.tables.values() for p, s in t.stacks.items()}
        left = list(self.live)
        chips = [stacks[p] for p in left]
        paid = (amounts + [0] * len(left))[: len(left)]
        figures = whole(icm(chips, paid) if kind == "icm" else chip_chop(chips, paid))
        for p in left:  # places by stack; equal stacks share a place
            place = 1 + sum(1 for q in left if stacks[q] > stacks[p])
            self.standings.places[self.live[p]] = self.entries[self.live[p]].place = place
        return {self.live[p]: f for p, f in zip(left, figures, strict=True)}

    # ------------------------------------------------------------------ reading
    async def _on_status(self, c: Command) -> dict[str, Any]:
        return self.status_view()

    def status_view(self) -> dict[str, Any]:
        schedule = self.settings.schedule
        moment = schedule.at(self.elapsed())
        level = schedule.levels[moment.level]
        left = [e for e in self.entries.values() if e.place is None]
        chips = sum(sum(t.stacks.values()) for t in self.tables.values())
        return {
            "id": self.id,
            "name": self.settings.name,
            "status": self.status,
            "level": moment.level + 1,
            "on_break": moment.on_break,
            "remaining": moment.remaining,
            "blinds": level.to_json(),
            "next": schedule.levels[moment.next_level].to_json()
            if moment.next_level is not None
            else None,
            "players_left": len(left) if self.status != "registering" else len(self.entries),
            "entries": len(self.entries),
            "average_stack": chips // len(left) if left and chips else 0,
            "payouts": split(self.prize_pool(), self.payouts()),
            "hand_for_hand": self.hand_for_hand(),
            "prize_pool": self.prize_pool(),
            "addon": {
                "chips": self.settings.addon_chips,
                "price": self.settings.addon_price,
                "level": self.settings.addon_at(),
                "open": self.addon_open(),
                "taken": sum(1 for e in self.entries.values() if e.addon),
            }
            if self.settings.addon_chips
            else None,
            "standings": self.results(),
        }

    def hand_for_hand(self) -> bool:
        """Near the money at more than one table: the next round can burst the bubble. The
        tables always play a round a hand each and wait for each other (`_on_hand_ended`),
        so every round is played hand for hand; this says the bubble is near (TDA RP-8)."""
        if self.status not in ("running", "paused") or len(self.tables) < 2:
            return False
        paid = sum(1 for amount in split(self.prize_pool(), self.payouts()) if amount > 0)
        return 0 < paid < self.standings.left <= paid + len(self.tables)

    def results(self) -> list[dict[str, Any]]:
        """The places given so far, best first: place, player, prize."""
        placed = [e for e in self.entries.values() if e.place is not None]
        placed.sort(key=lambda e: (e.place or 0, e.name))
        return [{"place": e.place, "player_id": e.player_id, "name": e.name, "prize": e.prize,
                 "addon": e.addon} for e in placed]  # fmt: skip

    def payouts(self) -> tuple[int, ...]:
        """The basis points paid per place (the preset for the field when none was set)."""
        if self.settings.payouts is not None:
            return self.settings.payouts
        return preset(max(2, len(self.entries)))

    def deal_figures(self) -> list[dict[str, Any]]:
        """For a deal among the players left: each one's stack, chip-chop and ICM share of
        the prizes still to be paid (whole units that add up exactly)."""
        stacks = {p: s for t in self.tables.values() for p, s in t.stacks.items() if s > 0}
        left = [p for p in self.live if p in stacks]
        if len(left) < 2 or len(left) > MAX_ICM_PLAYERS:
            return []
        amounts = split(self.prize_pool(), self.payouts())[: len(left)]
        chips = [stacks[p] for p in left]
        chop = whole(chip_chop(chips, amounts))
        model = whole(icm(chips, amounts))
        return [{"player_id": p, "name": self.entry_of(p).name, "stack": stacks[p],
                 "chip_chop": c, "icm": m}
                for p, c, m in zip(left, chop, model, strict=True)]  # fmt: skip

    def entry_of(self, player_id: str) -> Entry:
        """A player's entry still in play."""
        return self.entries[self.live[player_id]]
