"""A table in a tournament (`TableConfig.tournament`): the tournament's director seats and
unseats players with their stacks and calls each deal with the level's stakes; the table tells
the director when a hand ends. Players cannot buy in, top up, leave or sit out, and the host's
cash-game commands are refused (`commands.check_kind`); a disconnected player stays dealt in
and the clock acts for them (blinded away, never removed).
"""

from __future__ import annotations

from app.tables.commands import TAddon, TClose, TDeal, TSeat, TUnseat
from app.tables.core import Flow, Reply, TableCore
from app.tables.effects import TellDirector, Write
from app.tables.errors import TableError
from app.tables.host import finish_close
from app.tables.ops import EndDealSeed, SeatPlayer
from app.tables.pace import level_refill
from app.tables.preferences import Preferences
from app.tables.seat import Seat, SeatState
from app.tables.seating import add_chips, after_hand, cash_out, player_preferences


def t_seat(t: TableCore, c: TSeat) -> Flow[Reply]:
    """Seat a tournament player with their stack (a buy-in in this table's ledger)."""
    if t.seat_of(c.player_id) is not None:
        raise TableError("already_seated", "that player already has a seat here")
    number = t.free_seat(c.seat)
    stack = t.check_chips(c.stack)
    prefs = Preferences() if c.bot else (yield from player_preferences(c.player_id))
    seat = Seat(
        number=number,
        player_id=c.player_id,
        name=c.name,
        stack=stack,
        state=SeatState.WAITING,  # dealt in where the blinds allow (app.tables.button: TDA 8, 10)
        time_bank=t.config.time_bank,
        bot=c.bot,
        away=c.player_id not in t.watchers.values(),
        auto_muck=prefs.auto_muck,
        always_show=prefs.always_show,
    )
    yield Write(SeatPlayer(seat, stack, bot=c.bot))
    t.put(seat)
    t.emit(t.seat_record(seat))
    if c.bot:
        t.start_bot(seat)
    return {"seat": number}


def t_unseat(t: TableCore, c: TUnseat) -> Flow[Reply]:
    """Take a player off the table between hands (busted, or moved): their stack leaves
    this table's ledger as a cash-out and goes with them."""
    seat = t.seat_of(c.player_id)
    if seat is None:
        raise TableError("not_seated", "that player has no seat here")
    if t.hand_running():
        raise TableError("hand_running", "players move between hands")
    yield from cash_out(t, seat)
    return {"stack": seat.stack}


def t_addon(t: TableCore, c: TAddon) -> Flow[Reply]:
    """The add-on's chips onto a player's stack (a top-up in this table's ledger): at once
    between hands, else stored as pending and added when the hand ends."""
    seat = t.seat_of(c.player_id)
    if seat is None:
        raise TableError("not_seated", "that player has no seat here")
    amount = t.check_chips(c.amount)
    if t.in_hand(seat):
        yield from after_hand(t, seat._replace(pending_top_up=seat.pending_top_up + amount))
        return {"status": "after_hand"}
    seat = yield from add_chips(t, seat, amount, "top_up")
    t.emit(t.seat_record(seat))
    return {"status": "done", "stack": seat.stack}


def t_deal(t: TableCore, c: TDeal) -> Flow[Reply]:
    """Deal the next hand with these stakes (the level in force now)."""
    if t.hand_running():
        raise TableError("hand_running", "a hand is being played")
    config = t.config
    if any(getattr(config, k) != v for k, v in c.stakes.items()):
        t.kept = t.kept._replace(config=config.with_stakes(**c.stakes))
        yield t.save_table()
        t.emit(t.table_record())
        level_refill(t)  # a new level: full banks (stored with the hand's seats)
    t.deal_called = True
    t.schedule_next_hand(0.0)
    return {"hand": t.kept.hand_number + 1, "actor": t.actor}


def tell_restarted(t: TableCore) -> None:
    """A (re)started actor with no hand being played: a deal the director called may have
    been accepted by the actor before (its call is in memory only, lost with it); the
    director, told which actor this is, calls it again."""
    t.effects.append(TellDirector({"table": t.id, "restarted": True, "actor": t.actor}))


def tell_director(t: TableCore) -> None:
    """The hand is over and settled: tell the director each player's stack at its start
    and now, and the hand's button and blind seats (its balancing counts the hands to the
    big blind from them)."""
    hand = t.hand
    if hand is None:
        return
    started = dict(zip(hand.players, hand.state.setup.stacks, strict=True))
    stacks = {s.player_id: s.stack for s in t.seats.taken()}
    t.effects.append(TellDirector({"table": t.id, "hand": hand.number, "button": t.kept.button,
                                   "blinds": list(hand.blind_seats),
                                   "started": started, "stacks": stacks}))  # fmt: skip


def t_close(t: TableCore, c: TClose) -> Flow[Reply]:
    """The tournament is over at this table (it broke, or ended): close it; `reveal`
    false (a break) keeps its seed sealed."""
    if t.hand_running():
        raise TableError("hand_running", "a hand is being played")
    seed = t.kept.server_seed
    if not c.reveal and seed is not None:
        # A table broken mid-tournament: its seed would show hands of players still in; it
        # ends sealed, revealed with the tournament's end (`TableStore.reveal_seeds`).
        yield Write(EndDealSeed(seed.id, False, None))
        t.kept = t.kept._replace(server_seed=None)
    t.closing = True
    yield from finish_close(t)
    return {"status": "closed"}
