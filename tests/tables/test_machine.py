"""The table machine driven synchronously: commands and the time in, effects and needs out.
No event loop, no store, no clock: each test says what time it is and which writes fail."""

from __future__ import annotations

from typing import Any

from app.poker import ActionKind
from app.tables.clock import NEXT_HAND, TURN, Stage, Timer, grace_left, turn_time
from app.tables.commands import (
    Act,
    Adjust,
    Attach,
    Auto,
    Detach,
    Fire,
    MoreTime,
    Pause,
    Sit,
    Start,
    TableCommand,
    TopUp,
)
from app.tables.config import TableConfig
from app.tables.core import TableCore
from app.tables.effects import Arm, Cancel, Emit, Need, Post, Welcome, Write
from app.tables.errors import TableError
from app.tables.machine import Outcome, TableMachine
from app.tables.ops import AddChips, RecordAction, SeatPlayer, SetAway, StartHand, UpdateSeats
from app.tables.runtime import Runtime
from app.tables.seat import SeatState
from app.tables.store_protocol import StoredTable

RUNTIME = Runtime(between_hands=2.0, away_grace=60.0, deal_unwatched=True, retry_delay=1.0)
DOWN = TableError("unavailable", "that could not be stored; try again")


class Table:
    """A machine and its clock: `do` runs a command at the current time."""

    def __init__(self, config: TableConfig, runtime: Runtime = RUNTIME) -> None:
        stored = StoredTable("6f1c2a0e-0000-4000-8000-000000000001", "code", "host", config)
        self.core = TableCore(stored, runtime, deck_source=lambda: list(range(52)))
        self.machine = TableMachine(self.core)
        self.now = 1000.0
        self.failing: type | None = None  # writes of this kind fail

    def do(self, command: TableCommand) -> Outcome:
        def refuse(need: Need) -> TableError | None:
            failing = self.failing
            stored = not (failing and isinstance(need, Write) and isinstance(need.op, failing))
            return None if stored else DOWN

        return self.machine.run(command, self.now, refuse)

    def ok(self, command: TableCommand) -> Outcome:
        outcome = self.do(command)
        assert outcome.error is None, outcome.error
        return outcome

    def fire_due(self) -> list[Outcome]:
        """Fire every timer due by now, earliest first (as the actor's would)."""
        out = []
        while due := sorted((at, t) for t, at in self.core.clock.deadlines.items()
                            if at <= self.now):  # fmt: skip
            at, timer = due[0]
            out.append(self.ok(Fire(timer=timer, at=at)))
        return out

    def sit(self, player: str, seat: int, buy_in: int = 100) -> Outcome:
        return self.ok(Sit(sender=player, seat=seat, buy_in=buy_in, name=player))

    def act(self, action: ActionKind, amount: int | None = None) -> Outcome:
        hand = self.core.hand
        assert hand is not None and hand.state.actor is not None
        return self.ok(Act(sender=hand.players[hand.state.actor], hand=hand.id,
                           counter=hand.counter, action=action, amount=amount))  # fmt: skip


def dealt(config: TableConfig, *players: str) -> Table:
    """A table with `players` seated from seat 0 and its first hand dealt."""
    t = Table(config)
    for seat, player in enumerate(players):
        t.sit(player, seat)
    t.fire_due()
    assert t.core.hand is not None
    return t


def records(outcome: Outcome) -> list[dict[str, Any]]:
    return [r.public for e in outcome.did if isinstance(e, Emit) for r in e.records]


def writes(outcome: Outcome) -> list[Any]:
    return [e.op for e in outcome.did if isinstance(e, Write)]


def test_a_seat_is_stored_before_it_is_told_and_the_deal_is_a_timer() -> None:
    t = Table(TableConfig(seats=3, decision_time=0))
    started = t.ok(Start())  # makes the session's seed, then settles and deals if it can
    assert [type(op).__name__ for op in writes(started)] == ["StartDealSeed"]
    assert started.did[-1] == Arm(NEXT_HAND, t.now) and t.fire_due()[0].did == []
    sat = t.sit("host", 0)
    kinds = [type(e).__name__ for e in sat.did]
    # the player's preferences read (the seat copies them), stored, told, the deal armed
    assert kinds == ["Read", "Write", "Emit", "Arm"]
    assert isinstance(sat.did[1], Write) and isinstance(sat.did[1].op, SeatPlayer)
    assert sat.did[3] == Arm(NEXT_HAND, t.now)
    assert records(sat)[0]["status"] == "waiting" and sat.result == {"status": "seated", "seat": 0}
    assert all(o.result is None for o in t.fire_due())  # one player: nothing dealt
    assert t.core.hand is None
    t.sit("a", 1)
    (dealt,) = t.fire_due()
    assert [type(op).__name__ for op in writes(dealt)] == ["StartHand"]
    types = [r["type"] for r in records(dealt)]
    assert types[0] == "hand_started" and types[-1] == "turn"
    hand = t.core.hand
    assert hand is not None and hand.number == 1
    assert all(s.state is SeatState.PLAYING for s in t.core.seats.taken())


def test_a_failed_write_leaves_the_machine_as_it_was_with_no_undo_in_the_command() -> None:
    t = dealt(TableConfig(seats=3, decision_time=0), "host", "a")
    kept = t.core.kept
    hand = t.core.hand
    assert hand is not None
    fingerprint = hand.state.fingerprint()
    t.failing = RecordAction
    refused = t.do(Act(sender=hand.players[hand.state.actor or 0], hand=hand.id, counter=0,
                       action=ActionKind.CALL))  # fmt: skip
    assert refused.error is not None and refused.error.code == "unavailable"
    assert t.core.kept is kept and hand.state.fingerprint() == fingerprint
    assert not records(refused)  # nobody heard of it
    t.failing = AddChips  # a top-up between hands changes the stack only if stored
    t.ok(Pause(sender="host"))
    t.failing = None
    while not hand.state.complete:
        t.act(ActionKind.FOLD)
    t.failing = AddChips
    seat = t.core.seat_of("a")
    assert seat is not None
    refused = t.do(TopUp(sender="a", amount=10))
    assert refused.error is not None and t.core.seat_of("a") == seat


def test_settling_after_a_hand_keeps_what_was_stored_and_retries_the_rest() -> None:
    t = dealt(TableConfig(seats=3, decision_time=0), "host", "a")
    t.ok(Adjust(sender="host", seat=0, amount=5, reason="tip"))  # both wait for the hand's end
    t.ok(TopUp(sender="a", amount=20))
    t.ok(Pause(sender="host"))
    t.failing = AddChips  # the adjustment is stored, the top-up is not
    while t.core.hand_running():
        t.act(ActionKind.FOLD)
    host, a = t.core.seat_of("host"), t.core.seat_of("a")
    assert host is not None and host.pending_adjust == 0  # stored: applied once
    assert a is not None and a.pending_top_up == 20  # kept for the next try
    assert NEXT_HAND in t.core.clock.deadlines  # and the next try armed (even paused)
    t.failing = None
    t.now += 2.0
    t.fire_due()
    a = t.core.seat_of("a")
    assert a is not None and a.pending_top_up == 0


def test_the_clock_is_data_the_bank_runs_after_the_decision_time_and_is_spent() -> None:
    t = dealt(TableConfig(seats=3, decision_time=30, time_bank=10), "host", "a")
    hand = t.core.hand
    assert hand is not None
    assert t.core.clock.deadlines[TURN] == t.now + 30 and t.core.clock.turn_deadline == t.now + 30
    actor = hand.players[hand.state.actor or 0]
    t.now += 30
    (banked,) = t.fire_due()
    assert records(banked)[-1]["in_time_bank"] and records(banked)[-1]["timeout"] == 10
    t.now += 4
    acted = t.act(ActionKind.CALL)
    (record,) = [op for op in writes(acted) if isinstance(op, RecordAction)]
    assert record.spent is not None and record.spent.time_bank == 6  # stored with the action
    seat = t.core.seat_of(actor)
    assert seat is not None and seat.time_bank == 6
    stale = t.do(Fire(timer=TURN, at=t.now - 4))  # the bank's timer, replaced since
    assert stale.did == [] and stale.result is None


def test_more_time_starts_the_bank_now_and_only_once() -> None:
    t = dealt(TableConfig(seats=3, decision_time=30, time_bank=10), "host", "a")
    hand = t.core.hand
    assert hand is not None
    actor = hand.players[hand.state.actor or 0]
    started = t.ok(MoreTime(sender=actor))
    assert started.result == {"time_bank": 10.0}
    assert Arm(TURN, t.now + 10) in started.did and Cancel(TURN) in started.did
    again = t.do(MoreTime(sender=actor))
    assert again.error is not None and again.error.code == "in_time_bank"


def test_the_away_grace_is_a_deadline_kept_across_a_restart() -> None:
    assert grace_left(60, None, 500) == 60
    assert grace_left(60, 470, 500) == 30 and grace_left(60, 400, 500) == 0
    t = Table(TableConfig(seats=3, decision_time=0))
    t.sit("a", 1)
    t.fire_due()
    t.ok(Attach(sender="a", viewer=7))
    left = t.ok(Detach(sender="a", viewer=7))
    assert left.did[-2:] == [Write(SetAway(1, t.now), best_effort=True),
                             Arm(Timer.grace("a"), t.now + 60)]  # fmt: skip
    t.now += 59
    assert t.fire_due() == []
    t.now += 1
    (sat_out,) = t.fire_due()
    seat = t.core.seat_of("a")
    assert seat is not None and seat.sitting_out and seat.state is SeatState.SITTING_OUT_WAITING
    assert isinstance(writes(sat_out)[0], UpdateSeats)


def test_a_best_effort_write_that_fails_changes_nothing_back() -> None:
    t = Table(TableConfig(seats=3, decision_time=0))
    t.sit("a", 1)
    t.ok(Attach(sender="a", viewer=7))
    t.failing = SetAway
    t.ok(Detach(sender="a", viewer=7))  # when a went away is not stored: kept all the same
    seat = t.core.seat_of("a")
    assert seat is not None and seat.away and seat.away_since == t.now


def test_a_welcome_comes_before_the_records_the_attach_causes() -> None:
    t = Table(TableConfig(seats=3, decision_time=0))
    t.sit("a", 1)
    back = t.ok(Attach(sender="a", viewer=3, stream="s", since=4))
    assert isinstance(back.did[0], Welcome) and back.did[0] == Welcome(3, "s", 4)
    assert records(back)[0]["type"] == "seat" and records(back)[0]["away"] is False


def test_a_player_gone_on_their_turn_is_folded_by_the_table() -> None:
    t = Table(TableConfig(seats=3, decision_time=0))
    t.sit("host", 0)
    t.sit("a", 1)
    t.sit("b", 2)
    t.fire_due()
    hand = t.core.hand
    assert hand is not None
    actor = hand.players[hand.state.actor or 0]
    t.ok(Attach(sender=actor, viewer=1))
    left = t.ok(Detach(sender=actor, viewer=1))
    assert not any(isinstance(e, Post) for e in left.did)  # away, within the grace
    t.now += 60
    (graced,) = t.fire_due()
    (post,) = [e for e in graced.did if isinstance(e, Post)]
    assert post.command == Auto(hand=hand.id, counter=hand.counter)
    t.ok(post.command)
    assert hand.state.folded[hand.players.index(actor)]


def test_turn_time() -> None:
    assert turn_time(30, 10, 0, clock_on=True, seated=True).timeout == 30
    resumed = turn_time(30, 10, 35, clock_on=True, seated=True)  # 5 s of the bank gone too
    assert (resumed.timeout, resumed.bank, resumed.stage) == (5, 5, Stage.BANK)
    assert turn_time(30, 10, 0, clock_on=False, seated=True).timeout is None


def test_the_deal_stores_the_hand_with_its_seats_dealt_in() -> None:
    t = Table(TableConfig(seats=3, decision_time=0))
    t.sit("host", 0)
    t.sit("a", 1)
    t.failing = StartHand
    t.fire_due()
    assert t.core.hand is None and all(
        s is None or s.state is SeatState.WAITING for s in t.core.seats
    )  # not dealt: nobody's waiting is over
    assert NEXT_HAND in t.core.clock.deadlines  # tried again later
    t.failing = None
    t.now += 2
    (dealt,) = t.fire_due()
    (start,) = [op for op in writes(dealt) if isinstance(op, StartHand)]
    assert all(s.state is SeatState.PLAYING for s in start.seats)
