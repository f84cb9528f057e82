"""The hand: scheduling and dealing the next hand, applying actions, ending the hand and
settling the seats, resuming a hand after a restart.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid
from typing import TYPE_CHECKING, Any

from app.poker import Action, ActionKind, HandSetup, HandState, IllegalAction
from app.tables.button import Deal, note_missed, plan_deal, seat_dealt
from app.tables.config import MAX_CHIPS
from app.tables.errors import TableError
from app.tables.fairness import hand_fields
from app.tables.hand import Hand
from app.tables.seat import Seat
from app.tables.views import Record, event_records

if TYPE_CHECKING:
    pass


from app.tables.command import Command
from app.tables.state import TableState

log = logging.getLogger("omaha.tables")


class Dealer(TableState):
    def _hand_running(self) -> bool:
        return self.hand is not None and not self.hand.state.complete

    async def _resume(self) -> None:
        """After a (re)start: continue the stored hand where it stopped (its clock with the
        time that was left), or settle and deal. Nobody is connected yet: every seated person
        gets the away grace, as on a disconnect, so one who never returns is sat out; one
        already away before the restart gets what was left of it."""
        for seat in self.seats:
            if seat is not None and seat.bot:
                self._start_bot(seat)
            elif seat is not None:
                if seat.away_since is None:  # here when the table stopped: away from now
                    await self._note_away(seat, True)
                self._start_grace(seat.player_id, self._grace_left(seat))
        with contextlib.suppress(TableError):  # else made at the first deal
            await self._ensure_seed()
        hand = self.hand
        if hand is not None and not hand.state.complete:
            log.info("table %s: hand %s continues after a restart", self.id, hand.number)
            self._start_turn(self._elapsed or 0.0)
        else:
            self._schedule_next_hand(0.0, even_paused=True)  # settles what is pending

    def _schedule_next_hand(self, delay: float, *, even_paused: bool = False) -> None:
        if self._hand_running() or ((self.paused or self.closing) and not even_paused):
            return
        if self.draining:  # its process stops: the table is handed over between hands
            return
        if self.config.tournament and not self.deal_called:
            return  # the director calls each deal
        if self._next_hand_timer is not None:
            return
        self._next_hand_timer = asyncio.get_running_loop().call_later(
            delay, self.post, Command("next_hand")
        )

    def _retry_next_hand(self) -> None:
        """A write before the deal failed: try again (seats still to settle: even paused)."""
        self._schedule_next_hand(
            max(self.runtime.retry_delay, self.runtime.between_hands), even_paused=True
        )

    def _watched(self) -> bool:
        """Is a seated player connected (or, at a table with bots, anyone watching them)?
        Nobody is dealt in for ever by an empty room."""
        if self.runtime.deal_unwatched or self.config.tournament:
            return True  # a tournament's clock runs whoever watches
        people = [
            v.player_id
            for v in self.viewers.values()
            if v.player_id is not None and v.player_id not in self._bots
        ]
        return any(self.seat_of(p) is not None for p in people) or bool(self._bots and people)

    async def _on_next_hand(self, c: Command) -> None:
        self._next_hand_timer = None
        if self._hand_running():
            return
        try:
            changed = await self._settle_seats()
        except TableError:
            self._retry_next_hand()
            return
        for seat in changed:
            if self.seats[seat.number] is seat:
                self._emit(self._seat_record(seat))
        if self.closing:
            await self._close_or_retry()
            return
        if self.paused or self.draining:
            return
        # Idle: players to deal to, and none of them here (nor anyone watching the bots).
        dealable = sum(1 for s in self.seats if s is not None and s.can_be_dealt()) >= 2
        idle = dealable and not self._watched()
        if idle != self.idle:
            self.idle = idle
            self._emit(self._table_record())
        if idle:
            return
        if self.next_config is not None:
            config, later = self.config, self.next_config
            self.config, self.next_config = later, None
            try:
                await self._save_table()
            except TableError:
                self.config, self.next_config = config, later
                self._retry_next_hand()
                return
            self._emit(self._table_record())
        number = self.hand_number + 1
        try:
            deal = await self._plan(number)  # the players' sit-out switches, a called bomb pot
        except TableError:
            self._retry_next_hand()
            return
        if deal is None:
            return
        dealt = [self.seats[s] for s in deal.order]
        assert all(s is not None for s in dealt)
        seats: list[Seat] = [s for s in dealt if s is not None]
        setup = HandSetup(
            config=self.config.hand_config(deal.bomb_pot),
            stacks=tuple(s.stack for s in seats),
            blinds=deal.blinds,
            antes=deal.antes,
            posts=deal.posts,
            dead=deal.dead,
        )
        try:
            deck, dealt_from = await self._deal_deck(number)
        except TableError:
            self._retry_next_hand()
            return
        hand = Hand(
            id=str(uuid.uuid4()),
            number=number,
            button=deal.button,
            seats=deal.order,
            players=tuple(s.player_id for s in seats),
            state=HandState(setup, deck),
            straddle=deal.straddle,
            blind_seats=deal.blind_seats,
            names=tuple(s.name for s in seats),
            bots=tuple(p for p, s in enumerate(seats) if s.bot),
            deal=dealt_from,
        )
        flags = [(s.waiting, s.post, s.stack, s.missed_blinds) for s in seats]
        dealt_stacks = [s.stack for s in seats]  # before a hand over as dealt pays out
        for s in seats:
            seat_dealt(s)
        if hand.state.complete:
            # Over as dealt (the blinds put everyone all in): its result is the seats' new
            # stacks, stored with the hand (`start_hand`), as `_apply` does for a last action.
            for p, s in enumerate(seats):
                s.stack = hand.state.stacks[p]
        try:
            await self._store(
                self.store.start_hand(self.id, hand, deck, seats, deal.button, number),
                queued=True,
            )
        except TableError:
            log.error("table %s: cannot store a new hand; retrying", self.id)
            for s, (waiting, post, stack, missed) in zip(seats, flags, strict=True):
                s.waiting, s.post, s.stack, s.missed_blinds = waiting, post, stack, missed
            self._retry_next_hand()
            return
        self.hand, self.button, self.hand_number = hand, deal.button, number
        self.deal_called = False
        await self._note_missed_blinds(deal.missed)
        await self._dealt(deal)
        self._hand_starts.append(self.seq + 1)
        while self.records and self.records[0][0] < self._hand_starts[0]:
            self.records.popleft()  # older than the previous hand: a snapshot serves better
        self._emit(
            Record(
                {
                    "type": "hand_started",
                    "hand": hand.id,
                    "number": number,
                    "button": deal.button,
                    "seats": list(deal.order),
                    "stacks": dealt_stacks,
                    "bomb_pot": deal.bomb_pot,
                    "straddle": deal.straddle,
                    **hand_fields(hand),
                }
            ),
            *event_records(hand, hand.state.log),
        )
        if hand.state.complete:
            await self._end_hand()
        else:
            self._start_turn()

    async def _plan(self, number: int) -> Deal | None:
        """The next deal after the sit-out switches, and a bomb pot if the host called one."""
        changed: list[Seat] = []
        switches = {s.number: (s.sit_out_next, s.sit_out_next_bb, s.sitting_out)
                    for s in self.seats if s is not None}  # fmt: skip
        for seat in self.seats:
            if seat is not None and seat.sit_out_next:
                seat.sit_out_next, seat.sitting_out = False, True
                changed.append(seat)
        config = self.config
        last_blinds = self.hand.blind_seats if self.hand is not None else self.last_blinds
        if self.bomb_pot_next:
            config = config.model_copy(update={"bomb_pot_every": 1})
        deal = plan_deal(self.seats, self.button, config, number, last_blinds)
        while deal is not None:
            big = self._big_blind_seat(deal)
            seat = self.seats[big] if big is not None else None
            if seat is None or not seat.sit_out_next_bb:
                break
            seat.sit_out_next_bb, seat.sitting_out = False, True
            changed.append(seat)
            deal = plan_deal(self.seats, self.button, config, number, last_blinds)
        for i, seat in enumerate(changed):
            try:
                await self._store(self.store.save_switches(self.id, seat))
            except TableError:  # not stored: these switches wait for the next try
                for s in changed[i:]:
                    s.sit_out_next, s.sit_out_next_bb, s.sitting_out = switches[s.number]
                raise
            self._emit(self._seat_record(seat))
        if deal is not None and self._bots_alone(deal):
            return None  # nobody to play for: wait for a person (`_on_attach` deals again)
        return deal

    def _bots_alone(self, deal: Deal) -> bool:
        """Only bots would be dealt in and no person is watching: an abandoned practice table
        does not play on by itself."""
        if self.config.tournament or not all(
            (s := self.seats[n]) is not None and s.bot for n in deal.order
        ):
            return False
        return all(v.player_id is None or v.player_id in self._bots for v in self.viewers.values())

    def _big_blind_seat(self, deal: Deal) -> int | None:
        if deal.bomb_pot:
            return None
        big = [
            seat
            for seat, blind in zip(deal.order, deal.blinds, strict=True)
            if blind == self.config.big_blind and seat != deal.straddle
        ]
        if not big:
            return None
        return big[0] if len(deal.order) == 2 else big[-1]  # heads-up the blinds read (BB, SB)

    async def _dealt(self, deal: Deal) -> None:
        """A hand was dealt: a bomb pot the host called is used up."""
        if self.bomb_pot_next and deal.bomb_pot:
            self.bomb_pot_next = False
            try:
                await self._store(self.store.set_bomb_pot_next(self.id, False))
            except TableError:  # the hand is stored; a restart would call one bomb pot more
                log.error("table %s: cannot store that the bomb pot was used", self.id)
            self._emit(self._table_record())

    async def _note_missed_blinds(self, missed: dict[int, int]) -> None:
        """Seats sitting out that a blind passed owe it (stored: it survives a restart)."""
        changed = note_missed(self.seats, missed)
        if changed:
            try:
                await self._store(self.store.update_seats(self.id, changed))
            except TableError:  # kept in memory; stored with the seats' next write
                log.error("table %s: cannot store missed blinds", self.id)
            for seat in changed:
                self._emit(self._seat_record(seat))

    async def _on_act(self, c: Command) -> dict[str, Any]:
        hand = self.hand
        if hand is None or c.data.get("hand") != hand.id:
            raise TableError("stale_hand", "that hand is not the hand being played")
        pid = c.player_id
        position = hand.position_of_player(pid) if pid is not None else None
        if position is None:
            raise TableError("not_in_hand", "you are not in this hand")
        counter = c.data.get("counter")
        if not isinstance(counter, int) or isinstance(counter, bool):
            raise TableError("bad_counter", "the action counter is a whole number")
        try:
            kind = ActionKind(str(c.data.get("action")))
        except ValueError:
            raise TableError("bad_action", "unknown action") from None
        amount, agree = c.data.get("amount"), c.data.get("agree")
        if kind in (ActionKind.BET, ActionKind.RAISE):
            if (
                not isinstance(amount, int)
                or isinstance(amount, bool)
                or not (0 < amount <= MAX_CHIPS)
            ):
                raise TableError("bad_amount", "bet and raise take a whole number of chips")
        else:
            amount = None
        if kind is ActionKind.RUN_TWICE:
            if not isinstance(agree, bool):
                raise TableError("bad_vote", "a run-it-twice vote is agree: true or false")
        else:
            agree = None
        action = Action(position, kind, amount, agree)
        if counter < hand.counter:
            if hand.state.history[counter] == action:
                raise TableError("duplicate", "that action was already applied")
            raise TableError("stale_counter", "the hand has moved on since that action")
        if counter > hand.counter:
            raise TableError("bad_counter", f"the next action is number {hand.counter}")
        if hand.state.complete:
            raise TableError("hand_over", "the hand is over")
        await self._apply(hand, action)  # the engine verifies it there, once
        return {"applied": counter}

    async def _apply(self, hand: Hand, action: Action, auto: bool = False) -> None:
        """Apply a verified action: commit it, then tell everyone, then move on."""
        counter = hand.counter
        seat = self.seats[hand.seats[action.player]]
        try:
            events = hand.state.apply(action)  # an illegal action raises and changes nothing
        except IllegalAction as error:
            raise TableError(error.code, error.message) from None
        bank = seat.time_bank if seat is not None else 0.0
        spent = seat if seat is not None and self._bank_started is not None else None
        if spent is not None:  # the bank is spent (§7), and stored so with the action
            spent.time_bank = max(0.0, bank - (self.now() - (self._bank_started or 0.0)))
        final: list[Seat] | None = None
        before: dict[int, int] = {}
        if hand.state.complete:
            final = []
            for p, number in enumerate(hand.seats):
                s = self.seats[number]
                if s is not None and s.player_id == hand.players[p]:
                    before[number] = s.stack
                    s.stack = hand.state.stacks[p]
                    final.append(s)
        try:
            await self._store(
                self.store.record_action(self.id, hand, counter, action, final, spent),
                queued=True,
            )
        except TableError:
            log.error("table %s: cannot store an action; it is not applied", self.id)
            hand.state = HandState.replay(
                hand.state.setup, hand.state.deck, hand.state.history[:-1]
            )
            for number, stack in before.items():
                s = self.seats[number]
                if s is not None:
                    s.stack = stack
            if seat is not None:
                seat.time_bank = bank
            raise TableError("unavailable", "the action could not be stored; try again") from None
        self._cancel_clock()
        self._bank_started = None
        self._emit(*event_records(hand, events))
        if hand.state.complete:
            await self._end_hand()
        else:
            self._start_turn()

    async def _on_show(self, c: Command) -> dict[str, Any]:
        """The winner of a pot nobody called shows their hand, once, before the next deal.
        It is the hand's last action (stored like any other, so its record keeps it)."""
        hand = self.hand
        if hand is None or c.data.get("hand") != hand.id:
            raise TableError("stale_hand", "that hand is not the last hand")
        position = hand.position_of_player(c.player_id or "")
        if position is None:
            raise TableError("not_in_hand", "you were not in that hand")
        if not hand.state.complete:
            raise TableError("not_over", "during a hand, show at the showdown (act: show)")
        counter, action = hand.counter, Action(position, ActionKind.SHOW)
        try:
            events = hand.state.apply(action)  # the engine says whether it may show
        except IllegalAction as error:
            raise TableError(error.code, error.message) from None
        try:
            await self._store(
                self.store.record_action(self.id, hand, counter, action, None), queued=True
            )
        except TableError:
            log.error("table %s: cannot store a show; it is not applied", self.id)
            hand.state = HandState.replay(
                hand.state.setup, hand.state.deck, hand.state.history[:-1]
            )
            raise TableError("unavailable", "the show could not be stored; try again") from None
        self._emit(*event_records(hand, events))
        return {"shown": True}

    async def _end_hand(self) -> None:
        """Settle the seats (`_settle_seats`), show them, then schedule the next deal."""
        self._cancel_clock()
        try:
            await self._settle_seats()
        except TableError:
            self._retry_next_hand()  # settles first
        for seat in self.seats:
            if seat is not None:
                self._emit(self._seat_record(seat))
        if self.closing:
            await self._close_or_retry()
            return
        if self.config.tournament:
            self._tell_director()  # it calls the next deal
            return
        self._schedule_next_hand(self.runtime.between_hands)
