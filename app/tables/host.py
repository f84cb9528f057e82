"""The host's commands: pause, stakes, remove, adjust, hand over the host, practice bots,
bomb pots, close.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from app.tables.adjust import clean_reason, join_reasons
from app.tables.config import MAX_CHIPS
from app.tables.errors import TableError
from app.tables.seat import Seat
from app.tables.views import Record

if TYPE_CHECKING:
    pass


from app.tables.command import Command
from app.tables.state import TableState

log = logging.getLogger("omaha.tables")


class Host(TableState):
    async def _on_pause(self, c: Command) -> dict[str, Any]:
        self.paused = True
        await self._save_table()
        self._emit(self._table_record())
        return {"paused": True}

    async def _on_resume(self, c: Command) -> dict[str, Any]:
        self.paused = False
        await self._save_table()
        self._emit(self._table_record())
        self._schedule_next_hand(0.0)
        return {"paused": False}

    async def _on_set_stakes(self, c: Command) -> dict[str, Any]:
        allowed = {
            "small_blind",
            "big_blind",
            "big_bet",
            "ante",
            "straddle",
            "bomb_pot_every",
            "bomb_pot_ante",
            "buy_in_min",
            "buy_in_max",
            "run_it_twice",
        }
        changes = {k: v for k, v in c.data.items() if v is not None}
        unknown = set(changes) - allowed
        if unknown:
            raise TableError("bad_config", f"cannot change {', '.join(sorted(unknown))}")
        try:
            new = self.config.with_stakes(**changes)
        except ValidationError as error:
            first = error.errors()[0]
            raise TableError("bad_config", str(first.get("msg", "invalid stakes"))) from None
        if self._hand_running():
            self.next_config = new
        else:
            self.config = new
        await self._save_table()
        self._emit(self._table_record())
        return {"from_next_hand": self.next_config is not None}

    def _target_seat(self, c: Command) -> Seat:
        number = c.data.get("seat")
        if (
            not isinstance(number, int)
            or isinstance(number, bool)
            or not (0 <= number < len(self.seats))
        ):
            raise TableError("no_such_seat", "no such seat")
        seat = self.seats[number]
        if seat is None:
            raise TableError("empty_seat", f"seat {number} is empty")
        return seat

    async def _on_remove(self, c: Command) -> dict[str, Any]:
        seat = self._target_seat(c)
        if self._in_hand(seat):
            seat.removed = True
            await self._save_seats(seat)
            self._emit(self._seat_record(seat))
            self._auto_act_if_gone()
            return {"status": "after_hand"}
        await self._cash_out(seat)
        return {"status": "removed"}

    async def _on_adjust(self, c: Command) -> dict[str, Any]:
        seat = self._target_seat(c)
        amount = self._check_chips(c.data.get("amount"), signed=True)
        reason = clean_reason(c.data.get("reason"))
        # Pending chips count: three adjustments during one hand cannot pass the maximum.
        after = seat.stack + seat.pending_top_up + seat.pending_adjust + amount
        if after < 0 or after > MAX_CHIPS:
            raise TableError("bad_amount", f"a stack stays between 0 and {MAX_CHIPS}")
        if self._in_hand(seat):
            before = seat.pending_adjust, seat.pending_adjust_reason
            seat.pending_adjust += amount
            seat.pending_adjust_reason = join_reasons(seat.pending_adjust_reason, reason)
            try:
                await self._store(self.store.hold_adjustment(self.id, seat))
            except BaseException:
                seat.pending_adjust, seat.pending_adjust_reason = before
                raise
            self._emit(self._adjusted_record(seat, amount, c.player_id, reason, pending=True))
            return {"status": "after_hand"}
        await self._adjust_chips(seat, amount, reason)
        self._emit(
            self._adjusted_record(seat, amount, c.player_id, reason), self._seat_record(seat)
        )
        self._schedule_next_hand(0.0)
        return {"status": "done", "stack": seat.stack}

    def _adjusted_record(
        self, seat: Seat, amount: int, by: str | None, reason: str, pending: bool = False
    ) -> Record:
        """Everyone at the table sees a host adjustment: whose stack, by how much, by whom,
        why."""
        return Record(
            {
                "type": "adjusted",
                "seat": seat.number,
                "player_id": seat.player_id,
                "amount": amount,
                "by": by,
                "reason": reason,
                "after_hand": pending,
                "stack": seat.stack,
            }
        )

    async def _on_close(self, c: Command) -> dict[str, Any]:
        """The host closes the table: after the current hand everyone is cashed out, no more
        hands are dealt, and the table stops; its hands and ledger stay in the database."""
        if self._hand_running():
            # Stored as a pause, so that after a crash mid-hand no further hand is dealt
            # either (the host then closes again).
            self.paused = True
            await self._save_table()
            self.closing = True
            self._emit(self._table_record(), Record({"type": "closing"}))
            return {"status": "after_hand"}
        self.closing = True
        await self._finish_close()
        return {"status": "closed"}

    async def _close_or_retry(self) -> None:
        """Close after the hand; while the database refuses, try again (like a deal)."""
        try:
            await self._finish_close()
        except TableError:
            self._retry_next_hand()

    async def _finish_close(self) -> None:
        if self._next_hand_timer is not None:
            self._next_hand_timer.cancel()
            self._next_hand_timer = None
        for seat in list(self.seats):
            if seat is not None:
                await self._cash_out(seat)
        self.requests.clear()
        await self._reveal_seed(then_new=False)  # the session ends: its seed is shown
        await self._store(self.store.close_table(self.id))
        self.closed = True
        self._emit(Record({"type": "closed"}))  # the actor loop closes the viewers next

    async def _on_transfer_host(self, c: Command) -> dict[str, Any]:
        target = str(c.data.get("player_id"))
        seat = self.seat_of(target)
        if seat is None:
            raise TableError("not_seated", "the new host must have a seat at the table")
        if seat.bot:
            raise TableError("bot_cannot_host", "a practice bot cannot host")
        self.host_id = target
        await self._save_table()
        self._emit(self._table_record())
        return {"host": target}

    async def _on_bomb_pot_next(self, c: Command) -> dict[str, Any]:
        on = bool(c.data.get("on", True))
        await self._store(self.store.set_bomb_pot_next(self.id, on))
        self.bomb_pot_next = on
        self._emit(self._table_record())
        return {"bomb_pot_next": on}

    async def _on_add_bot(self, c: Command) -> dict[str, Any]:
        """Host: seat a practice bot. Its player is fixed by table and seat, so a table
        creates at most one bot player per seat however often bots come and go."""
        number = self._free_seat(c.data.get("seat"))
        buy_in = c.data.get("buy_in")
        buy_in = self.config.buy_in_max if buy_in is None else self._check_buy_in(buy_in)
        player_id = str(uuid.uuid5(uuid.UUID(self.id), f"bot-{number}"))
        if self.seat_of(player_id) is not None:  # cannot happen: its seat was free
            raise TableError("seat_taken", f"seat {number} is taken")
        seat = Seat(
            number=number,
            player_id=player_id,
            name=f"Bot {'ABCDEFGHIJ'[number]}",
            stack=buy_in,
            time_bank=self.config.time_bank,
            bot=True,
            away=True,  # until it attaches, like anyone
            post=True,  # a bot comes in at once: it posts a big blind rather than wait for it
        )
        await self._store(self.store.seat_bot(self.id, seat, buy_in))
        self.seats[number] = seat
        self._emit(self._seat_record(seat))
        self._start_bot(seat)
        self._schedule_next_hand(0.0)
        return {"status": "seated", "seat": number, "player_id": player_id}

    def _start_bot(self, seat: Seat) -> None:
        if seat.player_id in self._bots:
            return
        from app.bots.player import Bot  # here: app.bots imports app.tables (the viewer)

        buy_in = 0 if self.config.tournament else seat.stack or self.config.buy_in_max
        bot = Bot(self, seat.player_id, self.runtime.bot_think, buy_in)
        task = asyncio.get_running_loop().create_task(bot.run(), name=f"bot-{seat.player_id}")
        self._bots[seat.player_id] = (bot, task)
        task.add_done_callback(lambda t: self._bot_ended(seat.player_id, t))

    def _bot_ended(self, player_id: str, task: asyncio.Task[None]) -> None:
        """A bot that failed (a bug) is started again while its seat is still a bot's, a few
        times at most (then the clock acts for it, as for anyone who stopped playing)."""
        if task.cancelled() or task.exception() is None:
            return
        log.error("table %s: bot %s failed", self.id, player_id, exc_info=task.exception())
        entry = self._bots.get(player_id)
        seat = self.seat_of(player_id)
        self._bot_failures[player_id] = failures = self._bot_failures.get(player_id, 0) + 1
        if entry is not None and entry[1] is task and seat is not None and failures <= 3:
            del self._bots[player_id]
            self._start_bot(seat)

    def _stop_bot(self, player_id: str) -> None:
        entry = self._bots.pop(player_id, None)
        if entry is not None:
            entry[1].cancel()
