"""The deal: the table's start (or restart), and each next hand: the seats settled, the stakes
of the next hand, the sit-out switches, the plan (`button.plan_deal`), the deck, the hand
stored, then dealt.
"""

from __future__ import annotations

import contextlib
import logging
import uuid

from app.poker import HandSetup, HandState
from app.tables.button import Deal, note_missed, plan_deal, seat_dealt
from app.tables.commands import Start
from app.tables.core import Flow, Reply, TableCore
from app.tables.effects import Write
from app.tables.errors import TableError
from app.tables.fairness import hand_fields
from app.tables.hand import Hand
from app.tables.host import close_or_retry
from app.tables.ops import SetBombPotNext, StartHand, UpdateSeats
from app.tables.pace import refilled
from app.tables.play import end_hand, start_turn
from app.tables.seat import Move, Seat, SeatBook
from app.tables.seating import settle_seats, switched
from app.tables.seeds import deal_deck, ensure_seed
from app.tables.tournament import tell_restarted
from app.tables.views import Record, event_records
from app.tables.watching import note_watched

log = logging.getLogger("omaha.tables")


def start(t: TableCore, c: Start) -> Flow[Reply]:
    """After a (re)start: continue the stored hand where it stopped (its clock with the time
    that was left, or stopped still if the host paused it), or settle and deal. Nobody is
    connected yet: every seated person gets the away grace, as on a disconnect, so one who
    never returns is sat out; one already away before the restart gets what was left of
    it."""
    for number in range(len(t.seats)):
        seat = t.seats[number]
        if seat is not None and seat.bot:
            t.start_bot(seat)
        elif seat is not None:
            if seat.away_since is None:  # here when the table stopped: away from now
                seat = yield from t.note_away(seat, True)
            t.start_grace(seat.player_id, t.grace_left(seat))
    with contextlib.suppress(TableError):  # else made at the first deal
        yield from ensure_seed(t)
    hand = t.hand
    if hand is not None and not hand.state.complete:
        log.info("table %s: hand %s continues after a restart", t.id, hand.number)
        # The time gone since its last action, unless the host's pause stopped its clock
        # since (app/tables/pausing.py): then what it had left at the pause, counted on from
        # the resume (stopped still: `start_turn` keeps it there).
        clock = t.kept.turn_clock
        gone = clock.gone(hand.id, hand.counter, t.now) if clock is not None else None
        start_turn(t, (t.elapsed or 0.0) if gone is None else gone)
    else:
        if t.config.tournament and next(t.seats.taken(), None) is not None:  # restarted
            tell_restarted(t)
        t.schedule_next_hand(0.0, even_paused=True)  # settles what is pending
    return None


def next_hand(t: TableCore) -> Flow[Reply]:
    if t.hand_running():
        return None
    try:
        changed = yield from settle_seats(t)
    except TableError:
        t.retry_next_hand()
        return None
    for number in changed:
        seat = t.seats[number]
        if seat is not None:  # else cashed out
            t.emit(t.seat_record(seat))
    if t.closing:
        yield from close_or_retry(t)
        return None
    if t.kept.paused or t.draining:
        return None
    # Idle: players to deal to, and none of them here (nor anyone watching the bots).
    dealable = sum(1 for s in t.seats.taken() if s.can_be_dealt()) >= 2
    idle = dealable and not t.watched()
    if idle != t.idle:
        t.idle = idle
        t.emit(t.table_record())
    if idle:
        return None
    later = t.kept.next_config
    if later is not None:
        t.kept = t.kept._replace(config=later, next_config=None)
        try:
            yield t.save_table()
        except TableError:
            t.retry_next_hand()
            return None
        t.emit(t.table_record())
    number = t.kept.hand_number + 1
    try:
        deal = yield from plan(t, number)  # the players' sit-out switches, a called bomb pot
    except TableError:
        t.retry_next_hand()
        return None
    if deal is None:
        return None
    yield from deal_hand(t, deal, number)
    return None


def deal_hand(t: TableCore, deal: Deal, number: int) -> Flow[None]:
    seats: list[Seat] = []
    for n in deal.order:
        seat = t.seats[n]
        assert seat is not None
        seats.append(seat)
    setup = HandSetup(
        config=t.config.hand_config(deal.bomb_pot),
        stacks=tuple(s.stack for s in seats),
        blinds=deal.blinds,
        antes=deal.antes,
        posts=deal.posts,
        dead=deal.dead,
    )
    try:
        deck, dealt_from = yield from deal_deck(t, number)
    except TableError:
        t.retry_next_hand()
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
    dealt_stacks = [s.stack for s in seats]  # before a hand over as dealt pays out
    # Posted, or dealt in as the big blind: waiting and what was owed are settled. Over as
    # dealt (the blinds put everyone all in), its result is the seats' new stacks, stored
    # with the hand (`StartHand`), as `apply` does for a last action.
    over = hand.state.complete
    # The per-hand refill of the time bank is stored with them too.
    seats = [refilled(seat_dealt(s), t.config)._replace(
                 stack=hand.state.stacks[p] if over else s.stack)
             for p, s in enumerate(seats)]  # fmt: skip
    t.put(*seats)
    try:
        yield Write(StartHand(hand, tuple(deck), tuple(seats), deal.button, number))
    except TableError:
        log.error("table %s: cannot store a new hand; retrying", t.id)
        t.retry_next_hand()
        return
    t.hand = hand
    t.kept = t.kept._replace(button=deal.button, hand_number=number)
    t.deal_called = False
    note_watched(t, t.watchers.values(), started=True)
    yield from note_missed_blinds(t, deal.missed)
    yield from dealt(t, deal)
    started = Record(
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
    )
    t.emit(started, *event_records(hand, hand.state.log), hand_start=True)
    if hand.state.complete:
        yield from end_hand(t)
    else:
        start_turn(t)


def plan(t: TableCore, number: int) -> Flow[Deal | None]:
    """The next deal after the sit-out switches, and a bomb pot if the host called one. The
    switches are planned on a draft of the seats, then each is stored and applied in turn:
    one that cannot be stored waits, with those after it, for the next try."""
    draft: SeatBook = t.seats
    changed: list[int] = []
    for seat in t.seats.taken():
        if seat.sit_out_next:
            draft = draft.put(seat.move(Move.SIT_OUT)._replace(sit_out_next=False))
            changed.append(seat.number)
    k = t.kept
    config = k.config.model_copy(update={"bomb_pot_every": 1}) if k.bomb_pot_next else k.config
    last_blinds = t.hand.blind_seats if t.hand is not None else k.last_blinds
    deal = plan_deal(draft.seats, k.button, config, number, last_blinds)
    while deal is not None:
        big = big_blind_seat(t, deal)
        bb = draft[big] if big is not None else None
        if bb is None or not bb.sit_out_next_bb:
            break
        draft = draft.put(bb.move(Move.SIT_OUT)._replace(sit_out_next_bb=False))
        changed.append(bb.number)
        deal = plan_deal(draft.seats, k.button, config, number, last_blinds)
    for n in changed:
        out = draft[n]
        assert out is not None
        yield from switched(t, out)
    if deal is not None and bots_alone(t, deal):
        return None  # nobody to play for: wait for a person (`attach` deals again)
    return deal


def bots_alone(t: TableCore, deal: Deal) -> bool:
    """Only bots would be dealt in and no person is watching: an abandoned practice table
    does not play on by itself."""
    if t.config.tournament or not all((s := t.seats[n]) is not None and s.bot for n in deal.order):
        return False
    return all(p is None or p in t.bots for p in t.watchers.values())


def big_blind_seat(t: TableCore, deal: Deal) -> int | None:
    if deal.bomb_pot:
        return None
    big = [
        seat
        for seat, blind in zip(deal.order, deal.blinds, strict=True)
        if blind == t.config.big_blind and seat != deal.straddle
    ]
    if not big:
        return None
    return big[0] if len(deal.order) == 2 else big[-1]  # heads-up the blinds read (BB, SB)


def dealt(t: TableCore, deal: Deal) -> Flow[None]:
    """A hand was dealt: a bomb pot the host called is used up."""
    if t.kept.bomb_pot_next and deal.bomb_pot:
        t.kept = t.kept._replace(bomb_pot_next=False)
        if (yield Write(SetBombPotNext(False), best_effort=True)) is not None:
            # the hand is stored; a restart would call one bomb pot more
            log.error("table %s: cannot store that the bomb pot was used", t.id)
        t.emit(t.table_record())


def note_missed_blinds(t: TableCore, missed: dict[int, int]) -> Flow[None]:
    """Seats out of play that a blind passed owe it (stored: it survives a restart)."""
    changed = note_missed(t.seats, missed)
    t.put(*changed)
    if changed:
        if (yield Write(UpdateSeats(tuple(changed)), best_effort=True)) is not None:
            log.error("table %s: cannot store missed blinds", t.id)  # stored with their next
        for seat in changed:
            t.emit(t.seat_record(seat))
