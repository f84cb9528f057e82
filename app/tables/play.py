"""The hand in play: actions (checked here, verified by the engine once), each stored before
anyone hears of it; the turn and its clock (the decision time, the time bank, the clock
acting for a player out of time or gone); a show after the hand; the end of the hand.
"""

from __future__ import annotations

import logging

from app.poker import Action, ActionKind, IllegalAction, Phase
from app.poker.equity import all_in_spot
from app.tables import pace
from app.tables.after import after_hand_record
from app.tables.clock import TURN, Stage, turn_time
from app.tables.commands import Act, Auto, MoreTime, Show
from app.tables.config import MAX_CHIPS
from app.tables.core import Flow, Reply, TableCore
from app.tables.effects import AllInEnded, Write
from app.tables.errors import TableError
from app.tables.hand import Hand
from app.tables.host import close_or_retry
from app.tables.notes import shown_by_choice
from app.tables.ops import RecordAction
from app.tables.seat import Move, Seat
from app.tables.seating import settle_seats
from app.tables.tournament import tell_director
from app.tables.views import event_records, turn_record

log = logging.getLogger("omaha.tables")


def act(t: TableCore, c: Act) -> Flow[Reply]:
    hand = t.hand
    if hand is None or c.hand != hand.id:
        raise TableError("stale_hand", "that hand is not the hand being played")
    position = hand.position_of_player(c.sender) if c.sender is not None else None
    if position is None:
        raise TableError("not_in_hand", "you are not in this hand")
    counter = c.counter
    if counter is None:
        raise TableError("bad_counter", "the action counter is a whole number")
    kind = c.action
    if kind is None:
        raise TableError("bad_action", "unknown action")
    amount, agree = c.amount, c.agree
    if kind in (ActionKind.BET, ActionKind.RAISE):
        if amount is None or not (0 < amount <= MAX_CHIPS):
            raise TableError("bad_amount", "bet and raise take a whole number of chips")
    else:
        amount = None
    if kind is ActionKind.RUN_TWICE:
        if agree is None:
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
    yield from apply(t, hand, action)  # the engine verifies it there, once
    pace.acted(t, c.sender)
    return {"applied": counter}


def apply(t: TableCore, hand: Hand, action: Action) -> Flow[None]:
    """Apply a verified action: store it, then tell everyone, then move on."""
    counter = hand.counter
    seat = t.seats[hand.seats[action.player]]
    try:
        events = hand.state.apply(action)  # an illegal action raises and changes nothing
    except IllegalAction as error:
        raise TableError(error.code, error.message) from None
    spent: Seat | None = None
    if seat is not None and t.clock.bank_started is not None:  # spent (§7), stored with it
        spent = seat._replace(time_bank=t.clock.bank_left(seat.time_bank, t.now))
        t.put(spent)
    final: list[Seat] | None = None
    if hand.state.complete:
        final = []
        for p, number in enumerate(hand.seats):
            s = t.seats[number]
            if s is not None and s.player_id == hand.players[p]:
                s = s._replace(stack=hand.state.stacks[p])
                t.put(s)
                final.append(s)
    try:
        yield Write(RecordAction(hand, counter, action,
                                 tuple(final) if final is not None else None, spent))  # fmt: skip
    except TableError:
        log.error("table %s: cannot store an action; it is not applied", t.id)
        raise TableError("unavailable", "the action could not be stored; try again") from None
    t.cancel_clock()
    t.clock.bank_started = None
    t.emit(*event_records(hand, events))
    if hand.state.complete:
        yield from end_hand(t)
    else:
        start_turn(t)


def show(t: TableCore, c: Show) -> Flow[Reply]:
    """The winner of a pot nobody called shows their hand, once, before the next deal. It is
    the hand's last action (stored like any other, so its record keeps it)."""
    hand = t.hand
    if hand is None or c.hand != hand.id:
        raise TableError("stale_hand", "that hand is not the last hand")
    position = hand.position_of_player(c.sender or "")
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
        yield Write(RecordAction(hand, counter, action, None))
    except TableError:
        log.error("table %s: cannot store a show; it is not applied", t.id)
        raise TableError("unavailable", "the show could not be stored; try again") from None
    t.emit(*event_records(hand, events))
    return {"shown": True}


def end_hand(t: TableCore) -> Flow[None]:
    """Settle the seats (`settle_seats`), show them, then schedule the next deal. (The hand
    is stored ended: an all-in hand is told, for its equities to be computed.)"""
    t.cancel_clock()
    if t.hand is not None and all_in_spot(t.hand.state) is not None:
        t.effects.append(AllInEnded(t.hand.id))
    try:
        yield from settle_seats(t)
    except TableError:
        t.retry_next_hand()  # settles first
    for seat in t.seats.taken():
        t.emit(t.seat_record(seat))
    hand = t.hand
    if hand is not None:  # what may be asked for now: the rabbit, cards to show
        t.emit(after_hand_record(t, hand))
    if t.closing:
        yield from close_or_retry(t)
        return
    if t.config.tournament:
        tell_director(t)  # it calls the next deal
        return
    t.schedule_next_hand(t.runtime.between_hands)


# ------------------------------------------------------------------ the turn
def start_turn(t: TableCore, elapsed: float = 0.0) -> None:
    """Announce who acts and arm the clock (or act at once for a player who left, and at a
    showdown for a hand the rules or the player's preferences decide: app/tables/pace.py).
    `elapsed`: seconds of this decision already gone (a turn resumed after a restart or a
    pause). While the host's pause stops the clock (app/tables/pausing.py), nothing is
    armed: the turn is announced with what it has left, stopped (`clock_stopped`)."""
    hand = t.hand
    assert hand is not None and hand.state.actor is not None
    t.cancel_clock()
    t.clock.bank_started = None
    stopped, clock = t.clock_stopped(), t.kept.turn_clock
    if stopped and clock is not None:  # what the turn had left when the clock stopped
        elapsed = clock.gone(hand.id, hand.counter, t.now) or 0.0
    seat = t.seats[hand.seats[hand.state.actor]]
    gone = t.gone(hand, hand.state.actor)
    legal = hand.state.legal_actions()
    assert legal is not None
    if pace.showdown_action(seat, legal, gone=gone) is not None:  # no choice: done at once
        t.post(Auto(hand=hand.id, counter=hand.counter))
        return
    clock_on = t.runtime.clock_enabled and not gone
    bank = seat.time_bank if seat is not None else 0.0
    if legal.phase is not Phase.BETTING:  # a choice at the showdown or a vote: short, no bank
        # (on a table with no decision clock too: one player gone quiet at a showdown would
        # hold everyone, and the choice is only show or muck)
        time = pace.short_time(t.config.showdown_time, bank, elapsed, clock_on=clock_on)
    else:
        clock_on = clock_on and t.config.decision_time > 0
        time = turn_time(t.config.decision_time, bank, elapsed, clock_on=clock_on,
                         seated=seat is not None)  # fmt: skip
    t.clock.turn_started = t.now - elapsed
    if time.timeout is not None:
        if time.stage is Stage.BANK and seat is not None:  # the decision time ran out while
            t.put(seat._replace(time_bank=time.bank))  # the table was down: the bank runs
            t.clock.bank_started = None if stopped else t.now
        if stopped:
            t.clock.stopped_left = time.timeout
        else:
            t.arm_turn(hand, time.timeout, time.stage)
    t.clock.bank_news = (time.bank, time.stage is Stage.BANK)
    t.emit(turn_record(hand, time.timeout, time.bank, time.stage is Stage.BANK,
                       short=time.stage is Stage.SHORT,
                       stopped=stopped and time.timeout is not None))  # fmt: skip
    if gone:
        t.post(Auto(hand=hand.id, counter=hand.counter))


def start_time_bank(t: TableCore, hand: Hand, seat: Seat) -> None:
    t.cancel_clock()
    t.clock.bank_started = t.now
    t.arm_turn(hand, seat.time_bank, Stage.BANK)
    t.clock.bank_news = (seat.time_bank, True)
    t.emit(turn_record(hand, seat.time_bank, seat.time_bank, True))


def current(t: TableCore, hand_id: str, counter: int) -> Hand | None:
    """The hand in play, if it is `hand_id` and waits for action number `counter`."""
    hand = t.hand
    if hand is None or hand.state.complete or hand.id != hand_id or hand.counter != counter:
        return None
    return hand


def timeout(t: TableCore) -> Flow[Reply]:
    """The turn timer ran out: the decision time (the bank starts, if there is one left),
    the bank, or a retry of the clock's action."""
    turn = t.clock.turn
    hand = current(t, turn.hand, turn.counter) if turn is not None else None
    if turn is None or hand is None or hand.state.actor is None:
        return None
    seat = t.seats[hand.seats[hand.state.actor]]
    if turn.stage is Stage.DECISION and seat is not None and seat.time_bank > 0:
        start_time_bank(t, hand, seat)
        return None
    player = hand.players[hand.state.actor]
    # a player who showed some cards on their showdown turn was there: the clock's muck of
    # the rest is no missed decision
    there = bool(shown_by_choice(hand, hand.seats[hand.state.actor]))
    yield from auto_act(t, hand)
    if turn.stage is not Stage.RETRY and not there:  # their time was up (a retry counted)
        yield from pace.timed_out(t, player)
    return None


def auto(t: TableCore, c: Auto) -> Flow[Reply]:
    hand = current(t, c.hand, c.counter)
    if hand is not None and hand.state.actor is not None:
        yield from auto_act(t, hand)
    return None


def auto_act(t: TableCore, hand: Hand) -> Flow[None]:
    """The clock acts: check if possible, else fold; vote no; at the showdown as the rules
    and the player's preferences say (`pace.clock_showdown_action`), else muck if allowed.
    A player who is gone (`gone`) is folded, never checked for. If the action cannot be
    stored, the clock tries again after `retry_delay` (the hand must not freeze)."""
    legal = hand.state.legal_actions()
    assert legal is not None
    p = legal.player
    if legal.phase is Phase.RUN_IT_TWICE:
        action = Action(p, ActionKind.RUN_TWICE, agree=False)
    elif legal.phase is Phase.SHOWDOWN:
        seat = t.seats[hand.seats[p]]
        action = Action(p, pace.clock_showdown_action(seat, legal, gone=t.gone(hand, p)))
    elif legal.check and not t.gone(hand, p):
        action = Action(p, ActionKind.CHECK)
    else:
        action = Action(p, ActionKind.FOLD)
    try:
        yield from apply(t, hand, action)
    except TableError as error:
        if error.code != "unavailable":
            raise
        t.cancel_clock()
        t.arm_turn(hand, t.runtime.retry_delay, Stage.RETRY)


def more_time(t: TableCore, c: MoreTime) -> Reply:
    """The player to act starts their time bank now instead of when the decision time runs
    out."""
    hand = t.hand
    position = hand.position_of_player(c.sender or "") if hand is not None else None
    if hand is None or hand.state.complete or position is None:
        raise TableError("not_in_hand", "you are not in the hand being played")
    if hand.state.actor != position:
        raise TableError("not_your_turn", "it is not your turn")
    seat = t.my_seat(c.sender)
    if t.clock.stopped_left is not None:
        raise TableError("clock_stopped", "the clock is stopped: the host paused the table")
    if t.clock.bank_started is not None:
        raise TableError("in_time_bank", "your time bank is already running")
    turn = t.clock.turn
    if not t.clock.armed(TURN) or seat.time_bank <= 0 or (turn and turn.stage is Stage.SHORT):
        raise TableError("no_time_bank", "there is no time bank to start")
    start_time_bank(t, hand, seat)
    return {"time_bank": round(seat.time_bank, 3)}


def grace(t: TableCore, player_id: str) -> Flow[Reply]:
    """The away grace ran out: sit the player out; fold them if it is their turn."""
    if t.config.tournament:
        return None  # never sat out: dealt in and blinded away by the clock
    seat = t.seat_of(player_id)
    if seat is None or not seat.away or seat.sitting_out:
        return None
    seat = seat.move(Move.SIT_OUT)
    t.put(seat)
    try:
        yield t.save_seats(seat)
    except TableError:
        t.start_grace(player_id, t.runtime.retry_delay)
        return None
    t.emit(t.seat_record(seat))
    t.auto_act_if_gone()
    return None
