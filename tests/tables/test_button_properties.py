"""The button and the blinds under every change of a table (issue 25), as a hypothesis state
machine: random sequences of players sitting down (posting or waiting), leaving, going broke
and topping up, sitting out and coming back at a cash table; at a tournament's tables,
entries, bust-outs, moves, broken tables and the final table's draw (`balance.plan`), down to
the last two; for both button rules. It drives the pure layer the table runs: `plan_deal`,
then the seat transitions the table applies (`seat_dealt`, `note_missed`, `sit_in`).

After every hand it checks the rules of docs/rules.md (Seats, button and blinds):
- nobody posts the big blind twice in a row at a table while another player is dealt in;
- nobody skips a big blind: every seat the big blind moves past since the last hand is
  empty, or out of play with the big blind recorded as missed (cash), or not in yet (still
  waiting, owing what it owed), or posts a big blind (a moving button's extra big blind);
- the button never moves backwards: it passes no player dealt in both hands, but for one it
  passes so that they post the big blind they are due (three becoming two, TDA 34-B, or
  two becoming three);
- each hand's forced bets are the ones the rules name (heads-up, dead button, moving button,
  players coming in, straddle, big-blind ante), and the engine accepts them.

`make test` runs it at the settings below; a long run: ``BUTTON_EXAMPLES=5000 BUTTON_STEPS=100
pytest -q tests/tables/test_button_properties.py --hypothesis-show-statistics`` (the
statistics count the situations reached: three becoming two, a player waiting for the button,
an extra big blind, a missed blind).
"""

from __future__ import annotations

import math
import os
import random
from dataclasses import dataclass

from hypothesis import HealthCheck, event, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, rule

from app.poker import HandSetup, HandState
from app.tables.button import Deal, between, clockwise, note_missed, plan_deal, seat_dealt, sit_in
from app.tables.config import TableConfig
from app.tables.seat import MISSED_BIG, MISSED_SMALL, Move, Seat, SeatState
from app.tournaments.balance import TableSeats, plan

SB, BB = 1, 2
STACK = 100


@dataclass(frozen=True)
class Before:
    """A table's seats just before a deal, as the checks need them."""

    occupants: dict[int, str]
    ready: set[int]
    waiting: set[int]  # eligible and waiting (owing, new, or seated by the director)
    posting: set[int]
    out: set[int]  # seated, out of play: sitting out or no chips
    owed: dict[int, int]  # missed blinds of the seats that owe them

    @property
    def starting(self) -> bool:
        return len(self.ready) < 2


@dataclass(frozen=True)
class Played:
    before: Before
    deal: Deal


@dataclass
class Table:
    name: str
    config: TableConfig
    seats: list[Seat | None]
    button: int | None = None
    last_blinds: tuple[int | None, int | None] = (None, None)
    hands: int = 0
    last: Played | None = None


def snapshot(seats: list[Seat | None]) -> Before:
    eligible = {s.number: s for s in seats if s is not None and s.can_be_dealt()}
    return Before(
        occupants={s.number: s.player_id for s in seats if s is not None},
        ready={n for n, s in eligible.items() if not s.waiting},
        waiting={n for n, s in eligible.items() if s.waiting},
        posting={n for n, s in eligible.items() if s.waiting and s.post},
        out={s.number for s in seats if s is not None and not s.can_be_dealt()},
        owed={s.number: s.missed_blinds for s in seats if s is not None and s.missed_blinds},
    )


def check(table: Table, before: Before, deal: Deal) -> None:
    """The rules of one hand, given the hand before it at the same table."""
    cfg, size = table.config, len(table.seats)
    order, n = deal.order, len(deal.order)
    at = {seat: i for i, seat in enumerate(order)}
    assert len(set(order)) == n >= 2 and set(order) <= set(before.occupants)
    assert not set(order) & before.out, "only players in play are dealt in"
    sb, bb = deal.blind_seats
    assert bb is not None and bb in at and deal.blinds[at[bb]] == BB
    assert deal.dead[at[bb]] >= cfg.big_blind_ante
    prev = table.last
    fresh = before.starting or prev is None
    ready = before.ready | before.waiting if before.starting else before.ready
    pbb = None if prev is None else prev.deal.blind_seats[1]
    entrants = before.waiting if cfg.tournament else before.posting
    came_in = set(order) & entrants if not before.starting else set()
    skipped = set()  # whom the big blind passed over since the last hand
    if pbb is not None and not before.starting and n > 2:
        skipped = set(between(pbb, bb, size)) & set(order)
        if not cfg.tournament:
            skipped -= entrants

    # Position: clockwise from the button the small blind's seat comes before the big blind.
    if sb is not None and sb != deal.button:
        assert bb not in between(deal.button, sb, size), "the big blind before the small"

    # Who posts what.
    if n == 2:  # heads-up: the button posts the small blind, the other the big blind
        assert deal.button == sb and deal.button in at and deal.button != bb
        assert deal.blinds[at[deal.button]] == SB and not any(deal.posts)
        if pbb is not None:  # TDA 34-B: the big blind goes to the player after the last one
            # (a table starting afresh too: the two may have played the hand before)
            assert bb == next(s for s in clockwise(pbb, size) if s in at)
    else:
        for seat, i in at.items():
            blind, post, dead = deal.blinds[i], deal.posts[i], deal.dead[i]
            if seat == bb:
                assert post == 0 and dead == cfg.big_blind_ante
            elif seat == deal.straddle:
                assert blind == 2 * BB and post == 0 and dead == 0
                assert seat not in came_in and seat not in skipped
            elif seat in skipped:  # the big blind passed them: they post it too
                assert (blind, post, dead) == (0, BB, 0)
            elif seat in came_in and not cfg.tournament:
                owed = before.owed.get(seat, 0)
                expect = (0, BB, SB if owed & MISSED_SMALL else 0)
                if owed == MISSED_SMALL:
                    expect = (0, 0, SB)
                assert (blind, post, dead) == expect, (seat, owed)
            elif seat == sb:
                assert (blind, post, dead) == (SB, 0, 0)
            else:
                assert (blind, post, dead) == (0, 0, 0), seat
        # Coming in: never where the blinds have just passed.
        edge = sb if cfg.tournament and sb is not None else bb
        passed = set(between(deal.button, edge, size))
        assert not came_in & passed
        assert set(entrants) - set(order) - {bb} <= passed or before.starting
        if cfg.tournament and sb is not None and sb in at and sb not in skipped:
            assert deal.blinds[at[sb]] == SB  # a tournament player takes their seat's blind
        if not cfg.tournament and sb is not None and sb in at and sb not in skipped:
            assert sb in ready
        # The placement the button rule names.
        if prev is not None and not before.starting and len(prev.deal.order) >= 2:
            psb, pbutton = prev.deal.blind_seats[0], prev.deal.button
            ring = before.ready | before.waiting
            if cfg.dead_button and psb is not None and psb != pbb and pbb is not None:
                expected = next(s for s in clockwise(pbb, size) if s in ring)
                if psb in between(expected, pbb, size):
                    assert (deal.button, sb, bb) == (psb, pbb, expected)
                else:  # all between the last blinds: the button just before the small blind
                    assert (deal.button, sb, bb) == ((pbb - 1) % size, pbb, expected)
            elif not cfg.dead_button:
                assert deal.button == next(s for s in clockwise(pbutton, size)
                                           if s in before.ready)  # fmt: skip

    kind = ("tournament" if cfg.tournament else "cash") + (", dead" if cfg.dead_button else "")
    if n == 2 and prev is not None and len(prev.deal.order) > 2:
        event(f"{kind}: three or more become two")
    if came_in:
        event(f"{kind}: a player comes in")
    assert not (skipped and cfg.dead_button), "with a dead button nobody is passed over"
    if skipped:
        event(f"{kind}: the big blind passed a player, who posts it too")
    if entrants - set(order) - {bb} and not before.starting:
        event(f"{kind}: a player coming in waits for the button")
    if deal.missed:
        event("cash: a seat out of play misses a blind")
    if fresh or prev is None:
        return
    pocc, pdeal = prev.before.occupants, prev.deal
    both = {s for s in order if s in pdeal.order and pocc.get(s) == before.occupants.get(s)}
    # Nobody posts the big blind twice in a row while someone else is dealt in.
    assert pbb is not None
    assert not (pbb == bb and pocc.get(pbb) == before.occupants.get(bb)), "big blind twice"
    # Nobody skips a big blind: whom it moves past is gone, out (and owes it), or posts it.
    for seat in between(pbb, bb, size):
        if seat not in before.occupants:
            continue
        if seat in at:
            assert deal.posts[at[seat]] == BB, f"seat {seat} skipped the big blind"
        elif seat in before.waiting:
            pass  # not in yet (or owing still): the seat waits on, owing what it owed
        else:
            assert seat in before.out and not cfg.tournament, f"seat {seat} passed over"
            assert deal.missed.get(seat, 0) & MISSED_BIG, f"seat {seat}: missed BB not kept"
    # The button never moves backwards: it passes nobody dealt in both hands, but for the
    # player it passes so that they post the big blind they are due (TDA 34-B: "the button
    # may need to be adjusted to ensure no player has the big blind twice in a row").
    if deal.button != pdeal.button:
        passed_over = set(between(pdeal.button, deal.button, size)) & both - {bb}
        assert not passed_over, f"button backwards past {passed_over}"


def play(table: Table, rng: random.Random) -> Deal | None:
    """Plan and check a hand at `table`, and apply what the table does after the deal."""
    before = snapshot(table.seats)
    deal = plan_deal(table.seats, table.button, table.config, table.hands + 1, table.last_blinds)
    if deal is None:
        assert len(before.ready | before.waiting) < 2
        return None
    check(table, before, deal)
    stacks = tuple(table.seats[s].stack for s in deal.order)  # type: ignore[union-attr]
    setup = HandSetup(table.config.hand_config(), stacks, deal.blinds, deal.antes, deal.posts,
                      deal.dead)  # fmt: skip
    HandState(setup, list(range(52)))  # the engine takes the plan
    for number in deal.order:
        seat = table.seats[number]
        assert seat is not None
        table.seats[number] = seat = seat_dealt(seat)
        assert not seat.waiting and not seat.missed_blinds
    for seat in note_missed(table.seats, deal.missed):
        table.seats[seat.number] = seat
    table.hands += 1
    table.button, table.last_blinds = deal.button, deal.blind_seats
    table.last = Played(before, deal)
    return deal


def hands_until_big_blind(table: Table, number: int) -> int:
    """The hands a player the director seats at the free seat `number` waits before posting
    the big blind, as `plan_deal` deals them (on a copy of the table)."""
    seats = list(table.seats)
    seats[number] = Seat(number, "new", "new", STACK, SeatState.WAITING)
    button, blinds = table.button, table.last_blinds
    for k in range(2 * len(seats)):
        deal = plan_deal(seats, button, table.config, table.hands + 1 + k, blinds)
        if deal is None:
            return len(seats)  # nobody to play with: not dealt before the rest come
        if not deal.bomb_pot and deal.blind_seats[1] == number:
            return k
        for n in deal.order:
            seat = seats[n]
            assert seat is not None
            seats[n] = seat_dealt(seat)
        button, blinds = deal.button, deal.blind_seats
    raise AssertionError("the big blind never came")


class TableMachine(RuleBasedStateMachine):
    """What both machines share: their tables and how a player is seated."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: dict[str, Table] = {}
        self.size = 6
        self.rng = random.Random(0)
        self.counter = 0

    def _config(self, size: int, dead: bool, tournament: bool, straddle: bool, bba: int,
                seed: int) -> TableConfig:  # fmt: skip
        self.size, self.rng = size, random.Random(seed)
        return TableConfig(seats=size, small_blind=SB, big_blind=BB, dead_button=dead,
                           tournament=tournament, straddle=straddle,
                           big_blind_ante=bba)  # fmt: skip

    def _seat(self, table: Table, number: int | None = None, stack: int = STACK,
              post: bool = False, player: str | None = None) -> None:  # fmt: skip
        free = [s for s, seat in enumerate(table.seats) if seat is None]
        if number is None:
            number = self.rng.choice(free)
        assert table.seats[number] is None
        if player is None:
            self.counter += 1
            player = f"p{self.counter}"
        table.seats[number] = Seat(number, player, player, stack,
                                   SeatState.POSTING if post else SeatState.WAITING,
                                   straddle=self.rng.random() < 0.5)  # fmt: skip


class CashMachine(TableMachine):
    """One cash table: players sit down (posting or waiting), leave, go broke and top up,
    sit out and come back, between hands."""

    @initialize(
        dead=st.booleans(),
        size=st.integers(3, 8),
        players=st.integers(0, 8),
        straddle=st.booleans(),
        bba=st.sampled_from((0, 0, 2)),
        seed=st.integers(0, 2**32 - 1),
    )
    def start(self, dead: bool, size: int, players: int, straddle: bool, bba: int,
              seed: int) -> None:  # fmt: skip
        config = self._config(size, dead, False, straddle, bba, seed)
        self.tables["T0"] = Table("T0", config, [None] * size)
        for _ in range(min(players, size)):  # seated before the first hand
            self._seat(self.cash)

    @property
    def cash(self) -> Table:
        return self.tables["T0"]

    @rule(seat=st.integers(0, 9), post=st.booleans())
    def sit_down(self, seat: int, post: bool) -> None:
        number = seat % self.size
        if self.cash.seats[number] is None:
            self._seat(self.cash, number, post=post)

    @rule(seat=st.integers(0, 9))
    def leave(self, seat: int) -> None:
        self.cash.seats[seat % self.size] = None

    @rule(seat=st.integers(0, 9))
    def sit_out(self, seat: int) -> None:
        s = self.cash.seats[seat % self.size]
        if s is not None:
            self.cash.seats[s.number] = s.move(Move.SIT_OUT)

    @rule(seat=st.integers(0, 9), post=st.booleans())
    def come_back(self, seat: int, post: bool) -> None:
        s = self.cash.seats[seat % self.size]
        if s is not None:
            self.cash.seats[s.number] = sit_in(s, post)

    @rule(seat=st.integers(0, 9))
    def top_up(self, seat: int) -> None:
        s = self.cash.seats[seat % self.size]
        if s is not None and s.stack == 0:
            self.cash.seats[s.number] = s._replace(stack=STACK)

    @rule(broke=st.sets(st.integers(0, 9), max_size=3))
    def hand(self, broke: set[int]) -> None:
        deal = play(self.cash, self.rng)
        if deal is not None:
            for number in broke:
                if number in deal.order:
                    seat = self.cash.seats[number]
                    assert seat is not None
                    self.cash.seats[number] = seat._replace(
                        stack=0
                    )  # lost it all: out of play until topped up


class TournamentMachine(TableMachine):
    """A tournament's tables: late entries, and rounds (every table a hand, in lockstep as
    the director deals them) after which bust-outs leave and the director balances, breaks
    tables and draws the final table, down to the last two."""

    @initialize(
        dead=st.booleans(),
        size=st.integers(3, 8),
        field=st.integers(2, 20),
        bba=st.sampled_from((0, 0, 2)),
        seed=st.integers(0, 2**32 - 1),
    )
    def start(self, dead: bool, size: int, field: int, bba: int, seed: int) -> None:
        config = self._config(size, dead, True, False, bba, seed)
        count = math.ceil(field / size)
        for t in range(count):
            self.tables[f"T{t}"] = Table(f"T{t}", config, [None] * size)
        for k in range(field):  # the director's start: round robin over the tables, seats drawn
            self._seat(self.tables[f"T{k % count}"])

    def _left(self) -> list[str]:
        return [s.player_id for t in self.tables.values() for s in t.seats if s is not None]

    @rule()
    def late_entry(self) -> None:
        open_tables = [t for t in self.tables.values() if None in t.seats]
        if open_tables and len(self._left()) >= 2:
            fewest = min(sum(s is not None for s in t.seats) for t in open_tables)
            shortest = [t for t in open_tables if sum(s is not None for s in t.seats) == fewest]
            self._seat(self.rng.choice(shortest))

    @rule(broke=st.sets(st.integers(0, 9), max_size=4), seed=st.integers(0, 2**32 - 1))
    def round(self, broke: set[int], seed: int) -> None:
        """Every table plays a hand (in lockstep, as the director deals them), then bust-outs
        leave and the director balances, breaks tables or draws the final table (once one
        player is left, the tournament is over: nothing)."""
        if len(self._left()) < 2:
            return
        for table in self.tables.values():
            if sum(s is not None for s in table.seats) < 2:
                continue
            deal = play(table, self.rng)
            assert deal is not None, "a tournament table with two players deals"
            # Someone wins the hand: at most all but one of those dealt in go out.
            for number in sorted(broke & set(deal.order))[: len(deal.order) - 1]:
                if len(self._left()) > 1:
                    table.seats[number] = None  # busted: the director unseats them
        self._balance(random.Random(seed))

    def _balance(self, rng: random.Random) -> None:
        seats = [TableSeats(t.name, self.size,
                            {s.number: s.player_id for s in t.seats if s is not None}, t.button,
                            t.last_blinds[1] if t.config.dead_button else None)
                 for t in self.tables.values()]  # fmt: skip
        players = self._left()
        rng.shuffle(players)
        decided = plan(seats, players, rng=rng)
        stacks = {s.player_id: s.stack for t in self.tables.values() for s in t.seats if s}
        if decided.final is not None:
            final_id, draw = decided.final
            for t in self.tables.values():
                t.seats = [None] * self.size
            for number, pid in draw.items():
                self._seat(self.tables[final_id], number, stacks[pid], player=pid)
        for move in decided.moves:
            src, dst = self.tables[move.from_table], self.tables[move.to_table]
            assert src.seats[move.from_seat] is not None
            src.seats[move.from_seat] = None
            if move.from_table not in decided.broken and dst.config.dead_button:
                # TDA 11-A, as the table deals: no free seat posts the big blind sooner.
                free = [n for n, s in enumerate(dst.seats) if s is None]
                soonest = min(hands_until_big_blind(dst, n) for n in free)
                assert hands_until_big_blind(dst, move.to_seat) == soonest, move
                event("tournament: a balancing move")
            self._seat(dst, move.to_seat, stacks[move.player], player=move.player)
        for gone in decided.broken:
            assert all(s is None for s in self.tables[gone].seats)
            del self.tables[gone]


MACHINE_SETTINGS = settings(
    max_examples=int(os.environ.get("BUTTON_EXAMPLES", "150")),
    stateful_step_count=int(os.environ.get("BUTTON_STEPS", "40")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
TestCashTable = CashMachine.TestCase
TestCashTable.settings = MACHINE_SETTINGS
TestTournamentTables = TournamentMachine.TestCase
TestTournamentTables.settings = MACHINE_SETTINGS
