"""The host's commands: stakes, remove, adjust, hand over the host, practice bots, bomb pots,
spectators' chat, close (the pause and its resume: app/tables/pausing.py).
"""

from __future__ import annotations

import uuid

from pydantic import ValidationError

from app.tables.adjust import clean_reason, join_reasons
from app.tables.clock import NEXT_HAND
from app.tables.commands import (
    AddBot,
    Adjust,
    BombPotNext,
    Close,
    Remove,
    SetStakes,
    SpectatorChat,
    TransferHost,
)
from app.tables.config import MAX_CHIPS
from app.tables.core import Flow, Reply, TableCore
from app.tables.effects import Write
from app.tables.errors import TableError
from app.tables.ops import CloseTable, HoldAdjustment, SeatPlayer, SetBombPotNext
from app.tables.seat import Move, Seat, SeatState
from app.tables.seating import adjust_chips, after_hand, cash_out
from app.tables.seeds import reveal_seed
from app.tables.views import Record

#: what the host may change with `set_stakes` (from the next hand)
STAKES = frozenset(
    {"small_blind", "big_blind", "big_bet", "ante", "straddle", "bomb_pot_every",
     "bomb_pot_ante", "buy_in_min", "buy_in_max", "run_it_twice"}
)  # fmt: skip


def set_stakes(t: TableCore, c: SetStakes) -> Flow[Reply]:
    unknown = set(c.changes) - STAKES
    if unknown:
        raise TableError("bad_config", f"cannot change {', '.join(sorted(unknown))}")
    try:
        new = t.config.with_stakes(**c.changes)
    except ValidationError as error:
        first = error.errors()[0]
        raise TableError("bad_config", str(first.get("msg", "invalid stakes"))) from None
    if t.hand_running():
        t.kept = t.kept._replace(next_config=new)
    else:
        t.kept = t.kept._replace(config=new)
    yield t.save_table()
    t.emit(t.table_record())
    return {"from_next_hand": t.kept.next_config is not None}


def target_seat(t: TableCore, number: int | None) -> Seat:
    if number is None or not (0 <= number < len(t.seats)):
        raise TableError("no_such_seat", "no such seat")
    seat = t.seats[number]
    if seat is None:
        raise TableError("empty_seat", f"seat {number} is empty")
    return seat


def remove(t: TableCore, c: Remove) -> Flow[Reply]:
    seat = target_seat(t, c.seat)
    if t.in_hand(seat):
        yield from after_hand(t, seat.move(Move.REMOVE), goes=True)
        return {"status": "after_hand"}
    yield from cash_out(t, seat)
    return {"status": "removed"}


def adjust(t: TableCore, c: Adjust) -> Flow[Reply]:
    seat = target_seat(t, c.seat)
    amount = t.check_chips(c.amount, signed=True)
    if c.reason is None:
        raise TableError("bad_reason", "a reason is text")
    reason = clean_reason(c.reason)
    # Pending chips count: three adjustments during one hand cannot pass the maximum.
    after = seat.stack + seat.pending_top_up + seat.pending_adjust + amount
    if after < 0 or after > MAX_CHIPS:
        raise TableError("bad_amount", f"a stack stays between 0 and {MAX_CHIPS}")
    if t.in_hand(seat):
        seat = seat._replace(
            pending_adjust=seat.pending_adjust + amount,
            pending_adjust_reason=join_reasons(seat.pending_adjust_reason, reason),
        )
        t.put(seat)
        yield Write(HoldAdjustment(seat))
        t.emit(adjusted_record(seat, amount, c.sender, reason, pending=True))
        return {"status": "after_hand"}
    seat = yield from adjust_chips(t, seat, amount, reason)
    t.emit(adjusted_record(seat, amount, c.sender, reason), t.seat_record(seat))
    t.schedule_next_hand(0.0)
    return {"status": "done", "stack": seat.stack}


def adjusted_record(
    seat: Seat, amount: int, by: str | None, reason: str, pending: bool = False
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


def close(t: TableCore, c: Close) -> Flow[Reply]:
    """The host closes the table: after the current hand everyone is cashed out, no more
    hands are dealt, and the table stops; its hands and ledger stay in the database."""
    if t.hand_running():
        # Stored as a pause, so that after a crash mid-hand no further hand is dealt
        # either (the host then closes again).
        t.kept = t.kept._replace(paused=True)
        yield t.save_table()
        t.closing = True
        t.emit(t.table_record(), Record({"type": "closing"}))
        return {"status": "after_hand"}
    t.closing = True
    yield from finish_close(t)
    return {"status": "closed"}


def close_or_retry(t: TableCore) -> Flow[None]:
    """Close after the hand; while the database refuses, try again (like a deal)."""
    try:
        yield from finish_close(t)
    except TableError:
        t.retry_next_hand()


def finish_close(t: TableCore) -> Flow[None]:
    t.disarm(NEXT_HAND)
    for number in range(len(t.seats)):
        seat = t.seats[number]
        if seat is not None:
            yield from cash_out(t, seat)
    t.kept = t.kept._replace(requests={})
    yield from reveal_seed(t, then_new=False)  # the session ends: its seed is shown
    yield Write(CloseTable())
    t.closed = True
    t.emit(Record({"type": "closed"}))  # the actor closes the viewers next


def transfer_host(t: TableCore, c: TransferHost) -> Flow[Reply]:
    seat = t.seat_of(c.player_id)
    if seat is None:
        raise TableError("not_seated", "the new host must have a seat at the table")
    if seat.bot:
        raise TableError("bot_cannot_host", "a practice bot cannot host")
    t.kept = t.kept._replace(host_id=c.player_id)
    yield t.save_table()
    t.emit(t.table_record())
    return {"host": c.player_id}


def bomb_pot_next(t: TableCore, c: BombPotNext) -> Flow[Reply]:
    yield Write(SetBombPotNext(c.on))
    t.kept = t.kept._replace(bomb_pot_next=c.on)
    t.emit(t.table_record())
    return {"bomb_pot_next": c.on}


def spectator_chat(t: TableCore, c: SpectatorChat) -> Flow[Reply]:
    k = t.kept
    later = k.next_config
    t.kept = k._replace(
        config=k.config.model_copy(update={"spectator_chat": c.on}),
        next_config=later.model_copy(update={"spectator_chat": c.on}) if later else None,
    )
    yield t.save_table()
    t.emit(t.table_record())
    return {"spectator_chat": c.on}


def add_bot(t: TableCore, c: AddBot) -> Flow[Reply]:
    """Seat a practice bot. Its player is fixed by table and seat, so a table creates at
    most one bot player per seat however often bots come and go."""
    number = t.free_seat(c.seat)
    buy_in = t.config.buy_in_max if c.most else t.check_buy_in(c.buy_in)
    player_id = str(uuid.uuid5(uuid.UUID(t.id), f"bot-{number}"))
    if t.seat_of(player_id) is not None:  # cannot happen: its seat was free
        raise TableError("seat_taken", f"seat {number} is taken")
    seat = Seat(
        number=number,
        player_id=player_id,
        name=f"Bot {'ABCDEFGHIJ'[number]}",
        stack=buy_in,
        time_bank=t.config.time_bank,
        bot=True,
        away=True,  # until it attaches, like anyone
        state=SeatState.POSTING,  # in at once: it posts a big blind rather than wait for it
    )
    yield Write(SeatPlayer(seat, buy_in, bot=True))
    t.put(seat)
    t.emit(t.seat_record(seat))
    t.start_bot(seat)
    t.schedule_next_hand(0.0)
    return {"status": "seated", "seat": number, "player_id": player_id}
