"""The tournament director: one actor per tournament that owns the clock, the field, the
places and the moves. It talks to its tables (table actors in `TableConfig.tournament` mode)
only through commands (`t_seat`, `t_unseat`, `t_deal`, `t_close`) and the event each table
sends it when a hand ends (`Table.director`).

Play goes in rounds: when every table has finished its hand, the director places who busted,
balances or breaks tables (`balance.plan`), then, `between_hands` later, calls the next deal
at every table with the level in force at that moment; so a level starts exactly with the
first hands dealt after its time, and a break or a pause deals nothing until it ends. (A
table that finishes first waits for the others: moves happen between hands everywhere.) A
table that refuses the director (its store did not answer, it is being restored) or restarts
holds nobody: it misses the round, or the round's end is done again before the next deal.

`Director` is the state (`state.Tournament`) with the actor over it: its outside API, its
loop, its restoring from the store. Each command is a plain function over the state, one
module per job (`HANDLERS`: `field`, `rounds`, `clock`, `addon`, `chop`, `reading`).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from app.tables.command import Command
from app.tables.errors import TableError
from app.tables.registry import TableRegistry
from app.tables.store_protocol import OwnershipLost
from app.tournaments import addon, chop, clock, deal, field, reading, rounds
from app.tournaments.places import Standings
from app.tournaments.settings import Settings
from app.tournaments.state import FieldTable, HandLog, Tournament
from app.tournaments.store import StoredTournament, TournamentStore

__all__ = ["HANDLERS", "Director", "FieldTable", "HandLog"]

log = logging.getLogger("omaha.tournaments")

Handler = Callable[[Tournament, Command], Awaitable[dict[str, Any] | None]]
#: each command's kind and the function that carries it out (its answer, or None: `{}`)
HANDLERS: Mapping[str, Handler] = {
    "register": field.on_register,
    "add_bot": field.on_add_bot,
    "unregister": field.on_unregister,
    "start": field.on_start,
    "deal_all": rounds.on_deal_all,
    "hand_ended": rounds.on_hand_ended,
    "pause": clock.on_pause,
    "resume": clock.on_resume,
    "next_level": clock.on_next_level,
    "addon": addon.on_addon,
    "chop": chop.on_chop,
    "status": reading.on_status,
}


class Director(Tournament):
    _stored = False  # created in the store (by `run`, before any command)

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
        d.status, d.elapsed_before = stored.status, stored.elapsed
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
                                       table.last_blinds[1],
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
        d.round_busts = {d.live[pid]: 0 for _, pid in busted}
        if not any(t.playing for t in d.tables.values()):
            await rounds.place_round(d)
        if d.status == "running":
            d.since = d.clock()
            d.deal_all()
        return d

    @classmethod
    def finished(
        cls, stored: StoredTournament, tables: TableRegistry, store: TournamentStore
    ) -> Director:
        """A finished tournament as stored, to be read (never run): its places and prizes."""
        d = cls(Settings.from_json(stored.settings), stored.host_id, tables,
                tournament_id=stored.id, store=store, code=stored.code)  # fmt: skip
        d._stored = d.ended = True
        d.status, d.elapsed_before = stored.status, stored.elapsed
        d.entries = {e.key: e for e in stored.entries}
        places = {k: e.place for k, e in d.entries.items() if e.place is not None}
        d.standings = Standings(len(d.entries), places)
        return d

    # ----------------------------------------------------------------- outside API
    async def request(self, kind: str, sender: str | None = None, /, **data: Any) -> dict[str, Any]:
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self.post(Command(kind, sender, data, future))
        return await future

    async def create(self) -> None:
        """Store the new tournament (before anyone hears of it)."""
        if not self._stored:
            await self.store.create(StoredTournament(self.id, self.code, self.host_id,
                                                     self.settings.to_json()))  # fmt: skip
            self._stored = True

    async def run(self) -> None:
        await self.create()
        field.arm_start(self)
        while True:
            await self._carry_out(await self.mailbox.get())
            # After every command, a refused one too: one refused behind the finishing hand
            # (a late registration, a pause) left the director waiting for ever.
            if self.status == "finished" and self.mailbox.empty():
                self.ended = True  # later commands are answered at once (`post`)
                return

    async def _carry_out(self, command: Command) -> None:
        """One command, answered: its result, or why it was refused."""
        handler = HANDLERS.get(command.kind)
        try:
            if handler is None:
                raise TableError("unknown_command", f"unknown command {command.kind!r}")
            result = await handler(self, command)
        except OwnershipLost:  # another process directs it now: this one stops
            command.settle({}, TableError("unavailable", "the tournament moved; try again"))
            raise
        except TableError as error:
            command.settle({}, error)
        except Exception:  # a bug: answered, logged, and the tournament goes on
            log.exception("tournament %s: %s failed", self.id, command.kind)
            command.settle({}, TableError("internal", "the tournament director failed"))
        else:
            command.settle(result or {})

    # ------------------------------------------------------------------- readings
    def status_view(self) -> dict[str, Any]:
        return reading.status_view(self)

    def results(self) -> list[dict[str, Any]]:
        return reading.results(self)

    def hand_for_hand(self) -> bool:
        return reading.hand_for_hand(self)

    def late_registration_open(self) -> bool:
        return field.late_registration_open(self)

    def chips_in(self) -> int:
        return addon.chips_in(self)

    def deal_view(self, viewer: str | None) -> dict[str, Any] | None:
        return deal.deal_view(self, viewer)

    async def deal_figures(self) -> list[dict[str, Any]]:
        return await deal.deal_figures(self)
