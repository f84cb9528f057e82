"""The host's pause and resume (docs/rules.md, The clock). A pause deals no new hand and stops
the clock of the hand in play: its turn keeps what it had left (decision time, then time
bank; or the short clock of a showdown choice or a vote) and no timer of it runs out, however
long the pause. Players may still act at their own pace: the next turn starts stopped with its
whole time. The resume restarts the turn with exactly what it had left, and deals again.

What the turn had left is kept with the table (`Kept.turn_clock`, stored by `save_table`): a
table restarted while paused stays stopped, and one restarted after the resume counts from
what was left then (app/tables/dealer.py `start`). A time bank running when the clock stops
is spent up to then and stored with the seat first, so what is kept is plain: the decision
time gone, the bank as stored.

A close during a hand (stored as a pause, app/tables/host.py) does not stop the clock: the
hand is played out on it. Nor does a table idle with nobody here. The away grace of a
disconnected player runs on: it measures a connection gone, not a decision's time, and a
player who stepped away from a paused table with their page open is not away.
"""

from __future__ import annotations

from app.tables.clock import TURN, Stage, TurnClock
from app.tables.commands import Pause, Resume
from app.tables.core import Flow, Reply, TableCore
from app.tables.hand import Hand
from app.tables.play import start_turn


def pause(t: TableCore, c: Pause) -> Flow[Reply]:
    hand = t.hand if t.hand_running() else None
    clock = t.kept.turn_clock if hand is not None else None
    stopping = hand is not None and not t.clock_stopped()
    if hand is not None and stopping:
        yield from spend_bank(t, hand)
        clock = TurnClock(hand.id, hand.counter, gone(t))
    t.kept = t.kept._replace(paused=True, turn_clock=clock)
    yield t.save_table()
    t.emit(t.table_record())
    if stopping and running(t):  # the turn's clock shown stopped, with what it has left
        start_turn(t)
    return {"paused": True}


def resume(t: TableCore, c: Resume) -> Flow[Reply]:
    hand = t.hand if t.hand_running() else None
    clock = t.kept.turn_clock if hand is not None else None
    stopped = t.clock_stopped()
    shown = t.clock.stopped_left is not None  # the turn's clock was shown stopped
    elapsed = 0.0
    if hand is not None and clock is not None and stopped:
        elapsed = clock.gone(hand.id, hand.counter, t.now) or 0.0
        clock = TurnClock(hand.id, hand.counter, elapsed, since=t.now)  # runs on from here
    t.kept = t.kept._replace(paused=False, turn_clock=clock)
    yield t.save_table()
    t.emit(t.table_record())
    if shown and hand is not None and hand.state.actor is not None:
        start_turn(t, elapsed)  # the turn restarts with what it had left
    t.schedule_next_hand(0.0)
    return {"paused": False}


def running(t: TableCore) -> bool:
    """Does a clock of the player to act run now (not the retry of the clock's own action,
    whose time was up before: it goes on)?"""
    turn = t.clock.turn
    return t.clock.armed(TURN) and turn is not None and turn.stage is not Stage.RETRY


def gone(t: TableCore) -> float:
    """Seconds of the turn in play gone now: all its decision time once its bank runs (the
    bank spent so far is the seat's, `spend_bank`)."""
    if t.clock.bank_started is not None:
        return float(t.config.decision_time)
    started = t.clock.turn_started
    return 0.0 if started is None else max(0.0, t.now - started)


def spend_bank(t: TableCore, hand: Hand) -> Flow[None]:
    """A time bank running when the clock stops: what it spent so far is taken from the
    seat's bank and stored, and it runs from there (so a refused write after this one
    leaves the table as consistent as it was)."""
    actor = hand.state.actor
    seat = t.seats[hand.seats[actor]] if actor is not None else None
    if t.clock.bank_started is None or seat is None or seat.player_id != hand.players[actor or 0]:
        return
    spent = seat._replace(time_bank=t.clock.bank_left(seat.time_bank, t.now))
    t.put(spent)
    yield t.save_seats(spent)
    t.clock.bank_started = t.now
