"""Seats: sitting down (and seat requests), top-ups, sitting out and in, the sit-out
switches, leaving and cashing out, the chips that wait for the end of a hand, the ledger.

Each command is a flow over the table's state (app/tables/core.py): it checks, makes the
next state, yields the write that stores it, then says what happened.
"""

from __future__ import annotations

from app.poker import HandState
from app.tables import button
from app.tables.clock import Timer
from app.tables.commands import (
    Approve,
    CancelRequest,
    Leave,
    Ledger,
    Refuse,
    Sit,
    SitIn,
    SitOut,
    SitOutNext,
    SitOutNextBb,
    Straddle,
    TopUp,
)
from app.tables.config import MAX_CHIPS
from app.tables.core import Flow, Reply, TableCore
from app.tables.effects import Read, Write
from app.tables.errors import TableError
from app.tables.ledger import ledger_lines
from app.tables.names import skeleton
from app.tables.ops import (
    AddChips,
    Adjust,
    CashOut,
    HoldAdjustment,
    LedgerTotals,
    PreferencesOf,
    SaveSwitches,
)
from app.tables.ops import SeatPlayer as StoreSeat
from app.tables.preferences import Preferences
from app.tables.seat import Move, Seat, SeatRequest, SeatState
from app.tables.views import Record


def sit(t: TableCore, c: Sit) -> Flow[Reply]:
    pid = c.sender
    if pid is None:
        raise TableError("no_session", "join the server with a name first")
    if t.seat_of(pid) is not None:
        raise TableError("already_seated", "you already have a seat at this table")
    number = t.free_seat(c.seat)
    buy_in = t.check_buy_in(c.buy_in)
    check_name(t, pid, c.name)
    request = SeatRequest(pid, c.name, number, buy_in, c.post)
    k = t.kept
    if k.config.approval_required and pid != k.host_id:
        if pid in k.requests:
            raise TableError("already_requested", "your seat request is waiting for the host")
        if len(k.requests) >= t.runtime.seat_requests:
            raise TableError(
                "too_many_requests", "too many seat requests are waiting: try again later"
            )
        t.kept = k._replace(requests={**k.requests, pid: request})
        yield t.save_table()
        t.emit(Record({"type": "seat_request", **request.to_json()}))
        return {"status": "requested"}
    yield from seat_player(t, request)
    return {"status": "seated", "seat": number}


def check_name(t: TableCore, player_id: str, name: str) -> None:
    """No two players at a table whose names look the same (`names.skeleton`)."""
    mine = skeleton(name)
    others = [s.name for s in t.seats.taken() if s.player_id != player_id]
    others += [r.name for r in t.kept.requests.values() if r.player_id != player_id]
    if any(skeleton(other) == mine for other in others):
        raise TableError(
            "name_taken", f"someone at this table is already called {name!r}: rename first"
        )


def seat_player(t: TableCore, r: SeatRequest) -> Flow[None]:
    prefs = yield from player_preferences(r.player_id)
    seat = Seat(
        number=r.seat,
        player_id=r.player_id,
        name=r.name,
        stack=r.buy_in,
        state=SeatState.POSTING if r.post else SeatState.WAITING,
        time_bank=t.config.time_bank,
        away=r.player_id not in t.watchers.values(),
        auto_muck=prefs.auto_muck,
        always_show=prefs.always_show,
    )
    yield Write(StoreSeat(seat, r.buy_in))
    t.put(seat)
    t.emit(t.seat_record(seat))
    t.schedule_next_hand(0.0)


def player_preferences(player_id: str) -> Flow[Preferences]:
    """The player's showdown preferences, read once as they sit: the seat keeps a copy, so
    no hand reads the player store (a failed read refuses the sit: nothing changed)."""
    prefs: Preferences = yield Read(PreferencesOf(player_id))
    return prefs


def approve(t: TableCore, c: Approve) -> Flow[Reply]:
    request = t.kept.requests.get(c.player_id)
    if request is None:
        raise TableError("no_such_request", "no seat request from that player")
    if t.seat_of(request.player_id) is not None:
        t.kept = t.kept._replace(requests=_without(t, request.player_id))
        raise TableError("already_seated", "that player already has a seat")
    t.free_seat(request.seat)
    check_name(t, request.player_id, request.name)
    yield from seat_player(t, request)
    t.kept = t.kept._replace(requests=_without(t, request.player_id))
    yield t.save_table(best_effort=True)  # a stale stored request is dropped at load
    return {"status": "seated", "seat": request.seat}


def _without(t: TableCore, player_id: str) -> dict[str, SeatRequest]:
    return {p: r for p, r in t.kept.requests.items() if p != player_id}


def refuse(t: TableCore, c: Refuse) -> Flow[Reply]:
    request = t.kept.requests.get(c.player_id)
    if request is None:
        raise TableError("no_such_request", "no seat request from that player")
    t.kept = t.kept._replace(requests=_without(t, c.player_id))
    yield t.save_table()
    t.emit(Record({"type": "seat_refused", "player_id": request.player_id, "seat": request.seat}))
    return {"status": "refused"}


def cancel_request(t: TableCore, c: CancelRequest) -> Flow[Reply]:
    """The requester withdraws their seat request (before the host answers it)."""
    request = t.kept.requests.get(c.sender) if c.sender is not None else None
    if request is None:
        raise TableError("no_such_request", "you have no seat request waiting")
    yield from _withdraw(t, request)
    return {"status": "cancelled"}


def _withdraw(t: TableCore, request: SeatRequest) -> Flow[None]:
    t.kept = t.kept._replace(requests=_without(t, request.player_id))
    yield t.save_table()
    t.emit(
        Record({"type": "seat_request_cancelled", "player_id": request.player_id,
                "seat": request.seat})
    )  # fmt: skip


def top_up(t: TableCore, c: TopUp) -> Flow[Reply]:
    seat = t.my_seat(c.sender)
    amount = t.check_chips(c.amount)
    if seat.stack + seat.pending_top_up + amount > t.config.buy_in_max:
        raise TableError(
            "over_maximum", f"a top-up may bring a stack to {t.config.buy_in_max} at most"
        )
    if t.in_hand(seat):
        yield from after_hand(t, seat._replace(pending_top_up=seat.pending_top_up + amount))
        return {"status": "after_hand"}
    seat = yield from add_chips(t, seat, amount, "top_up")
    t.emit(t.seat_record(seat))
    t.schedule_next_hand(0.0)
    return {"status": "done", "stack": seat.stack}


def after_hand(t: TableCore, seat: Seat, *, goes: bool = False) -> Flow[None]:
    """Store what the seat does when the hand in play ends (a top-up, leaving), and say so;
    a player who `goes` is folded when the action reaches them (at once if it has)."""
    t.put(seat)
    yield t.save_seats(seat)
    t.emit(t.seat_record(seat))
    if goes:
        t.auto_act_if_gone()


def sit_out(t: TableCore, c: SitOut) -> Flow[Reply]:
    seat = t.my_seat(c.sender)
    if not seat.sitting_out:
        seat = seat.move(Move.SIT_OUT)
        t.put(seat)
        yield t.save_seats(seat)
        t.emit(t.seat_record(seat))
    return {"status": seat.status}


def sit_in(t: TableCore, c: SitIn) -> Flow[Reply]:
    seat = t.my_seat(c.sender)
    if seat.leaving or seat.removed:
        raise TableError("leaving", "you are leaving this table")
    changed = seat.sitting_out or c.post != seat.post
    back = seat.timed_out  # sat out by the clock (or about to be): here again, one click
    seat = button.sit_in(seat, c.post)
    if back:
        seat = seat._replace(timed_out=False, timeouts=0, sit_out_next=False)
    if changed or back:
        t.put(seat)
        if changed:
            yield t.save_seats(seat)
        if back:
            yield Write(SaveSwitches(seat))
        t.emit(t.seat_record(seat))
        t.schedule_next_hand(0.0)
    return {"status": seat.status}


def straddle(t: TableCore, c: Straddle) -> Flow[Reply]:
    seat = t.my_seat(c.sender)
    if not t.config.straddle:
        raise TableError("no_straddle", "this table does not allow straddles")
    if c.on != seat.straddle:
        seat = seat._replace(straddle=c.on)
        t.put(seat)
        yield t.save_seats(seat)
        t.emit(t.seat_record(seat))
    return {"straddle": seat.straddle}


def leave(t: TableCore, c: Leave) -> Flow[Reply]:
    pid = c.sender
    if pid is not None and pid in t.kept.requests:
        yield from _withdraw(t, t.kept.requests[pid])
        return {"status": "left"}
    seat = t.my_seat(pid)
    if t.in_hand(seat):
        yield from after_hand(t, seat.move(Move.LEAVE), goes=True)
        return {"status": "after_hand"}
    yield from cash_out(t, seat)
    return {"status": "left"}


def cash_out(t: TableCore, seat: Seat) -> Flow[None]:
    yield Write(CashOut(seat))
    t.disarm(Timer.grace(seat.player_id))
    t.kept = t.kept._replace(seats=t.seats.free(seat.number))
    if seat.bot:
        t.stop_bot(seat.player_id)
    t.emit(Record({"type": "left", "seat": seat.number, "player_id": seat.player_id,
                   "cash_out": seat.stack}))  # fmt: skip


def add_chips(t: TableCore, seat: Seat, amount: int, kind: str) -> Flow[Seat]:
    """Change a stack and its ledger entry together (if the store refuses, neither)."""
    seat = seat._replace(stack=seat.stack + amount)
    t.put(seat)
    yield Write(AddChips(seat, amount, kind))
    return seat


def adjust_chips(t: TableCore, seat: Seat, amount: int, reason: str) -> Flow[Seat]:
    """`add_chips` for a host adjustment: its ledger entry keeps the reason."""
    seat = seat._replace(stack=seat.stack + amount)
    t.put(seat)
    yield Write(Adjust(seat, amount, reason))
    return seat


def settle_seats(t: TableCore) -> Flow[list[int]]:
    """Apply what waited for the end of the hand: top-ups, adjustments, then cash out
    leavers and removed players. Each is stored with its pending amount or flag cleared in
    the same write, so none is applied twice after a restart; one that cannot be stored
    stays pending (`unavailable` is raised) and is tried again before the next deal.
    Returns the numbers of the seats changed, once per change."""
    changed: list[int] = []
    for number in range(len(t.seats)):
        for kind in ("top_up", "adjustment"):
            seat = t.seats[number]
            if seat is None:
                break
            pending = seat.pending_top_up if kind == "top_up" else seat.pending_adjust
            if not pending:
                continue
            if kind == "top_up":
                amount = min(pending, max(0, t.config.buy_in_max - seat.stack))
                seat = seat._replace(pending_top_up=0)
                reason = ""
            else:
                amount = min(max(pending, -seat.stack), MAX_CHIPS - seat.stack)
                reason = seat.pending_adjust_reason
                seat = seat._replace(pending_adjust=0, pending_adjust_reason="")
            t.put(seat)
            if amount and kind == "adjustment":
                yield from adjust_chips(t, seat, amount, reason)
            elif amount:
                yield from add_chips(t, seat, amount, kind)
            elif kind == "adjustment":  # cancelled out: clear it and its reasons
                yield Write(HoldAdjustment(seat))
            else:
                yield t.save_seats(seat)
            changed.append(number)
        seat = t.seats[number]
        if seat is not None and (seat.leaving or seat.removed):
            yield from cash_out(t, seat)
    return changed


def sit_out_next(t: TableCore, c: SitOutNext) -> Flow[Reply]:
    """Sit out from the next hand on (the current one is played out)."""
    seat = t.my_seat(c.sender)
    if not c.on:  # staying in: a sit-out the clock set is cancelled with it
        seat = seat._replace(timed_out=False, timeouts=0)
    yield from switched(t, seat._replace(sit_out_next=c.on))
    return {"sit_out_next": c.on}


def sit_out_next_bb(t: TableCore, c: SitOutNextBb) -> Flow[Reply]:
    """Sit out when the big blind would next be this player's."""
    yield from switched(t, t.my_seat(c.sender)._replace(sit_out_next_bb=c.on))
    return {"sit_out_next_bb": c.on}


def switched(t: TableCore, seat: Seat) -> Flow[None]:
    """A seat's sit-out switches (or its sitting out by them), stored and told."""
    t.put(seat)
    yield Write(SaveSwitches(seat))
    t.emit(t.seat_record(seat))


def ledger(t: TableCore, c: Ledger) -> Flow[Reply]:
    """Every player's buy-ins, top-ups, adjustments, cash-outs, stack and net, read in the
    table's turn so that the figures and the stacks are of one moment (the identity of
    docs/protocol.md section 7 holds on them)."""
    totals = yield Read(LedgerTotals())
    live: dict[str, tuple[int, int]] = {s.player_id: (s.stack, 0) for s in t.seats.taken()}
    hand = t.hand
    if hand is not None and not hand.state.complete:
        state: HandState = hand.state
        for p, player in enumerate(hand.players):
            if player in live:
                live[player] = (state.stacks[p], state.committed[p])
    return {"players": ledger_lines(totals, live)}
