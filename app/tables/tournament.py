"""A table in a tournament (`TableConfig.tournament`): the tournament's director seats and
unseats players with their stacks and calls each deal with the level's stakes; the table tells
the director when a hand ends. Players cannot buy in, top up, leave or sit out, and the host's
cash-game commands are refused; a disconnected player stays dealt in and the clock acts for
them (blinded away, never removed).
"""

from __future__ import annotations

from typing import Any

from app.tables.command import Command
from app.tables.errors import TableError
from app.tables.seat import Seat
from app.tables.state import TableState

#: what a tournament table refuses: chips in or out, sitting out, the host's cash-game commands
CASH_ONLY = frozenset(
    {"sit", "top_up", "leave", "sit_out", "sit_out_next", "sit_out_next_bb", "straddle",
     "approve", "refuse", "pause", "resume", "set_stakes", "remove", "adjust", "add_bot",
     "bomb_pot_next", "transfer_host", "close"}
)  # fmt: skip
#: the director's commands (no client message maps to them: app/api/messages.py)
DIRECTOR_COMMANDS = frozenset({"t_seat", "t_unseat", "t_deal", "t_close", "t_addon"})
STAKES = ("small_blind", "big_blind", "ante", "big_blind_ante")


class TournamentTable(TableState):
    def _check_tournament(self, c: Command) -> None:
        """Refuse what a tournament table does not do, and the director's commands at a cash
        table."""
        if self.config.tournament and c.kind in CASH_ONLY:
            raise TableError("tournament", "not at a tournament table: chips stay in play")
        if self.config.tournament and c.kind == "rotate_seed":  # it shows the folded hands
            raise TableError("tournament", "a tournament table's seed is revealed at its end")
        if not self.config.tournament and c.kind in DIRECTOR_COMMANDS:
            raise TableError("unknown_command", f"unknown command {c.kind!r}")

    async def _on_t_seat(self, c: Command) -> dict[str, Any]:
        """Seat a tournament player with their stack (a buy-in in this table's ledger)."""
        pid, number, stack = str(c.data["player_id"]), c.data["seat"], c.data["stack"]
        if self.seat_of(pid) is not None:
            raise TableError("already_seated", "that player already has a seat here")
        number = self._free_seat(number)
        stack = self._check_chips(stack)
        bot = bool(c.data.get("bot", False))
        seat = Seat(
            number=number,
            player_id=pid,
            name=str(c.data.get("name") or "player")[:32],
            stack=stack,
            waiting=False,  # dealt in at once: a moved player takes the next big blind's seat
            time_bank=self.config.time_bank,
            bot=bot,
        )
        seat.away = not any(v.player_id == pid for v in self.viewers.values())
        if bot:
            await self._store(self.store.seat_bot(self.id, seat, stack))
        else:
            await self._store(self.store.seat_player(self.id, seat, stack))
        self.seats[number] = seat
        self._emit(self._seat_record(seat))
        if bot:
            self._start_bot(seat)
        return {"seat": number}

    async def _on_t_unseat(self, c: Command) -> dict[str, Any]:
        """Take a player off the table between hands (busted, or moved): their stack leaves
        this table's ledger as a cash-out and goes with them."""
        seat = self.seat_of(str(c.data["player_id"]))
        if seat is None:
            raise TableError("not_seated", "that player has no seat here")
        if self._hand_running():
            raise TableError("hand_running", "players move between hands")
        stack = seat.stack
        await self._cash_out(seat)
        return {"stack": stack}

    async def _on_t_addon(self, c: Command) -> dict[str, Any]:
        """The add-on's chips onto a player's stack (a top-up in this table's ledger): at once
        between hands, else stored as pending and added when the hand ends."""
        seat = self.seat_of(str(c.data["player_id"]))
        if seat is None:
            raise TableError("not_seated", "that player has no seat here")
        amount = self._check_chips(c.data["amount"])
        if self._in_hand(seat):
            seat.pending_top_up += amount
            try:
                await self._save_seats(seat)
            except BaseException:
                seat.pending_top_up -= amount
                raise
            self._emit(self._seat_record(seat))
            return {"status": "after_hand"}
        await self._add_chips(seat, amount, "top_up")
        self._emit(self._seat_record(seat))
        return {"status": "done", "stack": seat.stack}

    async def _on_t_deal(self, c: Command) -> dict[str, Any]:
        """Deal the next hand with these stakes (the level in force now)."""
        if self._hand_running():
            raise TableError("hand_running", "a hand is being played")
        changes = {k: c.data[k] for k in STAKES if k in c.data}
        if any(getattr(self.config, k) != v for k, v in changes.items()):
            self.config = self.config.with_stakes(**changes)
            await self._save_table()
            self._emit(self._table_record())
        self.deal_called = True
        self._schedule_next_hand(0.0)
        return {"hand": self.hand_number + 1}

    def _tell_director(self) -> None:
        """The hand is over and settled: tell the director each player's stack at its start
        and now."""
        hand = self.hand
        if self.director is None or hand is None:
            return
        started = dict(zip(hand.players, hand.state.setup.stacks, strict=True))
        stacks = {s.player_id: s.stack for s in self.seats if s is not None}
        self.director({"table": self.id, "hand": hand.number, "button": self.button,
                       "started": started, "stacks": stacks})  # fmt: skip

    async def _on_t_close(self, c: Command) -> dict[str, Any]:
        """The tournament is over at this table (it broke, or ended): close it; `reveal`
        false (a break) keeps its seed sealed."""
        if self._hand_running():
            raise TableError("hand_running", "a hand is being played")
        seed = self.server_seed
        if not c.data.get("reveal", True) and seed is not None:
            # A table broken mid-tournament: its seed would show hands of players still in;
            # it ends sealed, revealed with the tournament's end (`reveal_seeds`).
            await self._store(self.store.end_deal_seed(self.id, seed.id, False))
            self.server_seed = None
        self.closing = True
        await self._finish_close()
        return {"status": "closed"}
