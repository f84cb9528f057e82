"""The host's pause stops the clock of the hand in play (app/tables/pausing.py), on the machine
with the time in the test's hands: no turn runs out while paused however long, nor is any time
bank spent; a player may still act, and the next turn starts stopped with its whole time; the
resume restarts the turn with exactly what it had left; a restart while paused stays stopped,
and one after the resume counts from what was left then. Before, a pause only stopped new
deals: the hand in play ran its clocks."""

from __future__ import annotations

from typing import Any

from app.poker import ActionKind
from app.tables.clock import TURN, Stage
from app.tables.commands import Attach, Close, MoreTime, Pause, Resume, Start
from app.tables.config import TableConfig
from app.tables.core import TableCore
from app.tables.effects import Arm
from app.tables.hand import action_to_json
from app.tables.machine import Outcome, TableMachine
from app.tables.ops import SaveTable, UpdateSeats
from app.tables.store_protocol import StoredHand, StoredTable
from app.tables.views import table_view
from tests.tables.test_machine import RUNTIME, Table, dealt, records, writes
from tests.tables.test_pace import SHOWDOWN_TIME, muck_choice

DECISION, BANK = 30.0, 20.0
LONG = 10_000.0  # a pause longer than any clock of the table


def clocked() -> Table:
    """Three players, the first hand dealt: 30 s to decide, then a 20 s bank."""
    return dealt(TableConfig(seats=3, decision_time=DECISION, time_bank=BANK), "host", "a", "b")


def turns(outcome: Outcome) -> list[dict[str, Any]]:
    return [r for r in records(outcome) if r["type"] == "turn"]


def actor(t: Table) -> str:
    hand = t.core.hand
    assert hand is not None and hand.state.actor is not None
    return hand.players[hand.state.actor]


def bank_of(t: Table, player: str) -> float:
    seat = t.core.seat_of(player)
    assert seat is not None
    return seat.time_bank


def stopped(t: Table) -> None:
    """No turn timer armed, and none runs out however long the pause."""
    assert not t.core.clock.armed(TURN)
    hand = t.core.hand
    assert hand is not None
    counter = hand.counter
    t.now += LONG
    assert t.fire_due() == []
    assert hand.counter == counter and not hand.state.complete


def test_a_paused_turn_never_times_out_and_resumes_with_exactly_what_was_left() -> None:
    t = clocked()
    player = actor(t)
    t.now += 10
    paused = t.ok(Pause(sender="host"))
    assert paused.result == {"paused": True}
    (turn,) = turns(paused)  # the turn again: its clock shown stopped, with what it has left
    assert turn["clock_stopped"] and turn["timeout"] == 20 and not turn["in_time_bank"]
    assert records(paused)[0]["type"] == "table" and records(paused)[0]["paused"]
    (save,) = [op for op in writes(paused) if isinstance(op, SaveTable)]
    assert save.paused and save.turn_clock is not None and save.turn_clock.elapsed == 10
    assert t.core.clock.stopped_left == 20
    stopped(t)
    assert bank_of(t, player) == BANK  # no bank spent while paused

    resumed = t.ok(Resume(sender="host"))
    (turn,) = turns(resumed)
    assert not turn["clock_stopped"] and turn["timeout"] == 20 and turn["counter"] == 0
    assert Arm(TURN, t.now + 20) in resumed.did
    t.now += 19.99
    assert t.fire_due() == []
    t.now += 0.01
    (banked,) = t.fire_due()  # the decision time's 20 s left are up: the bank runs, whole
    (turn,) = turns(banked)
    assert turn["in_time_bank"] and turn["timeout"] == BANK and not turn["clock_stopped"]


def test_a_running_time_bank_stops_with_what_it_has_left_and_is_not_spent_while_paused() -> None:
    t = clocked()
    player = actor(t)
    t.now += DECISION
    t.fire_due()  # the bank runs
    t.now += 5
    t.failing = SaveTable  # not stored: not paused, and the bank runs on as it did
    refused = t.do(Pause(sender="host"))
    assert refused.error is not None and refused.error.code == "unavailable"
    assert t.core.clock.deadline(TURN) == t.now + 15 and not t.core.kept.paused
    t.failing = None
    t.now += 2
    paused = t.ok(Pause(sender="host"))
    (turn,) = turns(paused)  # 7 s of the bank spent in all, not 5 twice
    assert turn["clock_stopped"] and turn["in_time_bank"] and turn["timeout"] == 13
    assert bank_of(t, player) == 13  # what it spent before the pause, stored with the seat
    stopped(t)
    assert bank_of(t, player) == 13

    resumed = t.ok(Resume(sender="host"))
    (turn,) = turns(resumed)
    assert turn["in_time_bank"] and turn["timeout"] == 13 and not turn["clock_stopped"]
    assert t.core.clock.turn is not None and t.core.clock.turn.stage is Stage.BANK
    t.now += 12.99
    assert t.fire_due() == []
    t.now += 0.01
    (acted,) = t.fire_due()  # the bank is out: the clock acts
    assert [r["action"] for r in records(acted) if r["type"] == "acted"] == ["fold"]
    assert bank_of(t, player) == 0


def test_the_bank_spent_before_a_pause_is_stored_with_the_seat_first() -> None:
    t = clocked()
    player = actor(t)
    t.now += DECISION
    t.fire_due()
    t.now += 5
    paused = t.ok(Pause(sender="host"))
    (seats,) = [op for op in writes(paused) if isinstance(op, UpdateSeats)]
    assert [(s.player_id, s.time_bank) for s in seats.seats] == [(player, 15)]
    assert [type(op) for op in writes(paused)] == [UpdateSeats, SaveTable]


def test_a_player_may_act_while_paused_and_the_next_turn_starts_stopped_and_whole() -> None:
    t = clocked()
    first = actor(t)
    t.now += 25
    t.ok(Pause(sender="host"))
    t.now += 100
    called = t.act(ActionKind.CALL)  # applied as usual
    assert [r["action"] for r in records(called) if r["type"] == "acted"] == ["call"]
    (turn,) = turns(called)
    assert turn["clock_stopped"] and turn["timeout"] == DECISION and turn["counter"] == 1
    assert t.core.clock.stopped_left == DECISION
    assert bank_of(t, first) == BANK
    second = actor(t)
    stopped(t)
    resumed = t.ok(Resume(sender="host"))
    assert Arm(TURN, t.now + DECISION) in resumed.did  # its whole decision time
    assert turns(resumed)[0]["timeout"] == DECISION and bank_of(t, second) == BANK


def test_more_time_is_refused_while_the_clock_is_stopped() -> None:
    t = clocked()
    player = actor(t)
    t.ok(Pause(sender="host"))
    refused = t.do(MoreTime(sender=player))
    assert refused.error is not None and refused.error.code == "clock_stopped"
    assert refused.did == [] and bank_of(t, player) == BANK


def test_the_short_showdown_clock_stops_too() -> None:
    t, _ = muck_choice()
    hand = t.core.hand
    assert hand is not None and not hand.state.complete
    t.now += 1
    paused = t.ok(Pause(sender="host"))
    (turn,) = turns(paused)
    assert turn["short"] and turn["clock_stopped"] and turn["timeout"] == SHOWDOWN_TIME - 1
    stopped(t)
    resumed = t.ok(Resume(sender="host"))
    assert Arm(TURN, t.now + SHOWDOWN_TIME - 1) in resumed.did
    t.now += SHOWDOWN_TIME - 1
    t.fire_due()  # the short clock is up: the table mucks
    assert hand.state.complete


def test_pausing_twice_changes_nothing_and_a_close_does_not_stop_the_clock() -> None:
    t = clocked()
    t.now += 10
    t.ok(Pause(sender="host"))
    t.now += 50
    again = t.ok(Pause(sender="host"))
    assert turns(again) == [] and t.core.clock.stopped_left == 20
    t.ok(Resume(sender="host"))
    t.ok(Close(sender="host"))  # stored as a pause (no deal after a crash): the hand plays out
    assert t.core.kept.paused and t.core.clock.armed(TURN)
    t.now += 20
    assert t.fire_due()  # the clock runs on


# ------------------------------------------------------------------ restarts
def restarted(t: Table, *, down: float, elapsed: float) -> tuple[Table, Outcome]:
    """The table as it stored itself, started again `down` seconds later, the store measuring
    `elapsed` seconds since the hand's last action (the hand's `elapsed`); its players then
    come back."""
    core, hand = t.core, t.core.hand
    assert hand is not None
    k = core.kept
    stored = StoredTable(
        core.id, "code", k.host_id, k.config, button=k.button, paused=k.paused,
        hand_number=k.hand_number, seats=list(k.seats.taken()),
        hand=StoredHand(hand.id, hand.number, hand.record(), list(hand.state.deck),
                        [action_to_json(a) for a in hand.state.history], elapsed=elapsed),
        turn_clock=k.turn_clock.stored() if k.turn_clock is not None else None,
    )  # fmt: skip
    again = Table(k.config)
    again.core = TableCore(stored, RUNTIME)
    again.machine = TableMachine(again.core)
    again.now = t.now + down
    started = again.ok(Start())
    for viewer, seat in enumerate(k.seats.taken()):  # everyone is back (no away grace runs)
        again.ok(Attach(sender=seat.player_id, viewer=viewer))
    return again, started


def test_a_table_restarted_while_paused_mid_hand_stays_stopped_and_resumes_with_what_was_left(
) -> None:  # fmt: skip
    t = clocked()
    t.now += 10
    t.ok(Pause(sender="host"))
    t.now += 1000
    # 10 s of the turn before the pause, the rest paused, then down an hour
    again, started = restarted(t, down=3600, elapsed=4610)
    (turn,) = turns(started)
    assert turn["clock_stopped"] and turn["timeout"] == 20 and not turn["in_time_bank"]
    stopped(again)
    resumed = again.ok(Resume(sender="host"))
    assert Arm(TURN, again.now + 20) in resumed.did and turns(resumed)[0]["timeout"] == 20


def test_a_turn_begun_while_paused_restarts_stopped_with_its_whole_time() -> None:
    t = clocked()
    t.now += 10
    t.ok(Pause(sender="host"))
    t.now += 60
    t.act(ActionKind.CALL)
    t.now += 40
    again, started = restarted(t, down=3000, elapsed=3040)
    (turn,) = turns(started)
    assert turn["clock_stopped"] and turn["timeout"] == DECISION and turn["counter"] == 1
    stopped(again)
    resumed = again.ok(Resume(sender="host"))
    assert Arm(TURN, again.now + DECISION) in resumed.did


def test_a_restart_after_the_resume_counts_from_what_was_left_at_the_resume() -> None:
    t = clocked()
    t.now += 10
    t.ok(Pause(sender="host"))
    t.now += 500
    t.ok(Resume(sender="host"))  # 20 s left from here
    t.now += 5
    # The store says 515 s since the last action (the deal): the pause was no turn time.
    again, started = restarted(t, down=0, elapsed=515)
    (turn,) = turns(started)
    assert not turn["clock_stopped"] and turn["timeout"] == 15 and not turn["in_time_bank"]
    assert again.core.clock.deadline(TURN) == again.now + 15
    # A turn after the resume is the store's to measure again.
    again.act(ActionKind.CALL)
    again.now += 12
    _, started = restarted(again, down=0, elapsed=12)
    assert turns(started)[0]["timeout"] == DECISION - 12


def test_a_snapshot_says_the_time_bank_as_the_turns_news_did() -> None:
    """A page reloaded during a turn reads its time bank (and whether it runs) from the
    snapshot, as a page that was there read it from the `turn` event: before, the snapshot
    had neither, and a reloaded page lost "Need more time" and "Time bank running"."""
    from tests.tables.test_after import Looked

    t = clocked()
    player = actor(t)

    def seen() -> tuple[Any, Any, Any]:
        hand = table_view(Looked(t), player)["hand"]
        return hand.get("time_bank"), hand.get("in_time_bank"), hand.get("clock_stopped")

    assert seen() == (BANK, False, False)
    t.now += DECISION
    (banked,) = t.fire_due()
    (turn,) = turns(banked)
    assert seen() == (turn["time_bank"], True, False) == (BANK, True, False)
    t.now += 5
    t.ok(Pause(sender="host"))  # stopped in the bank: what it has left, still the bank
    assert seen() == (BANK - 5, True, True)
    t.ok(Resume(sender="host"))
    assert seen() == (BANK - 5, True, False)
    t.act(ActionKind.CALL)  # the next player's turn: their own bank, not running (public,
    assert actor(t) != player and seen() == (BANK, False, False)  # as in the `turn` event)
