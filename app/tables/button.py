"""Who is dealt in, where the button goes, who posts what: the seat rules of a table.

The rules chosen (docs/rules.md gives each one's source; the property test
tests/tables/test_button_properties.py checks them under every change of a table):

- **The big blind** never skips a player and is never paid twice in a row while someone
  else is due: whoever is due posts it.
- **Dead button** (``dead_button``, every tournament table: TDA 32). The big blind moves
  to the next player clockwise of the last big blind (a waiting player there is dealt in
  with it); the small blind is posted by the seat that had the big blind (nobody posts it if
  that player is gone or sitting out: a dead small blind) and the button goes to the seat
  that had the small blind, even when it is empty (a dead button); when the players all sit
  between the last two blinds (heads-up play becoming three-handed), to the seat just
  before the small blind's.
- **Moving button** (the default for cash tables). The button moves to the next player
  clockwise who is dealt in without waiting; the small blind is the next such player after
  it and the big blind the next player after that. When players leave, this can move the big
  blind past a player due for it: that player posts a big blind too (live, instead of any
  small blind), as Robert's has it: "There may be more than one big blind."
- **Heads-up** the button posts the small blind and acts first before the flop, and the big
  blind goes to the player after the last big blind: starting heads-up (three players become
  two), the button is moved so that nobody posts the big blind twice in a row (TDA 34-B).
- **Coming in.** A cash player who sits down (or comes back owing blinds) waits for the big
  blind, which deals them in, or posts to come in at once: a live big blind for a new player,
  what was missed for one coming back (the big blind live, the small blind dead). A player
  the director seats at a tournament table (a late entry, a move, a broken table) is dealt
  in at once, with the blind of the seat they take. Nobody comes in where the blinds have
  just passed, before they reach them: a tournament player not between the button and the
  small blind (TDA 8-A, 10-A), a cash player not between the button and the big blind
  (Robert's: "A new player cannot be dealt in between the big blind and the button"); they
  wait for the button to pass. While fewer than two players are ready nobody waits: every
  player is dealt in and the blinds start over from the button, as with a moving button
  (that is how a table starts, and a final table drawn afresh).
- **Missed blinds** (Robert's, Buttons and Blinds). A seat sitting out (or out of chips)
  misses the small blind when the small blind passes it and the big blind when the big blind
  passes it (or it sits between the two blinds). Coming back (or topped up) it owes them:
  it waits for the big blind (which settles the debt), or posts. A player back before any
  blind passed plays at once.
- **Straddle** (when the table allows it, three or more players): the player after the big
  blind may post a live straddle of two big blinds; the pre-flop action starts after them.
- **Antes** are posted by every player dealt in, or by the big blind alone for the table
  (``big_blind_ante``: dead money, posted after the blind, TDA RP-11); a **bomb pot** hand
  (every Nth hand when the table sets it) has antes only, no blinds, no straddle, and no
  pre-flop betting.
- The first hand's button is the lowest-numbered seat dealt in.

`plan_deal` makes a hand's plan; `seat_dealt` and `note_missed` are what the table then
does to its seats, and `sit_in` what it does to a player coming back.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from app.tables.config import TableConfig
from app.tables.seat import MISSED_BIG, MISSED_SMALL, Move, Seat


@dataclass(frozen=True)
class Deal:
    """The plan of one hand: seats in position order (first clockwise of the button, the
    button last) and each one's forced bets, position by position. ``button`` may be a seat
    nobody is dealt from (a dead button). ``blind_seats`` are the seats of the small and big
    blind (the small blind's seat even when nobody posts it; heads-up the button's);
    ``missed`` the blinds each seat sitting out misses with this hand."""

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


def clockwise(start: int, size: int) -> list[int]:
    """Seat numbers after `start`, clockwise, ending with `start` itself."""
    return [(start + k) % size for k in range(1, size + 1)]


def between(start: int, end: int, size: int) -> list[int]:
    """Seats strictly after `start` and before `end`, clockwise."""
    out = []
    for s in clockwise(start, size):
        if s == end:
            break
        out.append(s)
    return out


def _next(start: int, among: set[int], size: int) -> int:
    return next(s for s in clockwise(start, size) if s in among)


@dataclass(frozen=True)
class _Placement:
    button: int
    small: int | None
    big: int


def _place(
    size: int,
    ready: set[int],
    ring: set[int],
    last_button: int | None,
    last_blinds: tuple[int | None, int | None],
    dead_button: bool,
) -> _Placement:
    """Button and blinds for three players or more. ``ring``: the seats the big blind can
    reach (the ready ones and those waiting for it)."""
    last_sb, last_bb = last_blinds
    if dead_button and last_sb is not None and last_bb is not None and last_sb != last_bb:
        big = _next(last_bb, ring, size)
        if last_sb in between(big, last_bb, size):
            return _Placement(last_sb, last_bb, big)
        # The big blind came round to the last small blind or past it (the players are all
        # between the last two blinds, as when heads-up play becomes three-handed): the
        # button goes to the seat just before the small blind's.
        return _Placement((last_bb - 1) % size, last_bb, big)
    button = min(ready) if last_button is None else _next(last_button, ready, size)
    small = _next(button, ready, size)
    return _Placement(button, small, _next(small, ring, size))


def _heads_up(dealt: set[int], placed: _Placement, last_bb: int | None, size: int) -> _Placement:
    """Two players: the big blind to the one after the last big blind (so neither posts it
    twice in a row, TDA 34-B), the button, who posts the small blind, to the other."""
    if last_bb is not None:
        big = _next(last_bb, dealt, size)
    elif placed.button in dealt:
        big = _next(placed.button, dealt, size)
    else:
        big = placed.big
    button = next(s for s in dealt if s != big)
    return _Placement(button, button, big)


def plan_deal(
    seats: Sequence[Seat | None],
    last_button: int | None,
    config: TableConfig,
    hand_number: int,
    last_blinds: tuple[int | None, int | None] = (None, None),
) -> Deal | None:
    """The next hand's plan, or None when fewer than two players can be dealt in.
    ``last_blinds``: the previous hand's ``Deal.blind_seats``."""
    size = len(seats)
    eligible = {s.number: s for s in seats if s is not None and s.can_be_dealt()}
    ready = {n for n, s in eligible.items() if not s.waiting}
    waiting = set(eligible) - ready
    # Who comes in at once where the blinds allow: cash players who post, and every player
    # the director seats at a tournament table.
    entrants = waiting if config.tournament else {n for n in waiting if eligible[n].post}
    starting = len(ready) < 2
    if starting:  # nobody is in yet (a table starts, or is drawn afresh): everyone is
        ready, waiting, entrants = set(eligible), set(), set()
    if len(ready) < 2:
        return None
    bomb = config.is_bomb_pot(hand_number)
    last_bb = last_blinds[1]
    # Starting, the blinds start over from the button (the seats may hold other players).
    dead_button = config.dead_button and not starting
    placed = _place(size, ready, ready | waiting, last_button, last_blinds, dead_button)
    # Where the blinds have just passed, a player coming in waits for the button to pass.
    edge = placed.small if config.tournament and placed.small is not None else placed.big
    passed = set(between(placed.button, edge, size))
    dealt = ready | (entrants - passed)
    if not bomb:  # in a bomb pot, waiting players keep waiting for a hand with blinds
        dealt.add(placed.big)
    if len(dealt) == 2:
        placed = _heads_up(dealt, placed, last_bb, size)
    button, sb_seat, bb_seat = placed.button, placed.small, placed.big
    order = tuple(s for s in clockwise(button, size) if s in dealt)
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
        # Whom the big blind passed over since the last hand posts it too (a moving button).
        skipped = set()
        if last_bb is not None and n > 2 and not starting:
            skipped = set(between(last_bb, bb_seat, size)) & dealt
            if not config.tournament:  # a cash player coming in posts a big blind anyway
                skipped -= entrants
        # The small blind's seat posts it if its player is in (at a tournament table, also
        # one just seated there).
        if sb_seat in dealt - skipped and (sb_seat in ready or config.tournament):
            assert sb_seat is not None
            blinds[index[sb_seat]] = config.small_blind
        blinds[index[bb_seat]] = config.big_blind
        if config.ante:
            antes = [config.ante] * n
        if config.big_blind_ante:
            dead[index[bb_seat]] = config.big_blind_ante
        for seat in skipped:
            posts[index[seat]] = config.big_blind
        if not config.tournament:  # at a tournament table the seat's blind is the entry
            for seat in (entrants & dealt) - {sb_seat, bb_seat}:
                owed = eligible[seat].missed_blinds
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
                and utg not in (sb_seat, bb_seat)
                and not posts[index[utg]]
                and not dead[index[utg]]
            ):
                blinds[index[utg]] = 2 * config.big_blind
                straddle_seat = utg
        missed = _missed(seats, button, sb_seat, bb_seat, last_bb)
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
    seats: Sequence[Seat | None],
    button: int,
    sb_seat: int | None,
    bb_seat: int,
    last_bb: int | None,
) -> dict[int, int]:
    """The blinds that pass the seats sitting out with this hand: the small blind those from
    the button to the small blind's seat, the big blind those after the last big blind up to
    this one, and those between the two blinds (heads-up, between the button and the big
    blind). The last big blind can sit between them, when the blinds start over from the
    button (a table starting with a seat out of play): its player, out of play there, has
    been passed too, and owes the big blind (else, back, it would take the small blind and
    the same player post the big blind twice in a row)."""
    size = len(seats)
    passed_small: list[int] = []
    small_end = button  # heads-up the button is the small blind
    if sb_seat is not None and sb_seat != button:
        passed_small = [*between(button, sb_seat, size), sb_seat]
        small_end = sb_seat
    passed_big = between(small_end, bb_seat, size)
    if last_bb is not None and last_bb != bb_seat:
        passed_big += [s for s in between(last_bb, bb_seat, size) if s not in passed_big]
    out: dict[int, int] = {}
    for seats_passed, bit in ((passed_small, MISSED_SMALL), (passed_big, MISSED_BIG)):
        for number in seats_passed:
            seat = seats[number]
            # Sitting out, or out of chips (Robert's: "A player who goes all in and loses is
            # obligated to make up the blinds if they are missed before a rebuy is made").
            out_of_play = seat is not None and (seat.sitting_out or seat.stack == 0)
            if out_of_play and seat is not None and not seat.leaving and not seat.removed:
                out[number] = out.get(number, 0) | bit
    return out


# ------------------------------------------------------- what the table does with a plan
def seat_dealt(seat: Seat) -> Seat:
    """A player dealt in: in the game, owing nothing (posted, or dealt in as the big blind)."""
    return seat.move(Move.DEALT)._replace(missed_blinds=0)


def note_missed(seats: Sequence[Seat | None], missed: dict[int, int]) -> list[Seat]:
    """The seats out of play that the blinds passed, owing them now (the others as they
    were are left out): back or topped up, they wait for the big blind or post."""
    changed = []
    for number, bits in missed.items():
        seat = seats[number]
        if seat is not None and seat.missed_blinds | bits != seat.missed_blinds:
            changed.append(seat._replace(missed_blinds=seat.missed_blinds | bits).move(Move.MISSED))
    return changed


def sit_in(seat: Seat, post: bool) -> Seat:
    """A player comes back (or changes their mind about posting): back before a blind
    passed, they play on; owing one, they wait for the big blind or post."""
    return seat.move(Move.SIT_IN, post=post)
