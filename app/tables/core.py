"""The table machine's state, and the moves every part of it makes (app/tables/machine.py
says how the parts fit).

The state has two halves. `Kept` is what the store keeps of a table: one frozen value,
replaced (never changed) by every command that changes it, so the state of a table at a
commit point is one reference; the hand in play (`TableCore.hand`) goes with it. A write
that fails puts both back as they were after the last write that succeeded
(`checkpoint`/`restore`, in the driver): no command undoes its own changes. The rest is
the table's moment, which no write depends on: its clock (app/tables/clock.py), who is
watching, the bots running, the chat rate, whether it is idle or closing.

Everything here is synchronous and pure: `now` (the table clock's seconds) is given with
each command, effects are appended to `effects` for the actor, and a write or read is a
`Need` that a command's flow yields (`yield Write(...)`).
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable, Generator, Mapping
from typing import Any, NamedTuple, TypeVar

from app.poker import HandState
from app.rate import SlidingWindow
from app.tables.clock import (
    NEXT_HAND,
    TURN,
    DecisionClock,
    Stage,
    Timer,
    Turn,
    TurnClock,
    grace_left,
)
from app.tables.commands import Auto
from app.tables.config import MAX_CHIPS, TableConfig
from app.tables.effects import (
    Arm,
    Cancel,
    Effect,
    Emit,
    Need,
    Post,
    StartBot,
    StopBot,
    Write,
)
from app.tables.errors import TableError
from app.tables.fairness import HandDeal, ServerSeed
from app.tables.hand import Hand
from app.tables.labels import table_labels
from app.tables.ops import SaveTable, SetAway, UpdateSeats
from app.tables.runtime import Runtime
from app.tables.seat import GONE, Seat, SeatBook, SeatRequest
from app.tables.store_protocol import CHAT_KEPT, StoredTable
from app.tables.views import Record, seat_json

log = logging.getLogger("omaha.tables")
R = TypeVar("R")
#: a command's course: yields what it needs stored or read, gets the outcome, returns R
Flow = Generator[Need, Any, R]
#: what a command answers (`ok` with these fields), None: `ok` alone
Reply = dict[str, Any] | None


class Kept(NamedTuple):
    """What the store keeps of a table (a named tuple: a value, cheap to copy with a
    change: `kept._replace(paused=True)`)."""

    host_id: str
    config: TableConfig
    next_config: TableConfig | None
    button: int | None
    paused: bool
    hand_number: int
    #: the blind seats of the last hand before a restart (the dead button places the next)
    last_blinds: tuple[int | None, int | None]
    seats: SeatBook
    requests: Mapping[str, SeatRequest]  # by player, in the order they came
    bomb_pot_next: bool
    #: this session's server seed (app.tables.seeds); made before the first deal
    server_seed: ServerSeed | None
    chat: tuple[dict[str, Any], ...]  # the latest, oldest first
    #: the turn's clock across the host's pause (stopped while `since` is None)
    turn_clock: TurnClock | None = None


#: the state to go back to when a write fails: the kept value, the hand and its length
Checkpoint = tuple[Kept, Hand | None, int]


class TableCore:
    """One table's state and its moves (owned by one `TableMachine`)."""

    def __init__(
        self,
        stored: StoredTable,
        runtime: Runtime,
        deck_source: Callable[[], list[int]] | None = None,
    ) -> None:
        self.id = stored.id
        self.code = stored.code
        #: this actor's own name: a restart from the store is another (a tournament's
        #: director tells by it whether the actor that accepted its deal still runs)
        self.actor = uuid.uuid4().hex
        self.runtime = runtime
        self.deck_source = deck_source
        seated = {s.player_id for s in stored.seats}
        requests = (SeatRequest.from_stored(data) for data in stored.requests)
        self.kept = Kept(
            host_id=stored.host_id,
            config=stored.config,
            next_config=stored.next_config,
            button=stored.button,
            paused=stored.paused,
            hand_number=stored.hand_number,
            last_blinds=stored.last_blinds,
            seats=SeatBook.empty(stored.config.seats).put(
                *(s._replace(away=True) for s in stored.seats)  # nobody is connected yet
            ),
            # one approved before a crash is seated already
            requests={r.player_id: r for r in requests if r.player_id not in seated},
            bomb_pot_next=stored.bomb_pot_next,
            server_seed=stored.deal_seed,
            chat=tuple(stored.chat)[-CHAT_KEPT:],
            turn_clock=TurnClock.from_stored(stored.turn_clock),
        )  # fmt: skip
        self.hand: Hand | None = None
        if stored.hand is not None:
            h = stored.hand
            self.hand = Hand.replay(h.id, h.number, h.record, h.deck, h.actions)
            self.hand.deal = HandDeal.from_stored(h.deal, h.deck)
        #: a hand was in play when the table stopped: its clock resumes with this gone
        self.elapsed = stored.hand.elapsed if stored.hand is not None else None
        self.clock = DecisionClock()
        #: who watches, by viewer id (None: a spectator without a session)
        self.watchers: dict[int, str | None] = {}
        #: each player watching (or who watched the last hand) and their visit as noted:
        #: its first and last hand (app/tables/watching.py)
        self.watching: dict[str, tuple[int, int]] = {}
        #: the players whose practice bots run
        self.bots: set[str] = set()
        #: each person's chat messages in the last `chat_window` (a burst of `chat_burst`)
        self.chat_rate = SlidingWindow(runtime.chat_burst, runtime.chat_window)
        #: no seated player connected: no new hand is dealt (shown as paused) until one is
        self.idle = False
        #: the host closed the table: it deals no more hand (`closing`), then ends (`closed`)
        self.closing = False
        self.closed = False
        #: its process is stopping: the hand in play ends, no other is dealt here
        self.draining = False
        #: a tournament table deals only when its director called the deal
        self.deal_called = False
        self.now = 0.0
        self.effects: list[Effect] = []

    # ------------------------------------------------------------- state
    @property
    def config(self) -> TableConfig:
        return self.kept.config

    @property
    def seats(self) -> SeatBook:
        return self.kept.seats

    def seat_of(self, player_id: str) -> Seat | None:
        return self.kept.seats.of(player_id)

    def put(self, *seats: Seat) -> None:
        self.kept = self.kept._replace(seats=self.kept.seats.put(*seats))

    def checkpoint(self) -> Checkpoint:
        hand = self.hand
        return self.kept, hand, hand.counter if hand is not None else 0

    def restore(self, checkpoint: Checkpoint) -> None:
        self.kept, hand, counter = checkpoint
        self.hand = hand
        if hand is not None and hand.counter != counter:
            s = hand.state
            hand.state = HandState.replay(s.setup, s.deck, s.history[:counter])

    def hand_running(self) -> bool:
        return self.hand is not None and not self.hand.state.complete

    def in_hand(self, seat: Seat) -> bool:
        hand = self.hand
        return (
            self.hand_running()
            and hand is not None
            and (hand.position_of_player(seat.player_id) is not None)
        )

    # ------------------------------------------------------------- effects
    def emit(self, *records: Record, hand_start: bool = False) -> None:
        if records:
            self.effects.append(Emit(records, hand_start))

    def arm(self, timer: Timer, at: float) -> None:
        self.clock.arm(timer, at)
        self.effects.append(Arm(timer, at))

    def disarm(self, timer: Timer) -> None:
        if self.clock.cancel(timer):
            self.effects.append(Cancel(timer))

    def post(self, command: Auto) -> None:
        self.effects.append(Post(command))

    def seat_record(self, seat: Seat) -> Record:
        """A seat as everyone sees it; its own player also gets their showdown preferences."""
        prefs = {"auto_muck": seat.auto_muck, "always_show": seat.always_show}
        return Record({"type": "seat", **seat_json(seat)}, {seat.player_id: {"preferences": prefs}})

    def table_record(self) -> Record:
        k = self.kept
        return Record(
            {
                "type": "table",
                "host": k.host_id,
                "paused": k.paused or self.idle,
                "idle": self.idle,
                "bomb_pot_next": k.bomb_pot_next,
                "config": k.config.model_dump(mode="json"),
                "labels": table_labels(k.config),
                "next_config": k.next_config.model_dump(mode="json") if k.next_config else None,
            }
        )

    def save_table(self, *, best_effort: bool = False) -> Write:
        k = self.kept
        return Write(SaveTable(k.host_id, k.config, k.button, k.paused, k.hand_number,
                               k.next_config, k.requests, k.turn_clock), best_effort)  # fmt: skip

    @staticmethod
    def save_seats(*seats: Seat) -> Write:
        return Write(UpdateSeats(seats))

    # ------------------------------------------------------------- checks
    def check_buy_in(self, amount: int | None) -> int:
        if amount is None:
            raise TableError("bad_amount", "a buy-in is a whole number of chips")
        lo, hi = self.config.buy_in_min, self.config.buy_in_max
        if not lo <= amount <= hi:
            raise TableError("bad_buy_in", f"the buy-in is between {lo} and {hi}")
        return amount

    def free_seat(self, number: int | None) -> int:
        if number is None or not (0 <= number < len(self.seats)):
            raise TableError("no_such_seat", f"seats are numbered 0 to {len(self.seats) - 1}")
        if self.seats[number] is not None:
            raise TableError("seat_taken", f"seat {number} is taken")
        return number

    @staticmethod
    def check_chips(amount: int | None, *, signed: bool = False) -> int:
        if amount is None:
            raise TableError("bad_amount", "an amount is a whole number of chips")
        if abs(amount) > MAX_CHIPS or (amount <= 0 and not signed) or amount == 0:
            raise TableError("bad_amount", "that amount is out of range")
        return amount

    def my_seat(self, player_id: str | None) -> Seat:
        seat = self.seat_of(player_id) if player_id is not None else None
        if seat is None:
            raise TableError("not_seated", "you have no seat at this table")
        return seat

    # ------------------------------------------------------------- the next deal
    def schedule_next_hand(self, delay: float, *, even_paused: bool = False) -> None:
        k = self.kept
        if self.hand_running() or ((k.paused or self.closing) and not even_paused):
            return
        if self.draining:  # its process stops: the table is handed over between hands
            return
        if k.config.tournament and not self.deal_called:
            return  # the director calls each deal
        if self.clock.armed(NEXT_HAND):
            return
        self.arm(NEXT_HAND, self.now + delay)

    def retry_next_hand(self) -> None:
        """A write before the deal failed: try again (seats still to settle: even paused)."""
        runtime = self.runtime
        self.schedule_next_hand(max(runtime.retry_delay, runtime.between_hands), even_paused=True)

    def watched(self) -> bool:
        """Is a seated player connected (or, at a table with bots, anyone watching them)?
        Nobody is dealt in for ever by an empty room."""
        if self.runtime.deal_unwatched or self.config.tournament:
            return True  # a tournament's clock runs whoever watches
        people = [p for p in self.watchers.values() if p is not None and p not in self.bots]
        return any(self.seat_of(p) is not None for p in people) or bool(self.bots and people)

    # ------------------------------------------------------------- the turn clock
    def clock_stopped(self) -> bool:
        """Does the host's pause stop the clock of the hand in play (app/tables/pausing.py)?
        Not a close's pause, nor a table idle: those let the hand play out on its clock."""
        clock, hand = self.kept.turn_clock, self.hand
        return (
            clock is not None
            and clock.since is None
            and hand is not None
            and clock.hand == hand.id
            and not hand.state.complete
        )

    def arm_turn(self, hand: Hand, seconds: float, stage: Stage) -> None:
        self.clock.turn = Turn(hand.id, hand.counter, stage)
        self.clock.turn_deadline = self.now + seconds
        self.arm(TURN, self.now + seconds)

    def cancel_clock(self) -> None:
        self.disarm(TURN)
        self.clock.turn = None
        self.clock.turn_deadline = self.clock.stopped_left = None
        self.clock.bank_news = None

    def gone(self, hand: Hand, position: int) -> bool:
        """Has the player at `position` left the hand's table: left, removed by the host,
        seat taken by someone else, or sat out by the away grace? They are folded."""
        seat = self.kept.seats[hand.seats[position]]
        return (
            seat is None
            or seat.player_id != hand.players[position]
            or seat.state in GONE
            or (seat.away and seat.sitting_out)
        )

    def auto_act_if_gone(self) -> None:
        hand = self.hand
        if hand is None or hand.state.actor is None:
            return
        if self.gone(hand, hand.state.actor):
            self.post(Auto(hand=hand.id, counter=hand.counter))

    # ------------------------------------------------------------- away and bots
    def start_grace(self, player_id: str, delay: float) -> None:
        self.arm(Timer.grace(player_id), self.now + delay)

    def grace_left(self, seat: Seat) -> float:
        return grace_left(self.runtime.away_grace, seat.away_since, self.now)

    def note_away(self, seat: Seat, away: bool) -> Flow[Seat]:
        """Keep when the seat's player went away (now), or that they are back, so the away
        grace continues across a restart. Best effort: not stored, a restart gives the grace
        in full. Returns the seat as it is now."""
        since = self.now if away else None
        if not away and seat.away_since is None:
            return seat
        seat = seat._replace(away_since=since)
        self.put(seat)
        if (yield Write(SetAway(seat.number, since), best_effort=True)) is not None:
            log.warning("table %s: cannot store when seat %s went away", self.id, seat.number)
        return seat

    def bot_buy_in(self, seat: Seat) -> int:
        """What a bot tops up to when busted (0: never, a tournament's)."""
        config = self.config
        return 0 if config.tournament else seat.stack or config.buy_in_max

    def start_bot(self, seat: Seat) -> None:
        if seat.player_id in self.bots:
            return
        self.bots.add(seat.player_id)
        self.effects.append(StartBot(seat.player_id, self.bot_buy_in(seat)))

    def stop_bot(self, player_id: str) -> None:
        if player_id in self.bots:
            self.bots.discard(player_id)
            self.effects.append(StopBot(player_id))
