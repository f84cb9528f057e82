"""Which players move where, between hands (TDA): as players bust, a player from the table
with the most players moves to the one with the fewest, taking the seat whose position costs
the move the least; tables break as the field shrinks; when the players left fit at one
table, the final table is drawn afresh.

"Costs the least": the player moved is the one due to post the big blind next at the table
they leave, and takes the empty seat that will post the big blind soonest at the new table,
so a move neither skips a big blind nor pays one twice. A player from a table that breaks
takes the empty seat nearest their position there (as many hands from the big blind, or
else sooner): the one who just paid it does not pay it again at once where a later seat
is free.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class TableSeats:
    """A table between hands: its seats, who sits where, the last hand's button (None before
    the first hand)."""

    table: str
    seats: int
    players: Mapping[int, str]
    button: int | None = None


@dataclass(frozen=True)
class Move:
    player: str
    from_table: str
    from_seat: int
    to_table: str
    to_seat: int


@dataclass(frozen=True)
class Plan:
    """What to do before the next hands: moves (in order), the tables that break (they are
    empty after the moves), and `final`: the final table's new draw (seat -> player) when
    the field comes down to one table."""

    moves: tuple[Move, ...] = ()
    broken: tuple[str, ...] = ()
    final: tuple[str, dict[int, str]] | None = None


def hands_to_big_blind(seat: int, occupied: set[int], button: int | None, size: int) -> int:
    """Hands until `seat` posts the big blind, the button moving one player a hand (the next
    hand's button is the first occupied seat after `button`; before any hand, the lowest)."""
    seats = sorted(occupied | {seat})
    n = len(seats)
    if n < 2:
        return 0
    start = 0 if button is None else next((k for k, s in enumerate(seats) if s > button), 0)
    order = seats[start:] + seats[:start]  # order[0]: next button, [1]: small, [2]: big
    big = 1 if n == 2 else 2  # heads-up the button is the small blind
    return (order.index(seat) - big) % n


def _mover(t: TableSeats) -> tuple[int, str]:
    occupied = set(t.players)
    seat = min(occupied, key=lambda s: (hands_to_big_blind(s, occupied, t.button, t.seats), s))
    return seat, t.players[seat]


def _landing(t: TableSeats, due: int = 0) -> int:
    """The free seat whose big blind comes nearest `due` hands from now (sooner on a tie)."""
    occupied = set(t.players)
    free = [s for s in range(t.seats) if s not in occupied]
    if not free:
        raise ValueError(f"table {t.table} has no free seat")

    def cost(s: int) -> tuple[int, int, int]:
        hands = hands_to_big_blind(s, occupied, t.button, t.seats)
        return abs(hands - due), hands, s

    return min(free, key=cost)


def _move(
    tables: dict[str, TableSeats], source: str, target: str, origin: TableSeats | None = None
) -> tuple[Move, int, bool]:
    """Move one player; with the hands they were from the big blind where they sat (at
    `origin`, the table before it began to break), and whether they paid it last hand."""
    src, dst = tables[source], tables[target]
    seat, player = _mover(src)
    # Balancing moves the player due the big blind (0 hands): the soonest seat. A table that
    # breaks sends everyone: each to the seat nearest their position.
    at = origin or src
    due = hands_to_big_blind(seat, set(at.players), at.button, at.seats)
    to = _landing(dst, due)
    left = {s: p for s, p in src.players.items() if s != seat}
    tables[source] = TableSeats(src.table, src.seats, left, src.button)
    tables[target] = TableSeats(dst.table, dst.seats, {**dst.players, to: player}, dst.button)
    return Move(player, source, seat, target, to), due, due == len(at.players) - 1 > 0


#: the most seat assignments tried for the players a broken table sends to one table
JOINT_LIMIT = 5000


def _seat_together(before: TableSeats, arrivals: list[tuple[Move, int, bool]]) -> list[Move]:
    """Seat the players a broken table sends to one table together: seated one by one, a
    later one can sit just before an earlier one and push their big blind back (or make
    the one who just paid it pay it again at once). Tried over the assignments of free
    seats: first nobody pays the big blind twice running, then each nearest their position,
    then sooner."""
    free = [s for s in range(before.seats) if s not in before.players]
    if math.perm(len(free), len(arrivals)) > JOINT_LIMIT:
        return [m for m, _, _ in arrivals]
    best: tuple[tuple[int, int, int], tuple[int, ...]] | None = None
    for seats in itertools.permutations(free, len(arrivals)):
        occupied = set(before.players) | set(seats)
        hands = [hands_to_big_blind(s, occupied, before.button, before.seats) for s in seats]
        twice = sum(1 for h, (_, _, paid) in zip(hands, arrivals, strict=True) if paid and h == 0)
        near = sum(abs(h - due) for h, (_, due, _) in zip(hands, arrivals, strict=True))
        cost = (twice, near, sum(hands))
        if best is None or cost < best[0]:
            best = (cost, seats)
    assert best is not None
    return [
        dataclasses.replace(m, to_seat=s) for (m, _, _), s in zip(arrivals, best[1], strict=True)
    ]


def plan(tables: Sequence[TableSeats], draw: Sequence[str] | None = None) -> Plan:
    """The moves that keep the tables within one player of each other, breaking a table when
    the players fit at one table fewer. `draw`: the players in a random order, used to seat
    the final table when the field fits at one table (seat k gets `draw[k]`, the final
    table is the first of `tables`)."""
    live = {t.table: t for t in tables}
    total = sum(len(t.players) for t in tables)
    if not tables:
        return Plan()
    per_table = min(t.seats for t in tables)
    if len(tables) > 1 and total <= per_table:
        order = list(draw) if draw is not None else [p for t in tables for p in t.players.values()]
        if sorted(order) != sorted(p for t in tables for p in t.players.values()):
            raise ValueError("the draw is of the players left")
        first = tables[0]
        rest = tuple(t.table for t in tables[1:])
        return Plan(broken=rest, final=(first.table, dict(enumerate(order))))
    moves: list[Move] = []
    broken: list[str] = []
    needed = max(1, math.ceil(total / per_table))
    before = dict(live)
    arrivals: dict[str, list[tuple[Move, int, bool]]] = {}
    sequence: list[Move] = []
    while len(live) > needed:
        # Break the table with the fewest players (the last one of those on a tie).
        victim = min(reversed(list(live)), key=lambda k: len(live[k].players))
        origin = live[victim]
        while live[victim].players:
            others = [k for k in live if k != victim]
            target = min(others, key=lambda k: len(live[k].players))
            move = _move(live, victim, target, origin)
            arrivals.setdefault(target, []).append(move)
            sequence.append(move[0])
        del live[victim]
        broken.append(victim)
    if set(arrivals) & set(broken):  # moved twice (two tables broke): in the order decided
        moves += sequence
    else:
        for target, came in arrivals.items():
            seated = _seat_together(before[target], came)
            moves += seated
            t = before[target]
            players = {**t.players, **{m.to_seat: m.player for m in seated}}
            live[target] = TableSeats(t.table, t.seats, players, t.button)
    while True:
        most = max(live, key=lambda k: len(live[k].players))
        fewest = min(live, key=lambda k: len(live[k].players))
        if len(live[most].players) - len(live[fewest].players) <= 1:
            break
        moves.append(_move(live, most, fewest)[0])
    return Plan(tuple(moves), tuple(broken))
