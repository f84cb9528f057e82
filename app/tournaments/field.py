"""The field: registering and unregistering (late too, and re-entries), the start's random
draw of seats, the tournament's tables and seating a player at one with their stack."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import secrets
import uuid
from typing import Any

from app.tables.command import Command
from app.tables.config import MAX_CHIPS, BankRefill, TableConfig
from app.tables.errors import TableError
from app.tables.names import skeleton
from app.tournaments.entry import Entry
from app.tournaments.places import Standings
from app.tournaments.state import DirectorState, FieldTable
from app.tournaments.structure import Level

draw = secrets.SystemRandom()
log = logging.getLogger("omaha.tournaments")


class Field(DirectorState):
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
        self._check_name(pid, name)
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

    def _check_name(self, player_id: str, name: str) -> None:
        """No two players in a tournament whose names look the same (`names.skeleton`), as
        at a table: its standings and its tables show them side by side."""
        mine = skeleton(name)
        if any(e.player_id != player_id and skeleton(e.name) == mine
               for e in self.entries.values()):  # fmt: skip
            raise TableError("name_taken", f"someone in this tournament is already called "
                             f"{name!r}: rename first")  # fmt: skip

    async def _on_add_bot(self, c: Command) -> dict[str, Any]:
        """Host: a practice bot joins the field (registered like anyone; its player fixed by
        the tournament and its number, so its seat is a bot's at every table)."""
        if c.player_id != self.host_id:
            raise TableError("not_host", "only the host can do that")
        number = sum(1 for e in self.entries.values() if e.bot and e.number == 1)
        taken = {skeleton(e.name) for e in self.entries.values()}
        while True:  # the next number whose name nobody has (a person may be "Bot 2")
            number += 1
            pid = str(uuid.uuid5(uuid.UUID(self.id), f"bot-{number}"))
            if pid not in self.live and skeleton(f"Bot {number}") not in taken:
                break
        result = await self._on_register(
            Command("register", pid, {"name": f"Bot {number}", "bot": True})
        )
        return {**result, "player_id": pid}

    async def _table_room(self, count: int) -> None:
        """Refuse (`too_many_tables`) tables the host may not open: a tournament's tables
        count against the per-host limit of open tables like any table."""
        if self.tables_per_host is None:
            return
        try:
            hosted = await self.registry.store.hosted_open_tables(self.host_id)
        except Exception as error:
            log.error("tournament %s: cannot count tables (%s)", self.id, type(error).__name__)
            raise TableError("unavailable", "the tables could not be counted; try again") from None
        if hosted + count > self.tables_per_host:
            limit = self.tables_per_host
            raise TableError("too_many_tables", f"{count} more tables are needed and the host "
                             f"has {hosted} open of {limit}: close some first")  # fmt: skip

    def late_registration_open(self) -> bool:
        """Late registration (and re-entry) is open until the end of level
        `late_registration_level` (1 is the first level; 0: none)."""
        moment = self.settings.schedule.at(self.elapsed())
        return moment.level < self.settings.late_registration_level

    async def _seat_late(self, pid: str) -> None:
        open_seats = [t for t in self.tables.values() if len(t.seats) < self.settings.seats]
        if open_seats:  # a table drawn among the shortest, then a seat (TDA 8-A)
            fewest = min(len(t.seats) for t in open_seats)
            target = draw.choice([t.id for t in open_seats if len(t.seats) == fewest])
        else:
            await self._table_room(1)
            level = self.settings.schedule.levels[self.settings.schedule.at(self.elapsed()).level]
            config = self._table_config(level, len(self.tables))
            table = await self.registry.create(self.host_id, config)
            self.registry.directors[table.id] = table.director = self.hand_ended
            self.table_codes[table.code] = table.id
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

    def _arm_start(self) -> None:
        """A set start time (`Settings.start_at`): the host's start is posted then (refused,
        and registration goes on, if fewer than two have registered)."""
        at = self.settings.start_at
        if at is None or self.status != "registering":
            return
        delay = max(0.0, at - self.wall())
        loop = asyncio.get_running_loop()
        self._start_timer = loop.call_later(delay, self.post, Command("start", self.host_id))

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
        await self._table_room(count)
        level = self.settings.schedule.levels[0]
        for t in range(count):
            table = await self.registry.create(self.host_id, self._table_config(level, t))
            self.registry.directors[table.id] = table.director = self.hand_ended
            self.table_codes[table.code] = table.id
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
            time_bank_refill=BankRefill.LEVEL,  # the usual tournament rule: full each level
            cap_heads_up=True,
            dead_button=True,  # TDA 32: "Tournament play will use a dead button."
            tournament=True,
        )

    async def _seat(self, pid: str, table_id: str, seat: int | None, stack: int) -> None:
        state = self.tables[table_id]
        if seat is None:
            free = [n for n in range(self.settings.seats) if n not in state.seats]
            seat = free[draw.randrange(len(free))]
        entry = self.entry_of(pid)
        await self.registry.get(table_id).request(
            "t_seat", None, player_id=pid, name=entry.name, seat=seat, stack=stack, bot=entry.bot
        )
        state.seats[seat] = pid
        state.stacks[pid] = stack
        entry.table, entry.seat = table_id, seat
