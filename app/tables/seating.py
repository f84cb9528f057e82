"""Seats: sitting down (and seat requests), top-ups, sitting out and in, the sit-out
switches, leaving and cashing out, the chips that wait for the end of a hand, the ledger.
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, Any

from app.tables.button import sit_in
from app.tables.config import MAX_CHIPS
from app.tables.errors import TableError
from app.tables.ledger import ledger_lines
from app.tables.names import skeleton
from app.tables.seat import Seat
from app.tables.views import Record

if TYPE_CHECKING:
    pass


from app.tables.command import Command
from app.tables.seat import SeatRequest
from app.tables.state import TableState


class Seating(TableState):
    def _in_hand(self, seat: Seat) -> bool:
        return (
            self._hand_running()
            and self.hand is not None
            and (self.hand.position_of_player(seat.player_id) is not None)
        )

    def _check_buy_in(self, amount: object) -> int:
        if not isinstance(amount, int) or isinstance(amount, bool):
            raise TableError("bad_amount", "a buy-in is a whole number of chips")
        lo, hi = self.config.buy_in_min, self.config.buy_in_max
        if not lo <= amount <= hi:
            raise TableError("bad_buy_in", f"the buy-in is between {lo} and {hi}")
        return amount

    def _free_seat(self, number: object) -> int:
        if (
            not isinstance(number, int)
            or isinstance(number, bool)
            or not (0 <= number < len(self.seats))
        ):
            raise TableError("no_such_seat", f"seats are numbered 0 to {len(self.seats) - 1}")
        if self.seats[number] is not None:
            raise TableError("seat_taken", f"seat {number} is taken")
        return number

    async def _on_sit(self, c: Command) -> dict[str, Any]:
        pid = c.player_id
        if pid is None:
            raise TableError("no_session", "join the server with a name first")
        if self.seat_of(pid) is not None:
            raise TableError("already_seated", "you already have a seat at this table")
        number = self._free_seat(c.data.get("seat"))
        buy_in = self._check_buy_in(c.data.get("buy_in"))
        name = str(c.data.get("name") or "player")[:32]
        post = bool(c.data.get("post", False))
        self._check_name(pid, name)
        if self.config.approval_required and pid != self.host_id:
            if pid in self.requests:
                raise TableError("already_requested", "your seat request is waiting for the host")
            if len(self.requests) >= self.runtime.seat_requests:
                raise TableError(
                    "too_many_requests", "too many seat requests are waiting: try again later"
                )
            request = SeatRequest(pid, name, number, buy_in, post)
            self.requests[pid] = request
            await self._save_table()
            self._emit(Record({"type": "seat_request", **request.to_json()}))
            return {"status": "requested"}
        await self._seat(SeatRequest(pid, name, number, buy_in, post))
        return {"status": "seated", "seat": number}

    def _check_name(self, player_id: str, name: str) -> None:
        """No two players at a table whose names look the same (`names.skeleton`)."""
        mine = skeleton(name)
        others = [s.name for s in self.seats if s is not None and s.player_id != player_id]
        others += [r.name for r in self.requests.values() if r.player_id != player_id]
        if any(skeleton(other) == mine for other in others):
            raise TableError(
                "name_taken", f"someone at this table is already called {name!r}: rename first"
            )

    async def _seat(self, r: SeatRequest) -> None:
        seat = Seat(
            number=r.seat,
            player_id=r.player_id,
            name=r.name,
            stack=r.buy_in,
            post=r.post,
            time_bank=self.config.time_bank,
        )
        seat.away = not any(v.player_id == r.player_id for v in self.viewers.values())
        await self._store(self.store.seat_player(self.id, seat, r.buy_in))
        self.seats[r.seat] = seat
        self._emit(self._seat_record(seat))
        self._schedule_next_hand(0.0)

    async def _on_approve(self, c: Command) -> dict[str, Any]:
        request = self.requests.get(str(c.data.get("player_id")))
        if request is None:
            raise TableError("no_such_request", "no seat request from that player")
        if self.seat_of(request.player_id) is not None:
            del self.requests[request.player_id]
            raise TableError("already_seated", "that player already has a seat")
        self._free_seat(request.seat)
        self._check_name(request.player_id, request.name)
        await self._seat(request)
        del self.requests[request.player_id]
        with contextlib.suppress(TableError):  # a stale stored request is dropped at load
            await self._save_table()
        return {"status": "seated", "seat": request.seat}

    async def _on_refuse(self, c: Command) -> dict[str, Any]:
        request = self.requests.pop(str(c.data.get("player_id")), None)
        if request is None:
            raise TableError("no_such_request", "no seat request from that player")
        await self._save_table()
        self._emit(
            Record({"type": "seat_refused", "player_id": request.player_id, "seat": request.seat})
        )
        return {"status": "refused"}

    def _my_seat(self, c: Command) -> Seat:
        seat = self.seat_of(c.player_id) if c.player_id is not None else None
        if seat is None:
            raise TableError("not_seated", "you have no seat at this table")
        return seat

    def _check_chips(self, amount: object, *, signed: bool = False) -> int:
        if not isinstance(amount, int) or isinstance(amount, bool):
            raise TableError("bad_amount", "an amount is a whole number of chips")
        if abs(amount) > MAX_CHIPS or (amount <= 0 and not signed) or amount == 0:
            raise TableError("bad_amount", "that amount is out of range")
        return amount

    async def _on_top_up(self, c: Command) -> dict[str, Any]:
        seat = self._my_seat(c)
        amount = self._check_chips(c.data.get("amount"))
        if seat.stack + seat.pending_top_up + amount > self.config.buy_in_max:
            raise TableError(
                "over_maximum", f"a top-up may bring a stack to {self.config.buy_in_max} at most"
            )
        if self._in_hand(seat):
            seat.pending_top_up += amount
            await self._save_seats(seat)
            self._emit(self._seat_record(seat))
            return {"status": "after_hand"}
        await self._add_chips(seat, amount, "top_up")
        self._emit(self._seat_record(seat))
        self._schedule_next_hand(0.0)
        return {"status": "done", "stack": seat.stack}

    async def _on_sit_out(self, c: Command) -> dict[str, Any]:
        seat = self._my_seat(c)
        if not seat.sitting_out:
            seat.sitting_out = True
            await self._save_seats(seat)
            self._emit(self._seat_record(seat))
        return {"status": seat.status}

    async def _on_sit_in(self, c: Command) -> dict[str, Any]:
        seat = self._my_seat(c)
        if seat.leaving or seat.removed:
            raise TableError("leaving", "you are leaving this table")
        if sit_in(seat, bool(c.data.get("post", False))):
            await self._save_seats(seat)
            self._emit(self._seat_record(seat))
            self._schedule_next_hand(0.0)
        return {"status": seat.status}

    async def _on_straddle(self, c: Command) -> dict[str, Any]:
        seat = self._my_seat(c)
        if not self.config.straddle:
            raise TableError("no_straddle", "this table does not allow straddles")
        on = bool(c.data.get("on", True))
        if on != seat.straddle:
            seat.straddle = on
            await self._save_seats(seat)
            self._emit(self._seat_record(seat))
        return {"straddle": seat.straddle}

    async def _on_leave(self, c: Command) -> dict[str, Any]:
        pid = c.player_id
        if pid in self.requests:
            del self.requests[pid]
            await self._save_table()
            return {"status": "left"}
        seat = self._my_seat(c)
        if self._in_hand(seat):
            seat.leaving = True
            await self._save_seats(seat)
            self._emit(self._seat_record(seat))
            self._auto_act_if_gone()
            return {"status": "after_hand"}
        await self._cash_out(seat)
        return {"status": "left"}

    async def _cash_out(self, seat: Seat) -> None:
        await self._store(self.store.cash_out(self.id, seat))
        handle = self._grace.pop(seat.player_id, None)
        if handle is not None:
            handle.cancel()
        self.seats[seat.number] = None
        if seat.bot:
            self._stop_bot(seat.player_id)
        self._emit(
            Record(
                {
                    "type": "left",
                    "seat": seat.number,
                    "player_id": seat.player_id,
                    "cash_out": seat.stack,
                }
            )
        )

    async def _add_chips(self, seat: Seat, amount: int, kind: str) -> None:
        """Change a stack and its ledger entry together: if the store refuses, the stack is
        put back, so the table never holds chips the ledger does not."""
        seat.stack += amount
        try:
            await self._store(self.store.add_chips(self.id, seat, amount, kind), queued=True)
        except BaseException:
            seat.stack -= amount
            raise

    async def _adjust_chips(self, seat: Seat, amount: int, reason: str) -> None:
        """`_add_chips` for a host adjustment: its ledger entry keeps the reason."""
        seat.stack += amount
        try:
            await self._store(self.store.adjust(self.id, seat, amount, reason))
        except BaseException:
            seat.stack -= amount
            raise

    async def _settle_seats(self) -> list[Seat]:
        """Apply what waited for the end of the hand: top-ups, adjustments, then cash out
        leavers and removed players. Each is stored with its pending amount or flag cleared
        in the same write, so none is applied twice after a restart; one that cannot be
        stored stays pending (`unavailable` is raised) and is tried again before the next
        deal. Returns the seats changed."""
        changed: list[Seat] = []
        for seat in list(self.seats):
            if seat is None:
                continue
            for kind in ("top_up", "adjustment"):
                pending = seat.pending_top_up if kind == "top_up" else seat.pending_adjust
                if not pending:
                    continue
                if kind == "top_up":
                    amount = min(pending, max(0, self.config.buy_in_max - seat.stack))
                    seat.pending_top_up = 0
                else:
                    amount = min(max(pending, -seat.stack), MAX_CHIPS - seat.stack)
                    reason, seat.pending_adjust, seat.pending_adjust_reason = (
                        seat.pending_adjust_reason, 0, "")  # fmt: skip
                try:
                    if amount and kind == "adjustment":
                        await self._adjust_chips(seat, amount, reason)
                    elif amount:
                        await self._add_chips(seat, amount, kind)
                    elif kind == "adjustment":  # cancelled out: clear it and its reasons
                        await self._store(self.store.hold_adjustment(self.id, seat))
                    else:
                        await self._save_seats(seat)
                except TableError:
                    if kind == "top_up":
                        seat.pending_top_up = pending
                    else:
                        seat.pending_adjust, seat.pending_adjust_reason = pending, reason
                    raise
                changed.append(seat)
            if seat.leaving or seat.removed:
                await self._cash_out(seat)
        return changed

    async def _on_sit_out_next(self, c: Command) -> dict[str, Any]:
        """Sit out from the next hand on (the current one is played out)."""
        seat = self._my_seat(c)
        seat.sit_out_next = bool(c.data.get("on", True))
        await self._store(self.store.save_switches(self.id, seat))
        self._emit(self._seat_record(seat))
        return {"sit_out_next": seat.sit_out_next}

    async def _on_sit_out_next_bb(self, c: Command) -> dict[str, Any]:
        """Sit out when the big blind would next be this player's."""
        seat = self._my_seat(c)
        seat.sit_out_next_bb = bool(c.data.get("on", True))
        await self._store(self.store.save_switches(self.id, seat))
        self._emit(self._seat_record(seat))
        return {"sit_out_next_bb": seat.sit_out_next_bb}

    async def _on_ledger(self, c: Command) -> dict[str, Any]:
        """Every player's buy-ins, top-ups, adjustments, cash-outs, stack and net, read in
        the actor so that the figures and the stacks are of one moment (the identity of
        docs/protocol.md section 7 holds on them)."""
        totals = await self._read(self.store.ledger_totals(self.id))
        live: dict[str, tuple[int, int]] = {}  # player -> (stack, chips in the middle)
        for seat in self.seats:
            if seat is not None:
                live[seat.player_id] = (seat.stack, 0)
        hand = self.hand
        if hand is not None and not hand.state.complete:
            for p, player in enumerate(hand.players):
                if player in live:
                    live[player] = (hand.state.stacks[p], hand.state.committed[p])
        return {"players": ledger_lines(totals, live)}
