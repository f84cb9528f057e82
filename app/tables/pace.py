"""The table's pace (docs/rules.md, The clock): what the server does at a showdown without
waiting on anyone, the short clock of the choices the rules leave a player there (and of
the run-it-twice vote), the time bank's refill, and sitting out a player the clock keeps
acting for.

At a showdown the engine says, turn by turn in the rules' order, whether the hand may be
mucked (`LegalActions.muck`: beaten by a hand already shown). A hand it may not muck is
shown by the server at once; one it may muck is mucked at once when the player's
`auto_muck` is on, shown at once when `always_show` is; otherwise the player chooses on
`showdown_time`, which never starts the time bank. Pure: the seat and the engine's answer
in, a decision out.
"""

from __future__ import annotations

from app.poker import ActionKind, LegalActions, Phase
from app.tables.clock import Stage, TurnTime
from app.tables.commands import Auto, SetPreference
from app.tables.config import BankRefill, TableConfig
from app.tables.core import Flow, Reply, TableCore
from app.tables.effects import Write
from app.tables.errors import TableError
from app.tables.ops import SavePreferences, SaveSwitches
from app.tables.seat import Seat
from app.tables.views import Record


def showdown_action(seat: Seat | None, legal: LegalActions, *, gone: bool) -> ActionKind | None:
    """What the server does at once for the player to show or muck (None: it is theirs to
    choose, on the short clock). A hand that must be shown is shown; a player who left mucks
    what they may."""
    if legal.phase is not Phase.SHOWDOWN:
        return None
    if not legal.muck:
        return ActionKind.SHOW
    if gone or seat is None:
        return ActionKind.MUCK
    if seat.always_show:
        return ActionKind.SHOW
    if seat.auto_muck:
        return ActionKind.MUCK
    return None


def clock_showdown_action(seat: Seat | None, legal: LegalActions, *, gone: bool) -> ActionKind:
    """What the clock does at a showdown when the choice's time is up: the preference if
    there is one, else muck if the rules allow it, else show."""
    chosen = showdown_action(seat, legal, gone=gone)
    if chosen is not None:
        return chosen
    return ActionKind.MUCK if legal.muck else ActionKind.SHOW


def short_time(showdown_time: float, bank: float, elapsed: float, *, clock_on: bool) -> TurnTime:
    """The clock of a show-or-muck choice or a run-it-twice vote: `showdown_time` (less what
    a restart took of it), then the clock acts; the bank is neither spent nor started."""
    if not clock_on:
        return TurnTime(None, bank, Stage.SHORT)
    return TurnTime(max(0.0, showdown_time - elapsed), bank, Stage.SHORT)


def refilled(seat: Seat, config: TableConfig) -> Seat:
    """A seat dealt into a hand: its bank with the per-hand refill, up to the full bank."""
    if config.time_bank_refill is not BankRefill.HAND or seat.time_bank >= config.time_bank:
        return seat
    more = seat.time_bank + config.time_bank_per_hand
    return seat._replace(time_bank=min(config.time_bank, more))


def level_refill(t: TableCore) -> list[Seat]:
    """A new tournament level: every bank is full again (`time_bank_refill: level`). The
    seats changed; stored with the next hand's seats (the deal stores every seat it deals)."""
    config = t.config
    if config.time_bank_refill is not BankRefill.LEVEL:
        return []
    changed = [s._replace(time_bank=config.time_bank) for s in t.seats.taken()
               if s.time_bank < config.time_bank]  # fmt: skip
    t.put(*changed)
    return changed


def acted(t: TableCore, player_id: str | None) -> None:
    """The player acted themselves: the clock's count of their decisions starts again."""
    seat = t.seat_of(player_id) if player_id is not None else None
    if seat is not None and seat.timeouts:
        t.put(seat._replace(timeouts=0))


def timed_out(t: TableCore, player_id: str) -> Flow[None]:
    """The clock acted for `player_id` when their time was up. After
    `sit_out_after_timeouts` such decisions in a row (a cash table), they sit out after the
    hand: their `sit_out_next` switch is set (stored), and everyone is told (`timed_out`)."""
    seat = t.seat_of(player_id)
    if seat is None or seat.bot:
        return
    seat = seat._replace(timeouts=seat.timeouts + 1)
    t.put(seat)
    limit = t.config.sit_out_after_timeouts
    if t.config.tournament or limit <= 0 or seat.timeouts < limit or seat.sitting_out:
        return
    seat = seat._replace(timeouts=0, timed_out=True, sit_out_next=True)
    t.put(seat)
    try:
        yield Write(SaveSwitches(seat))
    except TableError:
        return  # not stored: nothing changed; the next timeout tries again
    told = {"type": "timed_out", "seat": seat.number, "player_id": seat.player_id,
            "name": seat.name, "timeouts": limit, "sit_out": True}  # fmt: skip
    t.emit(Record(told), t.seat_record(seat))


def set_preference(t: TableCore, c: SetPreference) -> Flow[Reply]:
    """A seated player's showdown preferences: stored as the player's (every seat they take
    copies them) and as this seat's copy, before the answer; they apply from the next
    show-or-muck turn (one in progress included)."""
    seat = t.my_seat(c.sender)
    changed = seat._replace(
        auto_muck=seat.auto_muck if c.auto_muck is None else c.auto_muck,
        always_show=seat.always_show if c.always_show is None else c.always_show,
    )
    # Written whenever something is asked, even what this seat's copy already holds: the
    # player's own row may not (set at another table since). Refused: nothing changed.
    if c.auto_muck is not None or c.always_show is not None:
        yield Write(SavePreferences(changed))
    if changed != seat:
        t.put(changed)
        t.emit(t.seat_record(changed))  # the player's other tabs hear it too
    hand = t.hand
    legal = hand.state.legal_actions() if hand is not None else None
    if (  # the player chooses at the showdown now: the preference decides it at once
        hand is not None
        and legal is not None
        and hand.players[legal.player] == c.sender
        and showdown_action(changed, legal, gone=False) is not None
    ):
        t.post(Auto(hand=hand.id, counter=hand.counter))
    return preferences(changed)


def preferences(seat: Seat) -> dict[str, bool]:
    return {"auto_muck": seat.auto_muck, "always_show": seat.always_show}
