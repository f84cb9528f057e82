"""Who is dealt in, where the button goes, who posts what: the seat rules of a cash game.

The rules chosen, as many card rooms run them (documented in docs/protocol.md too):

- **Moving button.** The button moves each hand to the next player clockwise who is dealt in
  without waiting; the small blind is the next player dealt in after it and the big blind the
  next after that. A seat that empties is simply skipped (no dead button, no dead small
  blind): simple to follow for a home game, at the cost that a blind can occasionally be
  skipped or paid twice when players leave.
- **Heads-up**, the button posts the small blind and acts first before the flop.
- **New players** (and players coming back from sitting out) wait for the big blind: they are
  dealt in when the big blind reaches their seat. They may instead choose to *post*: they then
  put in a live big blind and are dealt in at once, wherever they sit. A waiting player passed
  by the small blind keeps waiting for the big blind. While fewer than two players are ready
  nobody needs to wait: every waiting player is dealt in (that is how a table starts).
- **Straddle** (when the table allows it, three or more players): the player after the big
  blind may post a live straddle of two big blinds; the pre-flop action starts after them.
- **Antes** are posted by every player dealt in; a **bomb pot** hand (every Nth hand when the
  table sets it) has antes only, no blinds, no straddle, and no pre-flop betting.
- The first hand's button is the lowest-numbered seat dealt in.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from app.tables.config import TableConfig
from app.tables.seat import Seat


@dataclass(frozen=True)
class Deal:
    """The plan of one hand: seats in position order (first clockwise of the button, the
    button last) and each one's forced bets, position by position."""

    button: int
    order: tuple[int, ...]
    blinds: tuple[int, ...]
    antes: tuple[int, ...]
    posts: tuple[int, ...]
    bomb_pot: bool
    straddle: int | None  # seat that straddles


def _clockwise(start: int, size: int) -> list[int]:
    """Seat numbers after `start`, clockwise, ending with `start` itself."""
    return [(start + k) % size for k in range(1, size + 1)]


def plan_deal(
    seats: Sequence[Seat | None],
    last_button: int | None,
    config: TableConfig,
    hand_number: int,
) -> Deal | None:
    """The next hand's plan, or None when fewer than two players can be dealt in."""
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

    if last_button is None:
        button = min(ready)
    else:
        button = next(s for s in _clockwise(last_button, size) if s in ready)

    after_button = _clockwise(button, size)
    sb_seat = next(s for s in after_button if s in ready)
    after_sb = _clockwise(sb_seat, size)
    bb_seat = next(s for s in after_sb if s in ready or s in waiting)
    dealt = set(ready) | posting
    if not bomb:  # in a bomb pot, waiting players keep waiting for a hand with blinds
        dealt.add(bb_seat)
    order = tuple(s for s in after_button if s in dealt)
    n = len(order)
    index = {seat: i for i, seat in enumerate(order)}
    blinds = [0] * n
    antes = [0] * n
    posts = [0] * n
    straddle_seat: int | None = None
    if bomb:
        antes = [config.bomb_ante] * n
    else:
        if n == 2:
            # Heads-up: the button is the small blind; the blinds read (big, small).
            sb_seat = button
            bb_seat = order[0]
        blinds[index[sb_seat]] = config.small_blind
        blinds[index[bb_seat]] = config.big_blind
        if config.ante:
            antes = [config.ante] * n
        for seat in posting:
            if seat not in (sb_seat, bb_seat):
                posts[index[seat]] = config.big_blind
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
    return Deal(
        button=button,
        order=order,
        blinds=tuple(blinds),
        antes=tuple(antes),
        posts=tuple(posts),
        bomb_pot=bomb,
        straddle=straddle_seat,
    )
