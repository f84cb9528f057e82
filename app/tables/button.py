"""Who is dealt in, where the button goes, who posts what: the seat rules of a cash game.

The rules chosen, as many card rooms run them (docs/rules.md gives the sources):

- **Moving button** (the default). The button moves each hand to the next player clockwise
  who is dealt in without waiting; the small blind is the next player dealt in after it and
  the big blind the next after that. A seat that empties is simply skipped.
- **Dead button** (``dead_button``, Robert's Rules, Buttons and Blinds). The big blind moves
  to the next player dealt in clockwise of the last big blind; the small blind is posted by
  the seat that had the big blind (nobody posts it if that player is gone or sitting out: a
  dead small blind) and the button goes to the seat that had the small blind, even when it
  is empty (a dead button). So nobody skips a blind and nobody pays one twice. Heads-up, and
  for a table's first hand, the moving button's placement (after a restart the last
  hand's blind seats come back with the table).
- **Heads-up**, the button posts the small blind and acts first before the flop.
- **New players** wait for the big blind: they are dealt in when the big blind reaches their
  seat. They may instead choose to *post*: they then put in a live big blind and are dealt
  in at once, wherever they sit. A waiting player passed by the small blind keeps waiting
  for the big blind. While fewer than two players are ready nobody needs to wait: every
  waiting player is dealt in (that is how a table starts).
- **Missed blinds** (Robert's Rules, Buttons and Blinds). A seat sitting out misses the
  small blind when the small blind passes it (it sits between the button and the small
  blind, or is the small blind's seat under a dead button) and the big blind when the big
  blind passes it (between the small and the big blind). Coming back it owes them: it waits
  for the big blind (which settles the debt), or posts what it owes to come in at once, the
  big blind live and the small blind dead. A player back before any blind passed plays at
  once.
- **Straddle** (when the table allows it, three or more players): the player after the big
  blind may post a live straddle of two big blinds; the pre-flop action starts after them.
- **Antes** are posted by every player dealt in, or by the big blind alone for the table
  (``big_blind_ante``: dead money, posted before the blind, as the TDA has it); a **bomb
  pot** hand (every Nth hand when the table sets it) has antes only, no blinds, no straddle,
  and no pre-flop betting.
- The first hand's button is the lowest-numbered seat dealt in.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from app.tables.config import TableConfig
from app.tables.seat import MISSED_BIG, MISSED_SMALL, Seat


@dataclass(frozen=True)
class Deal:
    """The plan of one hand: seats in position order (first clockwise of the button, the
    button last) and each one's forced bets, position by position. ``button`` may be a seat
    nobody is dealt from (a dead button). ``blind_seats`` are the seats of the small and big
    blind (the small blind's seat even when nobody posts it); ``missed`` the blinds each
    seat sitting out misses with this hand."""

    button: int
    order: tuple[int, ...]
    blinds: tuple[int, ...]
    antes: tuple[int, ...]
    posts: tuple[int, ...]
    bomb_pot: bool
    straddle: int | None  # seat that straddles
    dead: tuple[int, ...] = ()
    blind_seats: tuple[int | None, int | None] = (None, None)
    missed: dict[int, int] = field(default_factory=dict)


def _clockwise(start: int, size: int) -> list[int]:
    """Seat numbers after `start`, clockwise, ending with `start` itself."""
    return [(start + k) % size for k in range(1, size + 1)]


def _between(start: int, end: int, size: int) -> list[int]:
    """Seats strictly after `start` and before `end`, clockwise."""
    out = []
    for s in _clockwise(start, size):
        if s == end:
            break
        out.append(s)
    return out


def plan_deal(
    seats: Sequence[Seat | None],
    last_button: int | None,
    config: TableConfig,
    hand_number: int,
    last_blinds: tuple[int | None, int | None] = (None, None),
) -> Deal | None:
    """The next hand's plan, or None when fewer than two players can be dealt in.
    ``last_blinds``: the previous hand's ``Deal.blind_seats`` (the dead button needs them)."""
    size = len(seats)
    eligible = [s for s in seats if s is not None and s.can_be_dealt()]
    ready = {s.number for s in eligible if not s.waiting}
    waiting = {s.number for s in eligible if s.waiting}
    posting = {s.number for s in eligible if s.waiting and s.post}
    if len(ready) < 2:
        ready |= waiting
        waiting = set()
        posting = set()
    if len(ready) < 2:
        return None
    bomb = config.is_bomb_pot(hand_number)
    last_sb, last_bb = last_blinds
    by_number = {s.number: s for s in eligible}

    sb_seat: int | None = None
    bb_seat: int | None = None
    button = -1
    if (
        config.dead_button
        and last_sb is not None
        and last_bb is not None
        and last_sb != last_bb
        and len(ready | posting) > 2
    ):
        bb_seat = next(s for s in _clockwise(last_bb, size) if s in ready or s in waiting)
        sb_seat, button = last_bb, last_sb
        if bb_seat in (sb_seat, button):
            bb_seat = None  # the seats between emptied: place the blinds afresh
    if bb_seat is None:
        if last_button is None:
            button = min(ready)
        else:
            button = next(s for s in _clockwise(last_button, size) if s in ready)
        sb_seat = next(s for s in _clockwise(button, size) if s in ready)
        bb_seat = next(s for s in _clockwise(sb_seat, size) if s in ready or s in waiting)
    dealt = set(ready) | posting
    if not bomb:  # in a bomb pot, waiting players keep waiting for a hand with blinds
        dealt.add(bb_seat)
    order = tuple(s for s in _clockwise(button, size) if s in dealt)
    n = len(order)
    index = {seat: i for i, seat in enumerate(order)}
    blinds = [0] * n
    antes = [0] * n
    posts = [0] * n
    dead = [0] * n
    straddle_seat: int | None = None
    missed: dict[int, int] = {}
    if bomb:
        antes = [config.bomb_ante] * n
    else:
        if n == 2:
            # Heads-up: the button is the small blind; the blinds read (big, small).
            sb_seat = order[1]
            bb_seat = order[0]
            button = sb_seat
        if sb_seat in index and sb_seat in ready:
            blinds[index[sb_seat]] = config.small_blind
        blinds[index[bb_seat]] = config.big_blind
        if config.ante:
            antes = [config.ante] * n
        if config.big_blind_ante:
            dead[index[bb_seat]] = config.big_blind_ante
        for seat in posting:
            if seat in (sb_seat, bb_seat):
                continue
            owed = by_number[seat].missed_blinds
            # A new player posts a live big blind; one coming back posts what it missed:
            # the big blind live, the small blind dead.
            if owed == MISSED_SMALL:
                dead[index[seat]] += config.small_blind
            else:
                posts[index[seat]] = config.big_blind
                if owed & MISSED_SMALL:
                    dead[index[seat]] += config.small_blind
        if config.straddle and n >= 3:
            utg = order[(index[bb_seat] + 1) % n]
            candidate = seats[utg]
            if (
                candidate is not None
                and candidate.straddle
                and utg not in (sb_seat, bb_seat, *posting)
            ):
                blinds[index[utg]] = 2 * config.big_blind
                straddle_seat = utg
        missed = _missed(seats, button, sb_seat, bb_seat)
    return Deal(
        button=button,
        order=order,
        blinds=tuple(blinds),
        antes=tuple(antes),
        posts=tuple(posts),
        bomb_pot=bomb,
        straddle=straddle_seat,
        dead=tuple(dead),
        blind_seats=(sb_seat, bb_seat),
        missed=missed,
    )


def _missed(
    seats: Sequence[Seat | None], button: int, sb_seat: int | None, bb_seat: int
) -> dict[int, int]:
    """The blinds that pass the seats sitting out with this hand: the small blind those from
    the button to the small blind's seat, the big blind those after it up to the big blind."""
    size = len(seats)
    if sb_seat is None or sb_seat == button:  # heads-up: the button is the small blind
        passed_small, passed_big = [], _between(button, bb_seat, size)
    else:
        passed_small = [*_between(button, sb_seat, size), sb_seat]
        passed_big = _between(sb_seat, bb_seat, size)
    out: dict[int, int] = {}
    for seats_passed, bit in ((passed_small, MISSED_SMALL), (passed_big, MISSED_BIG)):
        for number in seats_passed:
            seat = seats[number]
            if seat is not None and seat.sitting_out and not seat.leaving and not seat.removed:
                out[number] = out.get(number, 0) | bit
    return out
