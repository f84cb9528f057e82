"""The clocks: the decision time, the time bank, the away grace period, and the clock acting
for a player who ran out of time or is gone.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import TYPE_CHECKING, Any

from app.poker import Action, ActionKind, Phase
from app.tables.errors import TableError
from app.tables.hand import Hand
from app.tables.seat import Seat
from app.tables.views import turn_record

if TYPE_CHECKING:
    pass


from app.tables.command import Command
from app.tables.state import TableState

log = logging.getLogger(__name__)


class Clock(TableState):
    def _start_grace(self, pid: str, delay: float) -> None:
        handle = self._grace.pop(pid, None)
        if handle is not None:
            handle.cancel()
        self._grace[pid] = asyncio.get_running_loop().call_later(
            delay, self.post, Command("grace", pid)
        )

    async def _note_away(self, seat: Seat, away: bool) -> None:
        """Keep when the seat's player went away (now), or that they are back, so the away
        grace continues across a restart. Best effort: not stored, a restart gives the
        grace in full."""
        since = time.time() if away else None
        if not away and seat.away_since is None:
            return
        seat.away_since = since
        try:
            await self._store(self.store.set_away(self.id, seat.number, since))
        except TableError:
            log.warning("table %s: cannot store when seat %s went away", self.id, seat.number)

    def _grace_left(self, seat: Seat) -> float:
        """The away grace in full, less the time the player has been away (wall clock: it
        runs on while the server is down)."""
        grace = self.runtime.away_grace
        if seat.away_since is None:
            return grace
        return min(grace, max(0.0, grace - (time.time() - seat.away_since)))

    async def _on_grace(self, c: Command) -> None:
        """The away grace ran out: sit the player out; fold them if it is their turn."""
        assert c.player_id is not None
        self._grace.pop(c.player_id, None)
        if self.config.tournament:
            return  # never sat out: dealt in and blinded away by the clock
        seat = self.seat_of(c.player_id)
        if seat is None or not seat.away or seat.sitting_out:
            return
        seat.sitting_out = True
        try:
            await self._store(self.store.update_seats(self.id, [seat]))
        except TableError:
            seat.sitting_out = False
            self._start_grace(c.player_id, self.runtime.retry_delay)
            return
        self._emit(self._seat_record(seat))
        self._auto_act_if_gone()

    def _cancel_clock(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self.turn_deadline = None

    def _gone(self, hand: Hand, position: int) -> bool:
        """Has the player at `position` left the hand's table: left, removed by the host,
        seat taken by someone else, or sat out by the away grace? They are folded."""
        seat = self.seats[hand.seats[position]]
        return (
            seat is None
            or seat.player_id != hand.players[position]
            or seat.leaving
            or seat.removed
            or (seat.sitting_out and seat.away)
        )

    def _start_turn(self, elapsed: float = 0.0) -> None:
        """Announce who acts and arm the clock (or act at once for a player who left).
        `elapsed`: seconds of this decision already gone (a turn resumed after a restart)."""
        hand = self.hand
        assert hand is not None and hand.state.actor is not None
        self._cancel_clock()
        self._bank_started = None
        seat = self.seats[hand.seats[hand.state.actor]]
        gone = self._gone(hand, hand.state.actor)
        bank = seat.time_bank if seat is not None else 0.0
        timeout: float | None = None
        in_bank = False
        if self.runtime.clock_enabled and self.config.decision_time > 0 and not gone:
            left = self.config.decision_time - elapsed
            if left > 0 or seat is None:
                timeout = max(0.0, left)
                self._arm(timeout, hand, "decision")
            else:  # the decision time ran out while the table was down: the bank runs
                seat.time_bank = bank = max(0.0, bank + left)
                self._bank_started = self.now()
                timeout, in_bank = bank, True
                self._arm(bank, hand, "bank")
        self._emit(turn_record(hand, timeout, bank, in_bank))
        if gone:
            self.post(Command("auto", data={"hand": hand.id, "counter": hand.counter}))

    def _arm(self, seconds: float, hand: Hand, stage: str) -> None:
        self.turn_deadline = self.now() + seconds
        self._timer = asyncio.get_running_loop().call_later(
            seconds,
            self.post,
            Command("timeout", data={"hand": hand.id, "counter": hand.counter, "stage": stage}),
        )

    def _auto_act_if_gone(self) -> None:
        hand = self.hand
        if hand is None or hand.state.actor is None:
            return
        if self._gone(hand, hand.state.actor):
            self.post(Command("auto", data={"hand": hand.id, "counter": hand.counter}))

    def _current(self, c: Command) -> Hand | None:
        hand = self.hand
        if hand is None or hand.state.complete:
            return None
        if c.data.get("hand") != hand.id or c.data.get("counter") != hand.counter:
            return None
        return hand

    async def _on_timeout(self, c: Command) -> None:
        hand = self._current(c)
        if hand is None or hand.state.actor is None:
            return
        self._timer = None
        seat = self.seats[hand.seats[hand.state.actor]]
        if c.data.get("stage") == "decision" and seat is not None and seat.time_bank > 0:
            self._start_time_bank(hand, seat)
            return
        await self._auto_act(hand)

    def _start_time_bank(self, hand: Hand, seat: Seat) -> None:
        self._cancel_clock()
        self._bank_started = self.now()
        self._arm(seat.time_bank, hand, "bank")
        self._emit(turn_record(hand, seat.time_bank, seat.time_bank, True))

    async def _on_auto(self, c: Command) -> None:
        hand = self._current(c)
        if hand is not None and hand.state.actor is not None:
            await self._auto_act(hand)

    async def _auto_act(self, hand: Hand) -> None:
        """The clock acts: check if possible, else fold; vote no; muck if allowed, else show.
        A player who is gone (`_gone`) is folded, never checked for. If the action cannot
        be stored, the clock tries again after `retry_delay` (the hand must not freeze)."""
        legal = hand.state.legal_actions()
        assert legal is not None
        p = legal.player
        if legal.phase is Phase.RUN_IT_TWICE:
            action = Action(p, ActionKind.RUN_TWICE, agree=False)
        elif legal.phase is Phase.SHOWDOWN:
            action = Action(p, ActionKind.MUCK if legal.muck else ActionKind.SHOW)
        elif legal.check and not self._gone(hand, p):
            action = Action(p, ActionKind.CHECK)
        else:
            action = Action(p, ActionKind.FOLD)
        try:
            await self._apply(hand, action, auto=True)
        except TableError as error:
            if error.code != "unavailable":
                raise
            self._cancel_clock()
            self._arm(self.runtime.retry_delay, hand, "retry")

    async def _on_more_time(self, c: Command) -> dict[str, Any]:
        """The player to act starts their time bank now instead of when the decision time
        runs out."""
        hand = self.hand
        position = hand.position_of_player(c.player_id or "") if hand is not None else None
        if hand is None or hand.state.complete or position is None:
            raise TableError("not_in_hand", "you are not in the hand being played")
        if hand.state.actor != position:
            raise TableError("not_your_turn", "it is not your turn")
        seat = self._my_seat(c)
        if self._bank_started is not None:
            raise TableError("in_time_bank", "your time bank is already running")
        if self._timer is None or seat.time_bank <= 0:
            raise TableError("no_time_bank", "there is no time bank to start")
        self._start_time_bank(hand, seat)
        return {"time_bank": round(seat.time_bank, 3)}
